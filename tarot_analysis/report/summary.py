"""Section "Summary": what to bid, on one printed page.

The thresholds fitted on Chavey's count with their intervals beside the published ones, the
best contract by range of count with its ties, what the published thresholds cost, the
contracts at the table, which bots played and what that means, the same advice under other
bots when such a run is at hand, and links to the sections that show the detail.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Final, cast

import pandas as pd

from tarot_analysis.report.bidding import COUNTERFACTUAL, best_by_chavey_text
from tarot_analysis.report.html import (
    Context,
    Section,
    Table,
    bots_label,
    count,
    label,
    mean_with_interval,
    percent,
    rate_with_interval,
    threshold,
)
from tarot_analysis.report.runs import Guidance, Stored
from tarot_analysis.report.stronger import BotsComparison

__all__ = ["BOT_MEANINGS", "section", "stronger_play"]

#: What each bot is, said to a player.
BOT_MEANINGS: Final[dict[str, str]] = {
    "heuristic": (
        "a hand-written player: it bids by its own count of the hand, keeps its bouts safe, "
        "leads and follows by rules of thumb of club play and counts the cards played; it does "
        "not search"
    ),
    "random": (
        "a random legal card at every turn and a random bid: a floor, not a player; its "
        "contract rates say what the cards alone allow"
    ),
    "pimc": (
        "a search bot: for each card it draws deals of the hidden cards consistent with the "
        "play so far, plays each out and keeps the card that scores best on average; it beats "
        "the heuristic in duplicate, at a few deals a second"
    ),
}


def _meaning(name: str) -> str:
    base = name.partition(":")[0]
    meaning = BOT_MEANINGS.get(base, "a bot of this toolkit")
    return f"{name}: {meaning}" if base == name else f"{name} (a variant of {base}): {meaning}"


def _thresholds(guidance: Guidance, context: Context) -> Table:
    table = guidance.tables["thresholds"]
    replicates = int(table["replicates"].iloc[0]) if len(table) else 0
    rows = []
    for index, row in table.iterrows():
        evaluator, contract = cast(tuple[str, str], index)
        if evaluator != "chavey":
            continue
        skipped = row["never_alone"]
        rows.append(
            [
                label(contract),
                threshold(row["fitted"]),
                f"{threshold(row['ci_low'])} to {threshold(row['ci_high'])}",
                percent(skipped, 0),
                threshold(row["published"]),
            ]
        )
    caption = context.caption(
        "What to bid: the Chavey count from which each contract, or a higher one, is bid",
        mode=COUNTERFACTUAL, n=f"{guidance.data.played_deals:,} deals played",
        interval=f"percentile 95% interval over {replicates} bootstrap replicates of the deals",
    )  # fmt: skip
    header = ["contract", "from (fitted)", "95% interval", "skipped", "published"]
    note = (
        "Fitted: the thresholds of highest total score on these deals, never stepping down. "
        "Skipped: the share of replicates in which the contract is never the one bid (a higher "
        "one is bid from its count). Published: Chavey's thresholds."
    )
    return Table("summary-thresholds", caption, header, rows, note=note)


def _contracts(auction: Stored, context: Context) -> Table:
    table = auction.tables["contracts"]
    played = int(auction.extra["played"])
    rows = [
        [
            label(str(name)),
            rate_with_interval(row["share"], row["share_ci_low"], row["share_ci_high"]),
            rate_with_interval(row["rate"], row["ci_low"], row["ci_high"]),
            mean_with_interval(
                row["mean_taker_score"], (row["score_ci_high"] - row["score_ci_low"]) / 2
            ),
        ]
        for name, row in table.iterrows()
    ]
    caption = context.caption(
        "Contracts at the table: how often the bots bid each, and how often it makes",
        mode="auction (the bots bid in turn; the highest bid is played)",
        n=f"{played:,} deals played of {context.auction_deals:,} dealt",
        interval="Wilson 95% intervals in brackets, normal 95% on the mean score",
    )  # fmt: skip
    header = ["contract", "share of deals (95%)", "made (95%)", "taker's mean score (95%)"]
    return Table("summary-contracts", caption, header, rows)


def _points(value: object) -> str:
    """``6.35``; a value that rounds to zero written ``0.00``, never ``-0.00``."""
    return f"{round(float(cast(float, value)), 2) + 0.0:.2f}"


def _loss_sentence(guidance: Guidance) -> str:
    loss = guidance.tables["threshold_loss"]
    if "chavey" not in loss.index:
        return ""
    row = loss.loc["chavey"]
    text = (
        f"Bidding by Chavey's published thresholds loses "
        f"{_points(row['mean_loss'])} ± {_points(row['loss_ci_half_width'])} points a deal "
        f"against the best contract at each count ({_points(row['out_of_sample_loss'])} ± "
        f"{_points(row['out_of_sample_ci_half_width'])} out of sample: chosen on half of the "
        "deals, scored on the other)"
    )
    if "chavey_fitted" in loss.index:
        fitted = loss.loc["chavey_fitted"]
        text += (
            f"; the fitted thresholds lose {_points(fitted['out_of_sample_loss'])} ± "
            f"{_points(fitted['out_of_sample_ci_half_width'])} out of sample"
        )
    return text + "."


@dataclass(frozen=True)
class _Stronger:
    """The other bots' run, as the summary shows it."""

    comparison: BotsComparison
    table: Table
    command: str


def stronger_play(
    guidance: Guidance, context: Context, data_dir: str | os.PathLike[str]
) -> _Stronger | str:
    """The advice under other bots from a run of the same deals in ``data_dir``, or a sentence
    saying how to make one."""
    from tarot_analysis.report.stronger import compare_runs, other_runs
    from tarot_analysis.runner import read_dataset

    ours = guidance.data.frame
    published = [
        float(row["published"])
        for index, row in guidance.tables["thresholds"].iterrows()
        if cast(tuple[str, str], index)[0] == "chavey"
    ]
    label_ours = bots_label(context.bots)
    # The next stronger bots: the heuristic after random, the search bot after the heuristic.
    other = (
        "heuristic" if label_ours == "random" else "pimc" if label_ours != "pimc" else "heuristic"
    )
    suggested = Path(data_dir) / f"guidance-{context.rules.name}-{other}-seed{context.seed}-3000"
    command = (
        f"tarot-analysis guidance --rules {context.rules_argument} --deals 3000 --bots {other} "
        f"--seed {context.seed} --data {suggested.as_posix()}"
    )
    if ours is None:
        return ""
    for folder in other_runs(data_dir, context.rules.name, label_ours, context.seed):
        bots = folder.name.removeprefix(f"guidance-{context.rules.name}-").rsplit("-seed", 1)[0]
        try:
            rows = read_dataset(folder).to_pandas()
        except Exception:  # an unfinished or foreign folder is not a comparison
            continue
        comparison = compare_runs(ours, rows, published, folder, bots)
        if comparison is None or not comparison.bands:
            continue
        return _Stronger(comparison, _stronger_table(comparison, context), command)
    return command


def _stronger_table(comparison: BotsComparison, context: Context) -> Table:
    def lead(values: tuple[float, float, float]) -> str:
        mean, low, high = values
        if pd.isna(low):
            return f"{mean:+.1f}"
        return f"{mean:+.1f} ({low:+.1f} to {high:+.1f})"

    ours = bots_label(context.bots)
    rows = [
        [
            band.band,
            count(band.deals),
            f"{label(band.best[0])}, {lead(band.difference[0])}",
            f"{label(band.best[1])}, {lead(band.difference[1])}",
            lead(band.garde_change),
        ]
        for band in comparison.bands
    ]
    caption = context.caption(
        f"The same deals under {comparison.bots} bots: the best contract by band of Chavey count",
        mode=COUNTERFACTUAL,
        n=f"{comparison.deals:,} deals both runs played, the same hands (checked)",
        interval="best less runner-up, and the Garde's change, deal by deal with their 95% "
        "intervals",
        bots=f"{ours} at every seat, then {comparison.bots} at every seat",
    )  # fmt: skip
    header = [
        "Chavey count", "deals", f"best, {ours} (lead on runner-up)",
        f"best, {comparison.bots} (lead on runner-up)", f"Garde, {comparison.bots} − {ours}",
    ]  # fmt: skip
    return Table("stronger-play", caption, header, rows)


def section(
    guidance: Guidance, auction: Stored, context: Context, data_dir: str | os.PathLike[str]
) -> Section:
    names = list(dict.fromkeys(context.bots))
    return Section(
        "summary", "Summary", "summary.html.j2",
        {
            "context": context,
            "description": context.rules.description,
            "best": best_by_chavey_text(guidance) or "no count held by enough deals",
            "thresholds": _thresholds(guidance, context),
            "loss": _loss_sentence(guidance),
            "contracts": _contracts(auction, context),
            "meanings": [_meaning(name) for name in names],
            "stronger": stronger_play(guidance, context, data_dir),
        },
    )  # fmt: skip
