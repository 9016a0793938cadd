"""The ``train`` command: an action-in network trained on lessons, streamed."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from tarot_analysis.cli.arguments import add_anchor_options, fraction, non_negative, positive, seed

# What the command runs is imported inside the functions that run it, not here: that keeps
# `tarot-analysis --help` and a mistake in the arguments quick (see tarot_analysis.cli.commands).


def add_parser(subparsers: Any) -> None:
    """Add ``train`` to the subcommands of the command line."""
    train = subparsers.add_parser(
        "train",
        help="train a network on the search bot's decisions: held-out loss, matches and regret",
        description=(
            "Train an action-in network on a run of lessons (teach's, or a round of "
            "selfplay's) to predict each legal action's value: a trunk over the state, a head "
            "that scores each legal action from the state and the action's features. The "
            "lessons are streamed through a shuffle buffer, so memory does not grow with them; "
            "whole deals are held out and the report gives the loss, how often it takes the "
            "search's action and the points it loses a decision. Needs the train extra (JAX, "
            "optax)."
        ),
    )
    train.add_argument(
        "data", metavar="DATA_FOLDER", nargs="+",
        help="the run folder of the lessons (one; the same folder spelt twice is read once)",
    )  # fmt: skip
    train.add_argument("--out", required=True, metavar="MODEL.npz", help="the model file to write")
    train.add_argument(
        "--epochs", type=positive, default=2, help="passes over the lessons (default 2)"
    )
    train.add_argument("--seed", type=seed, default=1, help="random seed (default 1)")
    train.add_argument(
        "--holdout", type=fraction, default=0.1,
        help="the fraction of the deals held out to measure the network (default 0.1)",
    )  # fmt: skip
    train.add_argument(
        "--choice-weight", type=non_negative, default=0.0, metavar="W",
        help="add W times the cross-entropy of the search's choice to the loss (default 0)",
    )  # fmt: skip
    train.add_argument(
        "--trunk", type=positive, nargs="+", default=[256, 128], metavar="WIDTH",
        help="the widths of the trunk's layers, over the state (default 256 128)",
    )  # fmt: skip
    train.add_argument(
        "--head", type=seed, nargs="+", default=[64], metavar="WIDTH",
        help="the widths of the head's hidden layers, over the state and an action's features "
        "(default 64; 0: none, one layer to the score)",
    )  # fmt: skip
    train.add_argument(
        "--buffer", type=positive, default=50_000, metavar="DECISIONS",
        help="decisions in the shuffle buffer (default 50,000)",
    )  # fmt: skip
    train.add_argument(
        "--steps", type=positive, default=None,
        help="stop after this many steps of the optimiser (batches of 256 decisions)",
    )  # fmt: skip
    train.add_argument(
        "--chunks", type=positive, default=None,
        help="train on the run's first N chunks only (a run still going on)",
    )  # fmt: skip
    train.add_argument(
        "--learning-rate", type=non_negative, default=1e-3, metavar="RATE",
        help="Adam's learning rate (default 0.001)",
    )  # fmt: skip
    train.add_argument(
        "--start", metavar="MODEL.npz", default=None,
        help="start from this action-in network's weights (its layers replace --trunk and "
        "--head), as a round of self-play does",
    )  # fmt: skip
    add_anchor_options(train)
    train.add_argument(
        "--decides", nargs="+", default=["bid", "call", "poignee", "card"], metavar="DECISION",
        help="the decisions the bot takes with the network (default bid call poignee card)",
    )  # fmt: skip
    train.add_argument("--no-progress", action="store_true", help="no progress bar")
    train.add_argument("--json", action="store_true", help="print the report as one JSON object")
    train.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``tarot-analysis train``: train an action-in network on one folder of lessons,
    streamed; write it, print its report."""
    from tarot_analysis.errors import TarotInputError
    from tarot_analysis.learning.streaming import StreamingOptions, lesson_chunks, train_streaming
    from tarot_analysis.runs.simulate import check_output_path

    args.kept = f"nothing was written to {args.out}: the model is written once trained"
    folders = list({Path(one).resolve(): one for one in args.data}.values())  # each once
    if len(folders) != 1:
        raise TarotInputError(f"a network trains on one folder of lessons, got {len(folders)}")
    folder = folders[0]
    spec, _ = lesson_chunks(folder, args.chunks)  # the folder checked before any work
    check_output_path(Path(args.out))
    head = tuple(w for w in args.head if w > 0)
    options = StreamingOptions(
        trunk=tuple(args.trunk), head=head, epochs=args.epochs, seed=args.seed,
        holdout=args.holdout, learning_rate=args.learning_rate, choice_weight=args.choice_weight,
        buffer=args.buffer, chunks=args.chunks, steps=args.steps, decides=tuple(args.decides),
        start=args.start, anchor=args.anchor, anchor_chunks=args.anchor_chunks,
    )  # fmt: skip
    report = train_streaming(
        folder, spec.rules, options, out=args.out, progress=not args.no_progress
    )
    report["out"] = str(args.out)
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(_report(report))
    return 0


def _report(report: dict[str, Any]) -> str:
    """The training's report for people: the lessons, the network, the held-out decisions."""
    trunk = " → ".join(str(w) for w in report["trunk"])
    head = " → ".join(str(w) for w in [*report["head"], 1])
    held = report["held_out"]
    lines = [
        f"{report['rules']}: {report['decisions_seen']:,} decisions seen in {report['steps']:,} "
        f"steps, {report['chunks']:,} chunks of {report['data']}, seed {report['seed']}",
        f"action-in network: trunk {trunk}, head (state + features) → {head}; "
        f"{report['epochs']} epochs, buffer {report['buffer']:,}",
        f"model written to {report['out']}",
    ]
    if not held.get("rows"):
        lines.append("held out: no decision")
        return "\n".join(lines)
    if "regret" not in held:
        lines += [
            f"held out: {held['rows']:,} decisions of self-play, loss {held['loss']:.4f}, the "
            f"action taken {held['match_rate']:.1%}",
            "loss: squared error of the score that followed the action taken, in hundreds of "
            "points",
        ]
        return "\n".join(lines)
    regret = held["regret"]
    interval = (
        f"{regret['mean']:.2f} ({regret['ci_low']:.2f} to {regret['ci_high']:.2f})"
        if regret["ci_low"] is not None
        else f"{regret['mean']:.2f}"
    )
    lines += [
        f"held out: {held['rows']:,} decisions, loss {held['loss']:.4f}, the search's action "
        f"{held['match_rate']:.1%}, points lost a decision {interval} (95% by deal)",
        "loss: squared error of the legal actions' advantages, in hundreds of points",
    ]
    return "\n".join(lines)
