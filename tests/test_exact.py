"""Exact hand, dog and deal distributions: closed forms, invariants and brute force."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from fractions import Fraction
from math import comb

import numpy as np
import numpy.typing as npt
import pandas as pd
import pytest
from scipy.stats import hypergeom

from tarot_analysis.deals.exact import (
    EXACT_FEATURES,
    FRENCH_CLASS_POINTS,
    conditional_hand_distribution,
    dog_distribution,
    hand_distribution,
    petit_sec_per_deal,
    petit_sec_per_hand,
    poignee_at_least,
    poignee_per_deal,
)
from tarot_analysis.errors import TarotInputError

# (players, hand size, dog size, poignée thresholds) of the presets.
TABLES = {
    "fft-3": (3, 24, 6, (13, 15, 18)),
    "fft-4": (4, 18, 6, (10, 13, 15)),
    "fft-5": (5, 15, 3, (8, 10, 13)),
    "six-king-queen": (6, 12, 6, (7, 9, 11)),
}
HAND_SIZES = sorted({hand for _, hand, _, _ in TABLES.values()})
SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")
KING, QUEEN, KNIGHT, JACK = 14, 13, 12, 11


def mean(distribution: pd.Series) -> float:
    return float((distribution.index.to_numpy(dtype=float) * distribution.to_numpy()).sum())


# ---------------------------------------------------------------------------------------------
# A card-by-card model of the deck, independent of the class counts used by the exact module.


def _deck() -> dict[str, npt.NDArray[np.int64]]:
    """One entry per card: indicator columns and half points."""
    rows: list[dict[str, int]] = []
    for trump in range(1, 22):
        rows.append({"trump": 1, "rank": trump})
    rows.append({"excuse": 1})
    for suit in SUIT_NAMES:
        for rank in range(1, 15):
            rows.append({suit: 1, "rank": rank})
    columns = ("trump", "excuse", "rank", *SUIT_NAMES)
    deck = {name: np.array([row.get(name, 0) for row in rows]) for name in columns}
    is_suit = sum(deck[suit] for suit in SUIT_NAMES)
    deck["petit"] = deck["trump"] * (deck["rank"] == 1)
    deck["twenty_one"] = deck["trump"] * (deck["rank"] == 21)
    deck["bout"] = deck["petit"] + deck["twenty_one"] + deck["excuse"]
    for name, rank in (("king", KING), ("queen", QUEEN), ("knight", KNIGHT), ("jack", JACK)):
        deck[name] = is_suit * (deck["rank"] == rank)
    half_points = np.ones(len(rows), dtype=np.int64)
    for name, value in (("bout", 9), ("king", 9), ("queen", 7), ("knight", 5), ("jack", 3)):
        half_points = np.where(deck[name] == 1, value, half_points)
    deck["half_points"] = half_points
    return deck


DECK = _deck()
assert len(DECK["trump"]) == 78 and DECK["half_points"].sum() == 182


def hand_features(
    hands: npt.NDArray[np.int64], thresholds: tuple[int, int, int]
) -> dict[str, npt.NDArray[np.float64]]:
    """Every feature of each hand (a row of card indices), computed card by card."""

    def held(column: str) -> npt.NDArray[np.int64]:
        return DECK[column][hands].sum(axis=1)

    lengths = np.stack([held(suit) for suit in SUIT_NAMES], axis=1)
    trumps, excuse, petit = held("trump"), held("excuse"), held("petit")
    trumps_and_excuse = trumps + excuse
    features = {
        "trumps": trumps,
        "excuse": excuse,
        "petit": petit,
        "twenty_one": held("twenty_one"),
        "bouts": held("bout"),
        "kings": held("king"),
        "queens": held("queen"),
        "knights": held("knight"),
        "jacks": held("jack"),
        **{suit: lengths[:, i] for i, suit in enumerate(SUIT_NAMES)},
        "voids": (lengths == 0).sum(axis=1),
        "singletons": (lengths == 1).sum(axis=1),
        "longest_suit": lengths.max(axis=1),
        "points": held("half_points") / 2,
        "poignee": sum((trumps_and_excuse >= t).astype(int) for t in thresholds),
        "petit_sec": ((petit == 1) & (trumps == 1) & (excuse == 0)).astype(int),
    }
    return {name: np.asarray(values, dtype=np.float64) for name, values in features.items()}


def seen_counts_of(cards: npt.NDArray[np.int64]) -> dict[str, int]:
    features = hand_features(cards[None, :], (1, 2, 3))
    keys = ["trumps", "excuse", "petit", "twenty_one", "bouts", "kings", "queens", "knights"]
    keys += ["jacks", *SUIT_NAMES]
    return {key: int(features[key][0]) for key in keys}


def empirical(values: npt.NDArray[np.float64]) -> pd.Series:
    return pd.Series(values).value_counts(normalize=True).sort_index()


def assert_same_distribution(exact: pd.Series, brute: pd.Series) -> None:
    np.testing.assert_array_equal(exact.index.to_numpy(dtype=float), brute.index.to_numpy())
    np.testing.assert_allclose(exact.to_numpy(), brute.to_numpy(), rtol=0, atol=1e-12)


# ---------------------------------------------------------------------------------------------
# Shape of every distribution.


@pytest.mark.parametrize("hand_size", HAND_SIZES)
@pytest.mark.parametrize("feature", EXACT_FEATURES)
def test_every_distribution_is_a_probability_table(feature: str, hand_size: int) -> None:
    distribution = hand_distribution(feature, hand_size)
    assert distribution.dtype == np.float64
    assert distribution.index.name == feature
    assert distribution.index.is_monotonic_increasing and distribution.index.is_unique
    assert (distribution > 0).all()
    assert abs(distribution.sum() - 1.0) < 1e-12


def test_unknown_feature_lists_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"unknown feature 'honours'.*bouts.*petit_sec"):
        hand_distribution("honours", 18)


@pytest.mark.parametrize("hand_size", [-1, 79])
def test_impossible_hand_size_is_refused(hand_size: int) -> None:
    with pytest.raises(TarotInputError):
        hand_distribution("bouts", hand_size)


def test_thresholds_must_rise() -> None:
    with pytest.raises(TarotInputError, match="thresholds"):
        hand_distribution("poignee", 18, thresholds=(13, 10, 15))


# ---------------------------------------------------------------------------------------------
# Closed forms.


def test_no_bout_and_no_king_in_a_four_player_hand() -> None:
    assert hand_distribution("bouts", 18)[0] == pytest.approx(
        comb(75, 18) / comb(78, 18), rel=1e-12
    )
    assert hand_distribution("kings", 18)[0] == pytest.approx(
        comb(74, 18) / comb(78, 18), rel=1e-12
    )


@pytest.mark.parametrize(
    ("feature", "cards"),
    [
        ("trumps", 21),
        ("excuse", 1),
        ("petit", 1),
        ("twenty_one", 1),
        ("bouts", 3),
        ("kings", 4),
        ("queens", 4),
        ("knights", 4),
        ("jacks", 4),
        ("spades", 14),
        ("hearts", 14),
        ("diamonds", 14),
        ("clubs", 14),
    ],
)
@pytest.mark.parametrize("hand_size", HAND_SIZES)
def test_counts_are_hypergeometric(feature: str, cards: int, hand_size: int) -> None:
    distribution = hand_distribution(feature, hand_size)
    expected = hypergeom(78, cards, hand_size).pmf(distribution.index.to_numpy())
    np.testing.assert_allclose(distribution.to_numpy(), expected, rtol=1e-9)
    assert mean(distribution) == pytest.approx(hand_size * cards / 78, rel=1e-12)


@pytest.mark.parametrize("hand_size", HAND_SIZES)
def test_mean_trumps_and_points(hand_size: int) -> None:
    assert mean(hand_distribution("trumps", hand_size)) == pytest.approx(hand_size * 21 / 78)
    assert mean(hand_distribution("points", hand_size)) == pytest.approx(91 * hand_size / 78)


def test_points_of_the_whole_deck_and_of_no_card() -> None:
    assert hand_distribution("points", 78).to_dict() == {91.0: 1.0}
    assert hand_distribution("points", 0).to_dict() == {0.0: 1.0}
    assert hand_distribution("longest_suit", 78).to_dict() == {14: 1.0}


def test_other_card_values_shift_the_points() -> None:
    # Counting every card as 1 point makes the points of a hand its size.
    flat = dict.fromkeys(FRENCH_CLASS_POINTS, 1.0)
    assert hand_distribution("points", 18, class_points=flat).to_dict() == {18.0: 1.0}
    with pytest.raises(TarotInputError, match="class points"):
        hand_distribution("points", 18, class_points={"bout": 4.5})


@pytest.mark.parametrize("hand_size", HAND_SIZES)
def test_voids_singletons_and_longest_suit_agree_with_suit_lengths(hand_size: int) -> None:
    spades = hand_distribution("spades", hand_size)
    assert mean(hand_distribution("voids", hand_size)) == pytest.approx(4 * spades[0], rel=1e-12)
    assert mean(hand_distribution("singletons", hand_size)) == pytest.approx(
        4 * spades[1], rel=1e-12
    )
    longest = hand_distribution("longest_suit", hand_size)
    at_least = longest[::-1].cumsum()[::-1]
    for length in range(1, 15):
        spades_at_least = float(spades[spades.index >= length].sum())
        longest_at_least = float(at_least.get(length, 0.0))
        # Some suit reaches the length: at most the sum over suits, and exactly that sum when
        # two suits that long would not fit in the hand.
        assert longest_at_least <= 4 * spades_at_least + 1e-15
        if 2 * length > hand_size:
            assert longest_at_least == pytest.approx(4 * spades_at_least, rel=1e-12, abs=1e-18)
    # No suit card at all: every card from the 22 trumps and Excuse.
    no_suit_card = comb(22, hand_size) / comb(78, hand_size)
    assert longest.get(0, 0.0) == pytest.approx(no_suit_card, rel=1e-12, abs=1e-300)


def test_poignee_levels_come_from_trumps_and_excuse() -> None:
    for _, hand, _, thresholds in TABLES.values():
        levels = hand_distribution("poignee", hand, thresholds=thresholds)
        at_least = poignee_at_least(hand, thresholds)
        assert list(at_least.index) == ["simple", "double", "triple"]
        trumps_and_excuse = hypergeom(78, 22, hand)
        for level, threshold in zip(at_least.index, thresholds, strict=True):
            assert at_least[level] == pytest.approx(trumps_and_excuse.sf(threshold - 1), rel=1e-9)
        assert levels.sum() - levels.get(0, 0.0) == pytest.approx(at_least["simple"], rel=1e-12)


# ---------------------------------------------------------------------------------------------
# Whole deals.


@pytest.mark.parametrize("preset", TABLES)
def test_poignee_per_deal_between_one_hand_and_every_hand(preset: str) -> None:
    players, hand, dog, thresholds = TABLES[preset]
    per_hand = poignee_at_least(hand, thresholds)
    per_deal = poignee_per_deal(players, hand, dog, thresholds)
    assert list(per_deal.index) == ["simple", "double", "triple"]
    assert (per_deal >= per_hand).all()
    assert (per_deal <= players * per_hand * (1 + 1e-12)).all()
    assert per_deal.is_monotonic_decreasing
    for level, threshold in zip(per_deal.index, thresholds, strict=True):
        if 2 * threshold > 22:
            # Two such hands would need more than the 22 trumps and Excuse: disjoint events.
            assert per_deal[level] == pytest.approx(players * per_hand[level], rel=1e-12)


def test_four_player_simple_poignee_by_inclusion_exclusion() -> None:
    # Three hands of 10 would need 30 of the 22 cards, so only pairs overlap.
    threshold, hand = 10, 18
    one = sum(comb(22, c) * comb(56, hand - c) for c in range(threshold, hand + 1))
    two = sum(
        comb(hand, a) * comb(hand, b) * comb(78 - 2 * hand, 22 - a - b)
        for a in range(threshold, 23)
        for b in range(threshold, 23 - a)
    )
    expected = 4 * Fraction(one, comb(78, hand)) - 6 * Fraction(two, comb(78, 22))
    assert poignee_per_deal(4, 18, 6, (10, 13, 15))["simple"] == pytest.approx(
        float(expected), rel=1e-12
    )


def test_poignee_per_deal_needs_a_full_deal() -> None:
    with pytest.raises(TarotInputError, match="78"):
        poignee_per_deal(4, 18, 3, (10, 13, 15))


@pytest.mark.parametrize("preset", TABLES)
def test_petit_sec(preset: str) -> None:
    players, hand, _, _ = TABLES[preset]
    per_hand = petit_sec_per_hand(hand)
    assert per_hand == pytest.approx(comb(56, hand - 1) / comb(78, hand), rel=1e-12)
    assert hand_distribution("petit_sec", hand)[1] == pytest.approx(per_hand, rel=1e-12)
    assert petit_sec_per_deal(players, hand) == pytest.approx(players * per_hand, rel=1e-12)


# ---------------------------------------------------------------------------------------------
# The dog, given the hand.


@pytest.mark.parametrize("preset", TABLES)
@pytest.mark.parametrize("bouts", [0, 1, 2, 3])
def test_mean_bouts_in_the_dog(preset: str, bouts: int) -> None:
    _, hand, dog, _ = TABLES[preset]
    distribution = dog_distribution("bouts", {"bouts": bouts}, hand, dog)
    assert abs(distribution.sum() - 1.0) < 1e-12
    assert mean(distribution) == pytest.approx(dog * (3 - bouts) / (78 - hand), rel=1e-12, abs=0)


def test_dog_given_a_four_player_hand() -> None:
    mine = {
        "bouts": 2,
        "trumps": 8,
        "excuse": 1,
        "kings": 1,
        "queens": 2,
        "knights": 0,
        "jacks": 1,
    }
    unseen = 78 - 18
    assert mean(dog_distribution("trumps", mine, 18, 6)) == pytest.approx(6 * 13 / unseen)
    assert dog_distribution("excuse", mine, 18, 6).to_dict() == {0: 1.0}
    assert mean(dog_distribution("kings", mine, 18, 6)) == pytest.approx(6 * 3 / unseen)
    # Two bouts, a king, two queens, a jack and 12 small cards.
    my_points = 2 * 4.5 + 4.5 + 2 * 3.5 + 1.5 + 12 * 0.5
    points = dog_distribution("points", mine, 18, 6)
    assert abs(points.sum() - 1.0) < 1e-12
    assert mean(points) == pytest.approx(6 * (91 - my_points) / unseen, rel=1e-12)


def test_seen_counts_must_be_given_and_possible() -> None:
    with pytest.raises(TarotInputError, match="'kings'"):
        dog_distribution("points", {"bouts": 1}, 18, 6)
    with pytest.raises(TarotInputError, match="impossible"):
        dog_distribution("bouts", {"bouts": 4}, 18, 6)
    with pytest.raises(TarotInputError, match="unknown card counts"):
        dog_distribution("bouts", {"oudlers": 1}, 18, 6)
    with pytest.raises(TarotInputError, match="Petit"):
        dog_distribution("bouts", {"bouts": 1, "petit": 1, "twenty_one": 1, "excuse": 0}, 18, 6)
    with pytest.raises(TarotInputError):
        dog_distribution("bouts", {"bouts": 1}, 18, 61)


# ---------------------------------------------------------------------------------------------
# Brute force over every set of cards.


@pytest.mark.parametrize("draws", [1, 2, 3])
def test_small_hands_match_every_subset_of_the_deck(draws: int) -> None:
    thresholds = (1, 2, 3)
    hands = np.array(list(itertools.combinations(range(78), draws)))
    brute = hand_features(hands, thresholds)
    for feature in EXACT_FEATURES:
        exact = hand_distribution(feature, draws, thresholds=thresholds)
        assert_same_distribution(exact, empirical(brute[feature]))


SeenCards = Callable[[np.random.Generator], npt.NDArray[np.int64]]


def _random_seen(rng: np.random.Generator) -> npt.NDArray[np.int64]:
    return rng.choice(78, size=70, replace=False)


def _seen_leaving_petit_and_excuse(rng: np.random.Generator) -> npt.NDArray[np.int64]:
    # Unseen: the Petit, the Excuse, two other trumps and four suit cards.
    unseen = np.array([0, 21, 5, 12, 22, 30, 44, 70])
    return np.setdiff1d(np.arange(78), unseen)


@pytest.mark.parametrize("seen_cards", [_random_seen, _seen_leaving_petit_and_excuse])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_draws_from_unseen_cards_match_every_subset(seen_cards: SeenCards, seed: int) -> None:
    rng = np.random.default_rng(seed)
    seen = seen_cards(rng)
    unseen = np.setdiff1d(np.arange(78), seen)
    draws = int(rng.integers(1, len(unseen) + 1))
    thresholds = (1, 2, 4)
    hands = np.array(list(itertools.combinations(unseen, draws)))
    brute = hand_features(hands, thresholds)
    counts = seen_counts_of(seen)
    for feature in EXACT_FEATURES:
        exact = conditional_hand_distribution(
            feature, counts, len(seen), draws, thresholds=thresholds
        )
        assert_same_distribution(exact, empirical(brute[feature]))
