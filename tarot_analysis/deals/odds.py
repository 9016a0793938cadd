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

The dog given (``dog=``), the seat is the taker who took it: the dog's cards are its own, and
the figures are for its hand with the dog (all the cards it holds before the écart) or, with
``ecart=`` (checked against the preset's rules: :func:`checked_ecart`), for the hand it keeps
after the écart, the écart's cards out of play and known to it. :attr:`HandOdds.stage` says
which: ``as dealt``, ``with the dog`` or ``after the écart``; the dog's own content is then
told exactly (:func:`dog_content`) instead of a law.

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
    "STAGES",
    "HandOdds",
    "Split",
    "SuitOdds",
    "TrumpOdds",
    "checked_ecart",
    "dog_content",
    "dog_laws",
    "dog_text",
    "ecart_choices",
    "hand_odds",
    "odds_text",
    "seen_cards",
    "split_law",
]

#: The "short" holdings of the Petit asked about: with at most this many other trumps.
PETIT_SHORT: Final = (1, 2, 3)
LEVELS: Final = ("simple", "double", "triple")
BOUT_NAMES: Final = {cards.PETIT: "petit", cards.TWENTY_ONE: "twenty_one", cards.EXCUSE: "excuse"}
#: Which hand the figures are for: the hand as dealt (the dog unseen), the taker's hand with
#: the dog it took (before the écart), or the hand it keeps after the écart.
STAGES: Final = ("as dealt", "with the dog", "after the écart")

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
    "bouts": "Where a bout the hand lacks can be: each other seat{dog}.",
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
    """Everything :func:`hand_odds` found, with the model each value assumes.

    ``hand`` is the hand as dealt; ``held`` the hand the figures are for (:attr:`stage`): the
    hand as dealt, or the taker's with the dog, or what it keeps after ``ecart``.
    """

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
    held: cards.Hand | None = None  # None: the hand as dealt
    stage: str = STAGES[0]
    ecart: cards.Hand | None = None
    ecart_by: str | None = None  # who chose the écart: "given", or the bot whose it is
    ecart_points: float | None = None  # the écart's card points, the taker's
    dog_brings: dict[str, Any] | None = None  # the dog seen: what it holds (dog_content)

    @property
    def figures_hand(self) -> cards.Hand:
        """The hand the figures are for (see :attr:`stage`)."""
        return self.hand if self.held is None else self.held

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
            "stage": self.stage,
            "held": str(self.figures_hand),
            "ecart": None if self.ecart is None else str(self.ecart),
            "ecart_by": self.ecart_by,
            "ecart_points": self.ecart_points,
            "dog_brings": self.dog_brings,
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
                "excuse_held": self.figures_hand.has_excuse,
                "held_text": self.figures_hand.trumps_text,
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


def _card_points(ids: Iterable[int], rules: Rules) -> float:
    """The card points of ``ids`` under the preset's count."""
    points = rules.card_points

    def worth(card: int) -> float:
        if cards.IS_BOUT[card]:
            return points.bout
        for kind, value in (
            (cards.IS_KING, points.king), (cards.IS_QUEEN, points.queen),
            (cards.IS_KNIGHT, points.knight), (cards.IS_JACK, points.jack),
        ):  # fmt: skip
            if kind[card]:
                return value
        return points.other

    return sum(worth(card) for card in ids)


def dog_content(dog: cards.Hand, rules: Rules) -> dict[str, Any]:
    """What a dog seen holds, exactly: its cards, bouts, trumps (the Excuse apart, as everywhere),
    kings and card points (the preset's count).

    >>> from tarot_analysis.game.rules import load_rules
    >>> dog_content(cards.Hand("2 3 KS 5D 9C 4C"), load_rules("fft-4"))["kings"]
    ['KS']
    """
    ids = list(dog.cards)
    return {
        "cards": str(dog),
        "bouts": [cards.card_name(c) for c in cards.display_sorted(ids) if cards.IS_BOUT[c]],
        "trumps": dog.trumps,
        "excuse": dog.has_excuse,
        "trumps_text": dog.trumps_text,
        "kings": [cards.card_name(c) for c in cards.display_sorted(ids) if cards.IS_KING[c]],
        "points": _card_points(ids, rules),
    }


def dog_text(content: Mapping[str, Any]) -> str:
    """``no bout; 2 trumps; 1 king (KS); 7 card points``."""

    def named(kind: str, names: list[str]) -> str:
        if not names:
            return f"no {kind}"
        return f"{len(names)} {kind}{'s' * (len(names) > 1)} ({' '.join(names)})"

    return "; ".join(
        [
            named("bout", content["bouts"]),
            content["trumps_text"],
            named("king", content["kings"]),
            f"{content['points']:g} card points",
        ]
    )


def ecart_choices(pool: Iterable[int], rules: Rules) -> tuple[list[int], list[int]]:
    """The cards of ``pool`` (a taker's hand with the dog) that may go to the écart freely, and
    those the preset lets go only when too few others may (``if_forced``): kings, bouts and
    other trumps each as ``rules.ecart`` says, as the engine reads them
    (:func:`tarot_analysis.engine.core.ecart_sets`)."""
    free, forced = [], []
    for card in sorted(pool):
        allowance = "allowed"
        if cards.IS_KING[card]:
            allowance = rules.ecart.kings
        elif cards.IS_BOUT[card]:
            allowance = rules.ecart.bouts
        elif cards.IS_TRUMP[card]:
            allowance = rules.ecart.trumps
        if allowance == "allowed":
            free.append(card)
        elif allowance == "if_forced":
            forced.append(card)
    return free, forced


def _kind_of(card: int) -> str:
    if cards.IS_KING[card]:
        return "a king"
    return "a bout" if cards.IS_BOUT[card] else "a trump"


def checked_ecart(
    hand: cards.Hand, dog: cards.Hand, ecart: cards.Hand | str, rules: Rules
) -> cards.Hand:
    """``ecart`` checked as the écart of the taker holding ``hand`` who took ``dog``: as many
    cards as the dog, each from the hand or the dog, each one the preset lets go (a king, a
    bout or a trump only as ``rules.ecart`` allows, and then only after every card that may go
    freely); a ``TarotInputError`` saying which card breaks which rule otherwise."""
    try:
        chosen = ecart if isinstance(ecart, cards.Hand) else cards.Hand.parse(ecart)
    except TarotInputError as error:
        raise TarotInputError(f"the écart: {error}") from None
    count = rules.dog_size
    if len(chosen) != count:
        raise TarotInputError(
            f"the écart of {rules.name} has {count} cards, as the dog, got {len(chosen)}"
        )
    pool = set(hand.cards) | set(dog.cards)
    for card in cards.display_sorted(chosen.cards):
        if card not in pool:
            raise TarotInputError(
                f"the écart: {cards.card_name(card)} is neither in the hand nor in the dog"
            )
    free, forced = ecart_choices(pool, rules)
    short = len(free) < count
    for card in cards.display_sorted(chosen.cards):
        if card in free or (short and card in forced):
            continue
        name, kind = cards.card_name(card), _kind_of(card)
        if card in forced:
            raise TarotInputError(
                f"the écart: {name} is {kind}, which {rules.name} lets go only when fewer than "
                f"{count} other cards may go ({len(free)} may here)"
            )
        raise TarotInputError(f"the écart: {name} is {kind}, which {rules.name} never lets go")
    kept = [card for card in free if card not in chosen]
    if short and kept:
        raise TarotInputError(
            f"the écart: {cards.card_name(kept[0])} must go before any "
            f"{_kind_of(next(c for c in chosen.cards if c not in free))[2:]}: under "
            f"{rules.name} every card that may go freely goes first"
        )
    return chosen


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


def _taker_hand(
    dealt: cards.Hand,
    dog: cards.Hand | None,
    ecart: cards.Hand | str | None,
    rules: Rules,
) -> tuple[cards.Hand, str, cards.Hand | None]:
    """The hand the figures are for, its stage (:data:`STAGES`) and the écart checked."""
    if dog is None:
        if ecart is not None:
            raise TarotInputError("an écart is made with the dog: give the dog's cards too")
        return dealt, STAGES[0], None
    taken = cards.Hand(dealt.cards + dog.cards)
    if ecart is None:
        return taken, STAGES[1], None
    discarded = checked_ecart(dealt, dog, ecart, rules)
    kept = cards.Hand(c for c in taken.cards if c not in discarded)
    return kept, STAGES[2], discarded


def hand_odds(
    hand: cards.Hand | str,
    rules: Rules,
    *,
    seat: int = 0,
    dog: cards.Hand | str | None = None,
    ecart: cards.Hand | str | None = None,
    ecart_by: str = "given",
) -> HandOdds:
    """The exact odds of ``hand`` at ``seat`` under ``rules``.

    With ``dog`` (the dog's cards, once seen) the seat is the taker who took it: the figures
    are for its hand with the dog, or, with ``ecart`` (checked: :func:`checked_ecart`), for the
    hand it keeps after the écart; the unseen cards lie in the other hands only. ``ecart_by``
    says who chose the écart (``given``, or a bot's name), for the reader.

    >>> from tarot_analysis.game.rules import load_rules
    >>> hand = "21 19 12 6 1 E KH CH 10H 8H 1H JD 8D QC CC 7C 6S 4S"
    >>> dog, ecart = "2 3 KS 5D 9C 4C", "6S 4S JD 8D 5D 4C"
    >>> odds = hand_odds(hand, load_rules("fft-4"), dog=dog, ecart=ecart)
    >>> odds.stage, odds.trumps.held, odds.suits["S"].held, odds.dog_brings["kings"]
    ('after the écart', 7, 1, ['KS'])
    """
    dealt, seen_dog = seen_cards(hand, dog, rules)
    held, stage, discarded = _taker_hand(dealt, seen_dog, ecart, rules)
    seat = seat_number(seat, rules.players)
    others = tuple((seat + k) % rules.players for k in range(1, rules.players))
    other_sizes = (rules.hand_size,) * len(others)
    dog_size = 0 if seen_dog is not None else rules.dog_size
    has_dog = dog_size > 0
    capacities = other_sizes + ((dog_size,) if has_dog else ())
    seen = _seen(dealt, seen_dog)
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
        held=held.trumps,
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
    return HandOdds(
        rules_name=rules.name, hand=dealt, seat=seat, dog_seen=seen_dog, others=others,
        suits=suits, trumps=trumps, bouts=bouts, dog=dog_odds,
        models=_models(rules, has_dog, stage), held=held,
        stage=stage, ecart=discarded, ecart_by=None if discarded is None else ecart_by,
        ecart_points=None if discarded is None else _card_points(discarded.cards, rules),
        dog_brings=None if seen_dog is None else dog_content(seen_dog, rules),
    )  # fmt: skip


def _models(rules: Rules, has_dog: bool, stage: str) -> dict[str, str]:
    """The sentence of each question's model, said for this preset and this stage."""
    where_dog = {
        STAGES[0]: " and the dog" if has_dog else "",
        STAGES[1]: " (the dog taken by this seat, its own)",
        STAGES[2]: " (the dog taken by this seat, the écart out of play, both known to it)",
    }[stage]
    dog = {"deal": where_dog, "bouts": ", and the dog" * has_dog}
    models = {
        name: text.format(dog=dog.get(name, "; then the dog's" * has_dog), players=rules.players)
        for name, text in MODELS.items()
        if name != "partners" or rules.players >= 5
    }
    if rules.tarocco is not None:
        models["poignee"] += " Tarocco scores no poignée: read it as a long trump suit."
    return models


def _hand_lines(odds: HandOdds) -> list[str]:
    """Which hand the figures are for: the hand as dealt, or the taker's stages with the dog."""
    if odds.dog_seen is None:
        return [
            f"Odds of {odds.hand} — {odds.rules_name}, seat {odds.seat}; the figures are for "
            "the hand as dealt, the dog unseen"
        ]
    taken = cards.Hand(odds.hand.cards + odds.dog_seen.cards)
    lines = [
        f"Odds of seat {odds.seat}'s hand {odds.stage} — {odds.rules_name}; the seat takes "
        "the dog, its cards are its own",
        f"  as dealt:        {odds.hand}",
        f"  the dog:         {odds.dog_seen}: {dog_text(odds.dog_brings or {})}",
        f"  with the dog:    {taken} ({len(taken)} cards)",
    ]
    if odds.ecart is not None:
        lines += [
            f"  the écart:       {odds.ecart} ({odds.ecart_by}; {odds.ecart_points:g} card "
            "points, the taker's)",
            f"  after the écart: {odds.figures_hand} ({len(odds.figures_hand)} cards)",
        ]
    lines.append(f"The figures below are for the hand {odds.stage}.")
    return lines


def odds_text(odds: HandOdds) -> str:
    """The odds as a player reads them: which hand they are for, then one block per question,
    its model in one line."""
    lines = [*_hand_lines(odds), f"Model: {odds.models['deal']}"]
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
        f"Trumps: {odds.figures_hand.trumps_text} held, {trumps.missing} trumps missing; "
        f"likeliest splits: {shapes}",
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
