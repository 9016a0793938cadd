"""The ``play`` command: deals played to the end by bots, their contracts and scores."""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import pandas as pd

from tarot_analysis import __version__
from tarot_analysis.cli.arguments import add_bots_option, add_run_options
from tarot_analysis.cli.commands import bots_argument, bots_said, seated
from tarot_analysis.errors import TarotInputError
from tarot_analysis.runs.cluster import add_cluster_options, dask_client

# What the command runs is imported inside the functions that run it, not here: that keeps
# `tarot-analysis --help` and a mistake in the arguments quick (see tarot_analysis.cli.commands).


def add_parser(subparsers: Any) -> None:
    """Add ``play`` to the subcommands of the command line."""
    play = subparsers.add_parser(
        "play",
        help="play deals to the end with bots: contract frequencies and success rates",
        description="Deal, bid, call, take the dog, play and score many deals with bots.",
    )
    add_run_options(play, deals=100_000)
    add_bots_option(play)
    play.add_argument("--out", help="save every deal's outcome and score to this Parquet file")
    play.add_argument(
        "--no-rows", action="store_true",
        help="keep per-chunk contract counts only, not the deals: memory for the table alone",
    )  # fmt: skip
    add_cluster_options(play)
    play.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``tarot-analysis play``: the table of contracts, or the JSON; the deals saved."""
    from tarot_analysis.game.rules import load_rules

    rules = load_rules(args.rules)  # before the compiled core loads: a bad file fails fast
    if args.no_rows and args.out:
        raise TarotInputError("--out saves one row per deal; --no-rows keeps none: choose one")
    if args.no_rows and rules.tarocco is not None:
        raise TarotInputError(f"{rules.name}: --no-rows counts contracts; Tarocco has none")
    seated(args, rules)
    from tarot_analysis.runs.memory import check_memory
    from tarot_analysis.runs.progress import SCORING, step
    from tarot_analysis.runs.simulate import check_output_path
    from tarot_analysis.table.play import play, play_counts

    if not args.no_rows:
        check_memory("play", args.deals, "--no-rows")
    if args.out:
        check_output_path(args.out)
    started = time.perf_counter()
    options = {
        "bots": bots_argument(args.bots), "seed": args.seed, "chunk_size": args.chunk_size,
        "threads": args.threads, "progress": not (args.no_progress or args.json),
    }  # fmt: skip
    with dask_client(args.scheduler, args.workers) as client:
        if args.no_rows:
            counts, metadata = play_counts(rules, args.deals, client=client, **options)
        else:
            result = play(rules, args.deals, client=client, **options)
            with step(SCORING, bool(options["progress"]), detail=rules.name):
                scores = result.scores()  # Tarocco: its count, deal by deal
                if rules.tarocco is None:
                    counts, metadata = result.counts(scores), result.metadata
            if args.out:
                _save_scores(scores, result.metadata, args.out)
    elapsed = time.perf_counter() - started
    if rules.tarocco is not None:
        return _tarocco_report(args, result, elapsed)
    contracts = counts.table()
    if args.json:
        summary = {
            "rules": rules.name,
            "deals": args.deals,
            "seed": args.seed,
            "bots": metadata["bots"],
            "mode": "auction",
            "redeals": counts.redeals,
            "contracts": {
                name: {key: _json_number(contracts.at[name, key]) for key in contracts.columns}
                for name in contracts.index
            },
            "seconds": round(elapsed, 3),
            "metadata": metadata,
        }
        print(json.dumps(summary, indent=2))
        return 0
    print(_play_report(counts, contracts, metadata, elapsed, args.out, args.bots_note))
    return 0


def _tarocco_report(args: argparse.Namespace, result: Any, elapsed: float) -> int:
    """Print what a Tarocco run tells, as text or JSON: the dealer's advantage, the premiums
    and the matches."""
    from tarot_analysis.runs.progress import speed

    rules = result.rules
    summary = result.summary()
    if args.json:
        print(json.dumps({
            "rules": rules.name, "deals": args.deals, "seed": args.seed, "bots": list(result.bots),
            "mode": "tarocco", **summary, "seconds": round(elapsed, 3), "metadata": result.metadata,
        }, indent=2))  # fmt: skip
        return 0
    advantage = summary["dealer_advantage"]
    lines = [
        f"Tarocco — rules {rules.name}, bots: {bots_said(result.bots, args.bots_note)}, "
        f"{args.deals:,} deals "
        f"({summary['matches']['n']:,} matches of {rules.tarocco.match_deals}), seed {args.seed}, "
        f"chunks of {result.chunk_size:,}, tarot-analysis {__version__}",
        f"{speed(args.deals, elapsed)} ({elapsed:.2f} s).",
        "",
        f"Dealer's advantage per deal: {advantage['mean']:+.2f} points "
        f"(95% interval {advantage['ci_low']:+.2f} to {advantage['ci_high']:+.2f}, n = "
        f"{advantage['n']:,}); the dealer counts {advantage['mean_dealer_total']:.2f}, each "
        f"other player {advantage['mean_other_total']:.2f}.",
        "",
        "Events per deal                     count       rate    95% interval",
    ]
    for name, entry in summary["events_per_deal"].items():
        lines.append(
            f"  {name.replace('_', ' '):<30} {entry['count']:>9,} {entry['rate']:>9.4%}   "
            f"{entry['ci_low']:.4%} – {entry['ci_high']:.4%}"
        )
    shared = summary["matches"]["shared_wins"]
    lines += [
        "",
        f"Matches won jointly (a shared top total): {shared['count']:,} of {shared['n']:,} "
        f"({shared['rate']:.2%}); the winner takes {summary['matches']['mean_winning_score']:.1f} "
        "points a match on average.",
    ]
    print("\n".join(lines))
    return 0


def _play_report(
    counts: Any, contracts: pd.DataFrame, metadata: dict[str, Any], elapsed: float,
    out: str | None, bots_note: str = "",
) -> str:  # fmt: skip
    from tarot_analysis.runs.progress import speed

    rules = counts.rules
    deals = counts.deals
    redeals = counts.redeals
    who = bots_said(metadata["bots"], bots_note)
    played = deals - redeals["total"]
    lines = [
        f"Contracts — rules {rules.name}, bots: {who}, {deals:,} deals, seed "
        f"{metadata['seed']}, chunks of {metadata['chunk_size']:,}, mode: auction, "
        f"tarot-analysis {__version__}",
        f"{speed(deals, elapsed)} ({elapsed:.2f} s). Redealt and left out: "
        f"{redeals['petit_sec']:,} with a Petit sec, {redeals['all_passed']:,} where everyone "
        f"passed; {played:,} deals played.",
    ]
    if out:
        lines.append(f"Every deal's outcome and score saved to {out}")
    shown = pd.DataFrame(index=contracts.index)
    shown["played"] = contracts["n"].map("{:,}".format)
    shown["share"] = (contracts["n"] / max(played, 1)).map("{:.1%}".format)
    shown["made"] = contracts["made"].map("{:,}".format)
    shown["success"] = contracts["rate"].map(lambda r: "—" if pd.isna(r) else f"{r:.1%}")
    shown["95% interval"] = [
        "—" if pd.isna(lo) else f"{lo:.1%} – {hi:.1%}"
        for lo, hi in zip(contracts["ci_low"], contracts["ci_high"], strict=True)
    ]
    shown["mean taker score"] = contracts["mean_taker_score"].map(
        lambda v: "—" if pd.isna(v) else f"{v:+.1f}"
    )
    return "\n".join([*lines, "", shown.to_string()])


def _save_scores(scores: pd.DataFrame, metadata: dict[str, Any], out: str) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from tarot_analysis.runs.simulate import check_output_path

    path = check_output_path(out)
    table = pa.Table.from_pandas(scores.reset_index(), preserve_index=False)
    table = table.replace_schema_metadata({b"tarot_analysis": json.dumps(metadata).encode()})
    from tarot_analysis.runs.files import replacing

    with replacing(path) as temporary:
        pq.write_table(table, temporary, compression="zstd", write_page_checksum=True)


def _json_number(value: Any) -> float | int | None:
    if isinstance(value, (int, float)) and pd.isna(value):
        return None
    return value.item() if hasattr(value, "item") else value
