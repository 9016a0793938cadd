"""The ``replay`` command: one deal of a ``play`` run, trick by trick."""

from __future__ import annotations

import argparse
import json
from typing import Any

from tarot_analysis.cli.arguments import add_bots_option, positive, seed
from tarot_analysis.cli.commands import bots_argument, seated

# What the command runs is imported inside the functions that run it, not here: that keeps
# `tarot-analysis --help` and a mistake in the arguments quick (see tarot_analysis.cli.commands).


def add_parser(subparsers: Any) -> None:
    """Add ``replay`` to the subcommands of the command line."""
    replay = subparsers.add_parser(
        "replay",
        help="one deal trick by trick: hands, bids, dog, écart, tricks and score",
        description="Replay one deal of a 'play' run (same rules, seed, bots and chunk size).",
    )
    replay.add_argument("--rules", default="fft-4", help="preset name or TOML file (default fft-4)")
    replay.add_argument("--seed", type=seed, default=1, help="random seed (default 1)")
    replay.add_argument("--deal", type=seed, default=0, help="deal number, from 0 (default 0)")
    add_bots_option(
        replay,
        help="the bots of the play run: one for every seat, or one per seat (default: play's, "
        "learned where a model ships for the preset, else heuristic)",
    )
    replay.add_argument("--chunk-size", type=positive, default=None, help="as in the play run")
    replay.add_argument("--json", action="store_true", help="print the deal as one JSON object")
    replay.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``tarot-analysis replay``: one deal of a play run, as text or JSON."""
    from tarot_analysis.game.rules import load_rules

    rules = load_rules(args.rules)  # before the compiled core loads: a bad file fails fast
    seated(args, rules)  # the default bots of the play run
    from tarot_analysis.analyses.replay import describe, record
    from tarot_analysis.table.play import replay

    result = replay(
        rules, args.deal, bots=bots_argument(args.bots), seed=args.seed,
        chunk_size=args.chunk_size,
    )  # fmt: skip
    if args.json:
        print(json.dumps(record(result, deal_number=args.deal), indent=2))
    else:
        print(describe(result, deal_number=args.deal))
    return 0
