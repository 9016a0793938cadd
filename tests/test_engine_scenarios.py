"""Scenarios with named cards: known deals replayed through the engine, one rule at a time."""

from __future__ import annotations

import pytest

from tarot_analysis import cards
from tarot_analysis.engine.outcome import OUTCOME_COLUMNS
from tarot_analysis.errors import TarotInputError
from tarot_analysis.play import play_given
from tarot_analysis.rules import Rules, load_rules

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
