"""The values the pimc bot measures at a decision: the action it takes, on the score scale."""

from __future__ import annotations

import numpy as np
import pytest

from tarot_analysis.bots.pimc import action_values, choose_action
from tarot_analysis.engine.game import GameState
from tarot_analysis.errors import TarotInputError
from tarot_analysis.game.rules import list_presets, load_rules
from tarot_analysis.table.env import largest_loss
from tests.test_pimc import card_states

WORLDS = 4


def auction_states(name: str, deals: int) -> list[GameState]:
    """Every bid, call and poignée of ``deals`` deals, the first legal action taken at each."""
    rules = load_rules(name)
    found: list[GameState] = []
    for seed in range(deals):
        state = GameState.deal(rules, seed=seed)
        while state.decision in ("bid", "call", "ecart", "poignee", "chelem"):
            if state.decision in ("bid", "call", "poignee"):
                found.append(state.copy())
            legal = state.legal_actions()
            state.apply(int(legal[-1] if state.decision == "bid" else legal[0]))
    return found


@pytest.mark.parametrize("name", ["fft-3", "fft-4", "fft-5"])
def test_the_values_choose_the_action_pimc_takes(name: str) -> None:
    states = card_states(name, 8, seed=5) + auction_states(name, 4)
    kinds = {state.decision for state in states}
    assert {"card", "bid"} <= kinds
    bound = largest_loss(load_rules(name))
    several = 0
    for k, state in enumerate(states):
        values = action_values(state, worlds=WORLDS, seed=k)
        assert values.chosen == choose_action(state, worlds=WORLDS, seed=k)
        legal = tuple(int(a) for a in state.legal_actions())
        assert values.legal == legal
        assert values.actions == tuple(sorted(values.actions))
        assert values.chosen in values.actions
        if state.decision != "card":
            assert values.actions == legal
        else:
            assert set(values.actions) <= set(legal)
            half = state.engine.half_points
            for card in set(legal) - set(values.actions):
                # Merged with the highest action below it: the same suit, the same points.
                tried = max(a for a in values.actions if a < card)
                assert (tried < 56) == (card < 56) and (card >= 56 or tried // 14 == card // 14)
                assert half[tried] == half[card]
                np.testing.assert_equal(values.mean(card), values.mean(tried))
        if len(values.actions) == 1:
            assert values.worlds == 0 and np.isnan(values.means).all()
            continue
        several += 1
        assert WORLDS <= values.worlds <= 3 * WORLDS
        assert values.values.shape == (values.worlds, len(values.actions))
        np.testing.assert_allclose(values.means, values.values.mean(axis=0))
        assert values.means[values.actions.index(values.chosen)] == values.means.max()
        assert np.abs(values.values).max() <= bound
    assert several >= len(states) // 3  # most decisions tried more than one action


def test_the_same_seed_measures_the_same_values() -> None:
    state = card_states("fft-4", 1, seed=9)[0]
    a = action_values(state, worlds=WORLDS, seed=3)
    b = action_values(state, worlds=WORLDS, seed=3)
    assert a.actions == b.actions and a.worlds == b.worlds
    np.testing.assert_array_equal(a.values, b.values)


def test_wrong_inputs_are_refused() -> None:
    state = GameState.deal(load_rules("fft-4"), seed=3, forced=[0, 1, -1, -1])
    while state.decision != "ecart":
        state.apply(int(state.legal_actions()[0]))
    with pytest.raises(TarotInputError):
        action_values(state)
    while state.decision != "card":
        state.apply(int(state.legal_actions()[0]))
    for worlds in (0, True, 2.5, 10**9):
        with pytest.raises(TarotInputError):
            action_values(state, worlds=worlds)  # type: ignore[arg-type]
    with pytest.raises(TarotInputError):
        action_values(state).mean(-1)


@pytest.mark.parametrize("name", list_presets())
def test_every_preset_chooses_the_same_card(name: str) -> None:
    for k, state in enumerate(card_states(name, 3, seed=2)):
        values = action_values(state, worlds=3, seed=k)
        assert values.chosen == choose_action(state, worlds=3, seed=k)
        assert values.chosen in values.legal
