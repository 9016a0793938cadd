"""What each action of one decision was worth: by the search over the worlds the seat cannot
tell from the true deal, and with every card seen (double dummy).

**The search.** The pimc bot's own measurement (:func:`tarot_analysis.bots.pimc.values_at`):
the hidden cards dealt again ``worlds`` times as the seat may know them, each legal action
taken on every world and the deal played out by the heuristic (its last tricks double dummy),
the seat's own score in the preset's scoring. The écart is valued one card at a time, the
rest of it the heuristic's. An action's interval is the normal 95% interval of its mean over
the worlds; the loss is ``max(0, best mean − taken mean)``, and its interval the normal 95%
interval of the paired difference, world by world, best minus taken, cut at 0. The best is
the action of the highest mean on these same worlds, so a loss measured on few worlds leans
high (the best of several noisy means): more worlds, less of it.

**Double dummy.** At a card from the second trick on (with trumps free to lead), the solver
(:func:`tarot_analysis.solver.solve`) values the position before the card and the one after
it: the card points the attack takes in the whole deal when both sides play best with every
card seen. The loss is the card points the seat's side gave up by the card, never negative.
A solve stopped at ``time_limit`` gives the interval it proved, and the loss stays ``None``
unless both ends are exact. It counts card points only: no Petit au bout, no chelem.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from tarot_analysis.analyses.double_dummy import requirement, verdict
from tarot_analysis.bots import PLAY_OUTS, pimc, play_outs_learned
from tarot_analysis.engine import state as S
from tarot_analysis.engine.game import GameState, action_name
from tarot_analysis.game import cards
from tarot_analysis.game.rules import Rules
from tarot_analysis.solver import SearchStopped, solve
from tarot_analysis.stats import Z_95

__all__ = [
    "PLAY_OUTS",
    "ActionValue",
    "DoubleDummyValue",
    "SearchValue",
    "double_dummy_value",
    "play_outs_learned",
    "search_value",
]


@dataclass(frozen=True)
class ActionValue:
    """One legal action: its name, the seat's mean score over the worlds and its 95%
    interval (``None`` when no world was drawn: every legal action alike)."""

    action: int
    name: str
    mean: float | None
    low: float | None
    high: float | None

    def to_json(self) -> dict[str, Any]:
        return {"action": self.name, "mean": _round(self.mean), "low": _round(self.low),
                "high": _round(self.high)}  # fmt: skip


@dataclass(frozen=True)
class SearchValue:
    """The search's measure of one decision: each legal action's value, the best, the loss
    of the taken action and its interval, the worlds, and the share of worlds in which the
    contract is made after the best action (``None`` before the seat knows its side)."""

    values: tuple[ActionValue, ...]
    best: int
    loss: float
    loss_low: float
    loss_high: float
    worlds: int
    taken_mean: float | None
    best_mean: float | None
    made_share: float | None


def name_of(action: int, rules: Rules) -> str:
    """An action in words as a record writes it: a card, ``pass``, a contract's name,
    ``poignée simple``, ``no chelem``."""
    return action_name(action, rules).removeprefix("bid ")


def _round(value: float | None, digits: int = 2) -> float | None:
    return None if value is None or math.isnan(value) else round(float(value), digits)


def search_value(
    state: GameState, taken: int, *, worlds: int, seed: np.random.SeedSequence,
    learned: bool = False,
) -> SearchValue:  # fmt: skip
    """The search's measure of the decision at ``state`` where ``taken`` was played, its worlds
    played out by the learned bot with ``learned`` (else the heuristic)."""
    measured = pimc.values_at(state, worlds=worlds, seed=seed, learned=learned)
    legal = measured.legal
    done = measured.worlds
    if done == 0:  # one action to try: every legal action is worth the same
        values = tuple(ActionValue(a, name_of(a, state.rules), None, None, None) for a in legal)
        return SearchValue(values, taken, 0.0, 0.0, 0.0, 0, None, None, None)
    columns = {a: measured.actions.index(max(t for t in measured.actions if t <= a)) for a in legal}
    rows = []
    for action in legal:
        column = measured.values[:, columns[action]]
        mean = float(column.mean())
        half = Z_95 * float(column.std(ddof=1)) / math.sqrt(done) if done > 1 else math.nan
        rows.append(ActionValue(action, name_of(action, state.rules), mean, mean - half,
                                mean + half))  # fmt: skip
    taken_mean = measured.mean(taken)
    best_mean = max(row.mean for row in rows if row.mean is not None)
    best = taken if taken_mean >= best_mean else max(rows, key=lambda r: r.mean or -math.inf).action
    difference = measured.values[:, columns[best]] - measured.values[:, columns[taken]]
    loss = max(0.0, float(difference.mean()))
    half = Z_95 * float(difference.std(ddof=1)) / math.sqrt(done) if done > 1 else 0.0
    low, high = max(0.0, loss - half), max(0.0, float(difference.mean()) + half)
    return SearchValue(
        tuple(rows), best, loss, low, high, done, taken_mean, best_mean,
        _made_share(state, measured.values[:, columns[best]]),
    )  # fmt: skip


def _made_share(state: GameState, scores: np.ndarray) -> float | None:
    """The share of worlds in which the contract is made, read from the seat's score (a
    taker's side scores above 0 when it makes its contract, a defender below)."""
    s = state.s
    seat = state.actor
    if state.decision in ("call", "ecart") or (state.decision == "chelem"):
        attack = True
    elif state.decision in ("poignee", "card"):
        attack = int(s[S.S_SIDE + seat]) == S.ATTACK
    else:
        return None
    made = scores > 0 if attack else scores < 0
    return float(made.mean())


@dataclass(frozen=True)
class DoubleDummyValue:
    """The double-dummy measure of one card: the attack's card points for the whole deal
    with best play from before the card (``[low, high]``) and from after it, the best cards,
    the seat's side's loss (``None`` unless both solves finished), and the contract's fate
    under best play from before the card (``made``, ``lost`` or ``undecided``)."""

    before_low: float
    before_high: float
    after_low: float
    after_high: float
    best_cards: tuple[str, ...]
    loss: float | None
    loss_low: float
    loss_high: float
    fate: str
    required: float
    seconds: float

    @property
    def settled(self) -> bool:
        return self.loss is not None

    def to_json(self) -> dict[str, Any]:
        return {
            "settled": self.settled, "loss": self.loss, "loss_low": self.loss_low,
            "loss_high": self.loss_high, "before": [self.before_low, self.before_high],
            "after": [self.after_low, self.after_high], "best": list(self.best_cards),
            "fate": self.fate, "required": self.required, "seconds": round(self.seconds, 3),
        }  # fmt: skip


def can_solve(state: GameState) -> bool:
    """Whether the solver plays by the rules at this card: past the first trick (whose
    leads a call may restrict), trumps free to lead."""
    s = state.s
    return (
        state.decision == "card" and int(s[S.S_TRICK]) > 0 and int(s[S.S_TRUMPS_BROKEN]) == 1
    )  # fmt: skip


def _attack_half_now(state: GameState) -> tuple[int, list[int]]:
    """The attack's half points in its piles (the Excuse's low card settled now, as the
    solver settles it) and its seats."""
    s = state.s
    players = state.rules.players
    attack = [seat for seat in range(players) if s[S.S_SIDE + seat] == S.ATTACK]
    if state.is_over:
        return int(s[S.S_OUT + S.O_ATTACK_HALF]), attack
    half = int(s[S.S_HALF + S.ATTACK])
    debtor = int(s[S.S_EXCUSE_DEBTOR])
    if debtor >= 0:
        low_card = int(state.engine.half_points[cards.trump(2)])
        half += -low_card if debtor == S.ATTACK else low_card
    return half, attack


def _bouts(state: GameState, attack: list[int]) -> int:
    """The bouts the attack holds: won, in its hands, in the trick from its seats."""
    s = state.s
    players = state.rules.players
    held = sum(int(cards.IS_BOUT[card]) for seat in attack for card in state.hand(seat))
    leader = int(s[S.S_LEADER])
    in_trick = sum(
        int(cards.IS_BOUT[int(s[S.S_TRICK_CARDS + k])])
        for k in range(int(s[S.S_IN_TRICK]))
        if (leader + k) % players in attack
    )
    return int(s[S.S_BOUTS + S.ATTACK]) + held + in_trick


def _solve(
    state: GameState, time_limit: float | None, best_cards: bool
) -> tuple[float, float, tuple[str, ...]]:
    """The attack's card points for the whole deal from ``state`` with best play, proved in
    ``[low, high]``, and the best cards (empty when not searched or unfinished)."""
    half, attack = _attack_half_now(state)
    if state.is_over:
        return half / 2, half / 2, ()
    s = state.s
    hands = [state.hand(seat) for seat in range(state.rules.players)]
    trick = [int(s[S.S_TRICK_CARDS + k]) for k in range(int(s[S.S_IN_TRICK]))]
    try:
        solution = solve(
            state.rules, hands, leader=int(s[S.S_LEADER]), attack=attack, trick=trick,
            time_limit=time_limit, best_cards=best_cards,
        )  # fmt: skip
    except SearchStopped as stop:
        return half / 2 + stop.low, half / 2 + stop.high, ()
    points = half / 2 + solution.attack_points
    return points, points, solution.best_cards


def double_dummy_value(
    state: GameState, taken: int, *, time_limit: float | None
) -> DoubleDummyValue | None:
    """The double-dummy measure of the card ``taken`` at ``state``, each solve stopped at
    ``time_limit`` seconds; ``None`` where the solver does not play by the deal's rules."""
    if not can_solve(state):
        return None
    started = time.perf_counter()
    before_low, before_high, best = _solve(state, time_limit, best_cards=True)
    _, attack = _attack_half_now(state)
    required = requirement(state.rules, min(_bouts(state, attack), 3))
    fate = verdict(before_low, before_high, required)
    after = state.copy()
    after.apply(taken)
    if cards.card_name(taken) in best:
        after_low, after_high = before_low, before_high
    else:
        after_low, after_high, _ = _solve(after, time_limit, best_cards=False)
    on_attack = int(state.s[S.S_SIDE + state.actor]) == S.ATTACK
    if on_attack:
        low, high = before_low - after_high, before_high - after_low
    else:
        low, high = after_low - before_high, after_high - before_low
    exact = before_low == before_high and after_low == after_high
    loss = max(0.0, low) if exact else None
    return DoubleDummyValue(
        before_low, before_high, after_low, after_high, best, loss, max(0.0, low),
        max(0.0, high), fate, required, time.perf_counter() - started,
    )  # fmt: skip
