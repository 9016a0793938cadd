"""The ``train`` command: a network trained on the search bot's decisions."""

from __future__ import annotations

import argparse
import json
from typing import Any

from tarot_analysis.cli.arguments import fraction, non_negative, positive, seed

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
            "takes the search's action and its regret. Needs the train extra (JAX, optax)."
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
    train.add_argument("--epochs", type=seed, default=20, help="passes over the data (default 20)")
    train.add_argument("--seed", type=seed, default=1, help="random seed (default 1)")
    train.add_argument(
        "--holdout", type=fraction, default=0.1,
        help="the fraction of the deals held out to measure the network (default 0.1)",
    )  # fmt: skip
    train.add_argument(
        "--choice-weight", type=non_negative, default=0.0, metavar="W",
        help="add W times the cross-entropy of the search's choice to the loss (default 0)",
    )  # fmt: skip
    train.add_argument("--no-progress", action="store_true", help="no progress bar")
    train.add_argument("--json", action="store_true", help="print the report as one JSON object")
    train.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``tarot-analysis train``: train the network, write it, print its report."""
    from tarot_analysis.learning.training import train_folder

    report = train_folder(
        args.data, args.out, hidden=tuple(args.hidden), epochs=args.epochs, seed=args.seed,
        holdout=args.holdout, choice_weight=args.choice_weight, progress=not args.no_progress,
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
