"""Rates with their intervals, and tests of simulated counts against exact values.

Every rate the toolkit reports comes with its count and a Wilson score interval
(:func:`rate_table`); where an exact value exists (see :mod:`tarot_analysis.deals.exact`) the table
shows it beside the simulated one. :func:`chi_square_gof` checks a whole simulated distribution
(bouts per hand, say) against its exact one, and :func:`binomial_test_p` / :func:`z_score` a
single rate (petit sec per deal, say).
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass
from typing import Any, overload

import numpy as np
import numpy.typing as npt
import pandas as pd
from scipy import stats as scipy_stats

from tarot_analysis.errors import TarotInputError

__all__ = [
    "GofResult",
    "binomial_test_p",
    "chi_square_gof",
    "normal_quantile",
    "rate_table",
    "wilson_interval",
    "z_score",
]

FloatArray = npt.NDArray[np.float64]
RATE_COLUMNS = ("n", "count", "simulated", "ci_low", "ci_high", "exact")
# Expected probabilities must add up to one this closely (exact tables do within 1e-12).
PROBABILITY_SUM_TOLERANCE = 1e-9
#: Two-sided normal quantile of a 95% interval.
Z_95 = 1.959963984540054


def normal_quantile(confidence: float) -> float:
    """The two-sided normal quantile of a ``confidence`` interval (:data:`Z_95` at 0.95).

    >>> round(normal_quantile(0.95), 4), round(normal_quantile(0.5), 4)
    (1.96, 0.6745)
    """
    if not 0.0 < confidence < 1.0:
        raise TarotInputError(f"confidence must be strictly between 0 and 1, got {confidence}")
    return float(scipy_stats.norm.ppf(0.5 + confidence / 2.0))


def wilson_interval(
    successes: npt.ArrayLike, n: npt.ArrayLike, confidence: float = 0.95
) -> tuple[FloatArray, FloatArray]:
    """Wilson score interval for a rate of ``successes`` out of ``n``.

    Works on scalars and on arrays (broadcast together); a scalar gives 0-d arrays. With
    ``n == 0`` nothing is known and the interval is (0, 1). The interval never leaves [0, 1],
    and it is exactly 0 below when there are no successes and exactly 1 above when all are.

    >>> low, high = wilson_interval(5, 10)
    >>> print(round(float(low), 4), round(float(high), 4))
    0.2366 0.7634
    """
    z = normal_quantile(confidence)
    k = np.asarray(successes, dtype=np.float64)
    trials = np.asarray(n, dtype=np.float64)
    if np.any(trials < 0) or np.any(k < 0) or np.any(k > trials):
        raise TarotInputError("successes must lie between 0 and n, and n must be non-negative")
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = k / trials
        z2_n = z * z / trials
        centre = (rate + z2_n / 2.0) / (1.0 + z2_n)
        half_width = (
            z * np.sqrt(rate * (1.0 - rate) / trials + z2_n / (4.0 * trials)) / (1.0 + z2_n)
        )
    empty = trials == 0
    low = np.where(empty | (k == 0), 0.0, np.clip(centre - half_width, 0.0, 1.0))
    high = np.where(empty | (k == trials), 1.0, np.clip(centre + half_width, 0.0, 1.0))
    return low.astype(np.float64), high.astype(np.float64)


def rate_table(
    counts: pd.Series,
    n: int,
    exact: pd.Series | None = None,
    confidence: float = 0.95,
) -> pd.DataFrame:
    """One row per value: how often it was seen in ``n`` trials, its interval and exact rate.

    ``counts`` holds the number of trials showing each value (``value_counts()`` of a simulated
    column, say); ``exact`` the exact probabilities by value, if known. Values present in only
    one of them still get a row: a count of 0, or an exact rate of NaN. Rows are sorted by
    value. Columns are ``n``, ``count``, ``simulated`` (count / n), ``ci_low``, ``ci_high``
    (Wilson) and ``exact``.

    >>> table = rate_table(pd.Series({0: 45, 1: 55}), 100, exact=pd.Series({0: 0.45, 1: 0.55}))
    >>> table["simulated"].tolist()
    [0.45, 0.55]
    """
    if n < 0:
        raise TarotInputError(f"the number of trials must be non-negative, got {n}")
    index = counts.index if exact is None else counts.index.union(exact.index, sort=False)
    with contextlib.suppress(TypeError):  # labels of mixed types keep their order
        index = index.sort_values()
    count = counts.reindex(index, fill_value=0).astype(np.int64)
    low, high = wilson_interval(count.to_numpy(), n, confidence)
    with np.errstate(divide="ignore", invalid="ignore"):
        simulated = count.to_numpy(dtype=np.float64) / n if n else np.full(len(index), np.nan)
    exact_rate = (
        exact.reindex(index).astype(np.float64)
        if exact is not None
        else pd.Series(np.nan, index=index, dtype=np.float64)
    )
    return pd.DataFrame(
        {
            "n": np.full(len(index), n, dtype=np.int64),
            "count": count.to_numpy(),
            "simulated": simulated,
            "ci_low": low,
            "ci_high": high,
            "exact": exact_rate.to_numpy(),
        },
        index=index,
        columns=list(RATE_COLUMNS),
    )


@dataclass(frozen=True)
class GofResult:
    """A chi-square goodness-of-fit test.

    ``pooled_cells`` is the number of cells the test used, after sparse cells were pooled with
    their neighbours; ``dof`` is that number minus one (minus any fitted parameters).
    """

    statistic: float
    dof: int
    p_value: float
    pooled_cells: int


def _aligned(
    observed_counts: pd.Series | npt.ArrayLike, expected_probs: pd.Series | npt.ArrayLike
) -> tuple[FloatArray, FloatArray, float]:
    """Observed counts and expected probabilities cell by cell, plus observations off support."""
    if isinstance(observed_counts, pd.Series) and isinstance(expected_probs, pd.Series):
        outside = observed_counts.index.difference(expected_probs.index)
        off_support = float(observed_counts.reindex(outside).sum())
        observed = observed_counts.reindex(expected_probs.index, fill_value=0)
        return (
            observed.to_numpy(dtype=np.float64),
            expected_probs.to_numpy(dtype=np.float64),
            off_support,
        )
    observed_array = np.asarray(observed_counts, dtype=np.float64)
    expected_array = np.asarray(expected_probs, dtype=np.float64)
    if observed_array.shape != expected_array.shape or observed_array.ndim != 1:
        raise TarotInputError(
            f"observed counts {observed_array.shape} and expected probabilities "
            f"{expected_array.shape} must be two vectors of one length"
        )
    return observed_array, expected_array, 0.0


def _pool_sparse_cells(
    observed: FloatArray, expected: FloatArray, min_expected: float
) -> tuple[FloatArray, FloatArray]:
    """Merge the sparsest cell into its sparser neighbour until every cell is dense enough.

    Cells are in the order of the values (a distribution's tails come first), so a sparse
    tail is pooled inward and a sparse middle cell with the lighter side.
    """
    obs = list(observed)
    exp = list(expected)
    while len(exp) > 1 and min(exp) < min_expected:
        i = int(np.argmin(exp))
        if i == 0:
            j = 1
        elif i == len(exp) - 1:
            j = i - 1
        else:
            j = i - 1 if exp[i - 1] <= exp[i + 1] else i + 1
        keep, drop = min(i, j), max(i, j)
        obs[keep] += obs.pop(drop)
        exp[keep] += exp.pop(drop)
    return np.array(obs, dtype=np.float64), np.array(exp, dtype=np.float64)


def chi_square_gof(
    observed_counts: pd.Series | npt.ArrayLike,
    expected_probs: pd.Series | npt.ArrayLike,
    min_expected: float = 5.0,
    *,
    ddof: int = 0,
) -> GofResult:
    """Pearson chi-square test of observed counts against exact probabilities.

    Cells are matched by index when both are Series (values missing from the counts were never
    observed), else by position. Adjacent cells are pooled, sparsest first, until every cell
    expects at least ``min_expected`` observations. ``ddof`` is the number of parameters fitted
    from the data. An observation where the exact probability is 0 is impossible: the statistic
    is infinite and the p-value 0. If pooling leaves no degree of freedom the p-value is NaN.

    >>> fair = chi_square_gof([98, 102], [0.5, 0.5])
    >>> print(fair.dof, round(fair.p_value, 3))
    1 0.777
    """
    if min_expected <= 0:
        raise TarotInputError(f"min_expected must be positive, got {min_expected}")
    observed, probabilities, off_support = _aligned(observed_counts, expected_probs)
    if np.any(observed < 0) or np.any(probabilities < 0):
        raise TarotInputError("counts and probabilities must be non-negative")
    if abs(probabilities.sum() - 1.0) > PROBABILITY_SUM_TOLERANCE:
        raise TarotInputError(
            f"expected probabilities must sum to 1, they sum to {probabilities.sum()!r}"
        )
    total = observed.sum() + off_support
    if total <= 0:
        raise TarotInputError("a goodness-of-fit test needs at least one observation")
    impossible = off_support > 0 or bool(np.any((probabilities == 0) & (observed > 0)))
    possible = probabilities > 0
    pooled_obs, pooled_exp = _pool_sparse_cells(
        observed[possible], total * probabilities[possible], min_expected
    )
    cells = len(pooled_exp)
    dof = cells - 1 - ddof
    if impossible:
        return GofResult(math.inf, dof, 0.0, cells)
    statistic = float(np.sum((pooled_obs - pooled_exp) ** 2 / pooled_exp))
    p_value = float(scipy_stats.chi2.sf(statistic, dof)) if dof > 0 else math.nan
    return GofResult(statistic, dof, p_value, cells)


def binomial_test_p(count: int, n: int, p: float) -> float:
    """Two-sided exact binomial p-value of ``count`` successes in ``n`` trials at rate ``p``.

    >>> print(round(binomial_test_p(60, 100, 0.5), 4))
    0.0569
    """
    if not 0 <= count <= n:
        raise TarotInputError(f"count must lie between 0 and n={n}, got {count}")
    if not 0.0 <= p <= 1.0:
        raise TarotInputError(f"a probability must lie in [0, 1], got {p}")
    if n == 0:
        return 1.0
    return float(scipy_stats.binomtest(int(count), int(n), float(p)).pvalue)


@overload
def z_score(count: float, n: float, p: float) -> float: ...


@overload
def z_score(count: npt.ArrayLike, n: npt.ArrayLike, p: npt.ArrayLike) -> FloatArray: ...


def z_score(count: npt.ArrayLike, n: npt.ArrayLike, p: npt.ArrayLike) -> float | FloatArray:
    """How many standard deviations ``count`` lies from its binomial mean ``n * p``.

    Scalars give a float, arrays an array. A rate of exactly 0 or 1 has no spread: the score is
    0 when the count matches and infinite otherwise.

    >>> print(z_score(60, 100, 0.5))
    2.0
    """
    k = np.asarray(count, dtype=np.float64)
    trials = np.asarray(n, dtype=np.float64)
    rate = np.asarray(p, dtype=np.float64)
    if np.any((rate < 0) | (rate > 1)):
        raise TarotInputError("a probability must lie in [0, 1]")
    deviation = k - trials * rate
    spread = np.sqrt(trials * rate * (1.0 - rate))
    with np.errstate(divide="ignore", invalid="ignore"):
        score = np.where(
            spread > 0,
            deviation / spread,
            np.where(deviation == 0, 0.0, np.sign(deviation) * np.inf),
        )
    if score.ndim == 0:
        return float(score)
    return score.astype(np.float64)


def deal_interval(per_row: npt.NDArray[np.float64], deals: npt.NDArray[np.int64]) -> dict[str, Any]:
    """The mean of ``per_row`` with a 95% interval in which deals are the independent units:
    the ratio of the deals' sums to their counts, its standard error from the spread of the
    deals' sums about it (a cluster-robust error), Student's t on deals − 1 degrees."""
    _, index = np.unique(deals, return_inverse=True)
    sums = np.bincount(index, weights=per_row)
    counts = np.bincount(index).astype(np.float64)
    n_deals = len(sums)
    mean = float(sums.sum() / counts.sum())
    if n_deals < 2:
        return {"mean": mean, "ci_low": None, "ci_high": None, "deals": n_deals}
    spread = ((sums - mean * counts) ** 2).sum() * n_deals / (n_deals - 1)
    error = math.sqrt(spread) / counts.sum()
    half = float(scipy_stats.t.ppf(0.975, n_deals - 1)) * error
    return {"mean": mean, "ci_low": mean - half, "ci_high": mean + half, "deals": n_deals}
