"""Écart advice: the discards a taker may make with a hand and a dog, ranked by simulation.

The taker knows their hand and the dog (in four players, 24 cards): the other hands are dealt
from the remaining cards, uniformly, and every deal is played once per candidate écart, the same
deals and the same bots' random streams for each, with the taker forced into the contract asked
(a Garde by default). Each candidate's mean score comes with its 95% interval; each other
candidate's difference from the best is taken deal by deal on the same deals, with its 95%
interval, and is a tie when that interval reaches 0.

The candidates are not every set of cards that may be discarded (in four players up to
C(18, 6) = 18,564): they are those of a rule stated here and in docs/odds.md. Among the cards
that may be discarded freely (no king, no trump, no Excuse under the FFT rules):

* **voids**: every suit, and every pair of suits, that can be discarded whole, the rest of the
  écart filled with the lowest-pointed free cards of the other suits (shortest suit first), and
  again filled with the highest-pointed ones (points in the écart are the taker's);
* **low cards**: the lowest-pointed free cards, shortest suit first;
* **points kept**: the highest-pointed free cards (queens, knights, jacks: safe in the écart).

When fewer cards than the écart may be discarded freely, the one écart the rules leave is
formed: every free card, then the lowest trumps allowed (shown to the defence, as the rules
say).

Beside them is ranked the player's own écart when given, else the heuristic bot's (the one
:func:`taker_odds` reads the odds after), its idea said as such. The odds a player reads after
the ranking are those of the hand kept after the best écart, and after their own if it is
another (:func:`odds_after_ecarts`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import numpy as np
import numpy.typing as npt
import pandas as pd

from tarot_analysis.deals.odds import HandOdds, checked_ecart, hand_odds, seen_cards
from tarot_analysis.errors import TarotInputError, seat_number
from tarot_analysis.game import cards
from tarot_analysis.runs.simulate import json_value
from tarot_analysis.stats import Z_95

if TYPE_CHECKING:
    from tarot_analysis.game.rules import Rules

__all__ = [
    "EcartAdvice",
    "candidate_ecarts",
    "ecart_advice",
    "heuristic_ecart",
    "odds_after_ecarts",
    "taker_odds",
]

#: Deals played per candidate by default.
DEFAULT_DEALS: Final = 2_000
#: The bot whose écart is taken when none is given.
ECART_BOT: Final = "heuristic"
#: The écart's origin as the odds tell it, when the bot chose it.
ECART_BY_BOT: Final = f"the {ECART_BOT} bot's écart"
#: The écart's origin as the odds tell it, when the player gave it.
ECART_GIVEN: Final = "the écart given"


@dataclass(frozen=True)
class EcartAdvice:
    """The candidates ranked: one row each, the best first."""

    rules_name: str
    hand: cards.Hand
    dog: cards.Hand
    seat: int
    contract: str
    bots: tuple[str, ...]
    deals: int  # played (deals redealt for a Petit sec left out)
    table: pd.DataFrame  # index: the écart; why, mean_score, half_width, difference, ci, tie
    scores: pd.DataFrame  # the taker's score on each deal played (rows) under each écart
    own: str = ""  # the player's écart (given), else the heuristic bot's: a row of ``table``
    own_by: str = ECART_BY_BOT  # whose it is: ECART_GIVEN or ECART_BY_BOT

    def to_json(self) -> dict[str, Any]:
        return {
            "rules": self.rules_name, "hand": str(self.hand), "dog": str(self.dog),
            "seat": self.seat, "contract": self.contract, "bots": list(self.bots),
            "deals": self.deals, "mode": "counterfactual (the taker forced, each écart played "
            "on the same deals)", "own": self.own, "own_by": self.own_by,
            "ecarts": [
                {"ecart": name, **{k: json_value(v) for k, v in row.items()}}
                for name, row in self.table.iterrows()
            ],
        }  # fmt: skip

    def text(self, top: int = 5) -> str:
        contract = self.contract.replace("_", " ")
        bots = ", ".join(dict.fromkeys(self.bots))
        lines = [
            f"Écart — {self.rules_name}, seat {self.seat} takes a {contract} with {self.hand} "
            f"and the dog {self.dog}; bots: {bots}; {self.deals:,} deals, each played once per "
            "écart (the same deals)",
        ]
        for name, row in self.table.head(top).iterrows():
            lead = (
                "best"
                if row["rank"] == 1
                else f"{row['difference']:+.1f} ({row['ci_low']:+.1f} to {row['ci_high']:+.1f})"
                + (", a tie" if row["tie"] else "")
            )
            lines.append(
                f"  {row['rank']}. {name:<22} {row['mean_score']:+7.1f} ± {row['half_width']:.1f}"
                f"   {lead}   [{row['why']}]"
            )
        more = len(self.table) - top
        if more > 0:
            lines.append(f"  ... and {more} more candidate{'s' if more > 1 else ''} (--json)")
        return "\n".join(lines)


def _free_cards(pool: Sequence[int], rules: Rules) -> tuple[list[int], list[int]]:
    """The pool's cards that may be discarded freely, and those allowed only when short."""
    # imported here: the compiled engine, which reading an EcartAdvice does not need
    from tarot_analysis.engine.core import ecart_sets
    from tarot_analysis.engine.params import engine_rules

    lo, hi = cards.to_mask(pool)
    free_lo, free_hi, forced_lo, forced_hi = ecart_sets(
        np.uint64(lo), np.uint64(hi), engine_rules(rules).params
    )
    free = cards.from_mask(int(free_lo), int(free_hi))
    forced = cards.from_mask(int(forced_lo), int(forced_hi))
    return sorted(free), sorted(forced)


def candidate_ecarts(hand: cards.Hand, dog: cards.Hand, rules: Rules) -> dict[str, list[int]]:
    """The candidate écarts of the rule in the module's docstring, by the name of their idea."""
    count = rules.dog_size
    pool = sorted(set(hand.cards) | set(dog.cards))
    free, forced = _free_cards(pool, rules)
    if len(free) < count:
        extra = sorted(forced, key=lambda c: (cards.IS_BOUT[c], c))[: count - len(free)]
        return {"forced by the rules": sorted(free + extra)}
    by_suit = {s: [c for c in free if cards.SUIT[c] == s] for s in range(cards.N_SUITS)}
    held = {
        s: sum(1 for c in pool if cards.IS_SUIT_CARD[c] and cards.SUIT[c] == s) for s in by_suit
    }

    def low_first(c: int) -> tuple[int, int, int]:
        return (int(cards.HALF_POINTS[c]), held[int(cards.SUIT[c])], int(cards.RANK[c]))

    def high_first(c: int) -> tuple[int, int, int]:
        return (-int(cards.HALF_POINTS[c]), held[int(cards.SUIT[c])], -int(cards.RANK[c]))

    found: dict[str, list[int]] = {}

    def add(name: str, chosen: list[int]) -> None:
        ecart = sorted(chosen)
        if len(ecart) == count and ecart not in found.values():
            found[name] = ecart

    add("low cards", sorted(free, key=low_first)[:count])
    add("points kept", sorted(free, key=high_first)[:count])
    for size in (1, 2):
        for suits in itertools.combinations(range(cards.N_SUITS), size):
            whole = [c for s in suits for c in by_suit[s]]
            # A suit is voided only when every card of it in the pool may go (no king kept).
            if not whole or len(whole) > count or any(held[s] != len(by_suit[s]) for s in suits):
                continue
            rest = [c for c in free if c not in whole]
            letters = "".join(cards.SUIT_LETTERS[s] for s in suits)
            add(
                f"void {letters}, low cards",
                whole + sorted(rest, key=low_first)[: count - len(whole)],
            )
            add(
                f"void {letters}, points",
                whole + sorted(rest, key=high_first)[: count - len(whole)],
            )
    return found


def heuristic_ecart(hand: cards.Hand | str, dog: cards.Hand | str, rules: Rules) -> cards.Hand:
    """The écart the heuristic bot makes with ``hand`` and the ``dog`` it took: the one the
    tables of this toolkit play (:func:`tarot_analysis.bots.door.choose_ecart`).

    >>> from tarot_analysis.game.rules import load_rules
    >>> hand = "21 19 12 6 1 E KH CH 10H 8H 1H JD 8D QC CC 7C 6S 4S"
    >>> str(heuristic_ecart(hand, "2 3 KS 5D 9C 4C", load_rules("fft-4")))
    'CH JD 8D 5D QC CC'
    """
    # imported here: the compiled bots, which reading an EcartAdvice does not need
    from tarot_analysis.bots import Bot
    from tarot_analysis.bots.door import choose_ecart
    from tarot_analysis.engine.params import engine_rules

    held, seen = seen_cards(hand, dog, rules)
    if seen is None:
        raise TarotInputError("an écart is made with the dog: give the dog's cards")
    lo, hi = cards.to_mask(held.cards + seen.cards)
    zero = np.uint64(0)
    no_draw = np.ones(4, dtype=np.uint64)  # the heuristic draws nothing
    chosen_lo, chosen_hi, _ = choose_ecart(
        Bot.parse(ECART_BOT).row(), np.uint64(lo), np.uint64(hi), rules.dog_size, zero, zero,
        engine_rules(rules).params, no_draw,
    )  # fmt: skip
    return cards.Hand.from_mask(int(chosen_lo), int(chosen_hi))


def taker_odds(
    hand: cards.Hand | str,
    rules: Rules,
    *,
    seat: int = 0,
    dog: cards.Hand | str | None = None,
    ecart: cards.Hand | str | None = None,
) -> HandOdds:
    """The exact odds of ``hand`` at ``seat`` (:func:`tarot_analysis.deals.odds.hand_odds`);
    with ``dog`` the seat takes it, and the odds are of the hand it keeps after ``ecart``, or,
    none given, after the heuristic bot's écart (:func:`heuristic_ecart`)."""
    if dog is None or ecart is not None:
        return hand_odds(hand, rules, seat=seat, dog=dog, ecart=ecart)
    held, seen = seen_cards(hand, dog, rules)
    assert seen is not None
    chosen = heuristic_ecart(held, seen, rules)
    return hand_odds(held, rules, seat=seat, dog=seen, ecart=chosen, ecart_by=ECART_BY_BOT)


def _own_ecart(
    hand: cards.Hand, dog: cards.Hand, rules: Rules, ecart: cards.Hand | str | None
) -> tuple[list[int], str]:
    """The player's écart (checked) or, none given, the heuristic bot's, and whose it is."""
    if ecart is None:
        return sorted(heuristic_ecart(hand, dog, rules).cards), ECART_BY_BOT
    return sorted(checked_ecart(hand, dog, ecart, rules).cards), ECART_GIVEN


def _with_own(
    candidates: dict[str, list[int]], chosen: list[int], whose: str
) -> dict[str, list[int]]:
    """The candidates and the player's écart (or the heuristic bot's), named for what it is:
    the candidate of the same cards renamed, else one more candidate."""
    if chosen not in candidates.values():
        return candidates | {whose: chosen}
    return {
        (f"{name}; {whose}" if ecart_cards == chosen else name): ecart_cards
        for name, ecart_cards in candidates.items()
    }


def _deals_around(
    hand: cards.Hand, dog: cards.Hand, rules: Rules, seat: int, deals: int, seed: int
) -> npt.NDArray[np.uint64]:
    """``deals`` deals holding ``hand`` at ``seat`` and ``dog`` in the dog, the other hands a
    uniform draw of the remaining cards."""
    rest = np.array(
        [c for c in range(cards.N_CARDS) if c not in hand and c not in dog], dtype=np.int64
    )
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    order = rng.permuted(np.tile(rest, (deals, 1)), axis=1)
    masks = np.zeros((deals, rules.players + 1, 2), dtype=np.uint64)
    lo_bits = np.where(order < 56, np.uint64(1) << (order % 64).astype(np.uint64), 0)
    hi_bits = np.where(order >= 56, np.uint64(1) << (order - 56).clip(0).astype(np.uint64), 0)
    others = [s for s in range(rules.players) if s != seat]
    for k, other in enumerate(others):
        part = slice(k * rules.hand_size, (k + 1) * rules.hand_size)
        masks[:, other, 0] = np.bitwise_or.reduce(lo_bits[:, part].astype(np.uint64), axis=1)
        masks[:, other, 1] = np.bitwise_or.reduce(hi_bits[:, part].astype(np.uint64), axis=1)
    masks[:, seat] = hand.mask
    masks[:, rules.players] = dog.mask
    return masks


def ecart_advice(
    hand: cards.Hand | str,
    dog: cards.Hand | str,
    rules: Rules,
    *,
    seat: int = 0,
    contract: str = "garde",
    deals: int = DEFAULT_DEALS,
    bots: str | Sequence[str] = "heuristic",
    seed: int = 1,
    ecart: cards.Hand | str | None = None,
) -> EcartAdvice:
    """Rank the candidate écarts of ``hand`` with ``dog`` by the taker's mean score in
    ``contract`` over ``deals`` deals (the same deals for each): those of the rule, and
    ``ecart`` (checked) or, none given, the heuristic bot's."""
    # imported here: the table and its compiled bots, which reading an EcartAdvice does not need
    from tarot_analysis.table.play import _bot_rng, _table

    held, seen = seen_cards(hand, dog, rules)
    if seen is None:
        raise TarotInputError("écart advice needs the dog's cards")
    names = [c.name for c in rules.contracts]
    if contract not in names or not rules.contracts[names.index(contract)].taker_takes_dog:
        taking = [c.name for c in rules.contracts if c.taker_takes_dog]
        raise TarotInputError(f"an écart is made in {', '.join(taking)}, not {contract!r}")
    seat = seat_number(seat, rules.players)
    if deals < 2:
        raise TarotInputError(f"give at least 2 deals, got {deals}")
    own, whose = _own_ecart(held, seen, rules, ecart)
    candidates = _with_own(candidate_ecarts(held, seen, rules), own, whose)
    masks = _deals_around(held, seen, rules, seat, deals, seed)
    forced = np.full((deals, 4), -1, dtype=np.int64)
    forced[:, 0], forced[:, 1] = seat, names.index(contract)
    free_play = np.full((deals, rules.hand_size, rules.players), -1, dtype=np.int64)
    scores = {}
    redeal = np.zeros(deals, dtype=bool)
    table = _table(rules, deals, bots, seed, forced, deals)
    for name, discard in candidates.items():
        result = table.empty(deals, keep_tricks=True)
        result.masks[:] = masks
        script_ecart = np.tile(np.array(cards.to_mask(discard), dtype=np.uint64), (deals, 1))
        forced_rows = table.forced_rows(0, deals)
        table.play_masks(result, forced_rows, _bot_rng(table.root, 0), free_play, script_ecart)
        played = result.scores()
        redeal |= played["redeal"].to_numpy(dtype=bool)
        scores[name] = played["taker_score"].to_numpy(dtype=float)
    keep = ~redeal
    values = {name: score[keep] for name, score in scores.items()}
    n = int(keep.sum())
    ranked = sorted(values, key=lambda name: -values[name].mean())
    best = values[ranked[0]]
    rows = []
    for rank, name in enumerate(ranked, start=1):
        v = values[name]
        half = Z_95 * v.std(ddof=1) / math.sqrt(n)
        d = v - best
        d_half = Z_95 * d.std(ddof=1) / math.sqrt(n) if rank > 1 else math.nan
        rows.append(
            {
                "ecart": cards.format_cards(candidates[name]), "why": name, "rank": rank,
                "mean_score": v.mean(), "half_width": half,
                "difference": d.mean() if rank > 1 else 0.0,
                "ci_low": d.mean() - d_half if rank > 1 else math.nan,
                "ci_high": d.mean() + d_half if rank > 1 else math.nan,
                "tie": bool(rank > 1 and d.mean() + d_half >= 0),
            }
        )  # fmt: skip
    frame = pd.DataFrame(rows).set_index("ecart")
    per_deal = pd.DataFrame(
        {cards.format_cards(candidates[name]): values[name] for name in ranked},
        index=pd.Index(np.flatnonzero(keep), name="deal"),
    )
    return EcartAdvice(
        rules_name=rules.name, hand=held, dog=seen, seat=seat, contract=contract,
        bots=table.seating.names, deals=n, table=frame, scores=per_deal,
        own=cards.format_cards(own), own_by=whose,
    )  # fmt: skip


def odds_after_ecarts(advice: EcartAdvice, rules: Rules) -> tuple[HandOdds, HandOdds | None]:
    """The exact odds of the taker's hand kept after the best écart ``advice`` ranks, and, if it
    is another, after the player's own (the one given, else the heuristic bot's), each telling
    whose écart it is (:attr:`~tarot_analysis.deals.odds.HandOdds.ecart_by`)."""
    best = str(advice.table.index[0])
    why = str(advice.table["why"].iloc[0]).replace("; ", ", ")
    after_best = hand_odds(
        advice.hand, rules, seat=advice.seat, dog=advice.dog, ecart=best,
        ecart_by=f"the best écart ranked: {why}",
    )  # fmt: skip
    if not advice.own or advice.own == best:
        return after_best, None
    after_own = hand_odds(
        advice.hand, rules, seat=advice.seat, dog=advice.dog, ecart=advice.own,
        ecart_by=advice.own_by,
    )  # fmt: skip
    return after_best, after_own
