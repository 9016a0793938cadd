"""How the answers move up the ladder of bots: one Markdown table from the runs of each rung.

    python benchmarks/ladder_answers.py --compare compare.json --data DATA [--rules fft-4] \\
        [--seed 1] [--json]

``--compare``: the JSON of ``tarot-analysis compare R --compare-bots heuristic learned pimc
--mode auction --json`` (the same deals under each table of bots, the first the baseline):
the share of deals passed out, each contract's share of the deals played, how often a Garde
bid makes and the Petit au bout, each with its interval and, beside the baseline, the paired
difference (:mod:`tarot_analysis.analyses.compare`). ``--data``: a folder holding guidance runs of
the same rules and seed under each table of bots (``guidance-<rules>-<bots>-seed<S>-<N>``, as the
report reads them, :mod:`tarot_analysis.report.ladder`): each run's fitted thresholds with
their bootstrap intervals and its best contract by band of Chavey count with the runner-up.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from tarot_analysis.game.rules import load_rules
from tarot_analysis.report.ladder import guidance_rungs, rung
from tarot_analysis.stats import wilson_interval

CONTRACTS = ("prise", "garde", "garde_sans", "garde_contre")


def _pp(value: float) -> str:
    return f"{100 * value:.1f}%"


def _summary(data: dict[str, Any], bots: str, measure: str, contract: str = "") -> dict[str, Any]:
    for row in data["summary"][bots]:
        if row["measure"] == measure and (row.get("contract") or "") == contract:
            return row
    raise KeyError(f"{bots}: no {measure} {contract}")


def _difference(data: dict[str, Any], bots: str, measure: str, contract: str = "") -> str:
    for row in data["differences"]:
        if (
            row["variant"] == bots
            and row["measure"] == measure
            and (row.get("contract") or "") == contract
        ):
            return (
                f"{100 * row['difference']:+.1f} pp ({100 * row['ci_low']:+.1f} to "
                f"{100 * row['ci_high']:+.1f}), {row['n']:,} deals"
            )
    return ""


def _rate_cells(
    data: dict[str, Any], bots: list[str], measure: str, contract: str = "", paired: str = ""
) -> list[str]:
    """A rate of the compare run for each table of bots, with its interval; beside the
    baseline's, the paired difference (``paired``: how it is said)."""
    cells = []
    for b in bots:
        row = _summary(data, b, measure, contract)
        text = f"{_pp(row['value'])} ({_pp(row['ci_low'])}–{_pp(row['ci_high'])})"
        if b != bots[0]:
            text += f"; {paired}{_difference(data, b, measure, contract)}"
        cells.append(text)
    return cells


def auction_rows(data: dict[str, Any], bots: list[str]) -> list[list[str]]:
    """Rows of the table from the compare run: one per measure, a cell per table of bots
    (``bots``, the compare's baseline first)."""
    rows = [
        [
            f"deals passed out, of {int(data['deals']):,}",
            *_rate_cells(data, bots, "redeal_all_passed"),
        ]
    ]
    for contract in CONTRACTS:
        cells = []
        for b in bots:
            bid = int(_summary(data, b, "success", contract)["n"])
            played = int(_summary(data, b, "petit_au_bout")["n"])
            low, high = wilson_interval(bid, played)
            cells.append(f"{_pp(bid / played)} ({_pp(float(low))}–{_pp(float(high))}), {bid:,}")
        rows.append([f"{contract}: share of the deals played, deals", *cells])
    garde = _rate_cells(data, bots, "success", "garde", "where both bid it ")
    rows.append(["a Garde bid made", *garde])
    petit = _rate_cells(data, bots, "petit_au_bout")
    rows.append(["Petit au bout (either side), of deals played", *petit])
    return rows


def guidance_rows(folder: Path, rules: str, seed: int, bots: list[str]) -> list[list[str]]:
    """Rows from the guidance runs found in ``folder``: thresholds, then the best by band."""
    found = {r.bots: r for r in guidance_rungs(folder, rules, seed)}
    if not found:
        return []
    rows = [["guidance: deals played (seat 0 takes every contract)"]]
    rows[0] += [f"{found[b].played:,}" if b in found else "—" for b in bots]
    for contract in CONTRACTS:
        cells = []
        for b in bots:
            if b not in found:
                cells.append("—")
                continue
            row = found[b].thresholds[contract]
            cells.append(f"{row['fitted']:g} ({row['ci_low']:g}–{row['ci_high']:g})")
        rows.append([f"Chavey count from which a {contract} is bid (bootstrap 95%)", *cells])
    bands = list(dict.fromkeys(band for r in found.values() for band in r.advice.by_band.index))
    for band in bands:
        cells = []
        for b in bots:
            table = found[b].advice.by_band if b in found else None
            row = table.loc[band] if table is not None and band in table.index else None
            if row is None:
                cells.append("—")
                continue
            tie = ", a tie" if row["tie"] else ""
            cells.append(
                f"{row['best']} over {row['runner_up']}: {row['difference']:+.1f} "
                f"({row['difference_ci_low']:+.1f} to {row['difference_ci_high']:+.1f}){tie}"
            )
        rows.append([f"best contract, Chavey {band}", *cells])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--compare", type=Path, required=True)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--rules", default="fft-4")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    load_rules(args.rules)
    data = json.loads(args.compare.read_text())
    bots = sorted(data["bots"], key=rung)
    if bots[0] != data["bots"][0]:
        raise SystemExit("the compare's baseline is not the lowest rung of its bots")
    rows = auction_rows(data, bots) + guidance_rows(args.data, args.rules, args.seed, bots)
    if args.json:
        print(json.dumps({"bots": bots, "rows": rows}))
        return
    print("| measure | " + " | ".join(f"`{b}`" for b in bots) + " |")
    print("|---|" + "---|" * len(bots))
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
