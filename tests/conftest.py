"""Shared fixtures and helpers of the test suite."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest
from scipy import stats as scipy_stats

from tarot_analysis.game.rules import Rules, list_presets, load_rules

PRESETS = list_presets()


@pytest.fixture(params=PRESETS)
def preset(request: pytest.FixtureRequest) -> Rules:
    """Every shipped rule preset."""
    return load_rules(request.param)


def card_group_counts(masks: npt.NDArray[np.uint64]) -> npt.NDArray[np.int64]:
    """How often each card (78) lands in each group: masks ``(n, groups, 2)`` → ``(78, groups)``."""
    groups = masks.shape[1]
    counts = np.zeros((78, groups), dtype=np.int64)
    for g in range(groups):
        lo = masks[:, g, 0]
        hi = masks[:, g, 1]
        for bit in range(56):
            counts[bit, g] = int(((lo >> np.uint64(bit)) & np.uint64(1)).sum())
        for bit in range(22):
            counts[56 + bit, g] = int(((hi >> np.uint64(bit)) & np.uint64(1)).sum())
    return counts


def card_group_p_value(masks: npt.NDArray[np.uint64], sizes: tuple[int, ...]) -> float:
    """Chi-square p-value of 'every card reaches each group in proportion to its size'."""
    observed = card_group_counts(masks)
    n = masks.shape[0]
    keep = [g for g, size in enumerate(sizes) if size > 0]
    expected = n * np.array(sizes, dtype=float)[keep] / 78
    observed = observed[:, keep]
    statistic = float((((observed - expected) ** 2) / expected).sum())
    dof = 78 * (len(keep) - 1)  # each card's row sums to n
    return float(scipy_stats.chi2.sf(statistic, dof))
