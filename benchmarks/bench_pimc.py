"""Deals per second with the pimc bot at every seat, on one thread, beside the heuristic.

    python benchmarks/bench_pimc.py [--rules fft-4 ...] [--deals 100] [--bots pimc pimc:8] [--json]

Each preset's deals are played once with the heuristic at every seat (the baseline, the same
deals, measured in the same run) and once with each search bot at every seat, on one thread,
after a warm-up of two deals (compilation is not counted). A deal everyone passes ends at the
auction and counts as a deal; the share of deals played to the end is given beside the rate.
The pimc bot's budget is a number of worlds, so its pace depends on the preset: more seats,
more worlds to draw and longer counting tables.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from tarot_analysis import __version__
from tarot_analysis.engine.outcome import OUTCOME_COLUMNS
from tarot_analysis.game.rules import load_rules
from tarot_analysis.table.play import play

REDEAL = OUTCOME_COLUMNS.index("redeal")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rules", nargs="+", default=["fft-3", "fft-4", "fft-5"])
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--bots", nargs="+", default=["pimc"])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    rows = []
    for name in args.rules:
        rules = load_rules(name)
        for bot in ["heuristic", *args.bots]:
            play(rules, 2, bots=bot, seed=args.seed + 1, threads=1)  # compile, warm up
            started = time.perf_counter()
            result = play(rules, args.deals, bots=bot, seed=args.seed, threads=1)
            seconds = time.perf_counter() - started
            rows.append(
                {
                    "rules": name,
                    "bot": bot,
                    "deals": args.deals,
                    "seconds": seconds,
                    "deals_per_s": args.deals / seconds,
                    "played_share": float(np.mean(result.outcomes[:, REDEAL] == 0)),
                }
            )
    for row in rows:
        base = next(r for r in rows if r["rules"] == row["rules"] and r["bot"] == "heuristic")
        row["share_of_heuristic_pace"] = row["deals_per_s"] / base["deals_per_s"]
    if args.json:
        print(json.dumps({"runs": rows, "threads": 1, "version": __version__}))
        return
    print(f"{'rules':8} {'bot':10} {'deals/s':>10} {'played':>8} {'× heuristic':>12}")
    for row in rows:
        print(
            f"{row['rules']:8} {row['bot']:10} {row['deals_per_s']:10.2f} "
            f"{row['played_share']:8.1%} {row['share_of_heuristic_pace']:12.5f}"
        )


if __name__ == "__main__":
    main()
