"""What if: one action of a played deal replaced, and the rest of the deal played by bots.

The decision is named as the command line names it: ``T.S`` (trick ``T`` from 1, seat ``S``),
``bid.S``, ``call`` (``call.2`` for the second called card), ``ecart``, ``poignee.S`` or
``chelem``; the action taken instead in the notation (a card), as a contract's name or
``pass`` (a bid), the whole écart (its cards), a poignée's level (``none``, ``simple``, ...),
or ``yes`` / ``no`` (the chelem). Everything before it is the record's; everything after, the
bots'.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tarot_analysis.analyses.review.record import LEVELS, GameRecord, Step
from tarot_analysis.engine import state as S
from tarot_analysis.engine.game import GameState, action_name
from tarot_analysis.errors import TarotInputError, is_digits
from tarot_analysis.game import cards
from tarot_analysis.table.play import Bots, seat_bots
from tarot_analysis.table.play_on import play_on

__all__ = ["WhatIf", "describe_what_if", "what_if"]


@dataclass(frozen=True)
class WhatIf:
    """A deal with one decision replaced: the record, the step replaced, the action(s) taken
    instead, the bots that played on, the deal as played (``None`` where the record stops
    before its end) and the deal played on from the new action (over)."""

    record: GameRecord
    replaced: Step
    instead: tuple[int, ...]
    bots: tuple[str, ...]
    played: GameState | None
    other: GameState

    def to_json(self) -> dict[str, Any]:
        rules = self.record.rules
        return {
            "rules": rules.name, "source": self.record.source,
            "replaced": {"seat": self.replaced.seat, "kind": self.replaced.kind,
                         "trick": self.replaced.trick,
                         "played": action_name(self.replaced.action, rules)},
            "instead": [action_name(a, rules) for a in self.instead], "bots": list(self.bots),
            "played": None if self.played is None else deal_data(self.played),
            "what_if": deal_data(self.other),
        }  # fmt: skip


def _find(record: GameRecord, where: str) -> int:
    """The index among the record's steps of the decision ``where`` names."""
    text = where.strip().lower()
    head, _, tail = text.partition(".")
    steps = record.steps
    if is_digits(head) and is_digits(tail):
        trick, seat = int(head), int(tail)
        found = [i for i, s in enumerate(steps) if s.trick == trick and s.seat == seat]
        what = f"no card of seat {seat} at trick {trick} in the record"
    elif head in ("bid", "poignee") and is_digits(tail):
        found = [i for i, s in enumerate(steps) if s.kind == head and s.seat == int(tail)]
        what = f"no {head} of seat {tail} in the record"
    elif head in ("call", "ecart", "chelem"):
        found = [i for i, s in enumerate(steps) if s.kind == head]
        if head == "call" and tail:
            found = found[int(tail) - 1 : int(tail)] if is_digits(tail) and int(tail) >= 1 else []
        what = f"no {head} in the record"
    else:
        raise TarotInputError(
            f"--from {where!r}: name a decision as T.S (trick, seat), bid.S, call, ecart, "
            "poignee.S or chelem"
        )
    if not found:
        raise TarotInputError(f"--from {where!r}: {what}")
    return found[0]


def _actions(state: GameState, step: Step, play: str) -> list[int]:
    """The action(s) ``play`` names at the decision of ``step``."""
    rules = state.rules
    text = play.strip().lower()
    kind = step.kind
    if kind in ("card", "call"):
        return [cards.parse_card(text)]
    if kind == "ecart":
        return list(cards.parse_cards(text, size=rules.dog_size))
    if kind == "bid":
        if text == "pass":
            return [S.PASS]
        names = [contract.name for contract in rules.contracts]
        if text not in names:
            raise TarotInputError(f"--play {play!r}: a bid is pass or one of {', '.join(names)}")
        return [S.BID_0 + names.index(text)]
    if kind == "poignee":
        if text not in LEVELS:
            raise TarotInputError(f"--play {play!r}: a poignée is one of {', '.join(LEVELS)}")
        return [S.SHOW_0 + LEVELS.index(text)]
    if text not in ("yes", "no", "true", "false"):
        raise TarotInputError(f"--play {play!r}: the chelem is yes or no")
    return [S.ANNOUNCE_CHELEM if text in ("yes", "true") else S.NO_CHELEM]


def what_if(
    record: GameRecord,
    where: str,
    play: str,
    *,
    bots: Bots = "heuristic",
    seed: int = 1,
) -> WhatIf:
    """The deal of ``record`` with the decision ``where`` taken as ``play`` (see the module's
    docstring) and the rest played by ``bots`` from ``seed``; an action that is not legal
    there raises :class:`TarotInputError` naming what could have been taken."""
    index = _find(record, where)
    step = record.steps[index]
    state = record.start()
    for earlier in record.steps[:index]:
        state.apply(earlier.action)
    instead = _actions(state, step, play)
    for action in instead:
        if not state.action_mask()[action]:
            legal = " ".join(action_name(int(a), record.rules) for a in state.legal_actions())
            raise TarotInputError(
                f"--play {play!r}: {action_name(action, record.rules)} is not legal for seat "
                f"{state.actor} at {step.where()}; it could have: {legal}"
            )
        state.apply(action)
    names = seat_bots(bots, record.rules).names
    other = play_on(state, bots, seed=seed)
    end = record.end()
    return WhatIf(record, step, tuple(instead), names, end if end.is_over else None, other)


def deal_data(state: GameState) -> dict[str, Any]:
    """A finished deal as data: the contract, the tricks and the scores."""
    s = state.s
    rules = state.rules
    players = rules.players
    data: dict[str, Any] = {"scores": [float(x) for x in state.scores()]}
    if not state.is_played:
        return data | {"redeal": True}
    taker, contract = int(s[S.S_TAKER]), int(s[S.S_CONTRACT])
    tricks = [
        {
            "leader": int(s[S.S_LEADERS + t]),
            "cards": [
                cards.card_name(int(s[S.S_LOG + t * S.MAX_SEATS + k])) for k in range(players)
            ],
            "winner": int(s[S.S_LEADERS + t + 1]),
        }
        for t in range(rules.hand_size)
    ]
    out = state.raw_outcome()
    ecart = cards.from_mask(int(state.m[S.M_ECART]), int(state.m[S.M_ECART + 1]))
    return data | {
        "taker": taker, "contract": rules.contracts[contract].name,
        "ecart": cards.format_cards(ecart),
        "attack_points": float(out[S.O_ATTACK_HALF]) / 2, "tricks": tricks,
    }  # fmt: skip


def _deal_lines(data: dict[str, Any], first: int) -> list[str]:
    if data.get("redeal"):
        return ["  the deal is void (redealt)"]
    lines = [f"  seat {data['taker']} takes: {data['contract']}; écart {data['ecart'] or '—'}"]
    for t, trick in enumerate(data["tricks"], start=1):
        if t >= first:
            played = ", ".join(
                f"{(trick['leader'] + k) % len(data['scores'])}:{card}"
                for k, card in enumerate(trick["cards"])
            )
            lines.append(f"  trick {t:>2}: {played}  → seat {trick['winner']}")
    lines.append(f"  the attack takes {data['attack_points']:g} points")
    return lines


def _bots_text(bots: tuple[str, ...]) -> str:
    return f"{bots[0]} at every seat" if len(set(bots)) == 1 else ", ".join(bots)


def describe_what_if(result: WhatIf) -> str:
    """The deal played on from the new action, beside the deal as played."""
    rules = result.record.rules
    step = result.replaced
    first = step.trick or 1
    instead = " ".join(action_name(a, rules) for a in result.instead)
    lines = [
        f"What if at {step.where()} ({rules.name}): {instead} instead of "
        f"{action_name(step.action, rules)}, the rest played by {_bots_text(result.bots)}.",
        "",
        "The deal played on:",
        *_deal_lines(deal_data(result.other), first),
    ]
    other = deal_data(result.other)["scores"]
    if result.played is None:
        lines += ["", "The record stops before the end of the deal: no score as played."]
        lines.append("Scores: " + ", ".join(f"seat {k} {v:+g}" for k, v in enumerate(other)))
        return "\n".join(lines)
    played = deal_data(result.played)["scores"]
    lines += ["", f"{'':8}{'as played':>11}{'what if':>10}{'change':>9}"]
    for seat, (was, now) in enumerate(zip(played, other, strict=True)):
        lines.append(f"seat {seat}:{was:+11g}{now:+10g}{now - was:+9g}")
    return "\n".join(lines)
