"""Training streamed from compact lessons: every decision once an epoch through the shuffle
buffer, deals held out whole, an action-in network saved and read back."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest

from tarot_analysis.bots.learned import load_model
from tarot_analysis.cli import main
from tarot_analysis.engine.encoding import encoding_size
from tarot_analysis.errors import TarotInputError
from tarot_analysis.game.rules import load_rules
from tarot_analysis.learning.compact import Batch, batch_from_table
from tarot_analysis.learning.streaming import (
    ShuffleBuffer,
    StreamingOptions,
    buffer_bytes,
    check_buffer_memory,
    init_params,
    inputs_of,
    is_held_out,
    load_action_in,
    save_action_in,
    scores,
    stream_decisions,
    train_streaming,
)
from tarot_analysis.learning.teacher import COMPACT_COLUMNS, teach


@pytest.fixture(scope="module")
def lessons(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("compact")
    teach(load_rules("fft-4"), 6, folder, worlds=2, seed=8, chunk_size=2, threads=1)
    return folder


def test_the_buffer_gives_every_decision_once_and_holds_no_more_than_it_may(lessons: Path) -> None:
    blocks = list(stream_decisions(lessons, 4))
    assert len(blocks) == 3 and all(block.rows > 0 for block in blocks)
    keys = sorted(
        (int(d), bytes(b)) for block in blocks for d, b in zip(block.deals, block.bits, strict=True)
    )
    buffer = ShuffleBuffer(17, np.random.default_rng(1))
    drawn = list(buffer.batches(iter(blocks), 8))
    assert buffer.store is not None and len(buffer.store.deals) == 17
    assert all(batch.rows <= 8 for batch in drawn)
    got = sorted(
        (int(d), bytes(b)) for batch in drawn for d, b in zip(batch.deals, batch.bits, strict=True)
    )
    assert got == keys


def test_deals_are_held_out_whole_by_their_number() -> None:
    deals = np.arange(20_000)
    held = is_held_out(deals, 0.1, seed=3)
    assert 0.08 < held.mean() < 0.12
    assert np.array_equal(held, is_held_out(deals, 0.1, seed=3))
    assert not np.array_equal(held, is_held_out(deals, 0.1, seed=4))
    with pytest.raises(TarotInputError, match="held-out fraction"):
        is_held_out(deals, 1.0, seed=3)


def _flat_lessons(lessons: Path, folder: Path) -> Path:
    """A folder as a run of lessons of format 1 left it: its definition names no format and
    the columns of the encoding as numbers (the chunks matter not: the definition is read
    first)."""
    shutil.copytree(lessons, folder)
    definition = json.loads((folder / "_run.json").read_text())
    for key in ("lesson_format", "features_version", "max_legal"):
        definition["extra"].pop(key)
    definition["extra"]["columns"] = [
        "deal", "seat", "step", "decision", "encoding", "legal", "values", "chosen", "worlds",
        "score",
    ]  # fmt: skip
    (folder / "_run.json").write_text(json.dumps(definition))
    return folder


def test_lessons_of_format_1_are_refused_in_one_line_saying_how_to_make_new_ones(
    lessons: Path, tmp_path: Path
) -> None:
    old = _flat_lessons(lessons, tmp_path / "flat")
    said = f"{old}: lessons of format 1, for the flat network, which this version no longer trains"
    with pytest.raises(TarotInputError, match=re.escape(said)) as found:
        next(stream_decisions(old, 4))
    assert "teach them again (tarot-analysis teach writes lessons of format 2)" in str(found.value)
    with pytest.raises(TarotInputError, match=re.escape(said)):
        train_streaming(old, "fft-4", StreamingOptions(trunk=(8,), head=(4,), buffer=64))
    # A chunk of format 1 read as lessons is named so too, and another table is no lessons.
    table = pa.table({"deal": [0], "encoding": [[0.0]], "legal": [[True]], "chosen": [0]})
    with pytest.raises(TarotInputError, match="chunk 0: lessons of format 1, for the flat"):
        batch_from_table(table, 4, "chunk 0")
    with pytest.raises(TarotInputError, match=r"chunk 0: not lessons \(no column state"):
        batch_from_table(table.drop_columns(["encoding"]), 4, "chunk 0")


def test_the_train_command_refuses_lessons_of_format_1_in_one_line(
    lessons: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = _flat_lessons(lessons, tmp_path / "flat")
    out = tmp_path / "net.npz"
    line = _refused(capsys, ["train", str(old), "--out", str(out), "--no-progress"], out)
    assert line == (
        f"tarot-analysis: error: {old}: lessons of format 1, for the flat network, which this "
        "version no longer trains: teach them again (tarot-analysis teach writes lessons of "
        "format 2)"
    )
    # The options of the flat network are gone with it.
    assert main(["train", str(lessons), "--out", str(out), "--hidden", "8"]) == 2
    assert "unrecognized arguments: --hidden 8" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.slow
def test_an_action_in_network_trains_saves_and_reads_back(lessons: Path, tmp_path: Path) -> None:
    options = StreamingOptions(trunk=(32,), head=(16,), epochs=2, holdout=0.3, buffer=64)
    out = tmp_path / "net.npz"
    report = train_streaming(lessons, "fft-4", options, out=out)
    total = sum(block.rows for block in stream_decisions(lessons, 4))
    held = report["held_out"]["rows"]
    assert 0 < held < total and report["decisions_seen"] == 2 * (total - held)
    params, meta = load_action_in(out, "fft-4")
    assert meta["format"] == 2 and meta["features_version"] >= 1
    block: Batch = next(stream_decisions(lessons, 4))
    x, f = inputs_of(block, 4)
    assert scores(np, params, x, f).shape == (block.rows, block.actions.shape[1])
    again = train_streaming(lessons, "fft-4", options)
    assert again["held_out"] == report["held_out"]  # the same seed, the same network
    with pytest.raises(TarotInputError, match="a model of 'fft-4', not of 'fft-5'"):
        load_action_in(out, "fft-5")


def test_the_first_chunks_of_a_run_going_on_are_read_and_no_more(
    lessons: Path, tmp_path: Path
) -> None:
    going_on = tmp_path / "going-on"
    going_on.mkdir()
    for name in ("_run.json", "chunk-000000.parquet", "chunk-000001.parquet"):
        shutil.copy(lessons / name, going_on / name)
    whole = [block.rows for block in stream_decisions(lessons, 4)]
    assert [block.rows for block in stream_decisions(going_on, 4, chunks=2)] == whole[:2]
    with pytest.raises(TarotInputError, match="the run is not finished"):
        next(stream_decisions(going_on, 4))
    with pytest.raises(TarotInputError, match="its first 2 chunks are on disk, not 3"):
        next(stream_decisions(going_on, 4, chunks=3))
    with pytest.raises(TarotInputError, match="the run has 3 chunks, not 4"):
        next(stream_decisions(going_on, 4, chunks=4))


@pytest.mark.slow
def test_the_commands_teach_lessons_and_train_an_action_in_network_by_default(
    lessons: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    taught = tmp_path / "taught"
    argv = ["teach", "--deals", "1", "--worlds", "2", "--threads", "1", "--no-progress"]
    assert main([*argv, "--data", str(taught), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["lesson_format"] == 2
    definition = json.loads((taught / "_run.json").read_text())
    assert definition["extra"]["lesson_format"] == 2
    assert definition["extra"]["columns"] == list(COMPACT_COLUMNS)
    # Scripts that still ask for format 2 get it; format 1 is refused in one line.
    assert main([*argv, "--lesson-format", "2", "--data", str(taught)]) == 0
    assert "0 chunks computed, 1 kept" in capsys.readouterr().out
    assert main([*argv, "--lesson-format", "1", "--data", str(tmp_path / "flat")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "lessons have one format, 2 (format 1" in err[0], err
    assert not (tmp_path / "flat").exists()
    out = tmp_path / "net.npz"
    argv = ["train", str(lessons), "--out", str(out), "--trunk", "16", "--head", "8"]
    argv += ["--epochs", "1", "--buffer", "64", "--steps", "3", "--no-progress", "--json"]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["steps"] == 3 and report["decisions_seen"] <= 3 * 256
    model = load_model(out, "fft-4")
    assert model.trunk == 1 and model.widths == (1378, 16, 8, 1)
    assert model.decides == ("bid", "call", "poignee", "card")


@pytest.mark.slow
def test_the_train_command_reports_in_words(
    lessons: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "net.npz"
    assert main(_train_argv(lessons, out, "--holdout", "0.3", "--seed", "0")) == 0
    text = capsys.readouterr().out
    assert f"model written to {out}" in text
    assert "action-in network: trunk 8, head (state + features) → 4 → 1; 1 epochs" in text
    assert "held out: " in text and "points lost a decision" in text
    assert load_model(out, "fft-4").widths == (1378, 8, 4, 1)


def _refused(capsys: pytest.CaptureFixture[str], argv: list[str], out: Path) -> str:
    """The one line a refused command says: exit status 2, nothing else said, ``out`` not
    written."""
    assert main(argv) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    assert not out.exists()
    return lines[0]


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (["--chunks", "9"], "the run has 3 chunks, not 9"),
        (["--trunk", "8", "8", "8", "--head", "8", "8"], "1 to 4 hidden layers in all"),
        (["--decides", "ecart2"], "the decisions a network takes are among"),
        (["--learning-rate", "1e300"], "the learning rate must be above 0 and at most 3.4e+38"),
    ],
)
def test_the_command_refuses_bad_training_in_one_line(
    lessons: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], said: str
) -> None:
    out = tmp_path / "net.npz"
    argv = ["train", str(lessons), "--out", str(out), "--no-progress", *extra]
    assert said in _refused(capsys, argv, out)


# --- Nothing wrong is kept, and Ctrl-C stops it ---------------------------------------------


def _train_argv(lessons: Path, out: Path, *extra: str) -> list[str]:
    return ["train", str(lessons), "--out", str(out), "--trunk", "8", "--head", "4", "--buffer",
            "64", "--epochs", "1", "--no-progress", *extra]  # fmt: skip


@pytest.mark.slow
def test_a_training_that_diverges_stops_in_one_line_naming_its_step_and_writes_nothing(
    lessons: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "net.npz"
    line = _refused(capsys, _train_argv(lessons, out, "--learning-rate", "1e30"), out)
    assert "the training diverged at step 2 (epoch 1)" in line


def test_a_start_with_a_weight_not_finite_is_refused_in_one_line(
    lessons: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    params = init_params(encoding_size(4), (8,), (4,), 1)
    params["head"][0][0][0, 0] = np.nan
    start = save_action_in(tmp_path / "nan.npz", params, {"rules": "fft-4", "decides": ["card"]})
    out = tmp_path / "net.npz"
    line = _refused(capsys, _train_argv(lessons, out, "--start", str(start)), out)
    assert "finite numbers" in line


def test_a_buffer_larger_than_the_memory_is_refused_in_one_line(
    lessons: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    per_decision = buffer_bytes(4)
    check_buffer_memory(1000, 4, available=1000 * per_decision * 2)
    with pytest.raises(TarotInputError, match=r"a shuffle buffer of 1,000 decisions would need"):
        check_buffer_memory(1000, 4, available=1000 * per_decision)
    out = tmp_path / "net.npz"
    line = _refused(capsys, _train_argv(lessons, out, "--buffer", "1000000000000"), out)
    assert "shuffle buffer of 1,000,000,000,000 decisions" in line
    assert "decisions fit (--buffer)" in line


@pytest.mark.slow
def test_a_ctrl_c_dropped_in_a_finaliser_stops_the_training_and_nothing_is_written(
    lessons: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tarot_analysis.runs.interrupts import noted_interrupts
    from tests.interrupting import drop_a_ctrl_c

    monkeypatch.setattr(sys, "unraisablehook", lambda unraisable: None)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    out = tmp_path / "net.npz"
    try:
        with noted_interrupts():
            drop_a_ctrl_c()
            with pytest.raises(KeyboardInterrupt):
                train_streaming(
                    lessons, "fft-4", StreamingOptions(trunk=(8,), head=(4,), buffer=64), out=out
                )
    finally:
        signal.signal(signal.SIGINT, previous)
    assert not out.exists()


def test_a_folder_of_lessons_given_twice_is_read_once(
    lessons: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two spellings of one folder are one folder: its deals trained once, not refused as two
    folders (it goes on to the check of ``--chunks``)."""
    again = [str(lessons), f"{lessons}/.", os.path.relpath(lessons)]
    out = tmp_path / "net.npz"
    assert main(["train", *again, "--out", str(out), "--chunks", "9", "--no-progress"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "the run has 3 chunks, not 9" in lines[0], lines


@pytest.mark.slow
def test_the_train_command_stopped_by_a_dropped_ctrl_c_says_so_and_writes_nothing(
    lessons: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    from tarot_analysis import EXIT_INTERRUPTED
    from tarot_analysis.learning import streaming
    from tests.interrupting import drop_a_ctrl_c

    made = streaming.init_params

    def made_then_dropped(*arguments: Any) -> Any:
        drop_a_ctrl_c()  # while the network is made, before the first step
        return made(*arguments)

    monkeypatch.setattr(streaming, "init_params", made_then_dropped)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    out = tmp_path / "net.npz"
    try:
        done = main(_train_argv(lessons, out))
    finally:
        signal.signal(signal.SIGINT, previous)
    assert done == EXIT_INTERRUPTED
    said = capsys.readouterr()
    assert said.out == "" and not out.exists()
    assert said.err.startswith("tarot-analysis: interrupted: nothing was written to")
    assert said.err.count("\n") == 1
