"""Duplicate match between two bots: the same deals replayed with the seats rotated.

    python benchmarks/duplicate.py --rules fft-4 --deals 20000 --bots heuristic random \\
        [--seed 1] [--threads N] [--beside C] [--json]

The match itself is :func:`tarot_analysis.table.duplicate.duplicate`: every deal played once
per seat with A at that seat and B at the others, A's edge per deal with its 95% interval over
deals. This prints it, or one JSON object (``--json``). ``--beside C`` also plays C against B
on the same deals and gives A's edge less C's, paired deal by deal: whether A does better than
C against the same opponent (a network against the one it was trained from, say).
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict

import numpy as np

from tarot_analysis import __version__
from tarot_analysis.table.duplicate import DuplicateResult, duplicate, mean_interval

__all__ = ["DuplicateResult", "duplicate"]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rules", default="fft-4")
    parser.add_argument("--deals", type=int, default=20_000)
    parser.add_argument("--bots", nargs=2, default=["heuristic", "random"], metavar=("A", "B"))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--beside", metavar="C", default=None)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    paired = args.beside is not None
    result = duplicate(
        args.rules, args.deals, args.bots[0], args.bots[1], seed=args.seed, threads=args.threads,
        keep_per_deal=paired,
    )  # fmt: skip
    beside = None
    if paired:
        other = duplicate(
            args.rules, args.deals, args.beside, args.bots[1], seed=args.seed,
            threads=args.threads, keep_per_deal=True,
        )  # fmt: skip
        mean, _, half = mean_interval(np.array(result.per_deal) - np.array(other.per_deal))
        beside = {
            "bot": args.beside, "mean_diff": other.mean_diff, "ci_low": other.ci_low,
            "ci_high": other.ci_high, "by_role": other.by_role, "seconds": other.seconds,
            "paired": {"mean": mean, "ci_low": mean - half, "ci_high": mean + half},
        }  # fmt: skip
        result.per_deal.clear()
    if args.json:
        print(json.dumps({**asdict(result), "beside": beside, "version": __version__}))
        return
    a, b = result.bots
    print(f"duplicate {a} (A) vs {b} (B), {result.rules}, {result.deals} deals, seed {result.seed}")
    print(f"  A − B per deal : {result.mean_diff:9.2f}  ± {result.std_err:.2f} (s.e.)")
    print(f"  95% interval   : [{result.ci_low:.2f}, {result.ci_high:.2f}]  n = {result.n} deals")
    print(f"  A mean / seat  : {result.a_mean:9.2f}")
    print(f"  B mean / seat  : {result.b_mean:9.2f}")
    took, made = result.a_take_rate, result.a_made_rate
    print(f"  A took         : {took:9.1%} of its deals, made {made:.1%} of them")
    print(f"  redealt        : {result.redeal_rate:9.1%}")
    for name, (m, low, high) in result.by_role.items():
        print(f"  gained as {name:<5}: {m:9.2f}  [{low:.2f}, {high:.2f}]  (part of A − B)")
    print(f"  time           : {result.seconds:9.1f} s")
    if beside is not None:
        p = beside["paired"]
        print(
            f"  {args.beside} (C) vs B: {beside['mean_diff']:.2f} [{beside['ci_low']:.2f}, "
            f"{beside['ci_high']:.2f}]; A − C against B, paired: {p['mean']:.2f} "
            f"[{p['ci_low']:.2f}, {p['ci_high']:.2f}]"
        )


if __name__ == "__main__":
    main()
