"""Scenarios with named cards: known deals replayed through the engine, one rule at a time."""

from __future__ import annotations

import dataclasses

import pytest

from tarot_analysis.analyses.replay import describe
from tarot_analysis.engine import state as state_module
from tarot_analysis.engine.determinize import determinize
from tarot_analysis.engine.game import GameState
from tarot_analysis.engine.outcome import OUTCOME_COLUMNS
from tarot_analysis.errors import TarotInputError
from tarot_analysis.game import cards
from tarot_analysis.game.rules import Rules, load_rules
from tarot_analysis.table.play import play_given

COL = {name: i for i, name in enumerate(OUTCOME_COLUMNS)}


def deal_around(rules: Rules, fixed: dict[int, str], dog: str = "") -> list[str]:
    """Hands for every seat and the dog: the named ones, the rest of the pack in order."""
    named = {seat: list(cards.parse_cards(text)) for seat, text in fixed.items()}
    dog_cards = list(cards.parse_cards(dog))
    used = {card for hand in named.values() for card in hand} | set(dog_cards)
    rest = iter(card for card in range(78) if card not in used)
    hands = []
    for seat in range(rules.players):
        hand = named.get(seat) or [next(rest) for _ in range(rules.hand_size)]
        hands.append(cards.format_cards(hand))
    dog_cards += [next(rest) for _ in range(rules.dog_size - len(dog_cards))]
    return [*hands, cards.format_cards(dog_cards)]


TRUMP_MARCH = "21 20 19 18 17 16 15 14 13 12 11 10 9 8 7 6 5"


def taker_leads_everything(last: str) -> list[list[str | None]]:
    """Seat 0 leads its trumps from the top, then ``last``; the others play what their bots like."""
    order = [*TRUMP_MARCH.split(), last]
    return [[card, None, None, None] for card in order]


def test_the_excuse_led_to_the_last_trick_wins_it_under_a_chelem() -> None:
    rules = load_rules("fft-4")
    hands = deal_around(rules, {0: TRUMP_MARCH + " E"})
    garde_sans = [c.name for c in rules.contracts].index("garde_sans")
    result = play_given(rules, [hands], forced=[0, garde_sans, -1, -1],
                        script=[taker_leads_everything("E")], seed=1)  # fmt: skip
    out = result.outcomes[0]
    assert out[COL["attack_tricks"]] == 18 and out[COL["defence_tricks"]] == 0
    assert out[COL["attack_bouts"]] == 3  # the 21, the Excuse, and the Petit caught on a trump lead
    assert out[COL["attack_half_points"]] == 182  # the whole pack
    scores = result.scores().iloc[0]
    assert scores["chelem"] == 200  # made without announcement (docs/rules.md#chelem)
    assert scores["made"]


def test_the_petit_at_the_last_trick_is_au_bout_for_its_side() -> None:
    rules = load_rules("fft-4")
    hands = deal_around(rules, {0: TRUMP_MARCH + " 1"}, dog="1H 2H 3H 4H 5H 6H")
    garde = [c.name for c in rules.contracts].index("garde")
    script = taker_leads_everything("1")
    result = play_given(rules, [hands], forced=[0, garde, -1, -1], script=[script], seed=2)
    out = result.outcomes[0]
    assert out[COL["petit_au_bout"]] == 1 and out[COL["petit_au_bout_seat"]] == 0
    assert out[COL["petit_wins_last_trick"]] == 1
    scores = result.scores().iloc[0]
    assert scores["petit_au_bout"] == 10 * 2  # to the attack, multiplied (FFT)

    legacy = load_rules("legacy-4")
    result = play_given(legacy, [hands], forced=[0, garde, -1, -1], script=[script], seed=2)
    scores = result.scores().iloc[0]
    assert scores["petit_au_bout"] == 0  # personal in the older rules: paid to the player
    assert scores["petit_personal"] == 10 and scores["petit_personal_seat"] == 0


def test_the_excuse_played_before_the_last_trick_stays_with_its_side() -> None:
    rules = load_rules("fft-4")
    # Seat 1 holds the Excuse and plays it on the first trick, which seat 0 wins with the 21.
    hands = deal_around(
        rules,
        {0: TRUMP_MARCH + " 1", 1: "E 4 3 2 KS QS CS JS 10S 9S 8S 7S 6S 5S 4S 3S 2S 1S"},
        dog="1H 2H 3H 4H 5H 6H",
    )
    garde = [c.name for c in rules.contracts].index("garde")
    script = taker_leads_everything("1")
    script[0][1] = "E"
    result = play_given(rules, [hands], forced=[0, garde, -1, -1], script=[script], seed=3)
    out = result.outcomes[0]
    assert out[COL["attack_tricks"]] == 18
    # The defence keeps the Excuse (4.5) but never wins a trick, so it cannot give the low card
    # it owes for it: the attack counts the whole pack but the Excuse.
    assert out[COL["attack_half_points"]] == 182 - 9
    assert out[COL["attack_bouts"]] == 2


def test_the_called_suit_may_not_be_led_first_except_the_called_king() -> None:
    rules = load_rules("fft-5")
    hands = deal_around(rules, {0: "KH 7H 5H 3S 2S 1S 10C 9C 8C 7C 6C 5C 4C 3C 2C"})
    forced = [2, 1, cards.KING_OF_HEARTS, -1]
    with pytest.raises(TarotInputError, match="not legal"):
        play_given(rules, [hands], forced=forced, script=[[["7H", None, None, None, None]]])
    result = play_given(rules, [hands], forced=forced, script=[[["KH", None, None, None, None]]])
    assert result.tricks is not None and result.tricks[0, 0, 0] == cards.KING_OF_HEARTS
    assert result.outcomes[0][COL["partner_1"]] == 0


def test_trumps_may_not_be_led_before_they_are_broken() -> None:
    rules = load_rules("trumps-broken-4")
    hands = deal_around(rules, {0: "21 20 19 KS QS CS JS 10S 9S 8S 7S 6S 5S 4S 3S 2S 1S KH"})
    with pytest.raises(TarotInputError, match="not legal"):
        play_given(rules, [hands], forced=[1, 0, -1, -1], script=[[["21", None, None, None]]])
    fft = load_rules("fft-4")
    result = play_given(fft, [hands], forced=[1, 0, -1, -1], script=[[["21", None, None, None]]])
    assert result.tricks is not None and result.tricks[0, 0, 0] == cards.TWENTY_ONE


def test_the_ecart_never_holds_a_king_and_trumps_only_when_forced() -> None:
    rules = load_rules("fft-4")
    hands = deal_around(rules, {0: "21 20 19 KS QS CS JS 10S 9S 8S 7S 6S 5S 4S 3S 2S 1S KH"},
                        dog="QH CH JH 10H 9H 8H")  # fmt: skip
    prise = 0
    with pytest.raises(TarotInputError, match="écart is not legal"):
        play_given(rules, [hands], forced=[0, prise, -1, -1], ecart=["KS QH CH JH 10H 9H"])
    with pytest.raises(TarotInputError, match="écart is not legal"):
        play_given(rules, [hands], forced=[0, prise, -1, -1], ecart=["19 QH CH JH 10H 9H"])
    result = play_given(rules, [hands], forced=[0, prise, -1, -1], ecart=["QS QH CH JH 10H 9H"])
    assert result.ecarts is not None
    lo, hi = result.ecarts[0]
    assert set(cards.from_mask(int(lo), int(hi))) == set(cards.parse_cards("QS QH CH JH 10H 9H"))
    # The écart counts for the taker: two queens, a knight, a jack and two low cards.
    assert result.outcomes[0][COL["ecart_half_points"]] == 2 * (2 * 3.5 + 2.5 + 1.5 + 2 * 0.5)


# --------------------------------------------------------------------------------------------
# The Excuse at the last trick, the six-player calls and shares, the older rules' écart and
# poignée, the first lead under a chelem, the answer to a Tarocco lead (docs/rules.md)
# --------------------------------------------------------------------------------------------

#: Seat 0 leads 21 down to 5, then the ace of spades; seat 1 keeps the Excuse to the last
#: trick, where seat 2 (a defender too) wins with the king of spades.
EXCUSE_LAST_HANDS = {
    0: TRUMP_MARCH + " 1S",
    1: "E KH QH CH JH 10H 9H 8H 7H 6H 5H 4H 3H 2H 1H KD QD CD",
    2: "4 3 2 1 KC QC CC JC 10C 9C 8C 7C 6C 5C 4C 3C 2C KS",
}


def excuse_kept_to_the_last_trick(rules: Rules) -> tuple[int, int]:
    """The attack's half points and bouts when a defender plays the Excuse to the last trick
    and its partner wins it (seat 0 took every other trick, under a Garde sans)."""
    hands = deal_around(rules, EXCUSE_LAST_HANDS)
    seat_1 = [*EXCUSE_LAST_HANDS[1].split()[1:], "E"]
    seat_2 = EXCUSE_LAST_HANDS[2].split()
    seat_3 = hands[3].split()
    seat_3 = [card for card in seat_3 if card != "2S"] + ["2S"]
    march = [*TRUMP_MARCH.split(), "1S"]
    script = [[march[t], seat_1[t], seat_2[t], seat_3[t]] for t in range(rules.hand_size)]
    garde_sans = [c.name for c in rules.contracts].index("garde_sans")
    result = play_given(rules, [hands], forced=[0, garde_sans, -1, -1], script=[script], seed=4)
    out = result.outcomes[0]
    assert out[COL["attack_tricks"]] == 17 and out[COL["defence_tricks"]] == 1
    assert result.tricks is not None and cards.EXCUSE in result.tricks[0, -1]
    changed = "the Excuse played to the last trick changed sides" in describe(result)
    assert changed == (rules.excuse_last_trick == "changes_sides")  # the half point, explained
    return int(out[COL["attack_half_points"]]), int(out[COL["attack_bouts"]])


def test_the_excuse_played_to_the_last_trick_changes_sides() -> None:
    # FFT and the online rules page: the defence played it, so the attack takes it,
    # though the defence won
    # the trick. The defence takes the last trick's ace, king and 2 of spades (1 + 9 + 1).
    rules = load_rules("fft-4")
    assert excuse_kept_to_the_last_trick(rules) == (182 - 11, 3)
    assert excuse_kept_to_the_last_trick(load_rules("legacy-4")) == (182 - 11, 3)


def test_the_excuse_played_to_the_last_trick_may_stay_with_the_trick() -> None:
    # The 2014 four-player rules (trumps-broken-4, or the key on any preset):
    # it goes to the trick's winner.
    rules = dataclasses.replace(load_rules("fft-4"), excuse_last_trick="trick_winner")
    assert excuse_kept_to_the_last_trick(rules) == (182 - 11 - 9, 2)


def test_six_players_a_partner_holding_both_called_cards_takes_the_kings_share() -> None:
    rules = load_rules("six-king-queen")
    hands = deal_around(rules, {2: "KH QH 1S 2S 3S 4S 5S 6S 7S 8S 9S 10S"})
    garde = [c.name for c in rules.contracts].index("garde")
    forced = [0, garde, cards.KING_OF_HEARTS, cards.parse_card("QH")]
    result = play_given(rules, [hands], forced=forced, bots="heuristic", seed=5)
    row = result.scores().iloc[0]
    assert row["partner_1"] == row["partner_2"] == 2
    # 2 v 4: the partner 1/3 of the attack's total, the taker 2/3 (the online rules
    # page's 2/3-1/3 split).
    total = 4 * row["per_defender"]
    assert row["score_2"] == pytest.approx(total / 3)
    assert row["score_0"] == pytest.approx(2 * total / 3)
    other = dataclasses.replace(
        rules, shares=dataclasses.replace(rules.shares, both_calls_one_partner="second_share")
    )
    row = play_given(other, [hands], forced=forced, bots="heuristic", seed=5).scores().iloc[0]
    assert row["score_2"] == pytest.approx(total / 6)
    assert row["score_0"] == pytest.approx(5 * total / 6)


ALL_KINGS_AND_QUEENS = "KS KH KD KC QS QH QD QC 1S 2S 3S 4S"


@pytest.mark.parametrize("preset", ["six-king-queen", "legacy-6"])
def test_six_players_holding_all_kings_may_call_any_suit_card(preset: str) -> None:
    rules = load_rules(preset)
    hands = deal_around(rules, {0: "KS KH KD KC 1S 2S 3S 4S 5S 6S 7S 8S"})
    state = GameState.from_hands(rules, hands, forced=[0, 1, -1, -1])
    assert state.decision == "call"
    first = set(state.legal_actions().tolist())
    assert {cards.parse_card("QH"), cards.parse_card("7C")} <= first  # a queen, or any card
    state.apply(cards.parse_card("7C"))
    assert set(state.legal_actions().tolist()) == set(cards.parse_cards("QS QH QD QC"))


@pytest.mark.parametrize("preset", ["six-king-queen", "legacy-6"])
def test_six_players_holding_all_queens_may_call_one_of_them_second(preset: str) -> None:
    rules = load_rules(preset)
    hands = deal_around(rules, {0: "KH QS QH QD QC 1S 2S 3S 4S 5S 6S 7S"})
    garde = [c.name for c in rules.contracts].index("garde")
    queen_of_spades = cards.parse_card("QS")
    forced = [0, garde, cards.KING_OF_HEARTS, queen_of_spades]
    result = play_given(rules, [hands], forced=forced, seed=6)
    assert result.outcomes[0][COL["called_2"]] == queen_of_spades
    state = GameState.from_hands(rules, hands, forced=[0, garde, cards.KING_OF_HEARTS, -1])
    second = set(state.legal_actions().tolist())
    assert queen_of_spades in second and cards.parse_card("7C") in second
    assert not second & set(cards.parse_cards("KS KH KD KC"))


def test_the_older_rules_ecart_takes_kings_trumps_and_the_excuse_when_forced() -> None:
    # Four free cards in hand and dog: two more must go, and may be a king, a bout, a trump.
    hand = "KS KH KD KC E 21 1 20 19 18 17 16 15 14 13 12 11 10"
    dog = "2S 3S 4S 5S 9 8"
    ecart = "2S 3S 4S 5S KS E"
    legacy = load_rules("legacy-4")
    hands = deal_around(legacy, {0: hand}, dog=dog)
    result = play_given(legacy, [hands], forced=[0, 0, -1, -1], ecart=[ecart], seed=7)
    assert result.ecarts is not None
    assert set(cards.from_mask(*map(int, result.ecarts[0]))) == set(cards.parse_cards(ecart))
    with pytest.raises(TarotInputError, match="écart is not legal"):
        play_given(load_rules("fft-4"), [hands], forced=[0, 0, -1, -1], ecart=[ecart])


def test_the_older_rules_ecart_hides_its_trumps() -> None:
    hand = "KS KH KD KC E 21 1 20 19 18 17 16 15 14 13 12 11 10"
    hands = deal_around(load_rules("fft-4"), {0: hand}, dog="2S 3S 4S 5S 9 8")
    seen = {}
    for preset in ("fft-4", "legacy-4"):
        state = GameState.from_hands(load_rules(preset), hands, forced=[0, 0, -1, -1])
        for card in cards.parse_cards("2S 3S 4S 5S 9 8"):
            state.apply(card)
        seen[preset] = state.observation(1).ecart
    assert set(seen["fft-4"]) == set(cards.parse_cards("9 8"))  # FFT shows discarded trumps
    # The online rules page: the écart is revealed only at the end.
    assert seen["legacy-4"] == ()


def test_the_older_rules_poignee_shows_the_count_the_highest_and_the_lowest() -> None:
    hand = "21 19 17 15 13 11 9 7 5 3 E KS QS CS JS 10S 9S 8S"
    for preset, shown in (("fft-4", hand.split()[:11]), ("legacy-4", ["21", "3"])):
        rules = load_rules(preset)
        hands = deal_around(rules, {0: hand})
        state = GameState.from_hands(rules, hands, forced=[0, 3, -1, -1])
        assert state.decision == "poignee" and state.actor == 0
        state.apply(int(state.legal_actions()[1]))  # a simple poignée
        seen = state.observation(1)
        assert set(seen.poignees[0][1]) == set(cards.parse_cards(" ".join(shown))), preset
        assert seen.poignee_counts[0] == 11
        # The worlds of another seat keep the count, the two ends and nothing outside them.
        for world in determinize(state, 1, rng=3, count=20):
            trumps = [c for c in world.hand(0) if c >= cards.EXCUSE]
            assert len(trumps) == 11
            assert {cards.TWENTY_ONE, cards.trump(3)} <= set(trumps)
            assert all(c == cards.EXCUSE or cards.trump(3) <= c for c in trumps)


def test_trumps_broken_keeps_the_first_lead_after_a_chelem_is_announced() -> None:
    hands = deal_around(load_rules("fft-4"), {2: TRUMP_MARCH + " E"})
    for preset, leader in (("fft-4", 2), ("trumps-broken-4", 0)):
        state = GameState.from_hands(load_rules(preset), hands, forced=[2, 3, -1, -1])
        while state.decision == "poignee":
            state.apply(int(state.legal_actions()[0]))
        assert state.decision == "chelem"
        state.apply(state_module.ANNOUNCE_CHELEM)
        assert state.decision == "card" and state.actor == leader, preset


TAROCCO_ANSWER = "2 KH QH CH JH 10H 9H 8H 7H 6H 5H 4H 3H 2H 1H KD QD CD JD 10D 9D 8D 7D 6D"


def tarocco_lead_answer(rules: Rules) -> set[int]:
    """What seat 0 may answer to the dealer's 21, holding the 2 of tarocchi and suit cards (it
    cannot beat the 21)."""
    dealer = "21 20 19 18 17 16 15 14 13 12 11 10 9 8 7 6 5 4 KS QS CS JS 10S 9S"
    hands = deal_around(rules, {2: dealer, 0: TAROCCO_ANSWER}, dog="1C 2C 3C 4C 5C 6C")
    state = GameState.from_hands(rules, hands)
    for card in cards.parse_cards("1C 2C 3C 4C 5C 6C"):
        state.apply(card)
    assert state.decision == "card" and state.actor == 2
    state.apply(cards.TWENTY_ONE)
    assert state.actor == 0
    return set(state.legal_actions().tolist())


def test_tarocco_a_player_unable_to_beat_a_tarocco_lead_plays_a_tarocco_or_any_card() -> None:
    rules = load_rules("tarocco")
    assert tarocco_lead_answer(rules) == {cards.trump(2)}  # the default: any tarocco
    any_card = dataclasses.replace(rules, trump_lead_unable_to_beat="any_card")
    assert tarocco_lead_answer(any_card) == set(cards.parse_cards(TAROCCO_ANSWER))
