"""Section "Thresholds": from which value each contract is bid, what passing is worth, and what
each rule loses against the best contract of each value, in and out of sample."""

from __future__ import annotations

from typing import Final, cast

import pandas as pd

from tarot_analysis.report.bidding import COUNTERFACTUAL, RANGE_MIN_DEALS
from tarot_analysis.report.html import (
    Context,
    Section,
    Table,
    count,
    label,
    mean_with_interval,
    percent,
    signed,
    threshold,
)
from tarot_analysis.report.runs import Guidance

__all__ = ["EVALUATOR_NAMES", "RULE_NAMES", "section", "thresholds_table"]

EVALUATOR_NAMES: Final[dict[str, str]] = {
    "chavey": "Chavey's count",
    "bouts_and_trumps": "Bouts and trumps",
    "fitted": "Fitted model",
}
RULE_NAMES: Final[dict[str, str]] = {
    "chavey": "Chavey's published thresholds",
    "chavey_fitted": "Thresholds fitted on Chavey's count",
    "bouts_and_trumps": "Bouts and trumps, published",
    "bouts_and_trumps_fitted": "Thresholds fitted on bouts and trumps",
}


def _passing_table(guidance: Guidance, context: Context) -> Table:
    """By Chavey count: what passing is worth measured, and the best option read three ways."""
    by_chavey = guidance.tables["by_chavey"]
    by_seat = guidance.tables["by_seat"]
    last = guidance.last
    caption = context.caption(
        "Passing, measured, and the seat that speaks",
        mode="counterfactual, and each deal played once more with the seat passing and the "
        "others bidding on",
        n=f"{guidance.data.played_deals:,} deals for seat 0; {last.played_deals:,} for seat "
        f"{last.seat}, on which every other seat passed; counts held by at least "
        f"{RANGE_MIN_DEALS} deals",
        interval="mean ± the half-width of its 95% interval over deals; A ≈ B: tied, the "
        "interval of their paired difference reaches 0",
    )  # fmt: skip
    rows = []
    for value, row in by_seat.iterrows():
        if not row["first_n"] >= RANGE_MIN_DEALS:
            continue
        first = cast(pd.Series, by_chavey.loc[cast(int, value)])

        def best(part: str, row: pd.Series = row) -> str:
            n = row[f"{part}_n"]
            if pd.isna(n) or n < RANGE_MIN_DEALS:
                return "—"
            text = label(str(row[f"{part}_best"]))
            if bool(row[f"{part}_tie"]):
                text += f" ≈ {label(str(row[f'{part}_runner_up']))}"
            return text

        rows.append(
            [
                str(value),
                count(row["first_n"]),
                mean_with_interval(
                    first["pass_played_mean_score"], first["pass_played_score_half_width"]
                ),
                percent(first["pass_taken_share"], 0),
                best("first"),
                best("first_pass_played"),
                "—" if pd.isna(row["last_n"]) else count(row["last_n"]),
                best("last"),
            ]
        )
    header = [
        "Chavey count", "deals, seat 0", "passing worth (95%)", "another seat takes",
        "best, pass scores 0", "best, pass measured", f"deals, seat {last.seat}",
        f"best, seat {last.seat}",
    ]  # fmt: skip
    note = (
        "Passing worth: seat 0's score when it passes and the others bid on (another seat may "
        "take, and seat 0 then defends; when all pass the deal is redealt and scores 0). The "
        "tables above read a pass as 0, as a player who expects everyone else to pass; "
        "measured, a pass costs what the others' contracts win. The last seat speaks after "
        "everyone else: on the deals where they all passed, its pass ends the deal (0), and "
        "its hand is judged knowing that."
    )
    return Table("passing", caption, header, rows, note=note)


def thresholds_table(
    guidance: Guidance, context: Context, *, evaluators: tuple[str, ...] = (), key: str = ""
) -> Table:
    """Each contract's fitted threshold with its bootstrap interval, beside the published one.

    ``evaluators``: only these (default every one); ``key``: the table's key (default
    ``thresholds``).
    """
    table = guidance.tables["thresholds"]
    replicates = int(table["replicates"].iloc[0]) if len(table) else 0
    caption = context.caption(
        "Thresholds: the value from which each contract, or a higher one, is bid",
        mode=COUNTERFACTUAL, n=f"{guidance.data.played_deals:,} deals played",
        interval=f"percentile 95% interval over {replicates} bootstrap replicates of the deals",
    )  # fmt: skip
    rows = []
    for index, row in table.iterrows():
        evaluator, contract = cast(tuple[str, str], index)
        if evaluators and evaluator not in evaluators:
            continue
        rows.append(
            [
                EVALUATOR_NAMES.get(evaluator, evaluator),
                label(contract),
                threshold(row["fitted"]),
                f"{threshold(row['ci_low'])} to {threshold(row['ci_high'])}",
                percent(row["never_alone"], 0),
                threshold(row["published"]),
            ]
        )
    header = [
        "evaluator", "contract", "from (fitted)", "95% interval", "never bid alone",
        "published",
    ]  # fmt: skip
    note = (
        "Fitted: of all rules that never step down as the value grows (pass, then Prise, "
        "Garde, Garde sans, Garde contre), the one of highest total score on these deals. Never "
        "bid alone: the share of replicates in which the fitted rule skips the contract (goes "
        "straight to a higher one). Published: Chavey's 40, 56, 71 and 81 (scaled to the hand "
        "size; his Garde sans and Garde contre read on the count with the distribution, which "
        "is at least the plain count); the bouts-and-trumps rule names a Prise and a Garde only."
    )
    return Table(key or "thresholds", caption, header, rows, note=note)


def _loss_table(guidance: Guidance, context: Context) -> Table:
    loss = guidance.tables["threshold_loss"]
    n = int(loss["n"].iloc[0]) if len(loss) else 0
    caption = context.caption(
        "What each rule loses against the best contract of each value", mode=COUNTERFACTUAL,
        n=f"{n:,} deals played", interval="normal 95% interval from the per-deal losses",
    )  # fmt: skip
    rows = [
        [
            RULE_NAMES.get(str(name), str(name)),
            signed(row["mean_expected_score"], 2),
            mean_with_interval(row["mean_loss"], row["loss_ci_half_width"], 2),
            signed(row["out_of_sample_expected_score"], 2),
            mean_with_interval(row["out_of_sample_loss"], row["out_of_sample_ci_half_width"], 2),
        ]
        for name, row in loss.iterrows()
    ]
    header = [
        "rule", "expected score", "loss per deal (95%)", "expected score, out of sample",
        "loss per deal, out of sample (95%)",
    ]  # fmt: skip
    note = (
        "Each deal's loss is the score, on that deal, of the best contract at its value (Pass "
        "scores 0) less that of the contract the rule names. In sample, the best contracts and "
        "the fitted thresholds are chosen on the same deals they are scored on, which flatters "
        "them. Out of sample, they are chosen on half of the deals (even or odd numbers) and "
        "scored on the other half, and the other way round. A negative loss out of sample: the "
        "rule does better than the best contract of each value chosen on the other half, "
        "which follows that half's noise."
    )
    return Table("threshold-loss", caption, header, rows, note=note)


def section(guidance: Guidance, context: Context) -> Section:
    return Section(
        "thresholds", "Thresholds, passing and what each rule loses", "thresholds.html.j2",
        {
            "thresholds": thresholds_table(guidance, context),
            "loss": _loss_table(guidance, context),
            "passing": _passing_table(guidance, context),
        },
        {
            "thresholds-fitted": "Thresholds, fitted and published",
            "thresholds-loss": "What each rule loses",
            "thresholds-passing": "Passing, measured, and the seat",
        },
    )  # fmt: skip
