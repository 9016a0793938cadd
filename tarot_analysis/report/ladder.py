"""Section "Up the ladder of bots": the same answers under every table of bots run beside this one.

The answers of a report are those of its bots. Runs of the same rules and seed under other
bots, found in the report's data folder, show how they move as the play gets stronger: the
guidance runs (``tarot-analysis guidance --bots B --data DIR/guidance-<rules>-<B>-seed<S>-<N>``,
the name the report gives its own) and the auction tables
(``contracts-<rules>-<B>-seed<S>-<N>.json``, which a report under those bots writes). The
tables go up the ladder of bots, the weakest first (:data:`RUNGS`): each run's fitted
thresholds with their bootstrap intervals, the best contract by Chavey count with its
runner-up, count by count and by band of the published thresholds (both from
:func:`~tarot_analysis.analyses.guidance.chavey_advice`, which the summary reads too), and
from the auctions the share of deals passed out and of each contract and how often a Garde bid
makes. Each run is summarised on its own deals, with its own intervals; runs of different
sizes are not paired. The folder is read once (:func:`read_ladder`) for the summary and this
section: the report's own runs stand for its bots.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, cast

import numpy as np
import pandas as pd

from tarot_analysis.analyses.guidance.advice import ChaveyAdvice
from tarot_analysis.reader import TABLES_BYTES, read_json
from tarot_analysis.report.bidding import (
    BAND_NOTE,
    COUNTERFACTUAL,
    band_cell,
    by_count_cell,
    by_count_pooled,
)
from tarot_analysis.report.html import (
    Cell,
    Context,
    Section,
    Table,
    bots_label,
    count,
    label,
    rate_with_interval,
    threshold,
)
from tarot_analysis.report.prise import PriseReading, prise_reading
from tarot_analysis.report.runs import Guidance, Stored
from tarot_analysis.stats import wilson_interval

__all__ = [
    "RUNGS",
    "AuctionRung",
    "GuidanceRung",
    "Ladder",
    "auction_rungs",
    "command_time",
    "guidance_command",
    "guidance_rung",
    "guidance_rungs",
    "read_ladder",
    "section",
]

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
    """One guidance run on the ladder: its bots, its deals and what it answers."""

    bots: str
    folder: Path
    data: Any  # the run (GuidanceData): its counts, and its rows when it kept them
    advice: ChaveyAdvice  # the best contract by Chavey count, by count and by band
    thresholds: dict[Any, Any] | None  # by contract: fitted, ci_low, ci_high (Chavey's);
    # None when the run played too few deals to fit them
    prise: PriseReading | None  # the one reading of its Prise; None: the rules have none

    @property
    def played(self) -> int:
        """Deals counted."""
        return int(self.advice.played)


@dataclass(frozen=True)
class AuctionRung:
    """One auction run on the ladder: its bots and the contracts they bid."""

    bots: str
    dealt: int
    passed_out: int
    played: int
    contracts: dict[Any, Any]  # by contract: the report's contracts table


@dataclass(frozen=True)
class Ladder:
    """The data folder read once, for every page of the report: the report's own guidance run
    and, for each other table of bots, its largest finished run of the same rules and seed,
    up the ladder; and the auction tables stored beside them."""

    ours: GuidanceRung
    guidance: list[GuidanceRung]  # up the ladder, the report's own among them
    auctions: list[AuctionRung]

    @property
    def others(self) -> list[GuidanceRung]:
        """The runs under other bots, up the ladder."""
        return [r for r in self.guidance if r is not self.ours]

    @property
    def many(self) -> bool:
        """Whether any run under other bots was found."""
        return bool(self.others) or len({r.bots for r in self.auctions} - {self.ours.bots}) > 0


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
    data_dir: str | os.PathLike[str], rules_name: str, seed: int, ours: GuidanceRung | None = None
) -> list[GuidanceRung]:
    """The finished guidance runs of seat 0 for ``rules_name`` and ``seed`` in ``data_dir``,
    the largest of each table of bots, up the ladder. ``ours``: the report's own run, which
    stands for its bots whatever else of theirs is there."""
    pattern = rf"guidance-{re.escape(rules_name)}-(?P<bots>.+)-seed{seed}-(?P<deals>\d+)"
    out = [] if ours is None else [ours]
    for bots, (_, folder) in _runs(Path(data_dir), pattern).items():
        if ours is not None and bots == ours.bots:
            continue
        data = _finished(folder)
        if data is None or data.played_deals == 0:
            continue
        out.append(guidance_rung(bots, folder, data))
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


def guidance_rung(
    bots: str, folder: Path, data: Any, fitted: pd.DataFrame | None = None
) -> GuidanceRung:
    """A run on the ladder: its advice by Chavey count, and its thresholds (``fitted``, the
    run's thresholds table when already computed) when it played enough deals to fit them."""
    from tarot_analysis.analyses.guidance import can_fit, chavey_advice, thresholds

    if fitted is None and can_fit(data):
        fitted = thresholds(data)
    advice = chavey_advice(data)
    rows = _rows(fitted, "chavey") if fitted is not None and len(fitted) else None
    reading = prise_reading(advice, rows, list(data.contracts))
    return GuidanceRung(bots, folder, data, advice, rows, reading)


def read_ladder(
    guidance: Guidance, auction: Stored, context: Context, data_dir: str | os.PathLike[str]
) -> Ladder:
    """The one reading of ``data_dir`` that the summary and this section share: the report's
    own runs (``guidance``, ``auction``) stand for its bots."""
    bots = bots_label(context.bots)
    ours = guidance_rung(bots, guidance.folder, guidance.data, guidance.tables.get("thresholds"))
    extra = auction.extra
    table = auction.tables["contracts"].to_dict("index")
    played = int(extra["played"])
    passed = int(extra["redeals"]["all_passed"])
    own = AuctionRung(bots, context.auction_deals, passed, played, table)
    return Ladder(
        ours,
        guidance_rungs(data_dir, context.rules.name, context.seed, ours),
        auction_rungs(data_dir, context.rules.name, context.seed, own),
    )


def auction_rungs(
    data_dir: str | os.PathLike[str], rules_name: str, seed: int, ours: AuctionRung | None = None
) -> list[AuctionRung]:
    """The auction tables of ``rules_name`` and ``seed`` stored in ``data_dir`` (by the
    report), the largest of each table of bots, up the ladder. ``ours``: the report's own
    auction, which stands for its bots whatever else of theirs is there."""
    from tarot_analysis.report.runs import _frame_from_json

    pattern = rf"contracts-{re.escape(rules_name)}-(?P<bots>.+)-seed{seed}-(?P<deals>\d+)\.json"
    out = [] if ours is None else [ours]
    for bots, (deals, path) in _runs(Path(data_dir), pattern).items():
        if ours is not None and bots == ours.bots:
            continue
        try:
            stored = read_json(path, "stored tables", limit=TABLES_BYTES)
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
    return rate_with_interval(rate, low, high)


def _interval_text(fitted: float, low: float, high: float) -> str:
    return f"{threshold(fitted)} ({threshold(low)}–{threshold(high)})"


def _thresholds_table(rungs: list[GuidanceRung], context: Context) -> Table:
    from tarot_analysis.analyses.guidance import MIN_FIT_DEALS

    contracts = [c.name for c in context.rules.contracts]
    rows = []
    for r in rungs:
        cells = [r.bots, count(r.played)]
        for name in contracts:
            if r.thresholds is None:
                cells.append("—")
                continue
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
    note = (
        f"—: fewer than {MIN_FIT_DEALS:,} deals played, too few to fit thresholds."
        if any(r.thresholds is None for r in rungs)
        else ""
    )
    return Table("ladder-thresholds", caption, header, rows, note=note)


def _by_count_table(rungs: list[GuidanceRung], context: Context) -> Table:
    rows: list[list[str | Cell]] = [
        [r.bots, count(r.played), by_count_cell(r.advice), by_count_pooled(r.advice)] for r in rungs
    ]
    caption = context.caption(
        "Up the ladder: the best contract by Chavey count under each table of bots, count by "
        "count (as the summary gives it for this report's bots)",
        mode=COUNTERFACTUAL,
        n="each run's own deals played, in its row",
        interval="A ≈ B: a tie, the 95% interval of their difference, deal by deal, reaches 0",
        bots="the bots of each row at every seat",
    )  # fmt: skip
    header = ["bots", "deals played", "best contract by count", "counts read together"]
    return Table("ladder-counts", caption, header, rows)


def _bands_table(rungs: list[GuidanceRung], context: Context) -> Table:
    names = list(dict.fromkeys(band for r in rungs for band in r.advice.by_band.index))
    rows: list[list[str | Cell]] = []
    for band in names:
        cells: list[str | Cell] = [str(band)]
        for r in rungs:
            by_band = r.advice.by_band
            cells.append(band_cell(by_band.loc[band], r.prise) if band in by_band.index else "—")
        rows.append(cells)
    caption = context.caption(
        "Up the ladder: the best contract by band of Chavey's published thresholds, the "
        "band's deals pooled, under each table of bots",
        mode="counterfactual (seat 0 takes; a pass scores 0)",
        n="each run's own deals in the band, in its cell",
        interval="best less runner-up, deal by deal, with its 95% interval; a tie when it "
        "reaches 0",
        bots="the bots of each column at every seat",
    )  # fmt: skip
    header = ["Chavey's band (pooled)", *(r.bots for r in rungs)]
    return Table("ladder-bands", caption, header, rows, note=BAND_NOTE)


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


def guidance_command(context: Context, data_dir: str | os.PathLike[str], bots: str) -> list[str]:
    """The command that adds a guidance run of 3,000 deals under ``bots`` of the report's rules
    and seed to ``data_dir``, under the name the ladder looks for, as pieces a printed line may
    wrap between (an option with its value, never inside one); ``--data`` only when the folder
    is not the command's default."""
    parts = [
        "tarot-analysis guidance", f"--rules {context.rules_argument}", "--deals 3000",
        f"--bots {bots}", f"--seed {context.seed}",
    ]  # fmt: skip
    folder = Path(data_dir) / f"guidance-{context.rules.name}-{bots}-seed{context.seed}-3000"
    if Path(data_dir) != Path("data"):
        parts.append(f"--data {folder.as_posix()}")
    return parts


def command_time(bots: str, context: Context) -> str:
    """How long the suggested guidance run of 3,000 deals takes on the project's 2-core
    machine: the search bot about half an hour in 4 players (29 minutes measured on one
    thread, docs/bots.md), about twice that in 3 and 5 players (it plays 4.8 and 3.6 deals a
    second there against 8.4, docs/performance.md); the rule bots seconds."""
    if bots.partition(":")[0] != "pimc":
        return "a minute or less"
    return "about half an hour" if context.rules.players == 4 else "about an hour"


def section(found: Ladder, context: Context, data_dir: str | os.PathLike[str]) -> Section:
    """The section, from the runs of ``found`` (the report's own among them)."""
    rungs = found.guidance
    return Section(
        "ladder", "Up the ladder of bots", "ladder.html.j2",
        {
            "ours": found.ours.bots,
            "example": guidance_command(context, data_dir, "pimc"),
            "example_time": command_time("pimc", context),
            "many": found.many,
            "thresholds": _thresholds_table(rungs, context),
            "counts": _by_count_table(rungs, context),
            "bands": _bands_table(rungs, context),
            "auction": _auction_table(found.auctions, context) if found.auctions else None,
        },
    )  # fmt: skip
