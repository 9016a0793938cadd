"""Training streamed from compact lessons: every decision once an epoch through the shuffle
buffer, deals held out whole, an action-in network saved and read back."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tarot_analysis.errors import TarotInputError
from tarot_analysis.game.rules import load_rules
from tarot_analysis.learning.compact import Batch
from tarot_analysis.learning.streaming import (
    ShuffleBuffer,
    StreamingOptions,
    inputs_of,
    is_held_out,
    load_action_in,
    scores,
    stream_decisions,
    train_streaming,
)
from tarot_analysis.learning.teacher import teach


@pytest.fixture(scope="module")
def lessons(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("compact")
    teach(
        load_rules("fft-4"), 6, folder, worlds=2, seed=8, chunk_size=2, threads=1, lesson_format=2
    )
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


def test_lessons_of_the_full_format_are_refused_in_one_line(tmp_path: Path) -> None:
    teach(load_rules("fft-4"), 1, tmp_path, worlds=2, seed=1, chunk_size=1, threads=1)
    with pytest.raises(TarotInputError, match="lessons of format 1; streaming reads format 2"):
        next(stream_decisions(tmp_path, 4))


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
    with pytest.raises(TarotInputError, match="its rules is 'fft-4', not 'fft-5'"):
        load_action_in(out, "fft-5")
