"""The odds of one hand: where the cards it does not see lie, exactly.

A player who sees their hand (and, once it is turned over, the dog) knows that every card they
have not seen is in another player's hand or in the dog, every placement equally likely: the
unseen cards are dealt uniformly among the other hands and the dog, whatever their sizes. Each
question below is then a multivariate hypergeometric count over a few kinds of unseen cards,
computed here with exact integer arithmetic (``math.comb`` and ``fractions.Fraction``):

* per suit: the cards held, how the missing ones split among the other players (and the dog),
  the chance that the king passes the suit's first round (every other player follows) and that
  the queen passes its second (every other player follows twice);
* trumps: how the missing trumps split, the chance that another player holds a poignée of each
  level (trumps with the Excuse, at the preset's thresholds), and the chance that the Petit is
  out, in a short hand (with at least one and at most one, two or three other trumps);
* bouts: where each bout the hand lacks can be (each other seat, the dog);
* the dog (when not seen): what it brings, by law of its bouts, trumps, kings and points.

The model: the deal is uniform and nothing but the hand (and the dog, if given) has been seen;
no bid, call or card played is read. In five and six players the other players include the
taker's partner(s), unknown until the called card shows: their hands are counted as any other.

>>> from tarot_analysis.game.rules import load_rules
>>> odds = hand_odds("21 19 12 6 1 E KH CH 10H 8H 1H JD 8D QC CC 7C 6S 4S", load_rules("fft-4"))
>>> round(odds.suits["H"].king_passes, 4)  # 1 − 3·C(42, 9)/C(60, 9) + 3·C(24, 9)/C(60, 9)
0.9098
>>> [round(p, 4) for p in odds.trumps.poignee.values()]
[0.0052, 0.0, 0.0]
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Final

from tarot_analysis.errors import TarotInputError, seat_number
from tarot_analysis.game import cards

if TYPE_CHECKING:
    from tarot_analysis.game.rules import Rules

__all__ = [
    "HandOdds",
    "Split",
    "SuitOdds",
    "TrumpOdds",
    "dog_laws",
    "hand_odds",
    "odds_text",
    "seen_cards",
    "split_law",
]

#: The "short" holdings of the Petit asked about: with at most this many other trumps.
PETIT_SHORT: Final = (1, 2, 3)
LEVELS: Final = ("simple", "double", "triple")
BOUT_NAMES: Final = {cards.PETIT: "petit", cards.TWENTY_ONE: "twenty_one", cards.EXCUSE: "excuse"}

#: One line per question: what each value assumes.
MODELS: Final = {
    "deal": (
        "The unseen cards are dealt uniformly among the other hands{dog}; nothing else (bids, "
        "calls, cards played) is read."
    ),
    "splits": "How the missing cards of the suit lie: the other hands' counts, longest first{dog}.",
    "king_passes": "The king wins the suit's first round if every other player follows suit "
    "(none is void); trumps held do not matter then.",
    "queen_passes_after_king": "The queen wins the suit's second round if every other player "
    "holds at least two cards of it (the king's round and the queen's).",
    "poignee": "Another player holds at least the level's number of trumps with the Excuse.",
    "petit_short": "The Petit is in another hand holding 1 to n other trumps (the Excuse not "
    "counted): short, so easy to catch; alone (a Petit sec) it would be redealt.",
    "bouts": "Where a bout the hand lacks can be: each other seat, and the dog.",
    "partners": "In {players} players the other hands include the partner(s) of a call, unknown "
    "until the called card shows: counted as any other hand.",
}


@dataclass(frozen=True)
class Split:
    """One way the missing cards of a kind lie: the other hands' counts (longest first) and the
    dog's, with its probability."""

    others: tuple[int, ...]
    dog: int | None
    probability: float

    def text(self) -> str:
        shape = "-".join(map(str, self.others))
        return shape if self.dog is None else f"{shape} (dog {self.dog})"


@dataclass(frozen=True)
class SuitOdds:
    """A suit seen from the hand."""

    held: int
    missing: int
    king_passes: float | None  # None when the hand has no king of the suit
    queen_passes_after_king: float | None  # None when the hand has no queen of the suit
    splits: list[Split]


@dataclass(frozen=True)
class TrumpOdds:
    """The trumps seen from the hand."""

    held: int
    missing: int
    splits: list[Split]
    poignee: dict[str, float]  # level: chance another player holds at least it
    petit_out: bool
    petit_short: dict[int, float]  # at most n other trumps: chance


@dataclass(frozen=True)
class HandOdds:
    """Everything :func:`hand_odds` found, with the model each value assumes."""

    rules_name: str
    hand: cards.Hand
    seat: int
    dog_seen: cards.Hand | None
    others: tuple[int, ...]  # the other seats, in the order they play after ``seat``
    suits: dict[str, SuitOdds]
    trumps: TrumpOdds
    bouts: dict[str, dict[str, float]]  # bout: {"seat N" or "dog": probability}
    dog: dict[str, dict[str, float]]  # feature: {value: probability}; empty when seen
    models: dict[str, str]

    def to_json(self) -> dict[str, Any]:
        def splits(items: Sequence[Split]) -> list[dict[str, Any]]:
            return [
                {"others": list(s.others), "dog": s.dog, "probability": s.probability}
                for s in items
            ]

        return {
            "rules": self.rules_name,
            "hand": str(self.hand),
            "seat": self.seat,
            "dog_seen": None if self.dog_seen is None else str(self.dog_seen),
            "others": [f"seat {s}" for s in self.others],
            "suits": {
                letter: {
                    "held": odds.held,
                    "missing": odds.missing,
                    "king_passes": odds.king_passes,
                    "queen_passes_after_king": odds.queen_passes_after_king,
                    "splits": splits(odds.splits),
                }
                for letter, odds in self.suits.items()
            },
            "trumps": {
                "held": self.trumps.held,
                "missing": self.trumps.missing,
                "splits": splits(self.trumps.splits),
                "poignee": self.trumps.poignee,
                "petit_out": self.trumps.petit_out,
                "petit_short": {str(k): v for k, v in self.trumps.petit_short.items()},
            },
            "bouts": self.bouts,
            "dog": self.dog,
            "models": self.models,
        }


def split_law(missing: int, capacities: Sequence[int]) -> dict[tuple[int, ...], Fraction]:
    """The exact law of how ``missing`` cards of a kind lie among holders of ``capacities``
    cards, the unseen cards dealt uniformly: ``P(x) = Π C(c_j, x_j) / C(Σc, missing)``.

    >>> law = split_law(2, (1, 1))
    >>> law[(1, 1)]
    Fraction(1, 1)
    >>> sum(split_law(5, (18, 18, 18, 6)).values())
    Fraction(1, 1)
    """
    total = sum(capacities)
    if not 0 <= missing <= total:
        raise ValueError(f"{missing} cards cannot lie in {total} places")
    whole = math.comb(total, missing)
    law: dict[tuple[int, ...], Fraction] = {}
    for x in _compositions(missing, tuple(capacities)):
        ways = math.prod(math.comb(c, k) for c, k in zip(capacities, x, strict=True))
        law[x] = Fraction(ways, whole)
    return law


def _compositions(total: int, capacities: tuple[int, ...]) -> Iterable[tuple[int, ...]]:
    """Every way of writing ``total`` as parts at most ``capacities``, in order."""
    if len(capacities) == 1:
        if total <= capacities[0]:
            yield (total,)
        return
    rest = sum(capacities[1:])
    for first in range(max(0, total - rest), min(total, capacities[0]) + 1):
        for tail in _compositions(total - first, capacities[1:]):
            yield (first, *tail)


def _patterns(law: Mapping[tuple[int, ...], Fraction], others: int, dog: bool) -> list[Split]:
    """The law by shape: the other hands' counts sorted, longest first, and the dog's."""
    shapes: dict[tuple[tuple[int, ...], int | None], Fraction] = defaultdict(Fraction)
    for x, p in law.items():
        key = (tuple(sorted(x[:others], reverse=True)), x[others] if dog else None)
        shapes[key] += p
    ordered = sorted(shapes.items(), key=lambda item: (-item[1], item[0][0]))
    return [Split(shape, dog_count, float(p)) for (shape, dog_count), p in ordered]


def _every_other_holds(law: Mapping[tuple[int, ...], Fraction], others: int, least: int) -> float:
    return float(sum(p for x, p in law.items() if min(x[:others]) >= least))


def _poly(capacity: int, below: int | None) -> list[int]:
    """``Σ_x C(capacity, x) z^x`` for ``x < below`` (every ``x`` when ``below`` is None)."""
    top = capacity if below is None else min(capacity, below - 1)
    return [math.comb(capacity, x) for x in range(top + 1)]


def _poly_mul(left: list[int], right: list[int]) -> list[int]:
    out = [0] * (len(left) + len(right) - 1)
    for i, a in enumerate(left):
        for j, b in enumerate(right):
            out[i + j] += a * b
    return out


def _some_other_reaches(
    threshold: int, missing: int, other_sizes: Sequence[int], dog_size: int
) -> float:
    """The chance that some other hand holds at least ``threshold`` of ``missing`` cards."""
    if threshold <= 0:
        return 1.0
    product = _poly(dog_size, None)
    for size in other_sizes:
        product = _poly_mul(product, _poly(size, threshold))
    total = sum(other_sizes) + dog_size
    none = product[missing] if missing < len(product) else 0
    return float(1 - Fraction(none, math.comb(total, missing)))


def _petit_short(missing_trumps: int, other_sizes: Sequence[int], unseen: int) -> dict[int, float]:
    """The Petit unseen: the chance that another hand holds it with 1 to ``n`` other trumps
    (its other cards drawn from the ``unseen − 1`` cards, ``missing_trumps − 1`` of them trumps;
    the hands holding the Petit are exclusive events, so their chances add)."""
    others = missing_trumps - 1
    out = {}
    for most in PETIT_SHORT:
        chance = Fraction(0)
        for size in other_sizes:
            holds = Fraction(size, unseen)
            short = sum(
                Fraction(
                    math.comb(others, k) * math.comb(unseen - 1 - others, size - 1 - k),
                    math.comb(unseen - 1, size - 1),
                )
                for k in range(1, min(most, others, size - 1) + 1)
            )
            chance += holds * short
        out[most] = float(chance)
    return out


def _seen(hand: cards.Hand, dog: cards.Hand | None) -> set[int]:
    return set(hand.cards) | (set(dog.cards) if dog is not None else set())


def _counts(hand: cards.Hand) -> dict[str, int]:
    """How many cards of each kind the hand holds, as :mod:`tarot_analysis.deals.exact` names
    them."""
    ids = list(hand.cards)

    def held(kind: Any) -> int:
        return int(kind[ids].sum())

    counts = {
        "trumps": held(cards.IS_TRUMP),
        "excuse": int(cards.EXCUSE in hand),
        "petit": int(cards.PETIT in hand),
        "twenty_one": int(cards.TWENTY_ONE in hand),
        "bouts": held(cards.IS_BOUT),
        "kings": held(cards.IS_KING),
        "queens": held(cards.IS_QUEEN),
        "knights": held(cards.IS_KNIGHT),
        "jacks": held(cards.IS_JACK),
    }
    for suit, name in enumerate(("spades", "hearts", "diamonds", "clubs")):
        counts[name] = sum(1 for c in ids if cards.IS_SUIT_CARD[c] and cards.SUIT[c] == suit)
    return counts


def dog_laws(hand: cards.Hand, rules: Rules) -> dict[str, Any]:
    """The exact laws of the dog's bouts, trumps, kings and points, seen from ``hand`` (none
    when the preset has no dog)."""
    # imported here: the exact counts bring pandas, which the odds of the hand do not need
    from tarot_analysis.deals.exact import dog_distribution

    if rules.dog_size == 0:
        return {}
    points = rules.card_points
    class_points = {
        "bout": points.bout, "king": points.king, "queen": points.queen,
        "knight": points.knight, "jack": points.jack, "other": points.other,
    }  # fmt: skip
    counts = _counts(hand)
    return {
        feature: dog_distribution(
            feature,
            counts,
            rules.hand_size,
            rules.dog_size,
            thresholds=rules.poignee.thresholds,
            class_points=class_points,
        )
        for feature in ("bouts", "trumps", "kings", "points")
    }


def seen_cards(
    hand: cards.Hand | str, dog: cards.Hand | str | None, rules: Rules
) -> tuple[cards.Hand, cards.Hand | None]:
    """The hand and, if given, the dog, checked: their sizes under ``rules``, and no card in
    both."""
    held = hand if isinstance(hand, cards.Hand) else cards.Hand.parse(hand, size=rules.hand_size)
    if len(held) != rules.hand_size:
        raise TarotInputError(
            f"a hand of {rules.name} has {rules.hand_size} cards, got {len(held)}"
        )
    if dog is None:
        return held, None
    if rules.dog_size == 0:
        raise TarotInputError(f"{rules.name} has no dog")
    seen = dog if isinstance(dog, cards.Hand) else cards.Hand.parse(dog)
    if len(seen) != rules.dog_size:
        raise TarotInputError(
            f"the dog of {rules.name} has {rules.dog_size} cards, got {len(seen)}"
        )
    both = sorted(set(held.cards) & set(seen.cards))
    if both:
        raise TarotInputError(
            f"card {cards.format_cards(both[:1])} is both in the hand and in the dog"
        )
    return held, seen


def hand_odds(
    hand: cards.Hand | str,
    rules: Rules,
    *,
    seat: int = 0,
    dog: cards.Hand | str | None = None,
) -> HandOdds:
    """The exact odds of ``hand`` at ``seat`` under ``rules``; with ``dog`` (the dog's cards,
    once seen) the unseen cards lie in the other hands only."""
    held, seen_dog = seen_cards(hand, dog, rules)
    seat = seat_number(seat, rules.players)
    others = tuple((seat + k) % rules.players for k in range(1, rules.players))
    other_sizes = (rules.hand_size,) * len(others)
    dog_size = 0 if seen_dog is not None else rules.dog_size
    has_dog = dog_size > 0
    capacities = other_sizes + ((dog_size,) if has_dog else ())
    seen = _seen(held, seen_dog)
    unseen = cards.N_CARDS - len(seen)
    ids = range(cards.N_CARDS)

    suits = {}
    for suit, letter in enumerate(cards.SUIT_LETTERS):
        in_suit = [c for c in ids if cards.SUIT[c] == suit]
        missing = sum(c not in seen for c in in_suit)
        law = split_law(missing, capacities)
        king, queen = cards.suit_card(suit, cards.KING), cards.suit_card(suit, cards.QUEEN)
        suits[letter] = SuitOdds(
            held=sum(c in held for c in in_suit),
            missing=missing,
            king_passes=_every_other_holds(law, len(others), 1) if king in held else None,
            queen_passes_after_king=(
                _every_other_holds(law, len(others), 2) if queen in held else None
            ),
            splits=_patterns(law, len(others), has_dog),
        )

    trump_ids = [c for c in ids if cards.IS_TRUMP[c]]
    missing_trumps = sum(c not in seen for c in trump_ids)
    trump_law = split_law(missing_trumps, capacities)
    poignee_cards = missing_trumps + (cards.EXCUSE not in seen)
    poignee = {
        level: _some_other_reaches(threshold, poignee_cards, other_sizes, dog_size)
        for level, threshold in zip(LEVELS, rules.poignee.thresholds, strict=True)
    }
    petit_out = cards.PETIT not in seen
    trumps = TrumpOdds(
        held=sum(c in held for c in trump_ids),
        missing=missing_trumps,
        splits=_patterns(trump_law, len(others), has_dog),
        poignee=poignee,
        petit_out=petit_out,
        petit_short=_petit_short(missing_trumps, other_sizes, unseen) if petit_out else {},
    )

    places = {f"seat {s}": Fraction(rules.hand_size, unseen) for s in others}
    if has_dog:
        places["dog"] = Fraction(dog_size, unseen)
    bouts = {
        name: {where: float(p) for where, p in places.items()}
        for card, name in BOUT_NAMES.items()
        if card not in seen
    }
    laws = {} if seen_dog is not None or not has_dog else dog_laws(held, rules)
    dog_odds = {
        feature: {f"{k:g}": float(v) for k, v in law.items() if v > 0}
        for feature, law in laws.items()
    }
    where_dog = " and the dog" if has_dog else " (the dog seen)"
    models = {
        name: text.format(dog=where_dog if name == "deal" else "; then the dog's" * has_dog,
                          players=rules.players)
        for name, text in MODELS.items()
        if name != "partners" or rules.players >= 5
    }  # fmt: skip
    if rules.tarocco is not None:
        models["poignee"] += " Tarocco scores no poignée: read it as a long trump suit."
    return HandOdds(
        rules_name=rules.name, hand=held, seat=seat, dog_seen=seen_dog, others=others,
        suits=suits, trumps=trumps, bouts=bouts, dog=dog_odds, models=models,
    )  # fmt: skip


def odds_text(odds: HandOdds) -> str:
    """The odds as a player reads them: one block per question, its model in one line."""
    lines = [
        f"Odds of {odds.hand} — {odds.rules_name}, seat {odds.seat}"
        + (f", dog seen: {odds.dog_seen}" if odds.dog_seen is not None else ""),
        f"Model: {odds.models['deal']}",
    ]
    if "partners" in odds.models:
        lines.append(odds.models["partners"])
    lines += [
        "",
        "Suits (held / missing; king passes; queen passes after the king; likeliest splits)",
    ]
    for letter, suit in odds.suits.items():
        king = "—" if suit.king_passes is None else f"{suit.king_passes:.1%}"
        queen = (
            "—" if suit.queen_passes_after_king is None else f"{suit.queen_passes_after_king:.1%}"
        )
        shapes = ", ".join(f"{s.text()} {s.probability:.1%}" for s in suit.splits[:3])
        lines.append(
            f"  {letter}: {suit.held} / {suit.missing}; king {king}; queen {queen}; {shapes}"
        )
    trumps = odds.trumps
    shapes = ", ".join(f"{s.text()} {s.probability:.1%}" for s in trumps.splits[:4])
    lines += [
        "",
        f"Trumps: {trumps.held} held, {trumps.missing} missing; likeliest splits: {shapes}",
        "  another player holds a poignée: "
        + ", ".join(f"{level} {p:.2%}" for level, p in trumps.poignee.items()),
    ]
    if trumps.petit_out:
        lines.append(
            "  the Petit is out, short (with 1 to n other trumps): "
            + ", ".join(f"n={n} {p:.1%}" for n, p in trumps.petit_short.items())
        )
    if odds.bouts:
        lines += ["", "Bouts you lack, where each can be:"]
        for name, places in odds.bouts.items():
            where = ", ".join(f"{w} {p:.1%}" for w, p in places.items())
            lines.append(f"  {name.replace('_', ' ')}: {where}")
    if odds.dog:
        lines += ["", "The dog brings:"]
        for feature, law in odds.dog.items():
            top = sorted(law.items(), key=lambda item: -item[1])[:4]
            lines.append(f"  {feature}: " + ", ".join(f"{k}: {p:.1%}" for k, p in top))
    lines += ["", "Models:"] + [
        f"  {name}: {text}"
        for name, text in odds.models.items()
        if name not in ("deal", "partners")
    ]
    return "\n".join(lines)
