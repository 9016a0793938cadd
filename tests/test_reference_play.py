"""The plain rules of play in ``reference_play``: one small named scenario per rule of
docs/rules.md.
"""

from __future__ import annotations

import dataclasses
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tarot_analysis.game.cards import EXCUSE, parse_card, parse_cards
from tarot_analysis.game.rules import Rules, list_presets, load_rules
from tests.reference_play import (
    excuse_at_last_trick_to_attack,
    is_legal_ecart,
    legal_cards,
    legal_ecart,
    trick_points_half,
    trick_winner,
)

FFT_4 = load_rules("fft-4")
FFT_5 = load_rules("fft-5")
SIX = load_rules("six-king-queen")
TRUMPS_BROKEN_4 = load_rules("trumps-broken-4")
TAROCCO = load_rules("tarocco")
LEGACY_4 = load_rules("legacy-4")


def hand(text: str) -> set[int]:
    """A hand written in the notation, as a set of card ids."""
    return set(parse_cards(text))


def trick(text: str) -> list[int]:
    """A trick written in the notation, in play order."""
    return list(parse_cards(text))


def card(token: str) -> int:
    return parse_card(token)


# --------------------------------------------------------------------------------------------
# Following a suit lead (docs/rules.md#play)
# --------------------------------------------------------------------------------------------


def test_must_follow_suit() -> None:
    assert legal_cards(hand("KH 7H 3S 21"), trick("10H"), FFT_4) == hand("KH 7H")


def test_following_suit_need_not_beat_the_card_led() -> None:
    assert legal_cards(hand("7H 2H"), trick("10H"), FFT_4) == hand("7H 2H")


def test_void_in_the_suit_must_trump() -> None:
    assert legal_cards(hand("3S KD 5 12"), trick("10H"), FFT_4) == hand("5 12")


def test_void_must_overtrump_the_highest_trump_even_a_partners() -> None:
    # 8 may be a partner's: no matter, the rule is to go over the highest trump in the trick.
    assert legal_cards(hand("3S 5 12"), trick("10H 8"), FFT_4) == hand("12")
    assert legal_cards(hand("3S 5 12 19"), trick("10H 3 8"), FFT_4) == hand("12 19")


def test_void_and_cannot_overtrump_plays_any_trump() -> None:
    assert legal_cards(hand("3S 5 12"), trick("10H 15"), FFT_4) == hand("5 12")


def test_void_without_trumps_plays_any_card() -> None:
    assert legal_cards(hand("3S KD 1C"), trick("10H 15"), FFT_4) == hand("3S KD 1C")


# --------------------------------------------------------------------------------------------
# Trump lead (docs/rules.md#play)
# --------------------------------------------------------------------------------------------


def test_trump_lead_must_go_higher() -> None:
    assert legal_cards(hand("5 12 21 KH"), trick("10"), FFT_4) == hand("12 21")


def test_trump_lead_must_go_over_the_highest_trump_so_far() -> None:
    assert legal_cards(hand("5 12 21"), trick("10 14"), FFT_4) == hand("21")


def test_trump_lead_cannot_go_higher_plays_any_trump() -> None:
    assert legal_cards(hand("5 12 KH"), trick("18"), FFT_4) == hand("5 12")


def test_trump_lead_without_trumps_plays_any_card() -> None:
    assert legal_cards(hand("KH 3S"), trick("18"), FFT_4) == hand("KH 3S")


# --------------------------------------------------------------------------------------------
# The Excuse (docs/rules.md#play, #the-excuse)
# --------------------------------------------------------------------------------------------


def test_excuse_may_be_played_at_any_time() -> None:
    # Leading, holding the suit led, having to overtrump, on a trump lead: always allowed.
    assert EXCUSE in legal_cards(hand("E KH"), [], FFT_4)
    assert legal_cards(hand("E KH 3S"), trick("10H"), FFT_4) == hand("E KH")
    assert legal_cards(hand("E 5 12"), trick("10H 8"), FFT_4) == hand("E 12")
    assert legal_cards(hand("E 5 12"), trick("10"), FFT_4) == hand("E 12")


def test_excuse_led_then_the_next_card_leads_freely() -> None:
    assert legal_cards(hand("KH 7H 3S 12"), trick("E"), FFT_4) == hand("KH 7H 3S 12")


def test_excuse_led_then_the_next_card_sets_the_suit() -> None:
    assert legal_cards(hand("KH 3S 12"), trick("E 7H"), FFT_4) == hand("KH")
    assert legal_cards(hand("3S 5 12"), trick("E 10"), FFT_4) == hand("12")


# --------------------------------------------------------------------------------------------
# Lead restrictions: the called suit at the first trick
# (docs/rules.md#calling-a-partner-five-and-six-players)
# --------------------------------------------------------------------------------------------

KH = (card("KH"),)


def test_first_lead_may_not_be_in_the_called_suit() -> None:
    leads = legal_cards(hand("7H 3S 12 E"), [], FFT_5, first_trick=True, called_cards=KH)
    assert leads == hand("3S 12 E")


def test_first_lead_may_be_the_called_card_itself() -> None:
    leads = legal_cards(hand("KH 7H 3S"), [], FFT_5, first_trick=True, called_cards=KH)
    assert leads == hand("KH 3S")


def test_called_suit_may_be_led_after_the_first_trick() -> None:
    leads = legal_cards(hand("7H 3S"), [], FFT_5, first_trick=False, called_cards=KH)
    assert leads == hand("7H 3S")


def test_called_suit_rule_binds_the_player_after_a_led_excuse() -> None:
    leads = legal_cards(hand("7H 3S"), trick("E"), FFT_5, first_trick=True, called_cards=KH)
    assert leads == hand("3S")


def test_called_suit_rule_does_not_touch_following() -> None:
    answers = legal_cards(hand("7H 3S"), trick("2H"), FFT_5, first_trick=True, called_cards=KH)
    assert answers == hand("7H")


def test_called_suit_is_free_without_the_rule() -> None:
    no_rule = dataclasses.replace(FFT_5, first_lead_called_suit_forbidden=False)
    leads = legal_cards(hand("7H 3S"), [], no_rule, first_trick=True, called_cards=KH)
    assert leads == hand("7H 3S")


def test_two_called_suits_both_forbidden_at_the_first_lead() -> None:
    called = (card("KH"), card("QS"))
    leads = legal_cards(hand("7H 2S 3D"), [], SIX, first_trick=True, called_cards=called)
    assert leads == hand("3D")


def test_a_hand_all_in_called_suits_may_lead_any_card() -> None:
    called = (card("KH"), card("QS"))
    leads = legal_cards(hand("7H 2S"), [], SIX, first_trick=True, called_cards=called)
    assert leads == hand("7H 2S")


# --------------------------------------------------------------------------------------------
# Lead restrictions: trumps must be broken (docs/rules.md#trumps-broken-4)
# --------------------------------------------------------------------------------------------


def test_no_trump_lead_before_trumps_are_broken() -> None:
    leads = legal_cards(hand("12 5 KH 3S E"), [], TRUMPS_BROKEN_4, trumps_broken=False)
    assert leads == hand("KH 3S E")


def test_trumps_may_lead_once_broken() -> None:
    leads = legal_cards(hand("12 5 KH"), [], TRUMPS_BROKEN_4, trumps_broken=True)
    assert leads == hand("12 5 KH")


def test_a_hand_of_only_trumps_and_the_excuse_may_lead_a_trump() -> None:
    leads = legal_cards(hand("12 5 E"), [], TRUMPS_BROKEN_4, trumps_broken=False)
    assert leads == hand("12 5 E")


def test_trumps_broken_rule_binds_the_player_after_a_led_excuse() -> None:
    leads = legal_cards(hand("12 KH"), trick("E"), TRUMPS_BROKEN_4, trumps_broken=False)
    assert leads == hand("KH")


def test_unbroken_trumps_still_follow_and_trump_as_usual() -> None:
    answers = legal_cards(hand("12 5 3S"), trick("10H 8"), TRUMPS_BROKEN_4, trumps_broken=False)
    assert answers == hand("12")


def test_only_called_suit_cards_besides_trumps_may_lead_a_trump_unbroken() -> None:
    both = dataclasses.replace(FFT_5, trumps_must_be_broken=True)
    leads = legal_cards(
        hand("7H 12 E"), [], both, first_trick=True, called_cards=KH, trumps_broken=False
    )
    assert leads == hand("12 E")


def test_trumps_may_lead_unbroken_without_the_rule() -> None:
    assert legal_cards(hand("12 KH"), [], FFT_4, trumps_broken=False) == hand("12 KH")


# --------------------------------------------------------------------------------------------
# Tarocco (docs/rules.md#tarocco)
# --------------------------------------------------------------------------------------------


def test_tarocco_void_must_play_a_tarocco_but_need_not_overtrump() -> None:
    assert legal_cards(hand("3S 5 12"), trick("10H 15"), TAROCCO) == hand("5 12")
    assert legal_cards(hand("3S 5 18"), trick("10H 15"), TAROCCO) == hand("5 18")


def test_tarocco_lead_must_be_answered_higher_if_able() -> None:
    assert legal_cards(hand("5 12 3S"), trick("10"), TAROCCO) == hand("12")
    assert legal_cards(hand("5 7 3S"), trick("10"), TAROCCO) == hand("5 7")


# --------------------------------------------------------------------------------------------
# Who wins the trick (docs/rules.md#play, #chelem, #tarocco)
# --------------------------------------------------------------------------------------------


def test_a_trump_beats_every_suit_card() -> None:
    assert trick_winner(trick("KH 2 QH 1H")) == 1


def test_the_highest_trump_wins() -> None:
    assert trick_winner(trick("7H 12 21 1")) == 2
    assert trick_winner(trick("5 1 20 4")) == 2


def test_the_highest_card_of_the_suit_led_wins() -> None:
    assert trick_winner(trick("7H KH 1H QH")) == 1


def test_the_ace_is_the_lowest_card_of_its_suit() -> None:
    assert trick_winner(trick("1H 2H")) == 1


def test_a_card_of_another_suit_never_wins() -> None:
    assert trick_winner(trick("7H KS 1H KD")) == 0


def test_the_excuse_never_wins() -> None:
    assert trick_winner(trick("E 7H 3H")) == 1
    assert trick_winner(trick("7H E 3H")) == 0
    assert trick_winner(trick("2 E")) == 0


def test_after_a_led_excuse_the_next_card_sets_the_suit_to_beat() -> None:
    assert trick_winner(trick("E 7H KS 3H")) == 1


def test_chelem_excuse_led_to_the_last_trick_wins_it() -> None:
    assert trick_winner(trick("E 7H KH 3"), last_trick_chelem_excuse=True) == 0
    assert trick_winner(trick("E 7H KH 3")) == 3


def test_chelem_excuse_wins_only_when_led() -> None:
    assert trick_winner(trick("7H E 3"), last_trick_chelem_excuse=True) == 2


def test_tarocco_last_trick_fool_is_the_lowest_tarocco() -> None:
    assert trick_winner(trick("7H E 3H"), excuse_is_lowest_trump=True) == 1
    assert trick_winner(trick("E 7H KH"), excuse_is_lowest_trump=True) == 0
    assert trick_winner(trick("E 1 KH"), excuse_is_lowest_trump=True) == 1


def test_tarocco_fool_shown_is_no_card_of_the_trick() -> None:
    # Two cards contested; the Fool set aside is simply not in the list.
    assert trick_winner(trick("7H KH")) == 1


def test_an_empty_trick_has_no_winner() -> None:
    with pytest.raises(ValueError):
        trick_winner([])


# --------------------------------------------------------------------------------------------
# The écart (docs/rules.md#the-dog-and-the-écart, #tarocco)
# --------------------------------------------------------------------------------------------


def test_fft_ecart_no_king_no_bout_trumps_only_if_forced() -> None:
    free, forced = legal_ecart(hand("KH KS 21 1 E 12 7 QH CH JD 10S 2C"), FFT_4)
    assert free == hand("QH CH JD 10S 2C")
    assert forced == hand("12 7")


def test_fft_ecart_of_six_free_cards_is_legal() -> None:
    with_dog = hand("KH 21 E 12 QH CH JD 10S 8S 2C 1C")
    assert is_legal_ecart(with_dog, hand("QH CH JD 10S 8S 2C"), FFT_4)


def test_fft_ecart_may_not_hold_a_king_or_a_bout() -> None:
    with_dog = hand("KH 21 1 E 12 QH CH JD 10S 8S 2C 1C")
    assert not is_legal_ecart(with_dog, hand("KH CH JD 10S 8S 2C"), FFT_4)
    assert not is_legal_ecart(with_dog, hand("21 CH JD 10S 8S 2C"), FFT_4)
    assert not is_legal_ecart(with_dog, hand("1 CH JD 10S 8S 2C"), FFT_4)
    assert not is_legal_ecart(with_dog, hand("E CH JD 10S 8S 2C"), FFT_4)


def test_fft_ecart_may_not_hold_a_trump_while_a_free_card_is_kept() -> None:
    with_dog = hand("12 QH CH JD 10S 8S 2C 1C")
    assert not is_legal_ecart(with_dog, hand("12 CH JD 10S 8S 2C"), FFT_4)


def test_fft_ecart_trumps_when_forced() -> None:
    with_dog = hand("KS KH KD KC 21 1 E 15 14 13 QH 10S 8S 3D")
    assert is_legal_ecart(with_dog, hand("QH 10S 8S 3D 15 14"), FFT_4)
    assert is_legal_ecart(with_dog, hand("QH 10S 8S 3D 13 15"), FFT_4)
    # One free card kept while a third trump goes: not allowed.
    assert not is_legal_ecart(with_dog, hand("QH 10S 8S 15 14 13"), FFT_4)


def test_ecart_must_be_dog_size_cards_of_the_hand() -> None:
    with_dog = hand("QH CH JD 10S 8S 2C 1C")
    assert not is_legal_ecart(with_dog, hand("QH CH JD 10S 8S"), FFT_4)
    assert not is_legal_ecart(with_dog, hand("QH CH JD 10S 8S 2C 1C"), FFT_4)
    assert not is_legal_ecart(with_dog, hand("QH CH JD 10S 8S 3D"), FFT_4)
    # Five players: a dog, and so an écart, of three.
    assert is_legal_ecart(with_dog, hand("QH CH JD"), FFT_5)


def test_tarocco_discard_no_honour_or_king() -> None:
    free, forced = legal_ecart(hand("KC 21 1 E 12 QC JS 3D"), TAROCCO)
    assert free == hand("12 QC JS 3D")
    assert forced == set()


def test_tarocco_discard_may_hold_taroccos_freely() -> None:
    with_dog = hand("KC 21 E 12 11 5 QC JS 3D 2D")
    assert is_legal_ecart(with_dog, hand("12 11 5 QC JS 3D"), TAROCCO)
    assert not is_legal_ecart(with_dog, hand("KC 11 5 QC JS 3D"), TAROCCO)
    assert not is_legal_ecart(with_dog, hand("E 11 5 QC JS 3D"), TAROCCO)


# --------------------------------------------------------------------------------------------
# Card points (docs/rules.md#the-deck-and-its-count)
# --------------------------------------------------------------------------------------------


def test_french_card_points_in_half_points() -> None:
    # 4.5 + 3.5 + 2.5 + 1.5 + 0.5 + 4.5 + 4.5 + 0.5 = 22
    assert trick_points_half(trick("KH QH CH JH 10H 21 E 5"), FFT_4) == 44


def test_tarocco_card_points_in_half_points() -> None:
    # Knights 2 - 0.5, jacks low: 4.5 + 3.5 + 1.5 + 0.5 + 0.5 + 4.5 + 4.5 + 0.5 = 20
    assert trick_points_half(trick("KH QH CH JH 10H 21 E 5"), TAROCCO) == 40


def test_the_pack_counts_91_french_and_83_in_tarocco() -> None:
    assert trick_points_half(list(range(78)), FFT_4) == 2 * 91
    assert trick_points_half(list(range(78)), TAROCCO) == 2 * 83


# --------------------------------------------------------------------------------------------
# Whatever the situation, a player holding cards has a legal one
# --------------------------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(
    preset=st.sampled_from(list_presets()),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
    played=st.integers(min_value=0, max_value=5),
    first_trick=st.booleans(),
    trumps_broken=st.booleans(),
)
def test_some_card_of_the_hand_is_always_legal(
    preset: str, seed: int, played: int, first_trick: bool, trumps_broken: bool
) -> None:
    rules: Rules = load_rules(preset)
    shuffled = random.Random(seed).sample(range(78), 78)
    held = set(shuffled[: rules.hand_size])
    trick_so_far = shuffled[rules.hand_size : rules.hand_size + min(played, rules.players - 1)]
    called = tuple(shuffled[-2:][: rules.called_cards])
    legal = legal_cards(
        held,
        trick_so_far,
        rules,
        first_trick=first_trick,
        called_cards=called,
        trumps_broken=trumps_broken,
    )
    assert legal
    assert legal <= held
    if trick_so_far:
        assert 0 <= trick_winner(trick_so_far) < len(trick_so_far)


# --------------------------------------------------------------------------------------------
# The older rules' écart, the Excuse at the last trick (docs/rules.md#legacy-4, #the-excuse)
# --------------------------------------------------------------------------------------------


def test_legacy_ecart_kings_trumps_and_the_excuse_only_when_nothing_else_can_go() -> None:
    with_dog = hand("KS KH KD KC E 21 1 20 19 18 17 16 15 14 13 12 11 10 2S 3S 4S 5S 9 8")
    assert is_legal_ecart(with_dog, hand("2S 3S 4S 5S KS E"), LEGACY_4)
    assert is_legal_ecart(with_dog, hand("2S 3S 4S 5S 1 21"), LEGACY_4)
    assert not is_legal_ecart(with_dog, hand("2S 3S 4S KS KH E"), LEGACY_4)  # 5S kept
    assert not is_legal_ecart(with_dog, hand("2S 3S 4S 5S KS E"), FFT_4)


def test_the_excuse_at_the_last_trick_changes_sides_or_goes_with_the_trick() -> None:
    for owner_in_attack in (True, False):
        for winner_in_attack in (True, False):
            assert excuse_at_last_trick_to_attack(owner_in_attack, winner_in_attack, FFT_4) == (
                not owner_in_attack
            )
            assert (
                excuse_at_last_trick_to_attack(owner_in_attack, winner_in_attack, TRUMPS_BROKEN_4)
                == winner_in_attack
            )
