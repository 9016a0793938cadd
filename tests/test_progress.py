"""Progress: every bar and step names its phase, a long wait still shows its clock moving, the
engine's compilation is said, nothing is printed without progress, and the silence meter."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from numba.core import event

from tarot_analysis import progress
from tarot_analysis.cli import main
from tarot_analysis.progress import COMPILING, COMPILING_NOTICE, PLAYING, SCORING, bar, step

SILENCES = Path(__file__).parent.parent / "benchmarks" / "silences.py"


def _lines(err: str) -> list[str]:
    """What was printed, each redraw of a display on its own line."""
    return [line.strip() for line in err.replace("\r", "\n").splitlines() if line.strip()]


def test_a_bar_names_its_phase_then_what_it_works_on(capsys: pytest.CaptureFixture[str]) -> None:
    with bar(PLAYING, 10, detail="fft-4") as shown:
        shown.update(10)
    lines = _lines(capsys.readouterr().err)
    assert lines and all(line.startswith("playing · fft-4:") for line in lines)
    assert "10/10" in lines[-1]


def test_a_waiting_bar_redraws_its_clock_every_second(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with bar(PLAYING, 10, detail="fft-4"):
        time.sleep(2.5)
    lines = _lines(capsys.readouterr().err)
    assert any("[00:01<" in line for line in lines), lines
    assert any("[00:02<" in line for line in lines), lines


def test_a_step_prints_its_start_its_clock_and_its_end(capsys: pytest.CaptureFixture[str]) -> None:
    with step(SCORING, detail="fft-4 seat 0") as shown:
        time.sleep(1.5)
        shown.set_postfix_str("thresholds")
        time.sleep(1.2)
    lines = _lines(capsys.readouterr().err)
    assert lines[0] == "scoring · fft-4 seat 0: 00:00 so far"
    assert "scoring · fft-4 seat 0: 00:01 so far" in lines
    assert "scoring · fft-4 seat 0: 00:02 so far, thresholds" in lines
    assert lines[-1].startswith("scoring · fft-4 seat 0: done in 2.")
    assert lines[-1].endswith(" s")


def test_a_step_that_fails_does_not_say_done(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ValueError), step(SCORING, detail="fft-4"):
        raise ValueError("no rows")
    err = capsys.readouterr().err
    assert "scoring · fft-4" in err and "done" not in err


def test_nothing_is_printed_when_disabled(capsys: pytest.CaptureFixture[str]) -> None:
    with bar(PLAYING, 10, detail="fft-4", enabled=False) as shown:
        shown.update(5)
        shown.set_postfix_str("more")
        with event.trigger_event("numba:compile", data={}):
            time.sleep(1.2)
    with step(SCORING, False, detail="fft-4") as shown:
        shown.set_postfix_str("thresholds")
        time.sleep(1.2)
    assert capsys.readouterr().err == ""


@pytest.fixture
def fresh_compilation(monkeypatch: pytest.MonkeyPatch) -> None:
    """A process that has not compiled yet: it has not said so."""
    monkeypatch.setattr(progress, "_COMPILATION", progress._Compilation())


@pytest.mark.usefixtures("fresh_compilation")
def test_compiling_is_said_once_and_shown_while_it_lasts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with bar(PLAYING, 2, detail="fft-4") as shown:
        assert COMPILING not in str(shown)
        # numba announces each compilation; a kernel compiles the kernels it calls inside.
        with event.trigger_event("numba:compile", data={}):
            with event.trigger_event("numba:compile", data={}):
                pass
            time.sleep(2.2)
            assert f"{COMPILING} (00:02)" in str(shown)
        assert COMPILING not in str(shown)
        shown.update(1)
        with event.trigger_event("numba:compile", data={}):
            assert f"{COMPILING} (00:02)" in str(shown)  # the time spent compiling so far
        shown.update(1)
    err = capsys.readouterr().err
    assert err.count(COMPILING_NOTICE) == 1
    assert err.index(COMPILING_NOTICE) < err.index("1/2")
    assert any(f"{COMPILING} (00:01)" in line for line in _lines(err))


@pytest.mark.usefixtures("fresh_compilation")
def test_a_real_compilation_is_said(capsys: pytest.CaptureFixture[str]) -> None:
    from numba import njit

    @njit
    def double(x: int) -> int:
        return 2 * x

    with bar(PLAYING, 1, detail="fft-4") as shown:
        assert double(21) == 42
        shown.update(1)
    assert capsys.readouterr().err.count(COMPILING_NOTICE) == 1


@pytest.mark.usefixtures("fresh_compilation")
def test_compiling_without_a_display_says_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    with bar(PLAYING, 1, enabled=False), event.trigger_event("numba:compile", data={}):
        pass
    assert capsys.readouterr().err == ""


def test_hands_says_dealing(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hands", "--deals", "3000", "--chunk-size", "1000"]) == 0
    lines = _lines(capsys.readouterr().err)
    assert any(line.startswith("dealing · fft-4:") and "3.00k/3.00k" in line for line in lines)


def test_play_says_playing(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--deals", "2000", "--chunk-size", "1000", "--bots", "random"]) == 0
    lines = _lines(capsys.readouterr().err)
    assert any(line.startswith("playing · fft-4:") and "2.00k/2.00k" in line for line in lines)
    assert any(line.startswith("scoring · fft-4: done in ") for line in lines)
    assert main(["play", "--deals", "2000", "--bots", "random", "--no-rows"]) == 0
    assert "playing · fft-4:" in capsys.readouterr().err


def test_guidance_names_every_phase(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["guidance", "--deals", "12000", "--chunk-size", "3000", "--bots", "random",
            "--data", str(tmp_path / "run"), "--tables", str(tmp_path / "tables")]  # fmt: skip
    assert main(argv) == 0
    lines = _lines(capsys.readouterr().err)
    assert any(
        line.startswith("playing every contract · fft-4 seat 0:") and "12.0k/12.0k" in line
        for line in lines
    )
    for name in ("scoring · fft-4 seat 0, the run's rows", "scoring · fft-4 seat 0, tables",
                 "fitting · fft-4 seat 0, the success model of garde"):  # fmt: skip
        assert f"{name}: 00:00 so far" in lines, name
        assert any(line.startswith(f"{name}: done in ") for line in lines), name
    # In the order they run.
    ends = [next(i for i, line in enumerate(lines) if line.startswith(name)) for name in
            ("playing every", "scoring · fft-4 seat 0, the run's", "scoring · fft-4 seat 0, tables",
             "fitting")]  # fmt: skip
    assert ends == sorted(ends)


def test_compare_names_its_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", "fft-4", "legacy-4", "--deals", "400", "--bots", "random"]) == 0
    err = capsys.readouterr().err
    assert "comparing · 2 variants:" in err
    for run in ("playing fft-4", "playing every contract fft-4", "dealing legacy-4"):
        assert run in err, run


@pytest.mark.parametrize("quiet", ["--no-progress", "--json"])
def test_no_progress_prints_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], quiet: str
) -> None:
    runs = [
        ["hands", "--deals", "2000"],
        ["play", "--deals", "2000", "--bots", "random"],
        ["guidance", "--deals", "12000", "--chunk-size", "3000", "--bots", "random",
         "--data", str(tmp_path / "run"), "--tables", str(tmp_path / "tables")],
        ["compare", "fft-4", "legacy-4", "--deals", "400", "--bots", "random"],
    ]  # fmt: skip
    for argv in runs:
        assert main([*argv, quiet]) == 0
        assert capsys.readouterr().err == "", argv


def _silences(*command: str) -> dict[str, object]:
    result = subprocess.run(
        [sys.executable, str(SILENCES), "--json", "--", *command],
        capture_output=True, text=True, check=True, timeout=60,
    )  # fmt: skip
    found: dict[str, object] = json.loads(result.stdout)
    return found


def test_the_silence_meter_finds_a_planted_silence() -> None:
    code = "import time; print(1, flush=True); time.sleep(2); print(2)"
    found = _silences(sys.executable, "-c", code)
    assert found["exit_status"] == 0
    assert 1.9 <= float(found["longest_silence_s"]) <= 2.6  # type: ignore[arg-type]
    longest = found["longest_silences"][0]  # type: ignore[index]
    assert longest["after"] == "1"


def test_the_silence_meter_counts_redraws_on_standard_error() -> None:
    # A display redrawn on one line (``\r``, no newline) every 0.2 s for 2 s is never silent.
    code = (
        "import sys, time\n"
        "for i in range(10):\n"
        "    sys.stderr.write(f'\\rstep {i}'); sys.stderr.flush(); time.sleep(0.2)\n"
    )
    found = _silences(sys.executable, "-c", code)
    assert float(found["seconds"]) >= 2.0  # type: ignore[arg-type]
    assert float(found["longest_silence_s"]) < 1.0  # type: ignore[arg-type]
    assert int(found["chunks"]) >= 5  # type: ignore[call-overload]
