"""One guarded reader for every file: each command that reads a file, given what is no such
file (a pipe, a device, binary bytes, a hundred thousand nested brackets, a number of 5,000
digits, a compressed bomb), says so in one line, exits with status 2 and writes nothing."""

from __future__ import annotations

import json
import os
import signal
import zipfile
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

import numpy as np
import pytest

from tarot_analysis.bots.learned import SHIPPED
from tarot_analysis.cli.program import EXIT_USAGE, main
from tarot_analysis.errors import TarotInputError
from tarot_analysis.learning.streaming import load_action_in
from tarot_analysis.reader import (
    MODEL_BYTES,
    RECORD_BYTES,
    open_archive,
    parse_json,
    parse_toml,
    read_json,
    read_text,
    read_toml,
)

HAND = "21 19 12 6 1 E KH CH 10H 8H 1H JD 8D QC CC 7C 6S 4S"
BOMB_BYTES = 300 << 20  # unpacked: more than any array of a model may take


@pytest.fixture(autouse=True)
def time_limit() -> Iterator[None]:
    """A reader that waits on a pipe or reads a device forever fails the test, not the suite."""

    def expire(signum: int, frame: FrameType | None) -> None:
        raise TimeoutError("still reading after 60 s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(60)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture(scope="module")
def bad(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Files that are no file of the toolkit, by what is wrong with them."""
    folder = tmp_path_factory.mktemp("bad")
    files = {
        "pipe": folder / "pipe.toml",
        "device": Path("/dev/zero"),
        "binary": folder / "binary.toml",
        "latin-1": folder / "latin.toml",
        "nested json": folder / "nested.json",
        "nested toml": folder / "nested.toml",
        "digits json": folder / "digits.json",
        "digits toml": folder / "digits.toml",
        "too large": folder / "large.json",
    }
    os.mkfifo(files["pipe"])
    files["binary"].write_bytes(bytes(range(256)) * 16)
    files["latin-1"].write_bytes('title = "Garde à côté"\n'.encode("latin-1"))
    files["nested json"].write_bytes(b'{"rules": "fft-4", "hands": ' + b"[" * 100_000)
    files["nested toml"].write_bytes(b"hands = " + b"[" * 100_000)
    files["digits json"].write_text('{"rules": "fft-4", "seed": ' + "9" * 5000 + "}")
    files["digits toml"].write_text('rules = "fft-4"\nseed = ' + "9" * 5000 + "\n")
    files["too large"].write_text(" " * (RECORD_BYTES + 1) + "{}")
    files["bomb"] = folder / "bomb.npz"
    _write_bomb(files["bomb"])
    return files


def _write_bomb(path: Path) -> None:
    """A model file of a few hundred kilobytes whose first layer unpacks to 300 MiB of zeros."""
    metadata = {
        "kind": "tarot-analysis learned bot", "format": 2, "rules": "fft-4", "players": 4,
        "trunk_layers": 1, "head_layers": 1,
    }  # fmt: skip
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        with archive.open("metadata.npy", "w") as member:
            np.lib.format.write_array(member, np.array(json.dumps(metadata)))
        with archive.open("trunk_0_w.npy", "w", force_zip64=True) as member:
            header = {"descr": "<f4", "fortran_order": False, "shape": (BOMB_BYTES // 4,)}
            np.lib.format.write_array_header_2_0(member, header)
            block = bytes(1 << 20)
            for _ in range(BOMB_BYTES >> 20):
                member.write(block)
        for name in ("trunk_0_b", "head_0_w", "head_0_b"):
            with archive.open(f"{name}.npy", "w") as member:
                np.lib.format.write_array(member, np.zeros(4, dtype=np.float32))


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _refused(capsys: pytest.CaptureFixture[str], argv: list[str], *words: str) -> str:
    status, out, err = _run(capsys, *argv)
    lines = err.splitlines()
    assert status == EXIT_USAGE and out == "", (argv, err)
    assert len(lines) == 1 and "Traceback" not in err, (argv, err)
    for word in words:
        assert word in lines[0], (argv, word, lines[0])
    return lines[0]


# --- the reader itself ----------------------------------------------------------------------


def test_the_reader_refuses_what_is_no_regular_file_before_opening_it(
    bad: dict[str, Path],
) -> None:
    for name in ("pipe", "device"):
        with pytest.raises(TarotInputError, match="not a regular file"):
            read_text(bad[name], "game record", limit=RECORD_BYTES)
    with pytest.raises(TarotInputError, match="is a folder, not a game record"):
        read_text(bad["pipe"].parent, "game record", limit=RECORD_BYTES)
    with pytest.raises(TarotInputError, match="no such file"):
        read_text(bad["pipe"].parent / "absent.json", "game record", limit=RECORD_BYTES)
    with pytest.raises(TarotInputError, match="larger than 1 MiB, too large for a game record"):
        read_text(bad["too large"], "game record", limit=RECORD_BYTES)


def test_the_reader_calls_what_it_cannot_parse_not_valid_in_one_line(
    bad: dict[str, Path],
) -> None:
    expected = {
        "binary": "not UTF-8 text (byte 128)",
        "latin-1": "not UTF-8 text",
        "nested json": "not valid JSON: nested too deeply",
        "nested toml": "not valid TOML: nested too deeply",
        "digits json": "not valid JSON: a number of more than 4300 digits",
        "digits toml": "not valid TOML: a number of more than 4300 digits",
    }
    for name, words in expected.items():
        read = read_json if bad[name].suffix == ".json" else read_toml
        with pytest.raises(TarotInputError) as refused:
            read(bad[name], "game record", limit=RECORD_BYTES)
        message = str(refused.value)
        assert message.startswith(f"game record {bad[name]}: {words}") and "\n" not in message
    for text in ("NaN", "[1e999]", '{"a": Infinity}'):
        with pytest.raises(TarotInputError, match="not valid JSON"):
            parse_json(text, "x.json")
    assert parse_json('{"a": [1, 2.5]}', "x.json") == {"a": [1, 2.5]}
    assert parse_toml("a = [1, 2]", "x.toml") == {"a": [1, 2]}


def test_an_archive_member_is_bounded_before_it_is_unpacked(bad: dict[str, Path]) -> None:
    with (
        open_archive(bad["bomb"], "model file", limit=MODEL_BYTES) as archive,
        pytest.raises(TarotInputError, match=r"its trunk_0_w take 300\.0 MiB unpacked"),
    ):
        archive.array("trunk_0_w", 1 << 20)
    assert bad["bomb"].stat().st_size < 2 << 20  # a bomb: small packed


# --- every command that reads a file --------------------------------------------------------


RULES_FAULTS = {
    "pipe": "not a regular file",
    "device": "not a regular file",
    "binary": "not UTF-8 text",
    "nested toml": "not valid TOML: nested too deeply",
    "digits toml": "not valid TOML: a number of more than",
}

#: Every command that reads a rules file, with what else it needs to start.
RULES_COMMANDS = [
    ["hands", "--deals", "10"],
    ["play", "--deals", "10"],
    ["replay"],
    ["solve", HAND],
    ["dd"],
    ["dd-bound", "--deals", "10"],
    ["hand", HAND],
    ["odds", HAND],
    ["guidance", "--deals", "10"],
    ["teach", "--deals", "10"],
    ["report", "--deals", "10"],
    ["review", "--deals", "1"],
]


def test_every_command_refuses_a_rules_file_that_is_none_in_one_line(
    capsys: pytest.CaptureFixture[str],
    bad: dict[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)  # what a command would write lands here: it must write nothing
    for name, words in RULES_FAULTS.items():
        path = str(bad[name])
        _refused(capsys, ["rules", "show", path], f"rules file {path}: {words}")
        for command in RULES_COMMANDS:
            _refused(capsys, [*command, "--rules", path], f"rules file {path}: {words}")
        _refused(capsys, ["compare", "fft-4", path, "--deals", "10"], f"rules file {path}")
        _refused(capsys, ["selfplay", "--rules", path, "--from", "x.npz", "--out", "out"], path)
    assert list(tmp_path.iterdir()) == []


def test_review_refuses_a_record_that_is_none_in_one_line(
    capsys: pytest.CaptureFixture[str], bad: dict[str, Path], tmp_path: Path
) -> None:
    faults = {
        "pipe": "not a regular file",
        "device": "not a regular file",
        "binary": "not UTF-8 text",
        "latin-1": "not UTF-8 text",
        "nested json": "not valid JSON: nested too deeply",
        "nested toml": "not valid TOML: nested too deeply",
        "digits json": "not valid JSON: a number of more than",
        "digits toml": "not valid TOML: a number of more than",
        "too large": "larger than 1 MiB, too large for a game record",
    }
    html = tmp_path / "review.html"
    for name, words in faults.items():
        path = str(bad[name])
        _refused(capsys, ["review", path, "--html", str(html)], f"game record {path}: {words}")
    assert not html.exists()


def test_a_record_whose_seats_are_not_ascii_digits_is_refused_in_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # A record of the heuristic's play: quick to compile within the time limit of a reader.
    status, out, _ = _run(capsys, "replay", "--json", "--bots", "heuristic")
    assert status == 0
    record = json.loads(out)
    for key in ("³", "٣", "9" * 5000):
        path = tmp_path / "record.json"
        path.write_text(json.dumps(record | {"poignees": {key: "simple"}}))
        _refused(capsys, ["review", str(path)], "poignees:", "is not a seat of fft-4")
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    for where in ("².1", "1.²", "bid.³", "call.²"):
        _refused(capsys, ["review", str(path), "--from", where], "--from")


MODEL_FAULTS = {
    "pipe": "not a regular file",
    "device": "not a regular file",
    "binary": "not a readable model file",
    "bomb": "MiB unpacked",
}


def test_a_model_file_that_is_none_is_refused_by_every_reader_in_one_line(
    capsys: pytest.CaptureFixture[str],
    bad: dict[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    for name, words in MODEL_FAULTS.items():
        path = str(bad[name])
        seated = f"learned:{path}"
        _refused(capsys, ["play", "--deals", "10", "--bots", seated, *["heuristic"] * 3], words)
        _refused(capsys, ["hand", HAND, "--deals", "10", "--bots", seated], words)
        _refused(capsys, ["selfplay", "--from", path, "--out", "rounds"], words)
        with pytest.raises(TarotInputError, match=words):  # train --start reads it so
            load_action_in(path, "fft-4")
    assert list(tmp_path.iterdir()) == []


def test_a_run_folder_whose_definition_is_none_is_refused_in_one_line(
    capsys: pytest.CaptureFixture[str], bad: dict[str, Path], tmp_path: Path
) -> None:
    faults = {
        "pipe": "not a regular file",
        "binary": "not UTF-8 text",
        "nested json": "not valid JSON: nested too deeply",
        "digits json": "not valid JSON: a number of more than",
    }
    out = tmp_path / "net.npz"
    for name, words in faults.items():
        folder = tmp_path / name.replace(" ", "-")
        folder.mkdir()
        definition = folder / "_run.json"
        if name == "pipe":
            os.mkfifo(definition)
        else:
            definition.write_bytes(bad[name].read_bytes())
        _refused(capsys, ["train", str(folder), "--out", str(out)], "run definition", words)
        _refused(capsys, ["teach", "--deals", "10", "--data", str(folder)], words)
        anchor = ["--anchor", str(folder), "--from", str(SHIPPED / "fft-4.npz")]
        _refused(capsys, ["selfplay", *anchor, "--out", str(tmp_path / "r")], words)
    assert not out.exists() and not (tmp_path / "r").exists()
