"""The ``report`` command: its options, and what it prints."""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from typing import Any

from tarot_analysis.cli.arguments import add_bots_option, number_of_deals, positive, seed
from tarot_analysis.errors import TarotInputError
from tarot_analysis.runs.cluster import add_cluster_options, dask_client
from tarot_analysis.runs.progress import LOADING, step

# The report itself (its sections, pandas, scipy, the compiled core) is imported inside run,
# once the command has said its first line: loading it takes seconds.

__all__ = ["add_parser", "run"]

#: The most deals the report plays in auction mode (``AUCTION_DEALS`` of
#: :mod:`tarot_analysis.report.runs`, which a test checks), for --help without the report.
AUCTION_DEALS_SAID = 200_000


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``report`` command to the subparsers of the ``tarot-analysis`` command line,
    with :func:`run` as its handler."""
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
        "--deals", type=number_of_deals, default=1_000_000,
        help=f"deals (default 1,000,000; at most {AUCTION_DEALS_SAID:,} in auction mode)",
    )  # fmt: skip
    add_bots_option(report)
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
    report.set_defaults(handler=run)
    return report


def run(args: argparse.Namespace) -> int:
    """Run ``tarot-analysis report``: build the report, print its path and how long it took."""
    args.kept = f"the runs finished so far are kept in {args.data}; the same command goes on"
    started = time.perf_counter()
    from tarot_analysis.game.rules import load_rules

    load_rules(args.rules)  # a rules file that is none is refused before anything loads
    with step(LOADING, not args.no_progress, detail="the report's modules"):
        from tarot_analysis.report.build import build_report
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
