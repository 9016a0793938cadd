"""The review of one played deal: every decision of the record valued by the search (and the
solver where it settles), the loss of the action taken, and the losses summed.

The decision number ``i`` (its place among the record's actions, from 0) draws its worlds from
``SeedSequence(seed, spawn_key=(i,))``: the same seed reviews the same deal to the same
numbers, whichever seats are reviewed, and a deal played by the search with those seeds
reviews with no loss at all (``tests/test_review.py``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Final

import numpy as np

from tarot_analysis.analyses.review.record import GameRecord, Step
from tarot_analysis.analyses.review.values import (
    DoubleDummyValue,
    SearchValue,
    double_dummy_value,
    name_of,
    play_outs_learned,
    search_value,
)
from tarot_analysis.bots import MAX_PIMC_WORLDS
from tarot_analysis.engine import state as S
from tarot_analysis.engine.game import GameState
from tarot_analysis.errors import TarotInputError, is_whole_number, seat_number
from tarot_analysis.game import cards

__all__ = ["PHASES", "REVIEW_WORLDS", "Decision", "Review", "review"]

#: Worlds a decision when none are named.
REVIEW_WORLDS: Final = 128
#: The phase of each kind of decision, as the summary adds the losses up.
PHASES: Final = {
    "bid": "bidding", "call": "bidding", "ecart": "écart", "poignee": "announcements",
    "chelem": "announcements", "card": "play",
}  # fmt: skip
#: A loss is costly from this many points (or the costliest decisions of the deal).
COSTLY_POINTS: Final = 10.0


@dataclass(frozen=True)
class Decision:
    """One reviewed decision: its number among the record's actions, the seat, its trick
    (from 1; ``None`` before the play), its kind, the action taken and the search's measure
    of it (and the solver's, at a card it settles); what the seat saw: its hand and the cards
    already on the table in the trick (``"2:KH 3:4H"``, seat and card)."""

    index: int
    step: Step
    played: str
    search: SearchValue
    best: str
    dd: DoubleDummyValue | None
    side: str | None
    hand: str = ""
    on_table: str = ""

    @property
    def seat(self) -> int:
        return self.step.seat

    @property
    def kind(self) -> str:
        return self.step.kind

    @property
    def trick(self) -> int | None:
        return self.step.trick

    @property
    def loss(self) -> float:
        """Points the action taken lost against the best, by the search (never negative)."""
        return self.search.loss

    @property
    def runner_up(self) -> tuple[str, float] | None:
        """The action valued highest after the best, and its mean (``None`` with a single
        action valued)."""
        others = [
            value for value in self.search.values
            if value.name != self.best and value.mean is not None
        ]  # fmt: skip
        if not others:
            return None
        top = max(others, key=lambda value: value.mean or 0.0)
        return top.name, float(top.mean or 0.0)

    @property
    def dd_loss(self) -> float | None:
        """Card points the seat's side lost by the card with every card seen (``None``
        where the solver did not settle it)."""
        return None if self.dd is None else self.dd.loss

    def to_json(self) -> dict[str, Any]:
        search = self.search
        return {
            "index": self.index, "seat": self.seat, "trick": self.trick, "kind": self.kind,
            "side": self.side, "played": self.played, "best": self.best,
            "loss": round(self.loss, 2), "loss_low": round(search.loss_low, 2),
            "loss_high": round(search.loss_high, 2), "worlds": search.worlds,
            "taken_mean": _round(search.taken_mean), "best_mean": _round(search.best_mean),
            "made_share": _round(search.made_share, 3),
            "hand": self.hand, "on_table": self.on_table,
            "runner_up": None if self.runner_up is None else self.runner_up[0],
            "runner_up_mean": None if self.runner_up is None else _round(self.runner_up[1]),
            "values": [value.to_json() for value in search.values],
            "dd_loss": self.dd_loss, "dd": None if self.dd is None else self.dd.to_json(),
        }  # fmt: skip


def _round(value: float | None, digits: int = 2) -> float | None:
    return None if value is None or math.isnan(value) else round(float(value), digits)


@dataclass
class Review:
    """A reviewed deal: the record, how it was measured (worlds a decision, seed, the
    solver's time limit, or ``None`` for no double-dummy column), the decisions reviewed in
    order, the seats' scores when the record plays the deal to its end, and the time taken."""

    record: GameRecord
    worlds: int
    seed: int
    time_limit: float | None
    seats: tuple[int, ...]
    decisions: list[Decision] = field(default_factory=list)
    play_outs: str = "heuristic"  # the bot that played the search's worlds out
    scores: tuple[float, ...] | None = None
    seconds: float = 0.0

    @property
    def rules(self) -> Any:
        return self.record.rules

    def loss_by(self, key: Callable[[Decision], Any]) -> dict[Any, float]:
        """The points lost, summed by ``key`` of each decision, in order of first appearance."""
        totals: dict[Any, float] = {}
        for decision in self.decisions:
            totals[key(decision)] = totals.get(key(decision), 0.0) + decision.loss
        return totals

    def by_seat(self) -> dict[int, float]:
        return {seat: self.loss_by(lambda d: d.seat).get(seat, 0.0) for seat in self.seats}

    def by_seat_once(self) -> dict[int, float]:
        """Each seat's points lost with one advice repeated counted once: where a seat's
        decisions one after another all lose points to the same best action (the Excuse kept
        from card to card, say), only the largest of their losses counts; the advice was one
        choice put off, not several mistakes. A decision that loses nothing, or whose best is
        another action, ends the run."""
        totals = dict.fromkeys(self.seats, 0.0)
        for seat in self.seats:
            run_best, run_most = None, 0.0
            for decision in (d for d in self.decisions if d.seat == seat):
                if decision.loss > 0 and decision.best == run_best:
                    run_most = max(run_most, decision.loss)
                    continue
                totals[seat] += run_most
                run_best, run_most = (
                    (decision.best, decision.loss) if decision.loss > 0 else (None, 0.0)
                )
            totals[seat] += run_most
        return totals

    def by_phase(self) -> dict[str, float]:
        found = self.loss_by(lambda d: PHASES[d.kind])
        return {phase: found[phase] for phase in dict.fromkeys(PHASES.values()) if phase in found}

    def by_trick(self) -> dict[int, float]:
        return {
            trick: loss for trick, loss in self.loss_by(lambda d: d.trick).items()
            if trick is not None
        }  # fmt: skip

    def costliest(self, count: int = 5) -> list[Decision]:
        """The decisions that lost most, costliest first (ties in the deal's order)."""
        ranked = sorted((d for d in self.decisions if d.loss > 0), key=lambda d: (-d.loss, d.index))
        return ranked[:count]

    def is_costly(self, decision: Decision) -> bool:
        """Whether ``decision`` is marked: a loss of :data:`COSTLY_POINTS` or more, or one of
        the three costliest of the deal."""
        return decision.loss >= COSTLY_POINTS or decision in self.costliest(3)

    def dd_settled(self) -> tuple[int, int]:
        """The card decisions the solver settled, and those it was asked."""
        asked = [d for d in self.decisions if d.dd is not None]
        return sum(1 for d in asked if d.dd is not None and d.dd.settled), len(asked)

    def to_json(self) -> dict[str, Any]:
        """Every field as JSON-able data: the decisions as the list ``decisions``."""
        settled, asked = self.dd_settled()
        return {
            "rules": self.rules.name, "source": self.record.source,
            "about": self.record.about, "complete": self.record.complete,
            "stopped": self.record.stopped or None, "worlds": self.worlds, "seed": self.seed,
            "play_outs": self.play_outs,
            "time_limit": self.time_limit, "seats": list(self.seats),
            "scores": None if self.scores is None else list(self.scores),
            "loss_by_seat": _rounded(self.by_seat()),
            "loss_by_seat_once": _rounded(self.by_seat_once()),
            "loss_by_phase": _rounded(self.by_phase()),
            "loss_by_trick": _rounded(self.by_trick()),
            "costliest": [d.index for d in self.costliest()],
            "dd_settled": settled, "dd_asked": asked, "seconds": round(self.seconds, 3),
            "decisions": [decision.to_json() for decision in self.decisions],
        }  # fmt: skip


def _rounded(totals: dict[Any, float]) -> dict[str, float]:
    return {str(key): round(value, 2) for key, value in totals.items()}


def decision_seed(seed: int, index: int) -> np.random.SeedSequence:
    """The seed of the worlds of decision ``index`` of a review of ``seed``."""
    return np.random.SeedSequence(seed, spawn_key=(index,))


def _side(state: GameState) -> str | None:
    """The side of the seat to act once sides are known to it (the taker from the call)."""
    if state.decision == "bid":
        return None
    if state.decision in ("call", "ecart"):
        return "attack"
    return "attack" if int(state.s[S.S_SIDE + state.actor]) == S.ATTACK else "defence"


def _checked(
    rules: Any, worlds: object, seats: Iterable[object] | None, seed: object
) -> tuple[int, tuple[int, ...], int]:
    if not is_whole_number(worlds) or not 1 <= worlds <= MAX_PIMC_WORLDS:
        raise TarotInputError(
            f"worlds must be a whole number from 1 to {MAX_PIMC_WORLDS}, got {worlds!r}"
        )
    if not is_whole_number(seed) or seed < 0:
        raise TarotInputError(f"the seed must be a whole number, 0 or more, got {seed!r}")
    chosen = tuple(range(rules.players)) if seats is None else tuple(
        sorted({seat_number(seat, rules.players) for seat in seats})
    )  # fmt: skip
    return int(worlds), chosen, int(seed)


def review(
    record: GameRecord,
    *,
    worlds: int = REVIEW_WORLDS,
    seed: int = 1,
    seats: Iterable[object] | None = None,
    time_limit: float | None = None,
    progress: Callable[[int, int], None] | None = None,
    play_outs: str = "heuristic",
) -> Review:
    """Review every decision of ``record`` (of ``seats``, default every seat) where the seat
    had more than one legal action: the search's values over ``worlds`` worlds, and with
    ``time_limit`` the solver's at each card it plays by the rules (each solve stopped at
    ``time_limit`` seconds). ``progress(done, total)`` is called after each decision.
    ``play_outs``: the bot that plays the worlds out, ``heuristic`` or ``learned`` (the one
    shipped for the preset, which also reads the worlds' auction as it bids).

    >>> from tarot_analysis.analyses.review.record import parse_record
    >>> record = parse_record({"rules": "fft-4", "hands": [
    ...     "21 11 2 KS CS 3S CH 10H 9H 8H 5H 4H 3H 1H QD 10D 5C 3C",
    ...     "20 12 6 4 E QS 9S 5S 2S QH JH 7H 6H 2H KD 9D 9C 7C",
    ...     "18 16 15 10 3 JS 10S KH 7D 6D 2D 1D QC JC 10C 6C 4C 2C",
    ...     "19 14 13 9 8 7 5 1 8S 6S 4S 1S CD JD 4D KC CC 1C"],
    ...     "dog": "17 7S 8D 5D 3D 8C", "bids": ["pass", "pass", "pass", "garde"]})
    >>> done = review(record, worlds=4)
    >>> [(d.seat, d.kind, d.played) for d in done.decisions]
    [(0, 'bid', 'pass'), (1, 'bid', 'pass'), (2, 'bid', 'pass'), (3, 'bid', 'garde')]
    >>> all(d.loss >= 0 for d in done.decisions)
    True
    """
    count, chosen, base = _checked(record.rules, worlds, seats, seed)
    started = time.perf_counter()
    result = Review(record, count, base, time_limit, chosen, play_outs=play_outs)
    learned = play_outs_learned(play_outs)
    todo = [
        (index, state, step)
        for index, (state, step) in enumerate(record.states())
        if step.seat in chosen and len(state.legal_actions()) > 1
    ]
    for done, (index, state, step) in enumerate(todo, start=1):
        result.decisions.append(_decision(index, state, step, result, learned))
        if progress is not None:
            progress(done, len(todo))
    end = record.end()
    if end.is_over:
        result.scores = tuple(float(score) for score in end.scores())
    result.seconds = time.perf_counter() - started
    return result


def _decision(index: int, state: GameState, step: Step, into: Review, learned: bool) -> Decision:
    search = search_value(
        state, step.action, worlds=into.worlds, seed=decision_seed(into.seed, index),
        learned=learned,
    )  # fmt: skip
    dd = (
        double_dummy_value(state, step.action, time_limit=into.time_limit)
        if into.time_limit is not None and step.kind == "card"
        else None
    )
    rules = into.rules
    return Decision(
        index, step, name_of(step.action, rules), search, name_of(search.best, rules),
        dd, _side(state), cards.format_cards(state.hand(step.seat)), _on_table(state),
    )  # fmt: skip


def _on_table(state: GameState) -> str:
    """The cards already played to the trick in progress, each with its seat: ``"2:KH 3:4H"``
    (empty before the play and at a lead)."""
    if state.decision != "card":
        return ""
    s = state.s
    leader, players = int(s[S.S_LEADER]), state.rules.players
    return " ".join(
        f"{(leader + k) % players}:{cards.card_name(int(s[S.S_TRICK_CARDS + k]))}"
        for k in range(int(s[S.S_IN_TRICK]))
    )
