"""Tarocco played to the end (docs/rules.md#tarocco): random games checked by the referee, and
named deals.

The referee (``tests/reference_play.py``) replays every recorded deal card by card: the
dealer's discard, every card, every trick's winner (two cards contest a trick while the Fool is
shown; at the last trick the Fool is the lowest tarocco), and each player's count.
Suits are written with the French letters: S wands, H cups, D swords, C coins.
"""

from __future__ import annotations

import numpy as np
import pytest

from tarot_analysis.bots import BOTS
from tarot_analysis.deals.deal import deal
from tarot_analysis.errors import TarotInputError
from tarot_analysis.game import cards
from tarot_analysis.game.rules import Rules, load_rules
from tarot_analysis.table.play import PlayResult, play, play_counts, play_given, replay
from tarot_analysis.table.tarocco import (
    EVENT_COLUMNS,
    PART_NAMES,
    dealer_of,
    settle_matches,
    totals_half,
)
from tests import reference_play as ref

TAROCCO = load_rules("tarocco")
PART = {name: i for i, name in enumerate(PART_NAMES)}
EVENT = {name: i for i, name in enumerate(EVENT_COLUMNS)}
HONOURS = {cards.TWENTY_ONE, cards.PETIT, cards.EXCUSE}
KINGS = {cards.suit_card(suit, cards.KING) for suit in range(4)}
PACK_HALF_POINTS = 166  # the pack counts 83


def names(text: str) -> list[int]:
    return list(cards.parse_cards(text))


def hand_of(result: PlayResult, d: int, group: int) -> set[int]:
    lo, hi = result.masks[d, group]
    return set(cards.from_mask(int(lo), int(hi)))


def tarocchi_in(hand: set[int]) -> int:
    return sum(card >= cards.EXCUSE for card in hand)


def referee(result: PlayResult, d: int) -> None:
    """Replay deal ``d`` with the reference rules; fail on the first thing that is wrong."""
    rules = result.rules
    tarocco = rules.tarocco
    assert tarocco is not None
    assert result.tricks is not None and result.leaders is not None
    assert result.ecarts is not None
    players, tricks = rules.players, rules.hand_size
    dealer = int(result.events[d, EVENT["dealer"]])
    hands = [hand_of(result, d, seat) for seat in range(players)]
    extra = hand_of(result, d, players)
    discard = set(cards.from_mask(int(result.ecarts[d, 0]), int(result.ecarts[d, 1])))
    assert len(discard) == rules.dog_size and not discard & (KINGS | HONOURS), (d, discard)
    assert ref.is_legal_ecart(hands[dealer] | extra, discard, rules), (d, discard)
    hands[dealer] = (hands[dealer] | extra) - discard
    premium = [
        tarocco.tarocchi_premium if tarocchi_in(hand) >= tarocco.tarocchi_premium_count else 0
        for hand in hands
    ]
    piles: list[list[int]] = [[] for _ in range(players)]
    piles[dealer] += discard
    won = [0] * players
    magician = [0] * players
    leader = dealer
    for t in range(tricks):
        last = t == tricks - 1
        assert result.leaders[d, t] == leader, (d, t)
        trick: list[int] = []  # the cards contesting it: a shown Fool is none of them
        seats: list[int] = []
        for k in range(players):
            seat = (leader + k) % players
            card = int(result.tricks[d, t, k])
            legal = ref.legal_cards(hands[seat], trick, rules)
            assert card in legal, (d, t, seat, cards.card_name(card), trick)
            hands[seat].remove(card)
            if card == cards.EXCUSE and not last:
                piles[seat].append(card)
                assert result.events[d, EVENT["fool_shown_trick"]] == t
                continue
            trick.append(card)
            seats.append(seat)
        winner = seats[ref.trick_winner(trick, excuse_is_lowest_trump=last)]
        piles[winner] += trick
        won[winner] += 1
        if last and cards.PETIT in trick:
            player = seats[trick.index(cards.PETIT)]
            magician[player] = (
                tarocco.magician_last_trick
                if player == winner
                else tarocco.magician_lost_last_trick
            )
        leader = winner
    assert result.leaders[d, tricks] == leader
    assert all(not hand for hand in hands)
    assert sorted(card for pile in piles for card in pile) == list(range(78))  # each card once
    points = [ref.trick_points_half(pile, rules) for pile in piles]
    assert sum(points) == PACK_HALF_POINTS
    every_trick = [tarocco.all_tricks_premium if n == tricks else 0 for n in won]
    parts = result.parts[d]
    assert parts[PART["points"]].tolist() == points, d
    assert parts[PART["magician"]].tolist() == [2 * m for m in magician], d
    assert parts[PART["tarocchi"]].tolist() == [2 * p for p in premium], d
    assert parts[PART["all_tricks"]].tolist() == [2 * p for p in every_trick], d
    assert result.tricks_won[d].tolist() == won


# --------------------------------------------------------------------------------------------
# Random games
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module", params=sorted(set(BOTS) - {"learned"}))  # no Tarocco model
def run(request: pytest.FixtureRequest) -> PlayResult:
    """Games of every bot, replayed card by card by the referee below."""
    search = request.param == "pimc"  # the search bot plays far fewer deals a second
    return play(
        TAROCCO, 30 if search else 600, bots="pimc:4" if search else request.param, seed=11,
        chunk_size=60, keep_tricks=True,
    )  # fmt: skip


def test_random_games_are_played_by_the_rules(run: PlayResult) -> None:
    for d in range(len(run)):
        referee(run, d)
    assert np.any(run.events[:, EVENT["fool_shown_trick"]] >= 0)


def test_the_piles_count_83_every_deal(run: PlayResult) -> None:
    assert np.all(run.parts[:, PART["points"]].sum(axis=1) == PACK_HALF_POINTS)
    scores = run.scores()
    points = scores[[f"points_{seat}" for seat in range(3)]].sum(axis=1)
    assert np.all(points == 83.0)
    parts = ("points", "magician", "premiums")
    for seat in range(3):
        total = sum(scores[f"{part}_{seat}"] for part in parts)
        assert np.allclose(scores[f"total_{seat}"], total)


def test_the_deal_moves_right_and_the_dealer_takes_the_extra_cards(run: PlayResult) -> None:
    assert run.dealers[:6].tolist() == [2, 0, 1, 2, 0, 1]
    assert np.array_equal(run.scores()["dealer"], dealer_of(np.arange(len(run)), TAROCCO))
    assert np.array_equal(run.leaders[:, 0], run.dealers)  # the dealer leads


def test_matches_are_three_deals_and_the_losers_pay_the_winner(run: PlayResult) -> None:
    scores = run.scores()
    matches = run.matches()
    assert len(matches) == len(run) // 3
    seats = range(3)
    totals = scores.groupby("match")[[f"total_{s}" for s in seats]].sum().to_numpy()
    assert np.allclose(matches[[f"total_{s}" for s in seats]].to_numpy(), totals)
    match_scores = matches[[f"score_{s}" for s in seats]].to_numpy()
    assert np.all(match_scores.sum(axis=1) == 0)
    top = totals.max(axis=1, keepdims=True)
    losers = totals < top
    assert np.allclose(match_scores[losers], (totals - top)[losers])
    sole = matches["winners"] == 1
    assert np.array_equal(
        totals[sole.to_numpy()].argmax(axis=1), matches["winner"][sole].to_numpy()
    )


def test_same_seed_same_games_on_one_or_two_threads() -> None:
    one = play(TAROCCO, 300, seed=5, chunk_size=30, threads=1, keep_tricks=True)
    two = play(TAROCCO, 300, seed=5, chunk_size=30, threads=2, keep_tricks=True)
    for name in ("masks", "parts", "tricks_won", "events", "tricks", "leaders", "ecarts"):
        assert getattr(one, name).tobytes() == getattr(two, name).tobytes(), name
    assert one.metadata == two.metadata


def test_the_deals_are_the_dealers_deals_of_the_same_seed() -> None:
    played = play(TAROCCO, 90, seed=3, chunk_size=30)
    dealt = deal(TAROCCO, 90, seed=3, chunk_size=30)
    assert np.array_equal(played.masks, dealt.masks)


def test_a_chunk_must_hold_whole_matches() -> None:
    with pytest.raises(TarotInputError, match="multiple of the 3 deals of a match"):
        play(TAROCCO, 30, chunk_size=100)
    with pytest.raises(TarotInputError, match="multiple of the 3 deals of a match"):
        replay(TAROCCO, 5, chunk_size=10)
    with pytest.raises(TarotInputError, match="3 bots were expected"):
        play(TAROCCO, 30, bots=["random"] * 4)


def test_tarocco_goes_through_the_one_pipeline_of_every_preset() -> None:
    run = play(TAROCCO, 30, seed=4, chunk_size=15, keep_tricks=True)
    assert run.metadata["match_deals"] == 3 and run.metadata["chunk_size"] == 15
    for number in (0, 16, 29):
        one = replay(TAROCCO, number, seed=4, chunk_size=15)
        for name in ("masks", "parts", "tricks_won", "events", "tricks", "leaders", "ecarts"):
            assert np.array_equal(getattr(one, name)[0], getattr(run, name)[number]), name
    assert run.bids is not None and np.all(run.bids == -2)  # no auction
    assert np.array_equal(run.dealers, dealer_of(np.arange(30), TAROCCO))
    # What is the French presets' alone is refused in one line.
    with pytest.raises(TarotInputError, match="Tarocco has no contracts"):
        run.counts()
    with pytest.raises(TarotInputError, match="Tarocco has no contracts"):
        play_counts(TAROCCO, 30)
    french = play(load_rules("fft-3"), 30, chunk_size=30)
    assert french.parts is None and french.dealers.tolist() == [2] * 30
    with pytest.raises(TarotInputError, match="not a Tarocco preset"):
        french.matches()


def test_only_tarocco_names_its_dealers_and_hands_must_have_their_size() -> None:
    fft_3 = load_rules("fft-3")
    pack = cards.format_cards(range(78)).split()
    hands = [" ".join(pack[i * 24 : i * 24 + 24]) for i in range(3)] + [" ".join(pack[72:])]
    with pytest.raises(TarotInputError, match="dealers are Tarocco's"):
        play_given(fft_3, [hands], dealers=[0])
    uneven = [" ".join(pack[:25]), " ".join(pack[25:48]), *hands[2:]]
    with pytest.raises(TarotInputError, match="a hand of 24 cards was expected, got 25"):
        play_given(fft_3, [uneven])
    with pytest.raises(TarotInputError, match="a hand of 24 cards was expected, got 25"):
        play_given(TAROCCO, [uneven])


def test_an_unfinished_match_is_left_out() -> None:
    result = play(TAROCCO, 7, seed=2, chunk_size=3)
    assert len(result.scores()) == 7 and len(result.matches()) == 2


def test_a_shared_highest_total_shares_what_the_losers_pay() -> None:
    assert settle_matches([[120.5, 80, 100]]).tolist() == [[61.0, -40.5, -20.5]]
    assert settle_matches([[100, 100, 70]]).tolist() == [[15.0, 15.0, -30.0]]
    assert settle_matches([[90, 90, 90]]).tolist() == [[0.0, 0.0, 0.0]]


# --------------------------------------------------------------------------------------------
# Named deals
# --------------------------------------------------------------------------------------------


def line_of_play(
    rules: Rules, hands: list[str], dealer: int, discard: str, preferences: list[str]
) -> list[list[str | None]]:
    """The script of a deal played by the reference rules: at every turn a seat plays the
    first card of its ``preferences`` that is legal (the Fool, before the last trick, shown)."""
    held = [set(names(text)) for text in hands[: rules.players]]
    held[dealer] = (held[dealer] | set(names(hands[rules.players]))) - set(names(discard))
    order = [names(text) for text in preferences]
    script: list[list[str | None]] = []
    leader = dealer
    for t in range(rules.hand_size):
        last = t == rules.hand_size - 1
        by_seat: list[str | None] = [None] * rules.players
        trick: list[int] = []
        seats: list[int] = []
        for k in range(rules.players):
            seat = (leader + k) % rules.players
            legal = ref.legal_cards(held[seat], trick, rules)
            card = next(card for card in order[seat] if card in legal)
            held[seat].remove(card)
            by_seat[seat] = cards.card_name(card)
            if card != cards.EXCUSE or last:
                trick.append(card)
                seats.append(seat)
        script.append(by_seat)
        leader = seats[ref.trick_winner(trick, excuse_is_lowest_trump=last)]
    return script


def played_as_scripted(
    hands: list[str], discard: str, preferences: list[str], dealer: int = 2
) -> tuple[PlayResult, list[list[str | None]]]:
    script = line_of_play(TAROCCO, hands, dealer, discard, preferences)
    result = play_given(
        TAROCCO, [hands], dealers=[dealer], script=[script], ecart=[discard], seed=1
    )
    referee(result, 0)
    assert result.tricks is not None
    for t, by_seat in enumerate(script):
        leader = int(result.leaders[0, t])
        in_order = [by_seat[(leader + k) % 3] for k in range(3)]
        assert [cards.card_name(int(c)) for c in result.tricks[0, t]] == in_order
    return result, script


def points(result: PlayResult) -> list[float]:
    return [p / 2 for p in result.parts[0, PART["points"]].tolist()]


def part(result: PlayResult, name: str) -> list[float]:
    return [p / 2 for p in result.parts[0, PART[name]].tolist()]


def totals(result: PlayResult) -> list[float]:
    return [p / 2 for p in totals_half(result)[0].tolist()]


# The dealer (seat 2) holds every tarocco but the Fool, all the kings and queens and the knight
# of wands; seat 0 the Fool, wands and cups; seat 1 swords and coins.
TRUMPS = " ".join(str(n) for n in range(1, 22))
WANDS_AND_CUPS = "1S 2S 3S 4S 5S 6S 7S 8S 9S 10S JS 1H 2H 3H 4H 5H 6H 7H 8H 9H 10H JH CH"
SWORDS_AND_COINS = "2D 3D 4D 5D 6D 7D 8D 9D 10D JD CD 1D 2C 3C 4C 5C 6C 7C 8C 9C 10C JC CC 1C"
STRONG_DEALER = [
    "E " + WANDS_AND_CUPS,
    SWORDS_AND_COINS,
    TRUMPS + " KS KH KD",
    "KC QS QH QD QC CS",
]
PLAIN_TRUMPS_OUT = "2 3 4 5 6 7"  # the dealer keeps 15 tarocchi: I and VIII to XXI
TRUMPS_DOWN = "21 20 19 18 17 16 15 14 13 12 11 10 9 8"
HONOURS_OUT = "KS QS CS KH QH KD QD KC QC"


def test_the_fool_shown_is_set_aside_and_the_others_contest_the_trick() -> None:
    preferences = [
        "E " + WANDS_AND_CUPS,
        SWORDS_AND_COINS,
        f"{TRUMPS_DOWN} 1 {HONOURS_OUT}",
    ]
    result, script = played_as_scripted(STRONG_DEALER, PLAIN_TRUMPS_OUT, preferences)
    assert script[0] == ["E", "2D", "21"]  # XXI led, the Fool shown, the 2 of swords
    assert result.events[0, EVENT["fool_shown_trick"]] == 0
    assert result.events[0, EVENT["fool_seat"]] == 0
    assert result.tricks_won[0].tolist() == [0, 0, 24]  # the two-card trick went to the dealer
    assert points(result) == [4.5, 0.0, 78.5]  # the Fool stays with its holder
    assert part(result, "tarocchi") == [0.0, 0.0, 10.0]  # 15 tarocchi after the discard
    assert part(result, "all_tricks") == [0.0, 0.0, 20.0]
    assert part(result, "magician") == [0.0, 0.0, 0.0]  # the Magician went at trick 14
    assert totals(result) == [4.5, 0.0, 108.5]


def test_the_fool_shown_on_the_lead_lets_the_next_player_lead() -> None:
    hands = [
        "1S 2S 3S 4S 6S 7S 8S 9S 10S JS CS QS KS 1H 2H 3H 4H 5H 6H 7H 8H 9H 10H JH",
        "5S QH KH CH 1D 2D 3D 4D 5D 6D 7D 8D 9D 10D JD CD QD KD 1C 2C 3C 4C 5C 6C",
        "E " + TRUMPS + " 7C KC",
        "8C 9C 10C JC CC QC",
    ]  # fmt: skip
    first = [["KS", "5S", "E"]]
    result = play_given(TAROCCO, [hands], dealers=[2], script=[first], seed=4)
    referee(result, 0)
    assert result.tricks is not None and result.leaders is not None
    assert [cards.card_name(int(c)) for c in result.tricks[0, 0]] == ["E", "KS", "5S"]
    assert result.leaders[0, 1] == 0  # the king of wands took the two-card trick
    assert result.events[0, EVENT["fool_shown_trick"]] == 0


def test_the_magician_winning_the_last_trick_scores_10() -> None:
    preferences = [
        WANDS_AND_CUPS + " E",  # the Fool kept to the end: the lowest tarocco there
        SWORDS_AND_COINS,
        f"{TRUMPS_DOWN} {HONOURS_OUT} 1",
    ]
    result, script = played_as_scripted(STRONG_DEALER, PLAIN_TRUMPS_OUT, preferences)
    assert script[-1] == ["E", "1C", "1"]  # the Magician led, the Fool below it
    assert result.events[0, EVENT["magician_last_trick_seat"]] == 2
    assert part(result, "magician") == [0.0, 0.0, 10.0]
    assert points(result) == [0.0, 0.0, 83.0]  # the Fool played at the last trick is taken
    assert totals(result) == [0.0, 0.0, 123.0]  # 83 + Magician 10 + tarocchi 10 + every trick 20


def test_the_fool_at_the_last_trick_trumps_a_suit_lead() -> None:
    preferences = [
        WANDS_AND_CUPS + " E",
        SWORDS_AND_COINS,
        f"{TRUMPS_DOWN} 1 {HONOURS_OUT}",
    ]
    result, script = played_as_scripted(STRONG_DEALER, PLAIN_TRUMPS_OUT, preferences)
    assert script[-1] == ["E", "1C", "QC"]  # queen of coins led; the Fool is a tarocco here
    assert result.events[0, EVENT["last_trick_winner"]] == 0
    assert result.tricks_won[0].tolist() == [1, 0, 23]
    assert points(result) == [8.5, 0.0, 74.5]  # the Fool, the queen and the ace of coins
    assert part(result, "all_tricks") == [0.0, 0.0, 0.0]
    assert part(result, "magician") == [0.0, 0.0, 0.0]


def test_the_magician_lost_at_the_last_trick_costs_10() -> None:
    # Seat 0 holds the low tarocchi and keeps the Magician; seat 1 the high ones, the World last.
    low_suits = "1S 2S 3S 4S 5S 6S 7S 1H 2H 3H 4H 5H 6H 7H"
    high_suits = "8S 9S 10S 8H 9H 10H 1D 2D 3D 1C 2C 3C"
    dealer_suits = [
        card
        for card in range(cards.N_SUIT_CARDS)
        if card not in set(names(low_suits)) | set(names(high_suits))
    ]
    hands = [
        "1 2 3 4 5 6 7 8 9 10 " + low_suits,
        "E 11 12 13 14 15 16 17 18 19 20 21 " + high_suits,
        cards.format_cards(dealer_suits[:24]),
        cards.format_cards(dealer_suits[24:]),
    ]
    discard = "4D 5D 6D 4C 5C 6C"
    preferences = [
        low_suits + " 2 3 4 5 6 7 8 9 10 1",
        "E " + high_suits + " 11 12 13 14 15 16 17 18 19 20 21",
        cards.format_cards(dealer_suits),
    ]
    result, script = played_as_scripted(hands, discard, preferences)
    assert script[-1][:2] == ["1", "21"]  # the Magician against the World
    assert result.events[0, EVENT["magician_last_trick_seat"]] == 0
    assert result.events[0, EVENT["last_trick_winner"]] == 1
    assert part(result, "magician") == [-10.0, 0.0, 0.0]
    assert part(result, "tarocchi") == [0.0, 0.0, 0.0]  # 10 and 12 tarocchi: no declaration


def test_fifteen_tarocchi_are_declared_whatever_the_play() -> None:
    # Seat 0 holds the Fool and I to XIV: 15 tarocchi; seat 1 the other 7.
    suits = [cards.format_cards(range(s * 14, s * 14 + 14)).split() for s in range(4)]
    wands, cups, swords, coins = suits
    hands = [
        "E " + " ".join(str(n) for n in range(1, 15)) + " " + " ".join(wands[:9]),
        " ".join(str(n) for n in range(15, 22)) + " " + " ".join(wands[9:] + cups[:12]),
        " ".join(cups[12:] + swords + coins[:8]),
        " ".join(coins[8:]),
    ]
    result = play_given(TAROCCO, [hands] * 20, dealers=[2] * 20, seed=6)
    for d in range(20):
        referee(result, d)
    assert np.all(result.parts[:, PART["tarocchi"]] == [20, 0, 0])


def test_the_dealer_declares_the_tarocchi_left_after_his_discard() -> None:
    # The dealer holds sixteen tarocchi (II to XVII) and fourteen low wands and cups.
    sixteen = " ".join(str(n) for n in range(2, 18))
    dealer_suits = names("1S 2S 3S 4S 5S 6S 7S 8S 9S 10S 1H 2H 3H 4H")
    rest = [c for c in range(78) if c not in set(names(sixteen)) | set(dealer_suits)]
    hands = [
        cards.format_cards(rest[:24]),
        cards.format_cards(rest[24:]),
        sixteen + " " + cards.format_cards(dealer_suits[:8]),
        cards.format_cards(dealer_suits[8:]),
    ]
    keeps_all = cards.format_cards(dealer_suits[:6])
    drops_two = "2 3 " + cards.format_cards(dealer_suits[:4])
    result = play_given(
        TAROCCO, [hands, hands], dealers=[2, 2], ecart=[keeps_all, drops_two], seed=7
    )
    for d in range(2):
        referee(result, d)
    assert result.parts[0, PART["tarocchi"]].tolist() == [0, 0, 20]  # sixteen: at least 15
    assert result.parts[1, PART["tarocchi"]].tolist() == [0, 0, 0]  # fourteen after the discard


def test_scripted_cards_and_discards_must_be_legal() -> None:
    with pytest.raises(TarotInputError, match="discard is not legal"):
        play_given(TAROCCO, [STRONG_DEALER], dealers=[2], ecart=["KS 2 3 4 5 6"])
    with pytest.raises(TarotInputError, match="not legal at that point"):
        # The king of wands led: seat 0 holds wands and may not play a cup.
        play_given(
            TAROCCO,
            [STRONG_DEALER],
            dealers=[2],
            ecart=[PLAIN_TRUMPS_OUT],
            script=[[["E", "2D", "21"], ["1H", None, "KS"]]],
        )
    with pytest.raises(TarotInputError, match="3 hands and the dealer's extra cards"):
        play_given(TAROCCO, [STRONG_DEALER[:3]])
