"""Lessons stored compactly: the same decisions as the full format, in a tenth of the bytes, and
read back the same."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tarot_analysis.engine.encoding import encode, encoding_size
from tarot_analysis.engine.game import GameState
from tarot_analysis.errors import TarotInputError
from tarot_analysis.game.rules import load_rules
from tarot_analysis.learning.compact import pack_encodings, unpack_encodings
from tarot_analysis.learning.teacher import COMPACT_COLUMNS, read_lessons, teach
from tarot_analysis.learning.training import read_decisions


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    """The same four deals of fft-4 taught in both formats."""
    folders = {}
    for lesson_format in (1, 2):
        folder = tmp_path_factory.mktemp(f"format-{lesson_format}")
        teach(
            load_rules("fft-4"), 4, folder, worlds=4, seed=3, chunk_size=2, threads=1,
            lesson_format=lesson_format,
        )  # fmt: skip
        folders[lesson_format] = folder
    return folders


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


def test_the_compact_format_holds_the_same_decisions(runs: dict[int, Path]) -> None:
    full, compact = read_decisions(runs[1]), read_decisions(runs[2])
    assert compact.rows == full.rows > 0
    assert np.array_equal(compact.encodings, full.encodings)
    assert np.array_equal(compact.legal, full.legal)
    assert np.array_equal(compact.values, full.values, equal_nan=True)
    assert np.array_equal(compact.chosen, full.chosen)
    assert tuple(read_lessons(runs[2]).column_names) == COMPACT_COLUMNS


def test_the_compact_format_holds_a_tenth_of_the_bytes_in_memory(runs: dict[int, Path]) -> None:
    # On disk Parquet already squeezes the zeros of the full format: the two are alike there.
    sizes = {f: read_lessons(runs[f]).nbytes for f in runs}
    assert sizes[2] * 5 < sizes[1]


def test_an_unknown_format_is_refused(tmp_path: Path) -> None:
    with pytest.raises(TarotInputError, match="lesson format 3"):
        teach(load_rules("fft-4"), 1, tmp_path, worlds=2, lesson_format=3)
