"""The report's runs: hand statistics, the auction and the guidance, stored and reused.

The guidance run is the resumable Parquet dataset of the ``guidance`` command, in the same
folder (``data/guidance-<rules>-<bots>-seed<seed>-<deals>``, and ``...-last`` for the last
seat's run, as ``guidance --seat both`` names it), so either command reuses the other's chunks.
Hand statistics and auction contracts are small tables, kept as JSON in the data folder with
the metadata of the run that produced them; they are reused only when that metadata matches the
run asked for.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import pandas as pd

from tarot_analysis import __version__
from tarot_analysis.reader import TABLES_BYTES, read_json
from tarot_analysis.report.html import bots_label
from tarot_analysis.runs.files import write_text
from tarot_analysis.runs.simulate import json_value
from tarot_analysis.stats import Z_95

if TYPE_CHECKING:
    from tarot_analysis.analyses.guidance import GuidanceData
    from tarot_analysis.game.rules import Rules

__all__ = [
    "AUCTION_DEALS",
    "GUIDANCE_CHUNK_SIZE",
    "Guidance",
    "Runs",
    "Stored",
    "auction_tables",
    "guidance",
    "guidance_folder",
    "hand_tables",
    "report_path",
]

#: Most deals played in auction mode: the contract table settles long before the guidance run.
AUCTION_DEALS: Final = 200_000
#: Deals per chunk of the guidance run: the ``guidance`` command's default, so that the two
#: commands share one run folder.
GUIDANCE_CHUNK_SIZE: Final = 50_000
_CACHE_FORMAT: Final = 1


def report_path(
    rules_name: str, bots: Sequence[str], deals: int, out_dir: str | os.PathLike[str] = "reports"
) -> Path:
    """Where the report of ``rules_name``, ``bots`` and ``deals`` is written.

    >>> report_path("fft-4", ("random",) * 4, 1_000_000).as_posix()
    'reports/strategy-fft-4-random-1000000.html'
    """
    return Path(out_dir) / f"strategy-{rules_name}-{bots_label(bots)}-{deals}.html"


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
    return Path(data_dir) / f"guidance-{rules_name}-{bots_label(bots)}-seed{seed}-{deals}"


# --- Small tables kept as JSON, reused when their run matches ----------------------------------


def _frame_to_json(frame: pd.DataFrame) -> dict[str, Any]:
    """A table with a one-level index, column by column with its dtype, losslessly."""
    data: dict[str, Any] = {
        "index": {
            "name": frame.index.name,
            "dtype": str(frame.index.dtype),
            "values": [json_value(v) for v in frame.index],
        },
        "columns": [
            {
                "name": name,
                "dtype": str(frame[name].dtype),
                "values": [json_value(v) for v in frame[name]],
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
class Stored:
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
) -> Stored:
    """The tables stored at ``path`` if their metadata is ``metadata``; else computed and stored.

    A file that cannot be read, of another format or of another run is computed again and
    replaced: it is a cache of numbers the seed decides, not a record of its own.
    """
    wanted = json.loads(json.dumps(metadata))  # tuples as lists, as they read back
    if path.exists():
        try:
            found = read_json(path, "stored tables", limit=TABLES_BYTES)
            if found.get("format") == _CACHE_FORMAT and _same_run(found["metadata"], wanted):
                tables = {name: _frame_from_json(t) for name, t in found["tables"].items()}
                return Stored(path, found["metadata"], tables, found.get("extra", {}), True)
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
    write_text(path, json.dumps(stored, indent=1))  # atomic: a reader sees the old or the new
    return Stored(path, stored["metadata"], tables, extra, False)


@dataclass(frozen=True)
class Runs:
    """Where the report's runs are stored, and what runs their chunks."""

    data_dir: Path
    threads: int | None
    client: Any  # a Dask client, or None for local threads
    progress: bool

    def options(self) -> dict[str, Any]:
        """The keyword arguments every runner takes for its chunks."""
        return {"threads": self.threads, "client": self.client, "progress": self.progress}


def hand_tables(rules: Rules, deals: int, seed: int, runs: Runs) -> Stored:
    """Hand statistics of ``deals`` deals, from ``data_dir`` when that run is stored there."""
    from tarot_analysis._jit import normalise_seed
    from tarot_analysis.deals.deal import DEFAULT_CHUNK_SIZE
    from tarot_analysis.deals.hand_stats import run_hands
    from tarot_analysis.runs.simulate import run_metadata

    metadata = run_metadata(rules, normalise_seed(seed), DEFAULT_CHUNK_SIZE, deals)

    def compute() -> tuple[dict[str, pd.DataFrame], dict[str, Any]]:
        stats = run_hands(rules, deals, seed, chunk_size=DEFAULT_CHUNK_SIZE, **runs.options())
        return stats.tables(), {}

    path = runs.data_dir / f"hands-{rules.name}-seed{seed}-{deals}.json"
    return _stored_tables(path, metadata, compute)


def auction_tables(
    rules: Rules, deals: int, bots: tuple[str, ...], seed: int, runs: Runs
) -> Stored:
    """Contracts bid and made in auction mode, from ``data_dir`` when that run is stored there.

    The table is that of ``PlayResult.contracts``, plus the share of played deals taken in each
    contract (Wilson interval) and a 95% interval on the taker's mean score.
    """
    from tarot_analysis._jit import normalise_seed
    from tarot_analysis.deals.deal import DEFAULT_CHUNK_SIZE
    from tarot_analysis.runs.simulate import run_metadata
    from tarot_analysis.stats import wilson_interval
    from tarot_analysis.table.play import play

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

    name = f"contracts-{rules.name}-{bots_label(bots)}-seed{seed}-{deals}.json"
    return _stored_tables(runs.data_dir / name, metadata, compute)


# --- Guidance --------------------------------------------------------------------------------


@dataclass
class Guidance:
    """The guidance run and every table the report draws from it."""

    data: GuidanceData
    folder: Path
    tables: dict[str, pd.DataFrame]
    comparison: dict[str, Any]
    computed: int
    resumed: int
    last: GuidanceData  # the same deals, the last seat advised


def guidance(rules: Rules, deals: int, bots: tuple[str, ...], seed: int, runs: Runs) -> Guidance:
    from tarot_analysis.analyses.guidance import (
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
    from tarot_analysis.runs.progress import SCORING, step

    tables = guidance_tables(data, progress=runs.progress)
    with step(SCORING, runs.progress, detail=f"{rules.name}, seat 0 beside seat {last.seat}"):
        tables["by_seat"] = seat_comparison(data, last)
    contract = "garde" if "garde" in data.contracts else data.contracts[0]
    comparison = compare_evaluators(data, contract, progress=runs.progress)
    run = data.run
    return Guidance(
        data=data,
        folder=folder,
        tables=tables,
        comparison=comparison,
        computed=run.computed if run is not None else 0,
        resumed=run.resumed if run is not None else 0,
        last=last,
    )
