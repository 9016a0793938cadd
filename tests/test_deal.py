"""The dealer: every deal is a partition of the pack, uniformly drawn, reproducibly."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from numba import njit

from tarot_analysis.deals import exact
from tarot_analysis.deals.deal import (
    DealStream,
    deal,
    deal_chunk,
    deal_chunk_features,
    deal_features,
    make_plan,
)
from tarot_analysis.deals.features import FEATURES, hand_features
from tarot_analysis.deals.hand_stats import HandCounts, HandStats, run_hands
from tarot_analysis.errors import TarotInputError
from tarot_analysis.game import cards
from tarot_analysis.game.rules import Rules, load_rules
from tarot_analysis.runs.simulate import run_metadata
from tests.conftest import card_group_p_value

ALL_LO = np.uint64((1 << 56) - 1)
ALL_HI = np.uint64((1 << 22) - 1)
SIGNIFICANCE = 1e-4  # what a correct dealer must pass and a biased one must fail


def popcounts(x: np.ndarray) -> np.ndarray:
    return np.bitwise_count(x).astype(np.int64)


def test_every_deal_is_a_partition_of_the_pack(preset: Rules) -> None:
    deals = deal(preset, 5_000, seed=3)
    masks = deals.masks
    lo, hi = masks[..., 0], masks[..., 1]
    assert np.all(np.bitwise_or.reduce(lo, axis=1) == ALL_LO)
    assert np.all(np.bitwise_or.reduce(hi, axis=1) == ALL_HI)
    sizes = popcounts(lo) + popcounts(hi)
    expected = [preset.hand_size] * preset.players + [preset.dog_size]
    assert np.all(sizes == np.array(expected))  # disjoint: sizes add up to 78 exactly


def test_every_card_reaches_every_group_in_proportion(preset: Rules) -> None:
    plan = make_plan(preset)
    masks = deal(preset, 40_000, seed=11).masks
    assert card_group_p_value(masks, plan.sizes) > SIGNIFICANCE


def test_same_seed_same_deals_on_one_or_two_threads() -> None:
    rules = load_rules("fft-4")
    one = deal(rules, 300_000, seed=42, chunk_size=10_000, threads=1)
    two = deal(rules, 300_000, seed=42, chunk_size=10_000, threads=2)
    assert one.masks.tobytes() == two.masks.tobytes()
    features_one = deal_features(rules, 300_000, seed=42, chunk_size=10_000, threads=1)
    features_two = deal_features(rules, 300_000, seed=42, chunk_size=10_000, threads=2)
    assert features_one.tobytes() == features_two.tobytes()
    assert features_one.tobytes() == hand_features(one.masks, rules).tobytes()


FOUR_PLAYER_HAND = "21 19 12 6 1 E KH CH 10H 8H 1H JD 8D QC CC 7C 6S 4S"


@pytest.mark.parametrize(
    "request_",
    [{}, {"hand": FOUR_PLAYER_HAND, "seat": 2}, {"where": {"bouts": 2}, "seat": 1}],
    ids=["whole pack", "fixed hand", "constraint"],
)
def test_a_chunk_dealt_in_pieces_gives_the_deals_of_one_call(request_: dict[str, Any]) -> None:
    """Pieces of any size, as masks or as features, continue one another exactly.

    The dealer deals sixteen deals at a time: pieces that end inside such a block leave the
    rest of it waiting for the next piece.
    """
    rules = load_rules("fft-4")
    plan = make_plan(rules, **request_)
    root = np.random.SeedSequence(5)
    whole, rejected = deal_chunk(plan, DealStream.open(plan, root, 3), 1_000)
    stream = DealStream.open(plan, root, 3)
    pieces, rejected_in_pieces, left = [], 0, 1_000
    rng = np.random.default_rng(0)
    while left:
        size = int(min(left, rng.integers(0, 40)))
        if rng.random() < 0.5:
            masks, dropped = deal_chunk(plan, stream, size)
            pieces.append(hand_features(masks, rules))
        else:
            features, dropped = deal_chunk_features(plan, stream, size)
            pieces.append(features)
        rejected_in_pieces += dropped
        left -= size
    assert np.array_equal(np.concatenate(pieces), hand_features(whole, rules))
    assert rejected_in_pieces == rejected


def test_different_seeds_give_different_deals() -> None:
    rules = load_rules("fft-4")
    assert not np.array_equal(deal(rules, 100, seed=1).masks, deal(rules, 100, seed=2).masks)


def test_a_fixed_hand_stays_and_the_rest_is_dealt_around_it() -> None:
    rules = load_rules("fft-4")
    hand = cards.Hand.parse(FOUR_PLAYER_HAND)
    deals = deal(rules, 30_000, seed=5, hand=hand, seat=2)
    lo, hi = hand.mask
    assert np.all(deals.masks[:, 2, 0] == lo) and np.all(deals.masks[:, 2, 1] == hi)
    others = np.delete(deals.masks, 2, axis=1)
    assert not np.any(others[..., 0] & np.uint64(lo)) and not np.any(others[..., 1] & np.uint64(hi))
    # The dog is a uniform draw from the 60 unseen cards: it holds no bout, and its kings
    # follow the exact conditional law (3 kings unseen).
    features = deals.features()
    assert features[:, rules.players, FEATURES.index("bouts")].max() == 0
    seen = {"kings": 1, "bouts": 3, "trumps": 5, "excuse": 1}
    law = exact.dog_distribution("kings", seen, rules.hand_size, rules.dog_size)
    observed = np.bincount(features[:, rules.players, FEATURES.index("kings")], minlength=len(law))
    from tarot_analysis.stats import chi_square_gof

    assert chi_square_gof(observed[: len(law)], law.to_numpy()).p_value > SIGNIFICANCE


def test_a_constraint_keeps_only_matching_deals_with_the_right_conditional_law() -> None:
    rules = load_rules("fft-4")
    deals = deal(rules, 20_000, seed=9, where={"bouts": 3}, seat=1)
    features = deals.features()
    assert np.all(features[:, 1, FEATURES.index("bouts")] == 3)
    assert deals.rejected > 0
    # Given the three bouts, the other 15 cards come from the 75 others, 19 of them trumps.
    from scipy import stats as scipy_stats

    from tarot_analysis.stats import chi_square_gof

    trumps = features[:, 1, FEATURES.index("trumps")] - 2  # the Petit and the 21 are trumps
    law = scipy_stats.hypergeom(75, 19, 15).pmf(np.arange(16))
    assert chi_square_gof(np.bincount(trumps, minlength=16), law).p_value > SIGNIFICANCE


def test_impossible_or_wrong_requests_are_refused_clearly() -> None:
    rules = load_rules("fft-4")
    with pytest.raises(TarotInputError, match="unknown feature 'bout'"):
        deal(rules, 10, seed=1, where={"bout": 2})
    with pytest.raises(TarotInputError, match="accepts nothing"):
        deal(rules, 10, seed=1, where={"trumps": (9, 3)})
    with pytest.raises(TarotInputError, match="hand of 18 cards was expected"):
        deal(rules, 10, seed=1, hand="21 20 19")
    with pytest.raises(TarotInputError, match="seat must be between 0 and 3"):
        deal(rules, 10, seed=1, seat=4, where={"bouts": 1})
    with pytest.raises(TarotInputError, match="seed must be a non-negative integer"):
        deal(rules, 10, seed=-1)


def test_hand_statistics_agree_with_exact_values(preset: Rules) -> None:
    stats = run_hands(preset, 200_000, seed=2024, chunk_size=50_000)
    assert_agrees_with_exact(stats)


def assert_agrees_with_exact(stats: HandStats) -> None:
    """Every table's goodness of fit and every rate's distance to its exact value."""
    tables = stats.tables()
    for name, table in tables.items():
        gof = table.attrs.get("gof")
        if gof is not None:
            assert gof.p_value > SIGNIFICANCE, (name, gof)
    for name in ("poignee", "petit_sec"):
        table = tables[name]
        # |simulated − exact| within 4.5 standard errors of the exact rate
        se = np.sqrt(table["exact"] * (1 - table["exact"]) / table["n"])
        assert np.all(np.abs(table["simulated"] - table["exact"]) <= 4.5 * se + 1e-12), table


# --- A deliberately biased dealer must fail the same checks -------------------------------


@njit(cache=True)
def _naive_shuffle_deals(n: int, sizes: Any, seed: int) -> Any:
    """The classic mistake: swap each position with *any* position (not one at or after it)."""
    np.random.seed(seed)
    groups = sizes.shape[0]
    out = np.zeros((n, groups, 2), dtype=np.uint64)
    for d in range(n):
        a = np.arange(78)
        for i in range(78):
            j = np.random.randint(0, 78)
            a[i], a[j] = a[j], a[i]
        position = 0
        for g in range(groups):
            for _ in range(sizes[g]):
                card = a[position]
                if card < 56:
                    out[d, g, 0] |= np.uint64(1) << np.uint64(card)
                else:
                    out[d, g, 1] |= np.uint64(1) << np.uint64(card - 56)
                position += 1
    return out


def _stats_of(masks: np.ndarray, rules: Rules) -> HandStats:
    counts = HandCounts(masks.shape[1])
    counts.add_features(hand_features(masks, rules), rules.players)
    seed = np.random.SeedSequence(0)
    return HandStats(rules, counts, seed, masks.shape[0], run_metadata(rules, seed, 1, 0))


@pytest.mark.slow
def test_a_biased_dealer_fails_the_uniformity_checks() -> None:
    rules = load_rules("fft-4")
    plan = make_plan(rules)
    biased = _naive_shuffle_deals(200_000, np.array(plan.sizes), 7)
    assert card_group_p_value(biased[:40_000], plan.sizes) < SIGNIFICANCE
    with pytest.raises(AssertionError):
        assert_agrees_with_exact(_stats_of(biased, rules))


def test_a_dealer_leaking_the_excuse_to_the_dog_fails() -> None:
    """A subtle bias: 2% of the time the Excuse of seat 0 is swapped into the dog."""
    rules = load_rules("fft-4")
    masks = deal(rules, 200_000, seed=2024, chunk_size=50_000).masks.copy()
    rng = np.random.default_rng(0)
    excuse = np.uint64(cards.EXCUSE_BIT_HI)
    dog = rules.players
    leak = ((masks[:, 0, 1] & excuse) != 0) & (rng.random(len(masks)) < 0.02)
    for d in np.flatnonzero(leak):
        # swap the Excuse with the dog's lowest suit card, if any
        dog_lo = int(masks[d, dog, 0])
        if dog_lo == 0:
            continue
        low = dog_lo & -dog_lo
        masks[d, 0, 1] ^= excuse
        masks[d, dog, 1] ^= excuse
        masks[d, 0, 0] ^= np.uint64(low)
        masks[d, dog, 0] ^= np.uint64(low)
    with pytest.raises(AssertionError):
        assert_agrees_with_exact(_stats_of(masks, rules))
    assert_agrees_with_exact(run_hands(rules, 200_000, seed=2024, chunk_size=50_000))
