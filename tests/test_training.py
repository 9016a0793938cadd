"""What every training shares: its learning rate checked, every step watched to keep the weights
finite, nothing written that is not, the extra it needs named, and its interval by deal."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from tarot_analysis.errors import TarotInputError
from tarot_analysis.learning.training import (
    LOOK_EVERY,
    MOST_LEARNING_RATE,
    NEEDS_EXTRA,
    FiniteSteps,
    check_finite,
    check_learning_rate,
)
from tarot_analysis.stats import deal_interval


def test_the_interval_by_deal_is_students_on_deal_means_when_deals_are_alike() -> None:
    from scipy import stats as scipy_stats

    rng = np.random.default_rng(3)
    deals = np.repeat(np.arange(30), 5)  # equal counts: the ratio is the mean of deal means
    values = rng.normal(2.0, 1.0, 150) + np.repeat(rng.normal(0, 2, 30), 5)
    found = deal_interval(values, deals)
    means = values.reshape(30, 5).mean(axis=1)
    low, high = scipy_stats.t.interval(0.95, 29, loc=means.mean(), scale=scipy_stats.sem(means))
    assert found["mean"] == pytest.approx(values.mean())
    assert found["ci_low"] == pytest.approx(low) and found["ci_high"] == pytest.approx(high)
    assert found["deals"] == 30


def test_a_learning_rate_is_a_number_above_0_that_float32_holds() -> None:
    assert check_learning_rate(1e-3) == 0.001
    assert check_learning_rate(MOST_LEARNING_RATE) == MOST_LEARNING_RATE
    for wrong in (0, -1e-3, 1e39, float("nan"), float("inf")):
        with pytest.raises(TarotInputError, match=r"above 0 and at most 3\.4e\+38"):
            check_learning_rate(wrong)
    for wrong in (True, "0.1", None):
        with pytest.raises(TarotInputError, match="must be a number"):
            check_learning_rate(wrong)


def test_the_first_step_that_left_a_weight_not_finite_is_named() -> None:
    steps = FiniteSteps()
    steps.took("step 1", True)
    steps.took("step 2", False)
    steps.took("step 3", False)  # not looked at yet: a look waits for LOOK_EVERY steps
    with pytest.raises(TarotInputError, match=r"the training diverged at step 2: .*nothing was"):
        steps.look()


def test_the_look_comes_every_few_steps_without_being_asked() -> None:
    steps = FiniteSteps()
    steps.took("step 1", False)
    with pytest.raises(TarotInputError, match="diverged at step 1"):
        for k in range(1, LOOK_EVERY):
            steps.took(f"step {k + 1}", True)


def test_a_network_with_a_weight_not_finite_is_never_written() -> None:
    layers = {"trunk": [(np.ones((2, 2)), np.zeros(2))], "head": [(np.ones((2, 1)), np.ones(1))]}
    check_finite(layers)
    layers["head"][0][1][0] = np.inf
    with pytest.raises(TarotInputError, match="some weights are not finite numbers"):
        check_finite(layers)


def test_training_without_the_extra_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tarot_analysis.learning import streaming

    monkeypatch.setitem(sys.modules, "jax", None)
    with pytest.raises(TarotInputError, match=r"pip install 'tarot-analysis\[train\]'") as found:
        streaming._jax()
    assert str(found.value) == NEEDS_EXTRA
