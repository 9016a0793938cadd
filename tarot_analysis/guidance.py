"""Bidding guidance from played deals: which contract pays, for which hands.

A guidance run deals many hands to seat 0 and plays each deal under every contract
(:mod:`tarot_analysis.counterfactual`), streaming one row per deal to a resumable Parquet
dataset (:mod:`tarot_analysis.runner`): the hand's features, its evaluator scores, and for each
contract whether it made and the taker's score. The tables below are built from that dataset:
success and expected score per contract by evaluator score, by bouts × trumps and by kings; the
contract that maximises expected score in each row (the thresholds a player should use); and
what each evaluator's published thresholds lose against that best choice.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np
import pandas as pd
import pyarrow as pa

from tarot_analysis import evaluators
from tarot_analysis.counterfactual import play_every_contract
from tarot_analysis.engine.scoring import SCORE_UNIT, whole_units
from tarot_analysis.errors import TarotInputError
from tarot_analysis.features import FEATURES, hand_features
from tarot_analysis.play import Bots, python_threads, seat_bots
from tarot_analysis.rules import Rules
from tarot_analysis.runner import RunResult, RunSpec, iter_chunks, read_dataset, run
from tarot_analysis.stats import Z_95, wilson_interval

__all__ = [
    "GuidanceData",
    "guidance_tables",
    "merge_counts",
    "rows_counts",
    "run_guidance",
    "table_by",
]

KEPT_FEATURES = (
    "trumps",
    "excuse",
    "bouts",
    "kings",
    "queens",
    "voids",
    "singletons",
    "longest_suit",
    "half_points",
    "poignee",
)


def _chunk_seed(seed: int, chunk: int) -> np.random.SeedSequence:
    return np.random.SeedSequence(seed, spawn_key=(chunk,))


def _chunk_rows(
    rules: Rules, bots: Sequence[Any], seed: int, chunk: int, first: int, n: int
) -> pa.Table:
    """Deals ``first .. first + n`` of a guidance run: seat 0's hand and every contract."""
    outcomes = play_every_contract(
        rules, n, seat=0, bots=list(bots), seed=_chunk_seed(seed, chunk), chunk_size=n, threads=1
    )
    from tarot_analysis.deal import DealStream, deal_chunk, make_plan

    plan = make_plan(rules)
    masks, _ = deal_chunk(plan, DealStream.open(plan, _chunk_seed(seed, chunk), 0), n)
    hands = masks[:, 0]
    features = hand_features(hands, rules)
    columns: dict[str, Any] = {"deal": np.arange(first, first + n)}
    for name in KEPT_FEATURES:
        columns[name] = features[:, FEATURES.index(name)]
    lo, hi = hands[:, 0], hands[:, 1]
    columns["chavey"] = evaluators.chavey(lo, hi)
    columns["chavey_distribution"] = evaluators.chavey(lo, hi, with_distribution=True)
    columns["bouts_and_trumps"] = evaluators.bouts_and_trumps(lo, hi)
    frame = outcomes.frame
    columns["redeal"] = frame[frame["contract"] == rules.contracts[0].name]["redeal"].to_numpy()
    for contract in rules.contracts:
        part = frame[frame["contract"] == contract.name]
        columns[f"made_{contract.name}"] = part["made"].fillna(False).to_numpy(dtype=bool)
        columns[f"score_{contract.name}"] = part["taker_score"].to_numpy(dtype=float)
    return pa.table(columns)


#: The groupings kept as counts: every guidance table is made from these. Chavey's count is
#: kept with its distribution version, which its bids need; ``by_chavey`` adds them up.
GROUPINGS: Final = {
    "chavey": ("chavey", "chavey_distribution"),
    "bouts_trumps": ("bouts", "trumps"),
    "kings": ("kings",),
    "bouts_and_trumps": ("bouts_and_trumps",),
}

_KEYS: Final = ("grouping", "key_1", "key_2")


def rows_counts(rows: pd.DataFrame, contracts: Sequence[str]) -> pd.DataFrame:
    """The sufficient statistics of guidance rows: per grouping and key, over played deals,
    ``n``, and per contract the deals made and the sum and sum of squares of the taker's score
    in twelfths of a point (whole numbers). Plus grouping ``deals``, keyed by the redeal flag.

    Counts of disjoint sets of deals add up (:func:`merge_counts`): a run of any size is
    summarised in memory proportional to the tables.
    """
    played = rows[~rows["redeal"].to_numpy(dtype=bool)]
    values = _summands(played, contracts)
    parts = []
    for grouping, keys in GROUPINGS.items():
        frame = pd.DataFrame(values)
        frame["key_1"] = played[keys[0]].to_numpy(dtype=np.int64)
        frame["key_2"] = played[keys[1]].to_numpy(dtype=np.int64) if len(keys) > 1 else 0
        summed = frame.groupby(["key_1", "key_2"], sort=True).sum().reset_index()
        summed.insert(0, "grouping", grouping)
        parts.append(summed)
    redeal = rows["redeal"].to_numpy(dtype=np.int64)
    deals = pd.DataFrame({"key_1": [0, 1], "n": np.bincount(redeal, minlength=2)})
    parts.append(deals.assign(grouping="deals", key_2=0))
    counts = pd.concat(parts, ignore_index=True).fillna(0)
    columns = [*_KEYS, *values]
    counts = counts[columns].astype({c: np.int64 for c in columns if c != "grouping"})
    return counts.sort_values(list(_KEYS), ignore_index=True)  # the order merge_counts gives


def merge_counts(parts: Iterable[pd.DataFrame]) -> pd.DataFrame:
    """Add up the counts of disjoint sets of deals (chunks), in any order: whole numbers, so
    the result is exact. Parts are folded in one at a time, so memory stays that of a table."""
    total: pd.DataFrame | None = None
    for part in parts:
        both = part if total is None else pd.concat([total, part], ignore_index=True)
        total = both.groupby(list(_KEYS), sort=True).sum().reset_index()
    if total is None:
        raise TarotInputError("no counts to merge: the run holds no finished chunk")
    return total


@dataclass
class GuidanceData:
    """What a guidance run produced: its counts and, unless it kept none, its rows."""

    rules: Rules
    bots: tuple[str, ...]
    seed: int
    counts: pd.DataFrame  # the sufficient statistics of every table (see rows_counts)
    frame: pd.DataFrame | None = None  # one row per deal: features, evaluators, made_*, score_*
    run: RunResult | None = None

    @property
    def contracts(self) -> list[str]:
        return [c.name for c in self.rules.contracts]

    @property
    def deals(self) -> int:
        """Deals dealt, redeals included."""
        return int(self._grouping("deals")["n"].sum())

    @property
    def played_deals(self) -> int:
        """Deals played: redeals for a Petit sec left out."""
        deals = self._grouping("deals")
        return int(deals.loc[deals["key_1"] == 0, "n"].sum())

    def played(self) -> pd.DataFrame:
        """The rows of the deals played (redeals for a Petit sec left out)."""
        if self.frame is None:
            raise TarotInputError(
                "this guidance run kept counts, not rows (--no-rows): run it without "
                "--no-rows for per-deal rows and the fitted model"
            )
        return self.frame[~self.frame["redeal"]]

    def _grouping(self, name: str) -> pd.DataFrame:
        return self.counts[self.counts["grouping"] == name]


def run_guidance(
    rules: Rules,
    deals: int,
    folder: str | os.PathLike[str],
    *,
    bots: Bots = "random",
    seed: int = 1,
    chunk_size: int = 50_000,
    threads: int | None = None,
    progress: bool = False,
    client: Any = None,
    rows: bool = True,
) -> GuidanceData:
    """Play ``deals`` deals under every contract into ``folder`` (resuming what is there).

    ``rows=False`` stores each chunk's counts (:func:`rows_counts`) instead of its rows: the
    tables come out the same, in memory and disk proportional to the tables, but there are no
    per-deal rows to fit a model on.
    """
    seating = seat_bots(bots, rules.players)
    names = seating.names
    threads = python_threads(seating, threads, client)
    seated = (bots,) * rules.players if isinstance(bots, str) else tuple(bots)
    extra: dict[str, Any] = {"seat": 0, "mode": "counterfactual"}
    if not rows:
        extra["rows"] = False
        # Counts with the products of two contracts' scores: folders of counts without them
        # are another run.
        extra["counts"] = "sums, squares and products"
    spec = RunSpec(
        kind="guidance", rules=rules.name, bots=names, seed=seed, deals=deals,
        chunk_size=chunk_size, extra=extra,
    )  # fmt: skip
    contracts = [c.name for c in rules.contracts]

    def work(chunk: int, first: int, n: int) -> pa.Table:
        table = _chunk_rows(rules, seated, seed, chunk, first, n)
        if rows:
            return table
        return pa.Table.from_pandas(rows_counts(table.to_pandas(), contracts), preserve_index=False)

    result = run(spec, folder, work, threads=threads, progress=progress, client=client)
    if not rows:
        counts = merge_counts(table.to_pandas() for table in iter_chunks(folder))
        return GuidanceData(rules=rules, bots=names, seed=seed, counts=counts, run=result)
    frame = read_dataset(folder).to_pandas()
    return GuidanceData(
        rules=rules, bots=names, seed=seed, counts=rows_counts(frame, contracts), frame=frame,
        run=result,
    )  # fmt: skip


def _rate_rows(group: pd.DataFrame, contracts: list[str]) -> pd.DataFrame:
    """Rates, intervals and mean scores from summed counts, one row per key."""
    n = group["n"].to_numpy()
    table = pd.DataFrame({"n": n}, index=group.index)
    best = np.full(len(group), "pass", dtype=object)
    best_score = np.zeros(len(group))
    for name in contracts:
        made = group[f"made_{name}"].to_numpy()
        low, high = wilson_interval(made, n)
        mean = group[f"twelfths_{name}"].to_numpy() / SCORE_UNIT / n
        table[f"{name}_rate"] = made / n
        table[f"{name}_ci_low"] = low
        table[f"{name}_ci_high"] = high
        table[f"{name}_mean_score"] = mean
        # The spread of the taker's score, from its sum and sum of squares (whole numbers).
        sums = group[f"twelfths_{name}"].to_numpy(dtype=float)
        squares = group[f"twelfths_sq_{name}"].to_numpy(dtype=float)
        with np.errstate(invalid="ignore", divide="ignore"):
            variance = (squares - sums**2 / n) / (n - 1) / SCORE_UNIT**2
        half = Z_95 * np.sqrt(np.clip(variance, 0, None) / n)
        table[f"{name}_score_half_width"] = np.where(n > 1, half, np.nan)
        better = mean > best_score
        best = np.where(better, name, best)
        best_score = np.where(better, mean, best_score)
    table["best"] = best
    table["best_mean_score"] = best_score
    return table


def table_by(data: GuidanceData, keys: str | list[str], *, min_n: int = 1) -> pd.DataFrame:
    """Per value of ``keys`` (e.g. ``"chavey"``, ``["bouts", "trumps"]``): n, and for every
    contract its success rate with a Wilson interval, the taker's mean score and the half-width
    of its 95% interval; ``best`` is the contract of highest mean score (``pass`` when none
    beats 0).

    The keys of :data:`GROUPINGS` come from the run's counts; any other column of the rows
    needs a run that kept them.
    """
    names = [keys] if isinstance(keys, str) else list(keys)
    # A grouping kept as counts serves any leading part of its keys: Chavey's count alone adds
    # up the counts by distribution count. Other keys need the rows.
    grouping = next(
        (g for g, columns in GROUPINGS.items() if list(columns[: len(names)]) == names), None
    )
    if grouping is None:
        counts = _counts_by(data.played(), names, data.contracts)
    else:
        rows = data.counts[data.counts["grouping"] == grouping]
        named = rows.rename(columns=dict(zip(_KEYS[1:], GROUPINGS[grouping], strict=False)))
        counts = named.groupby(names)[[c for c in rows.columns if c not in _KEYS]].sum()
    table = _rate_rows(counts, data.contracts)
    return table[table["n"] >= min_n]


def _summands(played: pd.DataFrame, contracts: Sequence[str]) -> dict[str, Any]:
    """Per played row, what the counts add up: 1, and per contract made and the taker's score
    (and its square) in :data:`~tarot_analysis.engine.scoring.SCORE_UNIT` ths of a point."""
    values: dict[str, Any] = {"n": np.ones(len(played), dtype=np.int64)}
    scores = {}
    for name in contracts:
        values[f"made_{name}"] = played[f"made_{name}"].to_numpy(dtype=np.int64)
        score = whole_units(played[f"score_{name}"], SCORE_UNIT, f"{name} score")
        scores[name] = score
        values[f"twelfths_{name}"] = score
        values[f"twelfths_sq_{name}"] = score**2
    # The products of two contracts' scores on the same deal: with the squares, the spread of
    # their difference deal by deal (a paired interval) comes from the counts alone.
    for k, first in enumerate(contracts):
        for second in contracts[k + 1 :]:
            values[f"twelfths_x_{first}_{second}"] = scores[first] * scores[second]
    return values


def _counts_by(played: pd.DataFrame, keys: list[str], contracts: Sequence[str]) -> pd.DataFrame:
    """Counts of played rows by any columns, as :func:`rows_counts` counts its groupings."""
    frame = pd.DataFrame(_summands(played, contracts), index=pd.MultiIndex.from_frame(played[keys]))
    return frame.groupby(level=keys).sum()


def _paired_sums(
    groups: pd.DataFrame, contracts: Sequence[str], first: np.ndarray, second: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per group, the sum and the sum of squares over its deals of the score of contract
    ``first`` less that of ``second`` (names per group, ``"pass"`` scoring 0), in twelfths of
    a point: from the counts' sums, squares and products."""
    order = {name: k for k, name in enumerate(contracts)}
    total = np.zeros(len(groups))
    squares = np.zeros(len(groups))

    def column(*names: str) -> np.ndarray:
        """A column of the counts; zeros where a name is the pass's, which scores 0."""
        if "pass" in names:
            return np.zeros(len(groups))
        if len(names) == 2:
            low, high = sorted(names, key=order.__getitem__)
            return groups[f"twelfths_x_{low}_{high}"].to_numpy(dtype=float)
        return groups[f"twelfths_{names[0]}"].to_numpy(dtype=float)

    def square(name: str) -> np.ndarray:
        if name == "pass":
            return np.zeros(len(groups))
        return groups[f"twelfths_sq_{name}"].to_numpy(dtype=float)

    for a in [*contracts, "pass"]:
        for b in [*contracts, "pass"]:
            here = (first == a) & (second == b)
            if a == b or not here.any():
                continue
            total = np.where(here, column(a) - column(b), total)
            squares = np.where(here, square(a) + square(b) - 2 * column(a, b), squares)
    return total, squares


def threshold_loss(data: GuidanceData) -> pd.DataFrame:
    """What each evaluator's thresholds lose per deal against the best contract of each score.

    For every deal, the evaluator's recommended contract is compared, on that deal, with the
    contract of best mean score at the deal's evaluator value: the loss is the difference of
    the two scores on the deal (pass scores 0). Its mean and 95% interval are over deals, from
    the per-deal losses; the counts give their sum and sum of squares exactly (each group of
    equal evaluator value, and for Chavey's bids equal distribution count, has one pair of
    contracts). The mean is the same as comparing each group's mean scores.
    """
    size = data.rules.hand_size
    contracts = data.contracts
    rows = []
    for name in ("chavey", "bouts_and_trumps"):
        by_value = table_by(data, name)
        groups = data.counts[data.counts["grouping"] == name]
        value = groups["key_1"].to_numpy()
        if name == "chavey":
            bids = evaluators.chavey_bid(value, groups["key_2"].to_numpy(), hand_size=size)
        else:
            bids = evaluators.bouts_and_trumps_bid(value, hand_size=size)
        chosen = np.asarray(evaluators.bid_names(bids), dtype=object)
        best = by_value["best"].reindex(value).to_numpy(dtype=object)
        n = float(groups["n"].sum())
        total, squares = _paired_sums(groups, contracts, best, chosen)
        mean_loss = total.sum() / n / SCORE_UNIT
        variance = (squares.sum() / SCORE_UNIT**2 - n * mean_loss**2) / (n - 1)
        passing = np.full(len(groups), "pass", dtype=object)
        chosen_sums, _ = _paired_sums(groups, contracts, chosen, passing)
        mean_chosen = float(chosen_sums.sum() / n / SCORE_UNIT)
        rows.append(
            {
                "evaluator": name,
                "n": int(n),
                "mean_expected_score": mean_chosen,
                "best_expected_score": mean_chosen + float(mean_loss),
                "mean_loss": float(mean_loss),
                "loss_ci_half_width": float(Z_95 * np.sqrt(max(variance, 0.0) / n)),
            }
        )
    return pd.DataFrame(rows).set_index("evaluator")


def guidance_tables(data: GuidanceData) -> dict[str, pd.DataFrame]:
    """Every guidance table of a run."""
    return {
        "by_chavey": table_by(data, "chavey"),
        "by_bouts_trumps": table_by(data, ["bouts", "trumps"]),
        "by_kings": table_by(data, "kings"),
        "threshold_loss": threshold_loss(data),
    }


def save_tables(tables: dict[str, pd.DataFrame], folder: str | os.PathLike[str]) -> list[Path]:
    """Write every table as CSV into ``folder``; return the paths."""
    target = Path(folder)
    target.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, table in tables.items():
        path = target / f"{name}.csv"
        table.to_csv(path)
        paths.append(path)
    return paths


# --- A success model fitted on simulated outcomes, against Chavey's count -------------------

#: The features the model is fitted on: those kept, but the poignée (trumps already count).
MODEL_FEATURES = tuple(name for name in KEPT_FEATURES if name != "poignee")


@dataclass(frozen=True)
class SuccessModel:
    """Logistic regression of a contract's success on hand features (standardised inside)."""

    contract: str
    features: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    coefficients: np.ndarray  # intercept first, then one per feature (standardised units)

    def predict(self, frame: pd.DataFrame) -> np.ndarray:
        """Probability of success of each row."""
        x = (frame[list(self.features)].to_numpy(dtype=float) - self.mean) / self.scale
        return _sigmoid(self.coefficients[0] + x @ self.coefficients[1:])

    def table(self) -> pd.DataFrame:
        """The coefficients, per standard deviation of each feature and per unit."""
        per_unit = self.coefficients[1:] / self.scale
        return pd.DataFrame(
            {"per_sd": self.coefficients[1:], "per_unit": per_unit},
            index=pd.Index(self.features, name="feature"),
        )


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(z, -40, 40)))


def fit_logistic(
    frame: pd.DataFrame, target: str, features: Sequence[str], contract: str
) -> SuccessModel:
    """Maximum-likelihood logistic regression (a small ridge keeps it finite on separable data)."""
    from scipy.optimize import minimize

    x = frame[list(features)].to_numpy(dtype=float)
    y = frame[target].to_numpy(dtype=float)
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale == 0] = 1.0
    z = np.column_stack([np.ones(len(x)), (x - mean) / scale])
    ridge = 1e-4

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        p = _sigmoid(z @ w)
        eps = 1e-12
        value = -np.mean(y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps)) + ridge * w @ w
        grad = z.T @ (p - y) / len(y) + 2 * ridge * w
        return float(value), grad

    fit = minimize(loss, np.zeros(z.shape[1]), jac=True, method="L-BFGS-B")
    return SuccessModel(contract, tuple(features), mean, scale, fit.x)


def auc(y: np.ndarray, p: np.ndarray) -> float:
    """Area under the ROC curve (Mann–Whitney), ties counted half."""
    from scipy.stats import rankdata

    positives = y.astype(bool)
    n1, n0 = positives.sum(), (~positives).sum()
    if n1 == 0 or n0 == 0:
        return float("nan")
    ranks = rankdata(p)
    return float((ranks[positives].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


def _losses(y: np.ndarray, p: np.ndarray) -> dict[str, np.ndarray]:
    """Per-deal Brier and log-loss terms: their means are the scores."""
    eps = 1e-12
    return {
        "brier": (p - y) ** 2,
        "log_loss": -(y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps)),
    }


def _mean_interval(values: np.ndarray) -> dict[str, float]:
    mean = float(values.mean())
    half = 1.96 * float(values.std(ddof=1)) / np.sqrt(len(values))
    return {"value": mean, "ci_low": mean - half, "ci_high": mean + half}


def compare_evaluators(
    data: GuidanceData,
    contract: str = "garde",
    *,
    held_out: float = 0.2,
    boot: int = 100,
    seed: int = 0,
) -> dict[str, Any]:
    """Fit the success model on the first deals, then compare it with Chavey's count (as a
    one-feature logistic, so that both give probabilities) on the held-out last deals.

    Brier score and log loss are means of per-deal terms: their 95% intervals, and those of
    the paired differences, come from the central limit theorem. AUC and its difference get
    a bootstrap 95% interval over held-out deals. Also each predictor's calibration by tenths
    of predicted probability.
    """
    played = data.played().sort_values("deal")
    cut = int(len(played) * (1 - held_out))
    train, test = played.iloc[:cut], played.iloc[cut:]
    target = f"made_{contract}"
    model = fit_logistic(train, target, MODEL_FEATURES, contract)
    chavey = fit_logistic(train, target, ("chavey",), contract)
    y = test[target].to_numpy(dtype=float)
    predictions = {"fitted": model.predict(test), "chavey": chavey.predict(test)}
    losses = {name: _losses(y, p) for name, p in predictions.items()}
    rng = np.random.default_rng(seed)
    samples = rng.integers(0, len(y), size=(boot, len(y)))
    boot_auc = {
        name: np.array([auc(y[s], p[s]) for s in samples]) for name, p in predictions.items()
    }
    result: dict[str, Any] = {"contract": contract, "n_train": len(train), "n_test": len(test)}
    for name, p in predictions.items():
        result[name] = {metric: _mean_interval(values) for metric, values in losses[name].items()}
        result[name]["auc"] = {
            "value": auc(y, p),
            "ci_low": float(np.percentile(boot_auc[name], 2.5)),
            "ci_high": float(np.percentile(boot_auc[name], 97.5)),
        }
    difference = {
        metric: _mean_interval(losses["fitted"][metric] - losses["chavey"][metric])
        for metric in ("brier", "log_loss")
    }
    gap = boot_auc["fitted"] - boot_auc["chavey"]
    difference["auc"] = {
        "value": result["fitted"]["auc"]["value"] - result["chavey"]["auc"]["value"],
        "ci_low": float(np.percentile(gap, 2.5)),
        "ci_high": float(np.percentile(gap, 97.5)),
    }
    result["fitted_minus_chavey"] = difference
    result["coefficients"] = model.table()
    result["calibration"] = {name: calibration(y, p) for name, p in predictions.items()}
    return result


def calibration(y: np.ndarray, p: np.ndarray, bins: int = 10) -> pd.DataFrame:
    """Mean predicted probability and observed rate (with Wilson interval) per tenth of p."""
    edges = np.linspace(0, 1, bins + 1)
    which = np.clip(np.digitize(p, edges) - 1, 0, bins - 1)
    rows = []
    for b in range(bins):
        chosen = which == b
        n = int(chosen.sum())
        if n == 0:
            continue
        made = int(y[chosen].sum())
        low, high = wilson_interval(made, n)
        rows.append({"bin": b, "n": n, "predicted": float(p[chosen].mean()), "observed": made / n,
                     "ci_low": float(low), "ci_high": float(high)})  # fmt: skip
    return pd.DataFrame(rows).set_index("bin")
