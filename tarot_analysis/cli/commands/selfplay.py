"""The ``selfplay`` and ``rounds`` commands: rounds of improvement of an action-in network, on
lessons of its own play labelled by the deal's score (``selfplay``) or by the search over its
own play-outs (``rounds``)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from tarot_analysis.cli.arguments import (
    add_anchor_options,
    add_seating_options,
    bot_name,
    fraction,
    non_negative,
    number_of_deals,
    positive,
    seed,
    share,
)
from tarot_analysis.runs.cluster import add_cluster_options, dask_client

# What the command runs is imported inside the functions that run it, not here: that keeps
# `tarot-analysis --help` and a mistake in the arguments quick (see tarot_analysis.cli.commands).


def add_parser(subparsers: Any) -> None:
    """Add ``selfplay`` and ``rounds`` to the subcommands of the command line."""
    selfplay = subparsers.add_parser(
        "selfplay",
        help="rounds of self-play: a network plays itself, learns each deal's score, is measured",
        description=(
            "Improve an action-in network by rounds of self-play (Deep Monte-Carlo): in each "
            "round the network plays --deals deals against itself, taking a random legal "
            "action with probability --epsilon, and every decision is labelled with the seat's "
            "score for the deal; the network is trained on them from its own weights, streamed, "
            "then measured in duplicate against the network it started from and --against. "
            "Everything is kept under --out; the same command resumes where it stopped. Needs "
            "the train extra (JAX, optax)."
        ),
    )  # fmt: skip
    _add_options(selfplay, deals=200_000, chunk_size=5_000, epsilon=0.02)
    selfplay.set_defaults(handler=run, lessons="self-play")
    rounds = subparsers.add_parser(
        "rounds",
        help="rounds of policy iteration: the search over a network's own play-outs teaches it",
        description=(
            "Improve an action-in network by rounds of approximate policy iteration: in each "
            "round the network plays --deals deals (one seat a deal by each of --others in "
            "turn), taking a random legal action with probability --epsilon, and the search "
            "pimc:--worlds, whose worlds the same network plays out, values every legal action "
            "at a share of its decisions (--label-share); the network is trained on them from "
            "its own weights, then measured in duplicate against the network it started from "
            "and --against. Everything is kept under --out; the same command resumes where it "
            "stopped. Needs the train extra (JAX, optax)."
        ),
    )  # fmt: skip
    _add_options(rounds, deals=2_000, chunk_size=50, epsilon=0.02)
    rounds.add_argument(
        "--worlds", type=positive, default=8,
        help="worlds the search draws for each decision it values (default 8)",
    )  # fmt: skip
    rounds.add_argument(
        "--label-share", type=share, default=1.0, metavar="SHARE",
        help="the share of the network's decisions the search values (default 1: every one)",
    )  # fmt: skip
    rounds.add_argument(
        "--others", nargs="+", metavar="BOT", type=bot_name, default=(),
        help="bots that each play one seat of a deal in turn, so that the network meets "
        "opponents unlike itself (learned: the round's own network, for deals of its play "
        "alone; learned:MODEL.npz, an earlier network)",
    )  # fmt: skip
    add_seating_options(rounds, default=1)
    rounds.add_argument(
        "--weighed", action="store_true",
        help="the search's worlds also weighed by the cards the other seats played "
        "(pimc:W:weighed, about twice as slow)",
    )  # fmt: skip
    rounds.set_defaults(handler=run, lessons="search")


def _add_options(
    command: argparse.ArgumentParser, *, deals: int, chunk_size: int, epsilon: float
) -> None:
    """The options both kinds of rounds take, with their defaults."""
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
        "--deals", type=number_of_deals, default=deals, help=f"deals a round (default {deals:,})"
    )
    command.add_argument(
        "--epsilon", type=fraction, default=epsilon,
        help=f"the probability of a random legal action at a decision (default {epsilon:g})",
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
    command.add_argument(
        "--against", nargs="+", metavar="BOT", type=bot_name, default=("heuristic",),
        help="bots each round is measured against besides the network it started from "
        "(default heuristic)",
    )  # fmt: skip
    command.add_argument(
        "--search-measure-deals", type=number_of_deals, default=1_000, metavar="DEALS",
        help="duplicate deals against a bot of --against that searches, such as pimc, some "
        "hundred times slower (default 1,000)",
    )  # fmt: skip
    add_anchor_options(command)
    command.add_argument("--seed", type=seed, default=1, help="random seed (default 1)")
    command.add_argument(
        "--chunk-size", type=positive, default=chunk_size,
        help=f"deals a chunk (default {chunk_size:,})",
    )  # fmt: skip
    command.add_argument(
        "--threads", type=positive, default=None, help="threads (default: every core)"
    )
    command.add_argument("--json", action="store_true", help="print the rounds as one JSON object")
    command.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_cluster_options(command)


def run(args: argparse.Namespace) -> int:
    """Run ``tarot-analysis selfplay`` or ``rounds``: every round not yet finished, then their
    summary."""
    from tarot_analysis.game.rules import load_rules
    from tarot_analysis.learning.rounds import RoundOptions, improve
    from tarot_analysis.learning.streaming import StreamingOptions, check_anchor, load_action_in
    from tarot_analysis.runs.simulate import check_writable_folder

    rules = load_rules(args.rules)
    options = RoundOptions(
        deals=args.deals, epsilon=args.epsilon, chunk_size=args.chunk_size, epochs=args.epochs,
        buffer=args.buffer, learning_rate=args.learning_rate, measure_deals=args.measure_deals,
        seed=args.seed, anchor=args.anchor, anchor_chunks=args.anchor_chunks,
        lessons=args.lessons, against=tuple(args.against),
        search_measure_deals=args.search_measure_deals,
        **({
            "worlds": args.worlds, "label_share": args.label_share, "others": tuple(args.others),
            "other_seats": args.other_seats, "seated": not args.network_at_every_seat,
            "weighed": args.weighed,
        } if args.lessons == "search" else {}),
    )  # fmt: skip
    options.check(rules.players)
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
    """The rounds for people: each one's decisions trained on and its duplicate edges, the
    network before first, then each bot it was measured against."""
    measured = summaries[-1]["measured"]
    against = ["previous"] + [
        key.removeprefix("against_") for key in measured
        if key.startswith("against_") and key != "against_previous"
    ]  # fmt: skip
    titles = ["the round before" if name == "previous" else name for name in against]
    lines = [
        f"{rules}: rounds, each measured in duplicate against the network it started from and "
        f"{', '.join(titles[1:]) or 'nothing else'} (points a deal, 95% interval)",
        f"{'round':>5}  {'decisions':>11}  " + "  ".join(f"{title:>24}" for title in titles),
    ]
    for summary in summaries:
        edges = summary["measured"]
        shown = [
            f"{e['mean']:+.2f} ({e['low']:+.2f} to {e['high']:+.2f})"
            for e in (edges.get(f"against_{name}") for name in against) if e is not None
        ]  # fmt: skip
        verdict = "gained" if edges["gained"] else "no gain"
        lines.append(
            f"{summary['round']:>5}  {summary['training']['decisions_seen']:>11,}  "
            + "  ".join(f"{edge:>24}" for edge in shown)
            + f"  {verdict}"
        )
    last = summaries[-1]
    searched = [
        f"{measured[f'against_{name}']['deals']:,} against {name}" for name in against[1:]
        if measured[f"against_{name}"].get("deals", measured["deals"]) != measured["deals"]
    ]  # fmt: skip
    lines.append(
        f"{measured['deals']:,} duplicate deals of seed {measured['seed']}"
        + (f" ({', '.join(searched)})" if searched else "")
        + "; "
        f"the last round's network: {last['model']}"
    )
    return "\n".join(lines)
