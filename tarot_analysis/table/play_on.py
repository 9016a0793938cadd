"""A deal played on to its end by bots from wherever it stands: the rest of a deal after an
action replaced, as a review asks "what if"."""

from __future__ import annotations

import numpy as np

from tarot_analysis._jit import chunk_states, normalise_seed
from tarot_analysis.bots import door
from tarot_analysis.engine.game import GameState
from tarot_analysis.errors import TarotInputError
from tarot_analysis.runs.interrupts import held_interrupts
from tarot_analysis.table.compiled import advance
from tarot_analysis.table.play import Bots, seat_bots
from tarot_analysis.table.python_bots import bot_name

__all__ = ["play_on"]


def play_on(
    state: GameState, bots: Bots = "heuristic", *, seed: int | np.random.SeedSequence = 0
) -> GameState:
    """A copy of ``state`` played to the end of the deal by ``bots`` (one for every seat, or
    one a seat; names or Python bots), their randomness drawn from ``seed``.

    >>> from tarot_analysis.game.rules import load_rules
    >>> state = GameState.deal(load_rules("fft-4"), seed=3, forced=[0, 1, -1, -1])
    >>> play_on(state, "heuristic", seed=1).is_over, state.is_over
    (True, False)
    """
    rules, engine = state.rules, state.engine
    seating = seat_bots(bots, rules)
    p, half = engine.params, engine.half_points
    with held_interrupts():  # the workspace's arrays come back as a structure
        ws = door.workspace(p, engine.scoring, seating.rows, seating.nets)
    rng = chunk_states(normalise_seed(seed), 0, 1)[0]
    is_python = np.array([seat in seating.python for seat in range(rules.players)], dtype=np.bool_)
    out = state.copy()
    while not out.is_over:
        seat = out.actor
        bot = seating.python.get(seat)
        if bot is None:
            advance(out.m, out.s, seating.rows, is_python, -1, p, half, rng, ws)
            continue
        observation = out.observation(seat)
        action = bot.act(observation)
        if int(action) not in observation.legal_actions:
            raise TarotInputError(
                f"{bot_name(bot)} at seat {seat}, {observation.decision}: answered {action!r}, "
                "not a legal action"
            )
        out.apply(int(action))
    return out
