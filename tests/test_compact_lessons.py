"""Lessons stored compactly: every encoding given back from its bits and fractions, a decision in
a few hundred bytes."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tarot_analysis.engine.encoding import encode, encoding_size
from tarot_analysis.engine.game import GameState
from tarot_analysis.errors import TarotInputError
from tarot_analysis.game.rules import load_rules
from tarot_analysis.learning.compact import LESSON_FORMAT, pack_encodings, unpack_encodings
from tarot_analysis.learning.teacher import COMPACT_COLUMNS, read_lessons, teach


@pytest.fixture(scope="module")
def taught(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four deals of fft-4 taught as ``teach`` does by default."""
    folder = tmp_path_factory.mktemp("lessons")
    teach(load_rules("fft-4"), 4, folder, worlds=4, seed=3, chunk_size=2, threads=1)
    return folder


def test_bits_and_fractions_give_back_every_encoding() -> None:
    rng = np.random.default_rng(2)
    rules = load_rules("fft-5")
    state = GameState.deal(rules, seed=4)
    encodings = []
    while not state.is_over:
        encodings.append(encode(state, state.actor))
        state.apply(int(rng.choice(state.legal_actions())))
    x = np.stack(encodings)
    assert (x[:, -1] > 0).any()  # fractions of tricks won were seen
    bits, fractions = pack_encodings(x, 5)
    assert bits.shape == (len(x), -(-encoding_size(5) // 8))
    assert np.array_equal(unpack_encodings(bits, fractions, 5), x)
    with pytest.raises(TarotInputError, match="rows of"):
        pack_encodings(x, 4)


def test_teach_stores_a_decision_in_a_few_hundred_bytes(taught: Path) -> None:
    definition = json.loads((taught / "_run.json").read_text())
    assert definition["extra"]["lesson_format"] == LESSON_FORMAT == 2
    assert definition["extra"]["columns"] == list(COMPACT_COLUMNS)
    lessons = read_lessons(taught)
    assert tuple(lessons.column_names) == COMPACT_COLUMNS and lessons.num_rows > 0
    # The encoding alone as float32 numbers took 5,512 bytes a decision in fft-4.
    assert lessons.nbytes / lessons.num_rows < 1_000
    assert lessons.column("state").type.byte_width == -(-encoding_size(4) // 8)
