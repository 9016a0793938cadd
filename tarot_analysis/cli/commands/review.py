"""The ``review`` command: a played deal's every decision valued, where its points were lost,
and what would have happened with another action."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from tarot_analysis.cli.arguments import positive, positive_seconds, seed
from tarot_analysis.cli.commands import bots_argument

# What the command runs is imported inside the functions that run it, not here: that keeps
# `tarot-analysis --help` and a mistake in the arguments quick (see tarot_analysis.cli.commands).


def add_parser(subparsers: Any) -> None:
    """Add ``review`` to the subcommands of the command line."""
    review = subparsers.add_parser(
        "review",
        help="review a played deal: each decision's value, the points lost, what if",
        description=(
            "Review a played deal (a TOML game record, or the JSON of 'replay --json'): every "
            "decision valued by the search over the worlds its seat could not tell apart, the "
            "points the action taken lost, and with --time-limit the same with every card seen."
        ),
    )
    review.add_argument("game", metavar="GAME", help="the game record: a .toml or .json file")
    review.add_argument(
        "--seat", type=int, nargs="+", default=None, metavar="S",
        help="review these seats' decisions only (default every seat)",
    )  # fmt: skip
    review.add_argument(
        "--worlds", type=positive, default=128,
        help="worlds the search draws a decision (default 128)",
    )  # fmt: skip
    review.add_argument("--seed", type=seed, default=1, help="random seed (default 1)")
    review.add_argument(
        "--time-limit", type=positive_seconds, default=None, metavar="SECONDS",
        help="add the double-dummy column: each solve stopped at SECONDS with what it proved",
    )  # fmt: skip
    review.add_argument(
        "--from", dest="from_", default=None, metavar="WHERE",
        help="what if: the decision to replace, T.S (trick T, seat S) or bid.S, call, ecart",
    )  # fmt: skip
    review.add_argument(
        "--play", default=None, metavar="ACTION",
        help="what if: the action taken instead (a card, a bid, an écart's cards)",
    )  # fmt: skip
    review.add_argument(
        "--bots", nargs="+", default=["heuristic"], metavar="BOT",
        help="what if: the bots that play the rest of the deal (default heuristic)",
    )  # fmt: skip
    review.add_argument(
        "--html", default=None, metavar="FILE",
        help="also write the review as one self-contained HTML page",
    )  # fmt: skip
    review.add_argument("--no-progress", action="store_true", help="no progress bar")
    review.add_argument("--json", action="store_true", help="print one JSON object")
    review.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``tarot-analysis review``: the review of a deal, or a what-if."""
    from tarot_analysis.errors import TarotInputError

    if (args.from_ is None) != (args.play is None):
        raise TarotInputError("--from and --play go together: the decision, then the action")
    from tarot_analysis.analyses.review.record import read_record

    record = read_record(args.game)
    if args.html is not None:
        from tarot_analysis.runs.simulate import check_output_path

        check_output_path(Path(args.html))
    if args.from_ is not None:
        return _what_if(args, record)
    return _review(args, record)


def _review(args: argparse.Namespace, record: Any) -> int:
    from tarot_analysis.analyses.review.deal import review
    from tarot_analysis.analyses.review.text import describe
    from tarot_analysis.runs.progress import bar

    with bar(
        "reviewing", None, unit="decision", enabled=not (args.no_progress or args.json),
        detail=f"{record.rules.name}, {args.worlds} worlds a decision",
    ) as shown:  # fmt: skip

        def progress(done: int, total: int) -> None:
            shown.total = total
            shown.update(1)

        done = review(
            record, worlds=args.worlds, seed=args.seed, seats=args.seat,
            time_limit=args.time_limit, progress=progress,
        )  # fmt: skip
    if args.html is not None:
        from tarot_analysis.report.review_page import write_review_page

        write_review_page(args.html, done)
    if args.json:
        print(json.dumps(done.to_json(), ensure_ascii=False))
    else:
        print(describe(done))
        if args.html is not None:
            print(f"Wrote {args.html}")
    return 0


def _what_if(args: argparse.Namespace, record: Any) -> int:
    from tarot_analysis.analyses.review.what_if import describe_what_if, what_if

    result = what_if(record, args.from_, args.play, bots=bots_argument(args.bots), seed=args.seed)
    if args.json:
        print(json.dumps(result.to_json(), ensure_ascii=False))
    else:
        print(describe_what_if(result))
    return 0
