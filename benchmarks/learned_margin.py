"""The learned bot's margin: how much gain its network must predict to overrule the heuristic.

    python benchmarks/learned_margin.py --rules fft-4 --model MODEL.npz [--decisions card] \\
        [--margins 0 25 50 75 100] [--deals 4000] [--seed 1] \\
        [--check-deals 20000] [--check-seed 2] [--out MODEL_WITH_MARGIN.npz] [--json]

The action-in network of ``--model`` takes the ``--decisions`` (bid, call, poignee, card)
besides those the model already takes, with one margin for them; the others keep theirs
(``defence``: the margin of its cards at a seat of the side that did not take; 10000, the
heuristic defends). For each margin (points), the bot ``learned:MODEL`` with that margin plays
a duplicate match against the heuristic on the deals of ``--seed``. The margin of the highest
edge is chosen; its runner-up and their difference, deal by deal on the same deals, are
printed beside it (a difference whose interval reaches 0 is a tie). The chosen margin is then
played again on other deals (``--check-seed``): a rule chosen on some deals is scored on
others. ``--out`` writes the model with the chosen margin in its metadata, and how it was
chosen.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from tarot_analysis import __version__
from tarot_analysis.bots.learned import LEARNABLE, load_model
from tarot_analysis.learning.streaming import load_action_in, save_action_in
from tarot_analysis.table.duplicate import duplicate, mean_interval

#: Metadata a model file writes itself; the rest is the training's, kept as it is.
_WRITTEN = ("kind", "format", "players", "encoding_version", "encoding_size", "widths")


def with_margin(
    model: str, rules: str, decisions: list[str], margin: float, out: Path, chosen: dict[str, Any]
) -> Path:
    """``model`` written again to ``out`` taking ``decisions`` too, with ``margin`` for them
    (and how it was chosen)."""
    loaded = load_model(model, rules)
    meta = {k: v for k, v in loaded.metadata.items() if k not in _WRITTEN}
    margins = meta.get("margins", {}) | dict.fromkeys(decisions, margin)
    choices = meta.get("margin_choices", {}) | ({"+".join(decisions): chosen} if chosen else {})
    taken = {*loaded.decides, *(name for name in decisions if name in LEARNABLE)}
    meta |= {"decides": sorted(taken), "margins": margins, "margin_choices": choices}
    params, _ = load_action_in(model, rules)  # its layers as they are, the metadata anew
    return save_action_in(out, params, meta)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rules", default="fft-4")
    parser.add_argument("--model", required=True)
    parser.add_argument("--decisions", nargs="+", default=["card"])
    parser.add_argument("--margins", nargs="+", type=float, default=[0, 25, 50, 75, 100])
    parser.add_argument("--deals", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--check-deals", type=int, default=20000)
    parser.add_argument("--check-seed", type=int, default=2)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--out", default=None)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    rows = []
    per_deal = {}
    with tempfile.TemporaryDirectory() as folder:
        for margin in args.margins:
            path = with_margin(
                args.model, args.rules, args.decisions, margin, Path(folder) / "m.npz", {}
            )
            match = duplicate(
                args.rules, args.deals, f"learned:{path}", "heuristic", seed=args.seed,
                threads=args.threads, keep_per_deal=True,
            )  # fmt: skip
            per_deal[margin] = np.array(match.per_deal)
            rows.append({"margin": margin, "edge": match.mean_diff, "low": match.ci_low,
                         "high": match.ci_high, "seconds": match.seconds})  # fmt: skip
        ranked = sorted(rows, key=lambda row: -row["edge"])
        best, second = ranked[0], ranked[1] if len(ranked) > 1 else None
        difference = None
        if second is not None:
            mean, _, half = mean_interval(per_deal[best["margin"]] - per_deal[second["margin"]])
            difference = {"mean": mean, "low": mean - half, "high": mean + half,
                          "tie": mean - half <= 0 <= mean + half}  # fmt: skip
        path = with_margin(
            args.model, args.rules, args.decisions, best["margin"], Path(folder) / "b.npz", {}
        )
        check = duplicate(
            args.rules, args.check_deals, f"learned:{path}", "heuristic", seed=args.check_seed,
            threads=args.threads,
        )  # fmt: skip
    chosen = {
        "rules": args.rules, "decisions": args.decisions, "against": "heuristic",
        "deals": args.deals, "seed": args.seed,
        "margins": rows, "chosen": best["margin"], "runner_up": second and second["margin"],
        "difference": difference,
        "check": {"deals": args.check_deals, "seed": args.check_seed, "edge": check.mean_diff,
                  "low": check.ci_low, "high": check.ci_high},
        "version": __version__,
    }  # fmt: skip
    if args.out:
        with_margin(args.model, args.rules, args.decisions, best["margin"], Path(args.out), chosen)
    if args.json:
        print(json.dumps(chosen))
        return
    print(f"{args.rules}: learned:{args.model} taking {', '.join(args.decisions)} against the "
          f"heuristic, duplicate, {args.deals:,} deals of seed {args.seed}")  # fmt: skip
    print("| margin | edge per deal | 95% interval |")
    print("|---:|---:|---|")
    for row in rows:
        print(
            f"| {row['margin']:g} | {row['edge']:+.2f} | {row['low']:+.2f} to {row['high']:+.2f} |"
        )
    if difference is not None and second is not None:
        print(f"chosen {best['margin']:g}; runner-up {second['margin']:g}, difference "
              f"{difference['mean']:+.2f} ({difference['low']:+.2f} to {difference['high']:+.2f})"
              + (": a tie" if difference["tie"] else ""))  # fmt: skip
    print(f"on {args.check_deals:,} other deals (seed {args.check_seed}): {check.mean_diff:+.2f} "
          f"({check.ci_low:+.2f} to {check.ci_high:+.2f})")  # fmt: skip


if __name__ == "__main__":
    main()
