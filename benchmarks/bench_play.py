"""Complete deals per second played by each bot, on every core and on one thread.

    python benchmarks/bench_play.py [--rules fft-4] [--deals 400000] [--repeat 3] [--json]

Every deal is dealt, bid, discarded and played to its last trick by the compiled engine, the
same bot at every seat; the random bot is the baseline, measured in the same run. Each timing
is the best of ``--repeat`` runs after a warm-up (compilation and first touch of memory are
not counted). A deal everyone passes (or with a Petit sec) ends at the bidding and is counted
as a deal: the table also gives the share of deals played to the end and the rate of those
alone. Machines are noisy: compare the ratios, not the absolute numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

from tarot_analysis import __version__
from tarot_analysis.bots import BOTS, Bot
from tarot_analysis.engine.outcome import OUTCOME_COLUMNS
from tarot_analysis.game.rules import Rules, load_rules
from tarot_analysis.runs.simulate import default_threads
from tarot_analysis.table.play import play

REDEAL = OUTCOME_COLUMNS.index("redeal")


def best_seconds(rules: Rules, bot: str, deals: int, threads: int, repeat: int) -> float:
    """Seconds of the fastest of ``repeat`` runs of ``deals`` deals."""
    best = float("inf")
    for run in range(repeat):
        started = time.perf_counter()
        play(rules, deals, bots=bot, seed=run + 1, threads=threads)
        best = min(best, time.perf_counter() - started)
    return best


def played_share(rules: Rules, bot: str, deals: int) -> float:
    """Share of deals played to the end (not redealt) by ``bot``."""
    outcomes = play(rules, deals, bots=bot, seed=1).outcomes
    return float(np.mean(outcomes[:, REDEAL] == 0))


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rules", default="fft-4")
    parser.add_argument("--deals", type=int, default=400_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--bots", nargs="+", default=["heuristic", "random"],
        help=f"bots by name ({', '.join(BOTS)}, learned:PATH...; default heuristic random)",
    )  # fmt: skip
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    rules = load_rules(args.rules)
    for bot in args.bots:
        Bot.parse(bot)  # a wrong name said before any deal
    threads = default_threads()
    result: dict[str, object] = {
        "rules": rules.name,
        "deals": args.deals,
        "threads": threads,
        "repeat": args.repeat,
        "cpu_count": os.cpu_count(),
        "version": __version__,
    }
    rows = []
    for bot in args.bots:
        play(rules, 20_000, bots=bot, seed=0)  # compile, or load from the cache
        all_cores = args.deals / best_seconds(rules, bot, args.deals, threads, args.repeat)
        one_thread = args.deals / best_seconds(rules, bot, args.deals, 1, args.repeat)
        share = played_share(rules, bot, min(args.deals, 100_000))
        result[f"deals_per_s_{bot}"] = round(all_cores)
        result[f"deals_per_s_1thread_{bot}"] = round(one_thread)
        result[f"played_share_{bot}"] = round(share, 4)
        result[f"played_deals_per_s_{bot}"] = round(all_cores * share)
        rows.append((bot, all_cores, one_thread, share))
    if args.json:
        print(json.dumps(result))
        return
    print(
        f"complete {rules.name} deals per second, {args.deals} deals, best of {args.repeat}, "
        f"{threads} threads"
    )
    print(f"  {'bot':<10} {'all cores':>12} {'1 thread':>12} {'played':>8} {'played/s':>12}")
    for bot, all_cores, one_thread, share in rows:
        print(
            f"  {bot:<10} {all_cores:12,.0f} {one_thread:12,.0f} {share:8.1%} "
            f"{all_cores * share:12,.0f}"
        )
    for base in ("random", "heuristic"):
        if base in args.bots:
            baseline = {bot: rate for bot, rate, _, _ in rows}[base]
            for bot, all_cores, _, _ in rows:
                if bot not in ("random", base):
                    print(f"  {bot} / {base}: {all_cores / baseline:.3f}x")


if __name__ == "__main__":
    main()
