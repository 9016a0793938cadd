"""Section "Up the ladder of bots": the same answers under every table of bots run beside this one.

The answers of a report are those of its bots. Runs of the same rules and seed under other
bots, found in the report's data folder, show how they move as the play gets stronger: the
guidance runs (``tarot-analysis guidance --bots B --data DIR/guidance-<rules>-<B>-seed<S>-<N>``,
the name the report gives its own) and the auction tables
(``contracts-<rules>-<B>-seed<S>-<N>.json``, which a report under those bots writes). The
tables go up the ladder of bots, the weakest first (:data:`RUNGS`): each run's fitted
thresholds with their bootstrap intervals, the Garde's make rate and mean score when seat 0
takes it, the best contract by band of Chavey count with its runner-up, and from the auctions
the share of deals passed out and of each contract and how often a Garde bid makes. Each run
is summarised on its own deals, with its own intervals; runs of different sizes are not
paired.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, cast

import numpy as np
import pandas as pd

from tarot_analysis.report.html import (
    Context,
    Section,
    Table,
    bots_label,
    count,
    label,
    percent,
    percent_interval,
    threshold,
)
from tarot_analysis.report.runs import Guidance
from tarot_analysis.report.stronger import bands
from tarot_analysis.stats import wilson_interval

__all__ = ["RUNGS", "AuctionRung", "GuidanceRung", "auction_rungs", "guidance_rungs", "section"]

#: The kinds of bot from the weakest up; a table's rung is that of its bots' kind (``pimc``
#: reading and playing its worlds with the learned bot above plain ``pimc``).
RUNGS: Final = ("random", "heuristic", "learned", "pimc", "pimc:learned")
#: The contract whose make rate the ladder follows: the one most bid.
GARDE: Final = "garde"


def rung(bots: str) -> int:
    """The place of a table of ``bots`` (its label) on the ladder; past the end for mixed
    tables and bots not on it."""
    kind = bots.split(":", 1)[0]
    if kind == "pimc" and ":learned" in bots:
        kind = "pimc:learned"
    return RUNGS.index(kind) if kind in RUNGS else len(RUNGS)


@dataclass(frozen=True)
class GuidanceRung:
    """One guidance run on the ladder: its bots and what it answers."""

    bots: str
    folder: Path
    played: int  # deals counted
    thresholds: dict[Any, Any]  # by contract: fitted, ci_low, ci_high (Chavey's)
    by_band: dict[Any, Any]  # by band of Chavey count, in order: n, best, runner_up,
    # difference, difference_ci_low, difference_ci_high, tie


@dataclass(frozen=True)
class AuctionRung:
    """One auction run on the ladder: its bots and the contracts they bid."""

    bots: str
    dealt: int
    passed_out: int
    played: int
    contracts: dict[Any, Any]  # by contract: the report's contracts table


def _runs(data_dir: Path, pattern: str) -> dict[str, tuple[int, Path]]:
    """The largest run of each table of bots among the files matching ``pattern``
    (``bots`` and ``deals`` groups)."""
    found: dict[str, tuple[int, Path]] = {}
    for path in data_dir.glob("*"):
        match = re.fullmatch(pattern, path.name)
        if match:
            deals = int(match["deals"])
            if deals > found.get(match["bots"], (-1, path))[0]:
                found[match["bots"]] = (deals, path)
    return found


def guidance_rungs(
    data_dir: str | os.PathLike[str],
    rules_name: str,
    seed: int,
    published: Sequence[float],
    ours: tuple[Path, Any] | None = None,
) -> list[GuidanceRung]:
    """The finished guidance runs of seat 0 for ``rules_name`` and ``seed`` in ``data_dir``,
    the largest of each table of bots, up the ladder; bands cut at ``published``. ``ours``:
    a run already read (its folder and data), not read again."""
    from tarot_analysis.analyses.guidance import MIN_FIT_DEALS

    pattern = rf"guidance-{re.escape(rules_name)}-(?P<bots>.+)-seed{seed}-(?P<deals>\d+)"
    out = []
    for bots, (_, folder) in _runs(Path(data_dir), pattern).items():
        same = ours is not None and folder.resolve() == ours[0].resolve()
        data = ours[1] if same and ours is not None else _finished(folder)
        if data is None or data.played_deals < MIN_FIT_DEALS:
            continue
        out.append(_guidance_rung(bots, folder, data, published))
    return sorted(out, key=lambda r: (rung(r.bots), r.bots))


def _finished(folder: Path) -> Any:
    """The guidance run in ``folder`` when it is whole (every chunk on disk), else ``None``;
    nothing is played."""
    from tarot_analysis.analyses.guidance import run_guidance
    from tarot_analysis.game.rules import load_rules
    from tarot_analysis.runs.runner import finished_run

    run = finished_run(folder)
    if run is None or run.kind != "guidance" or run.extra.get("seat") != 0:
        return None
    try:
        return run_guidance(
            load_rules(run.rules), run.deals, folder, bots=run.bots, seed=run.seed,
            chunk_size=run.chunk_size, rows=run.extra.get("rows", True), seat=0,
        )  # fmt: skip
    except (OSError, ValueError, KeyError, TypeError):
        return None  # an unfinished or foreign folder is not on the ladder


def _guidance_rung(bots: str, folder: Path, data: Any, published: Sequence[float]) -> GuidanceRung:
    from tarot_analysis.analyses.guidance import _grouping, _rate_rows, thresholds

    fitted = _rows(thresholds(data), "chavey")
    counts = _grouping(data, "chavey").reset_index()
    values = [c for c in counts.columns if c not in ("key_1", "key_2")]
    cuts = bands(published)
    order = {text: k for k, (_, _, text) in enumerate(cuts)}
    counts["band"] = [
        next(text for low, high, text in cuts if low <= value < high) for value in counts["key_1"]
    ]
    summed = counts.groupby("band")[values].sum()
    summed = summed.iloc[np.argsort([order[str(b)] for b in summed.index])]
    by_band = _rate_rows(summed, data.contracts).to_dict("index")
    return GuidanceRung(bots, folder, data.played_deals, fitted, by_band)


def auction_rungs(
    data_dir: str | os.PathLike[str], rules_name: str, seed: int
) -> list[AuctionRung]:
    """The auction tables of ``rules_name`` and ``seed`` stored in ``data_dir`` (by the
    report), the largest of each table of bots, up the ladder."""
    from tarot_analysis.report.runs import _frame_from_json

    pattern = rf"contracts-{re.escape(rules_name)}-(?P<bots>.+)-seed{seed}-(?P<deals>\d+)\.json"
    out = []
    for bots, (deals, path) in _runs(Path(data_dir), pattern).items():
        try:
            stored = json.loads(path.read_text())
            table = _frame_from_json(stored["tables"]["contracts"]).to_dict("index")
            extra = stored["extra"]
            out.append(
                AuctionRung(
                    bots, deals, int(extra["redeals"]["all_passed"]), int(extra["played"]), table
                )
            )
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return sorted(out, key=lambda r: (rung(r.bots), r.bots))


def _rows(table: pd.DataFrame, first: str) -> dict[Any, Any]:
    """The rows of ``table`` under the first index level ``first``, by the second."""
    return cast(pd.DataFrame, table.loc[first]).to_dict("index")


def _rate(rate: float, low: float, high: float) -> str:
    return f"{percent(rate)} ({percent_interval(low, high)})"


def _interval_text(fitted: float, low: float, high: float) -> str:
    return f"{threshold(fitted)} ({threshold(low)}–{threshold(high)})"


def _thresholds_table(rungs: list[GuidanceRung], context: Context) -> Table:
    contracts = [c.name for c in context.rules.contracts]
    rows = []
    for r in rungs:
        cells = [r.bots, count(r.played)]
        for name in contracts:
            row = r.thresholds[name]
            cells.append(_interval_text(row["fitted"], row["ci_low"], row["ci_high"]))
        rows.append(cells)
    caption = context.caption(
        "Up the ladder: the thresholds fitted under each table of bots",
        mode="counterfactual (seat 0 takes, each deal played under every contract)",
        n="each run's own deals played, in its row",
        interval="95% bootstrap intervals (none: the contract is not bid at any count in some "
        "replicates)",
        bots="the bots of each row at every seat",
    )  # fmt: skip
    header = [
        "bots", "deals played", *(f"{label(c)} from (95%)" for c in contracts),
    ]  # fmt: skip
    return Table("ladder-thresholds", caption, header, rows)


def _bands_table(rungs: list[GuidanceRung], context: Context) -> Table:
    names = list(dict.fromkeys(band for r in rungs for band in r.by_band))
    rows = []
    for band in names:
        cells = [band]
        for r in rungs:
            if band not in r.by_band:
                cells.append("—")
                continue
            row = r.by_band[band]
            best = label(str(row["best"]))
            runner = label(str(row["runner_up"]))
            lead = (
                f"{row['difference']:+.1f} ({row['difference_ci_low']:+.1f} to "
                f"{row['difference_ci_high']:+.1f})"
            )
            tie = " (a tie)" if bool(row["tie"]) else ""
            cells.append(f"{best} over {runner}: {lead}{tie}, {count(row['n'])} deals")
        rows.append(cells)
    caption = context.caption(
        "Up the ladder: the best contract by band of Chavey count under each table of bots",
        mode="counterfactual (seat 0 takes; a pass scores 0)",
        n="each run's own deals in the band, in its cell",
        interval="best less runner-up, deal by deal, with its 95% interval; a tie when it "
        "reaches 0",
        bots="the bots of each column at every seat",
    )  # fmt: skip
    return Table("ladder-bands", caption, ["Chavey count", *(r.bots for r in rungs)], rows)


def _auction_table(rungs: list[AuctionRung], context: Context) -> Table:
    contracts = [c.name for c in context.rules.contracts]
    rows = []
    for r in rungs:
        low, high = wilson_interval(np.array([r.passed_out]), np.array([r.dealt]))
        cells = [
            r.bots, count(r.dealt),
            _rate(r.passed_out / r.dealt, low[0], high[0]),
        ]  # fmt: skip
        for name in contracts:
            if name in r.contracts:
                row = r.contracts[name]
                cells.append(_rate(row["share"], row["share_ci_low"], row["share_ci_high"]))
            else:
                cells.append("—")
        if r.contracts.get(GARDE, {}).get("n", 0) > 0:
            row = r.contracts[GARDE]
            cells.append(_rate(row["rate"], row["ci_low"], row["ci_high"]))
        else:
            cells.append("—")
        rows.append(cells)
    caption = context.caption(
        "Up the ladder: the contracts the bots bid at the table",
        mode="auction (the bots bid in turn; the highest bid is played)",
        n="each run's own deals dealt, in its row; shares of the deals played",
        interval="Wilson 95% intervals",
        bots="the bots of each row at every seat",
    )  # fmt: skip
    header = [
        "bots", "deals dealt", "passed out (95%)", *(f"{label(c)} (95%)" for c in contracts),
        "a Garde bid made (95%)",
    ]  # fmt: skip
    return Table("ladder-auction", caption, header, rows)


def section(guidance: Guidance, context: Context, data_dir: str | os.PathLike[str]) -> Section:
    """The section, from the runs found in ``data_dir`` (the report's own among them), the
    bands of Chavey count cut at the published thresholds of ``guidance``."""
    published = [
        float(row["published"]) for row in _rows(guidance.tables["thresholds"], "chavey").values()
    ]
    read = (guidance.folder, guidance.data)
    found = guidance_rungs(data_dir, context.rules.name, context.seed, published, read)
    auctions = auction_rungs(data_dir, context.rules.name, context.seed)
    ours = bots_label(context.bots)
    folder = Path(data_dir) / f"guidance-{context.rules.name}-pimc-seed{context.seed}-3000"
    example = (
        f"tarot-analysis guidance --rules {context.rules_argument} --deals 3000 --bots pimc "
        f"--seed {context.seed} --data {folder.as_posix()}"
    )
    return Section(
        "ladder", "Up the ladder of bots", "ladder.html.j2",
        {
            "ours": ours,
            "example": example,
            "many": len(found) > 1 or len(auctions) > 1,
            "thresholds": _thresholds_table(found, context) if found else None,
            "bands": _bands_table(found, context) if found else None,
            "auction": _auction_table(auctions, context) if auctions else None,
        },
    )  # fmt: skip
