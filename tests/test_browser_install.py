"""How `make browser` installs Chromium (scripts/install_chromium.sh), run against a stand-in
apt-get: it says what it adds before adding it, and installs nothing when the install would
upgrade or remove a package already installed."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "install_chromium.sh"
#: The tools the script and the stand-in apt-get run, taken from the machine.
TOOLS = ("grep", "cut", "tr", "sed", "tail", "cat")
SIZES = (
    "Need to get 103 MB/115 MB of archives.\n"
    "After this operation, 398 MB of additional disk space will be used.\nAbort.\n"
)
NEW_ONLY = (
    "Inst libopus0 (1.3.1-3 Debian:12.15/oldstable [amd64])\n"
    "Inst chromium-common (150.0.7871.100-1~deb12u1 Debian:12.15/oldstable [amd64])\n"
    "Inst chromium (150.0.7871.100-1~deb12u1 Debian:12.15/oldstable [amd64])\n"
    "Conf chromium (150.0.7871.100-1~deb12u1 Debian:12.15/oldstable [amd64])\n"
)
UPGRADING = NEW_ONLY + (
    "Inst systemd [252.38-1~deb12u1] (252.39-1~deb12u2 Debian:12.15/oldstable [amd64]) []\n"
    "Inst perl [5.36.0-7+deb12u2] (5.36.0-7+deb12u3 Debian:12.15/oldstable [amd64]) []\n"
)
FAKE_APT = """#!/bin/sh
echo "$*" >> "{log}"
case "$*" in
  update*) exit 0 ;;
  *" -s "*) cat "{plan}" ;;
  *--assume-no*) cat "{sizes}"; exit 1 ;;
  *" -y "*) echo "apt-get installs" ;;
esac
"""


def _run(tmp_path: Path, plan: str, uid: int = 0) -> tuple[subprocess.CompletedProcess[str], str]:
    """The script on a PATH of stand-ins (no Chromium on it); its result and apt-get's calls."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in TOOLS:
        found = shutil.which(tool)
        assert found, tool
        (bin_dir / tool).symlink_to(found)
    log, plan_file, sizes = tmp_path / "apt.log", tmp_path / "plan", tmp_path / "sizes"
    plan_file.write_text(plan)
    sizes.write_text(SIZES)
    log.touch()
    (bin_dir / "apt-get").write_text(FAKE_APT.format(log=log, plan=plan_file, sizes=sizes))
    (bin_dir / "id").write_text(f"#!/bin/sh\necho {uid}\n")
    for name in ("apt-get", "id"):
        (bin_dir / name).chmod(0o755)
    done = subprocess.run(
        ["/bin/sh", str(SCRIPT)], capture_output=True, text=True, check=False,
        env={"PATH": str(bin_dir)},
    )  # fmt: skip
    return done, log.read_text()


def test_it_says_what_it_adds_then_adds_only_that(tmp_path: Path) -> None:
    done, calls = _run(tmp_path, NEW_ONLY)
    assert done.returncode == 0, done.stderr
    said, installed = done.stdout.splitlines()
    assert "3 new packages, 103 MB to download, 398 MB on disk" in said
    assert "no installed package is upgraded or removed" in said
    assert installed == "apt-get installs"
    install = calls.splitlines()[-1]
    assert "-y" in install.split() and "--no-install-recommends" in install
    assert "--no-upgrade" in install


def test_it_installs_nothing_that_would_upgrade_an_installed_package(tmp_path: Path) -> None:
    done, calls = _run(tmp_path, UPGRADING)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("\n") == 1  # one line
    assert "upgrade or remove 2 installed packages (systemd perl)" in done.stdout
    assert "HTML" in done.stdout
    assert not any("-y" in call.split() for call in calls.splitlines())


def test_without_root_it_only_says_so(tmp_path: Path) -> None:
    done, calls = _run(tmp_path, NEW_ONLY, uid=1000)
    assert done.returncode == 0
    assert "needs root" in done.stdout and done.stdout.count("\n") == 1
    assert calls == ""
