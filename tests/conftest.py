"""Shared fixtures and helpers of the test suite."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest
from scipy import stats as scipy_stats

from tarot_analysis.game.rules import Rules, list_presets, load_rules

PRESETS = list_presets()

#: The file whose first test compiles the search (the pimc bot and the double-dummy solver,
#: about three quarters of the engine's compiling): run first, on one process.
COMPILES_THE_SEARCH = "test_pimc.py"
#: Files that use the search too: run last, once that process has cached it. The files between
#: run on the other process meanwhile, with the table compiled without the search
#: (``table.compiled.play_deals_without_search``), so the search is compiled once, not on both
#: processes at once (``make test``: ``--dist loadfile --no-loadscope-reorder``).
USE_THE_SEARCH = frozenset(
    {
        "test_action_in_bot.py",
        "test_action_values.py",
        "test_cli_play.py",
        "test_cluster.py",
        "test_compact_lessons.py",
        "test_counterfactual.py",
        "test_dd_bound.py",
        "test_docs_examples.py",
        "test_doctests.py",
        "test_door.py",
        "test_double_dummy.py",
        "test_engine.py",
        "test_guidance.py",
        "test_interrupts.py",
        "test_readme_examples.py",
        "test_report.py",
        "test_report_bound.py",
        "test_review.py",
        "test_review_many.py",
        "test_rules_conformance.py",
        "test_selfplay.py",
        "test_solver.py",
        "test_state.py",
        "test_streaming.py",
        "test_tarocco.py",
        "test_teacher.py",
        "test_weighing.py",
        "test_yardstick.py",
    }
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The file that compiles the search first, the files that use it last (see
    :data:`USE_THE_SEARCH`); the order within each part kept."""

    def part(item: pytest.Item) -> int:
        name = item.path.name
        return 0 if name == COMPILES_THE_SEARCH else 2 if name in USE_THE_SEARCH else 1

    items.sort(key=part)


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
