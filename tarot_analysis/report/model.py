"""Section "A fitted success model": a logistic regression on the hand's features against
Chavey's count, on held-out deals, with its coefficients, calibration and caveats."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from tarot_analysis.report.bidding import COUNTERFACTUAL
from tarot_analysis.report.html import (
    Context,
    Section,
    Table,
    best_text,
    chart,
    count,
    difference_text,
    label,
    percent,
    rate_with_interval,
)
from tarot_analysis.report.runs import Guidance
from tarot_analysis.report.thresholds import EVALUATOR_NAMES

__all__ = ["section"]

FEATURE_NAMES: Final[dict[str, str]] = {
    "plain_trumps": "plain trumps (2 to 20)",
    "petit": "the Petit",
    "twenty_one": "the 21",
    "excuse": "the Excuse",
    "longest_suit": "longest suit (cards)",
}


def _comparison_table(guidance: Guidance, context: Context) -> Table:
    comparison = guidance.comparison
    caption = context.caption(
        f"Predicting whether a {label(comparison['contract'])} makes: fitted model against "
        "Chavey's count",
        mode=COUNTERFACTUAL,
        n=f"{comparison['n_test']:,} held-out deals (fitted on {comparison['n_train']:,})",
        interval="normal 95% intervals on Brier and log loss; bootstrap 95% (100 resamples) "
        "on AUC",
    )  # fmt: skip

    def cell(metric: Mapping[str, float], signed: bool) -> str:
        form = "+.4f" if signed else ".4f"
        return f"{metric['value']:{form}} ({metric['ci_low']:{form}} to {metric['ci_high']:{form}})"

    rows = []
    for name, text, signed in (
        ("fitted", "Fitted model (hand features)", False),
        ("chavey", "Chavey's count (one-feature logistic)", False),
        ("fitted_minus_chavey", "Fitted − Chavey (paired)", True),
    ):
        metrics = comparison[name]
        rows.append([text, *(cell(metrics[m], signed) for m in ("brier", "log_loss", "auc"))])
    header = ["predictor", "Brier score (lower is better)", "log loss (lower)", "AUC (higher)"]
    return Table("model-comparison", caption, header, rows)


def _coefficients_table(guidance: Guidance, context: Context) -> Table:
    comparison = guidance.comparison
    caption = context.caption(
        f"The fitted model: logistic regression of a {label(comparison['contract'])}'s success",
        mode=COUNTERFACTUAL, n=f"{comparison['n_train']:,} deals (the first part of the run)",
        interval="95% interval from each coefficient's standard error (binomial GLM)",
    )  # fmt: skip
    rows = [
        [
            FEATURE_NAMES.get(str(name), str(name).replace("_", " ")),
            f"{row['per_unit']:+.3f} ({row['ci_low']:+.3f} to {row['ci_high']:+.3f})",
            f"{row['std_error']:.3f}",
            f"× {row['odds_ratio']:.2f}",
            f"{row['per_sd']:+.3f}",
        ]
        for name, row in comparison["coefficients"].iterrows()
    ]
    header = [
        "feature", "log-odds per unit (95%)", "standard error", "odds per unit",
        "log-odds per standard deviation",
    ]  # fmt: skip
    note = (
        "The features do not overlap: the plain trumps are the trumps 2 to 20, and each bout "
        "(the Petit, the 21, the Excuse) has its own coefficient."
    )
    return Table("model-coefficients", caption, header, rows, note=note)


def _best_table(guidance: Guidance, context: Context) -> Table:
    comparison = guidance.comparison
    caption = context.caption(
        f"Best contract by the fitted model's chance of a {label(comparison['contract'])}",
        mode=COUNTERFACTUAL,
        n=f"{comparison['n_test']:,} held-out deals, by tenth of predicted chance",
        interval="the best less the runner-up, deal by deal, with its 95% interval",
    )  # fmt: skip
    rows = [
        [str(band), count(row["n"]), best_text(row), difference_text(row)]
        for band, row in comparison["by_model"].iterrows()
    ]
    header = ["predicted chance", "deals", "best (≈ tie)", "best − runner-up (95%)"]
    return Table("best-by-model", caption, header, rows)


def _calibration_table(guidance: Guidance, context: Context) -> Table:
    comparison = guidance.comparison
    curves = comparison["calibration"]
    caption = context.caption(
        f"Calibration: predicted chance of a {label(comparison['contract'])} against the share "
        "made",
        mode=COUNTERFACTUAL,
        n=f"{comparison['n_test']:,} held-out deals, by tenth of predicted chance",
        interval="Wilson 95% intervals on the share made",
    )  # fmt: skip
    bins = sorted(set().union(*(set(table.index) for table in curves.values())))
    header = ["predicted chance"]
    groups = [("", 1)]
    for name in curves:
        header += ["deals", "mean predicted", "made (95%)"]
        groups.append((EVALUATOR_NAMES.get(name, name), 3))
    rows = []
    for b in bins:
        cells = [f"{b / 10:.0%}–{(b + 1) / 10:.0%}"]
        for table in curves.values():
            if b not in table.index:
                cells += ["0", "—", "—"]
                continue
            row = table.loc[b]
            cells += [
                count(row["n"]),
                percent(row["predicted"]),
                rate_with_interval(row["observed"], row["ci_low"], row["ci_high"]),
            ]
        rows.append(cells)
    return Table("calibration", caption, header, rows, groups=groups)


def section(guidance: Guidance, context: Context) -> Section:
    from tarot_analysis.report import plots

    comparison = guidance.comparison
    who = (
        f"{context.rules.name}, {context.bots_text}, counterfactual mode, "
        f"{comparison['n_test']:,} held-out deals"
    )
    calibration = chart(
        plots.calibration(comparison["calibration"]), "calibration",
        "Calibration of the fitted model and of Chavey's count",
        f"Predicted chance of a {label(comparison['contract'])} against the share made "
        f"({who}); Wilson 95% error bars.",
    )  # fmt: skip
    return Section(
        "model", "A fitted success model against Chavey's count", "model.html.j2",
        {
            "comparison": _comparison_table(guidance, context),
            "coefficients": _coefficients_table(guidance, context),
            "caveats": comparison["caveats"],
            "best": _best_table(guidance, context),
            "calibration": (calibration, _calibration_table(guidance, context)),
        },
        {
            "model-fit": "How well it predicts",
            "model-caveats": "Read the model with care",
            "model-best": "Best contract by the model's chance",
            "model-calibration": "Calibration",
        },
    )  # fmt: skip
