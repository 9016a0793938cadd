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
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from tarot_analysis import evaluators
from tarot_analysis.counterfactual import play_every_contract
from tarot_analysis.features import FEATURES, hand_features
from tarot_analysis.rules import Rules
from tarot_analysis.runner import RunResult, RunSpec, read_dataset, run
from tarot_analysis.stats import wilson_interval

__all__ = ["GuidanceData", "guidance_tables", "run_guidance"]

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
    rules: Rules, bots: Sequence[str], seed: int, chunk: int, first: int, n: int
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


@dataclass
class GuidanceData:
    """The rows of a guidance run, and what produced them."""

    rules: Rules
    bots: tuple[str, ...]
    seed: int
    frame: pd.DataFrame  # one row per deal: features, evaluator scores, made_* and score_*
    run: RunResult | None = None

    @property
    def contracts(self) -> list[str]:
        return [c.name for c in self.rules.contracts]

    def played(self) -> pd.DataFrame:
        """Deals that were played (redeals for a Petit sec left out)."""
        return self.frame[~self.frame["redeal"]]


def run_guidance(
    rules: Rules,
    deals: int,
    folder: str | os.PathLike[str],
    *,
    bots: Sequence[str] | str = "random",
    seed: int = 1,
    chunk_size: int = 50_000,
    threads: int | None = None,
    progress: bool = False,
    client: Any = None,
) -> GuidanceData:
    """Play ``deals`` deals under every contract into ``folder`` (resuming what is there)."""
    names = (bots,) * rules.players if isinstance(bots, str) else tuple(bots)
    spec = RunSpec(
        kind="guidance", rules=rules.name, bots=names, seed=seed, deals=deals,
        chunk_size=chunk_size, extra={"seat": 0, "mode": "counterfactual"},
    )  # fmt: skip
    result = run(
        spec, folder, lambda chunk, first, n: _chunk_rows(rules, names, seed, chunk, first, n),
        threads=threads, progress=progress, client=client,
    )  # fmt: skip
    frame = read_dataset(folder).to_pandas()
    return GuidanceData(rules=rules, bots=names, seed=seed, frame=frame, run=result)


def _rate_rows(group: pd.DataFrame, contracts: list[str]) -> dict[str, Any]:
    n = len(group)
    row: dict[str, Any] = {"n": n}
    best, best_score = "pass", 0.0
    for name in contracts:
        made = int(group[f"made_{name}"].sum())
        low, high = wilson_interval(made, n)
        score = group[f"score_{name}"]
        row[f"{name}_rate"] = made / n if n else np.nan
        row[f"{name}_ci_low"] = float(low)
        row[f"{name}_ci_high"] = float(high)
        row[f"{name}_mean_score"] = float(score.mean()) if n else np.nan
        if n and float(score.mean()) > best_score:
            best, best_score = name, float(score.mean())
    row["best"] = best
    row["best_mean_score"] = best_score
    return row


def table_by(data: GuidanceData, keys: str | list[str], *, min_n: int = 1) -> pd.DataFrame:
    """Per value of ``keys`` (e.g. ``"chavey"``, ``["bouts", "trumps"]``): n, and for every
    contract its success rate with a Wilson interval and the taker's mean score; ``best`` is the
    contract of highest mean score (``pass`` when none beats 0)."""
    rows = []
    for key, group in data.played().groupby(keys):
        row = _rate_rows(group, data.contracts)
        if row["n"] >= min_n:
            labels = key if isinstance(key, tuple) else (key,)
            names = keys if isinstance(keys, list) else [keys]
            rows.append(dict(zip(names, labels, strict=True)) | row)
    index = keys if isinstance(keys, list) else [keys]
    return pd.DataFrame(rows).set_index(index)


def threshold_loss(data: GuidanceData) -> pd.DataFrame:
    """What each evaluator's thresholds lose per deal against the best contract of each score.

    For every deal, the evaluator's recommended contract is scored with the taker's expected
    score at that evaluator value (mean over the deals with the same value), and compared with
    the best contract at that value. Pass scores 0.
    """
    played = data.played()
    size = data.rules.hand_size
    recommendations = {
        "chavey": evaluators.bid_names(
            evaluators.chavey_bid(played["chavey"], played["chavey_distribution"], hand_size=size)
        ),
        "bouts_and_trumps": evaluators.bid_names(
            evaluators.bouts_and_trumps_bid(played["bouts_and_trumps"], hand_size=size)
        ),
    }
    rows = []
    for name, bids in recommendations.items():
        by_value = table_by(data, name)
        expected = {c: played[name].map(by_value[f"{c}_mean_score"]) for c in data.contracts}
        chosen = np.zeros(len(played))
        for contract in data.contracts:
            chosen = np.where(bids == contract, expected[contract].to_numpy(), chosen)
        best = played[name].map(by_value["best_mean_score"]).to_numpy()
        loss = best - chosen
        rows.append(
            {
                "evaluator": name,
                "n": len(played),
                "mean_expected_score": float(chosen.mean()),
                "best_expected_score": float(best.mean()),
                "mean_loss": float(loss.mean()),
                "loss_ci_half_width": float(1.96 * loss.std(ddof=1) / np.sqrt(len(loss))),
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
