"""Bots written in Python, seated at the table beside the compiled ones.

A Python bot is any object with a method ``act(observation)`` that returns one of
``observation.legal_actions`` (:class:`~tarot_analysis.engine.game.Observation`; actions are
numbered in :mod:`tarot_analysis.engine.state`). Pass it in ``bots=`` wherever a bot's name
goes: ``play(rules, 1000, bots=[MyBot(), "heuristic", "heuristic", "heuristic"])``. Its name
in the outputs is its ``name`` attribute, else its class's name.

The compiled seats decide in compiled code, one decision at a time, from the same generator
as at an all-compiled table; a Python bot decides in Python, so a table with one plays on one
thread of this process (no Dask cluster). An answer that is not a legal action ends the run
with :class:`~tarot_analysis.errors.TarotInputError` naming the seat, the decision and the
action.

>>> from tarot_analysis.table.play import play
>>> from tarot_analysis.game.rules import load_rules
>>> class FirstLegal:
...     def act(self, observation):
...         return observation.legal_actions[0]
>>> result = play(load_rules("fft-4"), 20, bots=[FirstLegal(), "heuristic", "random", "random"])
>>> result.bots
('FirstLegal', 'heuristic', 'random', 'random')
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

import numpy as np

from tarot_analysis.bots.door import choose_ecart, start_deal, workspace
from tarot_analysis.engine import state as S
from tarot_analysis.engine.cardsets import ZERO
from tarot_analysis.engine.game import GameState, Observation, action_name
from tarot_analysis.engine.params import EngineRules
from tarot_analysis.errors import TarotInputError
from tarot_analysis.game.rules import Rules
from tarot_analysis.runs.interrupts import held_interrupts
from tarot_analysis.table.compiled import advance, record_deal

__all__ = ["PythonBot", "bot_name", "is_python_bot", "play_python"]

_NOT_COUNTED = np.empty(0, dtype=np.int64)  # no count of the deals done is kept


@runtime_checkable
class PythonBot(Protocol):
    """What a bot written in Python provides."""

    def act(self, observation: Observation) -> int:
        """One of ``observation.legal_actions``."""
        ...


def is_python_bot(bot: object) -> bool:
    """Whether ``bot`` is a Python bot (it has a method ``act``), not a compiled bot's name."""
    return not isinstance(bot, str) and callable(getattr(bot, "act", None))


def bot_name(bot: object) -> str:
    """A Python bot's name in the outputs: its ``name``, else its class's name."""
    name = getattr(bot, "name", None)
    return name if isinstance(name, str) and name else type(bot).__name__


def play_python(
    rules: Rules,
    engine: EngineRules,
    masks: Any,
    bots: Any,
    nets: Any,
    python: Mapping[int, Any],
    rng: Any,
    *,
    forced: Any,
    dealers: Any,
    out: tuple[Any, ...],
    script: Any = None,
    script_ecart: Any = None,
    done: Any = None,
) -> None:
    """Play every deal of ``masks`` at a table where the seats of ``python`` are Python bots
    and the others compiled bots (``bots``, one row per seat), writing the results as the
    compiled table does.

    ``forced`` rows, ``dealers`` (Tarocco's dealing seats; empty in French presets) and
    ``out`` = (outcomes, poignees, log, leaders, ecarts, bids, parts, tricks_won, events) as in
    :func:`~tarot_analysis.table.compiled.play_deals`. ``script``/``script_ecart``, when given,
    replay known cards and écarts; ``done``, as there, the deals finished so far.
    """
    p, half = engine.params, engine.half_points
    m, s = S.new_arrays()
    state = object.__new__(GameState)
    state.rules, state.engine, state.m, state.s = rules, engine, m, s
    state._mask = np.zeros(S.N_ACTIONS, dtype=np.bool_)
    is_python = np.array([seat in python for seat in range(rules.players)], dtype=np.bool_)
    with held_interrupts():  # the workspace's arrays come back as a structure
        ws = workspace(p, engine.scoring, bots, nets)
    for d in range(len(masks)):
        dealer = int(dealers[d]) if d < len(dealers) else -1
        start_deal(m, s, masks[d], forced[d], dealer, p, half, ws)
        while s[S.S_KIND] != S.OVER:
            if script is not None and _scripted(state, d, script, script_ecart, bots, rng):
                continue
            seat = int(s[S.S_ACTOR])
            bot = python.get(seat)
            if bot is None:
                # One decision at a time where a script may stand in for a compiled bot.
                advance(m, s, bots, is_python, -1 if script is None else 1, p, half, rng, ws)
                continue
            observation = state.observation(seat)
            try:
                action = bot.act(observation)
            except Exception as error:  # the bot's own failure, told with where it stood
                raise TarotInputError(
                    f"{bot_name(bot)} at seat {seat}, {observation.decision}: raised "
                    f"{type(error).__name__}: {error}"
                ) from error
            is_number = isinstance(action, int | np.integer)
            if not is_number or int(action) not in observation.legal_actions:
                answer = f"{action_name(int(action), rules)}" if is_number else repr(action)
                legal = ", ".join(action_name(a, rules) for a in observation.legal_actions)
                raise TarotInputError(
                    f"{bot_name(bot)} at seat {seat}, {observation.decision}: answered {answer}, "
                    f"not a legal action (legal: {legal})"
                )
            S.apply(m, s, int(action), p, half)
        record_deal(m, s, d, p, *out, _NOT_COUNTED if done is None else done)


def _scripted(
    state: GameState, d: int, script: Any, script_ecart: Any, bots: Any, rng: Any
) -> bool:
    """Take the scripted card or écart of deal ``d`` if there is one now; whether it did."""
    m, s = state.m, state.s
    p, half = state.engine.params, state.engine.half_points
    kind = int(s[S.S_KIND])
    seat = int(s[S.S_ACTOR])
    if kind == S.CARD and len(script) > d:
        card = int(script[d, int(s[S.S_TRICK]), seat])
        if card < 0:
            return False
        if not state.action_mask()[card]:
            raise TarotInputError("a scripted card is not legal at that point")
        S.apply(m, s, card, p, half)
        return True
    if kind == S.ECART and len(script_ecart) > d and (script_ecart[d, 0] | script_ecart[d, 1]):
        lo, hi = m[S.M_HANDS + 2 * seat], m[S.M_HANDS + 2 * seat + 1]
        chosen_lo, chosen_hi, legal = choose_ecart(
            bots[seat], lo, hi, int(s[S.S_ECART_LEFT]), script_ecart[d, 0],
            script_ecart[d, 1], p, rng,
        )  # fmt: skip
        if not legal:
            what = "discard" if state.rules.tarocco is not None else "écart"
            raise TarotInputError(f"the scripted {what} is not legal")
        for card in range(78):
            word, bit = (chosen_lo, card) if card < 56 else (chosen_hi, card - 56)
            if word & (np.uint64(1) << np.uint64(bit)) != ZERO:
                S.apply(m, s, card, p, half)
        return True
    return False
