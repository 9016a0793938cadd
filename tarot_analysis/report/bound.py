"""Section "A bound no bot's skill enters": the Garde with every card seen, beside the bots.

Every rate of the report is the bots' play as much as the hand. A double-dummy bound run
(``tarot-analysis dd-bound``) found in the report's data folder takes the play out of the last
tricks: seat 0 takes a Garde, the heuristic plays the first tricks, the rest is solved with
every card seen; on the same deals, from the same position, the heuristic and the run's other
bots play on. The section sets the double-dummy make rate beside each bot's by band of Chavey
count and by bouts and trumps, with each rate's Wilson interval and the paired difference
double dummy − bot deal by deal; a chart draws the bands. Without a run it says how to make
one.

The run read is the one of the report's rules whose folder is whole (every chunk on disk),
with the most bots, then the most deals; its seed need not be the report's.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import pandas as pd

from tarot_analysis.report.html import (
    Cell,
    Chart,
    Context,
    Section,
    Table,
    chart,
    count,
    percent,
    percent_interval,
    pieces,
)
from tarot_analysis.runs.runner import RunSpec, finished_run

__all__ = ["EXAMPLE_DEALS", "BoundRun", "bound_command", "find_bound", "section"]

#: The deals of the run the section proposes when none is found (``BOUND_DEALS`` of the
#: Makefile's ``bound``, which runs the same command).
EXAMPLE_DEALS: Final = 2000
#: The bots of the run the section proposes, the learned bot where a model ships for the rules.
EXAMPLE_BOTS: Final = ("heuristic", "learned", "pimc")
#: The tricks the heuristic plays before the solve, in the run the section proposes.
EXAMPLE_AFTER_TRICKS: Final = 10
#: The search bots play on one deal in this many, in the run the section proposes.
EXAMPLE_EVERY: Final = 2
#: The deals of a band the chart leaves out below (its bars would say nothing).
CHART_MIN_DEALS: Final = 5


@dataclass(frozen=True)
class BoundRun:
    """A finished double-dummy bound run: its folder, its definition and its rows."""

    folder: Path
    spec: RunSpec  # the folder's definition
    frame: pd.DataFrame

    @property
    def bots(self) -> list[str]:
        """The bots that played on: the heuristic, then the run's others."""
        return ["heuristic", *self.spec.extra.get("bots", [])]


def _whole(folder: Path, rules_name: str) -> RunSpec | None:
    """The definition of the bound run of ``rules_name`` in ``folder`` when every chunk is
    on disk, else ``None``."""
    from tarot_analysis.analyses.dd_bound import KIND

    spec = finished_run(folder)
    return spec if spec is not None and (spec.kind, spec.rules) == (KIND, rules_name) else None


def find_bound(data_dir: str | os.PathLike[str], rules_name: str) -> BoundRun | None:
    """The finished bound run of ``rules_name`` in ``data_dir`` with the most bots, then the
    most deals (then the lowest seed, the folder's name); ``None`` when there is none."""
    from tarot_analysis.analyses.dd_bound import read_bound
    from tarot_analysis.errors import TarotInputError

    found = []
    for folder in sorted(Path(data_dir).glob("*")):
        spec = _whole(folder, rules_name) if folder.is_dir() else None
        if spec is not None:
            rank = (-len(spec.extra.get("bots", [])), -spec.deals, spec.seed)
            found.append((rank, folder.name, folder, spec))
    for _, _, folder, spec in sorted(found, key=lambda item: item[:2]):
        try:
            return BoundRun(folder, spec, read_bound(folder))
        except (TarotInputError, OSError, ValueError):
            continue  # a damaged chunk: the next run
    return None


def _rate(row: dict[Any, Any], prefix: str) -> str:
    rate = f"{percent(row[prefix + '_rate'])} "
    return rate + f"({percent_interval(row[prefix + '_ci_low'], row[prefix + '_ci_high'])})"


def _difference(row: dict[Any, Any], key: str) -> str:
    if row[key] != row[key]:  # NaN: no deal
        return "—"
    low, high = 100 * row[key + "_ci_low"], 100 * row[key + "_ci_high"]
    if low != low:  # NaN: one deal, no interval
        return f"{100 * row[key]:+.1f}"
    return f"{100 * row[key]:+.1f} ({low:+.1f} to {high:+.1f})"


def _bot_keys(bot: str) -> tuple[str, str, str]:
    """The keys of a bot's deals, rate and difference in a row of the rates."""
    if bot == "heuristic":
        return "n", "heuristic", "difference"
    return f"{bot}_n", bot, f"{bot}_difference"


def _dd_cell(row: dict[Any, Any]) -> Cell:
    """The rate with every card seen, and its bound with the undecided deals made, in pieces
    a printed line may wrap between."""
    text = _rate(row, "dd")
    parts = list(pieces(text).parts or (text,))
    if row["undecided"]:
        parts[-1] += ","
        parts += [f"≤ {percent(row['dd_rate_undecided_made'])}", "with the undecided made"]
    return Cell(" ".join(parts), parts=tuple(parts))


def _rates_table(key: str, title: str, first: str, table: pd.DataFrame, run: BoundRun,
                 context: Context) -> Table:  # fmt: skip
    bots = run.bots
    rows = []
    for group, row in table.to_dict(orient="index").items():
        cells: list[str | Cell] = [str(group), count(row["n"]), count(row["undecided"])]
        if row["n"] == 0:
            rows.append([*cells, *["—"] * (1 + 3 * len(bots))])
            continue
        cells.append(_dd_cell(row))
        for bot in bots:
            n, rate, difference = _bot_keys(bot)
            if row[n] == 0:
                cells += [count(0), "—", "—"]
                continue
            cells += [count(row[n]), _rate(row, rate), _difference(row, difference)]
        rows.append(cells)
    header = [first, "deals", "undecided", "every card seen (95%)"]
    for bot in bots:
        header += [f"{bot}: deals", f"{bot} (95%)", f"every card seen − {bot}"]
    return Table(key, _caption(title, run, context), header, rows,
                 groups=[("", 4), *((bot, 3) for bot in bots)])  # fmt: skip


def _caption(title: str, run: BoundRun, context: Context) -> Any:
    extra = run.spec.extra
    every = extra.get("every", 1)
    sample = f"; the search bots on one deal in {every}" if every > 1 else ""
    return context.caption(
        title,
        mode=f"seat 0 takes a {extra['contract']}; the heuristic plays the first "
        f"{extra['after_tricks']} tricks, then every card seen (double dummy, at most "
        f"{extra['max_nodes']:,} positions a deal) or each bot at every seat plays on",
        n=f"the deals of each row, of {run.spec.deals:,} dealt (seed "
        f"{run.spec.seed}, chunks of {run.spec.chunk_size:,}), void deals left out"
        f"{sample}",
        interval="Wilson 95% intervals; the difference deal by deal, in points of %, on the "
        "deals the bot played, with its 95% interval (low end: undecided deals not made; high "
        "end: made)",
        bots="the heuristic for the first tricks; after them, each column's bot at every seat",
    )


def _chart(table: pd.DataFrame, run: BoundRun) -> Chart:
    """Make rates by band of Chavey count: every card seen beside each bot, with intervals."""
    from tarot_analysis.report import plots

    shown = table[(table.index != "all") & (table["n"] >= CHART_MIN_DEALS)]
    series = {"every card seen": ("dd_rate", "dd_ci_low", "dd_ci_high")}
    for bot in run.bots:
        series[bot] = (f"{bot}_rate", f"{bot}_ci_low", f"{bot}_ci_high")
    figure = plots.rates_side_by_side(
        shown, series, xlabel="Chavey count (18-card scale)", ylabel="Garde made"
    )
    extra = run.spec.extra
    return chart(
        figure, "bound-chavey",
        "Garde make rates by band of Chavey count: every card seen beside each bot",
        f"A Garde taken by seat 0, made with every card seen after {extra['after_tricks']} "
        f"tricks of the heuristic, and as each bot makes it playing on from the same position; "
        f"bands of at least {CHART_MIN_DEALS} deals; Wilson 95% error bars.",
    )  # fmt: skip


def _map_table(run: BoundRun, context: Context) -> Table:
    """Trumps down, bouts across: each cell the rates with every card seen and of each bot."""
    from tarot_analysis.analyses.dd_bound import bound_rates

    table = bound_rates(run.frame, context.rules.hand_size, "bouts_trumps")
    rates = table[table.index != "all"].to_dict(orient="index")
    cells: dict[tuple[int, int], str | Cell] = {}
    for label, row in rates.items():
        bouts, trumps = (int(part.split()[0]) for part in str(label).split(", "))
        texts = [f"{percent(row['dd_rate'])} seen"]
        for bot in run.bots:
            n, rate, _ = _bot_keys(bot)
            if row[n]:
                texts.append(f"{percent(row[rate + '_rate'])} {bot}")
        # Each rate kept whole when printed, a line wrapping only between them.
        parts = (*(f"{text} ·" for text in texts[:-1]), f"{texts[-1]} ({count(row['n'])})")
        cells[(trumps, bouts)] = Cell(" ".join(parts), parts=parts)
    trumps_seen = sorted({t for t, _ in cells})
    rows: list[list[str | Cell]] = [
        [f"{t} trump{'' if t == 1 else 's'}", *(cells.get((t, b), "—") for b in range(4))]
        for t in trumps_seen
    ]
    caption = _caption(
        "Garde made by bouts and trumps: every card seen, then each bot (deals)", run, context
    )
    caption = caption._replace(interval="the intervals are those of the deals in each cell, "
                               "wide where few: read the tables by band for them")  # fmt: skip
    header = ["trumps \\ bouts", "0 bouts", "1 bout", "2 bouts", "3 bouts"]
    return Table("bound-bouts-trumps", caption, header, rows)


def bound_command(context: Context, data_dir: str | os.PathLike[str]) -> list[str]:
    """The command that makes the bound run this section reads, into ``data_dir``, with the
    report's rules and seed: the command of the Makefile's ``bound`` for ``fft-4`` (the
    learned bot left out where no model ships for the rules), as pieces a printed line may wrap
    between (an option with its value, never inside one)."""
    from tarot_analysis.bots.learned import SHIPPED

    name = context.rules.name
    has_model = (SHIPPED / f"{name}.npz").is_file()
    bots = [bot for bot in EXAMPLE_BOTS if bot != "learned" or has_model]
    folder = Path(data_dir) / f"dd-bound-{name}-seed{context.seed}-{EXAMPLE_DEALS}"
    return [
        "tarot-analysis dd-bound", f"--rules {context.rules_argument}",
        f"--deals {EXAMPLE_DEALS}", f"--after-tricks {EXAMPLE_AFTER_TRICKS}",
        f"--bots {' '.join(bots)}", f"--every {EXAMPLE_EVERY}", f"--seed {context.seed}",
        "--by chavey bouts", f"--data {folder.as_posix()}",
    ]  # fmt: skip


def section(context: Context, data_dir: str | os.PathLike[str]) -> Section:
    """The section, from the bound run of the report's rules found in ``data_dir``."""
    from tarot_analysis.analyses.dd_bound import bound_rates

    name = context.rules.name
    values: dict[str, Any] = {
        "example": bound_command(context, data_dir),
        "left": context.rules.hand_size - EXAMPLE_AFTER_TRICKS,
        "every": EXAMPLE_EVERY,
        "run": None,
    }
    run = find_bound(data_dir, name) if context.rules.tarocco is None else None
    if run is not None:
        size = context.rules.hand_size
        by_chavey = bound_rates(run.frame, size, "chavey")
        values |= {
            "run": run,
            "after": run.spec.extra["after_tricks"],
            "folder": run.folder.as_posix(),
            "chavey": _rates_table(
                "bound-chavey", "Garde made by band of Chavey count: every card seen and each bot",
                "Chavey count", by_chavey, run, context,
            ),
            "bouts": _rates_table(
                "bound-bouts", "Garde made by bouts: every card seen and each bot", "bouts",
                bound_rates(run.frame, size, "bouts"), run, context,
            ),
            "map": _map_table(run, context),
            "figure": _chart(by_chavey, run),
        }  # fmt: skip
    return Section("bound", "A bound no bot's skill enters", "bound.html.j2", values)
