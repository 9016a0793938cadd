"""Edge cases of the rules, each a known deal with named cards: the six-player calls, the older
rules' poignée and chelem Petit, the half point of a side that takes no trick, and forced calls.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from tarot_analysis.analyses.replay import describe
from tarot_analysis.engine.outcome import OUTCOME_COLUMNS
from tarot_analysis.engine.scoring import score_outcomes
from tarot_analysis.errors import TarotInputError
from tarot_analysis.game import cards
from tarot_analysis.game.rules import list_presets, load_rules
from tarot_analysis.table.play import play, play_given
from tests import reference_play as ref
from tests.test_engine import referee_all
from tests.test_engine_scenarios import deal_around

COL = {name: i for i, name in enumerate(OUTCOME_COLUMNS)}
FRENCH_PRESETS = [name for name in list_presets() if load_rules(name).tarocco is None]


def contract_index(rules_name: str, contract: str) -> int:
    rules = load_rules(rules_name)
    return rules.contracts.index(rules.contract(contract))


def ids(text: str) -> set[int]:
    return set(cards.parse_cards(text))


# --------------------------------------------------------------------------------------------
# Six players: two different called cards, and the second call holding all four queens
# --------------------------------------------------------------------------------------------

FOUR_KINGS = "KS KH KD KC 5S 4S 3H 2H 6D 5D 10C 2C"
FOUR_QUEENS = "QS QH QD QC KS 4S 3H 2H 6D 5D 10C 2C"


@pytest.mark.parametrize("preset", ["six-king-queen", "legacy-6"])
@pytest.mark.parametrize("bot", ["heuristic", "random"])
def test_holding_four_kings_the_first_call_is_any_suit_card_the_second_another_queen(
    preset: str, bot: str
) -> None:
    # The online rules page: with all four kings, a queen or any other suit card; then
    # a queen.
    rules = load_rules(preset)
    hands = deal_around(rules, {0: FOUR_KINGS})
    garde = contract_index(preset, "garde")
    result = play_given(rules, [hands] * 40, bots=bot, forced=[0, garde, -1, -1], seed=4)
    first = result.outcomes[:, COL["called_1"]]
    second = result.outcomes[:, COL["called_2"]]
    queens = ids("QS QH QD QC")
    assert all(card < cards.N_SUIT_CARDS for card in first) and set(second) <= queens
    assert np.all(first != second)
    if bot == "random":
        assert set(first) - queens  # not only queens
    assert referee_all(result) == 40


@pytest.mark.parametrize("bot", ["heuristic", "random"])
def test_holding_four_queens_the_second_call_is_any_other_suit_card(bot: str) -> None:
    rules = load_rules("six-king-queen")
    hands = deal_around(rules, {0: FOUR_QUEENS})
    garde = contract_index("six-king-queen", "garde")
    result = play_given(rules, [hands] * 60, bots=bot, forced=[0, garde, -1, -1], seed=5)
    first = set(result.outcomes[:, COL["called_1"]])
    second = set(result.outcomes[:, COL["called_2"]])
    assert first <= ids("KS KH KD KC")
    assert not second & ids("KS KH KD KC")  # never two kings
    assert all(card < cards.N_SUIT_CARDS for card in second)
    if bot == "random":
        # Its own queens and low suit cards are called too.
        assert second & ids("QS QH QD QC")
        assert second - ids("QS QH QD QC CS CH CD CC JS JH JD JC")


def test_holding_four_queens_a_low_card_may_be_called_second() -> None:
    rules = load_rules("six-king-queen")
    garde = contract_index("six-king-queen", "garde")
    hands = deal_around(rules, {0: FOUR_QUEENS})
    forced = [0, garde, cards.KING_OF_HEARTS, cards.parse_card("7D")]
    result = play_given(rules, [hands], forced=forced, seed=1)
    assert result.outcomes[0, COL["called_2"]] == cards.parse_card("7D")
    # Without all four queens the second call is a queen.
    other = deal_around(rules, {0: "QS QH QD KC KS 4S 3H 2H 6D 5D 10C 2C"})
    with pytest.raises(TarotInputError, match="second call is a queen"):
        play_given(rules, [other], forced=forced, seed=1)


@pytest.mark.parametrize("preset", ["six-king-queen", "legacy-6"])
def test_150000_heuristic_deals_never_call_one_card_twice(preset: str) -> None:
    rules = load_rules(preset)
    result = play(rules, 150_000, bots="heuristic", seed=1)
    played = result.outcomes[result.outcomes[:, COL["redeal"]] == 0]
    first, second = played[:, COL["called_1"]], played[:, COL["called_2"]]
    assert len(played) > 50_000
    assert np.all((first >= 0) & (second >= 0) & (first != second))
    assert not np.isin(second, list(ids("KS KH KD KC"))).any()


def test_the_deal_that_called_one_queen_twice_now_calls_two() -> None:
    # This deal (seed 1, deal 74) called the Queen of Spades twice before the rule was mended.
    rules = load_rules("six-king-queen")
    result = play(rules, 75, bots="heuristic", seed=1, keep_tricks=True)
    called = result.outcomes[74, [COL["called_1"], COL["called_2"]]]
    taker = int(result.outcomes[74, COL["taker"]])
    lo = int(result.masks[74, taker, 0])
    assert lo & cards.KINGS_MASK == cards.KINGS_MASK  # the taker holds all four kings
    assert called[0] != called[1]
    assert referee_all(result) > 40


def test_the_referee_catches_one_card_called_twice() -> None:
    rules = load_rules("six-king-queen")
    result = play(rules, 200, bots="heuristic", seed=3, keep_tricks=True)
    assert referee_all(result) > 100
    deal = int(np.flatnonzero(result.outcomes[:, COL["redeal"]] == 0)[0])
    result.outcomes[deal, COL["called_2"]] = result.outcomes[deal, COL["called_1"]]
    with pytest.raises(AssertionError):
        referee_all(result)


# --------------------------------------------------------------------------------------------
# Older rules: the taker's poignée is the taker's alone
# --------------------------------------------------------------------------------------------

TAKER_WITH_POIGNEE = "21 19 17 15 13 11 9 7 5 E KH QH 2S 3S 4S"  # 10 trumps and the Excuse


@pytest.mark.parametrize("preset", ["legacy-5", "fft-5"])
def test_older_rules_poignee_is_won_by_the_taker_alone(preset: str) -> None:
    rules = load_rules(preset)
    hands = deal_around(
        rules,
        {0: TAKER_WITH_POIGNEE, 1: "KS 20 18 1 6 8 10 2D 3D 4D 5D 6D 7D 8D 9D"},
        dog="1C 2C 3C",
    )
    prise = contract_index(preset, "prise")
    result = play_given(rules, [hands], bots="heuristic",
                        forced=[0, prise, cards.parse_card("KS"), -1], seed=2)  # fmt: skip
    row = result.scores().iloc[0]
    assert row["partner_1"] == 1 and result.poignees[0, 0] == 2  # double: 10 with the Excuse
    poignee = 30 if row["made"] else -30
    assert row["poignee"] == poignee
    rest = row["per_defender"] - poignee
    if preset == "legacy-5":
        # docs/rules.md#legacy-4: the taker wins or pays the 30 from each of the 3 defenders alone.
        assert row["score_0"] == 2 * rest + 3 * poignee
        assert row["score_1"] == rest
    else:
        # FFT: the poignée is the side's, shared like the rest.
        assert row["score_0"] == 2 * row["per_defender"]
        assert row["score_1"] == row["per_defender"]
    assert sum(row[f"score_{seat}"] for seat in range(5)) == 0
    assert referee_all(result) == 1


def test_the_legacy_five_deal_of_the_audit_gives_the_taker_the_poignee() -> None:
    rules = load_rules("legacy-5")
    result = play(rules, 4, bots="heuristic", seed=1, keep_tricks=True)
    row = result.scores().iloc[3]
    taker, partner = int(row["taker"]), int(row["partner_1"])
    assert (row[f"score_{taker}"], row[f"score_{partner}"]) == (588, 264)
    assert "The poignée is the taker's alone" in describe(result, 3)


@pytest.mark.slow
def test_the_referee_catches_a_poignee_shared_with_the_partner() -> None:
    rules = load_rules("legacy-5")
    result = play(rules, 3_000, bots="heuristic", seed=17, keep_tricks=True)
    assert referee_all(result) > 1_500
    sharing = dataclasses.replace(
        rules, poignee=dataclasses.replace(rules.poignee, scoring="winner")
    )
    faulty = score_outcomes(result.outcomes, result.poignees, sharing)
    right = score_outcomes(result.outcomes, result.poignees, rules)
    differs = (faulty["score_0"] != right["score_0"]) | (faulty["score_1"] != right["score_1"])
    assert differs.sum() > 10
    with pytest.raises(AssertionError, match="score_"):
        referee_all(result, faulty)


# --------------------------------------------------------------------------------------------
# Older rules: the Petit before the Excuse's last trick under a chelem is personal au bout
# --------------------------------------------------------------------------------------------

CHELEM_HAND = "21 20 19 18 17 16 15 14 13 12 11 10 9 8 7 6 1 E"


def chelem_with_the_petit_before_the_excuse(preset: str) -> tuple[float, float, float]:
    """Seat 0 takes every trick, the Petit wins the 17th and the Excuse leads the 18th."""
    rules = load_rules(preset)
    hands = deal_around(rules, {0: CHELEM_HAND})
    garde_sans = contract_index(preset, "garde_sans")
    order = CHELEM_HAND.split()  # the trumps from the top, then the Petit, then the Excuse
    script = [[card, None, None, None] for card in order]
    result = play_given(rules, [hands], forced=[0, garde_sans, -1, -1], script=[script], seed=3)
    out = result.outcomes[0]
    assert out[COL["attack_tricks"]] == 18
    assert result.leaders is not None and result.leaders[0, 18] == 0  # the Excuse won the last
    assert referee_all(result) == 1
    row = result.scores().iloc[0]
    return row["petit_au_bout"], row["petit_personal"], row["score_0"]


def test_fft_chelem_petit_before_the_excuse_is_au_bout_for_the_side() -> None:
    petit, personal, _ = chelem_with_the_petit_before_the_excuse("fft-4")
    assert (petit, personal) == (10 * 4, 0)  # Garde sans multiplies it by 4


def test_legacy_chelem_petit_before_the_excuse_earns_the_personal_bonus() -> None:
    petit, personal, _ = chelem_with_the_petit_before_the_excuse("legacy-4")
    assert (petit, personal) == (0, 10)


# --------------------------------------------------------------------------------------------
# The half point of a side that takes no trick, rounded away from the requirement
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("preset", ["fft-4", "legacy-4", "trumps-broken-4"])
def test_four_players_half_point_of_the_kept_excuse_is_rounded(preset: str) -> None:
    rules = load_rules(preset)
    march = "21 20 19 18 17 16 15 14 13 12 11 10 9 8 7 6 5"
    hands = deal_around(
        rules,
        {0: march + " 1", 1: "E 4 3 2 KS QS CS JS 10S 9S 8S 7S 6S 5S 4S 3S 2S 1S"},
        dog="1H 2H 3H 4H 5H 6H",
    )
    garde = contract_index(preset, "garde")
    script = [[card, None, None, None] for card in [*march.split(), "1"]]
    script[0][1] = "E"
    result = play_given(rules, [hands], forced=[0, garde, -1, -1], script=[script], seed=3)
    row = result.scores().iloc[0]
    # 86.5 points with 2 bouts (41 needed): made by 45.5, rounded away from 41 to 46.
    assert row["attack_points"] == 86.5
    assert row["margin"] == 46
    assert row["base"] == (25 + 46) * 2
    assert referee_all(result) == 1
    text = describe(result, 0)
    assert "86.5 points end in a half" in text and "rounded away from the requirement" in text


@pytest.mark.parametrize("preset", FRENCH_PRESETS)
def test_every_french_preset_rounds_a_half_point(preset: str) -> None:
    assert load_rules(preset).half_point_rounding == "away_from_requirement"


# --------------------------------------------------------------------------------------------
# Forced calls are checked
# --------------------------------------------------------------------------------------------


def test_a_forced_call_must_be_a_suit_card() -> None:
    rules = load_rules("fft-5")
    for card in ("21", "E", "1"):
        with pytest.raises(TarotInputError, match=f"forced call {card} is impossible.*suit card"):
            play(rules, 10, forced=[0, 1, cards.parse_card(card), -1])
    with pytest.raises(TarotInputError, match="not a card id"):
        play(rules, 10, forced=[0, 1, 78, -1])


def test_a_preset_that_calls_nothing_refuses_a_forced_call() -> None:
    with pytest.raises(TarotInputError, match=r"fft-4: the taker calls no card.*KH"):
        play(load_rules("fft-4"), 10, forced=[0, 1, cards.KING_OF_HEARTS, -1])
    with pytest.raises(TarotInputError, match=r"fft-5: the taker calls one card.*QS"):
        play(load_rules("fft-5"), 10, forced=[0, 1, cards.KING_OF_HEARTS, cards.parse_card("QS")])


def test_six_players_refuse_a_king_or_the_same_card_called_second() -> None:
    rules = load_rules("six-king-queen")
    king, queen = cards.KING_OF_HEARTS, cards.parse_card("QS")
    with pytest.raises(TarotInputError, match="never a king"):
        play(rules, 10, forced=[0, 1, king, cards.parse_card("KS")])
    with pytest.raises(TarotInputError, match="two different cards"):
        play(rules, 10, forced=[0, 1, queen, queen])
    with pytest.raises(TarotInputError, match="needs a forced first call"):
        play(rules, 10, forced=[0, 1, -1, queen])


def test_a_forced_call_needs_a_forced_taker() -> None:
    with pytest.raises(TarotInputError, match="needs a forced taker"):
        play(load_rules("fft-5"), 10, forced=[-1, -1, cards.KING_OF_HEARTS, -1])


def test_a_forced_call_the_hand_does_not_allow_is_refused() -> None:
    rules = load_rules("fft-5")
    hands = deal_around(rules, {0: "KS KH KD KC 21 20 19 5 4 QS 3H 2H 6D 5D 10C"})
    with pytest.raises(
        TarotInputError, match="deal 0: the forced call KH is not allowed: seat 0 holds all four "
        "kings, so calls a queen",
    ):  # fmt: skip
        play_given(rules, [hands], forced=[0, 1, cards.KING_OF_HEARTS, -1])
    result = play_given(rules, [hands], forced=[0, 1, cards.parse_card("QH"), -1])
    assert result.outcomes[0, COL["called_1"]] == cards.parse_card("QH")
    with pytest.raises(TarotInputError, match="the taker calls a king"):
        play_given(load_rules("fft-5"), [deal_around(rules, {0: "KS 21 20 19 5 4 QS QH QD QC "
                   "3H 2H 6D 5D 10C"})], forced=[0, 1, cards.parse_card("QH"), -1])  # fmt: skip


def test_a_forced_call_is_checked_on_every_dealt_hand() -> None:
    # Around a hand holding all four kings, a forced king call fails on the first deal.
    rules = load_rules("fft-5")
    hand = "KS KH KD KC 21 20 19 5 4 QS 3H 2H 6D 5D 10C"
    with pytest.raises(TarotInputError, match="deal 0: the forced call KH is not allowed"):
        play(rules, 100, forced=[0, 1, cards.KING_OF_HEARTS, -1], hand=hand, seat=0)


# --------------------------------------------------------------------------------------------
# Filled gaps said in each preset
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("preset", FRENCH_PRESETS)
def test_every_french_preset_names_the_defence_chelem_as_a_filled_gap(preset: str) -> None:
    rules = load_rules(preset)
    assert rules.chelem.defence == 200
    assert any("Defence chelem" in text and "filled gap" in text for text in rules.assumptions)


def test_trumps_broken_names_its_poignee_reading_and_offers_the_takers_only(
    tmp_path: Path,
) -> None:
    rules = load_rules("trumps-broken-4")
    assert any('who = "taker"' in text for text in rules.assumptions)
    path = tmp_path / "seed-poignee.toml"
    path.write_text('extends = "trumps-broken-4"\n[poignee]\nwho = "taker"\n', encoding="utf-8")
    taker_only = load_rules(path)
    row = np.full((1, len(OUTCOME_COLUMNS)), -1, dtype=np.int32)
    played = dict(redeal=0, taker=1, contract=0, attack_half_points=120, attack_bouts=1,
                  attack_tricks=12, defence_tricks=6, petit_au_bout=-1, petit_wins_last_trick=0,
                  chelem_announced=0)  # fmt: skip
    for name, value in played.items():
        row[0, COL[name]] = value
    shown = np.array([[2, 1, 0, 0]], dtype=np.int8)  # a defender's double, the taker's simple
    assert score_outcomes(row, shown, rules).loc[0, "poignee"] == 30 + 20
    assert score_outcomes(row, shown, taker_only).loc[0, "poignee"] == 20


def test_tarocco_names_its_low_card_assumption() -> None:
    assert any("Low cards" in text for text in load_rules("tarocco").assumptions)


def test_the_referee_marks_each_shared_reading_where_it_reads_it() -> None:
    here = Path(__file__).parent
    source = "".join(
        (here / name).read_text(encoding="utf-8")
        for name in ("reference_play.py", "test_engine.py")
    )
    for name in ref.READINGS:
        assert f"Reading: {name}" in source or f"Reading ({name})" in source, name


# --------------------------------------------------------------------------------------------
# Older rules, five players holding all four kings: any non-trump card may be called
# --------------------------------------------------------------------------------------------

FIVE_KINGS = "KS KH KD KC 21 20 19 5 4 QS 3H 2H 6D 5D 10C"


def test_legacy_five_holding_four_kings_may_call_any_suit_card() -> None:
    legacy, fft = load_rules("legacy-5"), load_rules("fft-5")
    hands = deal_around(legacy, {0: FIVE_KINGS})
    low = cards.parse_card("7D")
    result = play_given(legacy, [hands], forced=[0, 1, low, -1], seed=1)
    assert result.outcomes[0, COL["called_1"]] == low
    assert referee_all(result) == 1
    with pytest.raises(TarotInputError, match="holds all four kings, so calls a queen"):
        play_given(fft, [hands], forced=[0, 1, low, -1], seed=1)
    random_calls = play_given(legacy, [hands] * 60, bots="random", forced=[0, 1, -1, -1], seed=2)
    called = set(random_calls.outcomes[:, COL["called_1"]])
    assert all(card < cards.N_SUIT_CARDS for card in called)
    assert called - ids("QS QH QD QC")  # not only queens
    heuristic = play_given(legacy, [hands], bots="heuristic", forced=[0, 1, -1, -1], seed=2)
    assert heuristic.outcomes[0, COL["called_1"]] in ids("QH QD QC")  # a queen it lacks first


# --------------------------------------------------------------------------------------------
# The Excuse kept to the last trick (docs/rules.md#the-excuse)
# --------------------------------------------------------------------------------------------


class KeepsTheExcuse:
    """Plays a random legal card but the Excuse, which it keeps while it can; a random answer
    to every other decision."""

    name = "keeps-the-excuse"

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observation: object) -> int:
        legal = [int(a) for a in observation.legal_actions]  # type: ignore[attr-defined]
        if observation.decision == "card" and len(legal) > 1:  # type: ignore[attr-defined]
            legal = [action for action in legal if action != cards.EXCUSE]
        return legal[int(self.rng.integers(len(legal)))]


@pytest.mark.parametrize("preset", ["fft-4", "fft-5", "legacy-6", "trumps-broken-4"])
def test_the_excuse_kept_to_the_last_trick_goes_where_the_referee_says(preset: str) -> None:
    rules = load_rules(preset)
    bots = [KeepsTheExcuse(seat) for seat in range(rules.players)]
    result = play(rules, 150, bots=bots, seed=8, keep_tricks=True)
    assert referee_all(result) > 100
    assert result.tricks is not None and result.leaders is not None
    # Deals where the Excuse's own side won the last trick: the two readings part there.
    own_side_won = 0
    for deal in np.flatnonzero(result.outcomes[:, COL["redeal"]] == 0):
        row = result.outcomes[deal]
        attack = {int(row[COL["taker"]])} | {
            int(row[COL[name]]) for name in ("partner_1", "partner_2") if row[COL[name]] >= 0
        }
        last = [int(card) for card in result.tricks[deal, -1]]
        if cards.EXCUSE not in last:
            continue  # in the dog or the écart
        owner = (int(result.leaders[deal, -2]) + last.index(cards.EXCUSE)) % rules.players
        winner = int(result.leaders[deal, -1])
        own_side_won += owner != winner and (owner in attack) == (winner in attack)
    assert own_side_won >= 10
