"""The contracts a bot takes at its own table beside those it takes against other defenders.

    python benchmarks/contract_mix.py [--rules fft-3 fft-4 fft-5] [--deals 1000] \\
        [--bot learned] [--against pimc] [--seed 1] [--threads N] [--json]

:func:`tarot_analysis.table.mix.contract_mix`: the same deals played with ``--bot`` at every
seat, then with ``--bot`` at one seat and ``--against`` at the others, the seat rotated. For
each table it prints how often the bot takes and how often the deal is passed out, the share of
each contract among the bot's contracts and how often each is made, then the make rates paired
on the same deal, seat and contract: made against ``--against`` − made at its own table, so
the difference is the defence's, not the hand's. Intervals are 95%, deals the independent
units. ``--json`` prints one JSON object per preset.
"""

from __future__ import annotations

import argparse
import json
import math

from tarot_analysis import __version__
from tarot_analysis.table.mix import ContractMix, contract_mix


def _pct(value: float | None) -> str:
    return "—" if value is None or math.isnan(value) else f"{100 * value:.1f}%"


def _pp(value: float) -> str:
    return f"{100 * value:+.1f}"


def _interval(low: float | None, high: float | None) -> str:
    if low is None or high is None or math.isnan(low) or math.isnan(high):
        return ""
    return f"({_pct(low)} to {_pct(high)})"


def show(mix: ContractMix) -> None:
    bot, against = mix.bots
    print(f"{mix.rules}: {bot} at its own table, and at one seat among {against}; "
          f"{mix.deals} deals, seed {mix.seed}, {mix.seconds:.0f} s")  # fmt: skip
    names = {"own": f"{bot} table", "mixed": f"{bot} among {against}"}
    for row in mix.tables.itertuples():
        print(f"  {names[row.table]:<32} takes {_pct(row.took)} of its seats "
              f"{_interval(row.took_low, row.took_high)}, passed out {_pct(row.passed)} "
              f"{_interval(row.passed_low, row.passed_high)}")  # fmt: skip
    print(f"  {'contract':<14} {'table':<32} {'taken':>6} {'share':>7} {'interval':<20} "
          f"{'made':>7} interval")  # fmt: skip
    for row in mix.contracts.itertuples():
        print(f"  {row.contract:<14} {names[row.table]:<32} {row.contracts:>6} "
              f"{_pct(row.share):>7} {_interval(row.share_low, row.share_high):<20} "
              f"{_pct(row.made):>7} {_interval(row.made_low, row.made_high)}")  # fmt: skip
    print(f"  made, the same contract from the same seat and deal at both tables "
          f"(among {against} − own table):")  # fmt: skip
    for row in mix.paired.itertuples():
        known = row.low is not None and not math.isnan(row.low)
        low = f" ({_pp(row.low)} to {_pp(row.high)})" if known else ""
        print(f"  {row.contract:<14} {row.pairs:>6} pairs  own {_pct(row.own)}  among {against} "
              f"{_pct(row.mixed)}  {_pp(row.difference)} pp{low}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rules", nargs="+", default=["fft-3", "fft-4", "fft-5"])
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--bot", default="learned")
    parser.add_argument("--against", default="pimc")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    for rules in args.rules:
        mix = contract_mix(
            rules, args.deals, args.bot, args.against, seed=args.seed, threads=args.threads
        )
        if args.json:
            print(json.dumps({
                "rules": mix.rules, "bots": mix.bots, "deals": mix.deals, "seed": mix.seed,
                "seconds": mix.seconds, "version": __version__,
                "tables": mix.tables.to_dict(orient="records"),
                "contracts": mix.contracts.to_dict(orient="records"),
                "paired": mix.paired.to_dict(orient="records"),
            }))  # fmt: skip
        else:
            show(mix)


if __name__ == "__main__":
    main()
