"""Exact distributions of what a hand, a dog or a whole deal holds.

Everything a deal puts in one hand depends only on how many cards of each kind the hand draws, so
every feature of a hand has an exact value: the hand is a multivariate hypergeometric draw over a
few classes of cards (bouts, kings, the four suits, the trumps with the Excuse, ...). The
functions here enumerate those class counts with exact integer arithmetic (``math.comb`` and
``fractions.Fraction``) and return pandas Series of probabilities indexed by the feature's value.

The same engine answers conditional questions: once a player has seen their own hand, the dog is a
draw from the 78 − hand_size cards they have not seen (:func:`dog_distribution`).

Feature names match the per-hand columns of simulated deals: ``trumps`` (the Excuse not
included), ``excuse``, ``petit``, ``twenty_one``, ``bouts``, ``kings``, ``queens``, ``knights``,
``jacks``, ``spades``, ``hearts``, ``diamonds``, ``clubs`` (suit lengths), ``voids``,
``singletons``, ``longest_suit``, ``points``, ``poignee`` (0 none, 1 simple, 2 double, 3 triple)
and ``petit_sec``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from fractions import Fraction

import pandas as pd

from tarot_analysis.errors import TarotInputError

__all__ = [
    "COUNT_FEATURES",
    "DECK_SIZE",
    "DEFAULT_POIGNEE_THRESHOLDS",
    "EXACT_FEATURES",
    "FRENCH_CLASS_POINTS",
    "POIGNEE_LEVELS",
    "conditional_hand_distribution",
    "dog_distribution",
    "hand_distribution",
    "petit_sec_per_deal",
    "petit_sec_per_hand",
    "poignee_at_least",
    "poignee_per_deal",
]

DECK_SIZE = 78
SUIT_LENGTH = 14
SUITS = ("spades", "hearts", "diamonds", "clubs")
TRUMP_COUNT = 21
# The Excuse is not a trump for following suit, but it counts beside the trumps for a poignée.
POIGNEE_CARD_COUNT = TRUMP_COUNT + 1
BOUT_COUNT = 3
FACE_COUNT = len(SUITS)  # one king, queen, knight and jack in each suit

#: Cards of each kind in the 78-card deck, keyed by the name of the per-hand count.
CLASS_SIZES: Mapping[str, int] = {
    "trumps": TRUMP_COUNT,
    "excuse": 1,
    "petit": 1,
    "twenty_one": 1,
    "bouts": BOUT_COUNT,
    "kings": FACE_COUNT,
    "queens": FACE_COUNT,
    "knights": FACE_COUNT,
    "jacks": FACE_COUNT,
    **dict.fromkeys(SUITS, SUIT_LENGTH),
}

#: Features that simply count the cards of one kind.
COUNT_FEATURES: tuple[str, ...] = tuple(CLASS_SIZES)

#: Every feature :func:`hand_distribution` knows.
EXACT_FEATURES: tuple[str, ...] = (
    *COUNT_FEATURES,
    "voids",
    "singletons",
    "longest_suit",
    "points",
    "poignee",
    "petit_sec",
)

#: French card values: bouts and kings 4.5, queens 3.5, knights 2.5, jacks 1.5, the rest 0.5.
FRENCH_CLASS_POINTS: Mapping[str, float] = {
    "bout": 4.5,
    "king": 4.5,
    "queen": 3.5,
    "knight": 2.5,
    "jack": 1.5,
    "other": 0.5,
}
POINT_CLASSES = ("bout", "king", "queen", "knight", "jack", "other")
# The per-hand count that says how many cards of each point class were seen ("other" is the rest).
_POINT_CLASS_COUNTS = (
    ("bout", "bouts"),
    ("king", "kings"),
    ("queen", "queens"),
    ("knight", "knights"),
    ("jack", "jacks"),
)

#: Simple, double and triple poignée in 4-player FFT rules (cards among trumps and Excuse).
DEFAULT_POIGNEE_THRESHOLDS: tuple[int, int, int] = (10, 13, 15)
POIGNEE_LEVELS = ("simple", "double", "triple")


@dataclass(frozen=True)
class _CardClass:
    """Cards of one kind, with how to count them among seen cards from per-hand counts."""

    name: str
    size: int
    seen_terms: tuple[tuple[str, int], ...]

    def seen(self, seen_counts: Mapping[str, int]) -> int:
        """How many cards of this class are among the seen cards."""
        missing = [key for key, _ in self.seen_terms if key not in seen_counts]
        if missing:
            raise TarotInputError(
                f"seen counts lack {', '.join(map(repr, missing))}, needed to count {self.name!r}"
            )
        return sum(sign * seen_counts[key] for key, sign in self.seen_terms)


def _count_class(key: str) -> _CardClass:
    return _CardClass(key, CLASS_SIZES[key], ((key, 1),))


# The value of a feature from the counts of its classes and of the remaining cards.
_ValueFn = Callable[[tuple[int, ...], int], Fraction]


@dataclass(frozen=True)
class _FeatureModel:
    """A feature as a function of how many cards of a few disjoint classes a draw holds."""

    classes: tuple[_CardClass, ...]
    value: _ValueFn


def _check_thresholds(thresholds: tuple[int, int, int]) -> tuple[int, int, int]:
    levels = tuple(int(t) for t in thresholds)
    if len(levels) != len(POIGNEE_LEVELS):
        raise TarotInputError(f"poignée thresholds must be three numbers, got {thresholds!r}")
    simple, double, triple = levels
    if not 1 <= simple <= double <= triple <= POIGNEE_CARD_COUNT:
        raise TarotInputError(
            f"poignée thresholds must rise within 1..{POIGNEE_CARD_COUNT}, got {thresholds!r}"
        )
    return simple, double, triple


def _poignee_level(cards: int, thresholds: tuple[int, int, int]) -> int:
    """0 for no poignée, else 1 / 2 / 3 for the highest of simple / double / triple held."""
    return sum(cards >= threshold for threshold in thresholds)


def _check_class_points(class_points: Mapping[str, float]) -> tuple[Fraction, ...]:
    missing = [name for name in POINT_CLASSES if name not in class_points]
    unknown = [name for name in class_points if name not in POINT_CLASSES]
    if missing or unknown:
        raise TarotInputError(
            f"class points need exactly the keys {', '.join(POINT_CLASSES)}; "
            f"missing {missing}, unknown {unknown}"
        )
    # Fractions keep sums of half points exact, so equal totals share one index value.
    return tuple(Fraction(class_points[name]).limit_denominator(1000) for name in POINT_CLASSES)


def _feature_model(
    feature: str, thresholds: tuple[int, int, int], class_points: tuple[Fraction, ...]
) -> _FeatureModel:
    if feature in CLASS_SIZES:
        return _FeatureModel((_count_class(feature),), lambda counts, rest: Fraction(counts[0]))
    suits = tuple(_count_class(suit) for suit in SUITS)
    if feature == "voids":
        return _FeatureModel(suits, lambda counts, rest: Fraction(counts.count(0)))
    if feature == "singletons":
        return _FeatureModel(suits, lambda counts, rest: Fraction(counts.count(1)))
    if feature == "longest_suit":
        return _FeatureModel(suits, lambda counts, rest: Fraction(max(counts)))
    if feature == "points":
        point_classes = tuple(_count_class(key) for _, key in _POINT_CLASS_COUNTS)
        face_values, other_value = class_points[:-1], class_points[-1]

        def points(counts: tuple[int, ...], rest: int) -> Fraction:
            return sum(
                (v * c for v, c in zip(face_values, counts, strict=True)), rest * other_value
            )

        return _FeatureModel(point_classes, points)
    if feature == "poignee":
        trumps_and_excuse = _CardClass(
            "trumps and Excuse", POIGNEE_CARD_COUNT, (("trumps", 1), ("excuse", 1))
        )
        return _FeatureModel(
            (trumps_and_excuse,),
            lambda counts, rest: Fraction(_poignee_level(counts[0], thresholds)),
        )
    if feature == "petit_sec":
        other_trumps = _CardClass(
            "trumps other than the Petit", TRUMP_COUNT - 1, (("trumps", 1), ("petit", -1))
        )
        return _FeatureModel(
            (_count_class("petit"), other_trumps, _count_class("excuse")),
            lambda counts, rest: Fraction(int(counts == (1, 0, 0))),
        )
    raise TarotInputError(
        f"unknown feature {feature!r}; known features: {', '.join(EXACT_FEATURES)}"
    )


def _class_counts(
    sizes: tuple[int, ...], draws: int, rest: int
) -> Iterator[tuple[tuple[int, ...], int]]:
    """Every way a draw can split over the classes, with its number of hands.

    Yields ``(counts, ways)`` where ``ways`` is the number of draws of ``draws`` cards holding
    exactly ``counts[i]`` cards of class ``i`` and the remainder from the ``rest`` other cards.
    """
    if not sizes:
        if draws <= rest:
            yield (), math.comb(rest, draws)
        return
    head, tail = sizes[0], sizes[1:]
    room_after = rest + sum(tail)
    for count in range(max(0, draws - room_after), min(head, draws) + 1):
        ways = math.comb(head, count)
        for counts, tail_ways in _class_counts(tail, draws - count, rest):
            yield (count, *counts), ways * tail_ways


@functools.cache
def _exact_distribution(
    feature: str,
    seen: tuple[int, ...],
    seen_total: int,
    draws: int,
    thresholds: tuple[int, int, int],
    class_points: tuple[Fraction, ...],
) -> tuple[tuple[Fraction, Fraction], ...]:
    """``(value, probability)`` pairs, sorted by value, as exact fractions."""
    model = _feature_model(feature, thresholds, class_points)
    unseen_sizes = tuple(c.size - s for c, s in zip(model.classes, seen, strict=True))
    unseen_total = DECK_SIZE - seen_total
    unseen_rest = unseen_total - sum(unseen_sizes)
    weights: dict[Fraction, int] = {}
    for counts, ways in _class_counts(unseen_sizes, draws, unseen_rest):
        value = model.value(counts, draws - sum(counts))
        weights[value] = weights.get(value, 0) + ways
    total = math.comb(unseen_total, draws)
    if sum(weights.values()) != total:  # pragma: no cover - a broken enumeration
        raise AssertionError(f"enumeration of {feature!r} does not cover every draw")
    return tuple((value, Fraction(weights[value], total)) for value in sorted(weights))


def _to_series(feature: str, pairs: tuple[tuple[Fraction, Fraction], ...]) -> pd.Series:
    values = [float(v) if feature == "points" else int(v) for v, _ in pairs]
    probabilities = [float(p) for _, p in pairs]
    return pd.Series(
        probabilities, index=pd.Index(values, name=feature), name="probability", dtype="float64"
    )


def _check_draws(draws: int, available: int, what: str) -> None:
    if not 0 <= draws <= available:
        raise TarotInputError(f"{what} must be between 0 and {available}, got {draws}")


def _check_seen_counts(seen_counts: Mapping[str, int], seen_total: int) -> None:
    """Reject seen counts that no set of ``seen_total`` cards can have."""
    for key, count in seen_counts.items():
        if not 0 <= count <= min(CLASS_SIZES[key], seen_total):
            raise TarotInputError(
                f"{count} seen {key} is impossible: the deck has {CLASS_SIZES[key]} "
                f"and {seen_total} cards were seen"
            )
    given = seen_counts.keys()
    if {"bouts", "petit", "twenty_one", "excuse"} <= given:
        held = seen_counts["petit"] + seen_counts["twenty_one"] + seen_counts["excuse"]
        if seen_counts["bouts"] != held:
            raise TarotInputError(
                f"{seen_counts['bouts']} seen bouts disagree with the Petit, 21 and Excuse seen"
            )
    if {"trumps", "petit", "twenty_one"} <= given and (
        seen_counts["trumps"] < seen_counts["petit"] + seen_counts["twenty_one"]
    ):
        raise TarotInputError("fewer seen trumps than the Petit and the 21 seen")
    parts = ("trumps", "excuse", *SUITS)
    if set(parts) <= given and sum(seen_counts[key] for key in parts) != seen_total:
        raise TarotInputError(
            f"seen trumps, Excuse and suit lengths do not add up to {seen_total} cards"
        )


def conditional_hand_distribution(
    feature: str,
    seen_counts: Mapping[str, int],
    seen_total: int,
    draws: int,
    *,
    thresholds: tuple[int, int, int] = DEFAULT_POIGNEE_THRESHOLDS,
    class_points: Mapping[str, float] = FRENCH_CLASS_POINTS,
) -> pd.Series:
    """Distribution of ``feature`` in ``draws`` cards taken from the cards not yet seen.

    ``seen_total`` cards of the deck are known (a player's own hand, say) and ``seen_counts``
    says how many of each kind they hold, keyed like the per-hand counts (``trumps``,
    ``excuse``, ``petit``, ``twenty_one``, ``bouts``, ``kings``, ``queens``, ``knights``,
    ``jacks``, ``spades``, ``hearts``, ``diamonds``, ``clubs``). Only the keys the feature needs
    must be given: ``bouts`` for bouts; the four faces and ``bouts`` for points; the four suits
    for voids, singletons and longest suit; ``trumps`` and ``excuse`` for a poignée; ``petit``,
    ``trumps`` and ``excuse`` for a petit sec. The ``draws`` cards are a uniform draw from the
    other ``78 − seen_total`` cards.

    Returns probabilities indexed by the feature's value (float64, summing to 1).

    Knowing a hand with two bouts, three cards drawn from the 60 others hold the last bout with
    probability 3/60:

    >>> dist = conditional_hand_distribution("bouts", {"bouts": 2}, 18, 3)
    >>> print(round(dist[1], 12))
    0.05
    """
    unknown = [key for key in seen_counts if key not in CLASS_SIZES]
    if unknown:
        raise TarotInputError(
            f"unknown card counts {unknown}; known counts: {', '.join(COUNT_FEATURES)}"
        )
    _check_draws(seen_total, DECK_SIZE, "seen cards")
    _check_draws(draws, DECK_SIZE - seen_total, "cards drawn")
    levels = _check_thresholds(thresholds)
    values = _check_class_points(class_points)
    model = _feature_model(feature, levels, values)
    _check_seen_counts(seen_counts, seen_total)
    seen = tuple(int(card_class.seen(seen_counts)) for card_class in model.classes)
    for card_class, count in zip(model.classes, seen, strict=True):
        if not 0 <= count <= min(card_class.size, seen_total):
            raise TarotInputError(
                f"{count} seen {card_class.name} is impossible: the deck has {card_class.size} "
                f"and {seen_total} cards were seen"
            )
    seen_rest = seen_total - sum(seen)
    deck_rest = DECK_SIZE - sum(c.size for c in model.classes)
    if not 0 <= seen_rest <= deck_rest:
        raise TarotInputError(
            f"seen counts {dict(seen_counts)} do not fit in {seen_total} seen cards"
        )
    # Options a feature does not use stay out of the cache key.
    if feature != "poignee":
        levels = DEFAULT_POIGNEE_THRESHOLDS
    if feature != "points":
        values = ()
    pairs = _exact_distribution(feature, seen, seen_total, draws, levels, values)
    return _to_series(feature, pairs)


def hand_distribution(
    feature: str,
    hand_size: int,
    *,
    thresholds: tuple[int, int, int] = DEFAULT_POIGNEE_THRESHOLDS,
    class_points: Mapping[str, float] = FRENCH_CLASS_POINTS,
) -> pd.Series:
    """Exact distribution of ``feature`` in one hand of ``hand_size`` cards.

    ``feature`` is one of :data:`EXACT_FEATURES`. ``thresholds`` are the simple, double and
    triple poignée sizes (cards among the trumps and the Excuse), used by ``poignee``;
    ``class_points`` the card values used by ``points``. Returns probabilities indexed by the
    feature's value (float64, summing to 1).

    A 4-player hand (18 cards) holds no bout with probability C(75, 18) / C(78, 18):

    >>> print(round(hand_distribution("bouts", 18)[0], 6))
    0.449813
    >>> hand_distribution("points", 78).to_dict()
    {91.0: 1.0}
    """
    _check_draws(hand_size, DECK_SIZE, "hand size")
    no_cards_seen = dict.fromkeys(COUNT_FEATURES, 0)
    return conditional_hand_distribution(
        feature, no_cards_seen, 0, hand_size, thresholds=thresholds, class_points=class_points
    )


def dog_distribution(
    feature: str,
    my_hand_counts: Mapping[str, int],
    hand_size: int,
    dog_size: int,
    *,
    thresholds: tuple[int, int, int] = DEFAULT_POIGNEE_THRESHOLDS,
    class_points: Mapping[str, float] = FRENCH_CLASS_POINTS,
) -> pd.Series:
    """What the dog holds, seen from a player who knows only their own hand.

    ``my_hand_counts`` gives how many cards of each kind the hand of ``hand_size`` cards holds
    (keys as in :func:`conditional_hand_distribution`); the dog of ``dog_size`` cards is a
    uniform draw from the ``78 − hand_size`` cards the player has not seen. Useful features are
    ``bouts``, ``trumps``, ``excuse``, ``kings`` and ``points``.

    With two bouts in an 18-card hand, a 6-card dog holds the third bout with probability 6/60:

    >>> print(round(dog_distribution("bouts", {"bouts": 2}, 18, 6)[1], 12))
    0.1
    """
    _check_draws(hand_size, DECK_SIZE, "hand size")
    return conditional_hand_distribution(
        feature,
        my_hand_counts,
        hand_size,
        dog_size,
        thresholds=thresholds,
        class_points=class_points,
    )


def poignee_at_least(
    hand_size: int, thresholds: tuple[int, int, int] = DEFAULT_POIGNEE_THRESHOLDS
) -> pd.Series:
    """Probability that one hand can show at least a simple, double, triple poignée.

    Returns a Series indexed ``simple``, ``double``, ``triple``.

    >>> at_least = poignee_at_least(18)
    >>> print(round(at_least["simple"], 6), round(at_least["double"], 8))
    0.005199 9.51e-06
    """
    levels = hand_distribution("poignee", hand_size, thresholds=thresholds)
    at_least = [float(levels[levels.index >= level].sum()) for level in (1, 2, 3)]
    return pd.Series(at_least, index=pd.Index(POIGNEE_LEVELS, name="poignee"), name="probability")


def _check_table(players: int, hand_size: int, dog_size: int) -> None:
    if players < 1 or hand_size < 0 or dog_size < 0:
        raise TarotInputError(
            f"a table needs players ≥ 1 and non-negative sizes, got {players}, {hand_size}, "
            f"{dog_size}"
        )
    if players * hand_size + dog_size != DECK_SIZE:
        raise TarotInputError(
            f"{players} hands of {hand_size} and a dog of {dog_size} do not deal {DECK_SIZE} cards"
        )


def _poly_mul(left: list[int], right: list[int]) -> list[int]:
    product = [0] * (len(left) + len(right) - 1)
    for i, a in enumerate(left):
        if a:
            for j, b in enumerate(right):
                product[i + j] += a * b
    return product


def _no_seat_reaches(threshold: int, players: int, hand_size: int, dog_size: int) -> Fraction:
    """P(every hand holds fewer than ``threshold`` of the 22 trumps and Excuse).

    The 22 cards split over the seats and the dog as a multivariate hypergeometric: a split
    ``(c_1, ..., c_players, c_dog)`` happens in ``prod C(hand_size, c_i) * C(dog_size, c_dog)``
    of the ``C(78, 22)`` equally likely placements. Summing over splits with every ``c_i`` below
    the threshold is the coefficient of ``x**22`` in a product of polynomials.
    """
    seat = [math.comb(hand_size, c) for c in range(min(threshold - 1, hand_size) + 1)]
    dog = [math.comb(dog_size, c) for c in range(dog_size + 1)]
    product = dog
    for _ in range(players):
        product = _poly_mul(product, seat)[: POIGNEE_CARD_COUNT + 1]
    ways = product[POIGNEE_CARD_COUNT] if len(product) > POIGNEE_CARD_COUNT else 0
    return Fraction(ways, math.comb(DECK_SIZE, POIGNEE_CARD_COUNT))


def poignee_per_deal(
    players: int,
    hand_size: int,
    dog_size: int,
    thresholds: tuple[int, int, int] = DEFAULT_POIGNEE_THRESHOLDS,
) -> pd.Series:
    """Probability that at least one player at the table can show at least each poignée.

    Exact, over every way the 22 trumps and Excuse split among the hands and the dog. Returns a
    Series indexed ``simple``, ``double``, ``triple``.

    >>> print(round(poignee_per_deal(4, 18, 6)["simple"], 6))
    0.020796
    """
    _check_table(players, hand_size, dog_size)
    levels = _check_thresholds(thresholds)
    at_least = [
        float(1 - _no_seat_reaches(threshold, players, hand_size, dog_size)) for threshold in levels
    ]
    return pd.Series(at_least, index=pd.Index(POIGNEE_LEVELS, name="poignee"), name="probability")


def petit_sec_per_hand(hand_size: int) -> float:
    """Probability that one hand holds the Petit sec: the Petit, no other trump, no Excuse.

    That is C(56, hand_size − 1) / C(78, hand_size): the Petit and the rest from the suit cards.

    >>> round(petit_sec_per_hand(18), 8)
    0.00046102
    """
    _check_draws(hand_size, DECK_SIZE, "hand size")
    if hand_size == 0:
        return 0.0
    suit_cards = DECK_SIZE - POIGNEE_CARD_COUNT
    return float(Fraction(math.comb(suit_cards, hand_size - 1), math.comb(DECK_SIZE, hand_size)))


def petit_sec_per_deal(players: int, hand_size: int) -> float:
    """Probability that some player at the table holds the Petit sec (the deal is then void).

    Only the seat holding the Petit can have it sec, so the per-seat events are disjoint and
    their probabilities add up.

    >>> round(petit_sec_per_deal(4, 18), 8)
    0.00184408
    """
    if players < 1 or players * hand_size > DECK_SIZE:
        raise TarotInputError(f"{players} hands of {hand_size} cards do not fit in the deck")
    return players * petit_sec_per_hand(hand_size)
