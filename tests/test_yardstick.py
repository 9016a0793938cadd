"""The yardstick: states of the table's own play, valued by the search, and any bot measured
on them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tarot_analysis.engine import state as S
from tarot_analysis.engine.action_features import action_features
from tarot_analysis.engine.encoding import encode
from tarot_analysis.errors import TarotInputError
from tarot_analysis.game.rules import load_rules
from tarot_analysis.learning.teacher import teach
from tarot_analysis.learning.yardstick import (
    Yardstick,
    build_yardstick,
    points_lost,
    read_yardstick,
    replay_state,
    yardstick_choices,
    yardstick_inputs,
)


@pytest.fixture(scope="module")
def stick(tmp_path_factory: pytest.TempPathFactory) -> Yardstick:
    """Three deals of fft-4 played by the heuristic, valued by a search of 4 worlds."""
    folder = tmp_path_factory.mktemp("yardstick")
    build_yardstick(load_rules("fft-4"), 3, folder, worlds=4, seed=11, chunk_size=2, threads=1)
    return read_yardstick(folder)


def test_every_row_replays_to_its_decision_with_its_legal_actions(stick: Yardstick) -> None:
    assert stick.rows > 20 and stick.bots == ("heuristic",) * 4 and stick.searcher == "pimc:4"
    kinds = set()
    for row in range(stick.rows):
        state = replay_state(stick, row)
        assert state.actor == stick.seats[row]
        assert S.DECISIONS.index(state.decision) == stick.kinds[row]
        assert np.array_equal(state.action_mask(), stick.legal[row])
        kinds.add(state.decision)
    assert {"bid", "card"} <= kinds
    assert np.isfinite(stick.values[stick.legal]).all()


def test_the_tables_own_bot_chooses_again_what_it_played(stick: Yardstick) -> None:
    assert np.array_equal(yardstick_choices(stick, "heuristic"), stick.played)


def test_points_lost_are_the_best_value_less_the_chosen_ones(stick: Yardstick) -> None:
    best_actions = np.where(stick.legal, stick.values, -np.inf).argmax(axis=1)
    perfect = points_lost(stick, best_actions)
    assert perfect["all"]["mean"] == 0 and perfect["card"]["best_rate"] == 1
    lowest = stick.legal.argmax(axis=1)
    lost = points_lost(stick, lowest)
    best = np.where(stick.legal, stick.values, -np.inf).max(axis=1)
    cards = stick.kinds == S.DECISIONS.index("card")
    expected = (best - stick.values[np.arange(stick.rows), lowest])[cards].mean()
    assert lost["card"]["mean"] == pytest.approx(expected)
    assert lost["card"]["ci_low"] <= lost["card"]["mean"] <= lost["card"]["ci_high"]
    assert lost["card"]["deals"] == len(np.unique(stick.deals[cards]))
    assert lost["all"]["rows"] == stick.rows
    with pytest.raises(TarotInputError, match="not a legal action"):
        points_lost(stick, np.full(stick.rows, S.N_ACTIONS - 1))


def test_a_network_reads_each_rows_encoding_and_features(stick: Yardstick) -> None:
    encodings, features, actions = yardstick_inputs(stick)
    heuristic = yardstick_choices(stick, "heuristic")
    for row in (0, stick.rows // 2, stick.rows - 1):
        state = replay_state(stick, row)
        assert np.array_equal(encodings[row], encode(state, state.actor))
        rows, legal = action_features(state, state.actor, int(heuristic[row]))
        assert np.array_equal(actions[row, : len(legal)], legal)
        assert (actions[row, len(legal) :] == -1).all()
        assert np.array_equal(features[row, : len(legal)], rows)


def test_a_folder_of_lessons_is_no_yardstick(tmp_path: Path) -> None:
    teach(load_rules("fft-4"), 1, tmp_path, worlds=2, seed=1, chunk_size=1, threads=1)
    with pytest.raises(TarotInputError, match="not a yardstick"):
        read_yardstick(tmp_path)
    with pytest.raises(TarotInputError, match="seats 4 bots"):
        build_yardstick(load_rules("fft-4"), 1, tmp_path / "b", bots=("heuristic",))
