"""The strategy report of a preset: one self-contained HTML file that answers how to bid.

:func:`build_report` gathers what the toolkit measures about one set of rules and one table of
bots into ``reports/strategy-<rules>-<bots>-<deals>.html``:

* hand statistics (bouts, trumps, kings, poignée, petit sec...), each simulated rate with its
  Wilson interval beside its exact value, a chart of each distribution with the exact law drawn
  on it, and the chi-square test of every distribution against its exact law;
* contract frequencies and success in auction mode (the bots bid, the highest bid is played),
  on at most :data:`AUCTION_DEALS` deals;
* bidding guidance in counterfactual mode (seat 0 takes, each deal played under every
  contract, and once more with seat 0 passing): success and expected score by Chavey count,
  the best contract with its runner-up and ties by count, by bouts and trumps and by score
  range, passing measured and the last seat's advice beside seat 0's, thresholds fitted with
  bootstrap intervals, what each rule loses in and out of sample, and a fitted success model
  against Chavey's count with its calibration and caveats.

Every table is an HTML table whose caption names the rules, the bots, the mode, n and the kind
of interval; every chart is an embedded PNG; the style sheet is inline. The file needs nothing
else to open, print or archive, and its metadata block says how to deal every number again.

Long runs are kept and reused. The guidance run is the resumable Parquet dataset of the
``guidance`` command, in the same folder (``data/guidance-<rules>-<bots>-seed<seed>-<deals>``,
and ``...-last`` for the last seat's run, as ``guidance --seat both`` names it), so either
command reuses the other's chunks. Hand statistics and auction contracts are small
tables, kept as JSON in the data folder with the metadata of the run that produced them; they
are reused only when that metadata matches the run asked for.

``pdf=True`` also prints the report to PDF with a headless Chromium, when one is installed.
"""

from __future__ import annotations

import argparse
import html
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, NamedTuple, cast

import numpy as np
import pandas as pd

from tarot_analysis import __version__
from tarot_analysis.cluster import add_cluster_options, dask_client
from tarot_analysis.errors import TarotInputError
from tarot_analysis.stats import Z_95

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from tarot_analysis.guidance import GuidanceData
    from tarot_analysis.rules import Rules

__all__ = [
    "AUCTION_DEALS",
    "GUIDANCE_CHUNK_SIZE",
    "add_parser",
    "build_report",
    "find_chromium",
    "guidance_folder",
    "render_pdf",
    "report_path",
    "run_command",
]

#: Most deals played in auction mode: the contract table settles long before the guidance run.
AUCTION_DEALS: Final = 200_000
#: Deals per chunk of the guidance run: the ``guidance`` command's default, so that the two
#: commands share one run folder.
GUIDANCE_CHUNK_SIZE: Final = 50_000
#: Fewest deals at a Chavey count for it to decide a range of the best contract (as the
#: ``guidance`` command's summary).
RANGE_MIN_DEALS: Final = 200
#: Fewest deals at a score for it to be drawn on the guidance charts.
CHART_MIN_DEALS: Final = 100
#: Fewest deals in a bouts × trumps cell for the map to name its best contract.
MAP_MIN_DEALS: Final = 50
#: Browsers that can print a page to PDF from the command line, most likely first.
CHROMIUM_NAMES: Final = (
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
    "chrome",
)
#: Flags of a headless Chromium that renders one local file and talks to no server. The report
#: is our own file, without scripts from elsewhere, so the sandbox (which refuses to run as
#: root in containers) adds nothing here.
CHROMIUM_FLAGS: Final = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)
_CACHE_FORMAT: Final = 1
_PDF_TIMEOUT_SECONDS: Final = 120

# What each hand table holds, and how its chart's x axis is labelled.
_HAND_TITLES: Final[dict[str, tuple[str, str]]] = {
    "bouts": ("Bouts per hand", "Bouts in the hand"),
    "trumps": ("Trumps per hand (Excuse not counted)", "Trumps in the hand"),
    "kings": ("Kings per hand", "Kings in the hand"),
    "voids": ("Voids per hand", "Suits the hand lacks"),
    "singletons": ("Singletons per hand", "Suits held as a single card"),
    "longest_suit": ("Longest suit per hand", "Cards in the longest suit"),
    "points": ("Card points per hand", "Card points in the hand"),
    "dog_bouts": ("Bouts in the dog", "Bouts in the dog"),
}
_EVALUATOR_NAMES: Final[dict[str, str]] = {
    "chavey": "Chavey's count",
    "bouts_and_trumps": "Bouts and trumps",
    "fitted": "Fitted model",
}


# --- Where things go -------------------------------------------------------------------------


def _bots_label(bots: Sequence[str]) -> str:
    """``random`` when every seat has the same bot, else the seats' bots joined by dashes."""
    return bots[0] if len(set(bots)) == 1 else "-".join(bots)


def _bots_text(bots: Sequence[str]) -> str:
    """The bots as a caption says them: ``random at every seat``."""
    if len(set(bots)) == 1:
        return f"{bots[0]} at every seat"
    return ", ".join(f"seat {seat}: {name}" for seat, name in enumerate(bots))


def report_path(
    rules_name: str, bots: Sequence[str], deals: int, out_dir: str | os.PathLike[str] = "reports"
) -> Path:
    """Where the report of ``rules_name``, ``bots`` and ``deals`` is written.

    >>> report_path("fft-4", ("random",) * 4, 1_000_000).as_posix()
    'reports/strategy-fft-4-random-1000000.html'
    """
    return Path(out_dir) / f"strategy-{rules_name}-{_bots_label(bots)}-{deals}.html"


def guidance_folder(
    rules_name: str,
    bots: Sequence[str],
    seed: int,
    deals: int,
    data_dir: str | os.PathLike[str] = "data",
) -> Path:
    """The guidance run's folder: the one the ``guidance`` command uses for the same run.

    >>> guidance_folder("fft-4", ("random",) * 4, 1, 20_000).as_posix()
    'data/guidance-fft-4-random-seed1-20000'
    """
    return Path(data_dir) / f"guidance-{rules_name}-{_bots_label(bots)}-seed{seed}-{deals}"


# --- Small tables kept as JSON, reused when their run matches --------------------------------


def _plain(value: Any) -> Any:
    """A table cell as JSON: numpy scalars as Python numbers, NaN as null."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _frame_to_json(frame: pd.DataFrame) -> dict[str, Any]:
    """A table with a one-level index, column by column with its dtype, losslessly."""
    data: dict[str, Any] = {
        "index": {
            "name": frame.index.name,
            "dtype": str(frame.index.dtype),
            "values": [_plain(v) for v in frame.index],
        },
        "columns": [
            {
                "name": name,
                "dtype": str(frame[name].dtype),
                "values": [_plain(v) for v in frame[name]],
            }
            for name in frame.columns
        ],
    }
    gof = frame.attrs.get("gof")
    if gof is not None:
        data["gof"] = {
            "statistic": float(gof.statistic),
            "dof": int(gof.dof),
            "p_value": float(gof.p_value),
            "pooled_cells": int(gof.pooled_cells),
        }
    if "who" in frame.attrs:
        data["who"] = frame.attrs["who"]
    return data


def _column(values: list[Any], dtype: str) -> pd.Series:
    if dtype.startswith("float"):
        values = [math.nan if v is None else v for v in values]
    return pd.Series(values, dtype=dtype)


def _frame_from_json(data: Mapping[str, Any]) -> pd.DataFrame:
    """The table :func:`_frame_to_json` wrote, with its goodness-of-fit test if it had one."""
    from tarot_analysis.stats import GofResult

    index = pd.Index(
        _column(data["index"]["values"], data["index"]["dtype"]), name=data["index"]["name"]
    )
    frame = pd.DataFrame(
        {c["name"]: _column(c["values"], c["dtype"]).to_numpy() for c in data["columns"]},
        index=index,
    )
    if "gof" in data:
        frame.attrs["gof"] = GofResult(**data["gof"])
    if "who" in data:
        frame.attrs["who"] = data["who"]
    return frame


def _same_run(found: Mapping[str, Any], wanted: Mapping[str, Any]) -> bool:
    """Whether stored metadata describes the run wanted (the package version aside, as runs)."""
    keys = (set(found) | set(wanted)) - {"version"}
    return all(found.get(key) == wanted.get(key) for key in keys)


@dataclass
class _Stored:
    """Tables of a run kept as JSON, with where they are and whether they were reused."""

    path: Path
    metadata: dict[str, Any]
    tables: dict[str, pd.DataFrame]
    extra: dict[str, Any] = field(default_factory=dict)
    reused: bool = False


def _stored_tables(
    path: Path,
    metadata: dict[str, Any],
    compute: Callable[[], tuple[dict[str, pd.DataFrame], dict[str, Any]]],
) -> _Stored:
    """The tables stored at ``path`` if their metadata is ``metadata``; else computed and stored.

    A file that cannot be read, of another format or of another run is computed again and
    replaced: it is a cache of numbers the seed decides, not a record of its own.
    """
    wanted = json.loads(json.dumps(metadata))  # tuples as lists, as they read back
    if path.exists():
        try:
            found = json.loads(path.read_text(encoding="utf-8"))
            if found.get("format") == _CACHE_FORMAT and _same_run(found["metadata"], wanted):
                tables = {name: _frame_from_json(t) for name, t in found["tables"].items()}
                return _Stored(path, found["metadata"], tables, found.get("extra", {}), True)
        except (OSError, ValueError, KeyError, TypeError):
            pass
    tables, extra = compute()
    stored = {
        "format": _CACHE_FORMAT,
        "metadata": wanted | {"version": __version__},
        "tables": {name: _frame_to_json(table) for name, table in tables.items()},
        "extra": extra,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(json.dumps(stored, indent=1), encoding="utf-8")
    temporary.replace(path)  # atomic: a reader sees the old file or the new one
    return _Stored(path, stored["metadata"], tables, extra, False)


@dataclass(frozen=True)
class _Runs:
    """Where the report's runs are stored, and what runs their chunks."""

    data_dir: Path
    threads: int | None
    client: Any  # a Dask client, or None for local threads
    progress: bool

    def options(self) -> dict[str, Any]:
        """The keyword arguments every runner takes for its chunks."""
        return {"threads": self.threads, "client": self.client, "progress": self.progress}


def _hand_tables(rules: Rules, deals: int, seed: int, runs: _Runs) -> _Stored:
    """Hand statistics of ``deals`` deals, from ``data_dir`` when that run is stored there."""
    from tarot_analysis._jit import normalise_seed
    from tarot_analysis.deal import DEFAULT_CHUNK_SIZE
    from tarot_analysis.hand_stats import run_hands
    from tarot_analysis.simulate import run_metadata

    metadata = run_metadata(rules, normalise_seed(seed), DEFAULT_CHUNK_SIZE, deals)

    def compute() -> tuple[dict[str, pd.DataFrame], dict[str, Any]]:
        stats = run_hands(rules, deals, seed, chunk_size=DEFAULT_CHUNK_SIZE, **runs.options())
        return stats.tables(), {}

    path = runs.data_dir / f"hands-{rules.name}-seed{seed}-{deals}.json"
    return _stored_tables(path, metadata, compute)


def _auction_tables(
    rules: Rules, deals: int, bots: tuple[str, ...], seed: int, runs: _Runs
) -> _Stored:
    """Contracts bid and made in auction mode, from ``data_dir`` when that run is stored there.

    The table is that of ``PlayResult.contracts``, plus the share of played deals taken in each
    contract (Wilson interval) and a 95% interval on the taker's mean score.
    """
    from tarot_analysis._jit import normalise_seed
    from tarot_analysis.deal import DEFAULT_CHUNK_SIZE
    from tarot_analysis.play import play
    from tarot_analysis.simulate import run_metadata
    from tarot_analysis.stats import wilson_interval

    metadata = run_metadata(rules, normalise_seed(seed), DEFAULT_CHUNK_SIZE, deals) | {
        "bots": list(bots),
        "mode": "auction",
    }

    def compute() -> tuple[dict[str, pd.DataFrame], dict[str, Any]]:
        result = play(
            rules, deals, bots=bots, seed=seed, chunk_size=DEFAULT_CHUNK_SIZE, **runs.options()
        )
        scores = result.scores()
        table = result.contracts(scores)
        redeals = result.redeals()
        played = deals - redeals["total"]
        low, high = wilson_interval(table["n"].to_numpy(), played)
        table.insert(1, "share", table["n"] / played if played else math.nan)
        table.insert(2, "share_ci_low", low)
        table.insert(3, "share_ci_high", high)
        taken = scores[~scores["redeal"]].groupby("contract")["taker_score"]
        spread = taken.std(ddof=1).reindex(table.index)
        half = spread * Z_95 / table["n"].where(table["n"] > 1) ** 0.5
        column = table.columns.get_loc("mean_taker_score")
        assert isinstance(column, int)
        position = column + 1
        table.insert(position, "score_ci_low", table["mean_taker_score"] - half)
        table.insert(position + 1, "score_ci_high", table["mean_taker_score"] + half)
        return {"contracts": table}, {"redeals": redeals, "played": played}

    name = f"contracts-{rules.name}-{_bots_label(bots)}-seed{seed}-{deals}.json"
    return _stored_tables(runs.data_dir / name, metadata, compute)


# --- Guidance ----------------------------------------------------------------------------------


@dataclass
class _Guidance:
    """The guidance run and every table the report draws from it."""

    data: GuidanceData
    folder: Path
    tables: dict[str, pd.DataFrame]
    comparison: dict[str, Any]
    computed: int
    resumed: int
    last: GuidanceData  # the same deals, the last seat advised


def _guidance(rules: Rules, deals: int, bots: tuple[str, ...], seed: int, runs: _Runs) -> _Guidance:
    from tarot_analysis.guidance import (
        compare_evaluators,
        guidance_tables,
        run_guidance,
        seat_comparison,
    )

    folder = guidance_folder(rules.name, bots, seed, deals, runs.data_dir)
    data = run_guidance(
        rules, deals, folder, bots=bots, seed=seed, chunk_size=GUIDANCE_CHUNK_SIZE,
        **runs.options(),
    )  # fmt: skip
    last = run_guidance(
        rules, deals, folder.with_name(folder.name + "-last"), bots=bots, seed=seed,
        chunk_size=GUIDANCE_CHUNK_SIZE, seat=rules.players - 1, **runs.options(),
    )  # fmt: skip
    tables = guidance_tables(data)
    tables["by_seat"] = seat_comparison(data, last)
    contract = "garde" if "garde" in data.contracts else data.contracts[0]
    comparison = compare_evaluators(data, contract)
    run = data.run
    return _Guidance(
        data=data,
        folder=folder,
        tables=tables,
        comparison=comparison,
        computed=run.computed if run is not None else 0,
        resumed=run.resumed if run is not None else 0,
        last=last,
    )


# --- HTML --------------------------------------------------------------------------------------


class Cell(NamedTuple):
    """A table cell: its text and, if any, an inline style (a map's cells are coloured)."""

    text: str
    style: str = ""


def _escape(text: object) -> str:
    return html.escape(str(text), quote=True)


def _table_html(
    key: str,
    caption: str,
    header: Sequence[str],
    rows: Sequence[Sequence[str | Cell]],
    *,
    groups: Sequence[tuple[str, int]] = (),
    note: str = "",
) -> str:
    """An HTML table with id ``table-<key>``; the caption is HTML already, cells are text.

    ``groups``: a header row above ``header``, each label spanning its number of columns.
    """
    head = "".join(f'<th scope="col">{_escape(h)}</th>' for h in header)
    if groups:
        spans = "".join(
            f'<th scope="colgroup" colspan="{span}">{_escape(label)}</th>' for label, span in groups
        )
        head = f"{spans}</tr><tr>{head}"
    body = []
    for row in rows:
        cells = []
        for position, cell in enumerate(row):
            item = cell if isinstance(cell, Cell) else Cell(cell)
            style = f' style="{_escape(item.style)}"' if item.style else ""
            tag = 'th scope="row"' if position == 0 else "td"
            closing = "th" if position == 0 else "td"
            cells.append(f"<{tag}{style}>{_escape(item.text)}</{closing}>")
        body.append(f"<tr>{''.join(cells)}</tr>")
    after = f'<p class="note">{note}</p>' if note else ""
    return (
        f'<div class="table-wrap"><table id="table-{_escape(key.replace("_", "-"))}">'
        f"<caption>{caption}</caption><thead><tr>{head}</tr></thead>"
        f"<tbody>{''.join(body)}</tbody></table>{after}</div>"
    )


def _caption(title: str, *, rules: str, bots: str, mode: str, n: str, interval: str) -> str:
    """A caption naming what every number of the table depends on."""
    return (
        f"<strong>{_escape(title)}</strong> "
        f'<span class="context">Rules {_escape(rules)} · bots: {_escape(bots)} · '
        f"mode: {_escape(mode)} · n = {_escape(n)} · {_escape(interval)}</span>"
    )


def _figure_html(fig: Figure, key: str, alt: str, caption: str) -> str:
    from tarot_analysis.plots import to_base64_png

    data = to_base64_png(fig, dpi=100)
    return (
        f'<figure id="chart-{_escape(key.replace("_", "-"))}">'
        f'<img src="data:image/png;base64,{data}" '
        f'alt="{_escape(alt)}"><figcaption>{caption}</figcaption></figure>'
    )


def _plural(count: int, noun: str) -> str:
    """``1 chunk``, ``2 chunks``."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def _count(value: float) -> str:
    return f"{int(value):,}"


def _probability(value: float) -> str:
    """A probability with six decimals, or three significant digits when it is tiny."""
    if value is None or pd.isna(value):
        return "—"
    return f"{value:.6f}" if value >= 1e-4 or value == 0 else f"{value:.3e}"


def _percent(value: float, digits: int = 1) -> str:
    return "—" if pd.isna(value) else f"{value:.{digits}%}"


def _percent_interval(low: float, high: float, digits: int = 1) -> str:
    if pd.isna(low) or pd.isna(high):
        return "—"
    return f"{low:.{digits}%} – {high:.{digits}%}"


def _signed(value: float, digits: int = 1) -> str:
    return "—" if pd.isna(value) else f"{value:+.{digits}f}"


def _mean_with_interval(mean: float, half: float, digits: int = 1) -> str:
    if pd.isna(mean):
        return "—"
    if pd.isna(half):
        return f"{mean:+.{digits}f}"
    return f"{mean:+.{digits}f} ± {half:.{digits}f}"


def _label(contract: str) -> str:
    from tarot_analysis.plots import contract_label

    return contract_label(contract)


def _p_value(value: float) -> str:
    return f"{value:.3g}"


_STYLE: Final = """
:root { --ink: #1d2329; --muted: #59636e; --rule: #d6dbe0; --band: #f4f6f8; --accent: #0072B2; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1120px; padding: 24px 32px 64px; color: var(--ink);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; }
h1 { font-size: 1.9em; margin: 0.2em 0 0.1em; }
h2 { font-size: 1.4em; margin-top: 2.2em; border-bottom: 2px solid var(--accent);
  padding-bottom: 4px; }
h3 { font-size: 1.1em; margin-top: 1.8em; }
p.lede { color: var(--muted); margin-top: 0; }
dl.metadata { display: grid; grid-template-columns: max-content 1fr; gap: 2px 18px;
  background: var(--band); border: 1px solid var(--rule); border-radius: 6px; padding: 12px 16px; }
dl.metadata dt { font-weight: 600; }
dl.metadata dd { margin: 0; }
code { font: 0.92em ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  background: var(--band); padding: 0 3px; border-radius: 3px; }
nav ol { columns: 2; }
.table-wrap { overflow-x: auto; margin: 1.2em 0; }
table { border-collapse: collapse; font-size: 0.86em; font-variant-numeric: tabular-nums;
  min-width: 32em; }
.pair { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 24px;
  align-items: start; }
.pair .table-wrap, .pair figure { margin: 0.4em 0; }
#table-recommended-map td { white-space: pre-line; text-align: center; line-height: 1.25; }
thead th[scope="colgroup"] { text-align: center; border-bottom: 1px solid var(--rule); }
caption { caption-side: top; text-align: left; padding: 4px 0 6px; }
caption .context { display: block; color: var(--muted); font-size: 0.92em; }
th, td { border-bottom: 1px solid var(--rule); padding: 3px 9px; white-space: nowrap; }
thead th { border-bottom: 2px solid var(--ink); text-align: right; vertical-align: bottom; }
thead th:first-child, tbody th { text-align: left; }
td { text-align: right; }
tbody tr:nth-child(even) { background: var(--band); }
p.note { color: var(--muted); font-size: 0.88em; margin: 4px 0 0; }
figure { margin: 1.2em 0; }
figure img { max-width: 100%; height: auto; border: 1px solid var(--rule); }
figcaption { color: var(--muted); font-size: 0.88em; }
.finding { border-left: 4px solid var(--accent); padding: 4px 12px; background: var(--band); }
@media print {
  body { max-width: none; padding: 0; font-size: 11px; }
  h2 { break-before: page; }
  figure, .table-wrap { break-inside: avoid; }
  .pair { grid-template-columns: 1fr; }
  nav { display: none; }
}
"""

# Counts, once the page has loaded, the images that decoded: a check any browser can run.
_SCRIPT: Final = """
window.addEventListener("load", function () {
  var images = Array.prototype.slice.call(document.images);
  var shown = images.filter(function (image) { return image.complete && image.naturalWidth > 0; });
  document.body.dataset.images = String(shown.length);
  document.body.dataset.imagesTotal = String(images.length);
});
"""


# --- Sections ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Context:
    """What every caption of the report repeats."""

    rules: Rules
    rules_argument: str
    bots: tuple[str, ...]
    seed: int
    deals: int
    auction_deals: int

    @property
    def bots_text(self) -> str:
        return _bots_text(self.bots)

    @property
    def bots_argument(self) -> str:
        return " ".join(self.bots) if len(set(self.bots)) > 1 else self.bots[0]


def _hand_rate_table(key: str, table: pd.DataFrame, title: str, context: _Context) -> str:
    who = table.attrs.get("who", "hand")
    n = int(table["n"].iloc[0])
    counted = (
        f"{n:,} dogs (one per deal)"
        if who == "dog"
        else f"{n:,} hands ({n // context.rules.players:,} deals × {context.rules.players} seats)"
    )
    caption = _caption(
        title, rules=context.rules.name, bots="none (the deal alone decides it)",
        mode="deal only", n=counted,
        interval="simulated rate with its Wilson 95% interval, beside the exact value",
    )  # fmt: skip
    name = str(table.index.name or key)
    rows = [
        [
            f"{value:g}" if isinstance(value, float) else str(value),
            _count(row["count"]),
            _probability(row["simulated"]),
            f"{_probability(row['ci_low'])} – {_probability(row['ci_high'])}",
            _probability(row["exact"]),
        ]
        for value, row in table.iterrows()
    ]
    header = [name.replace("_", " "), "count", "simulated", "95% Wilson interval", "exact"]
    return _table_html(key, caption, header, rows)


def _poignee_table(table: pd.DataFrame, context: _Context) -> str:
    players = context.rules.players
    deals = context.deals
    caption = _caption(
        "Poignée: a hand holding at least each level, and a deal where someone does",
        rules=context.rules.name, bots="none (the deal alone decides it)", mode="deal only",
        n=f"{deals * players:,} hands per hand row, {deals:,} deals per deal row",
        interval="simulated rate with its Wilson 95% interval, beside the exact value",
    )  # fmt: skip
    rows = [
        [
            f"{level} (at least)",
            f"per {row['per']}",
            str(int(row["trumps_with_excuse"])),
            _count(row["count"]),
            _probability(row["simulated"]),
            f"{_probability(row['ci_low'])} – {_probability(row['ci_high'])}",
            _probability(row["exact"]),
        ]
        for level, row in table.iterrows()
    ]
    header = [
        "poignée",
        "per",
        "trumps (Excuse counted)",
        "count",
        "simulated",
        "95% Wilson interval",
        "exact",
    ]
    return _table_html("poignee", caption, header, rows)


def _petit_sec_table(table: pd.DataFrame, context: _Context) -> str:
    deals = context.deals
    caption = _caption(
        "Petit sec: a hand whose only trump is the Petit (no Excuse), and a deal holding one",
        rules=context.rules.name, bots="none (the deal alone decides it)", mode="deal only",
        n=f"{deals * context.rules.players:,} hands, {deals:,} deals",
        interval="simulated rate with its Wilson 95% interval, beside the exact value",
    )  # fmt: skip
    labels = {"per_hand": "a given hand", "per_deal": "any hand of the deal"}
    rows = [
        [
            labels.get(str(name), str(name)),
            _count(row["n"]),
            _count(row["count"]),
            _probability(row["simulated"]),
            f"{_probability(row['ci_low'])} – {_probability(row['ci_high'])}",
            _probability(row["exact"]),
        ]
        for name, row in table.iterrows()
    ]
    header = ["who holds it", "n", "count", "simulated", "95% Wilson interval", "exact"]
    return _table_html("petit-sec", caption, header, rows)


def _checks_table(tables: Mapping[str, pd.DataFrame], context: _Context) -> str:
    caption = _caption(
        "Exact-vs-simulated checks: chi-square goodness of fit of each distribution",
        rules=context.rules.name, bots="none (the deal alone decides it)", mode="deal only",
        n=f"{context.deals:,} hands of seat 0 (or dogs), independent from deal to deal",
        interval="p-value of the chi-square test against the exact law",
    )  # fmt: skip
    rows = []
    for name, table in tables.items():
        gof = table.attrs.get("gof")
        if gof is None:
            continue
        who = "the dog" if table.attrs.get("who") == "dog" else "seat 0's hand"
        rows.append(
            [
                _HAND_TITLES.get(name, (name, ""))[0],
                who,
                f"{gof.statistic:.2f}",
                str(gof.dof),
                str(gof.pooled_cells),
                _p_value(gof.p_value),
            ]
        )
    note = (
        "Sparse cells are pooled with their neighbours before the test. A p-value is uniform "
        "between 0 and 1 when the dealer is right: among ten tests, one below 0.1 is expected; "
        "a p-value below 0.001, or several below 0.01, would point at the dealer."
    )
    header = ["distribution", "whose", "chi-square", "df", "cells", "p-value"]
    return _table_html("checks", caption, header, rows, note=note)


def _distribution_pair(key: str, table: pd.DataFrame, context: _Context) -> list[str]:
    """A hand distribution's table, and beside it its chart with the exact law drawn on it."""
    from tarot_analysis import plots

    title, xlabel = _HAND_TITLES[key]
    fig = plots.distribution(table, title=title, xlabel=xlabel)
    chart = _figure_html(
        fig, key, f"{title}: simulated shares with exact values",
        f"{_escape(title)}, {_escape(context.rules.name)}, {context.deals:,} deals: simulated "
        "(bars, Wilson 95% error bars) and exact (black dashes).",
    )  # fmt: skip
    return [
        f'<h3 id="{key.replace("_", "-")}">{_escape(title)}</h3>',
        '<div class="pair">',
        _hand_rate_table(key, table, title, context),
        chart,
        "</div>",
    ]


def _hands_section(stored: _Stored, context: _Context) -> list[str]:
    from tarot_analysis import plots

    tables = stored.tables
    parts = [
        '<section id="hands"><h2>1. Hand statistics</h2>',
        "<p>What the deal alone decides: every hand of every deal counted, seats pooled "
        "(n = deals × seats), each simulated rate beside its exact (hypergeometric) value. "
        "Charts draw the simulated share as bars with Wilson 95% error bars and the exact "
        "value as a black dash on each bar.</p>",
    ]
    for key in _HAND_TITLES:  # the dog's table exists only when the preset has a dog
        if key in tables:
            parts += _distribution_pair(key, tables[key], context)
    parts.append("<h3>Poignée</h3>")
    parts.append(_poignee_table(tables["poignee"], context))
    fig = plots.poignee_by_preset({context.rules.name: tables["poignee"]})
    parts.append(
        _figure_html(
            fig, "poignee", "Poignée frequencies per hand and per deal, simulated and exact",
            "Poignées: simulated rates (points, Wilson 95% error bars) and exact values (hollow "
            "diamonds); a level never seen shows its interval's upper bound.",
        )
    )  # fmt: skip
    parts.append("<h3>Petit sec</h3>")
    parts.append(_petit_sec_table(tables["petit_sec"], context))
    fig = plots.petit_sec_by_preset({context.rules.name: tables["petit_sec"]})
    parts.append(
        _figure_html(
            fig, "petit-sec", "Petit sec per hand and per deal, simulated and exact",
            "Petit sec: simulated rates (Wilson 95% error bars) and exact values (hollow "
            "diamonds). A deal with a Petit sec is redealt.",
        )
    )  # fmt: skip
    parts.append("<h3>Exact-vs-simulated checks</h3>")
    parts.append(_checks_table(tables, context))
    parts.append("</section>")
    return parts


def _contracts_section(stored: _Stored, context: _Context) -> list[str]:
    table = stored.tables["contracts"]
    redeals = stored.extra["redeals"]
    played = int(stored.extra["played"])
    n = context.auction_deals
    caption = _caption(
        "Contracts bid and made at the table",
        rules=context.rules.name, bots=context.bots_text,
        mode="auction (the bots bid in turn; the highest bid is played)",
        n=f"{played:,} deals played of {n:,} dealt",
        interval="Wilson 95% intervals on shares and success, normal 95% on mean scores",
    )  # fmt: skip
    rows = [
        [
            _label(str(name)),
            _count(row["n"]),
            _percent(row["share"]),
            _percent_interval(row["share_ci_low"], row["share_ci_high"]),
            _count(row["made"]),
            _percent(row["rate"]),
            _percent_interval(row["ci_low"], row["ci_high"]),
            _mean_with_interval(
                row["mean_taker_score"], (row["score_ci_high"] - row["score_ci_low"]) / 2
            ),
            "—" if pd.isna(row["mean_attack_points"]) else f"{row['mean_attack_points']:.1f}",
        ]
        for name, row in table.iterrows()
    ]
    header = [
        "contract",
        "deals played",
        "share",
        "95% interval",
        "made",
        "success",
        "95% interval",
        "taker's mean score (95%)",
        "attack's mean points",
    ]
    smaller = (
        f" The auction is played on the first {n:,} deals of seed {context.seed} (fewer than "
        f"the {context.deals:,} of the other sections: its shares settle sooner)."
        if n < context.deals
        else ""
    )
    return [
        '<section id="contracts"><h2>2. Contracts in auction mode</h2>',
        "<p>What the bots actually bid, and how often the contract they chose makes. Deals "
        f"where a Petit sec was dealt ({redeals['petit_sec']:,}) or everyone passed "
        f"({redeals['all_passed']:,}) are redealt and left out.{_escape(smaller)} These rates "
        "depend on the bots' bidding: a hand reaches a Garde contre only if its holder bids "
        "it. The guidance section removes that choice.</p>",
        _table_html("contracts", caption, header, rows),
        "</section>",
    ]


def _rate_with_interval(rate: float, low: float, high: float) -> str:
    """``15.6% (14.8–16.5)``: a rate and its interval, in percent."""
    if pd.isna(rate):
        return "—"
    return f"{rate:.1%} ({low * 100:.1f}–{high * 100:.1f})"


def _guidance_tables(
    key: str, table: pd.DataFrame, what: str, key_name: str, guidance: _Guidance, context: _Context
) -> list[str]:
    """Two tables by ``key_name``: each contract's success, and each contract's mean score."""
    contracts = guidance.data.contracts
    played = guidance.data.played_deals
    mode = "counterfactual (seat 0 takes; each deal played under every contract)"
    success_caption = _caption(
        f"Contracts made by {what}",
        rules=context.rules.name, bots=context.bots_text, mode=mode,
        n=f"{played:,} deals played, split by {key_name}",
        interval="success rate with its Wilson 95% interval, in percent",
    )  # fmt: skip
    score_caption = _caption(
        f"Taker's mean score by {what} (Pass scores 0)",
        rules=context.rules.name, bots=context.bots_text, mode=mode,
        n=f"{played:,} deals played, split by {key_name}",
        interval="mean score ± the half-width of its normal 95% interval over deals; the best "
        "less the runner-up, deal by deal on the same deals, with its 95% interval",
    )  # fmt: skip
    header = [key_name, "deals", *(_label(name) for name in contracts)]
    stability = "best_changes" in table
    success_rows = []
    score_rows = []
    for value, row in table.iterrows():
        label = ", ".join(map(str, value)) if isinstance(value, tuple) else str(value)
        first = [label, _count(row["n"])]
        success_rows.append(
            first
            + [
                _rate_with_interval(
                    row[f"{name}_rate"], row[f"{name}_ci_low"], row[f"{name}_ci_high"]
                )
                for name in contracts
            ]
        )
        score_rows.append(
            first
            + [
                _mean_with_interval(
                    row[f"{name}_mean_score"], row.get(f"{name}_score_half_width", math.nan)
                )
                for name in contracts
            ]
            + [_best_text(row), _difference_text(row)]
            + ([_percent(row["best_changes"], 0)] if stability else [])
        )
    prise_note = (
        "Prise and Garde are played alike (same dog, same écart): they make on the same deals."
        if {"prise", "garde"} <= set(contracts)
        else ""
    )
    score_header = [*header, "best (≈ tie)", "best − runner-up (95%)"]
    score_note = (
        "A tie (≈) when the interval of the best less the runner-up reaches 0: on these deals "
        "the two cannot be told apart."
    )
    if stability:
        from tarot_analysis.bootstrap import REPLICATES

        score_header.append("best changes")
        score_note += (
            f" Best changes: the share of {REPLICATES} bootstrap replicates of the deals (the "
            "run drawn again) that name another best: near 0, another run of this size would "
            "give the same advice."
        )
    return [
        _table_html(f"{key}-success", success_caption, header, success_rows, note=prise_note),
        _table_html(f"{key}-score", score_caption, score_header, score_rows, note=score_note),
    ]


def _best_text(row: pd.Series) -> str:
    """``Garde``, or ``Garde ≈ Prise`` when the runner-up is tied with it."""
    if bool(row.get("tie", False)):
        return f"{_label(str(row['best']))} ≈ {_label(str(row['runner_up']))}"
    return _label(str(row["best"]))


def _difference_text(row: pd.Series) -> str:
    """The best's lead on the runner-up: ``+14.6 (+6.3 to +23.0)``."""
    if pd.isna(row["difference_ci_low"]):
        return _signed(row["difference"])
    return (
        f"{row['difference']:+.1f} ({row['difference_ci_low']:+.1f} to "
        f"{row['difference_ci_high']:+.1f})"
    )


def _map_table(guidance: _Guidance, context: _Context) -> str:
    """The recommended-contract map as a table: bouts down, trumps across, cells coloured."""
    from matplotlib.colors import to_rgb

    from tarot_analysis.plots import contract_colour

    table = guidance.tables["by_bouts_trumps"]
    cells = {
        (int(b), int(t)): (int(n), str(best), bool(tie), str(runner))
        for (b, t), n, best, tie, runner in zip(
            table.index, table["n"], table["best"], table["tie"], table["runner_up"], strict=True
        )
    }
    bouts = sorted({b for b, _ in cells})
    trumps = sorted({t for _, t in cells})
    played = guidance.data.played_deals
    caption = _caption(
        "Best contract by bouts and trumps (the taker's highest mean score; Pass scores 0)",
        rules=context.rules.name, bots=context.bots_text,
        mode="counterfactual (seat 0 takes; each deal played under every contract)",
        n=f"{played:,} deals played; each cell gives its deals",
        interval=f"best of the mean scores, tied with the runner-up when the 95% interval of "
        f"their paired difference reaches 0; cells with fewer than {MAP_MIN_DEALS} deals left "
        "blank",
    )  # fmt: skip
    rows: list[list[str | Cell]] = []
    for b in bouts:
        row: list[str | Cell] = [f"{b} bout{'s' if b != 1 else ''}"]
        for t in trumps:
            n, best, tie, runner = cells.get((b, t), (0, "pass", False, "pass"))
            if n < MAP_MIN_DEALS:
                row.append(Cell(f"({n:,})" if n else "", "color:#59636e"))
                continue
            colour = contract_colour(best)
            red, green, blue = to_rgb(colour)
            # Black or white ink, whichever reads better on the contract's colour.
            ink = "black" if 0.299 * red + 0.587 * green + 0.114 * blue > 0.55 else "white"
            name = f"{_label(best)} ≈ {_label(runner)}" if tie else _label(best)
            row.append(Cell(f"{name}\n{n:,}", f"background:{colour};color:{ink}"))
        rows.append(row)
    header = ["bouts \\ trumps", *(str(t) for t in trumps)]
    note = (
        "Each cell: the best contract and its number of deals (in brackets: too few deals); "
        "A ≈ B: a tie, the 95% interval of A less B, deal by deal, reaches 0."
    )
    return _table_html("recommended-map", caption, header, rows, note=note)


def _ranges_table(guidance: _Guidance, context: _Context) -> str:
    from tarot_analysis.guidance import best_ranges

    ranges = best_ranges(guidance.tables["by_chavey"], min_n=RANGE_MIN_DEALS)
    caption = _caption(
        "Best contract by range of Chavey count",
        rules=context.rules.name, bots=context.bots_text,
        mode="counterfactual (seat 0 takes; each deal played under every contract)",
        n=f"{int(ranges['n'].sum()) if len(ranges) else 0:,} deals at counts held by at least "
        f"{RANGE_MIN_DEALS} deals",
        interval="mean score of each count's best over the range's deals ± the half-width of "
        "its 95% interval; A ≈ B: tied, the interval of their paired difference reaches 0",
    )  # fmt: skip
    rows = [
        [
            f"{row['low']}" if row["low"] == row["high"] else f"{row['low']}–{row['high']}",
            " ≈ ".join(_label(part) for part in str(row["best"]).split(" ≈ ")),
            _count(row["n"]),
            _mean_with_interval(row["mean_best_score"], row["half_width"]),
        ]
        for _, row in ranges.iterrows()
    ]
    header = ["Chavey count", "best contract", "deals", "its mean score (95%)"]
    return _table_html("best-by-range", caption, header, rows)


def _threshold_text(value: float) -> str:
    return "none" if not math.isfinite(value) else f"{value:.0f}"


def _passing_table(guidance: _Guidance, context: _Context) -> str:
    """By Chavey count: what passing is worth measured, and the best option read three ways."""
    by_chavey = guidance.tables["by_chavey"]
    by_seat = guidance.tables["by_seat"]
    last = guidance.last
    caption = _caption(
        "Passing, measured, and the seat that speaks",
        rules=context.rules.name, bots=context.bots_text,
        mode="counterfactual, and each deal played once more with the seat passing and the "
        "others bidding on",
        n=f"{guidance.data.played_deals:,} deals for seat 0; {last.played_deals:,} for seat "
        f"{last.seat}, on which every other seat passed; counts held by at least "
        f"{RANGE_MIN_DEALS} deals",
        interval="mean ± the half-width of its 95% interval over deals; A ≈ B: tied, the "
        "interval of their paired difference reaches 0",
    )  # fmt: skip
    rows = []
    for count, row in by_seat.iterrows():
        if not row["first_n"] >= RANGE_MIN_DEALS:
            continue
        first = cast(pd.Series, by_chavey.loc[cast(int, count)])

        def best(part: str, row: pd.Series = row) -> str:
            n = row[f"{part}_n"]
            if pd.isna(n) or n < RANGE_MIN_DEALS:
                return "—"
            text = _label(str(row[f"{part}_best"]))
            if bool(row[f"{part}_tie"]):
                text += f" ≈ {_label(str(row[f'{part}_runner_up']))}"
            return text

        rows.append(
            [
                str(count),
                _count(row["first_n"]),
                _mean_with_interval(
                    first["pass_played_mean_score"], first["pass_played_score_half_width"]
                ),
                _percent(first["pass_taken_share"], 0),
                best("first"),
                best("first_pass_played"),
                "—" if pd.isna(row["last_n"]) else _count(row["last_n"]),
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
    return _table_html("passing", caption, header, rows, note=note)


def _thresholds_table(guidance: _Guidance, context: _Context) -> str:
    table = guidance.tables["thresholds"]
    replicates = int(table["replicates"].iloc[0]) if len(table) else 0
    caption = _caption(
        "Thresholds: the value from which each contract, or a higher one, is bid",
        rules=context.rules.name, bots=context.bots_text,
        mode="counterfactual (seat 0 takes; each deal played under every contract)",
        n=f"{guidance.data.played_deals:,} deals played",
        interval=f"percentile 95% interval over {replicates} bootstrap replicates of the deals",
    )  # fmt: skip
    rows = []
    for key, row in table.iterrows():
        evaluator, contract = cast(tuple[str, str], key)
        rows.append(
            [
                _EVALUATOR_NAMES.get(evaluator, evaluator),
                _label(contract),
                _threshold_text(row["fitted"]),
                f"{_threshold_text(row['ci_low'])} to {_threshold_text(row['ci_high'])}",
                _percent(row["never_alone"], 0),
                _threshold_text(row["published"]),
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
    return _table_html("thresholds", caption, header, rows, note=note)


_RULE_NAMES: Final[dict[str, str]] = {
    "chavey": "Chavey's published thresholds",
    "chavey_fitted": "Thresholds fitted on Chavey's count",
    "bouts_and_trumps": "Bouts and trumps, published",
    "bouts_and_trumps_fitted": "Thresholds fitted on bouts and trumps",
}


def _threshold_loss_table(guidance: _Guidance, context: _Context) -> str:
    loss = guidance.tables["threshold_loss"]
    n = int(loss["n"].iloc[0]) if len(loss) else 0
    caption = _caption(
        "What each rule loses against the best contract of each value",
        rules=context.rules.name, bots=context.bots_text,
        mode="counterfactual (seat 0 takes; each deal played under every contract)",
        n=f"{n:,} deals played", interval="normal 95% interval from the per-deal losses",
    )  # fmt: skip
    rows = [
        [
            _RULE_NAMES.get(str(name), str(name)),
            _signed(row["mean_expected_score"], 2),
            _mean_with_interval(row["mean_loss"], row["loss_ci_half_width"], 2),
            _signed(row["out_of_sample_expected_score"], 2),
            _mean_with_interval(row["out_of_sample_loss"], row["out_of_sample_ci_half_width"], 2),
        ]
        for name, row in loss.iterrows()
    ]
    header = [
        "rule",
        "expected score",
        "loss per deal (95%)",
        "expected score, out of sample",
        "loss per deal, out of sample (95%)",
    ]
    note = (
        "Each deal's loss is the score, on that deal, of the best contract at its value (Pass "
        "scores 0) less that of the contract the rule names. In sample, the best contracts and "
        "the fitted thresholds are chosen on the same deals they are scored on, which flatters "
        "them. Out of sample, they are chosen on half of the deals (even or odd numbers) and "
        "scored on the other half, and the other way round. A negative loss out of sample: the "
        "rule does better than the best contract of each value chosen on the other half, "
        "which follows that half's noise."
    )
    return _table_html("threshold-loss", caption, header, rows, note=note)


def _model_table(guidance: _Guidance, context: _Context) -> str:
    comparison = guidance.comparison
    caption = _caption(
        f"Predicting whether a {_label(comparison['contract'])} makes: fitted model against "
        "Chavey's count",
        rules=context.rules.name, bots=context.bots_text,
        mode="counterfactual (seat 0 takes; each deal played under every contract)",
        n=f"{comparison['n_test']:,} held-out deals (fitted on {comparison['n_train']:,})",
        interval="normal 95% intervals on Brier and log loss; bootstrap 95% (100 resamples) "
        "on AUC",
    )  # fmt: skip

    def cell(metric: Mapping[str, float], signed: bool) -> str:
        form = "+.4f" if signed else ".4f"
        return f"{metric['value']:{form}} ({metric['ci_low']:{form}} to {metric['ci_high']:{form}})"

    rows = []
    for name, label, signed in (
        ("fitted", "Fitted model (hand features)", False),
        ("chavey", "Chavey's count (one-feature logistic)", False),
        ("fitted_minus_chavey", "Fitted − Chavey (paired)", True),
    ):
        metrics = comparison[name]
        rows.append([label, *(cell(metrics[m], signed) for m in ("brier", "log_loss", "auc"))])
    header = ["predictor", "Brier score (lower is better)", "log loss (lower)", "AUC (higher)"]
    return _table_html("model-comparison", caption, header, rows)


def _coefficients_table(guidance: _Guidance, context: _Context) -> str:
    comparison = guidance.comparison
    coefficients = comparison["coefficients"]
    caption = _caption(
        f"The fitted model: logistic regression of a {_label(comparison['contract'])}'s success",
        rules=context.rules.name, bots=context.bots_text,
        mode="counterfactual (seat 0 takes; each deal played under every contract)",
        n=f"{comparison['n_train']:,} deals (the first part of the run)",
        interval="95% interval from each coefficient's standard error (binomial GLM)",
    )  # fmt: skip
    rows = [
        [
            _FEATURE_NAMES.get(str(name), str(name).replace("_", " ")),
            f"{row['per_unit']:+.3f} ({row['ci_low']:+.3f} to {row['ci_high']:+.3f})",
            f"{row['std_error']:.3f}",
            f"× {row['odds_ratio']:.2f}",
            f"{row['per_sd']:+.3f}",
        ]
        for name, row in coefficients.iterrows()
    ]
    header = [
        "feature", "log-odds per unit (95%)", "standard error", "odds per unit",
        "log-odds per standard deviation",
    ]  # fmt: skip
    note = (
        "The features do not overlap: the plain trumps are the trumps 2 to 20, and each bout "
        "(the Petit, the 21, the Excuse) has its own coefficient."
    )
    return _table_html("model-coefficients", caption, header, rows, note=note)


_FEATURE_NAMES: Final[dict[str, str]] = {
    "plain_trumps": "plain trumps (2 to 20)",
    "petit": "the Petit",
    "twenty_one": "the 21",
    "excuse": "the Excuse",
    "longest_suit": "longest suit (cards)",
}


def _model_best_table(guidance: _Guidance, context: _Context) -> str:
    comparison = guidance.comparison
    table = comparison["by_model"]
    caption = _caption(
        f"Best contract by the fitted model's chance of a {_label(comparison['contract'])}",
        rules=context.rules.name, bots=context.bots_text,
        mode="counterfactual (seat 0 takes; each deal played under every contract)",
        n=f"{comparison['n_test']:,} held-out deals, by tenth of predicted chance",
        interval="the best less the runner-up, deal by deal, with its 95% interval",
    )  # fmt: skip
    rows = [
        [
            str(band),
            _count(row["n"]),
            _best_text(row),
            _difference_text(row),
        ]
        for band, row in table.iterrows()
    ]
    header = ["predicted chance", "deals", "best (≈ tie)", "best − runner-up (95%)"]
    return _table_html("best-by-model", caption, header, rows)


def _calibration_table(guidance: _Guidance, context: _Context) -> str:
    comparison = guidance.comparison
    curves = comparison["calibration"]
    caption = _caption(
        f"Calibration: predicted chance of a {_label(comparison['contract'])} against the share "
        "made",
        rules=context.rules.name, bots=context.bots_text,
        mode="counterfactual (seat 0 takes; each deal played under every contract)",
        n=f"{comparison['n_test']:,} held-out deals, by tenth of predicted chance",
        interval="Wilson 95% intervals on the share made",
    )  # fmt: skip
    bins = sorted(set().union(*(set(table.index) for table in curves.values())))
    header = ["predicted chance"]
    groups = [("", 1)]
    for name in curves:
        header += ["deals", "mean predicted", "made (95%)"]
        groups.append((_EVALUATOR_NAMES.get(name, name), 3))
    rows = []
    for b in bins:
        cells = [f"{b / 10:.0%}–{(b + 1) / 10:.0%}"]
        for table in curves.values():
            if b not in table.index:
                cells += ["0", "—", "—"]
                continue
            row = table.loc[b]
            cells += [
                _count(row["n"]),
                _percent(row["predicted"]),
                _rate_with_interval(row["observed"], row["ci_low"], row["ci_high"]),
            ]
        rows.append(cells)
    return _table_html("calibration", caption, header, rows, groups=groups)


def _guidance_section(guidance: _Guidance, context: _Context) -> list[str]:
    from tarot_analysis import plots
    from tarot_analysis.guidance import best_ranges

    tables = guidance.tables
    by_chavey = tables["by_chavey"]
    played = guidance.data.played_deals
    ranges = best_ranges(by_chavey, min_n=RANGE_MIN_DEALS)
    summary = "; ".join(
        f"{r['low']}"
        + ("" if r["low"] == r["high"] else f"–{r['high']}")
        + ": "
        + " ≈ ".join(_label(part) for part in str(r["best"]).split(" ≈ "))
        for _, r in ranges.iterrows()
    )
    context_line = (
        f"{context.rules.name}, {context.bots_text}, counterfactual mode, {played:,} deals"
    )
    parts = [
        '<section id="guidance"><h2>3. Bidding guidance</h2>',
        f"<p>Seat 0 takes every deal, and each deal is played once under every contract "
        f"({', '.join(_label(c) for c in guidance.data.contracts)}), so the contracts are "
        "compared on the same hands; Pass scores 0. Deals redealt for a Petit sec are left "
        f"out ({guidance.data.deals - played:,} of {guidance.data.deals:,}).</p>",
        f'<p class="finding"><strong>Best contract by Chavey count</strong> (counts held by at '
        f"least {RANGE_MIN_DEALS} deals; A ≈ B: a tie): "
        f"{_escape(summary or 'no count held by enough deals')}.</p>",
        "<h3>Success and expected score by Chavey count</h3>",
        _figure_html(
            plots.success_by_score(by_chavey, min_n=CHART_MIN_DEALS), "success-by-chavey",
            "Share of each contract made by Chavey count, with Wilson bands",
            f"Contracts made by Chavey count ({_escape(context_line)}); bands are Wilson 95% "
            f"intervals; counts held by fewer than {CHART_MIN_DEALS} deals left out.",
        ),
        _figure_html(
            plots.expected_score_by_score(by_chavey, min_n=CHART_MIN_DEALS),
            "expected-score-by-chavey",
            "Taker's mean score per contract by Chavey count, best contract shaded",
            f"Taker's mean score by Chavey count ({_escape(context_line)}); the band of each "
            "count is shaded in its best contract's colour, hatched where the best is tied "
            "with the runner-up.",
        ),
        *_guidance_tables(
            "guidance-chavey", by_chavey, "Chavey count", "Chavey count", guidance, context
        ),
        "<h3>Best contract by range of Chavey count</h3>",
        _ranges_table(guidance, context),
        "<h3>Recommended contract by bouts and trumps</h3>",
        _figure_html(
            plots.recommended_map(tables["by_bouts_trumps"], min_n=MAP_MIN_DEALS),
            "recommended-map", "Best contract on a grid of bouts and trumps",
            f"Best contract by bouts and trumps ({_escape(context_line)}); each cell gives "
            f"its deals, hatched and marked ≈ where the best is tied with the runner-up; cells "
            f"with fewer than {MAP_MIN_DEALS} deals are blank.",
        ),
        _map_table(guidance, context),
        "<h3>By kings held</h3>",
        *_guidance_tables(
            "guidance-kings", tables["by_kings"], "kings held", "kings", guidance, context
        ),
        "<h3>Passing, measured, and the seat</h3>",
        _passing_table(guidance, context),
        "<h3>Thresholds, fitted and published</h3>",
        _thresholds_table(guidance, context),
        "<h3>What each rule loses</h3>",
        _threshold_loss_table(guidance, context),
        "<h3>A fitted success model against Chavey's count</h3>",
        "<p>A logistic regression on the hand's features is fitted on the first 80% of the "
        "deals and compared with Chavey's count (turned into a probability by a one-feature "
        "logistic on the same deals) on the last 20%.</p>",
        _model_table(guidance, context),
        _coefficients_table(guidance, context),
        "<p>Read the model with care:</p><ul>"
        + "".join(f"<li>{_escape(c)}</li>" for c in guidance.comparison["caveats"])
        + "</ul>",
        _model_best_table(guidance, context),
        _figure_html(
            plots.calibration(guidance.comparison["calibration"]), "calibration",
            "Calibration of the fitted model and of Chavey's count",
            f"Predicted chance of a {_label(guidance.comparison['contract'])} against the "
            f"share made, held-out deals ({_escape(context_line)}); Wilson 95% error bars.",
        ),
        _calibration_table(guidance, context),
        "</section>",
    ]  # fmt: skip
    return parts


def _how_to_read(context: _Context) -> str:
    return (
        '<section id="how-to-read"><h2>How to read this report</h2><ul>'
        "<li><strong>Three modes.</strong> <em>Deal only</em>: what the cards dealt decide, "
        "no bot involved. <em>Auction</em>: the bots bid, and the contract they choose is "
        "played; its rates depend on how they bid. <em>Counterfactual</em>: seat 0 takes every "
        "deal under every contract, so contracts are compared on the same hands.</li>"
        "<li><strong>Every rate has its n and an interval</strong> (Wilson 95% for rates, "
        "normal 95% for means, bootstrap for AUC), named in each table's caption. Where an "
        "exact value exists it stands beside the simulated one.</li>"
        "<li><strong>Rules and bots matter.</strong> Scores depend on the preset's scoring and "
        f"on how the bots ({_escape(context.bots_text)}) play the cards: stronger play makes "
        "more contracts.</li>"
        "<li><strong>The best contract</strong> of a row is the one with the highest mean "
        "taker score, Pass scoring 0. It comes with the runner-up and their difference, deal "
        "by deal on the same deals; when that difference's 95% interval reaches 0 the two are "
        "a tie (written A ≈ B).</li>"
        "<li><strong>Deal it again.</strong> Every number is decided by the rules, the seed and "
        "the chunking in the block above; the commands there reproduce each section.</li>"
        "</ul></section>"
    )


def _metadata_block(
    context: _Context,
    hands: _Stored,
    auction: _Stored,
    guidance: _Guidance,
    started: float,
) -> str:
    from tarot_analysis.deal import DEFAULT_CHUNK_SIZE

    rules = context.rules
    bots = context.bots_argument
    base = f"--rules {context.rules_argument} --seed {context.seed}"
    guidance_chunks = -(-context.deals // GUIDANCE_CHUNK_SIZE)
    hand_chunks = -(-context.deals // DEFAULT_CHUNK_SIZE)

    def reuse(stored: _Stored) -> str:
        state = "reused" if stored.reused else "computed now"
        version = stored.metadata.get("version", __version__)
        by = f", by tarot-analysis {version}" if version != __version__ else ""
        return f"{stored.path} ({state}{by})"

    entries = [
        ("Rules", f"{rules.name} — {rules.description}"),
        ("Rules source", rules.source),
        (
            "Table",
            f"{rules.players} players, {rules.hand_size} cards each, a dog of {rules.dog_size}",
        ),
        ("Bots", context.bots_text),
        ("Seed", str(context.seed)),
        (
            "Deals (n)",
            f"{context.deals:,} for hand statistics and guidance; {context.auction_deals:,} "
            "in auction mode",
        ),
        (
            "Chunking",
            f"hand statistics and auction: chunks of {DEFAULT_CHUNK_SIZE:,} deals "
            f"({_plural(hand_chunks, 'chunk')} for the hands); guidance: "
            f"{_plural(guidance_chunks, 'chunk')} of {GUIDANCE_CHUNK_SIZE:,}; chunk i draws "
            "from SeedSequence(seed, spawn_key=(i,))",
        ),
        ("Hand statistics data", reuse(hands)),
        ("Auction data", reuse(auction)),
        (
            "Guidance run",
            f"{guidance.folder} ({_plural(guidance.resumed, 'chunk')} reused, "
            f"{guidance.computed:,} computed now)",
        ),
        (
            "Commands",
            f"tarot-analysis hands {base} --deals {context.deals} · tarot-analysis play {base} "
            f"--deals {context.auction_deals} --bots {bots} · tarot-analysis guidance {base} "
            f"--deals {context.deals} --bots {bots}",
        ),
        ("tarot-analysis version", __version__),
        (
            "Date",
            datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
            + f" (built in {time.perf_counter() - started:.1f} s)",
        ),
    ]
    items = "".join(
        f"<dt>{_escape(name)}</dt><dd>"
        + (f"<code>{_escape(value)}</code>" if name == "Commands" else _escape(value))
        + "</dd>"
        for name, value in entries
    )
    return f'<dl class="metadata" id="metadata">{items}</dl>'


def _page(title: str, body: Sequence[str]) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta name="generator" content="tarot-analysis {_escape(__version__)}">\n'
        f"<title>{_escape(title)}</title>\n<style>{_STYLE}</style>\n</head>\n"
        '<body data-images="pending">\n'
        + "\n".join(body)
        + f"\n<script>{_SCRIPT}</script>\n</body>\n</html>\n"
    )


# --- The report --------------------------------------------------------------------------------


def _seat_bots(bots: str | Sequence[str] | None, players: int) -> tuple[str, ...]:
    """One bot per seat, from one name, one per seat, or none (``random`` everywhere)."""
    from tarot_analysis.bots import bot_id

    if bots is None:
        names: tuple[str, ...] = ("random",) * players
    elif isinstance(bots, str):
        names = (bots,) * players
    else:
        names = tuple(bots)
        if len(names) == 1:
            names = names * players
    if len(names) != players:
        raise TarotInputError(
            f"give one bot for every seat or one per seat ({players}), got {len(names)}"
        )
    for name in names:
        bot_id(name)  # an unknown bot fails here, before any dealing
    return names


def build_report(
    rules: str | Rules,
    deals: int,
    *,
    bots: str | Sequence[str] | None = None,
    seed: int = 1,
    data_dir: str | os.PathLike[str] = "data",
    out_dir: str | os.PathLike[str] = "reports",
    threads: int | None = None,
    progress: bool = False,
    pdf: bool = False,
    client: Any = None,
) -> Path:
    """Write the strategy report of ``rules`` and return its path.

    ``rules``: a preset name, a TOML file or a :class:`~tarot_analysis.rules.Rules`. ``bots``:
    one name for every seat, or one per seat (default ``random`` at every seat). Hand
    statistics and the guidance run use ``deals`` deals; the auction, at most
    :data:`AUCTION_DEALS`. Runs and tables already in ``data_dir`` for the same rules, bots,
    seed and deals are reused. The report goes to
    ``out_dir/strategy-<rules>-<bots>-<deals>.html``.

    ``pdf=True`` also prints it to a PDF beside it with a headless Chromium; when there is
    none, or it fails, a warning says so in one line and the HTML stays. ``client``: a Dask
    client whose workers run the chunks (the same report as on local threads).
    """
    from tarot_analysis.rules import load_rules

    started = time.perf_counter()
    if deals < 1:
        raise TarotInputError(f"the number of deals must be at least 1, got {deals}")
    if seed < 0:
        raise TarotInputError(f"the seed must be a non-negative integer, got {seed}")
    loaded = load_rules(rules) if isinstance(rules, str) else rules
    if loaded.tarocco is not None:
        raise TarotInputError(f"{loaded.name} has no contracts: there is no bid to advise")
    names = _seat_bots(bots, loaded.players)
    target = report_path(loaded.name, names, deals, out_dir)
    from tarot_analysis.memory import check_memory
    from tarot_analysis.simulate import check_output_path, check_writable_folder

    # The guidance keeps its deals (the fitted model reads them), for two seats.
    check_memory("guidance", deals, None, runs=2)
    check_output_path(target)  # a bad output folder fails before the runs, not after
    check_writable_folder(data_dir, " for the report's runs")
    data = Path(data_dir)
    auction_deals = min(deals, AUCTION_DEALS)
    context = _Context(
        rules=loaded,
        rules_argument=rules if isinstance(rules, str) else loaded.name,
        bots=names,
        seed=seed,
        deals=deals,
        auction_deals=auction_deals,
    )
    runs = _Runs(data_dir=data, threads=threads, client=client, progress=progress)
    hands = _hand_tables(loaded, deals, seed, runs)
    auction = _auction_tables(loaded, auction_deals, names, seed, runs)
    guidance = _guidance(loaded, deals, names, seed, runs)

    title = f"Strategy report — {loaded.name}"
    sections = [
        _how_to_read(context),
        *_hands_section(hands, context),
        *_contracts_section(auction, context),
        *_guidance_section(guidance, context),
    ]
    body = [
        "<header>",
        f"<h1>{_escape(title)}</h1>",
        f'<p class="lede">{_escape(loaded.description)}: hand statistics, contracts at the '
        f"table and bidding guidance, {_escape(context.bots_text)}, {deals:,} deals.</p>",
        "</header>",
        '<nav><ol><li><a href="#how-to-read">How to read this report</a></li>'
        '<li><a href="#hands">Hand statistics</a></li>'
        '<li><a href="#contracts">Contracts in auction mode</a></li>'
        '<li><a href="#guidance">Bidding guidance</a></li></ol></nav>',
        # Last, so that its time counts the charts too.
        _metadata_block(context, hands, auction, guidance, started),
        *sections,
    ]
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    temporary.write_text(_page(title, body), encoding="utf-8")
    temporary.replace(target)
    if pdf:
        try:
            render_pdf(target)
        except TarotInputError as error:
            warnings.warn(f"{error}; the report stays HTML only", stacklevel=2)
    return target


# --- PDF -------------------------------------------------------------------------------------


def find_chromium() -> str | None:
    """The path of a Chromium or Chrome on ``PATH``, or ``None``."""
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


def render_pdf(
    html_path: str | os.PathLike[str], pdf_path: str | os.PathLike[str] | None = None
) -> Path:
    """Print a report to PDF with a headless Chromium (default: beside it, ``.pdf``).

    Raises :class:`~tarot_analysis.errors.TarotInputError` when no browser is found or it
    fails, saying which in one line.
    """
    source = Path(html_path).resolve()
    target = Path(pdf_path) if pdf_path is not None else source.with_suffix(".pdf")
    browser = find_chromium()
    if browser is None:
        raise TarotInputError(
            f"no PDF: no headless Chromium found (looked for {', '.join(CHROMIUM_NAMES)})"
        )
    with tempfile.TemporaryDirectory(prefix="tarot-chromium-") as profile:
        command = [
            browser, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--no-pdf-header-footer",
            f"--print-to-pdf={target.resolve()}", source.as_uri(),
        ]  # fmt: skip
        try:
            done = subprocess.run(
                command, capture_output=True, text=True, timeout=_PDF_TIMEOUT_SECONDS, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            raise TarotInputError(f"no PDF: {browser} failed ({error})") from None
    if done.returncode != 0 or not target.exists():
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise TarotInputError(f"no PDF: {browser} exited with {done.returncode} ({last})")
    return target


# --- Command line ------------------------------------------------------------------------------


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``report`` command to the subparsers of the ``tarot-analysis`` command line."""
    from tarot_analysis.arguments import positive, seed

    report = subparsers.add_parser(
        "report",
        help="one self-contained HTML report: hand statistics, contracts and bidding guidance",
        description=(
            "Write reports/strategy-<rules>-<bots>-<deals>.html: hand statistics beside their "
            "exact values, contracts in auction mode and bidding guidance, with charts. Runs "
            "already under --data for the same rules, bots, seed and deals are reused."
        ),
    )
    report.add_argument("--rules", default="fft-4", help="preset name or TOML file (default fft-4)")
    report.add_argument(
        "--deals", type=positive, default=1_000_000,
        help=f"deals (default 1,000,000; at most {AUCTION_DEALS:,} in auction mode)",
    )  # fmt: skip
    report.add_argument(
        "--bots", nargs="+", default=["heuristic"], metavar="BOT",
        help="one bot for every seat, or one per seat (default heuristic)",
    )  # fmt: skip
    report.add_argument("--seed", type=seed, default=1, help="random seed (default 1)")
    report.add_argument("--out", default="reports", help="folder of the report (default reports/)")
    report.add_argument("--data", default="data", help="folder of the runs (default data/)")
    report.add_argument(
        "--pdf", action="store_true", help="also print a PDF, if a headless Chromium is installed"
    )
    report.add_argument(
        "--threads", type=positive, default=None, help="threads (default: every core)"
    )
    report.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_cluster_options(report)
    return report


def run_command(args: argparse.Namespace) -> int:
    """Run ``tarot-analysis report``: build the report, print its path and how long it took."""
    started = time.perf_counter()
    with (
        dask_client(args.scheduler, args.workers) as client,
        warnings.catch_warnings(record=True) as caught,
    ):
        warnings.simplefilter("always")
        try:
            path = build_report(
                args.rules, args.deals, bots=args.bots, seed=args.seed, data_dir=args.data,
                out_dir=args.out, threads=args.threads, progress=not args.no_progress,
                pdf=args.pdf, client=client,
            )  # fmt: skip
        except ImportError as error:  # charts need matplotlib, an optional dependency
            raise TarotInputError(str(error)) from None
    elapsed = time.perf_counter() - started
    print(f"Report: {path} ({elapsed:.1f} s)")
    pdf = path.with_suffix(".pdf")
    if args.pdf and pdf.exists() and pdf.stat().st_mtime >= path.stat().st_mtime - 1:
        print(f"PDF: {pdf}")
    for warning in caught:
        print(f"tarot-analysis: {warning.message}", file=sys.stderr)
    return 0
