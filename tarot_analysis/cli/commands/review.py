"""The ``review`` command: a played deal's every decision valued, where its points were lost,
and what would have happened with another action."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Final

from tarot_analysis.cli.arguments import bot_name, number_of_deals, positive, positive_seconds, seed
from tarot_analysis.cli.commands import bots_argument
from tarot_analysis.runs.cluster import add_cluster_options, dask_client

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
            "points the action taken lost, and with --time-limit the same with every card seen. "
            "Without GAME, --deals N reviews the deals 'play --rules R --seed S --deals N --bots "
            "B' plays, stored as a run under --data, and tables where the bots lose most."
        ),
    )
    review.add_argument(
        "game", metavar="GAME", nargs="?", default=None,
        help="the game record: a .toml or .json file (or --deals for a play run's deals)",
    )  # fmt: skip
    review.add_argument(
        "--seat", type=int, nargs="+", default=None, metavar="S",
        help="review these seats' decisions only (default every seat)",
    )  # fmt: skip
    review.add_argument(
        "--worlds", type=positive, default=128,
        help="worlds the search draws a decision (default 128)",
    )  # fmt: skip
    review.add_argument(
        "--play-outs", choices=("heuristic", "learned"), default="heuristic",
        help="the bot that plays the search's worlds out (default heuristic; learned: the "
        "network shipped for the preset, slower)",
    )  # fmt: skip
    review.add_argument(
        "--deals", type=number_of_deals, default=None,
        help="review the first N deals of a play run (of --rules, --seed, --bots) instead of GAME",
    )  # fmt: skip
    review.add_argument(
        "--rules", default=None, help="with --deals: preset name or TOML file (default fft-4)"
    )
    review.add_argument(
        "--chunk-size", type=positive, default=None,
        help="with --deals: deals per chunk of the run (default 20)",
    )  # fmt: skip
    review.add_argument(
        "--threads", type=positive, default=None,
        help="with --deals: threads (default: every core)",
    )  # fmt: skip
    review.add_argument(
        "--data", default=None,
        help="with --deals: folder of the run's Parquet chunks (default under data/)",
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
        "--bots", nargs="+", type=bot_name, default=["heuristic"], metavar="BOT",
        help="what if: the bots that play the rest of the deal; with --deals: the bots of the "
        "play run, one for every seat or one a seat (default heuristic)",
    )  # fmt: skip
    review.add_argument(
        "--html", default=None, metavar="FILE",
        help="also write the review as one self-contained HTML page",
    )  # fmt: skip
    review.add_argument("--no-progress", action="store_true", help="no progress bar")
    review.add_argument("--json", action="store_true", help="print one JSON object")
    add_cluster_options(review)
    review.set_defaults(handler=run)


#: The options that belong to the review of one game record, not to a play run's deals.
_ONE_DEAL: Final = (
    ("seat", "--seat"), ("time_limit", "--time-limit"), ("from_", "--from"), ("play", "--play"),
    ("html", "--html"),
)  # fmt: skip
#: The options that belong to a play run's deals, not to a game record.
_MANY_DEALS: Final = (
    ("rules", "--rules"), ("chunk_size", "--chunk-size"), ("threads", "--threads"),
    ("data", "--data"), ("scheduler", "--scheduler"), ("workers", "--workers"),
)  # fmt: skip


def run(args: argparse.Namespace) -> int:
    """Run ``tarot-analysis review``: the review of a deal, or a what-if."""
    from tarot_analysis.errors import TarotInputError

    if args.game is not None and args.deals is not None:
        raise TarotInputError(
            "give a game record (GAME) or --deals N for a play run's deals, not both"
        )
    if args.game is None and args.deals is None:
        raise TarotInputError(
            "give a game record (GAME), or --deals N to review a play run's deals"
        )
    if args.deals is not None:
        given = [flag for name, flag in _ONE_DEAL if getattr(args, name) is not None]
        if given:
            raise TarotInputError(f"{', '.join(given)}: for a game record, not with --deals")
        return _review_deals(args)
    given = [flag for name, flag in _MANY_DEALS if getattr(args, name) is not None]
    if given:
        raise TarotInputError(f"{', '.join(given)}: with --deals, not for a game record")
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
            time_limit=args.time_limit, progress=progress, play_outs=args.play_outs,
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


def _review_deals(args: argparse.Namespace) -> int:
    """``review --deals N``: the deals of a play run reviewed into a run folder, then the
    tables of where the bots lose most."""
    import time

    from tarot_analysis.analyses.review.many import (
        DEFAULT_CHUNK_SIZE,
        describe_losses,
        loss_tables,
        losses_json,
        read_review_run,
        review_deals,
        review_folder,
        seated,
    )
    from tarot_analysis.game.rules import load_rules
    from tarot_analysis.runs.interrupts import raise_if_interrupted

    rules = load_rules(args.rules or "fft-4")
    names = seated(rules, args.bots)  # an unknown bot fails here, before anything is written
    if rules.tarocco is not None:
        from tarot_analysis.errors import TarotInputError

        raise TarotInputError(f"{rules.name}: a review of many deals is for the French presets")
    folder = args.data or review_folder(
        rules, names, args.seed, args.deals, args.worlds, args.play_outs
    )
    args.kept = f"the chunks finished so far are kept in {folder}; the same command goes on"
    started = time.perf_counter()
    with dask_client(args.scheduler, args.workers) as client:
        result = review_deals(
            rules, args.deals, folder, bots=names, worlds=args.worlds, seed=args.seed,
            play_outs=args.play_outs,
            chunk_size=args.chunk_size or DEFAULT_CHUNK_SIZE, threads=args.threads,
            progress=not (args.no_progress or args.json), client=client,
        )  # fmt: skip
    elapsed = time.perf_counter() - started
    run = read_review_run(folder)
    tables = loss_tables(run)
    raise_if_interrupted()  # a Ctrl-C dropped while the run was read: said, not printed over
    if args.json:
        print(json.dumps(
            losses_json(run, tables) | {
                "chunks": result.chunks, "computed": result.computed, "resumed": result.resumed,
                "seconds": round(elapsed, 3),
            }, ensure_ascii=False,
        ))  # fmt: skip
    else:
        print(describe_losses(run, tables))
        print(
            f"\nRows in {folder}: {result.computed} chunks computed, {result.resumed} kept from "
            f"an earlier run, {elapsed:.1f} s"
        )
    # Out while Ctrl-C is still the command's to answer: a Ctrl-C after it has nothing to cut.
    sys.stdout.flush()
    return 0
