"""The ``train`` command: a network trained on the search bot's decisions."""

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
            "Train a multilayer perceptron on a run of the search bot's decisions to predict "
            "each legal action's value; hold out whole deals and report the loss, how often it "
            "takes the search's action and its regret. Lessons of format 2 (teach "
            "--lesson-format 2) train an action-in network, streamed through a shuffle buffer: "
            "a trunk over the state, a head that scores each legal action from the state and "
            "the action's features (--trunk, --head, --buffer, --steps, --chunks). Needs the "
            "train extra (JAX, optax)."
        ),
    )
    train.add_argument(
        "data", metavar="DATA_FOLDER", nargs="+",
        help="the run folders of the decisions (several: runs of one preset, other seeds)",
    )  # fmt: skip
    train.add_argument("--out", required=True, metavar="MODEL.npz", help="the model file to write")
    train.add_argument(
        "--hidden", type=positive, nargs="+", default=[256, 128], metavar="WIDTH",
        help="the widths of the hidden layers (default 256 128)",
    )  # fmt: skip
    train.add_argument(
        "--epochs", type=seed, default=None,
        help="passes over the data (default 20; an action-in network's: 2)",
    )  # fmt: skip
    train.add_argument("--seed", type=seed, default=1, help="random seed (default 1)")
    train.add_argument(
        "--holdout", type=fraction, default=0.1,
        help="the fraction of the deals held out to measure the network (default 0.1)",
    )  # fmt: skip
    train.add_argument(
        "--choice-weight", type=non_negative, default=0.0, metavar="W",
        help="add W times the cross-entropy of the search's choice to the loss (default 0)",
    )  # fmt: skip
    action_in = train.add_argument_group("an action-in network (lessons of format 2)")
    action_in.add_argument(
        "--trunk", type=positive, nargs="+", default=[256, 128], metavar="WIDTH",
        help="the widths of the trunk's layers, over the state (default 256 128)",
    )  # fmt: skip
    action_in.add_argument(
        "--head", type=seed, nargs="+", default=[64], metavar="WIDTH",
        help="the widths of the head's hidden layers, over the state and an action's features "
        "(default 64; 0: none, one layer to the score)",
    )  # fmt: skip
    action_in.add_argument(
        "--buffer", type=positive, default=50_000, metavar="DECISIONS",
        help="decisions in the shuffle buffer (default 50,000)",
    )  # fmt: skip
    action_in.add_argument(
        "--steps", type=positive, default=None,
        help="stop after this many steps of the optimiser (batches of 256 decisions)",
    )  # fmt: skip
    action_in.add_argument(
        "--chunks", type=positive, default=None,
        help="train on the run's first N chunks only (a run still going on)",
    )  # fmt: skip
    action_in.add_argument(
        "--learning-rate", type=non_negative, default=1e-3, metavar="RATE",
        help="Adam's learning rate (default 0.001)",
    )  # fmt: skip
    action_in.add_argument(
        "--start", metavar="MODEL.npz", default=None,
        help="start from this action-in network's weights (its layers replace --trunk and "
        "--head), as a round of self-play does",
    )  # fmt: skip
    add_anchor_options(action_in)
    action_in.add_argument(
        "--decides", nargs="+", default=["bid", "call", "poignee", "card"], metavar="DECISION",
        help="the decisions the bot takes with the network (default bid call poignee card)",
    )  # fmt: skip
    train.add_argument("--no-progress", action="store_true", help="no progress bar")
    train.add_argument("--json", action="store_true", help="print the report as one JSON object")
    train.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``tarot-analysis train``: train the network, write it, print its report."""
    from tarot_analysis.learning.streaming import lesson_format_of
    from tarot_analysis.learning.training import train_folder

    args.kept = f"nothing was written to {args.out}: the model is written once trained"
    if any(lesson_format_of(folder) == 2 for folder in args.data):
        return _run_action_in(args)
    report = train_folder(
        args.data, args.out, hidden=tuple(args.hidden), epochs=args.epochs or 20,
        seed=args.seed, holdout=args.holdout, choice_weight=args.choice_weight,
        progress=not args.no_progress,
    )  # fmt: skip
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(_train_report(report))
    return 0


def _train_report(report: dict[str, Any]) -> str:
    """The training's report for people: the data, the network, then each part's numbers."""
    widths = " → ".join(str(w) for w in report["widths"])
    lines = [
        f"{report['rules']}: {report['rows']:,} decisions of {report['deals']:,} deals "
        f"({report['skipped']:,} without values skipped), seed {report['seed']}",
        f"network {widths}, {report['epochs']} epochs, choice weight {report['choice_weight']}",
        f"model written to {report['out']}",
        "",
        f"{'':<10}{'decisions':>10}{'deals':>7}{'loss':>9}{'matches':>9}"
        f"{'regret (95% interval by deal)':>32}{'random':>8}",
    ]
    for name, part in (("training", report["train"]), ("held out", report["held_out"])):
        if not part["rows"]:
            lines.append(f"{name:<10}{0:>10}")
            continue
        regret = part["regret"]
        interval = (
            f"{regret['mean']:.2f} ({regret['ci_low']:.2f} to {regret['ci_high']:.2f})"
            if regret["ci_low"] is not None
            else f"{regret['mean']:.2f}"
        )
        lines.append(
            f"{name:<10}{part['rows']:>10,}{part['deals']:>7,}{part['loss']:>9.4f}"
            f"{part['match_rate']:>9.1%}{interval:>32}{part['random_regret']['mean']:>8.2f}"
        )
    lines += [
        "",
        "loss: squared error of the legal actions' advantages, in hundreds of points",
        "matches: the search's own action taken",
        "regret: points per decision below the search's best action, by the search's values",
        "random: the regret of a random legal action",
    ]
    return "\n".join(lines)


def _run_action_in(args: argparse.Namespace) -> int:
    """Train an action-in network on one folder of lessons of format 2, streamed."""
    from tarot_analysis.errors import TarotInputError
    from tarot_analysis.learning.streaming import StreamingOptions, lesson_chunks, train_streaming
    from tarot_analysis.runs.simulate import check_output_path

    folders = list({Path(one).resolve(): one for one in args.data}.values())  # each once
    if len(folders) != 1:
        raise TarotInputError(
            f"an action-in network trains on one folder of lessons of format 2, got {len(folders)}"
        )
    folder = folders[0]
    spec, _ = lesson_chunks(folder, args.chunks)  # the folder checked before any work
    check_output_path(Path(args.out))
    head = tuple(w for w in args.head if w > 0)
    options = StreamingOptions(
        trunk=tuple(args.trunk), head=head, epochs=args.epochs or 2, seed=args.seed,
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
    print(_action_in_report(report))
    return 0


def _action_in_report(report: dict[str, Any]) -> str:
    """An action-in network's training for people."""
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
