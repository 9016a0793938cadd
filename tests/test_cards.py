"""Cards: ids, lookup tables, bitmasks, notation and the Hand."""

from __future__ import annotations

import pickle
import random
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tarot_analysis.errors import CardError, TarotInputError
from tarot_analysis.game import cards
from tarot_analysis.game.cards import (
    ACE,
    ACE_OF_HEARTS,
    ACE_OF_SPADES,
    BOUTS_MASK_HI,
    CLUBS,
    DIAMONDS,
    EXCUSE,
    EXCUSE_BIT_HI,
    EXCUSE_SUIT,
    HALF_POINTS,
    HEARTS,
    IS_BOUT,
    IS_EXCUSE,
    IS_FACE_CARD,
    IS_JACK,
    IS_KING,
    IS_KNIGHT,
    IS_QUEEN,
    IS_SUIT_CARD,
    IS_TRUMP,
    JACK,
    JACK_OF_DIAMONDS,
    JACKS_MASK,
    KING,
    KING_OF_CLUBS,
    KING_OF_HEARTS,
    KINGS_MASK,
    KNIGHT,
    KNIGHT_OF_CLUBS,
    KNIGHTS_MASK,
    MASK_BIT,
    MASK_WORD,
    N_CARDS,
    PETIT,
    POINTS,
    QUEEN,
    QUEEN_OF_SPADES,
    QUEENS_MASK,
    RANK,
    SPADES,
    SUIT,
    SUIT_MASKS,
    TEN_OF_HEARTS,
    TOTAL_POINTS,
    TRUMP_SUIT,
    TRUMPS_MASK_HI,
    TWENTY_ONE,
    TWO_OF_CLUBS,
    Hand,
    card_long_name,
    card_name,
    display_sorted,
    format_cards,
    from_mask,
    ids_to_masks,
    masks_to_ids,
    masks_to_membership,
    parse_card,
    parse_cards,
    suit_card,
    to_mask,
    trump,
)

# A 4-player hand (18 cards) with all three bouts.
EXAMPLE = "21 19 12 6 1 E KH CH 10H 8H 1H JD 8D QC CC 7C 6S 4S"

card_sets = st.sets(st.integers(min_value=0, max_value=N_CARDS - 1))


# --- ids and constants -----------------------------------------------------------------------


def test_fixed_ids() -> None:
    assert N_CARDS == 78
    assert (SPADES, HEARTS, DIAMONDS, CLUBS, TRUMP_SUIT, EXCUSE_SUIT) == (0, 1, 2, 3, 4, 5)
    assert (ACE, JACK, KNIGHT, QUEEN, KING) == (0, 10, 11, 12, 13)
    assert (EXCUSE, PETIT, TWENTY_ONE) == (56, 57, 77)
    assert ACE_OF_SPADES == 0
    assert KING_OF_HEARTS == 1 * 14 + 13 == 27
    assert QUEEN_OF_SPADES == 12
    assert KNIGHT_OF_CLUBS == 3 * 14 + 11 == 53
    assert JACK_OF_DIAMONDS == 2 * 14 + 10 == 38
    assert TEN_OF_HEARTS == 14 + 9
    assert KING_OF_CLUBS == 55


def test_every_suit_card_has_a_named_constant() -> None:
    ranks = ["ACE", "TWO", "THREE", "FOUR", "FIVE", "SIX", "SEVEN", "EIGHT", "NINE", "TEN"]
    ranks += ["JACK", "KNIGHT", "QUEEN", "KING"]
    suits = ["SPADES", "HEARTS", "DIAMONDS", "CLUBS"]
    for s, suit_name in enumerate(suits):
        for r, rank_name in enumerate(ranks):
            assert getattr(cards, f"{rank_name}_OF_{suit_name}") == s * 14 + r == suit_card(s, r)


def test_trump_and_suit_card() -> None:
    assert [trump(n) for n in (1, 2, 21)] == [PETIT, 58, TWENTY_ONE]
    assert suit_card(HEARTS, KING) == KING_OF_HEARTS
    for bad in (0, 22, -1):
        with pytest.raises(CardError, match=f"no trump {bad}"):
            trump(bad)
    with pytest.raises(CardError, match="no suit 4"):
        suit_card(4, 0)
    with pytest.raises(CardError, match="no rank index 14"):
        suit_card(0, 14)


# --- lookup tables ---------------------------------------------------------------------------


def test_points_total_91_and_half_points() -> None:
    assert POINTS.dtype == np.float64
    assert POINTS.sum() == TOTAL_POINTS == 91
    assert HALF_POINTS.dtype == np.uint8
    assert HALF_POINTS.astype(int).sum() == 182
    np.testing.assert_array_equal(HALF_POINTS, POINTS * 2)


def test_points_by_card() -> None:
    assert POINTS[EXCUSE] == POINTS[PETIT] == POINTS[TWENTY_ONE] == 4.5
    assert POINTS[KING_OF_HEARTS] == 4.5
    assert POINTS[QUEEN_OF_SPADES] == 3.5
    assert POINTS[KNIGHT_OF_CLUBS] == 2.5
    assert POINTS[JACK_OF_DIAMONDS] == 1.5
    assert POINTS[TEN_OF_HEARTS] == POINTS[ACE_OF_SPADES] == POINTS[trump(20)] == 0.5
    assert sorted(np.unique(POINTS).tolist()) == [0.5, 1.5, 2.5, 3.5, 4.5]
    # 7 cards at 4.5 (3 bouts, 4 kings), 4 each at 3.5 / 2.5 / 1.5, the other 59 at 0.5
    assert [np.count_nonzero(np.equal(POINTS, p)) for p in (4.5, 3.5, 2.5, 1.5, 0.5)] == [
        7,
        4,
        4,
        4,
        59,
    ]


def test_counts() -> None:
    assert IS_BOUT.sum() == 3
    assert set(np.flatnonzero(IS_BOUT).tolist()) == {EXCUSE, PETIT, TWENTY_ONE}
    assert IS_TRUMP.sum() == 21
    assert not IS_TRUMP[EXCUSE]
    assert IS_EXCUSE.sum() == 1 and IS_EXCUSE[EXCUSE]
    assert IS_SUIT_CARD.sum() == 56
    for table in (IS_KING, IS_QUEEN, IS_KNIGHT, IS_JACK):
        assert table.sum() == 4
        assert (SUIT[table] == np.arange(4)).all()
    assert IS_FACE_CARD.sum() == 16
    np.testing.assert_array_equal(IS_FACE_CARD, IS_KING | IS_QUEEN | IS_KNIGHT | IS_JACK)
    assert (IS_SUIT_CARD ^ IS_TRUMP ^ IS_EXCUSE).all()


def test_suit_and_rank() -> None:
    for s in range(4):
        in_suit = np.equal(SUIT, s)
        assert in_suit.sum() == 14
        np.testing.assert_array_equal(RANK[in_suit], np.arange(14))
    assert (SUIT == TRUMP_SUIT).sum() == 21
    np.testing.assert_array_equal(RANK[SUIT == TRUMP_SUIT], np.arange(1, 22))
    assert SUIT[EXCUSE] == EXCUSE_SUIT and RANK[EXCUSE] == 0
    assert RANK[KING_OF_HEARTS] == KING and SUIT[KING_OF_HEARTS] == HEARTS


def test_tables_are_read_only() -> None:
    for table in (POINTS, HALF_POINTS, SUIT, RANK, IS_BOUT, IS_TRUMP, IS_KING, MASK_BIT):
        assert table.shape == (N_CARDS,)
        assert not table.flags.writeable
        with pytest.raises(ValueError):
            table[0] = 1


# --- bitmasks --------------------------------------------------------------------------------


def test_mask_constants() -> None:
    assert len(SUIT_MASKS) == 4
    assert [m.bit_count() for m in SUIT_MASKS] == [14] * 4
    assert sum(SUIT_MASKS) == (1 << 56) - 1
    assert SUIT_MASKS[HEARTS] == 0x3FFF << 14
    assert from_mask(KINGS_MASK, 0) == [13, 27, 41, 55]
    assert from_mask(QUEENS_MASK, 0) == [12, 26, 40, 54]
    assert from_mask(KNIGHTS_MASK, 0) == [11, 25, 39, 53]
    assert from_mask(JACKS_MASK, 0) == [10, 24, 38, 52]
    assert TRUMPS_MASK_HI.bit_count() == 21 and not TRUMPS_MASK_HI & 1
    assert EXCUSE_BIT_HI == 1
    assert from_mask(0, TRUMPS_MASK_HI) == list(range(57, 78))
    assert from_mask(0, BOUTS_MASK_HI) == [EXCUSE, PETIT, TWENTY_ONE]
    # every lo mask fits a signed 64-bit word too, so compiled code may use either
    assert max(SUIT_MASKS) < 1 << 63


def test_mask_layout() -> None:
    assert to_mask([ACE_OF_SPADES]) == (1, 0)
    assert to_mask([KING_OF_CLUBS]) == (1 << 55, 0)
    assert to_mask([EXCUSE]) == (0, 1)
    assert to_mask([PETIT]) == (0, 2)
    assert to_mask([TWENTY_ONE]) == (0, 1 << 21)
    assert to_mask([]) == (0, 0)
    assert to_mask([PETIT, PETIT]) == (0, 2)
    for card in range(N_CARDS):
        lo, hi = to_mask([card])
        assert (lo, hi)[MASK_WORD[card]] == 1 << int(MASK_BIT[card])


@given(card_sets)
def test_mask_round_trip(held: set[int]) -> None:
    lo, hi = to_mask(held)
    assert 0 <= lo < 1 << 56 and 0 <= hi < 1 << 22
    assert from_mask(lo, hi) == sorted(held)
    assert (lo & KINGS_MASK).bit_count() == sum(IS_KING[c] for c in held)


def test_mask_errors() -> None:
    with pytest.raises(CardError, match="no card id 78"):
        to_mask([78])
    with pytest.raises(CardError, match="no card id -1"):
        to_mask([-1])
    with pytest.raises(CardError, match="card id is an int"):
        to_mask(["KH"])  # type: ignore[list-item]
    with pytest.raises(CardError, match="lo mask"):
        from_mask(1 << 56, 0)
    with pytest.raises(CardError, match="hi mask"):
        from_mask(0, 1 << 22)


def test_vectorised_masks() -> None:
    hands = np.array([[KING_OF_HEARTS, PETIT, EXCUSE], [TWENTY_ONE, ACE_OF_SPADES, TWO_OF_CLUBS]])
    lo, hi = ids_to_masks(hands)
    assert lo.dtype == hi.dtype == np.uint64 and lo.shape == (2,)
    for row, a, b in zip(hands, lo, hi, strict=True):
        assert (int(a), int(b)) == to_mask(row.tolist())
    np.testing.assert_array_equal(masks_to_ids(lo, hi), np.sort(hands, axis=1))
    held = masks_to_membership(lo, hi)
    assert held.shape == (2, N_CARDS) and held.sum() == 6
    assert held[0, KING_OF_HEARTS] and held[1, TWENTY_ONE] and not held[0, TWENTY_ONE]


@given(st.lists(card_sets.filter(lambda s: len(s) == 5), min_size=1, max_size=5))
def test_vectorised_round_trip(sets: list[set[int]]) -> None:
    ids = np.array([sorted(s) for s in sets])
    lo, hi = ids_to_masks(ids)
    assert [from_mask(int(a), int(b)) for a, b in zip(lo, hi, strict=True)] == ids.tolist()
    np.testing.assert_array_equal(masks_to_ids(lo, hi), ids)


def test_vectorised_full_deck_and_errors() -> None:
    lo, hi = ids_to_masks(np.arange(N_CARDS))
    assert int(lo) == (1 << 56) - 1 and int(hi) == (1 << 22) - 1
    np.testing.assert_array_equal(masks_to_ids(lo, hi), np.arange(N_CARDS))
    with pytest.raises(CardError, match="equal size"):
        masks_to_ids(np.array([1, 3], dtype=np.uint64), np.array([0, 0], dtype=np.uint64))
    with pytest.raises(CardError, match=re.escape("0..77")):
        ids_to_masks([[0, 78]])


# --- notation --------------------------------------------------------------------------------


def test_card_names() -> None:
    assert card_name(KING_OF_HEARTS) == "KH"
    assert card_name(KNIGHT_OF_CLUBS) == "CC"
    assert card_name(TEN_OF_HEARTS) == "10H"
    assert card_name(ACE_OF_HEARTS) == "1H"
    assert card_name(EXCUSE) == "E"
    assert card_name(PETIT) == "1"
    assert card_name(TWENTY_ONE) == "21"
    assert card_long_name(KING_OF_HEARTS) == "King of Hearts"
    assert card_long_name(KNIGHT_OF_CLUBS) == "Knight of Clubs"
    assert card_long_name(ACE_OF_SPADES) == "Ace of Spades"
    assert card_long_name(TEN_OF_HEARTS) == "10 of Hearts"
    assert card_long_name(TWENTY_ONE) == "Trump 21"
    assert card_long_name(PETIT) == "Trump 1"
    assert card_long_name(EXCUSE) == "Excuse"
    assert len({card_name(c) for c in range(N_CARDS)}) == N_CARDS
    assert len({card_long_name(c) for c in range(N_CARDS)}) == N_CARDS


def test_parse_card_every_name_round_trips() -> None:
    for card in range(N_CARDS):
        assert parse_card(card_name(card)) == card
        assert parse_card(card_name(card).lower()) == card


def test_ambiguous_tokens() -> None:
    assert parse_card("1") == PETIT
    assert parse_card("1H") == ACE_OF_HEARTS
    assert parse_card("CC") == KNIGHT_OF_CLUBS
    for token in ("C", "0", "22", "01", "11H", "AH", "K", "H", "EE", ""):
        with pytest.raises(CardError, match=re.escape(f"unknown card {token!r}")):
            parse_card(token)


def test_format_canonical_order() -> None:
    hand = parse_cards(EXAMPLE)
    assert format_cards(hand) == "21 19 12 6 1 E 6S 4S KH CH 10H 8H 1H JD 8D QC CC 7C"
    assert format_cards([]) == ""
    assert format_cards(range(N_CARDS)).split()[:3] == ["21", "20", "19"]
    assert format_cards(range(N_CARDS)).split()[20:24] == ["1", "E", "KS", "QS"]
    assert format_cards(range(N_CARDS)).split()[-1] == "1C"
    assert display_sorted([ACE_OF_SPADES, KING_OF_HEARTS]) == [ACE_OF_SPADES, KING_OF_HEARTS]


@given(card_sets)
def test_notation_round_trip(held: set[int]) -> None:
    text = format_cards(held)
    assert set(parse_cards(text)) == held
    assert len(parse_cards(text)) == len(held)
    assert set(parse_cards(text.lower())) == held
    assert format_cards(parse_cards(text)) == text


@given(card_sets, st.randoms(use_true_random=False), st.data())
def test_parse_keeps_written_order_and_any_separators(
    held: set[int], rnd: random.Random, data: st.DataObject
) -> None:
    order = sorted(held)
    rnd.shuffle(order)
    separators = st.sampled_from([" ", ",", ";", ", ", " ; ", "\t", "\n", "  ,; "])
    pieces: list[str] = []
    for card in order:
        pieces.append(data.draw(separators))
        pieces.append(card_name(card).lower() if data.draw(st.booleans()) else card_name(card))
    pieces.append(data.draw(separators))
    assert parse_cards("".join(pieces)) == tuple(order)


def test_parse_lower_case_and_separators() -> None:
    expected = (TWENTY_ONE, PETIT, EXCUSE, KING_OF_HEARTS, KNIGHT_OF_CLUBS, TEN_OF_HEARTS)
    assert parse_cards("21 1 E KH CC 10H") == expected
    assert parse_cards("21,1;e kh  cc,\t10h") == expected
    assert parse_cards("  21 ,, 1 ;; E\nKh cC 10H ; ") == expected
    assert parse_cards("") == ()
    assert parse_cards(" ,; ") == ()


def test_parse_example_hand() -> None:
    hand = parse_cards(EXAMPLE, size=18)
    assert len(hand) == 18
    assert sum(IS_BOUT[c] for c in hand) == 3
    assert {TWENTY_ONE, PETIT, EXCUSE} <= set(hand)
    assert hand[:6] == (TWENTY_ONE, trump(19), trump(12), trump(6), PETIT, EXCUSE)


def test_error_unknown_token_named_with_position() -> None:
    with pytest.raises(CardError, match=re.escape("unknown card 'ZH' (token 3)")):
        parse_cards("KH QH ZH 21")
    with pytest.raises(CardError, match=re.escape("unknown card 'C' (token 2)")):
        parse_cards("CC, C, 1")
    with pytest.raises(CardError, match=re.escape("unknown card '22' (token 1)")):
        parse_cards("22 21")
    with pytest.raises(CardError, match=re.escape("unknown card 'zh' (token 1)")):
        parse_cards("zh")


def test_error_duplicate_named() -> None:
    with pytest.raises(CardError, match=re.escape("card 'KH' appears twice (tokens 1 and 3)")):
        parse_cards("KH 21 kh")
    with pytest.raises(CardError, match=re.escape("card '1' appears twice")):
        parse_cards("1, 1H, 1")
    with pytest.raises(CardError, match=re.escape("card 'KH' appears twice")):
        Hand([KING_OF_HEARTS, PETIT, KING_OF_HEARTS])


def test_error_wrong_size_counted() -> None:
    seventeen = EXAMPLE.rsplit(" ", 1)[0]
    with pytest.raises(CardError, match=re.escape("a hand of 18 cards was expected, got 17")):
        parse_cards(seventeen, size=18)
    with pytest.raises(CardError, match=re.escape("a hand of 1 card was expected, got 0")):
        parse_cards("", size=1)
    with pytest.raises(CardError, match=re.escape("a hand of 18 cards was expected, got 17")):
        Hand.parse(seventeen, size=18)


def test_card_error_is_a_user_input_error() -> None:
    with pytest.raises(TarotInputError):
        parse_card("ZZ")
    with pytest.raises(ValueError):
        parse_cards("ZZ")


# --- Hand ------------------------------------------------------------------------------------


def test_hand_example() -> None:
    hand = Hand.parse(EXAMPLE, size=18)
    assert len(hand) == 18
    assert hand.bouts == 3
    assert hand.trumps == 5
    assert hand.has_excuse and hand.has_petit
    assert hand.suit_lengths == (2, 5, 2, 3)
    # bouts 13.5, trumps 19 12 6 1.5; KH CH 10H 8H 1H 8.5; JD 8D 2; QC CC 7C 6.5; 6S 4S 1
    assert hand.points == 33.0 and hand.half_points == 66
    assert hand.cards == tuple(sorted(hand.cards))
    assert list(hand) == list(hand.cards)
    assert str(hand) == "21 19 12 6 1 E 6S 4S KH CH 10H 8H 1H JD 8D QC CC 7C"
    assert repr(hand) == "Hand('21 19 12 6 1 E 6S 4S KH CH 10H 8H 1H JD 8D QC CC 7C')"


def test_hand_contains() -> None:
    hand = Hand.parse("21 E KH CC")
    assert KING_OF_HEARTS in hand and EXCUSE in hand and TWENTY_ONE in hand
    assert np.int8(KNIGHT_OF_CLUBS) in hand
    assert "kh" in hand and "CC" in hand and "E" in hand
    assert PETIT not in hand and "1" not in hand and QUEEN_OF_SPADES not in hand
    assert 99 not in hand and None not in hand
    with pytest.raises(CardError, match="unknown card"):
        _ = "ZZ" in hand


def test_hand_masks_and_equality() -> None:
    hand = Hand.parse(EXAMPLE)
    lo, hi = hand.mask
    assert (lo, hi) == to_mask(hand.cards)
    assert Hand.from_mask(lo, hi) == hand
    assert Hand(reversed(hand.cards)) == hand
    assert hash(Hand.parse("KH 21")) == hash(Hand.parse("21 kh"))
    assert Hand.parse("KH") != Hand.parse("QH")
    assert len(Hand()) == 0 and str(Hand()) == "" and Hand().points == 0.0


@given(card_sets)
def test_hand_round_trips(held: set[int]) -> None:
    hand = Hand(held)
    assert Hand.parse(str(hand)) == hand
    assert Hand.from_mask(*hand.mask) == hand
    assert eval(repr(hand), {"Hand": Hand}) == hand
    assert Hand(str(hand)) == hand
    assert hand.points == float(POINTS[sorted(held)].sum())
    assert hand.bouts == sum(IS_BOUT[c] for c in held)
    assert hand.trumps == sum(IS_TRUMP[c] for c in held)
    assert hand.has_excuse == (EXCUSE in held)
    assert list(hand.suit_lengths) == [sum(SUIT[c] == s for c in held) for s in range(4)]


def test_hand_is_frozen_and_picklable() -> None:
    hand = Hand.parse(EXAMPLE)
    with pytest.raises(AttributeError):
        hand.cards = ()  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(hand)) == hand


def test_hand_html() -> None:
    page = Hand.parse(EXAMPLE)._repr_html_()
    assert page.startswith("<table") and page.endswith("</table>")
    for symbol in "♠♥♦♣":
        assert symbol in page
    assert "21 19 12 6 1" in page
    assert "K C 10 8 1" in page  # hearts, King down
    assert "#c00" in page  # red suits coloured
    assert "18 cards, 3 bouts, 33 points" in page
    assert "—" in Hand.parse("KH")._repr_html_()  # empty suits shown as a dash
