"""The ladder of bots: duplicate matches between neighbours, for several presets, as one table.

    python benchmarks/ladder.py [--rules fft-3 fft-4 fft-5] [--deals 1000] \\
        [--matches pimc:heuristic heuristic:random ...] [--seed 1] [--threads N] [--json]

Each match is :func:`duplicate.duplicate` (the same deals with the seats rotated): A's mean
edge per deal over B with its 95% interval, the deals, the seconds, and the edge split by A's
side. ``--deals`` is for matches with a search bot; matches between compiled rule bots play
20 times as many (they take a second). Prints a Markdown table, or JSON with ``--json``.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict

from duplicate import DuplicateResult, duplicate

from tarot_analysis import __version__

DEFAULT_MATCHES = ("heuristic:random", "pimc:heuristic", "pimc:8:heuristic", "pimc:64:heuristic")


def _pair(text: str) -> tuple[str, str]:
    """``A:B``, where A may itself be ``pimc:N``."""
    a, _, b = text.rpartition(":")
    if not a or not b:
        raise argparse.ArgumentTypeError(f"a match is A:B, got {text!r}")
    return a, b


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rules", nargs="+", default=["fft-3", "fft-4", "fft-5"])
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument(
        "--matches", nargs="+", type=_pair, default=[_pair(m) for m in DEFAULT_MATCHES]
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    results: list[DuplicateResult] = []
    for rules in args.rules:
        for a, b in args.matches:
            searching = "pimc" in a or "pimc" in b
            deals = args.deals if searching else 20 * args.deals
            results.append(duplicate(rules, deals, a, b, seed=args.seed, threads=args.threads))
    if args.json:
        print(json.dumps({"matches": [asdict(r) for r in results], "version": __version__}))
        return
    print("| rules | A | B | A − B per deal | 95% interval | deals | seconds | gained as taker |")
    print("|---|---|---|---:|---|---:|---:|---|")
    for r in results:
        taker = r.by_role.get("taker", [float("nan")] * 3)
        print(
            f"| {r.rules} | {r.bots[0]} | {r.bots[1]} | {r.mean_diff:+.1f} | "
            f"[{r.ci_low:+.1f}, {r.ci_high:+.1f}] | {r.deals:,} | {r.seconds:.0f} | "
            f"{taker[0]:+.1f} [{taker[1]:+.1f}, {taker[2]:+.1f}] |"
        )


if __name__ == "__main__":
    main()
