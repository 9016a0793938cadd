"""One deal scored in compiled code agrees with the vectorised scoring, part for part."""

from __future__ import annotations

import numpy as np
import pytest

from tarot_analysis.engine.deal_score import scoring_params, seat_scores
from tarot_analysis.engine.outcome import N_OUTCOME, OUTCOME_COLUMNS
from tarot_analysis.engine.scoring import score_outcomes
from tarot_analysis.game.rules import list_presets, load_rules
from tarot_analysis.table.play import play

FRENCH = [name for name in list_presets() if load_rules(name).tarocco is None]
COL = {name: i for i, name in enumerate(OUTCOME_COLUMNS)}


def compiled(outcomes: np.ndarray, poignees: np.ndarray, preset: str) -> np.ndarray:
    rules = load_rules(preset)
    sp = scoring_params(rules)
    scores = np.zeros((len(outcomes), rules.players))
    for row in range(len(outcomes)):
        seat_scores(outcomes[row].astype(np.int64), poignees[row].astype(np.int64), sp, scores[row])
    return scores


def vectorised(outcomes: np.ndarray, poignees: np.ndarray, preset: str) -> np.ndarray:
    rules = load_rules(preset)
    table = score_outcomes(outcomes, poignees, rules)
    return table[[f"score_{seat}" for seat in range(rules.players)]].to_numpy()


@pytest.mark.parametrize("preset", FRENCH)
def test_played_deals_score_the_same(preset: str) -> None:
    for bot in ("random", "heuristic"):
        result = play(load_rules(preset), 800, bots=bot, seed=4)
        got = compiled(result.outcomes, result.poignees, preset)
        expected = vectorised(result.outcomes, result.poignees, preset)
        assert np.abs(got - expected).max() < 1e-9


def random_outcomes(preset: str, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Raw outcomes of every kind the rules allow, chelems and Petits au bout included."""
    rules = load_rules(preset)
    rng = np.random.default_rng(seed)
    players, tricks = rules.players, rules.hand_size
    rows = np.full((n, N_OUTCOME), -1, dtype=np.int32)
    rows[:, COL["redeal"]] = rng.choice([0, 0, 0, 0, 1, 2], n)
    taker = rng.integers(players, size=n)
    rows[:, COL["taker"]] = taker
    rows[:, COL["contract"]] = rng.integers(len(rules.contracts), size=n)
    for name in ("partner_1", "partner_2")[: rules.called_cards]:
        partner = (taker + 1 + rng.integers(players - 1, size=n)) % players
        rows[:, COL[name]] = np.where(rng.random(n) < 0.3, -1, partner)
    rows[:, COL["attack_half_points"]] = rng.integers(0, 183, size=n)
    rows[:, COL["attack_bouts"]] = rng.integers(0, 4, size=n)
    attack_tricks = rng.choice([0, 1, tricks // 2, tricks - 1, tricks], n)
    rows[:, COL["attack_tricks"]] = attack_tricks
    rows[:, COL["defence_tricks"]] = tricks - attack_tricks
    rows[:, COL["petit_au_bout"]] = rng.integers(-1, 2, size=n)
    rows[:, COL["petit_au_bout_seat"]] = rng.integers(players, size=n)
    rows[:, COL["petit_wins_last_trick"]] = rng.integers(0, 2, size=n)
    rows[:, COL["chelem_announced"]] = rng.integers(0, 2, size=n)
    poignees = rng.choice([0, 0, 0, 1, 2, 3], size=(n, players)).astype(np.int8)
    return rows, poignees


@pytest.mark.parametrize("preset", FRENCH)
def test_every_kind_of_outcome_scores_the_same(preset: str) -> None:
    rows, poignees = random_outcomes(preset, 3_000, seed=len(preset))
    got = compiled(rows, poignees, preset)
    expected = vectorised(rows, poignees, preset)
    assert np.abs(got - expected).max() < 1e-9
    assert np.abs(got.sum(axis=1)).max() < 1e-9
