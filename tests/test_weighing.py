"""Worlds weighed by what the play revealed: each world's log-likelihood is the sum, over the
cards the other seats played, of the softmax of the network's scores where they played them;
the temperature fitted is the one that made the choices."""

from __future__ import annotations

import numpy as np
import pytest

from tarot_analysis.bots import B_WEIGHED, Bot
from tarot_analysis.bots.weighing import Scorer, fit_temperature, weighed_worlds
from tarot_analysis.engine import state as S
from tarot_analysis.engine.cardsets import N_SUIT_CARDS
from tarot_analysis.engine.game import GameState
from tarot_analysis.errors import TarotInputError
from tarot_analysis.game.rules import load_rules
from tarot_analysis.table.play import play

FFT4 = load_rules("fft-4")
#: A set of cards as one number: card ``c``'s bit ``c`` (the engine's masks split it in two).
LOW = (1 << N_SUIT_CARDS) - 1
GARDE_SANS = 2  # the dog stays aside: each hand as dealt is its cards now and those it played


def _mid_deal(trick: int) -> tuple[GameState, list[int]]:
    """A Garde sans of seat 0 played by the first legal action to the second card of
    ``trick``, and the actions taken."""
    state = GameState.deal(FFT4, seed=3, forced=[0, GARDE_SANS, -1, -1])
    actions = []
    while state.decision != "card" or int(state.s[S.S_TRICK]) < trick or (
        int(state.s[S.S_IN_TRICK]) < 1
    ):  # fmt: skip
        action = int(state.legal_actions()[-1])
        actions.append(action)
        state.apply(action)
    return state, actions


def _log_softmax(values: np.ndarray, k: int, temperature: float) -> float:
    z = values / temperature
    return float(z[k] - z.max() - np.log(np.exp(z - z.max()).sum()))


def test_a_worlds_weight_is_the_play_of_the_other_seats_under_the_softmax() -> None:
    state, actions = _mid_deal(5)
    me, temperature = state.actor, 0.1
    worlds, log_likelihoods = weighed_worlds(state, me, 6, temperature=temperature, seed=4)
    assert len(worlds) == 6 and len(set(log_likelihoods.round(9))) > 1
    played_by = dict.fromkeys(range(4), 0)
    replay = GameState.deal(FFT4, seed=3, forced=[0, GARDE_SANS, -1, -1])
    for action in actions:
        if replay.decision == "card":
            played_by[replay.actor] |= 1 << action
        replay.apply(action)
    scorer = Scorer(state)
    for world, expected in zip(worlds, log_likelihoods, strict=True):
        masks = np.zeros((5, 2), dtype=np.uint64)
        for seat in range(4):
            dealt = int(world[seat, 0]) | int(world[seat, 1]) << N_SUIT_CARDS | played_by[seat]
            masks[seat] = [dealt & LOW, dealt >> N_SUIT_CARDS]
        masks[4] = world[S.MAX_SEATS]
        assert (masks[me] == _dealt_hand(state, me, played_by)).all()  # its own hand is true
        other = GameState(FFT4, masks, forced=[0, GARDE_SANS, -1, -1])
        total = 0.0
        for action in actions:
            if other.decision == "card" and other.actor != me:
                legal, values = scorer.scores(other)
                if len(values) > 1:
                    taken = int(np.flatnonzero(legal == action)[0])
                    total += _log_softmax(values, taken, temperature)
            other.apply(action)
        assert total == pytest.approx(expected, abs=1e-4)


def _dealt_hand(state: GameState, seat: int, played_by: dict[int, int]) -> np.ndarray:
    lo, hi = (int(x) for x in state.m[S.M_HANDS + 2 * seat : S.M_HANDS + 2 * seat + 2])
    dealt = lo | hi << N_SUIT_CARDS | played_by[seat]
    return np.array([dealt & LOW, dealt >> N_SUIT_CARDS], dtype=np.uint64)


def test_the_temperature_fitted_is_the_one_that_chose() -> None:
    rng = np.random.default_rng(5)
    scores, taken = [], []
    for _ in range(4000):
        values = rng.normal(0, 0.3, size=rng.integers(2, 9))
        z = values / 0.2
        chances = np.exp(z - z.max())
        taken.append(int(rng.choice(len(values), p=chances / chances.sum())))
        scores.append(values)
    assert fit_temperature(scores, taken) == pytest.approx(0.2, rel=0.1)
    # Choices at random, whatever the scores: the flattest softmax the fit may give.
    uniform = [int(rng.integers(len(values))) for values in scores]
    assert fit_temperature(scores, uniform) > 2  # ten times flatter than the choices above


def test_worlds_are_weighed_only_at_a_card_and_above_zero_degrees() -> None:
    state = GameState.deal(FFT4, seed=3)
    with pytest.raises(TarotInputError, match="weighed at a card"):
        weighed_worlds(state, 0, 4, temperature=0.1)
    state, _ = _mid_deal(2)
    with pytest.raises(TarotInputError, match="above 0"):
        weighed_worlds(state, state.actor, 4, temperature=0.0)
    for worlds in (0, 2.5, 10**6):
        with pytest.raises(TarotInputError, match="the worlds"):
            weighed_worlds(state, state.actor, worlds, temperature=0.1)  # type: ignore[arg-type]


def test_a_weighed_search_is_named_read_back_and_plays_its_own_cards() -> None:
    for name in ("pimc:weighed", "pimc:8:weighed", "pimc:8:2:weighed"):
        bot = Bot.parse(name)
        assert bot.weighed and bot.learned and bot.name == name
        assert bot.row()[B_WEIGHED] == 1 and Bot.parse("pimc:8:learned").row()[B_WEIGHED] == 0
    seats = ["heuristic"] * 3
    weighed = play(FFT4, 4, bots=["pimc:4:weighed", *seats], seed=2, keep_tricks=True, threads=1)
    again = play(FFT4, 4, bots=["pimc:4:weighed", *seats], seed=2, keep_tricks=True, threads=1)
    plain = play(FFT4, 4, bots=["pimc:4:learned", *seats], seed=2, keep_tricks=True, threads=1)
    assert (weighed.tricks == again.tricks).all()  # the same seed, the same cards
    assert (weighed.tricks != plain.tricks).any()  # weighed worlds choose other cards
