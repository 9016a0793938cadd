"""Hand features: the compiled popcounts agree with a plain count of each hand's cards."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tarot_analysis.deals.deal import deal, deal_features
from tarot_analysis.deals.features import (
    FEATURES,
    feature_index,
    features_frame,
    hand_features,
    hand_features_of,
)
from tarot_analysis.game import cards
from tarot_analysis.game.rules import Rules, load_rules
from tests.conftest import PRESETS

DEALS = 3_000
HANDS_CHECKED = 300  # per preset: hands and dogs drawn at random from the deals


def plain_features(card_ids: Iterable[int], rules: Rules) -> dict[str, int]:
    """Every feature of a set of cards, counted one card at a time from the lookup tables."""
    ids = sorted(int(card) for card in card_ids)
    suit_cards = [card for card in ids if int(cards.SUIT[card]) < cards.N_SUITS]
    lengths = [sum(1 for card in suit_cards if cards.SUIT[card] == suit) for suit in range(4)]

    def held(rank: int) -> int:
        return sum(1 for card in suit_cards if cards.RANK[card] == rank)

    trumps = sum(1 for card in ids if cards.IS_TRUMP[card])
    excuse = int(cards.EXCUSE in ids)
    petit = int(cards.PETIT in ids)
    points = rules.card_points
    worth = {
        cards.KING: points.king,
        cards.QUEEN: points.queen,
        cards.KNIGHT: points.knight,
        cards.JACK: points.jack,
    }
    total = 0.0
    for card in ids:
        if cards.IS_BOUT[card]:
            total += points.bout
        elif card in suit_cards:
            total += worth.get(int(cards.RANK[card]), points.other)
        else:
            total += points.other
    with_excuse = trumps + excuse
    return {
        "trumps": trumps,
        "excuse": excuse,
        "petit": petit,
        "twenty_one": int(cards.TWENTY_ONE in ids),
        "bouts": sum(1 for card in ids if cards.IS_BOUT[card]),
        "kings": held(cards.KING),
        "queens": held(cards.QUEEN),
        "knights": held(cards.KNIGHT),
        "jacks": held(cards.JACK),
        "spades": lengths[0],
        "hearts": lengths[1],
        "diamonds": lengths[2],
        "clubs": lengths[3],
        "voids": lengths.count(0),
        "singletons": lengths.count(1),
        "longest_suit": max(lengths),
        "half_points": round(2 * total),
        "poignee": sum(with_excuse >= threshold for threshold in rules.poignee.thresholds),
        "petit_sec": int(trumps == 1 and petit == 1 and not excuse),
    }


def as_dict(row: np.ndarray) -> dict[str, int]:
    return {name: int(value) for name, value in zip(FEATURES, row, strict=True)}


def test_compiled_features_match_a_plain_count_of_each_hand(preset: Rules) -> None:
    deals = deal(preset, DEALS, seed=17)
    features = deals.features()
    groups = preset.players + 1
    assert features.shape == (DEALS, groups, len(FEATURES))
    rng = np.random.default_rng(23)
    picks = zip(
        rng.integers(0, DEALS, HANDS_CHECKED), rng.integers(0, groups, HANDS_CHECKED), strict=True
    )
    for d, seat in picks:
        hand = deals.hand(int(d), int(seat))
        expected = plain_features(hand.cards, preset)
        assert as_dict(features[d, seat]) == expected, (preset.name, int(d), int(seat), str(hand))


def test_features_counted_while_dealing_match_those_of_the_masks(preset: Rules) -> None:
    """The dealer's own count (in its registers) agrees with the count of the dealt masks.

    An odd chunk size leaves blocks the dealer only partly hands out, counted another way.
    """
    masks = deal(preset, DEALS, seed=19, chunk_size=997).masks
    counted = deal_features(preset, DEALS, seed=19, chunk_size=997)
    assert np.array_equal(counted, hand_features(masks, preset))


def test_the_seats_share_the_pack(preset: Rules) -> None:
    """Summed over the hands and the dog, every deal holds the whole pack."""
    features = deal(preset, DEALS, seed=29).features().astype(np.int64)
    whole = plain_features(range(cards.N_CARDS), preset)
    for name in ("trumps", "excuse", "bouts", "kings", "queens", "spades", "half_points"):
        assert np.all(features[..., feature_index(name)].sum(axis=1) == whole[name]), name
    assert whole["half_points"] == round(2 * preset.card_points.total)


def test_tarocco_counts_its_own_card_points() -> None:
    tarocco, french = load_rules("tarocco"), load_rules("fft-4")
    knight_and_jack = cards.Hand("CH JH")
    assert hand_features_of(knight_and_jack, french)["points"] == 4.0
    assert hand_features_of(knight_and_jack, tarocco)["points"] == 2.0


def test_features_frame_has_one_row_per_hand_and_dog() -> None:
    rules = load_rules("fft-5")
    features = deal(rules, 50, seed=3).features()
    frame = features_frame(features, rules, first_deal=100)
    groups = rules.players + 1
    named = [name for name in FEATURES if name != "half_points"]
    assert list(frame.columns) == ["deal", "seat", "is_dog", *named, "points", "trumps_with_excuse"]
    assert len(frame) == 50 * groups
    assert frame["deal"].tolist() == [100 + d for d in range(50) for _ in range(groups)]
    assert frame["seat"].tolist() == list(range(groups)) * 50
    assert frame["is_dog"].tolist() == [seat == rules.players for seat in frame["seat"]]
    flat = features.reshape(-1, len(FEATURES))
    half_points = flat[:, feature_index("half_points")]
    np.testing.assert_array_equal(frame["points"].to_numpy(), half_points / 2)
    for name in named:
        np.testing.assert_array_equal(frame[name].to_numpy(), flat[:, feature_index(name)])
    np.testing.assert_array_equal(
        frame["trumps_with_excuse"].to_numpy(), frame["trumps"] + frame["excuse"]
    )


def test_the_example_hand() -> None:
    """The hand of the notation's example: three bouts, five trumps, no poignée."""
    hand = cards.Hand.parse("21 19 12 6 1 E KH CH 10H 8H 1H JD 8D QC CC 7C 6S 4S", size=18)
    row = hand_features_of(hand, load_rules("fft-4"))
    assert row["bouts"] == 3
    assert row["trumps"] == 5
    assert row["excuse"] == 1
    assert row["points"] == 33.0
    assert row["poignee"] == 0
    assert row["petit_sec"] == 0
    assert (row["spades"], row["hearts"], row["diamonds"], row["clubs"]) == hand.suit_lengths
    assert "half_points" not in row


@pytest.mark.parametrize(
    ("text", "poignee", "petit_sec"),
    [
        ("1 KH QH CH JH 10H 9H 8H 7H 6H 5H 4H 3H 2H 1H KS QS CS", 0, 1),
        ("1 E KH QH CH JH 10H 9H 8H 7H 6H 5H 4H 3H 2H 1H KS QS", 0, 0),
        ("21 20 19 18 17 16 15 14 13 E KH QH CH JH 10H 9H 8H 7H", 1, 0),
        ("21 20 19 18 17 16 15 14 13 12 11 10 E KH QH CH JH 10H", 2, 0),
        ("21 20 19 18 17 16 15 14 13 12 11 10 9 8 E KH QH CH", 3, 0),
    ],
)
def test_poignee_counts_the_excuse_and_petit_sec_needs_it_absent(
    text: str, poignee: int, petit_sec: int
) -> None:
    row = hand_features_of(cards.Hand.parse(text, size=18), load_rules("fft-4"))
    assert (row["poignee"], row["petit_sec"]) == (poignee, petit_sec)


@settings(max_examples=300, deadline=None)
@given(
    subset=st.sets(st.integers(0, cards.N_CARDS - 1), max_size=cards.N_CARDS),
    name=st.sampled_from(PRESETS),
)
@example(subset=set(), name="fft-4")
@example(subset=set(range(cards.N_CARDS)), name="tarocco")
def test_features_of_any_set_of_cards_match_a_plain_count(subset: set[int], name: str) -> None:
    rules = load_rules(name)
    lo, hi = cards.to_mask(subset)
    row = hand_features(np.array([lo, hi], dtype=np.uint64), rules)
    assert as_dict(row) == plain_features(subset, rules)
