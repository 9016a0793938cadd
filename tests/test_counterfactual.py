"""Every contract played on the same deals."""

from __future__ import annotations

import numpy as np
import pytest

from tarot_analysis.analyses.counterfactual import play_every_contract
from tarot_analysis.errors import TarotInputError
from tarot_analysis.game.rules import load_rules
from tarot_analysis.stats import normal_quantile
from tarot_analysis.table.play import play

HAND = "21 19 12 6 1 E KH CH 10H 8H 1H JD 8D QC CC 7C 6S 4S"


def test_prise_and_garde_share_their_play_and_differ_by_the_multiplier() -> None:
    rules = load_rules("fft-4")
    outcomes = play_every_contract(rules, 3_000, seat=1, seed=4)
    played = outcomes.played()
    prise = played[played["contract"] == "prise"].set_index("deal")
    garde = played[played["contract"] == "garde"].set_index("deal")
    assert (prise["made"] == garde["made"]).all()
    assert (prise["attack_points"] == garde["attack_points"]).all()
    # Without poignée or chelem, the Garde's score is twice the Prise's.
    plain = (prise["per_defender"].abs() > 0) & (garde["per_defender"] == 2 * prise["per_defender"])
    assert plain.mean() > 0.9


def test_each_use_of_the_dog_is_played_on_the_same_deals() -> None:
    rules = load_rules("fft-4")
    outcomes = play_every_contract(rules, 2_000, seat=0, seed=4)
    # The same deals as an ordinary run with the same seed: the dealer's stream is the same.
    forced = play(rules, 2_000, seed=4, forced=[0, 3, -1, -1])
    contre = outcomes.frame[outcomes.frame["contract"] == "garde_contre"].set_index("deal")
    scores = forced.scores()
    assert np.array_equal(
        contre["attack_points"].to_numpy(), scores["attack_points"].to_numpy(), equal_nan=True
    )


@pytest.mark.slow
def test_a_strong_hand_makes_more_often_with_the_dog() -> None:
    rules = load_rules("fft-4")
    summary = play_every_contract(rules, 4_000, seed=2, hand=HAND).summary()
    assert summary.at["garde", "rate"] > summary.at["garde_contre", "rate"]
    assert (summary["ci_low"] <= summary["rate"]).all() and (
        summary["rate"] <= summary["ci_high"]
    ).all()
    assert (summary["n"] == 4_000).all()


def test_the_score_interval_follows_the_confidence_asked() -> None:
    outcomes = play_every_contract(load_rules("fft-4"), 500, seed=1)
    wide, narrow = outcomes.summary(), outcomes.summary(confidence=0.5)
    half = (wide["score_ci_high"] - wide["score_ci_low"]) / 2
    narrow_half = (narrow["score_ci_high"] - narrow["score_ci_low"]) / 2
    ratio = normal_quantile(0.5) / normal_quantile(0.95)
    assert (narrow_half / half).to_numpy() == pytest.approx(ratio)


@pytest.mark.slow
def test_five_players_keep_one_call_for_every_contract() -> None:
    rules = load_rules("fft-5")
    outcomes = play_every_contract(rules, 1_500, seed=6)
    assert outcomes.frame.groupby("deal")["called_1"].nunique().max() == 1


def test_a_wrong_seat_is_refused() -> None:
    with pytest.raises(TarotInputError, match="seat must be between 0 and 3"):
        play_every_contract(load_rules("fft-4"), 10, seat=4)
