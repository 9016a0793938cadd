"""The heuristic's bidding thresholds swept in duplicate: one contract's threshold moved at a time.

    python benchmarks/bid_sweep.py [--rules fft-4] [--deals 20000] [--shifts -4 -2 2 4] \\
        [--contracts prise garde garde_sans garde_contre] [--also 2/-1/0/0 ...] \\
        [--base 0/0/0/0] [--seed 1] [--check-seed 2] [--threads N] [--json]

For each contract and each shift, bot A is ``heuristic:P/G/S/C`` (that contract's threshold
moved by the shift, the others as they are) and bot B the heuristic itself, in a duplicate
match (:func:`duplicate.duplicate`): A's mean score per deal less B's, with its 95% interval
over deals. A negative shift bids that contract on weaker hands. ``--also`` adds shifts of
several contracts at once. ``--base`` sweeps around another heuristic, ``heuristic:BASE``
(B then, and every shift added to it): ``--base 4/3/0/0`` in ``fft-3`` is the heuristic as
it bid before its thresholds were last moved. The shifts whose interval lies above 0 are
played again on other deals (``--check-seed``): a threshold chosen on some deals is scored
on others.

What it measures is one seat's best answer to tables that bid as the heuristic does: a
threshold is worth moving when that seat gains; whether the table as a whole plays better is
the ladder's question (``benchmarks/ladder.py``).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from duplicate import duplicate

from tarot_analysis import __version__

CONTRACTS = ("prise", "garde", "garde_sans", "garde_contre")
SHIFTS = (-4, -2, 2, 4)


def shifts_of(text: str) -> list[int]:
    """``P/G/S/C`` as four shifts."""
    shifts = [int(part) for part in text.split("/")]
    if len(shifts) != len(CONTRACTS):
        raise SystemExit(f"bid_sweep: shifts are P/G/S/C, one per contract, got {text!r}")
    return shifts


def name(shifts: list[int]) -> str:
    """The bot ``heuristic:P/G/S/C``."""
    return "heuristic:" + "/".join(str(s) for s in shifts)


def spec(contract: int, shift: int, base: list[int]) -> str:
    """The bot moving one contract's threshold by ``shift`` from ``base``."""
    shifts = list(base)
    shifts[contract] += shift
    return name(shifts)


def row(
    rules: str, bot: str, base: str, deals: int, seed: int, threads: int | None
) -> dict[str, Any]:
    """One duplicate match of ``bot`` against ``base``, as a table row."""
    result = duplicate(rules, deals, bot, base, seed=seed, threads=threads)
    return {
        "bot": bot,
        "against": base,
        "seed": seed,
        "deals": deals,
        "mean_diff": result.mean_diff,
        "ci_low": result.ci_low,
        "ci_high": result.ci_high,
        "take_rate": result.a_take_rate,
        "made_rate": result.a_made_rate,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rules", default="fft-4")
    parser.add_argument("--deals", type=int, default=20_000)
    parser.add_argument("--shifts", type=int, nargs="+", default=list(SHIFTS))
    parser.add_argument("--contracts", nargs="+", choices=CONTRACTS, default=list(CONTRACTS))
    parser.add_argument("--also", nargs="*", default=[], metavar="P/G/S/C")
    parser.add_argument("--base", default="0/0/0/0", metavar="P/G/S/C")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--check-seed", type=int, default=2)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    base = shifts_of(args.base)
    against = name(base) if any(base) else "heuristic"
    bots = [spec(CONTRACTS.index(c), s, base) for c in args.contracts for s in args.shifts]
    for also in args.also:
        bots.append(name([b + s for b, s in zip(base, shifts_of(also), strict=True)]))
    rows = []
    for bot in bots:
        rows.append(row(args.rules, bot, against, args.deals, args.seed, args.threads))
        print(f"{bot}: {rows[-1]['mean_diff']:+.2f}", file=sys.stderr, flush=True)
    gaining = [r["bot"] for r in rows if r["ci_low"] > 0]
    checks = [
        row(args.rules, bot, against, args.deals, args.check_seed, args.threads) for bot in gaining
    ]
    if args.json:
        print(
            json.dumps(
                {
                    "rules": args.rules,
                    "against": against,
                    "version": __version__,
                    "sweep": rows,
                    "checked": checks,
                },
                indent=2,
            )
        )
        return
    print(f"{args.rules}: heuristic:P/G/S/C against {against}, {args.deals:,} deals a match")
    print("| A | seed | A − B per deal | 95% interval | A takes | A makes |")
    print("|---|---:|---:|---|---:|---:|")
    for r in rows + checks:
        print(
            f"| `{r['bot']}` | {r['seed']} | {r['mean_diff']:+.2f} | {r['ci_low']:+.2f} to "
            f"{r['ci_high']:+.2f} | {r['take_rate']:.1%} | {r['made_rate']:.1%} |"
        )


if __name__ == "__main__":
    main()
