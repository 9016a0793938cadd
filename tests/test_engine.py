"""The engine: every preset played to the end by every bot, checked by an independent referee.

The referee (``tests/reference_play.py``) is a plain-Python reading of the rules: it replays
each recorded deal card by card, checks that every card was legal and every trick went to the
right player, and counts the attack's points itself.
"""

from __future__ import annotations

import numpy as np
import pytest

from tarot_analysis import cards
from tarot_analysis.bots import BOTS
from tarot_analysis.engine.outcome import OUTCOME_COLUMNS
from tarot_analysis.engine.play import PlayResult, play
from tarot_analysis.errors import TarotInputError
from tarot_analysis.rules import list_presets, load_rules
from tests import reference_play as ref

FRENCH_PRESETS = [name for name in list_presets() if load_rules(name).tarocco is None]
COL = {name: i for i, name in enumerate(OUTCOME_COLUMNS)}


def hand_of(result: PlayResult, deal: int, seat: int) -> set[int]:
    lo, hi = result.masks[deal, seat]
    return set(cards.from_mask(int(lo), int(hi)))


def referee(result: PlayResult, deal: int) -> None:
    """Replay one deal with the reference rules; fail on the first thing that is wrong."""
    rules = result.rules
    players = rules.players
    row = result.outcomes[deal]
    assert result.tricks is not None and result.leaders is not None and result.ecarts is not None
    taker, contract = int(row[COL["taker"]]), int(row[COL["contract"]])
    called = tuple(int(c) for c in row[[COL["called_1"], COL["called_2"]]] if c >= 0)
    hands = [hand_of(result, deal, seat) for seat in range(players)]
    dog = hand_of(result, deal, players)
    dog_use = rules.contracts[contract].dog
    pile_attack: list[int] = []
    pile_defence: list[int] = []
    if dog_use == "taker":
        ecart = set(cards.from_mask(int(result.ecarts[deal, 0]), int(result.ecarts[deal, 1])))
        assert ref.is_legal_ecart(hands[taker] | dog, ecart, rules), (deal, ecart)
        hands[taker] = (hands[taker] | dog) - ecart
        pile_attack += ecart
    elif dog_use == "taker_unseen":
        pile_attack += dog
    else:
        pile_defence += dog
    partners = {seat for seat in range(players) if hands[seat] & set(called)} - {taker}
    assert {int(row[COL["partner_1"]]), int(row[COL["partner_2"]])} - {-1} == partners
    attack = {taker} | partners

    leader = 0 if rules.first_leader == "after_dealer" else players - 1
    trumps_broken = not rules.trumps_must_be_broken
    won = {True: 0, False: 0}
    excuse_debtor: bool | None = None
    tricks = rules.hand_size
    for t in range(tricks):
        assert result.leaders[deal, t] == leader, (deal, t)
        trick: list[int] = []
        for k in range(players):
            seat = (leader + k) % players
            card = int(result.tricks[deal, t, k])
            legal = ref.legal_cards(
                hands[seat], trick, rules, first_trick=t == 0, called_cards=called,
                trumps_broken=trumps_broken,
            )  # fmt: skip
            assert card in legal, (deal, t, seat, cards.card_name(card), trick)
            led = ref.led_card(trick)
            if ref.is_trump(card) and led is not None and ref.is_suit_card(led):
                trumps_broken = True
            hands[seat].remove(card)
            trick.append(card)
        last = t == tricks - 1
        excuse_side_took_all = won[(leader in attack) is False] == 0
        chelem_excuse = (
            last and trick[0] == cards.EXCUSE and rules.chelem.excuse_wins_last_trick
            and excuse_side_took_all
        )  # fmt: skip
        winner = (
            leader + ref.trick_winner(trick, last_trick_chelem_excuse=chelem_excuse)
        ) % players
        side = winner in attack
        won[side] += 1
        taken = list(trick)
        if cards.EXCUSE in trick and not last:
            owner = (leader + trick.index(cards.EXCUSE)) % players
            taken.remove(cards.EXCUSE)
            (pile_attack if owner in attack else pile_defence).append(cards.EXCUSE)
            if (owner in attack) != side:
                excuse_debtor = owner in attack
        (pile_attack if side else pile_defence).extend(taken)
        leader = winner
    assert all(not hand for hand in hands)
    assert sorted(pile_attack + pile_defence) == list(range(78))
    attack_half = ref.trick_points_half(pile_attack, rules)
    if excuse_debtor is not None and won[excuse_debtor] > 0:
        low = ref.card_half_points(cards.trump(2), rules.card_points)
        attack_half += -low if excuse_debtor else low
    assert row[COL["attack_half_points"]] == attack_half, deal
    assert row[COL["attack_tricks"]] == won[True] and row[COL["defence_tricks"]] == won[False]
    bouts = sum(card in (cards.EXCUSE, cards.PETIT, cards.TWENTY_ONE) for card in pile_attack)
    assert row[COL["attack_bouts"]] == bouts


@pytest.mark.parametrize("bot", sorted(BOTS))
@pytest.mark.parametrize("name", FRENCH_PRESETS)
def test_every_preset_played_by_the_rules(name: str, bot: str) -> None:
    rules = load_rules(name)
    result = play(rules, 1_000, bots=bot, seed=17, keep_tricks=True, chunk_size=400)
    played = np.flatnonzero(result.outcomes[:, COL["redeal"]] == 0)
    assert len(played) > 500
    for deal in played:
        referee(result, int(deal))


def test_forced_contracts_are_played_as_told() -> None:
    rules = load_rules("fft-5")
    king_of_hearts = cards.KING_OF_HEARTS
    forced = [2, rules.contracts.index(rules.contract("garde")), king_of_hearts, -1]
    result = play(rules, 500, seed=3, forced=forced, keep_tricks=True)
    played = result.outcomes[result.outcomes[:, COL["redeal"]] == 0]
    assert np.all(played[:, COL["taker"]] == 2)
    assert np.all(played[:, COL["contract"]] == 1)
    assert np.all(played[:, COL["called_1"]] == king_of_hearts)
    for deal in np.flatnonzero(result.outcomes[:, COL["redeal"]] == 0)[:200]:
        referee(result, int(deal))


def test_same_seed_same_games_on_one_or_two_threads() -> None:
    rules = load_rules("fft-4")
    one = play(rules, 3_000, seed=5, chunk_size=500, threads=1)
    two = play(rules, 3_000, seed=5, chunk_size=500, threads=2)
    assert one.outcomes.tobytes() == two.outcomes.tobytes()
    assert one.poignees.tobytes() == two.poignees.tobytes()


def test_petit_sec_and_all_passed_deals_are_redealt() -> None:
    rules = load_rules("fft-4")
    result = play(rules, 20_000, seed=8)
    redeal = result.outcomes[:, COL["redeal"]]
    assert 0 < np.mean(redeal == 1) < 0.01  # about 0.18% of deals hold a Petit sec
    assert np.mean(redeal == 2) > 0.03  # random bidders pass together now and then


def test_wrong_requests_are_refused() -> None:
    rules = load_rules("fft-4")
    with pytest.raises(TarotInputError, match="unknown bot 'clever'"):
        play(rules, 10, bots="clever")
    with pytest.raises(TarotInputError, match="4 bots were expected"):
        play(rules, 10, bots=["random"] * 3)
    with pytest.raises(TarotInputError, match="forced"):
        play(rules, 10, forced=[7, 0, -1, -1])


def test_scores_say_where_the_called_king_was_and_what_the_dog_held() -> None:
    rules = load_rules("fft-5")
    result = play(rules, 2_000, seed=12)
    scores = result.scores()
    played = scores[~scores["redeal"]]
    for deal, row in played.iterrows():
        king = cards.parse_card(row["called_1"])
        dog = set(cards.parse_cards(row["dog"]))
        taker_hand = hand_of(result, int(deal), int(row["taker"]))
        expected = "dog" if king in dog else "taker" if king in taker_hand else "partner"
        assert row["called_1_where"] == expected
        assert (row["partner_1"] >= 0) == (expected == "partner")
        assert row["dog_bouts"] == len(dog & {cards.EXCUSE, cards.PETIT, cards.TWENTY_ONE})
    seat_scores = played[[f"score_{seat}" for seat in range(5)]].sum(axis=1)
    assert (seat_scores.abs() < 1e-9).all()
    assert (
        played["taker_score"] == played.apply(lambda r: r[f"score_{int(r['taker'])}"], axis=1)
    ).all()
