"""A success model fitted on a guidance run's rows, against Chavey's count.

A logistic regression of a contract's success on hand features (:class:`SuccessModel`,
:func:`fit_logistic`), compared with Chavey's count on held-out deals by Brier score, log loss
and AUC (:func:`compare_evaluators`, :func:`auc`), with each predictor's calibration
(:func:`calibration`) and the caveats of reading it (:func:`model_caveats`). docs/guidance.md
gives every formula.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import pandas as pd

from tarot_analysis.analyses.guidance.counts import GuidanceData, _check_can_fit, _counts_by
from tarot_analysis.analyses.guidance.tables import _rate_rows
from tarot_analysis.errors import TarotInputError
from tarot_analysis.runs.progress import FITTING, step
from tarot_analysis.stats import Z_95, wilson_interval

#: The features the model is fitted on, none inside another: the plain trumps (2 to 20) apart
#: from the three bouts, each bout on its own, the honours by rank, and the shape. (The bouts
#: count the Excuse, and the trumps the Petit and the 21: on those, a coefficient would be
#: read against another that already holds part of it.) Card points are left out: they add up
#: the bouts and honours already there.
MODEL_FEATURES = (
    "plain_trumps",
    "petit",
    "twenty_one",
    "excuse",
    "kings",
    "queens",
    "knights",
    "jacks",
    "voids",
    "singletons",
    "longest_suit",
)


def model_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows with the model's derived features (``plain_trumps``) added."""
    missing = {"petit", "twenty_one", "knights", "jacks"} - set(frame.columns)
    if missing:
        raise TarotInputError(
            f"these guidance rows lack {', '.join(sorted(missing))}: they were written by an "
            "older version; run the guidance again into a new folder"
        )
    return frame.assign(plain_trumps=frame["trumps"] - frame["petit"] - frame["twenty_one"])


@dataclass(frozen=True)
class SuccessModel:
    """Logistic regression of a contract's success on hand features: a binomial GLM with its
    coefficients per unit of each feature, their standard errors and 95% intervals."""

    contract: str
    features: tuple[str, ...]
    coefficients: np.ndarray  # intercept first, then one per feature, log-odds per unit
    standard_errors: np.ndarray
    scale: np.ndarray  # each feature's standard deviation on the deals fitted
    n: int

    def predict(self, frame: pd.DataFrame) -> np.ndarray:
        """Probability of success of each row."""
        x = frame[list(self.features)].to_numpy(dtype=float)
        return _sigmoid(self.coefficients[0] + x @ self.coefficients[1:])

    def table(self) -> pd.DataFrame:
        """Per feature: the log-odds per unit with its standard error and 95% interval, the
        odds ratio per unit, and the log-odds per standard deviation of the feature."""
        per_unit = self.coefficients[1:]
        error = self.standard_errors[1:]
        return pd.DataFrame(
            {
                "per_unit": per_unit,
                "std_error": error,
                "ci_low": per_unit - Z_95 * error,
                "ci_high": per_unit + Z_95 * error,
                "odds_ratio": np.exp(per_unit),
                "per_sd": per_unit * self.scale,
            },
            index=pd.Index(self.features, name="feature"),
        )


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(z, -40, 40)))


def fit_logistic(
    frame: pd.DataFrame, target: str, features: Sequence[str], contract: str
) -> SuccessModel:
    """Maximum-likelihood logistic regression (statsmodels' binomial GLM, fitted by iteratively
    reweighted least squares), with the standard errors of its coefficients."""
    import statsmodels.api as sm

    x = frame[list(features)].to_numpy(dtype=float)
    y = frame[target].to_numpy(dtype=float)
    design = np.column_stack([np.ones(len(x)), x])
    fit = sm.GLM(y, design, family=sm.families.Binomial()).fit()
    return SuccessModel(
        contract=contract,
        features=tuple(features),
        coefficients=np.asarray(fit.params, dtype=float),
        standard_errors=np.asarray(fit.bse, dtype=float),
        scale=x.std(axis=0),
        n=len(y),
    )


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
    half = Z_95 * float(values.std(ddof=1)) / np.sqrt(len(values))
    return {"value": mean, "ci_low": mean - half, "ci_high": mean + half}


def compare_evaluators(
    data: GuidanceData,
    contract: str = "garde",
    *,
    held_out: float = 0.2,
    boot: int = 100,
    seed: int = 0,
    progress: bool = False,
) -> dict[str, Any]:
    """Fit the success model on the first deals, then compare it with Chavey's count (as a
    one-feature logistic, so that both give probabilities) on the held-out last deals.

    Brier score and log loss are means of per-deal terms: their 95% intervals, and those of
    the paired differences, come from the central limit theorem. AUC and its difference get
    a bootstrap 95% interval over held-out deals. Also each predictor's calibration by tenths
    of predicted probability, the best contract by tenth of the fitted model's probability on
    the held-out deals (``by_model``, as :func:`table_by`), and the caveats of reading it, one
    sentence each. ``progress`` shows the step (:func:`tarot_analysis.runs.progress.step`).
    At least :data:`MIN_FIT_DEALS` deals played.
    """
    _check_can_fit(data)
    where = f"{data.rules.name} seat {data.seat}, the success model of {contract}"
    with step(FITTING, progress, detail=where) as shown:
        played = model_frame(data.played().sort_values("deal"))
        cut = int(len(played) * (1 - held_out))
        train, test = played.iloc[:cut], played.iloc[cut:]
        target = f"made_{contract}"
        model = fit_logistic(train, target, MODEL_FEATURES, contract)
        chavey = fit_logistic(train, target, ("chavey",), contract)
        y = test[target].to_numpy(dtype=float)
        predictions = {"fitted": model.predict(test), "chavey": chavey.predict(test)}
        losses = {name: _losses(y, p) for name, p in predictions.items()}
        shown.set_postfix_str("bootstrap intervals of the AUC")
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
    band = np.clip((predictions["fitted"] * PROBABILITY_BANDS).astype(np.int64), 0, 9)
    by_band = _counts_by(test.assign(band=band), ["band"], data.contracts)
    by_model = _rate_rows(by_band, data.contracts)
    by_model.index = pd.Index(
        [f"{b / PROBABILITY_BANDS:.1f}-{(b + 1) / PROBABILITY_BANDS:.1f}" for b in by_model.index],
        name=f"{contract}_probability",
    )
    result["by_model"] = by_model
    result["caveats"] = model_caveats(result, data.bots)
    return result


#: The fitted model's probability is read in tenths.
PROBABILITY_BANDS: Final = 10


def model_caveats(comparison: dict[str, Any], bots: Sequence[str]) -> list[str]:
    """What a reader of the fitted model should keep in mind, one sentence each: the ones that
    hold for every run, and those its calibration shows."""
    contract = str(comparison["contract"]).replace("_", " ")
    who = bots[0] if len(set(bots)) == 1 else ", ".join(bots)
    caveats = [
        f"The model predicts whether a {contract} makes with {who} bots at every seat; other "
        "players make and break other contracts.",
        "Each coefficient is the change in log-odds for one more of that feature with every "
        "other feature held fixed; in real hands the features move together (more trumps "
        "leave fewer suit cards), so a coefficient alone is not what one more card is worth.",
        "The intervals are those of the coefficients given the model's form: a logistic on "
        "counts, with no interaction (a king is worth the same in a long suit as in a short "
        "one).",
    ]
    table = comparison["calibration"]["fitted"]
    for low, high, word in ((0.0, 0.3, "low"), (0.3, 0.7, "middle"), (0.7, 1.0, "high")):
        rows = table[(table["predicted"] >= low) & (table["predicted"] < high + 1e-12)]
        under = rows[rows["ci_low"] > rows["predicted"]]
        over = rows[rows["ci_high"] < rows["predicted"]]
        for kind, found in (("under", under), ("over", over)):
            if len(found) == 0:
                continue
            worst = found.iloc[int(np.argmax(np.abs(found["observed"] - found["predicted"])))]
            caveats.append(
                f"At {word} predicted chances the model {kind}-predicts: where it predicts "
                f"{worst['predicted']:.1%}, {worst['observed']:.1%} of the held-out deals made "
                f"(95% interval {worst['ci_low']:.1%} to {worst['ci_high']:.1%}, "
                f"{int(worst['n']):,} deals)."
            )
    return caveats


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
