"""Points lost a decision on the yardstick: any bot's choices against a long search's values.

    python benchmarks/yardstick.py [--folder benchmarks/data/yardstick-fft-4] \\
        [--bots heuristic learned ...] [--networks MODEL.npz ...] [--json]

The yardstick (:mod:`tarot_analysis.learning.yardstick`) holds decisions of deals played by the
table's bots (the heuristic at every seat for the shipped one), each valued by the search
(``pimc:64``). For each bot (a name, as ``--bots`` of the command line) and each network file
(``--networks``: an action-in network's file, scored in NumPy as the training scores it), the
table gives by kind of decision the points a decision lost against the search's best action,
with a 95% interval in which deals are the independent units, how often it takes the best
action, and beside the heuristic its difference from the heuristic on the same decisions
(paired by decision, clustered by deal).

Build a yardstick of your own with :func:`~tarot_analysis.learning.yardstick.build_yardstick`
(a few hundred deals of ``pimc:64``: tens of minutes on two cores).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from tarot_analysis import __version__
from tarot_analysis.engine.action_features import FEATURE_SCALE
from tarot_analysis.engine.state import DECISIONS
from tarot_analysis.learning.yardstick import (
    Yardstick,
    points_lost,
    read_yardstick,
    yardstick_choices,
    yardstick_inputs,
)
from tarot_analysis.stats import deal_interval

DEFAULT = Path(__file__).resolve().parent / "data" / "yardstick-fft-4"


def network_choices(stick: Yardstick, path: str) -> npt.NDArray[np.int64]:
    """The legal action of highest score of the action-in network in ``path`` at each
    decision, in NumPy."""
    # imported here: a network's file is read only when one is measured
    from tarot_analysis.learning.streaming import load_action_in, scores

    encodings, features, actions = yardstick_inputs(stick)
    params, _ = load_action_in(path, stick.rules)
    score = scores(np, params, encodings, features.astype(np.float32) * FEATURE_SCALE)
    slots = np.where(actions >= 0, score, -np.inf).argmax(axis=1)
    return actions[np.arange(stick.rows), slots]


def lost_by_row(stick: Yardstick, choices: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
    """Each decision's points lost by ``choices``."""
    best = np.where(stick.legal, stick.values, -np.inf).max(axis=1)
    return (best - stick.values[np.arange(stick.rows), choices]).astype(np.float64)


def measure(stick: Yardstick, bots: list[str], networks: list[str]) -> list[dict[str, Any]]:
    """A row per chooser: its points lost by kind, and its difference from the heuristic."""
    heuristic = yardstick_choices(stick, "heuristic")
    base = lost_by_row(stick, heuristic)
    rows = []
    for name in ["heuristic", *bots, *networks]:
        start = time.perf_counter()
        if name == "heuristic":
            choices = heuristic
        elif name in networks:
            choices = network_choices(stick, name)
        else:
            choices = yardstick_choices(stick, name)
        seconds = time.perf_counter() - start
        difference = {}
        for kind in points_lost(stick, choices):
            picked = (
                np.arange(stick.rows) if kind == "all"
                else np.nonzero(stick.kinds == DECISIONS.index(kind))[0]
            )  # fmt: skip
            change = lost_by_row(stick, choices)[picked] - base[picked]
            paired = deal_interval(change, stick.deals[picked])
            difference[kind] = {k: (float(v) if v is not None else None) for k, v in paired.items()}
        rows.append({"chooser": name, "lost": points_lost(stick, choices),
                     "minus_heuristic": difference, "seconds": seconds})  # fmt: skip
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--folder", default=str(DEFAULT))
    parser.add_argument("--bots", nargs="*", default=["learned"])
    parser.add_argument("--networks", nargs="*", default=[])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    stick = read_yardstick(args.folder)
    rows = measure(stick, [b for b in args.bots if b != "heuristic"], args.networks)
    about = {
        "folder": args.folder, "rules": stick.rules, "played_by": list(stick.bots),
        "valued_by": stick.searcher, "decisions": stick.rows, "skipped": stick.skipped,
        "deals": len(np.unique(stick.deals)), "version": __version__,
    }  # fmt: skip
    if args.json:
        print(json.dumps({"yardstick": about, "rows": rows}))
        return
    print(f"{stick.rules}: {stick.rows:,} decisions of {about['deals']} deals played by "
          f"{', '.join(sorted(set(stick.bots)))}, valued by {stick.searcher}")  # fmt: skip
    print("| chooser | kind | decisions | points lost a decision (95% by deal) | takes the best "
          "| − heuristic (95%) |")  # fmt: skip
    print("|---|---|---:|---|---:|---|")
    for row in rows:
        for kind, part in row["lost"].items():
            if kind not in ("bid", "card", "all"):
                continue
            d = row["minus_heuristic"][kind]
            interval = (f"{part['mean']:.2f} ({part['ci_low']:.2f} to {part['ci_high']:.2f})"
                        if part["ci_low"] is not None else f"{part['mean']:.2f}")  # fmt: skip
            paired = (f"{d['mean']:+.2f} ({d['ci_low']:+.2f} to {d['ci_high']:+.2f})"
                      if d["ci_low"] is not None else f"{d['mean']:+.2f}")  # fmt: skip
            print(f"| {row['chooser']} | {kind} | {part['rows']:,} | {interval} | "
                  f"{part['best_rate']:.0%} | {paired} |")  # fmt: skip


if __name__ == "__main__":
    main()
