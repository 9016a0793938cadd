"""The ``guidance`` command: bidding guidance by hand evaluation."""

from __future__ import annotations

import argparse
import json
import time
from typing import Any, cast

import numpy as np
import pandas as pd

from tarot_analysis import __version__
from tarot_analysis.cli.arguments import add_bots_option, add_run_options
from tarot_analysis.cli.commands import bots_argument, bots_said, seated, sentence
from tarot_analysis.errors import TarotInputError
from tarot_analysis.runs.cluster import add_cluster_options, dask_client

# What the command runs is imported inside the functions that run it, not here: that keeps
# `tarot-analysis --help` and a mistake in the arguments quick (see tarot_analysis.cli.commands).


def add_parser(subparsers: Any) -> None:
    """Add ``guidance`` to the subcommands of the command line."""
    guidance = subparsers.add_parser(
        "guidance",
        help="bidding guidance: success and expected score per contract by hand evaluation",
        description=(
            "Deal hands to seat 0 (or the last seat) and play every contract on each deal, and "
            "the deal once more with that seat passing; write the guidance tables and print a "
            "summary. The run is stored under --data and resumes if stopped."
        ),
    )
    add_run_options(guidance, deals=1_000_000)
    add_bots_option(guidance)
    guidance.add_argument("--data", help="folder of the run's Parquet chunks (default under data/)")
    guidance.add_argument("--tables", help="folder for the CSV tables (default under reports/)")
    guidance.add_argument(
        "--no-rows", action="store_true",
        help="store per-chunk counts instead of one row per deal: the tables only, no fitted "
        "model (memory and disk proportional to the tables, not to the deals)",
    )  # fmt: skip
    guidance.add_argument(
        "--seat", choices=("first", "last", "both"), default="first",
        help="the seat advised: first (seat 0, speaks first; default), last (speaks last: the "
        "deals on which every other seat passed), or both, side by side (two runs)",
    )  # fmt: skip
    add_cluster_options(guidance)
    guidance.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``tarot-analysis guidance``: the runs (resumed if stored), the tables, the summary."""
    from tarot_analysis.game.rules import load_rules

    rules = load_rules(args.rules)
    if rules.tarocco is not None:
        raise TarotInputError(f"{rules.name} has no contracts: there is no bid to advise")
    seated(args, rules)
    from tarot_analysis.analyses.guidance import (
        best_choices,
        can_fit,
        guidance_tables,
        save_tables,
        seat_comparison,
        table_by,
    )

    last_seat = rules.players - 1
    folders, seats, tables_folder = _folders(args, rules.name, last_seat)
    data_folder = folders[seats[0]]
    _check_room(args, folders, seats, tables_folder)
    started = time.perf_counter()
    progress = not (args.no_progress or args.json)
    kept_in = " and ".join(sorted({folders[seat] for seat in seats}))
    args.kept = f"the chunks finished so far are kept in {kept_in}; the same command goes on"
    runs = _run_seats(args, rules, folders, seats, progress)
    data = runs[seats[0]]
    tables = guidance_tables(data, progress=progress)
    by_seat = seat_comparison(runs[0], runs[last_seat]) if len(runs) == 2 else None
    if by_seat is not None:
        tables["by_seat"] = by_seat
    comparison = _fit_model(data, tables, progress)
    specs = [r.run.spec for r in runs.values() if r.run is not None and r.run.spec is not None]
    paths = save_tables(tables, tables_folder, runs=specs)
    elapsed = time.perf_counter() - started
    played = data.played_deals
    if args.json:
        print(json.dumps({
            "rules": rules.name, "deals": args.deals, "played": played, "seed": args.seed,
            "bots": list(data.bots), "mode": "counterfactual", "data": str(data_folder),
            "tables": [str(p) for p in paths],
            "seat": data.seat, "pass_reading": "zero",
            "bid_before": data.bid_before_deals,
            "best_by_chavey": best_choices(tables["by_chavey"]),
            "best_by_chavey_pass_played": best_choices(tables["by_chavey_pass_played"]),
            "pass_played_by_chavey": _pass_values(tables["by_chavey"]),
            "best_by_chavey_last_seat": by_seat is not None
            and best_choices(table_by(runs[last_seat], "chavey")),
            "best_changes_by_chavey": _plain_floats(tables["by_chavey"]["best_changes"]),
            "best_by_bouts_trumps": best_choices(tables["by_bouts_trumps"]),
            "best_by_kings": best_choices(tables["by_kings"]),
            "best_by_model": comparison and best_choices(comparison["by_model"]),
            "fitted": can_fit(data),
            "thresholds": _records(tables["thresholds"]) if "thresholds" in tables else None,
            "threshold_loss": (
                _records(tables["threshold_loss"]) if "threshold_loss" in tables else None
            ),
            "rows": data.frame is not None,
            "model_comparison": comparison and {k: comparison[k] for k in _COMPARED},
            "model_coefficients": comparison and _records(comparison["coefficients"]),
            "model_caveats": comparison and comparison["caveats"],
            "seconds": round(elapsed, 1),
        }, indent=2, default=str))  # fmt: skip
        return 0
    print(_guidance_report(data, tables, comparison, data_folder, tables_folder, elapsed, args))
    if by_seat is not None:
        print(_seat_report(runs[last_seat], by_seat))
    return 0


def _folders(
    args: argparse.Namespace, name: str, last_seat: int
) -> tuple[dict[int, str], list[int], str]:
    """The run's folder for each seat, the seats advised, and the folder of the tables."""
    from tarot_analysis.bots import file_label

    label = "-".join(file_label(bot) for bot in args.bots)  # no path of a model in a folder name
    kept = "-counts" if args.no_rows else ""  # a run of counts never shares a folder of rows
    base = args.data or f"data/guidance-{name}-{label}-seed{args.seed}-{args.deals}{kept}"
    # The last seat's run beside the first's: its own folder.
    folders = {0: base, last_seat: base if args.seat == "last" else f"{base}-last"}
    seats = {"first": [0], "last": [last_seat], "both": [0, last_seat]}[args.seat]
    tables_folder = args.tables or f"reports/guidance-{name}-{label}" + (
        "-last" if args.seat == "last" else ""
    )
    return folders, seats, tables_folder


def _check_room(
    args: argparse.Namespace, folders: dict[int, str], seats: list[int], tables_folder: str
) -> None:
    """Refuse, before any deal, a run too large for the memory or folders that cannot be written."""
    from tarot_analysis.runs.memory import check_memory
    from tarot_analysis.runs.simulate import check_writable_folder

    if not args.no_rows:
        check_memory("guidance", args.deals, "--no-rows", runs=len(seats))
    check_writable_folder(tables_folder, " for the tables")
    for folder in {*(folders[seat] for seat in seats)}:
        check_writable_folder(folder, " for the run's chunks")


def _run_seats(
    args: argparse.Namespace, rules: Any, folders: dict[int, str], seats: list[int],
    progress: bool,
) -> dict[int, Any]:  # fmt: skip
    """The run of each seat advised (each resumed from its folder), by seat."""
    from tarot_analysis.analyses.guidance import run_guidance

    bots = bots_argument(args.bots)
    runs = {}
    with dask_client(args.scheduler, args.workers) as client:
        for seat in seats:
            runs[seat] = run_guidance(
                rules, args.deals, folders[seat], bots=bots, seed=args.seed,
                chunk_size=args.chunk_size or 50_000, threads=args.threads,
                progress=progress, client=client, rows=not args.no_rows, seat=seat,
            )  # fmt: skip
    return runs


def _fit_model(data: Any, tables: dict[str, pd.DataFrame], progress: bool) -> dict[str, Any] | None:
    """The fitted model beside Chavey's count, its tables added to ``tables``; ``None`` when
    the run kept no rows or too few."""
    from tarot_analysis.analyses.guidance import can_fit, compare_evaluators

    if data.frame is None or not can_fit(data):  # the model needs rows, and enough of them
        return None
    comparison = compare_evaluators(
        data, "garde" if "garde" in data.contracts else data.contracts[0], progress=progress
    )
    tables["model_coefficients"] = comparison["coefficients"]
    tables["by_model"] = comparison["by_model"]
    for name, frame in comparison["calibration"].items():
        tables[f"calibration_{name}"] = frame
    return comparison


def _guidance_report(
    data: Any, tables: dict[str, pd.DataFrame], comparison: dict[str, Any] | None,
    data_folder: str, tables_folder: str, elapsed: float, args: argparse.Namespace,
) -> str:  # fmt: skip
    """The summary for people: the best contract by count, the thresholds, the model."""
    rules = data.rules
    lines = [
        f"Bidding guidance — rules {rules.name}, bots: {bots_said(data.bots, args.bots_note)}, "
        f"{args.deals:,} deals to seat 0 "
        f"({data.played_deals:,} played; Petit-sec redeals left out), mode: counterfactual "
        f"(every contract played on each deal; pass scores 0), seed {args.seed}, "
        f"tarot-analysis {__version__} ({elapsed:.1f} s)",
        f"Run data: {data_folder}   Tables (CSV): {tables_folder}",
        *_best_lines(data, tables),
    ]
    if "thresholds" not in tables:
        from tarot_analysis.analyses.guidance import not_fitted

        lines += ["", f"{sentence(not_fitted(data))}."]
        return "\n".join(lines)
    lines += _threshold_lines(tables)
    if comparison is None:
        lines += ["", "No fitted model: the run kept counts, not rows (--no-rows)."]
        return "\n".join(lines)
    lines += _model_lines(comparison)
    return "\n".join(lines)


def _best_lines(data: Any, tables: dict[str, pd.DataFrame]) -> list[str]:
    """The best contract by Chavey count, pass scoring 0 then measured, and how steady it is."""
    from tarot_analysis.analyses.guidance import best_ranges
    from tarot_analysis.bootstrap import REPLICATES

    ranges = best_ranges(tables["by_chavey"], min_n=200)
    lines = [
        "",
        "Best contract by Chavey count (highest mean taker score; counts held by 200 deals or "
        "more; a ≈ b: a tie, the 95% interval of their paired difference reaches 0):",
    ]
    lines += _range_lines(ranges)
    played_pass = tables["by_chavey_pass_played"]
    weights = played_pass["n"] / played_pass["n"].sum()
    taken = float((played_pass["pass_taken_share"] * weights).sum())
    value = float((played_pass["pass_played_mean_score"] * weights).sum())
    lines += [
        "",
        f"The same with the pass measured (seat {data.seat} passes and the others bid on: "
        f"another seat takes on {taken:.1%} of deals, and passing is worth {value:+.2f} points "
        "a deal on average):",
    ]
    lines += _range_lines(best_ranges(played_pass, min_n=200, reading="played"))
    changes = tables["by_chavey"]["best_changes"]
    steady = tables["by_chavey"][tables["by_chavey"]["n"] >= 200]
    unstable = changes.reindex(steady.index)
    unstable = unstable[unstable >= 0.05]
    lines.append(
        f"  Counts whose best changes in 5% or more of {REPLICATES} bootstrap replicates: "
        + (", ".join(f"{k} ({v:.0%})" for k, v in unstable.items()) or "none")
    )
    return lines


def _range_lines(ranges: pd.DataFrame) -> list[str]:
    """One line per run of counts with the same best contract."""
    lines = []
    for _, counts in ranges.iterrows():
        low, high = counts["low"], counts["high"]
        span = f"{low}" if low == high else f"{low}–{high}"
        lines.append(
            f"  {span:>7}  {counts['best']:<22} {counts['n']:>9,} deals, its mean score "
            f"{counts['mean_best_score']:+7.2f} ± {counts['half_width']:.2f}"
        )
    return lines


def _threshold_lines(tables: dict[str, pd.DataFrame]) -> list[str]:
    """The fitted thresholds beside the published ones, and what each rule loses per deal."""
    lines = [
        "",
        "Thresholds: the count from which each contract (or a higher one) is bid, by the "
        "rule fitted to the deals that never steps down (95% bootstrap interval over deals), "
        "beside the published ones:",
    ]
    for key, row in tables["thresholds"].iterrows():
        evaluator, contract = cast(tuple[str, str], key)
        alone = row["never_alone"]
        skipped = f"; never bid alone in {alone:.1%} of replicates" if alone > 0 else ""
        lines.append(
            f"  {evaluator:<17} {contract:<13} {_count_text(row['fitted']):>5} "
            f"({_count_text(row['ci_low'])}–{_count_text(row['ci_high'])}{skipped})"
            f"   published {_count_text(row['published'])}"
        )
    lines += [
        "",
        "What each rule loses per deal against the best contract of each value (95% interval "
        "over deals); out of sample: chosen on half of the deals, scored on the other half:",
    ]
    for name, row in tables["threshold_loss"].iterrows():
        lines.append(
            f"  {name:<24} in sample {row['mean_loss']:6.2f} ± {row['loss_ci_half_width']:.2f}"
            f"   out of sample {row['out_of_sample_loss']:6.2f} ± "
            f"{row['out_of_sample_ci_half_width']:.2f}   (its expected score "
            f"{row['mean_expected_score']:+.2f}, n = {int(row['n']):,})"
        )
    return lines


def _model_lines(comparison: dict[str, Any]) -> list[str]:
    """The fitted model against Chavey's count on held-out deals, its coefficients, caveats."""
    contract = comparison["contract"]
    lines = [
        "",
        f"Predicting whether a {contract} makes, on {comparison['n_test']:,} held-out deals "
        f"(model fitted on {comparison['n_train']:,}):",
        "  predictor         Brier (95% CI)              log loss (95% CI)          AUC (95% CI)",
    ]
    for name in ("fitted", "chavey"):
        m = comparison[name]
        lines.append(
            "  " + f"{name:<16}" + "  ".join(
                f"{m[k]['value']:.4f} ({m[k]['ci_low']:.4f}–{m[k]['ci_high']:.4f})"
                for k in ("brier", "log_loss", "auc")
            )
        )  # fmt: skip
    d = comparison["fitted_minus_chavey"]
    lines.append(
        "  fitted − chavey " + "  ".join(
            f"{d[k]['value']:+.4f} ({d[k]['ci_low']:+.4f}–{d[k]['ci_high']:+.4f})"
            for k in ("brier", "log_loss", "auc")
        )
    )  # fmt: skip
    lines += ["", "The fitted model's coefficients (log-odds per unit, 95% interval):"]
    for feature, row in comparison["coefficients"].iterrows():
        lines.append(
            f"  {feature:<13} {row['per_unit']:+.3f} ({row['ci_low']:+.3f} to "
            f"{row['ci_high']:+.3f})   odds × {row['odds_ratio']:.2f} per unit"
        )
    lines += ["", "Read it with care:", *(f"  - {caveat}" for caveat in comparison["caveats"])]
    return lines


def _seat_report(last: Any, by_seat: pd.DataFrame) -> str:
    """The best option by Chavey count for the first and the last seat, side by side."""
    lines = [
        "",
        f"Seat 0 (speaks first) and seat {last.seat} (speaks last, after every other seat "
        f"passed: {last.played_deals:,} deals; {last.bid_before_deals:,} others had a bid "
        "before it) — best by Chavey count, counts held by 200 deals or more (≈: a tie):",
        f"  {'count':>7}  {'seat 0, pass scores 0':<24} {'seat 0, pass measured':<24} "
        f"{'last seat':<24}",
    ]
    shown: list[tuple[int, list[str]]] = []
    for count, row in by_seat.iterrows():
        cells = []
        for part in ("first", "first_pass_played", "last"):
            n = row[f"{part}_n"]
            if pd.isna(n) or n < 200:
                cells.append("—")
                continue
            best = str(row[f"{part}_best"])
            if bool(row[f"{part}_tie"]):
                best += f" ≈ {row[f'{part}_runner_up']}"
            cells.append(best)
        if cells != ["—"] * 3:
            shown.append((int(cast(int, count)), cells))
    # Runs of counts that read the same, as one line.
    start = 0
    for end in range(1, len(shown) + 1):
        if end < len(shown) and shown[end][1] == shown[start][1]:
            continue
        low, high = shown[start][0], shown[end - 1][0]
        span = f"{low}" if low == high else f"{low}–{high}"
        cells = shown[start][1]
        lines.append(f"  {span:>7}  {cells[0]:<24} {cells[1]:<24} {cells[2]:<24}")
        start = end
    return "\n".join(lines)


def _pass_values(table: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """Per key: the measured pass's mean score, its interval, and how often another seat took."""
    out = {}
    for key, row in table.iterrows():
        half = row["pass_played_score_half_width"]
        mean = row["pass_played_mean_score"]
        out[str(key)] = {
            "mean_score": round(float(mean), 4),
            "ci_low": None if pd.isna(half) else round(float(mean - half), 4),
            "ci_high": None if pd.isna(half) else round(float(mean + half), 4),
            "pass_taken_share": round(float(row["pass_taken_share"]), 4),
            "n": int(row["n"]),
        }
    return out


_COMPARED = ("contract", "n_train", "n_test", "fitted", "chavey", "fitted_minus_chavey")


def _records(table: pd.DataFrame) -> list[dict[str, Any]]:
    """A table as JSON records, its index as columns; infinities and NaN as null."""
    frame = table.reset_index().replace([np.inf, -np.inf], np.nan).astype(object)
    records = frame.where(frame.notna(), None).to_dict(orient="records")
    return [{str(key): value for key, value in record.items()} for record in records]


def _plain_floats(series: pd.Series) -> dict[str, float]:
    return {str(key): round(float(value), 4) for key, value in series.items()}


def _count_text(value: float) -> str:
    """A threshold: a whole count, or ``none`` where the rule never reaches it."""
    return "none" if not np.isfinite(value) else f"{value:.0f}"
