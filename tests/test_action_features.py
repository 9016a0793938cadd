"""The features of each legal action: named cards in known positions, each feature by hand."""

from __future__ import annotations

import numpy as np
import pytest

from tarot_analysis.deals.evaluators import chavey, chavey_count
from tarot_analysis.engine import state as S
from tarot_analysis.engine.action_features import (
    ACTION_FEATURES,
    FEATURE_SCALE,
    N_ACTION_FEATURES,
    action_features,
    feature,
)
from tarot_analysis.engine.game import GameState
from tarot_analysis.errors import TarotInputError
from tarot_analysis.game.cards import Hand, parse_card
from tarot_analysis.game.rules import load_rules

#: Four hands and the dog of fft-4: seat 0 holds ten trumps from the 12 to the 21 and four
#: kings; seat 1 has no spade; seat 2 seven spades and three low trumps.
HANDS = (
    "21 20 19 18 17 16 15 14 13 12 KS QS 1S 2S KH KD KC 1C",
    "11 10 9 8 QH CH JH 10H 9H 8H 7H QD CD JD 10D 9D QC CC",
    "CS JS 10S 9S 8S 7S 6S 7 6 5 6H 5H 4H 8D 7D 6D JC 10C",
    "5S 4S 3S 4 3 2 1 E 3H 2H 1H 5D 4D 3D 9C 8C 7C 6C",
    "2D 1D 5C 4C 3C 2C",
)
GARDE_SANS = 2


def card(token: str) -> int:
    return int(parse_card(token))


def rows_by_action(state: GameState, hint: int = -1) -> dict[int, dict[str, int]]:
    rows, actions = action_features(state, state.actor, hint)
    names = [name for name, _, _ in ACTION_FEATURES]
    return {
        int(a): dict(zip(names, (int(v) for v in row), strict=True))
        for a, row in zip(actions, rows, strict=True)
    }


def to_first_card(state: GameState) -> GameState:
    """No poignée shown, no chelem announced: on to the first card."""
    while state.decision != "card":
        state.apply(S.SHOW_0 if state.decision == "poignee" else S.NO_CHELEM)
    return state


@pytest.fixture()
def garde_sans() -> GameState:
    """Seat 0 takes a Garde sans (the dog stays unseen, no écart) and is to lead."""
    state = GameState.from_hands(load_rules("fft-4"), HANDS, forced=[0, GARDE_SANS, -1, -1])
    return to_first_card(state)


def test_the_layout_names_each_feature_once_with_a_unit() -> None:
    names = [name for name, _, _ in ACTION_FEATURES]
    assert len(set(names)) == N_ACTION_FEATURES == FEATURE_SCALE.shape[0]
    assert (FEATURE_SCALE > 0).all() and (FEATURE_SCALE <= 1).all()
    with pytest.raises(TarotInputError, match="no action feature 'winner'"):
        feature("winner")


def test_a_lead_wins_as_it_stands_and_its_master_is_the_king(garde_sans: GameState) -> None:
    assert garde_sans.actor == 0
    rows = rows_by_action(garde_sans)
    assert set(rows) == {int(a) for a in garde_sans.legal_actions()}
    low, king = rows[card("1S")], rows[card("KS")]
    # every spade but seat 0's four is outside, all above the ace; 21 − 10 trumps outside
    assert (low["wins_now"], low["master"], low["may_be_beaten"]) == (1, 0, 1)
    assert (low["suit_outside"], low["suit_in_hand"], low["trumps_outside"]) == (10, 4, 11)
    assert low["beaters_outside"] == 10 + 11
    assert (low["half_points"], low["rank"], low["spades"], low["card"]) == (1, 1, 1, 1)
    assert (king["master"], king["beaters_outside"], king["half_points"], king["rank"]) == (
        1,
        11,
        9,
        14,
    )
    assert king["may_be_beaten"] == 1  # a seat after may trump it: none was seen without trumps
    twenty_one = rows[card("21")]
    assert (twenty_one["trump"], twenty_one["bout"], twenty_one["master"]) == (1, 1, 1)
    assert (twenty_one["beaters_outside"], twenty_one["may_be_beaten"], twenty_one["rank"]) == (
        0,
        0,
        21,
    )
    assert twenty_one["suit_in_hand"] == 10 and twenty_one["suit_outside"] == 11
    twelve = rows[card("12")]  # every trump above it is in the hand
    assert (twelve["master"], twelve["beaters_outside"], twelve["may_be_beaten"]) == (1, 0, 0)
    assert all(row["pass"] == row["bid"] == 0 for row in rows.values())


def test_a_trump_on_a_led_suit_wins_and_a_follower_does_not(garde_sans: GameState) -> None:
    garde_sans.apply(card("1S"))
    rows = rows_by_action(garde_sans)  # seat 1, no spade: it must trump
    assert set(rows) == {card(t) for t in ("11", "10", "9", "8")}
    eight = rows[card("8")]
    assert (eight["wins_now"], eight["may_be_beaten"], eight["master"]) == (1, 1, 0)
    assert eight["trick_half_points"] == 1 + 1  # the ace of spades and the 8
    garde_sans.apply(card("11"))
    follower = rows_by_action(garde_sans)  # seat 2 follows in spades
    assert set(follower) == {card(t) for t in ("CS", "JS", "10S", "9S", "8S", "7S", "6S")}
    knight = follower[card("CS")]
    # the queen and the king of spades are outside: the knight is no master
    assert (knight["wins_now"], knight["may_be_beaten"], knight["master"]) == (0, 0, 0)
    assert knight["suit_outside"] == 14 - 7 - 1  # neither its own seven nor the ace played
    assert knight["trick_half_points"] == 1 + 1 + 5


def test_the_last_seat_cannot_be_beaten_and_a_void_seen_is_used(garde_sans: GameState) -> None:
    for token in ("1S", "11", "6S", "3S"):  # seat 1 shows its void in spades, wins with the 11
        garde_sans.apply(card(token))
    assert garde_sans.actor == 1
    for token in ("8", "5", "1"):  # a trump lead; seat 0 plays last
        garde_sans.apply(card(token))
    rows = rows_by_action(garde_sans)
    assert garde_sans.actor == 0 and set(rows) == {card(str(n)) for n in range(12, 22)}
    twelve = rows[card("12")]
    assert (twelve["wins_now"], twelve["may_be_beaten"], twelve["master"]) == (1, 0, 1)
    assert twelve["trumps_outside"] == 21 - 10 - 4  # its own ten, and the 11, 8, 5 and 1 played
    assert twelve["trick_half_points"] == 1 + 1 + 9 + 1  # the 8, the 5, the Petit, the 12


def test_a_suit_card_led_into_a_seat_seen_void_and_without_trumps() -> None:
    rules = load_rules("fft-4")
    state = to_first_card(GameState.from_hands(rules, HANDS, forced=[0, GARDE_SANS, -1, -1]))
    state.s[S.S_VOIDS + 1] |= 1 << 0 | S.NO_TRUMPS  # as if seat 1 had shown both
    state.s[S.S_VOIDS + 2] |= 1 << 0
    state.s[S.S_VOIDS + 3] |= 1 << 0
    rows = rows_by_action(state)
    assert rows[card("KS")]["may_be_beaten"] == 1  # seats 2 and 3 may still trump
    state.s[S.S_VOIDS + 2] |= S.NO_TRUMPS
    state.s[S.S_VOIDS + 3] |= S.NO_TRUMPS
    rows = rows_by_action(state)
    assert rows[card("KS")]["may_be_beaten"] == 0
    assert rows[card("1S")]["may_be_beaten"] == 0  # every seat after is void in spades


def test_bids_carry_the_hands_evaluations_and_the_hint() -> None:
    rules = load_rules("fft-4")
    state = GameState.from_hands(rules, HANDS)
    assert state.decision == "bid" and state.actor == 0
    hint = S.BID_0 + 1
    rows = rows_by_action(state, hint)
    lo, hi = Hand.parse(HANDS[0]).mask
    plain, dealt = int(chavey(lo, hi)), int(chavey(lo, hi, with_distribution=True))
    passing = rows[S.PASS]
    assert (passing["pass"], passing["bid"], passing["chavey"], passing["hint"]) == (1, 0, plain, 0)
    assert (passing["hand_trumps"], passing["hand_bouts"], passing["hand_kings"]) == (10, 1, 4)
    assert (passing["hand_voids"], passing["hand_singletons"], passing["hand_longest"]) == (0, 2, 4)
    # the 21, nine other trumps, four kings, a queen and three low cards
    assert passing["hand_half_points"] == 9 + 9 + 4 * 9 + 7 + 3
    prise = rows[S.BID_0]
    assert (prise["contract"], prise["takes_dog"], prise["chavey"], prise["hint"]) == (
        1,
        1,
        plain,
        0,
    )
    assert rows[hint]["hint"] == 1
    sans = rows[S.BID_0 + GARDE_SANS]
    assert (sans["contract"], sans["takes_dog"], sans["chavey"]) == (3, 0, dealt)


def test_the_compiled_chavey_count_is_the_books() -> None:
    rng = np.random.default_rng(7)
    for _ in range(200):
        cards = rng.choice(78, size=18, replace=False)
        lo, hi = Hand(tuple(int(c) for c in cards)).mask
        for distribution in (False, True):
            expected = int(chavey(lo, hi, with_distribution=distribution))
            assert chavey_count(np.uint64(lo), np.uint64(hi), distribution) == expected


def test_poignees_and_chelem_have_their_rows() -> None:
    rules = load_rules("fft-4")
    state = GameState.from_hands(rules, HANDS, forced=[0, GARDE_SANS, -1, -1])
    while state.decision not in ("poignee", "card"):
        state.apply(S.NO_CHELEM)
    assert state.decision == "poignee"
    rows = rows_by_action(state)
    assert {row["poignee"] for row in rows.values()} == {1}
    assert sorted(row["poignee_level"] for row in rows.values()) == list(range(len(rows)))
