"""Scoring raw deal outcomes: published examples, shares, every bonus, and invariants."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tarot_analysis.engine.outcome import (
    N_OUTCOME,
    OUTCOME_COLUMNS,
    REDEAL_ALL_PASSED,
    REDEAL_NONE,
    REDEAL_PETIT_SEC,
)
from tarot_analysis.engine.scoring import SCORE_PARTS, score_outcomes
from tarot_analysis.game.rules import Rules, list_presets, load_rules

FFT_3 = load_rules("fft-3")
FFT_4 = load_rules("fft-4")
FFT_5 = load_rules("fft-5")
SIX = load_rules("six-king-queen")
LEGACY_4 = load_rules("legacy-4")
LEGACY_5 = load_rules("legacy-5")
TRUMPS_BROKEN_4 = load_rules("trumps-broken-4")
SCORED_PRESETS = [name for name in list_presets() if load_rules(name).tarocco is None]

OutcomeRow = npt.NDArray[np.int32]


def outcome(
    rules: Rules, contract: str | None = None, points: float | None = None, **columns: int
) -> OutcomeRow:
    """One raw outcome row: the columns given, −1 in the others.

    ``contract`` is a contract's name and ``points`` the attack's card points. A played deal
    (the default) has no announced chelem, no personal Petit au bout and, unless told, the
    tricks split without a chelem.
    """
    row = np.full(N_OUTCOME, -1, dtype=np.int32)
    values: dict[str, int] = {
        "redeal": REDEAL_NONE,
        "petit_wins_last_trick": 0,
        "chelem_announced": 0,
    }
    if contract is not None:
        values["contract"] = rules.contracts.index(rules.contract(contract))
    if points is not None:
        values["attack_half_points"] = round(2 * points)
    values.update(columns)
    tricks = rules.hand_size
    if "attack_tricks" in values and "defence_tricks" not in values:
        values["defence_tricks"] = tricks - values["attack_tricks"]
    elif "defence_tricks" in values and "attack_tricks" not in values:
        values["attack_tricks"] = tricks - values["defence_tricks"]
    elif "attack_tricks" not in values:
        values["attack_tricks"] = tricks // 2
        values["defence_tricks"] = tricks - tricks // 2
    for name, value in values.items():
        row[OUTCOME_COLUMNS.index(name)] = value
    return row


def score(rules: Rules, *rows: OutcomeRow, poignees: dict[int, int] | None = None) -> pd.DataFrame:
    """Score the rows; ``poignees`` maps a seat to the poignée level it showed in every row."""
    levels = np.zeros((len(rows), rules.players), dtype=np.int8)
    for seat, level in (poignees or {}).items():
        levels[:, seat] = level
    return score_outcomes(np.stack(rows), levels, rules)


def cell(table: pd.DataFrame, name: str, deal: int = 0) -> Any:
    """One value of the table."""
    return table[name].to_numpy()[deal]


def seat_scores(table: pd.DataFrame, deal: int = 0) -> list[float]:
    """The seat scores of one deal."""
    return [float(cell(table, f"score_{seat}", deal)) for seat in range(_players(table))]


def _players(table: pd.DataFrame) -> int:
    return sum(name.startswith("score_") for name in table.columns)


def assert_sums_to_zero(table: pd.DataFrame) -> None:
    scores = table[[f"score_{seat}" for seat in range(_players(table))]].to_numpy()
    np.testing.assert_allclose(scores.sum(axis=1), 0.0, atol=1e-9)


# ---------------------------------------------------------------------------------------------
# Published worked examples.
#
# The FFT formula ((25 + pt + pb) × mu) + pg + ch, docs/rules.md#the-score and the
# four-player scoring article; Fédération Française de Tarot, official rules (scoring chapter and
# its examples).


def test_fft_garde_with_petit_au_bout_to_the_taker() -> None:
    # Garde, 3 bouts, 49 points: 49 − 36 = 13; (25 + 13 + 10) × 2 = 96 per defender.
    row = outcome(FFT_4, "garde", 49, taker=0, attack_bouts=3, petit_au_bout=1)
    table = score(FFT_4, row)
    assert cell(table, "margin") == 13
    assert cell(table, "base") == 76
    assert cell(table, "petit_au_bout") == 20
    assert cell(table, "per_defender") == 96
    assert seat_scores(table) == [288, -96, -96, -96]
    assert_sums_to_zero(table)


def test_fft_garde_with_petit_au_bout_to_the_defence() -> None:
    # The same garde, the defence taking the Petit au bout: (25 + 13 − 10) × 2 = 56.
    row = outcome(FFT_4, "garde", 49, taker=2, attack_bouts=3, petit_au_bout=0)
    table = score(FFT_4, row)
    assert cell(table, "petit_au_bout") == -20
    assert cell(table, "per_defender") == 56
    assert seat_scores(table) == [-56, -56, 168, -56]


def test_fft_garde_sans_failed_by_seven_with_petit_au_bout_to_the_taker() -> None:
    # 2 bouts, 34 points: 7 short of 41. The Petit au bout counts whatever the result:
    # (25 + 7 − 10) × 4 = 88 to each defender.
    row = outcome(FFT_4, "garde_sans", 34, taker=1, attack_bouts=2, petit_au_bout=1)
    table = score(FFT_4, row)
    assert cell(table, "margin") == -7
    assert not cell(table, "made")
    assert cell(table, "base") == -128
    assert cell(table, "petit_au_bout") == 40
    assert cell(table, "per_defender") == -88
    assert seat_scores(table) == [88, -264, 88, 88]


@pytest.mark.parametrize(
    ("points", "margin", "made"),
    [(40.5, -1, False), (41.5, 1, True), (41, 0, True)],
)
def test_three_players_half_point_rounded_away_from_requirement(
    points: float, margin: int, made: bool
) -> None:
    # docs/rules.md#points-and-the-contract: in 3 players 40.5 with 2 bouts fails by 1 and 41.5
    # makes by 1.
    row = outcome(FFT_3, "garde", points, taker=0, attack_bouts=2)
    table = score(FFT_3, row)
    assert cell(table, "required") == 41
    assert cell(table, "margin") == margin
    assert cell(table, "made") == made
    assert cell(table, "base") == (1 if made else -1) * (25 + abs(margin)) * 2
    assert seat_scores(table)[0] == 2 * cell(table, "base")
    assert_sums_to_zero(table)


def test_half_point_kept_without_rounding() -> None:
    rules = dataclasses.replace(FFT_3, half_point_rounding="none")
    table = score(rules, outcome(rules, "prise", 40.5, taker=0, attack_bouts=2))
    assert cell(table, "margin") == -0.5
    assert cell(table, "base") == -25.5
    assert seat_scores(table) == [-51, 25.5, 25.5]


# ---------------------------------------------------------------------------------------------
# Shares.


def test_five_players_taker_with_partner() -> None:
    # Juste fait (41 with 2 bouts): 25 each; taker 2×, partner 1× (docs/rules.md#the-score).
    row = outcome(FFT_5, "prise", 41, taker=1, partner_1=3, called_1=0, attack_bouts=2)
    table = score(FFT_5, row)
    assert cell(table, "made")
    assert not cell(table, "alone")
    assert seat_scores(table) == [-25, 50, -25, 25, -25]


def test_five_players_taker_alone() -> None:
    # The called king in the dog or the taker's hand: the taker plays alone against four.
    row = outcome(FFT_5, "prise", 41, taker=1, called_1=0, attack_bouts=2)
    table = score(FFT_5, row)
    assert cell(table, "alone")
    assert seat_scores(table) == [-25, 100, -25, -25, -25]


def test_six_players_three_against_three() -> None:
    # 43 with 2 bouts: 27 each. The attack's 81: taker 1/2, king 1/3, queen 1/6
    # (docs/rules.md#the-score).
    row = outcome(SIX, "prise", 43, taker=0, partner_1=2, partner_2=4, attack_bouts=2)
    table = score(SIX, row)
    assert cell(table, "per_defender") == 27
    assert seat_scores(table) == [40.5, -27, 27, -27, 13.5, -27]
    assert_sums_to_zero(table)


@pytest.mark.parametrize(
    ("partner_1", "partner_2", "expected"),
    [
        (3, 3, [72, -27, -27, 36, -27, -27]),  # one partner holds both: the king's 1/3
        (3, -1, [72, -27, -27, 36, -27, -27]),  # the queen in the dog: 2/3 – 1/3
        (-1, 3, [90, -27, -27, 18, -27, -27]),  # the king in the taker's hand: 5/6 – 1/6
        (-1, -1, [135, -27, -27, -27, -27, -27]),  # alone: 5×
    ],
)
def test_six_players_fewer_partners(partner_1: int, partner_2: int, expected: list[float]) -> None:
    row = outcome(
        SIX, "prise", 43, taker=0, partner_1=partner_1, partner_2=partner_2, attack_bouts=2
    )
    table = score(SIX, row)
    assert seat_scores(table) == pytest.approx(expected, abs=1e-9)
    assert cell(table, "alone") == (partner_1 == partner_2 == -1)
    assert_sums_to_zero(table)


@pytest.mark.parametrize(
    ("both", "expected"),
    [
        ("first_share", [72, -27, -27, 36, -27, -27]),  # 2/3 – 1/3
        ("second_share", [90, -27, -27, 18, -27, -27]),  # 5/6 – 1/6
        ("both_shares", [54, -27, -27, 54, -27, -27]),  # 1/3 + 1/6
    ],
)
def test_six_players_one_partner_holding_both_calls(both: str, expected: list[float]) -> None:
    rules = dataclasses.replace(
        SIX, shares=dataclasses.replace(SIX.shares, both_calls_one_partner=both)
    )
    row = outcome(rules, "prise", 43, taker=0, partner_1=3, partner_2=3, attack_bouts=2)
    assert seat_scores(score(rules, row)) == pytest.approx(expected, abs=1e-9)


# ---------------------------------------------------------------------------------------------
# Poignée.


def test_poignee_shown_by_a_defender_goes_to_the_winning_attack() -> None:
    # FFT: to the side that wins the deal, whoever showed it, never multiplied.
    row = outcome(FFT_4, "garde", 49, taker=0, attack_bouts=3)
    table = score(FFT_4, row, poignees={2: 2})
    assert cell(table, "poignee") == 30
    assert cell(table, "per_defender") == 76 + 30
    assert seat_scores(table) == [318, -106, -106, -106]


def test_poignee_of_the_taker_goes_to_the_defence_when_the_contract_fails() -> None:
    row = outcome(FFT_4, "garde_contre", 30, taker=0, attack_bouts=2)
    table = score(FFT_4, row, poignees={0: 1, 3: 3})
    assert cell(table, "poignee") == -(20 + 40)
    assert cell(table, "base") == -(25 + 11) * 6


def test_legacy_poignee_is_won_or_lost_with_the_contract_by_the_taker() -> None:
    made = outcome(LEGACY_4, "garde", 49, taker=1, attack_bouts=3)
    failed = outcome(LEGACY_4, "garde", 30, taker=1, attack_bouts=3)
    table = score(LEGACY_4, made, failed, poignees={1: 1})
    assert table["poignee"].tolist() == [20, -20]


def test_legacy_poignee_only_counts_the_takers() -> None:
    # docs/rules.md#legacy-4: only the taker may announce a poignée.
    row = outcome(LEGACY_4, "garde", 49, taker=1, attack_bouts=3)
    table = score(LEGACY_4, row, poignees={0: 3, 2: 2})
    assert cell(table, "poignee") == 0


def test_legacy_five_players_poignee_is_the_takers_alone() -> None:
    # docs/rules.md#legacy-4: the taker alone wins the poignée from each defender; the partner
    # takes a share of the rest of the score only (25 here), neither paying nor receiving the 30.
    row = outcome(LEGACY_5, "prise", 41, taker=0, partner_1=1, attack_bouts=2)
    table = score(LEGACY_5, row, poignees={0: 2})
    assert cell(table, "per_defender") == 25 + 30
    assert seat_scores(table) == [2 * 25 + 3 * 30, 25, -55, -55, -55]
    lost = score(LEGACY_5, outcome(LEGACY_5, "prise", 30, taker=0, partner_1=1, attack_bouts=2),
                 poignees={0: 2})  # fmt: skip
    assert cell(lost, "per_defender") == -(25 + 11) - 30
    assert seat_scores(lost) == [-2 * 36 - 3 * 30, -36, 66, 66, 66]


def test_fft_five_players_poignee_is_shared_like_the_contract() -> None:
    row = outcome(FFT_5, "prise", 41, taker=0, partner_1=1, attack_bouts=2)
    table = score(FFT_5, row, poignees={0: 2})
    assert seat_scores(table) == [110, 55, -55, -55, -55]


# ---------------------------------------------------------------------------------------------
# Chelem (docs/rules.md#chelem).


@pytest.mark.parametrize(
    ("announced", "attack_tricks", "chelem"),
    [
        (1, 18, 400),  # announced and made
        (1, 17, -200),  # announced and failed
        (0, 18, 200),  # made without announcement
        (0, 17, 0),  # no chelem
        (0, 0, -200),  # the defence takes every trick: 200 to each defender
        (1, 0, -400),  # announced, and the defence takes every trick
    ],
)
def test_chelem(announced: int, attack_tricks: int, chelem: int) -> None:
    points, bouts = (91, 3) if attack_tricks else (0, 0)
    row = outcome(
        FFT_4,
        "garde",
        points,
        taker=0,
        attack_bouts=bouts,
        attack_tricks=attack_tricks,
        chelem_announced=announced,
    )
    table = score(FFT_4, row)
    assert cell(table, "chelem") == chelem
    assert cell(table, "per_defender") == cell(table, "base") + chelem
    assert seat_scores(table)[0] == 3 * cell(table, "per_defender")


# ---------------------------------------------------------------------------------------------
# Petit au bout.


@pytest.mark.parametrize(("taken_by", "expected"), [(1, 60), (0, -60), (-1, 0)])
def test_fft_petit_au_bout_is_multiplied(taken_by: int, expected: int) -> None:
    row = outcome(FFT_4, "garde_contre", 45, taker=3, attack_bouts=2, petit_au_bout=taken_by)
    table = score(FFT_4, row)
    assert cell(table, "petit_au_bout") == expected
    assert cell(table, "per_defender") == (25 + 4) * 6 + expected


def test_legacy_petit_au_bout_is_personal_and_not_multiplied() -> None:
    # docs/rules.md#legacy-4: every other player pays 10 to the Petit's player, even under a garde.
    row = outcome(
        LEGACY_4,
        "garde",
        49,
        taker=0,
        attack_bouts=3,
        petit_au_bout=0,
        petit_au_bout_seat=2,
        petit_wins_last_trick=1,
    )
    table = score(LEGACY_4, row)
    assert cell(table, "petit_au_bout") == 0
    assert cell(table, "petit_personal_seat") == 2
    assert cell(table, "petit_personal") == 10
    assert seat_scores(table) == [228 - 10, -76 - 10, -76 + 30, -76 - 10]
    assert_sums_to_zero(table)


def test_legacy_personal_petit_is_not_shared_with_the_partner() -> None:
    row = outcome(
        LEGACY_5,
        "prise",
        41,
        taker=0,
        partner_1=1,
        attack_bouts=2,
        petit_au_bout=1,
        petit_au_bout_seat=1,
        petit_wins_last_trick=1,
    )
    table = score(LEGACY_5, row)
    assert seat_scores(table) == [50 - 10, 25 + 40, -25 - 10, -25 - 10, -25 - 10]


def test_legacy_petit_au_bout_that_did_not_win_the_last_trick_pays_nothing() -> None:
    row = outcome(LEGACY_4, "prise", 49, taker=0, attack_bouts=3, petit_au_bout=1)
    table = score(LEGACY_4, row)
    assert cell(table, "petit_personal_seat") == -1
    assert seat_scores(table) == [114, -38, -38, -38]


# ---------------------------------------------------------------------------------------------
# Redeals, other presets, bad input.


@pytest.mark.parametrize("reason", [REDEAL_PETIT_SEC, REDEAL_ALL_PASSED])
def test_redealt_deal_scores_nothing(reason: int) -> None:
    played = outcome(FFT_5, "garde", 50, taker=0, partner_1=2, attack_bouts=1)
    redealt = np.full(N_OUTCOME, -1, dtype=np.int32)
    redealt[OUTCOME_COLUMNS.index("redeal")] = reason
    table = score(FFT_5, played, redealt, poignees={0: 3})
    assert table["redeal"].tolist() == [False, True]
    assert cell(table, "contract", 1) is pd.NA
    assert cell(table, "contract") == "garde"
    assert cell(table, "made", 1) is pd.NA
    assert cell(table, "alone", 1) is pd.NA
    assert cell(table, "taker", 1) == -1
    assert cell(table, "multiplier", 1) == 0
    for name in (*SCORE_PARTS, "per_defender"):
        assert cell(table, name, 1) == 0
    assert seat_scores(table, 1) == [0, 0, 0, 0, 0]
    assert table["made"].dtype == "boolean"


def test_score_parts_named() -> None:
    table = score(FFT_4, outcome(FFT_4, "prise", 40, taker=0, attack_bouts=2))
    assert SCORE_PARTS == ("base", "petit_au_bout", "poignee", "chelem")
    assert set(SCORE_PARTS) <= set(table.columns)


def test_tarocco_is_not_scored_here() -> None:
    tarocco = load_rules("tarocco")
    rows = np.zeros((1, N_OUTCOME), dtype=np.int32)
    with pytest.raises(ValueError, match="Tarocco"):
        score_outcomes(rows, np.zeros((1, tarocco.players), dtype=np.int8), tarocco)


@pytest.mark.parametrize(
    ("columns", "problem"),
    [
        ({"taker": 4}, "taker"),
        ({"contract": 7}, "contract"),
        ({"partner_1": 2}, "partner_1"),  # fft-4: nobody is called
        ({"attack_bouts": 4}, "attack_bouts"),
        ({"attack_tricks": 10, "defence_tricks": 10}, "tricks"),
        ({"petit_wins_last_trick": 1}, "petit_au_bout_seat"),
    ],
)
def test_impossible_outcome_refused(columns: dict[str, int], problem: str) -> None:
    values: dict[str, Any] = {"contract": "prise", "points": 40, "taker": 0, "attack_bouts": 2}
    values.update(columns)
    if "contract" in columns:
        values.pop("contract")
        row = outcome(FFT_4, **values)
        row[OUTCOME_COLUMNS.index("contract")] = columns["contract"]
    else:
        row = outcome(FFT_4, **values)
    with pytest.raises(ValueError, match=problem):
        score(FFT_4, row)


def test_wrong_shapes_refused() -> None:
    row = outcome(FFT_4, "prise", 40, taker=0, attack_bouts=2)
    with pytest.raises(ValueError, match="outcomes"):
        score_outcomes(row, np.zeros((1, 4), dtype=np.int8), FFT_4)
    with pytest.raises(ValueError, match="poignees"):
        score_outcomes(row[None, :], np.zeros((1, 5), dtype=np.int8), FFT_4)
    with pytest.raises(ValueError, match="poignees"):
        score_outcomes(row[None, :], np.full((1, 4), 4, dtype=np.int8), FFT_4)


# ---------------------------------------------------------------------------------------------
# Properties over random outcomes.


@st.composite
def outcomes(draw: st.DrawFn, rules: Rules) -> tuple[OutcomeRow, list[int]]:
    """One valid raw outcome for ``rules`` and the poignée level each seat showed."""
    players = rules.players
    levels = draw(st.lists(st.integers(0, 3), min_size=players, max_size=players))
    reason = draw(st.sampled_from([REDEAL_NONE] * 4 + [REDEAL_PETIT_SEC, REDEAL_ALL_PASSED]))
    if reason != REDEAL_NONE:
        row = np.full(N_OUTCOME, -1, dtype=np.int32)
        row[OUTCOME_COLUMNS.index("redeal")] = reason
        return row, levels
    taker = draw(st.integers(0, players - 1))
    others = [seat for seat in range(players) if seat != taker]
    partners = [draw(st.sampled_from([-1, *others])) for _ in range(rules.called_cards)]
    partners += [-1] * (2 - len(partners))
    attack_tricks = draw(st.integers(0, rules.hand_size))
    petit = draw(st.sampled_from([-1, 0, 1]))
    petit_won = draw(st.integers(0, 1)) if petit != -1 else 0
    row = outcome(
        rules,
        taker=taker,
        contract=draw(st.sampled_from([contract.name for contract in rules.contracts])),
        partner_1=partners[0],
        partner_2=partners[1],
        attack_half_points=draw(st.integers(0, 182)),
        attack_bouts=draw(st.integers(0, 3)),
        attack_tricks=attack_tricks,
        petit_au_bout=petit,
        petit_au_bout_seat=draw(st.sampled_from(range(players))) if petit != -1 else -1,
        petit_wins_last_trick=petit_won,
        chelem_announced=draw(st.integers(0, 1)),
    )
    return row, levels


@st.composite
def preset_and_outcomes(
    draw: st.DrawFn, presets: list[str] = SCORED_PRESETS
) -> tuple[Rules, npt.NDArray[np.int32], npt.NDArray[np.int8]]:
    rules = load_rules(draw(st.sampled_from(presets)))
    drawn = draw(st.lists(outcomes(rules), min_size=1, max_size=8))
    rows = np.stack([row for row, _ in drawn])
    levels = np.array([level for _, level in drawn], dtype=np.int8)
    return rules, rows, levels


@settings(max_examples=150, deadline=None)
@given(preset_and_outcomes())
def test_scores_sum_to_zero_and_defenders_pay_alike(
    drawn: tuple[Rules, npt.NDArray[np.int32], npt.NDArray[np.int8]],
) -> None:
    rules, rows, levels = drawn
    table = score_outcomes(rows, levels, rules)
    assert_sums_to_zero(table)
    parts = table[list(SCORE_PARTS)].sum(axis=1)
    np.testing.assert_allclose(table["per_defender"], parts, atol=1e-9)

    played = ~table["redeal"].to_numpy()
    made = table["made"].to_numpy(dtype=object)
    assert all(value is pd.NA for value in made[~played])
    assert list(made[played]) == list(table["margin"].to_numpy()[played] >= 0)

    # Take out the personal Petit au bout: every defender then pays per_defender.
    players = rules.players
    scores = table[[f"score_{seat}" for seat in range(players)]].to_numpy().copy()
    paid_to = table["petit_personal_seat"].to_numpy()
    paid = table["petit_personal"].to_numpy()
    for paying in np.flatnonzero(paid_to >= 0):
        scores[paying] += paid[paying]
        scores[paying, paid_to[paying]] -= paid[paying] * players
    for deal in map(int, np.flatnonzero(played)):
        attack = {int(cell(table, name, deal)) for name in ("taker", "partner_1", "partner_2")}
        defenders = [seat for seat in range(players) if seat not in attack]
        np.testing.assert_allclose(
            scores[deal, defenders], -cell(table, "per_defender", deal), atol=1e-9
        )
        assert cell(table, "alone", deal) == (attack - {-1} == {int(cell(table, "taker", deal))})
    np.testing.assert_array_equal(scores[~played], 0.0)

    # Scoring deals together is scoring each alone.
    alone = pd.concat(
        [score_outcomes(rows[i : i + 1], levels[i : i + 1], rules) for i in range(len(rows))],
        ignore_index=True,
    )
    pd.testing.assert_frame_equal(table, alone)


@settings(max_examples=50, deadline=None)
@given(preset_and_outcomes(["fft-4"]))
def test_trumps_broken_scores_as_fft(
    drawn: tuple[Rules, npt.NDArray[np.int32], npt.NDArray[np.int8]],
) -> None:
    # docs/rules.md#trumps-broken-4: the step-by-step scoring of the 2014 four-player rules
    # equals the FFT formula.
    _, rows, levels = drawn
    pd.testing.assert_frame_equal(
        score_outcomes(rows, levels, TRUMPS_BROKEN_4), score_outcomes(rows, levels, FFT_4)
    )
