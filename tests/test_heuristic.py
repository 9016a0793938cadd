"""The heuristic bot: named positions where a club player's choice is clear, and a duplicate
match against the random bot.

Each position calls the bot's compiled functions directly, with the hands and the trick written
in the card notation and what the table has seen built as the engine builds it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from benchmarks.duplicate import duplicate
from tarot_analysis.bots import BOTS, HEURISTIC, Bot, heuristic
from tarot_analysis.engine import core, state
from tarot_analysis.engine.cardsets import NOT_LED, TRUMP_LED, suit_of
from tarot_analysis.engine.outcome import OUTCOME_COLUMNS
from tarot_analysis.engine.params import engine_rules
from tarot_analysis.errors import TarotInputError
from tarot_analysis.game import cards
from tarot_analysis.game.rules import load_rules
from tarot_analysis.table.play import play
from tests.golden_games import HEURISTIC_THEN

COL = {name: i for i, name in enumerate(OUTCOME_COLUMNS)}
U64 = np.uint64
PARAMS = {name: engine_rules(load_rules(name)).params for name in ("fft-3", "fft-4", "fft-5")}


def hand(text: str) -> tuple[np.uint64, np.uint64]:
    """The two-word mask of the cards written in ``text``."""
    lo, hi = cards.to_mask(cards.parse_cards(text))
    return U64(lo), U64(hi)


def named(text: str) -> int:
    """The id of the one card written in ``text``."""
    (card,) = cards.parse_cards(text)
    return card


def chosen(
    seat: int,
    held: str,
    *,
    taker: int,
    leader: int,
    trick: str = "",
    earlier: str = "",
    trick_number: int = 0,
    rules: str = "fft-4",
    voids: dict[int, int] | None = None,
    called: Sequence[int] = (-1, -1),
    partners: Sequence[int] = (-1, -1),
) -> str:
    """The card the heuristic bot at ``seat`` plays holding ``held``, the cards ``trick`` on the
    table (in play order from ``leader``) and ``earlier`` played in the earlier tricks."""
    p = PARAMS[rules]
    players = int(p[0])
    lo, hi = hand(held)
    on_table = list(cards.parse_cards(trick))
    assert (leader + len(on_table)) % players == seat
    view = np.zeros(state.N_VIEW, dtype=np.int64)
    led, top_trump, best = NOT_LED, 0, -1
    for k, card in enumerate(on_table):  # as the engine follows the trick
        suit = suit_of(card)
        if suit == TRUMP_LED:
            led = TRUMP_LED if led == NOT_LED else led
            if card - cards.EXCUSE > top_trump:
                top_trump, best = card - cards.EXCUSE, k
        elif suit >= 0:
            if led == NOT_LED:
                led, best = suit, k
            elif suit == led and top_trump == 0 and card > on_table[best]:
                best = k
    view[state.V_TRICK] = trick_number
    view[state.V_LEADER] = leader
    view[state.V_LED] = led
    view[state.V_TOP_TRUMP] = top_trump
    view[state.V_TAKER] = taker
    view[state.V_IN_TRICK] = len(on_table)
    view[state.V_BEST] = best
    view[state.V_CONTRACT] = 1
    view[state.V_CALLED_1], view[state.V_CALLED_2] = called
    view[state.V_PARTNER_1], view[state.V_PARTNER_2] = partners
    view[state.V_PLAYERS] = players
    view[state.V_TRICKS] = int(p[1])
    trick_array = np.full(players, -1, dtype=np.int64)
    trick_array[: len(on_table)] = on_table
    seen_lo, seen_hi = cards.to_mask([*cards.parse_cards(earlier), *on_table])
    played = np.array([seen_lo, seen_hi], dtype=np.uint64)
    seen_voids = np.zeros(players, dtype=np.int64)
    for other, bits in (voids or {}).items():
        seen_voids[other] = bits
    legal_lo, legal_hi = core.legal_cards(lo, hi, led, top_trump, U64(0), False, p)
    card = heuristic.play(
        seat, lo, hi, legal_lo, legal_hi, view, trick_array, played, seen_voids,
        np.zeros(players, dtype=np.int64), p,
    )  # fmt: skip
    assert cards.from_mask(int(legal_lo), int(legal_hi)).count(card) == 1, "an illegal card"
    return cards.card_name(card)


# --------------------------------------------------------------------------------------------
# Play
# --------------------------------------------------------------------------------------------


def test_it_gives_its_king_to_a_partner_winning_the_trick() -> None:
    # The taker (seat 0) led a spade, seat 1 trumped; seat 3 plays last for the defence.
    card = chosen(3, "KS 3S 7H 8H 5D", taker=0, leader=0, trick="2S 15 5S")
    assert card == "KS"


def test_it_gives_its_queen_to_the_revealed_partner_of_a_five_player_taker() -> None:
    # Five players: seat 2 took and called the king of hearts, which seat 4 has just led.
    called = (cards.KING_OF_HEARTS, -1)
    partner = (4, -1)
    # The defender next to play keeps its queen under the partner's king.
    card = chosen(0, "QH 4H 9C 2D", taker=2, leader=4, trick="KH", rules="fft-5",
                  called=called, partners=partner)  # fmt: skip
    assert card == "4H"
    # The taker, with one defender still to play, gives its queen to its partner's king.
    card = chosen(2, "QH 4H 9C 2D", taker=2, leader=4, trick="KH 3H 5H", rules="fft-5",
                  called=called, partners=partner)  # fmt: skip
    assert card == "QH"


def test_it_plays_low_when_the_opponent_wins() -> None:
    # Seat 1 is the taker and trumped the spade; the defender last to play keeps its king.
    assert chosen(3, "KS 3S 7H 8H 5D", taker=1, leader=0, trick="2S 15 5S") == "3S"


def test_the_excuse_saves_a_king_that_would_fall_to_the_taker() -> None:
    assert chosen(3, "KS E 7H 8H 5D", taker=1, leader=0, trick="2S 15 5S") == "E"


def test_it_takes_a_trick_no_one_after_it_can_beat() -> None:
    # Last to play on the taker's lead: the king takes the queen.
    assert chosen(3, "KH 2H 9C", taker=0, leader=0, trick="QH 3H 4H") == "KH"


def test_it_does_not_keep_the_excuse_for_the_last_trick() -> None:
    # Two cards left: the Excuse goes now, whatever else is held.
    card = chosen(1, "E KC", taker=0, leader=0, trick="5C", trick_number=16)
    assert card == "E"
    # With more tricks to play it follows suit: the king, as only its partners play after it.
    assert chosen(1, "E KC 3C", taker=0, leader=0, trick="5C", trick_number=10) == "KC"


def test_the_petit_goes_on_a_trick_its_side_is_sure_to_win() -> None:
    # Void in hearts: the partner trumped with the 21, the defender last to play saves its Petit.
    assert chosen(3, "1 5 9 2C", taker=0, leader=0, trick="3H 21 4H", voids={3: 2}) == "1"
    # On the taker's trump it keeps it and plays its lowest other trump.
    assert chosen(3, "1 5 9 2C", taker=2, leader=0, trick="3H 4H 15", voids={3: 2}) == "5"


def test_it_never_plays_the_excuse_at_the_last_trick() -> None:
    rules = load_rules("fft-4")
    result = play(rules, 3_000, bots="heuristic", seed=4, keep_tricks=True)
    assert result.tricks is not None
    played = result.outcomes[:, COL["redeal"]] == 0
    no_chelem = result.outcomes[:, COL["chelem_announced"]] == 0
    last_trick = result.tricks[played & no_chelem, -1, :]
    assert not np.any(last_trick == cards.EXCUSE)


# --------------------------------------------------------------------------------------------
# Bidding, écart, announcements
# --------------------------------------------------------------------------------------------

WEAK = "12 9 5 3 2  KS 8S 4S  9H 7H 2H  CD 8D 6D 3D  10C 6C 1C"
STRONG = "21 20 18 17 15 13 11 7 1 E  KH QH 8H  KS  KD 9D  4C 2C"


def test_it_passes_with_a_weak_hand_and_gardes_with_a_strong_one() -> None:
    p = PARAMS["fft-4"]
    lo, hi = hand(WEAK)
    assert heuristic.bid(0, lo, hi, -1, p, np.zeros(4, dtype=np.int64)) == -1
    lo, hi = hand(STRONG)
    own = np.zeros(4, dtype=np.int64)  # the bot's own thresholds
    assert heuristic.bid(0, lo, hi, -1, p, own) >= 1  # garde or more
    assert heuristic.bid(0, lo, hi, 3, p, own) == -1  # never below or at the best bid
    assert heuristic.hand_value(lo, hi, 18, True) > heuristic.hand_value(*hand(WEAK), 18, True)


def test_a_bid_shift_moves_the_thresholds() -> None:
    p = PARAMS["fft-4"]
    weak, strong = hand(WEAK), hand(STRONG)
    value = heuristic.hand_value(*weak, 18, True)
    prise = int(heuristic.CONTRACT_THRESHOLDS[1, 0])

    def shifts(name: str) -> np.ndarray:
        return np.array(Bot.parse(name).shifts, dtype=np.int64)

    zero = shifts("heuristic")

    assert heuristic.bid(0, *weak, -1, p, shifts(f"heuristic:{value - prise}")) == 0
    assert heuristic.bid(0, *weak, -1, p, shifts(f"heuristic:{value - prise + 1}")) == -1
    assert heuristic.bid(0, *weak, -1, p, shifts(f"heuristic:{value - prise}/40/40/40")) == 0
    level = heuristic.bid(0, *strong, -1, p, zero)
    assert level >= 1
    assert heuristic.bid(0, *strong, -1, p, shifts("heuristic:40")) == -1
    assert heuristic.bid(0, *strong, -1, p, shifts("heuristic:-40/-40/-40/-40")) == 3
    cautious_garde = shifts(f"heuristic:0/40/{40 * (level >= 2)}/{40 * (level >= 3)}")
    assert heuristic.bid(0, *strong, -1, p, cautious_garde) == 0
    assert Bot.parse("pimc:8").shifts == (0, 0, 0, 0)


@pytest.mark.parametrize(
    "name", ["heuristic:41", "heuristic:-41", "heuristic:x", "heuristic:1/2/3"]
)
def test_a_bad_bid_shift_is_refused(name: str) -> None:
    with pytest.raises(TarotInputError, match="heuristic:B"):
        Bot.parse(name)


def test_its_ecart_makes_a_void() -> None:
    p = PARAMS["fft-4"]
    # 18 cards and the dog: two low diamonds and no king of diamonds, a void for the taking.
    lo, hi = hand("21 16 14 10 8 6 4 3 KS QS 5S 2S KH 9H 6H 5H 3H 7D 4D KC QC JC 9C 2C")
    free_lo, free_hi, _, _ = core.ecart_sets(lo, hi, p)
    out_lo, out_hi = heuristic.ecart(lo, hi, free_lo, free_hi, 6, p)
    assert cards.SUIT_MASKS[cards.DIAMONDS] & int(lo) & ~int(out_lo) == 0  # diamonds gone
    assert int(out_lo) & ~int(free_lo) == 0 and int(out_hi) & ~int(free_hi) == 0
    assert bin(int(out_lo)).count("1") + bin(int(out_hi)).count("1") == 6
    assert int(out_hi) == 0  # no trump while suit cards may go


def test_it_calls_a_king_it_does_not_hold_in_its_longest_suit() -> None:
    p = PARAMS["fft-5"]
    lo, hi = hand("21 16 10 8 4 E KS QH 9H 7H 3H 2D 8C 6C 5C")
    candidates = U64(cards.KINGS_MASK)
    assert heuristic.call(lo, hi, candidates, p) == cards.KING_OF_HEARTS


def test_the_taker_shows_its_poignee_and_a_defender_a_simple_one_rarely() -> None:
    p = PARAMS["fft-4"]
    lo, hi = hand(STRONG)
    assert heuristic.poignee(0, lo, hi, 1, True, p) == 1
    assert heuristic.poignee(1, lo, hi, 1, False, p) == 0


@pytest.mark.parametrize(
    ("held", "announces"),
    [
        ("21 20 19 18 17 16 15 14 13 12 11 10 9 8 7 6 5 E", True),
        ("21 20 19 18 17 16 15 14 13 12 11 10 KS QS CS KH QH E", True),
        ("21 20 19 18 17 16 15 14 13 12 11 10 KS QS JS KH QH E", False),  # the jack may fall
        (STRONG, False),
    ],
)
def test_it_announces_only_a_sure_chelem(held: str, announces: bool) -> None:
    lo, hi = hand(held)
    assert heuristic.chelem(lo, hi, PARAMS["fft-4"]) is announces


# --------------------------------------------------------------------------------------------
# Against the random bot
# --------------------------------------------------------------------------------------------


def test_heuristic_is_registered() -> None:
    assert BOTS[HEURISTIC] == "heuristic"


def test_heuristic_beats_random_in_duplicate() -> None:
    result = duplicate("fft-4", 3_000, "heuristic", "random", seed=7)
    assert result.n == 3_000
    assert result.mean_diff > 20
    assert result.ci_low > 0


@pytest.mark.parametrize("rules_name", ["fft-3", "six-king-queen"])
def test_its_bidding_beats_the_thresholds_before_in_duplicate(rules_name: str) -> None:
    # One seat bidding with the current thresholds, the others with the earlier ones.
    then = HEURISTIC_THEN[load_rules(rules_name).players]
    result = duplicate(rules_name, 5_000, "heuristic", then, seed=21)
    assert result.ci_low > 0


@pytest.mark.parametrize("rules_name", ["fft-3", "fft-4", "fft-5"])
def test_most_deals_find_a_taker(rules_name: str) -> None:
    outcomes = play(load_rules(rules_name), 4_000, bots="heuristic", seed=9).outcomes
    assert np.mean(outcomes[:, COL["redeal"]] == 0) > 0.55
