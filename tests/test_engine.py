"""The engine: every preset played to the end by every bot, checked by an independent referee.

The referee (``tests/reference_play.py``) is a plain-Python reading of the rules: it replays
each recorded deal card by card, checks that every card was legal and every trick went to the
right player, and counts the attack's points itself.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tarot_analysis.bots import BOTS
from tarot_analysis.bots.learned import SHIPPED
from tarot_analysis.engine.outcome import OUTCOME_COLUMNS, REDEAL_PETIT_SEC
from tarot_analysis.engine.scoring import score_outcomes
from tarot_analysis.errors import TarotInputError
from tarot_analysis.game import cards
from tarot_analysis.game.rules import list_presets, load_rules
from tarot_analysis.table.play import PlayResult, play
from tests import reference_play as ref

FRENCH_PRESETS = [name for name in list_presets() if load_rules(name).tarocco is None]
COL = {name: i for i, name in enumerate(OUTCOME_COLUMNS)}


def hand_of(result: PlayResult, deal: int, seat: int) -> set[int]:
    lo, hi = result.masks[deal, seat]
    return set(cards.from_mask(int(lo), int(hi)))


def referee(result: PlayResult, deal: int, scored: pd.DataFrame | None = None) -> None:
    """Replay one deal with the reference rules; fail on the first thing that is wrong.

    Checks the call, the écart, the poignées shown, every card and trick, the piles, and, when
    ``scored`` (the engine's :func:`score_outcomes` of the whole result) is given, every part of
    the score and every seat's score against :func:`reference_play.score_deal`.
    """
    rules = result.rules
    players = rules.players
    row = result.outcomes[deal]
    assert result.tricks is not None and result.leaders is not None and result.ecarts is not None
    taker, contract = int(row[COL["taker"]]), int(row[COL["contract"]])
    called = tuple(int(c) for c in row[[COL["called_1"], COL["called_2"]]] if c >= 0)
    hands = [hand_of(result, deal, seat) for seat in range(players)]
    dog = hand_of(result, deal, players)

    # The call (docs/rules.md#calling-a-partner-five-and-six-players): as many cards as
    # the rules call, each allowed for the hand.
    assert len(called) == rules.called_cards, (deal, called)
    if called:
        assert called[0] in ref.allowed_first_calls(hands[taker], rules), (deal, called)
    if len(called) == 2:
        assert called[1] in ref.allowed_second_calls(hands[taker], called[0]), (deal, called)
    holders = tuple(
        next((seat for seat in range(players) if card in hands[seat] and seat != taker), None)
        for card in called
    )
    partner_columns = (int(row[COL["partner_1"]]), int(row[COL["partner_2"]]))
    assert partner_columns[: len(called)] == tuple(-1 if h is None else h for h in holders)

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
    attack = {taker} | {seat for seat in holders if seat is not None}

    # Poignées: only from a seat allowed to show one, never more than its hand holds.
    shown = tuple(int(level) for level in result.poignees[deal])
    for seat, level in enumerate(shown):
        trumps_with_excuse = len(ref.trumps_in(hands[seat]) | (hands[seat] & {cards.EXCUSE}))
        allowed = rules.poignee.who == "any" or seat == taker
        assert level <= (rules.poignee_level(trumps_with_excuse) if allowed else 0), (deal, seat)

    announced = bool(row[COL["chelem_announced"]])
    leader = 0 if rules.first_leader == "after_dealer" else players - 1
    if announced and rules.chelem.announcer_leads:
        leader = taker
    trumps_broken = not rules.trumps_must_be_broken
    won = {True: 0, False: 0}
    excuse_debtor: bool | None = None
    petit = ref.PetitAtTheEnd()
    penultimate = ref.PetitAtTheEnd()
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
        # Reading: chelem_excuse_led.
        chelem_excuse = (
            last and trick[0] == cards.EXCUSE and rules.chelem.excuse_wins_last_trick
            and excuse_side_took_all
        )  # fmt: skip
        best = ref.trick_winner(trick, last_trick_chelem_excuse=chelem_excuse)
        winner = (leader + best) % players
        side = winner in attack
        won[side] += 1
        if cards.PETIT in trick:
            at = trick.index(cards.PETIT)
            petit_seat = (leader + at) % players
            if last:
                petit = ref.PetitAtTheEnd(side, petit_seat, best == at)
            elif t == tricks - 2:
                penultimate = ref.PetitAtTheEnd(side, petit_seat, best == at)
        if chelem_excuse and rules.chelem.petit_au_bout_penultimate and penultimate.seat >= 0:
            # docs/rules.md#chelem: under a chelem, the Petit at the trick before counts as au bout.
            # Reading: chelem_petit_must_win (for the personal bonus).
            petit = penultimate
        taken = list(trick)
        if cards.EXCUSE in trick and not last:
            owner = (leader + trick.index(cards.EXCUSE)) % players
            taken.remove(cards.EXCUSE)
            (pile_attack if owner in attack else pile_defence).append(cards.EXCUSE)
            if (owner in attack) != side:
                excuse_debtor = owner in attack
        elif cards.EXCUSE in trick and not chelem_excuse:
            # docs/rules.md#the-excuse: at the last trick it changes sides, or goes with the trick.
            owner = (leader + trick.index(cards.EXCUSE)) % players
            taken.remove(cards.EXCUSE)
            to_attack = ref.excuse_at_last_trick_to_attack(owner in attack, side, rules)
            (pile_attack if to_attack else pile_defence).append(cards.EXCUSE)
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
    if scored is None:
        return

    expected = ref.score_deal(
        rules, taker=taker, contract=contract, partners=holders,
        attack_half_points=attack_half, attack_bouts=bouts,
        attack_took_every_trick=won[False] == 0, defence_took_every_trick=won[True] == 0,
        petit=petit, poignees=shown, chelem_announced=announced,
    )  # fmt: skip
    engine = scored.iloc[deal]
    assert bool(engine["made"]) == expected.made, (deal, "made")
    assert engine["margin"] == expected.margin, (deal, "margin")
    for part in ("base", "petit_au_bout", "poignee", "chelem", "per_defender"):
        assert engine[part] == pytest.approx(float(getattr(expected, part)), abs=1e-9), (deal, part)
    for seat in range(players):
        assert engine[f"score_{seat}"] == pytest.approx(float(expected.scores[seat]), abs=1e-9), (
            deal,
            f"score_{seat}",
        )


def referee_all(result: PlayResult, scored: pd.DataFrame | None = None) -> int:
    """Referee every played deal of ``result``; the number of deals checked."""
    scored = (
        score_outcomes(result.outcomes, result.poignees, result.rules) if scored is None else scored
    )
    played = np.flatnonzero(result.outcomes[:, COL["redeal"]] == 0)
    for deal in played:
        referee(result, int(deal), scored)
    return len(played)


#: Deals refereed for each bot: the search bot plays far fewer deals a second.
REFEREED = {"random": 2_000, "heuristic": 2_000, "pimc": 60, "learned": 1_000}
#: The presets a learned model ships for: the learned bot is refereed on those.
LEARNED_PRESETS = sorted(path.stem for path in SHIPPED.glob("*.npz"))


@pytest.mark.parametrize(
    ("name", "bot"),
    [
        # the search bot, and five or six players, are refereed slowly: `make test-fast`
        # leaves them out
        pytest.param(name, bot, marks=pytest.mark.slow if slow else ())
        for bot in sorted(BOTS)
        for name in FRENCH_PRESETS
        if bot != "learned" or name in LEARNED_PRESETS
        for slow in [bot == "pimc" or load_rules(name).players >= 5]
    ],
)
def test_every_preset_played_by_the_rules(name: str, bot: str) -> None:
    rules = load_rules(name)
    deals = REFEREED[bot] if bot != "pimc" or rules.players < 6 else 24
    seats = "pimc:4" if bot == "pimc" else bot
    result = play(rules, deals, bots=seats, seed=17, keep_tricks=True, chunk_size=700)
    assert referee_all(result) > deals // 3


def test_forced_contracts_are_played_as_told() -> None:
    rules = load_rules("fft-5")
    king_of_hearts = cards.KING_OF_HEARTS
    forced = [2, rules.contracts.index(rules.contract("garde")), king_of_hearts, -1]
    result = play(rules, 500, seed=3, forced=forced, keep_tricks=True)
    played = result.outcomes[result.outcomes[:, COL["redeal"]] == 0]
    assert np.all(played[:, COL["taker"]] == 2)
    assert np.all(played[:, COL["contract"]] == 1)
    assert np.all(played[:, COL["called_1"]] == king_of_hearts)
    assert referee_all(result) > 400


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


@pytest.mark.parametrize("preset", ["fft-4", "fft-5"])
def test_a_seat_made_to_pass_passes_and_the_others_bid_as_before(preset: str) -> None:
    from tarot_analysis.engine.forced import passing

    rules = load_rules(preset)
    free = play(rules, 3_000, bots="heuristic", seed=4, keep_tricks=True)
    for seat in (0, rules.players - 1):
        made = play(
            rules,
            3_000,
            bots="heuristic",
            seed=4,
            keep_tricks=True,
            forced=[passing(seat), -1, -1, -1],
        )
        dealt = made.raw()["redeal"].to_numpy() != REDEAL_PETIT_SEC  # an auction was held
        assert (made.bids[dealt, seat] == -1).all()
        assert (made.masks == free.masks).all()  # the same deals
        # The heuristic bids from its hand and the best bid so far: the others bid as before
        # until someone bids over what the seat would have said.
        bid = free.bids[dealt, seat]
        assert (bid >= 0).any(), "some hands bid when free"
        others = [s for s in range(rules.players) if s < seat]
        for s in others:
            assert (made.bids[dealt, s] == free.bids[dealt, s]).all()
    with pytest.raises(TarotInputError, match="made to pass"):
        play(rules, 10, forced=[passing(rules.players), -1, -1, -1])
    with pytest.raises(TarotInputError, match="made to pass"):
        play(rules, 10, forced=[passing(0), 1, -1, -1])
