"""The ``hands`` command: every hand statistic of a preset, simulated beside its exact value."""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import pandas as pd

from tarot_analysis import __version__
from tarot_analysis.cli.arguments import add_run_options
from tarot_analysis.errors import TarotInputError
from tarot_analysis.runs.cluster import add_cluster_options, dask_client

# What the command runs is imported inside the functions that run it, not here: that keeps
# `tarot-analysis --help` and a mistake in the arguments quick (see tarot_analysis.cli.commands).


def add_parser(subparsers: Any) -> None:
    """Add ``hands`` to the subcommands of the command line."""
    hands = subparsers.add_parser(
        "hands",
        help="hand statistics of a preset, simulated beside their exact values",
        description="Deal many times and compare every hand statistic with its exact value.",
    )
    add_run_options(hands, deals=1_000_000)
    hands.add_argument("--out", help="save every hand's features to this Parquet file")
    hands.add_argument(
        "--no-rows", action="store_true",
        help="keep no per-hand rows, only the tables (the default unless --out is given)",
    )  # fmt: skip
    add_cluster_options(hands)
    hands.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``tarot-analysis hands``: the tables of hand statistics, or their JSON."""
    from tarot_analysis.game.rules import load_rules

    rules = load_rules(args.rules)  # before the compiled core loads: a bad file fails at once

    from tarot_analysis.deals.deal import DEFAULT_CHUNK_SIZE
    from tarot_analysis.deals.hand_stats import run_hands

    if args.no_rows and args.out:
        raise TarotInputError("--out saves one row per hand; --no-rows keeps none: choose one")
    chunk_size = args.chunk_size or DEFAULT_CHUNK_SIZE
    started = time.perf_counter()
    with dask_client(args.scheduler, args.workers) as client:
        stats = run_hands(
            rules, args.deals, args.seed, chunk_size=chunk_size, threads=args.threads,
            progress=not (args.no_progress or args.json), out=args.out, client=client,
        )  # fmt: skip
    elapsed = time.perf_counter() - started
    if args.json:
        result = stats.to_json()
        result["seconds"] = round(elapsed, 3)
        if args.out:
            result["out"] = args.out
        print(json.dumps(result, indent=2))
        return 0
    print(_hands_report(stats, elapsed, args.out))
    return 0


def _hands_report(stats: Any, elapsed: float, out: str | None) -> str:
    from tarot_analysis.runs.progress import speed

    rules = stats.rules
    header = [
        f"Hand statistics — rules {rules.name}, {stats.deals:,} deals, seed "
        f"{stats.metadata['seed']}, chunks of {stats.chunk_size:,}, tarot-analysis {__version__}",
        f"{speed(stats.deals, elapsed)} ({elapsed:.2f} s). Rates pool the "
        f"{rules.players} seats (n = deals × {rules.players}); intervals are Wilson 95%.",
    ]
    if out:
        header.append(f"Per-hand features saved to {out}")
    sections = ["\n".join(header)]
    for name, table in stats.tables().items():
        sections.append(_format_table(table, TITLES.get(name, name)))
    return "\n\n".join(sections)


def _format_table(table: pd.DataFrame, title: str) -> str:
    shown = pd.DataFrame(index=table.index)
    if "per" in table:
        shown["per"] = table["per"]
    if "trumps_with_excuse" in table:
        shown["trumps+E"] = table["trumps_with_excuse"]
    shown["n"] = table["n"].map("{:,}".format)
    shown["count"] = table["count"].map("{:,}".format)
    shown["simulated"] = table["simulated"].map(_rate)
    shown["95% interval"] = [
        f"{_rate(lo)} – {_rate(hi)}"
        for lo, hi in zip(table["ci_low"], table["ci_high"], strict=True)
    ]
    shown["exact"] = table["exact"].map(_rate)
    lines = [title, shown.to_string()]
    gof = table.attrs.get("gof")
    if gof is not None:
        who = "the dog" if table.attrs.get("who") == "dog" else "seat 0"
        lines.append(
            f"chi-square vs exact ({who}): {gof.statistic:.2f} on {gof.dof} df, "
            f"p = {gof.p_value:.3g}"
        )
    return "\n".join(lines)


def _rate(value: Any) -> str:
    if pd.isna(value):
        return "—"
    return f"{value:.6f}" if value >= 1e-4 or value == 0 else f"{value:.3e}"


TITLES = {
    "bouts": "Bouts per hand",
    "trumps": "Trumps per hand (Excuse not counted)",
    "kings": "Kings per hand",
    "voids": "Voids per hand",
    "singletons": "Singletons per hand",
    "longest_suit": "Longest suit per hand",
    "poignee": "Poignée: a hand holding at least each level, and a deal where someone does",
    "petit_sec": "Petit sec: per hand, and per deal (the deal is void)",
    "points": "Card points per hand",
    "dog_bouts": "Bouts in the dog",
}
