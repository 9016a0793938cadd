"""Thresholds fitted to a guidance run's deals, and what each rule loses.

Per evaluator, the monotone rule of best total score (:func:`monotone_choice`) fitted to the
deals, with intervals from the bootstrap replicates of :mod:`tarot_analysis.bootstrap`
(:func:`thresholds`); how often a replicate names another best option (:func:`best_stability`);
what each rule, published or fitted, loses against the best option of each value, in and out of
sample (:func:`threshold_loss`). docs/guidance.md gives every formula.
"""

from __future__ import annotations

from typing import Final

import numpy as np
import pandas as pd

from tarot_analysis.analyses.guidance.counts import (
    BOOTSTRAPPED,
    GuidanceData,
    _check_can_fit,
    _grouping,
    _half_width,
    _option_sums,
    _paired_sums,
)
from tarot_analysis.deals import evaluators
from tarot_analysis.engine.scoring import SCORE_UNIT


def monotone_choice(sums: np.ndarray) -> np.ndarray:
    """The option per value of a count that maximises the total score under a rule that never
    steps down as the count grows: ``sums[..., value, option]`` the total score of each option
    (options ordered pass, then the contracts lowest first) at each value of the count, in
    increasing order. Returns the option index per value, non-decreasing (dynamic programming;
    among rules of equal total, the one that steps up latest).

    Value by value the best options are pass, Prise, Garde, Prise, Garde; a rule that never
    steps down keeps the Garde at the fourth value (total 15, against 14 for staying at the
    Prise until the last value):

    >>> sums = [[0, -5, -9], [0, 2, -1], [0, -1, 3], [0, 4, 1], [0, 2, 9]]
    >>> monotone_choice(np.array(sums)).tolist()
    [0, 1, 2, 2, 2]
    """
    values = np.asarray(sums, dtype=float)
    count, options = values.shape[-2], values.shape[-1]
    lead = values.shape[:-2]
    best = np.zeros((*lead, options))
    came_from = np.zeros((*lead, count, options), dtype=np.int64)
    for c in range(count):
        # The best total ending at option o at this value: the best over options ≤ o before.
        prefix = np.maximum.accumulate(best, axis=-1)
        where = np.zeros((*lead, options), dtype=np.int64)
        for o in range(1, options):
            higher = best[..., o] > prefix[..., o - 1]
            where[..., o] = np.where(higher, o, where[..., o - 1])
        came_from[..., c, :] = where
        best = prefix + values[..., c, :]
    choice = np.zeros((*lead, count), dtype=np.int64)
    # Among equal totals, the lowest option last: the rule that steps up latest.
    last = np.argmax(best, axis=-1)
    choice[..., count - 1] = last
    for c in range(count - 1, 0, -1):
        here = choice[..., c][..., None]
        choice[..., c - 1] = np.take_along_axis(came_from[..., c, :], here, axis=-1)[..., 0]
    return choice


def _starts(choice: np.ndarray, values: np.ndarray, options: int) -> np.ndarray:
    """Per option after pass, the least value from which the rule names it or a higher one
    (``inf`` when it never does): ``choice[..., value]``."""
    out = np.full((*choice.shape[:-1], options - 1), np.inf)
    for o in range(1, options):
        reached = choice >= o
        first = np.argmax(reached, axis=-1)
        out[..., o - 1] = np.where(reached.any(axis=-1), values[first], np.inf)
    return out


#: Above any value of either evaluator (Chavey's count of 24 cards stays under 200).
_HIGHEST_VALUE: Final = 400


def _published_starts(evaluator: str, values: np.ndarray, size: int, options: int) -> np.ndarray:
    """The least value of the evaluator from which its published thresholds bid each contract
    or a higher one (Chavey's Garde sans and Garde contre read on the count without its
    distribution part, the one the fitted rule uses); ``inf`` when they never do."""
    del values
    grid = np.arange(0, _HIGHEST_VALUE + 1)
    if evaluator == "chavey":
        bids = evaluators.chavey_bid(grid, grid, hand_size=size)
    else:
        bids = evaluators.bouts_and_trumps_bid(grid, hand_size=size)
    return _starts(np.asarray(bids, dtype=np.int64) + 1, grid, options)


def _replicate_sums(data: GuidanceData, evaluator: str) -> tuple[np.ndarray, np.ndarray]:
    """The values of an evaluator and its bootstrap sums: ``(replicates, value, option)``."""
    rows = _grouping(data, f"replicates_{evaluator}").reset_index()
    values = np.sort(rows["key_1"].unique())
    replicates = int(rows["key_2"].max()) + 1
    sums = np.zeros((replicates, len(values), len(data.contracts) + 1))
    at = np.searchsorted(values, rows["key_1"].to_numpy())
    sums[rows["key_2"].to_numpy(), at] = _option_sums(rows, data.contracts)
    return values, sums


def thresholds(data: GuidanceData) -> pd.DataFrame:
    """Per evaluator of :data:`BOOTSTRAPPED` and contract: the value from which the monotone
    rule fitted to the run's deals (:func:`monotone_choice`) bids the contract or a higher one,
    its 95% percentile interval over the bootstrap replicates (``inf``: beyond every value
    seen), the share of replicates in which it is never bid alone, and the published
    threshold beside it. At least :data:`MIN_FIT_DEALS` deals played."""
    _check_can_fit(data)
    rows = []
    options = len(data.contracts) + 1
    for evaluator in BOOTSTRAPPED:
        groups = _grouping(data, evaluator).groupby(level="key_1").sum()
        values = groups.index.to_numpy()
        point = _starts(monotone_choice(_option_sums(groups, data.contracts)), values, options)
        replicate_values, sums = _replicate_sums(data, evaluator)
        boot = _starts(monotone_choice(sums), replicate_values, options)
        published = _published_starts(evaluator, values, data.rules.hand_size, options)
        for k, contract in enumerate(data.contracts):
            low, high = np.quantile(boot[:, k], [0.025, 0.975], method="inverted_cdf")
            # Bid alone: the rule names this contract at some value (not only a higher one).
            skipped = boot[:, k] == (boot[:, k + 1] if k + 1 < len(data.contracts) else np.inf)
            rows.append(
                {
                    "evaluator": evaluator,
                    "contract": contract,
                    "fitted": float(point[k]),
                    "ci_low": float(low),
                    "ci_high": float(high),
                    "never_alone": float(skipped.mean()),
                    "published": float(published[k]),
                    "replicates": len(boot),
                }
            )
    return pd.DataFrame(rows).set_index(["evaluator", "contract"])


def best_stability(data: GuidanceData, evaluator: str = "chavey") -> pd.Series:
    """Per value of the evaluator, the share of bootstrap replicates whose best option differs
    from the run's: how often another run of the same size would name another best."""
    groups = _grouping(data, evaluator).groupby(level="key_1").sum()
    best = np.argmax(_option_sums(groups, data.contracts), axis=1)
    values, sums = _replicate_sums(data, evaluator)
    at = np.searchsorted(values, groups.index.to_numpy())
    changed = np.argmax(sums[:, at, :], axis=-1) != best[None, :]
    index = groups.index.rename(evaluator)
    return pd.Series(changed.mean(axis=0), index=index, name="best_changes")


# --- What each rule loses against the best contract of each value -----------------------------


def _rule_choices(
    data: GuidanceData, rule: str, groups: pd.DataFrame, choosing: pd.DataFrame
) -> tuple[np.ndarray, np.ndarray]:
    """For the groups scored (index ``key_1, key_2``), the best option of their evaluator value
    and the rule's option, both chosen on the ``choosing`` counts (same evaluator)."""
    options = np.array(["pass", *data.contracts], dtype=object)
    by_value = choosing.groupby(level="key_1").sum()
    chosen_values = by_value.index.to_numpy()
    sums = _option_sums(by_value, data.contracts)
    value = groups.index.get_level_values("key_1").to_numpy()
    seen = np.isin(value, chosen_values)
    at = np.clip(np.searchsorted(chosen_values, value), 0, len(chosen_values) - 1)
    best = np.where(seen, options[np.argmax(sums, axis=1)][at], "pass")
    size = data.rules.hand_size
    if rule == "chavey":
        bids = evaluators.chavey_bid(
            value, groups.index.get_level_values("key_2").to_numpy(), hand_size=size
        )
        return best, np.asarray(evaluators.bid_names(bids), dtype=object)
    if rule == "bouts_and_trumps":
        bids = evaluators.bouts_and_trumps_bid(value, hand_size=size)
        return best, np.asarray(evaluators.bid_names(bids), dtype=object)
    # A fitted rule: the monotone choice, a step function that holds between values seen.
    choice = monotone_choice(sums)
    below = np.clip(np.searchsorted(chosen_values, value, side="right") - 1, 0, None)
    return best, np.where(value < chosen_values[0], "pass", options[choice][below])


#: The rules whose loss is measured: each evaluator's published thresholds, and the monotone
#: thresholds fitted to the deals on each evaluator.
RULES: Final = {
    "chavey": "chavey",
    "chavey_fitted": "chavey",
    "bouts_and_trumps": "bouts_and_trumps",
    "bouts_and_trumps_fitted": "bouts_and_trumps",
}


def threshold_loss(data: GuidanceData) -> pd.DataFrame:
    """What each rule of :data:`RULES` loses per deal against the best contract of each value.

    For every deal, the rule's contract is compared, on that deal, with the option of best mean
    score at the deal's evaluator value: the loss is the difference of the two scores on the
    deal (pass scores 0). Its mean and 95% interval are over deals, from the per-deal losses;
    the counts give their sum and sum of squares exactly (each group of equal evaluator value,
    and for Chavey's bids equal distribution count, has one pair of options).

    In sample, the best options and the fitted thresholds are chosen on every deal and scored
    on the same deals: the loss of the fitted rules is then optimistic. Out of sample, they are
    chosen on one fold of the deals (even deal numbers, or odd) and scored on the other, then
    the other way round; the losses of both folds are pooled, deal by deal. At least
    :data:`MIN_FIT_DEALS` deals played.
    """
    _check_can_fit(data)
    rows = []
    for rule, evaluator in RULES.items():
        measured = {}
        for scheme, pairs in (("in", [(None, None)]), ("out", [(0, 1), (1, 0)])):
            n = total = squares = scored_sum = 0.0
            for scoring, choosing in pairs:
                groups = _grouping(data, evaluator, fold=scoring)
                chooser = _grouping(data, evaluator, fold=choosing)
                best, chosen = _rule_choices(data, rule, groups, chooser)
                part, part_squares = _paired_sums(groups, data.contracts, best, chosen)
                passing = np.full(len(groups), "pass", dtype=object)
                scored, _ = _paired_sums(groups, data.contracts, chosen, passing)
                n += float(groups["n"].sum())
                total += float(part.sum())
                squares += float(part_squares.sum())
                scored_sum += float(scored.sum())
            half = float(_half_width(np.array(total), np.array(squares), np.array(n)))
            measured[scheme] = (n, total / n / SCORE_UNIT, half, scored_sum / n / SCORE_UNIT)
        n, mean, half, score = measured["in"]
        _, out_mean, out_half, out_score = measured["out"]
        rows.append(
            {
                "rule": rule,
                "evaluator": evaluator,
                "n": int(n),
                "mean_expected_score": score,
                "best_expected_score": score + mean,
                "mean_loss": mean,
                "loss_ci_half_width": half,
                "out_of_sample_expected_score": out_score,
                "out_of_sample_loss": out_mean,
                "out_of_sample_ci_half_width": out_half,
            }
        )
    return pd.DataFrame(rows).set_index("rule")
