"""The ``tarot-analysis`` command: its outputs, and one clear line for every mistake."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from tarot_analysis import __version__
from tarot_analysis.cli.commands.hands import TITLES
from tarot_analysis.cli.program import EXIT_USAGE, main
from tarot_analysis.deals.deal import deal
from tarot_analysis.deals.features import FEATURES, features_frame
from tarot_analysis.game.rules import list_presets, load_rules, rules_to_toml

REPO = Path(__file__).resolve().parents[1]
RATE_KEYS = {"n", "count", "simulated", "exact", "ci_low", "ci_high"}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run the command in this process: exit status, stdout, stderr."""
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def hands_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    status, out, err = run(capsys, "hands", "--json", *argv)
    assert status == 0, err
    result: dict[str, Any] = json.loads(out)
    return result


def assert_one_line_error(err: str, *words: str) -> None:
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert "error" in lines[0] and "Traceback" not in err
    for word in words:
        assert word in lines[0], (word, lines[0])


# --- hands -----------------------------------------------------------------------------------


def test_hands_json_has_every_table_with_rates_beside_exact_values(
    capsys: pytest.CaptureFixture[str],
) -> None:
    result = hands_json(capsys, "--rules", "fft-4", "--deals", "20000", "--seed", "1")
    assert result["rules"] == "fft-4"
    assert result["deals"] == 20_000
    assert result["seed"] == 1
    assert result["version"] == __version__
    assert set(result["bouts"]) == {"0", "1", "2", "3"}
    assert set(result["poignee"]) == {"simple", "double", "triple"}
    assert "per_deal" in result["petit_sec"]
    for table in ("bouts", "poignee", "petit_sec"):
        for label, row in result[table].items():
            assert RATE_KEYS <= set(row), (table, label)
            assert row["ci_low"] <= row["simulated"] <= row["ci_high"], (table, label)
            assert 0 <= row["exact"] <= 1, (table, label)
    assert sum(row["exact"] for row in result["bouts"].values()) == pytest.approx(1, abs=1e-12)
    assert sum(row["count"] for row in result["bouts"].values()) == 20_000 * 4
    assert result["petit_sec"]["per_deal"]["n"] == 20_000
    assert result["metadata"]["rules_definition"]["players"] == 4


def test_hands_json_is_reproducible_from_its_seed(capsys: pytest.CaptureFixture[str]) -> None:
    common = ("--rules", "fft-3", "--deals", "3000", "--chunk-size", "1000")
    first = hands_json(capsys, *common, "--seed", "7", "--threads", "1")
    again = hands_json(capsys, *common, "--seed", "7", "--threads", "2")
    other = hands_json(capsys, *common, "--seed", "8")
    for result in (first, again, other):
        assert isinstance(result.pop("seconds"), float)
    assert first == again
    assert other["seed"] == 8
    counts = {label: row["count"] for label, row in first["trumps"].items()}
    assert counts != {label: row["count"] for label, row in other["trumps"].items()}


@pytest.mark.slow
def test_hands_out_saves_every_hand_and_dog_with_the_run_metadata(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "features" / "fft-5.parquet"
    deals, chunk_size = 2_500, 1_000  # three chunks, the last one short
    status, out, err = run(
        capsys, "hands", "--rules", "fft-5", "--deals", str(deals), "--seed", "4",
        "--chunk-size", str(chunk_size), "--no-progress", "--out", str(path),
    )  # fmt: skip
    assert status == 0, err
    assert f"saved to {path}" in out
    assert path.is_file()
    rules = load_rules("fft-5")
    metadata = json.loads(pq.read_schema(path).metadata[b"tarot_analysis"])
    assert metadata["rules"] == "fft-5"
    assert metadata["seed"] == 4
    assert metadata["chunk_size"] == chunk_size
    assert metadata["deals"] == deals
    assert metadata["version"] == __version__
    assert metadata["rules_definition"]["players"] == rules.players

    frame = pd.read_parquet(path)
    assert len(frame) == deals * (rules.players + 1)
    named = [name for name in FEATURES if name != "half_points"]
    assert list(frame.columns) == ["deal", "seat", "is_dog", *named, "points", "trumps_with_excuse"]
    # The metadata is enough to deal the same hands again.
    again = deal(rules, deals, seed=metadata["seed"], chunk_size=metadata["chunk_size"])
    expected = features_frame(again.features(), rules)
    for column in frame.columns:
        np.testing.assert_array_equal(frame[column].to_numpy(), expected[column].to_numpy())


def test_hands_prints_tables_for_people(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "hands", "--deals", "2000", "--seed", "3", "--no-progress")
    assert status == 0
    assert err == ""
    assert "rules fft-4, 2,000 deals, seed 3" in out
    for title in TITLES.values():
        assert title in out, title
    assert "exact" in out
    assert "chi-square vs exact" in out


# --- rules -----------------------------------------------------------------------------------


def test_rules_list_names_every_preset(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "rules", "list")
    assert status == 0
    names = [line.split()[0] for line in out.splitlines()]
    assert names == list_presets()
    assert len(names) == 10
    default = next(line for line in out.splitlines() if line.startswith("fft-4 "))
    assert default.count("default") == 1


def test_rules_show_prints_every_rule(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "rules", "show", "fft-5")
    assert status == 0
    assert out.startswith("fft-5: ")
    assert "5 players, 15 cards each" in out
    assert "dog 3" in out


# --- mistakes --------------------------------------------------------------------------------


def write_rules(tmp_path: Path, old: str, new: str) -> Path:
    """A copy of fft-4 as a rules file, with one line changed."""
    text = rules_to_toml(load_rules("fft-4"))
    assert text.count(old) == 1
    path = tmp_path / "house.toml"
    path.write_text(text.replace(old, new), encoding="utf-8")
    return path


def test_an_unknown_preset_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "hands", "--rules", "fft-9", "--deals", "10")
    assert status == EXIT_USAGE
    assert_one_line_error(err, "'fft-9'", "fft-4")
    status, _, err = run(capsys, "rules", "show", "fft-9")
    assert status == EXIT_USAGE
    assert_one_line_error(err, "'fft-9'")


def test_a_misspelt_key_in_a_rules_file_is_named(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = write_rules(tmp_path, "dog_size = 6", "dog_sise = 6")
    status, _, err = run(capsys, "hands", "--rules", str(path), "--deals", "10")
    assert status == EXIT_USAGE
    assert_one_line_error(err, str(path), "dog_sise", "did you mean 'dog_size'")
    status, _, err = run(capsys, "rules", "show", str(path))
    assert status == EXIT_USAGE
    assert_one_line_error(err, "dog_sise")


def test_a_rules_file_that_does_not_deal_the_whole_pack_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = write_rules(tmp_path, "hand_size = 18", "hand_size = 17")
    status, _, err = run(capsys, "hands", "--rules", str(path), "--deals", "10")
    assert status == EXIT_USAGE
    assert_one_line_error(err, str(path), "= 74, must be 78")


def test_a_missing_rules_file_is_named(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "nowhere" / "house.toml"
    status, _, err = run(capsys, "hands", "--rules", str(path), "--deals", "10")
    assert status == EXIT_USAGE
    assert_one_line_error(err, str(path), "no such file")


@pytest.mark.parametrize(
    ("option", "value", "words"),
    [
        ("--deals", "0", ("--deals", "at least 1", "got 0")),
        ("--deals", "abc", ("--deals", "whole number", "'abc'")),
        ("--seed", "-3", ("--seed", "non-negative", "-3")),
        ("--threads", "0", ("--threads", "at least 1", "got 0")),
        ("--chunk-size", "0", ("--chunk-size", "at least 1", "got 0")),
    ],
)
def test_a_bad_option_value_is_named(
    capsys: pytest.CaptureFixture[str], option: str, value: str, words: tuple[str, ...]
) -> None:
    status, out, err = run(capsys, "hands", option, value)
    assert status == EXIT_USAGE
    assert out == ""
    assert_one_line_error(err, *words)


def test_an_out_path_that_cannot_be_created_is_named(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n")
    for out in (blocker / "x.parquet", blocker / "sub" / "x.parquet"):
        status, _, err = run(capsys, "hands", "--deals", "10", "--no-progress", "--out", str(out))
        assert status == EXIT_USAGE
        assert_one_line_error(err, str(out), "a file is in the way")
    status, _, err = run(capsys, "hands", "--deals", "10", "--out", str(tmp_path))
    assert status == EXIT_USAGE
    assert_one_line_error(err, str(tmp_path), "folder")


def test_rows_asked_for_and_refused_at_once_is_named(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = str(tmp_path / "x.parquet")
    status, _, err = run(capsys, "hands", "--deals", "10", "--no-rows", "--out", out)
    assert status == EXIT_USAGE
    assert_one_line_error(err, "--out", "--no-rows")
    status, _, err = run(capsys, "hands", "--deals", "10", "--workers", "0")
    assert status == EXIT_USAGE
    assert_one_line_error(err, "workers", "at least 1")


# --- end to end ------------------------------------------------------------------------------


def command(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tarot_analysis.cli.program", *argv],
        capture_output=True, text=True, cwd=REPO, timeout=120, check=False,
    )  # fmt: skip


@pytest.mark.slow
def test_the_command_exits_cleanly_end_to_end() -> None:
    done = command("hands", "--rules", "fft-3", "--deals", "1000", "--json")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert json.loads(done.stdout)["deals"] == 1000

    for argv in (("hands", "--rules", "fft-9"), ("hands", "--deals", "0")):
        done = command(*argv)
        assert done.returncode == EXIT_USAGE, argv
        assert done.stdout == ""
        assert len(done.stderr.splitlines()) == 1, done.stderr
        assert "Traceback" not in done.stderr


def test_version_and_help_return_zero(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "--version")
    assert (status, out.strip()) == (0, f"tarot-analysis {__version__}")
    status, out, _ = run(capsys, "hands", "--help")
    assert status == 0
    assert "--deals" in out


def test_every_command_module_is_listed_and_sets_the_handler_main_calls() -> None:
    # One way to add a command: a module of tarot_analysis.cli.commands listed in COMMANDS, whose
    # add_parser sets the handler of each command it adds.
    import argparse
    import pkgutil

    from tarot_analysis.cli import commands
    from tarot_analysis.cli.program import ADDED_BY, COMMANDS, command_module

    found = {info.name for info in pkgutil.iter_modules(commands.__path__)}
    assert found and found <= set(COMMANDS), found - set(COMMANDS)
    added = []
    for name in COMMANDS:
        subparsers = argparse.ArgumentParser().add_subparsers()
        command_module(name).add_parser(subparsers)
        assert name in subparsers.choices, name
        for command, parser in subparsers.choices.items():
            assert callable(parser.get_default("handler")), command
            assert ADDED_BY.get(command, command) == name, command
            added.append(command)
    assert len(added) == len(set(added)) == len(COMMANDS) + len(ADDED_BY)  # dd adds two, ...


# A folder no process may write in, even as root: /proc takes no files, and nothing can be
# created under /sys.
UNWRITABLE = [
    (["report", "--deals", "2000", "--out", "/proc"], "/proc"),
    (["report", "--deals", "2000", "--out", "reports", "--data", "/sys/tarot"], "/sys/tarot"),
    (["guidance", "--deals", "100", "--data", "/sys/tarot"], "/sys/tarot"),
    (["guidance", "--deals", "100", "--tables", "/proc"], "/proc"),
    (["play", "--deals", "100", "--out", "/proc/scores.parquet"], "/proc"),
    (["hands", "--deals", "100", "--out", "/sys/tarot/hands.parquet"], "/sys/tarot"),
]


@pytest.mark.parametrize(("argv", "folder"), UNWRITABLE, ids=[a[0] for a, _ in UNWRITABLE])
def test_a_folder_that_cannot_be_written_is_refused_before_any_deal(
    argv: list[str], folder: str, capsys: pytest.CaptureFixture[str], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.chdir(tmp_path)
    status, out, err = run(capsys, *argv, "--no-progress")
    assert status == EXIT_USAGE and out == ""
    assert len(err.strip().splitlines()) == 1 and f"folder {folder}" in err, err
    assert "Traceback" not in err and ".tmp" not in err
    assert not (tmp_path / "data").exists()  # nothing was run


def test_a_run_too_large_for_the_memory_is_refused_up_front(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The most deals a run takes (a billion), more than this machine holds in memory.
    status, out, err = run(capsys, "play", "--deals", "1000000000", "--no-progress")
    assert status == EXIT_USAGE and out == ""
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "TiB of memory" in err and "deals fit, or --no-rows keeps memory flat" in err
    status, _, err = run(capsys, "guidance", "--deals", "1000000000", "--seat", "both")
    assert status == EXIT_USAGE and "guidance --deals 1,000,000,000" in err
    status, _, err = run(capsys, "report", "--deals", "1000000000", "--out", "/tmp")
    assert status == EXIT_USAGE and err.strip().endswith("deals fit")

    from tarot_analysis.runs.memory import BYTES_PER_DEAL, check_memory

    # At the limit: what fits passes, one deal more does not, and the count said is the limit.
    available = 10 * 2**30
    fit = int(available * 0.8 // BYTES_PER_DEAL["play"])
    check_memory("play", fit, "--no-rows", available=available)
    from tarot_analysis.errors import TarotInputError

    with pytest.raises(TarotInputError, match=f"at most {fit:,} deals fit"):
        check_memory("play", fit + 1, "--no-rows", available=available)


def test_teach_chunks_too_large_for_the_memory_are_refused_before_any_deal(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tarot_analysis.cli.commands.teach import chunk_bytes
    from tarot_analysis.runs import memory

    monkeypatch.chdir(tmp_path)
    fft4 = load_rules("fft-4")
    free = 100 * chunk_bytes(fft4, 1)  # room for 80 deals in memory, for the rest 20
    monkeypatch.setattr(memory, "available_bytes", lambda: free)
    argv = ["teach", "--deals", "1000", "--chunk-size", "50", "--no-progress"]
    status, out, err = run(capsys, *argv, "--threads", "2")
    assert status == EXIT_USAGE and out == "" and err.count("\n") == 1
    assert "teach --chunk-size 50 on 2 threads would need about" in err
    assert "at most 40 deals a chunk fit (--chunk-size), or fewer --threads" in err
    assert not (tmp_path / "data").exists()  # nothing was run
    assert memory.available_bytes() == free


def test_the_memory_available_reads_an_address_space_limit() -> None:
    """``ulimit -v``: what it leaves is the memory a run may take, however much the system
    has free."""
    code = (
        "import resource; from tarot_analysis.runs import memory;"
        "resource.setrlimit(resource.RLIMIT_AS, (3 << 30, resource.RLIM_INFINITY));"
        "left = memory.available_bytes(); free = memory._meminfo_available();"
        "print(left < 3 << 30 and (free is None or left <= free))"
    )  # fmt: skip
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root
    )
    assert done.stdout.strip() == "True", done.stderr


def test_a_rules_name_never_writes_outside_the_folders_it_names(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rules file named ``../../../../escaped`` would put the run's folder, and the
    report's, beside the working folder: it is refused as the file is read."""
    work = tmp_path / "a" / "b" / "work"
    work.mkdir(parents=True)
    monkeypatch.chdir(work)
    Path("escaped.toml").write_text('extends = "fft-4"\nname = "../../../../escaped"\n')
    argv = ["dd-bound", "--rules", "escaped.toml", "--deals", "2", "--after-tricks", "16"]
    status, out, err = run(capsys, *argv, "--no-progress")
    assert status == EXIT_USAGE and out == "" and err.count("\n") == 1
    assert 'name "../../../../escaped" cannot name files: use ASCII letters, digits' in err
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == [
        "a", "a/b", "a/b/work", "a/b/work/escaped.toml",
    ]  # fmt: skip


# --- files that are no rules file, runs too small to fit ---------------------------------------


def test_a_rules_file_that_is_a_device_a_pipe_or_too_large_is_refused_in_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    import os

    extends_zero = tmp_path / "zero.toml"
    extends_zero.write_text('extends = "/dev/zero"\n')
    large = tmp_path / "large.toml"
    large.write_text("# a comment\n" * 100_000)  # 1.2 MB of valid TOML
    pipe = tmp_path / "pipe.toml"
    os.mkfifo(pipe)  # opening it for reading would wait for a writer
    cases = [
        ("/dev/zero", "rules file /dev/zero: not a regular file"),
        (str(extends_zero), "rules file /dev/zero: not a regular file"),
        (str(large), f"rules file {large}: larger than 1 MiB"),
        (str(pipe), f"rules file {pipe}: not a regular file"),
    ]
    for name, message in cases:
        status, out, err = run(capsys, "rules", "show", name)
        assert status == EXIT_USAGE and out == ""
        assert_one_line_error(err, message)
    status, _, err = run(capsys, "play", "--rules", str(extends_zero), "--deals", "10")
    assert status == EXIT_USAGE
    assert_one_line_error(err, "rules file /dev/zero: not a regular file")


def test_a_report_of_too_few_deals_to_fit_is_refused_before_any_run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from tarot_analysis.analyses.guidance import MIN_FIT_DEALS

    for deals in (1, MIN_FIT_DEALS - 1):
        status, out, err = run(
            capsys, "report", "--deals", str(deals), "--out", str(tmp_path / "reports"),
            "--data", str(tmp_path / "data"), "--no-progress",
        )  # fmt: skip
        assert status == EXIT_USAGE and out == ""
        assert_one_line_error(err, f"a report needs at least {MIN_FIT_DEALS:,} deals")
    assert not (tmp_path / "data").exists() or not any((tmp_path / "data").iterdir())
