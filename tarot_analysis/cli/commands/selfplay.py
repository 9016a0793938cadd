"""The ``selfplay`` command: rounds of self-play improvement of an action-in network."""

from __future__ import annotations

import argparse
import json
from typing import Any

from tarot_analysis.cli.arguments import (
    add_anchor_options,
    fraction,
    non_negative,
    number_of_deals,
    positive,
    seed,
)
from tarot_analysis.runs.cluster import add_cluster_options, dask_client

# What the command runs is imported inside the functions that run it, not here: that keeps
# `tarot-analysis --help` and a mistake in the arguments quick (see tarot_analysis.cli.commands).


def add_parser(subparsers: Any) -> None:
    """Add ``selfplay`` to the subcommands of the command line."""
    command = subparsers.add_parser(
        "selfplay",
        help="rounds of self-play: a network plays itself, learns each deal's score, is measured",
        description=(
            "Improve an action-in network by rounds of self-play (Deep Monte-Carlo): in each "
            "round the network plays --deals deals against itself, taking a random legal "
            "action with probability --epsilon, and every decision is labelled with the seat's "
            "score for the deal; the network is trained on them from its own weights, streamed, "
            "then measured in duplicate against the heuristic and against the network it "
            "started from. Everything is kept under --out; the same command resumes where it "
            "stopped. Needs the train extra (JAX, optax)."
        ),
    )  # fmt: skip
    command.add_argument(
        "--rules", default="fft-4", help="preset name or TOML file (default fft-4)"
    )
    command.add_argument(
        "--from", dest="start", required=True, metavar="MODEL.npz",
        help="the action-in network the first round starts from (train on teach's lessons)",
    )  # fmt: skip
    command.add_argument("--out", required=True, metavar="FOLDER", help="the rounds' folder")
    command.add_argument("--rounds", type=positive, default=1, help="rounds to run (default 1)")
    command.add_argument(
        "--deals", type=number_of_deals, default=200_000,
        help="self-play deals a round (default 200,000: about 11 million decisions in fft-4)",
    )  # fmt: skip
    command.add_argument(
        "--epsilon", type=fraction, default=0.02,
        help="the probability of a random legal action at a decision (default 0.02)",
    )  # fmt: skip
    command.add_argument(
        "--epochs", type=positive, default=1, help="passes over a round's lessons (default 1)"
    )
    command.add_argument(
        "--buffer", type=positive, default=200_000, metavar="DECISIONS",
        help="decisions in the shuffle buffer (default 200,000)",
    )  # fmt: skip
    command.add_argument(
        "--learning-rate", type=non_negative, default=3e-4, metavar="RATE",
        help="Adam's learning rate (default 0.0003)",
    )  # fmt: skip
    command.add_argument(
        "--measure-deals", type=number_of_deals, default=20_000,
        help="duplicate deals that measure each round (default 20,000)",
    )  # fmt: skip
    add_anchor_options(command)
    command.add_argument("--seed", type=seed, default=1, help="random seed (default 1)")
    command.add_argument(
        "--chunk-size", type=positive, default=5_000, help="self-play deals a chunk (default 5,000)"
    )
    command.add_argument(
        "--threads", type=positive, default=None, help="threads (default: every core)"
    )
    command.add_argument("--json", action="store_true", help="print the rounds as one JSON object")
    command.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_cluster_options(command)
    command.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``tarot-analysis selfplay``: every round not yet finished, then their summary."""
    from tarot_analysis.game.rules import load_rules
    from tarot_analysis.learning.rounds import RoundOptions, improve
    from tarot_analysis.learning.streaming import StreamingOptions, check_anchor, load_action_in
    from tarot_analysis.runs.simulate import check_writable_folder

    rules = load_rules(args.rules)
    options = RoundOptions(
        deals=args.deals, epsilon=args.epsilon, chunk_size=args.chunk_size, epochs=args.epochs,
        buffer=args.buffer, learning_rate=args.learning_rate, measure_deals=args.measure_deals,
        seed=args.seed, anchor=args.anchor, anchor_chunks=args.anchor_chunks,
    )  # fmt: skip
    options.check()
    load_action_in(args.start, rules.name)  # the network checked before any folder is made
    check_anchor(StreamingOptions(anchor=args.anchor, anchor_chunks=args.anchor_chunks), rules.name)
    check_writable_folder(args.out, " for the rounds")
    args.kept = f"the finished rounds and chunks are kept in {args.out}; the same command goes on"
    with dask_client(args.scheduler, args.workers) as client:
        summaries = improve(
            rules, args.start, args.out, args.rounds, options, threads=args.threads,
            progress=not (args.no_progress or args.json), client=client,
        )  # fmt: skip
    if args.json:
        print(json.dumps({"rules": rules.name, "rounds": summaries}, indent=2))
        return 0
    print(rounds_table(rules.name, summaries))
    return 0


def rounds_table(rules: str, summaries: list[dict[str, Any]]) -> str:
    """The rounds for people: each one's decisions trained on and its two duplicate edges."""
    lines = [
        f"{rules}: rounds of self-play, each measured in duplicate (points a deal, 95% interval)",
        f"{'round':>5}  {'decisions':>11}  {'against the heuristic':>24}  "
        f"{'against the round before':>26}",
    ]
    for summary in summaries:
        measured = summary["measured"]
        edges = [
            f"{e['mean']:+.2f} ({e['low']:+.2f} to {e['high']:+.2f})"
            for e in (measured["against_heuristic"], measured["against_previous"])
        ]
        verdict = "gained" if measured["gained"] else "no gain"
        lines.append(
            f"{summary['round']:>5}  {summary['training']['decisions_seen']:>11,}  "
            f"{edges[0]:>24}  {edges[1]:>26}  {verdict}"
        )
    last = summaries[-1]
    lines.append(
        f"{last['measured']['deals']:,} duplicate deals of seed {last['measured']['seed']}; "
        f"the last round's network: {last['model']}"
    )
    return "\n".join(lines)
