"""The ``compare`` command: rule variants (or bots) played on the same deals, side by side."""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from tarot_analysis.analyses.compare import MODES, compare_variants, format_report
from tarot_analysis.cli.arguments import add_bots_option, number_of_deals, positive, seed
from tarot_analysis.cli.commands import seated
from tarot_analysis.errors import TarotInputError
from tarot_analysis.runs.cluster import add_cluster_options

# What the command runs (the rules, the cluster's client) is imported inside the function that
# runs it, as in every command module (tarot_analysis.cli.commands says why).

__all__ = ["add_parser", "run"]


def add_parser(subparsers: Any) -> None:
    """Add the ``compare`` command to the subcommands of the ``tarot-analysis`` parser, with
    :func:`run` as its handler (as :mod:`tarot_analysis.cli.commands` describes).

    ``subparsers`` is what ``ArgumentParser.add_subparsers`` returned.
    """
    compare = subparsers.add_parser(
        "compare",
        help="compare rule variants on the same deals: contracts, poignées, redeals",
        description=(
            "Play the same deals under several rule variants (presets or TOML files) and "
            "compare each with the first. Variants with the first one's players, cards each "
            "and dog get exactly the same deals and are compared deal by deal (paired); the "
            "others side by side. A Tarocco variant gives hand statistics only."
        ),
    )
    compare.add_argument(
        "variants", nargs="+", metavar="RULES",
        help="preset names or TOML files, the baseline first (at least two)",
    )  # fmt: skip
    compare.add_argument(
        "--deals", type=number_of_deals, default=100_000, help="deals per variant (default 100,000)"
    )
    compare.add_argument("--seed", type=seed, default=1, help="random seed (default 1)")
    add_bots_option(compare)
    add_bots_option(
        compare, "--compare-bots", default=None,
        help="compare bots instead of rules, on one preset: each bot at every seat, the "
        "same deals, the first the baseline (e.g. --compare-bots heuristic pimc)",
    )  # fmt: skip
    compare.add_argument(
        "--mode", choices=MODES, default="counterfactual",
        help="counterfactual: seat 0 takes every contract on every deal and nobody bids, what "
        "a rule does to the play alone (default); auction: the bots bid under each variant's "
        "rules, each contract's rates over the deals where it was bid",
    )  # fmt: skip
    compare.add_argument(
        "--threads", type=positive, default=None, help="threads (default: every core)"
    )
    compare.add_argument(
        "--json", action="store_true", help="print one JSON object instead of tables"
    )
    compare.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_cluster_options(compare)
    compare.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``tarot-analysis compare``: print the report (or the JSON); return the exit status.

    User mistakes raise :class:`~tarot_analysis.errors.TarotInputError`.
    """
    from tarot_analysis.game.rules import load_rules
    from tarot_analysis.runs.cluster import dask_client

    if len(args.variants) < 2 and not args.compare_bots:
        raise TarotInputError(
            f"compare needs at least two variants, the baseline first (got only "
            f"{args.variants[0]!r}); e.g. tarot-analysis compare fft-4 legacy-4"
        )
    # Every rules file is read before anything is dealt: a bad one fails at once.
    rules_list = [load_rules(name) for name in args.variants]
    # The same default bot for every variant that plays (Tarocco's give hand statistics only),
    # so that the rules alone differ.
    note = seated(args, *(rules for rules in rules_list if rules.tarocco is None))
    bots: str | list[str] = args.bots[0] if len(args.bots) == 1 else list(args.bots)
    started = time.perf_counter()
    with dask_client(args.scheduler, args.workers) as client:
        comparison = compare_variants(
            rules_list, args.deals, bots=bots, seed=args.seed, threads=args.threads,
            mode=args.mode, progress=not (args.no_progress or args.json), client=client,
            compare_bots=args.compare_bots or (),
        )  # fmt: skip
    elapsed = time.perf_counter() - started
    if args.json:
        print(json.dumps(comparison.to_json() | {"seconds": round(elapsed, 3)}, indent=2))
        return 0
    print(format_report(comparison, elapsed, bots_note="" if args.compare_bots else note))
    return 0
