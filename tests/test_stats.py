"""Rates, intervals and goodness-of-fit tests."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from tarot_analysis.deals.exact import hand_distribution
from tarot_analysis.errors import TarotInputError
from tarot_analysis.stats import (
    Z_95,
    GofResult,
    binomial_test_p,
    chi_square_gof,
    normal_quantile,
    rate_table,
    wilson_interval,
    z_score,
)

Z95 = float(norm.ppf(0.975))


def wilson_by_formula(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


# ---------------------------------------------------------------------------------------------
# Wilson intervals and rate tables.


def test_wilson_none_of_ten() -> None:
    low, high = wilson_interval(0, 10)
    assert float(low) == 0.0
    assert float(high) == pytest.approx(Z95**2 / (10 + Z95**2), rel=1e-12)


def test_wilson_half_of_ten() -> None:
    low, high = wilson_interval(5, 10)
    expected_low, expected_high = wilson_by_formula(5, 10)
    assert float(low) == pytest.approx(expected_low, rel=1e-12)
    assert float(high) == pytest.approx(expected_high, rel=1e-12)
    assert float(low) == pytest.approx(0.2366, abs=1e-4)
    assert float(low) + float(high) == pytest.approx(1.0, rel=1e-12)


def test_wilson_all_of_ten_reaches_one() -> None:
    low, high = wilson_interval(10, 10)
    assert float(high) == 1.0
    assert float(low) == pytest.approx(10 / (10 + Z95**2), rel=1e-12)


def test_wilson_arrays_match_scalars_and_empty_samples() -> None:
    successes = np.array([0, 3, 7, 0])
    trials = np.array([10, 20, 7, 0])
    low, high = wilson_interval(successes, trials)
    assert low.shape == high.shape == (4,)
    for i, (k, n) in enumerate(zip(successes, trials, strict=True)):
        scalar_low, scalar_high = wilson_interval(int(k), int(n))
        assert low[i] == pytest.approx(float(scalar_low))
        assert high[i] == pytest.approx(float(scalar_high))
    assert (low[3], high[3]) == (0.0, 1.0)
    assert ((low >= 0) & (low <= successes / np.maximum(trials, 1))).all()


def test_wilson_widens_with_confidence() -> None:
    low_90, high_90 = wilson_interval(30, 100, confidence=0.90)
    low_99, high_99 = wilson_interval(30, 100, confidence=0.99)
    assert low_99 < low_90 < 0.3 < high_90 < high_99
    expected = wilson_by_formula(30, 100, float(norm.ppf(0.995)))
    assert (float(low_99), float(high_99)) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(("successes", "n", "confidence"), [(11, 10, 0.95), (-1, 10, 0.95)])
def test_wilson_refuses_impossible_counts(successes: int, n: int, confidence: float) -> None:
    with pytest.raises(TarotInputError):
        wilson_interval(successes, n, confidence)


def test_wilson_refuses_a_confidence_outside_zero_one() -> None:
    with pytest.raises(TarotInputError, match="confidence"):
        wilson_interval(1, 10, confidence=1.0)


def test_the_95_quantile_is_the_normal_quantile_at_95() -> None:
    assert normal_quantile(0.95) == Z_95
    assert normal_quantile(0.99) == pytest.approx(norm.ppf(0.995))
    for outside in (0.0, 1.0, -0.5):
        with pytest.raises(TarotInputError, match="confidence"):
            normal_quantile(outside)


def test_rate_table_with_exact_values() -> None:
    counts = pd.Series({2: 30, 0: 45, 1: 25})  # as value_counts() orders them
    exact = pd.Series({0: 0.45, 1: 0.25, 2: 0.29, 3: 0.01})
    table = rate_table(counts, 100, exact)
    assert list(table.columns) == ["n", "count", "simulated", "ci_low", "ci_high", "exact"]
    assert list(table.index) == [0, 1, 2, 3]
    assert table["count"].tolist() == [45, 25, 30, 0]
    assert (table["n"] == 100).all()
    assert table["simulated"].tolist() == pytest.approx([0.45, 0.25, 0.30, 0.0])
    assert table["exact"].tolist() == pytest.approx([0.45, 0.25, 0.29, 0.01])
    low, high = wilson_by_formula(25, 100)
    assert table.loc[1, "ci_low"] == pytest.approx(low)
    assert table.loc[1, "ci_high"] == pytest.approx(high)
    assert table.loc[3, "ci_low"] == 0.0


def test_rate_table_without_exact_values() -> None:
    table = rate_table(pd.Series({"made": 60, "failed": 40}), 100)
    assert table["exact"].isna().all()
    assert table.loc["made", "simulated"] == pytest.approx(0.6)


# ---------------------------------------------------------------------------------------------
# Chi-square goodness of fit.


def test_exact_counts_fit_perfectly() -> None:
    probabilities = hand_distribution("bouts", 18)
    result = chi_square_gof(probabilities * 10_000, probabilities)
    assert isinstance(result, GofResult)
    assert result.statistic == pytest.approx(0.0, abs=1e-9)
    assert result.p_value == pytest.approx(1.0)
    assert result.pooled_cells == 4 and result.dof == 3


def test_fair_sample_passes_and_wrong_distribution_fails() -> None:
    rng = np.random.default_rng(20240601)
    exact = hand_distribution("trumps", 18)
    sample = rng.multinomial(20_000, exact.to_numpy())
    observed = pd.Series(sample, index=exact.index)
    fair = chi_square_gof(observed, exact)
    assert fair.p_value > 0.001
    # Trumps of a 5-player hand (15 cards) tested against the 4-player distribution.
    wrong = chi_square_gof(observed, hand_distribution("trumps", 15))
    assert wrong.p_value < 1e-12


def test_sparse_tail_cells_are_pooled() -> None:
    result = chi_square_gof([1, 2, 497, 500], [0.001, 0.002, 0.497, 0.5])
    # Expected 1 and 2 pool together (3), then with 497: two cells remain.
    assert result.pooled_cells == 2
    assert result.dof == 1
    assert result.statistic == pytest.approx(0.0)
    every_cell = chi_square_gof([1, 2, 497, 500], [0.001, 0.002, 0.497, 0.5], min_expected=1.0)
    assert every_cell.pooled_cells == 4


def test_pooling_a_long_tailed_distribution() -> None:
    exact = hand_distribution("longest_suit", 18)
    observed = (exact * 1_000).round()
    observed.iloc[5] += 1_000 - observed.sum()
    result = chi_square_gof(observed, exact, min_expected=5.0)
    kept = int((exact * 1_000 >= 5).sum())
    assert 2 <= result.pooled_cells <= kept
    assert result.dof == result.pooled_cells - 1


def test_series_cells_align_by_value() -> None:
    exact = pd.Series({0: 0.25, 1: 0.5, 2: 0.25})
    unobserved_cell = chi_square_gof(pd.Series({1: 50, 0: 50}), exact, min_expected=1.0)
    assert unobserved_cell.pooled_cells == 3
    assert unobserved_cell.p_value < 1e-6
    impossible = chi_square_gof(pd.Series({0: 25, 1: 50, 2: 24, 3: 1}), exact)
    assert impossible.statistic == math.inf
    assert impossible.p_value == 0.0


def test_a_single_cell_leaves_no_test() -> None:
    result = chi_square_gof([3, 4], [0.5, 0.5])
    assert result.pooled_cells == 1 and result.dof == 0
    assert math.isnan(result.p_value)


def test_probabilities_must_sum_to_one() -> None:
    with pytest.raises(TarotInputError, match="sum to 1"):
        chi_square_gof([10, 10], [0.5, 0.4])
    with pytest.raises(TarotInputError):
        chi_square_gof([10, 10, 10], [0.5, 0.5])


# ---------------------------------------------------------------------------------------------
# Single rates.


def test_binomial_test_matches_the_definition() -> None:
    def pmf(k: int, n: int) -> float:
        return math.comb(n, k) / 2**n

    # Two-sided: every outcome no more likely than the one observed.
    expected = sum(pmf(k, 100) for k in range(101) if pmf(k, 100) <= pmf(60, 100) * (1 + 1e-7))
    assert binomial_test_p(60, 100, 0.5) == pytest.approx(expected, rel=1e-9)
    assert binomial_test_p(50, 100, 0.5) == pytest.approx(1.0)
    assert binomial_test_p(5, 10_000, 0.00184) < 0.01


def test_binomial_test_refuses_impossible_counts() -> None:
    with pytest.raises(TarotInputError):
        binomial_test_p(11, 10, 0.5)


def test_z_score() -> None:
    assert z_score(60, 100, 0.5) == pytest.approx(2.0)
    assert z_score(40, 100, 0.5) == pytest.approx(-2.0)
    scores = z_score(np.array([60, 50]), np.array([100, 100]), 0.5)
    assert scores.tolist() == pytest.approx([2.0, 0.0])
    assert z_score(0, 100, 0.0) == 0.0
    assert z_score(1, 100, 0.0) == math.inf
