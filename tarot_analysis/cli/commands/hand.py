"""The ``hand`` command: one hand's chances in every contract, its bid, call and écart."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from tarot_analysis import __version__
from tarot_analysis.cli.arguments import add_bots_option, number_of_deals, positive, seed
from tarot_analysis.cli.commands import bots_argument, bots_said, seated
from tarot_analysis.runs.cluster import add_cluster_options, dask_client

# What the command runs is imported inside the functions that run it, not here: that keeps
# `tarot-analysis --help` and a mistake in the arguments quick (see tarot_analysis.cli.commands).


def add_parser(subparsers: Any) -> None:
    """Add ``hand`` to the subcommands of the command line."""
    hand = subparsers.add_parser(
        "hand",
        help="one hand: its chances in every contract, the bid, the call, what the dog brings",
        description="Deal the rest of the pack around a hand many times and play every contract.",
    )
    hand.add_argument("cards", help='the hand, e.g. "21 19 12 6 1 E KH CH 10H 8H 1H JD ..."')
    hand.add_argument("--rules", default="fft-4", help="preset name or TOML file (default fft-4)")
    hand.add_argument("--seat", type=int, default=0, help="the seat holding it (default 0)")
    hand.add_argument(
        "--deals", type=number_of_deals, default=20_000, help="deals (default 20,000)"
    )
    hand.add_argument("--seed", type=seed, default=1, help="random seed (default 1)")
    add_bots_option(hand)
    hand.add_argument("--threads", type=positive, default=None)
    hand.add_argument(
        "--dog", default=None, metavar="CARDS",
        help="the dog's cards: the seat takes it; what this dog brings, the écarts ranked, and "
        "the odds of its hand after the best of them (and after its own écart if another)",
    )  # fmt: skip
    hand.add_argument(
        "--ecart", default=None, metavar="CARDS",
        help="the taker's own écart, with --dog: ranked among the écarts, the odds after it "
        "(default: the heuristic bot's)",
    )  # fmt: skip
    hand.add_argument(
        "--ecart-deals", type=positive, default=2_000,
        help="deals played for each candidate écart (default 2,000)",
    )  # fmt: skip
    hand.add_argument(
        "--html", default=None, metavar="FILE",
        help="also write the hand's page: contracts, calls, odds and écarts, one HTML file",
    )  # fmt: skip
    hand.add_argument("--json", action="store_true", help="print one JSON object")
    add_cluster_options(hand)
    hand.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``tarot-analysis hand``: the hand in every contract, its odds, the écarts with a dog."""
    from tarot_analysis.game.cards import Hand
    from tarot_analysis.game.rules import load_rules

    rules = load_rules(args.rules)
    held = Hand.parse(args.cards, size=rules.hand_size)
    seated(args, rules)
    from tarot_analysis.analyses.ecart import taker_odds
    from tarot_analysis.analyses.one_hand import analyse_hand
    from tarot_analysis.deals.odds import odds_text

    # Exact, from what is seen; a bad dog or écart, or a page that cannot be written, is
    # refused here, before any deal. With the dog, the odds are told again once the écarts are
    # ranked: after the best, and after the player's own if it is another.
    odds = taker_odds(held, rules, seat=args.seat, dog=args.dog, ecart=args.ecart)
    own_odds = None
    if args.html is not None:
        from tarot_analysis.runs.simulate import check_output_path

        check_output_path(Path(args.html))
    started = time.perf_counter()
    with dask_client(args.scheduler, args.workers) as client:
        analysis = analyse_hand(
            held, rules, seat=args.seat, deals=args.deals, bots=bots_argument(args.bots),
            seed=args.seed, threads=args.threads, client=client, dog=args.dog,
        )  # fmt: skip
    elapsed = time.perf_counter() - started
    advice = None
    if args.dog is not None:
        from tarot_analysis.analyses.ecart import ecart_advice, odds_after_ecarts

        advice = ecart_advice(
            held, args.dog, rules, seat=args.seat, deals=args.ecart_deals,
            bots=bots_argument(args.bots), seed=args.seed, ecart=args.ecart,
        )  # fmt: skip
        odds, own_odds = odds_after_ecarts(advice, rules)
    if args.html is not None:
        from tarot_analysis.report.hand_page import write_hand_page

        page = write_hand_page(args.html, analysis, odds, advice, own_odds)
        print(f"Page: {page}", file=sys.stderr)
    if args.json:
        found = analysis.to_json() | {"odds": odds.to_json()}
        if advice is not None:
            found["ecart"] = advice.to_json()
            found["odds_own_ecart"] = None if own_odds is None else own_odds.to_json()
        print(json.dumps(found | {"seconds": round(time.perf_counter() - started, 3)}, indent=2))
        return 0
    print(_hand_report(analysis, elapsed, args.seed, args.bots_note))
    if advice is not None:
        # The écarts first: the odds below are read after the best of them.
        print()
        print(advice.text())
    print()
    print(odds_text(odds))
    if advice is not None and own_odds is not None:
        rank = list(advice.table.index).index(advice.own) + 1  # best first
        print()
        print(f"The same odds after {own_odds.ecart_by}, ranked {rank} of {len(advice.table)}:")
        print(odds_text(own_odds))
    return 0


def _hand_report(analysis: Any, elapsed: float, seed: int, bots_note: str = "") -> str:
    from tarot_analysis.deals.odds import dog_text
    from tarot_analysis.report.plots import contract_label

    rules = analysis.rules
    ev = analysis.evaluations
    published = analysis.published_bids
    chavey_says = contract_label(published["chavey"])
    rule_of_thumb = contract_label(published["bouts_and_trumps"])
    bots = bots_said(analysis.bots, bots_note)
    lines = [
        f"Hand {analysis.hand} — rules {rules.name}, seat {analysis.seat}, "
        f"{analysis.deals:,} deals dealt around it, bots: {bots}, mode: counterfactual "
        f"(every contract played on the same deals), seed {seed}, "
        f"tarot-analysis {__version__} ({elapsed:.1f} s)",
        # What the published counts bid, told apart from the bid these deals recommend below.
        f"Evaluations: Chavey {ev['chavey']} (with distribution {ev['chavey_with_distribution']}; "
        f"published thresholds: {chavey_says}); bouts and trumps {ev['bouts_and_trumps']} "
        f"(rule of thumb: {rule_of_thumb})",
        f"Chavey's count, part by part: {analysis.chavey_sum}",
        "",
        "Each contract, the hand as dealt (the bid is made before the dog is seen):",
    ]
    summary = analysis.outcomes.summary()
    shown = pd.DataFrame(index=summary.index)
    shown["n"] = summary["n"].map("{:,}".format)
    shown["success"] = summary["rate"].map("{:.1%}".format)
    shown["95% interval"] = [
        f"{lo:.1%} – {hi:.1%}" for lo, hi in zip(summary["ci_low"], summary["ci_high"], strict=True)
    ]
    shown["mean score"] = summary["mean_score"].map("{:+.1f}".format)
    shown["95% interval "] = [
        f"{lo:+.1f} – {hi:+.1f}"
        for lo, hi in zip(summary["score_ci_low"], summary["score_ci_high"], strict=True)
    ]
    shown["taker points q1/median/q3"] = [
        f"{a:g} / {b:g} / {c:g}"
        for a, b, c in zip(
            summary["points_q1"], summary["points_median"], summary["points_q3"], strict=True
        )
    ]
    choice = analysis.choice
    lines += [
        shown.to_string(),
        "",
        f"Recommended bid: {analysis.recommended} (highest expected score; pass scores 0). "
        + _choice_text(choice, "points a deal"),
    ]
    if analysis.call is not None:
        lines.append(f"Call: {analysis.call} — the cards that may be called, best first:")
        for call, row in analysis.calls.iterrows():
            lead = (
                "best"
                if row["rank"] == 1
                else f"{row['difference']:+.1f} ({row['difference_ci_low']:+.1f} to "
                f"{row['difference_ci_high']:+.1f}) on the same deals"
                + (", a tie" if row["tie"] else "")
            )
            lines.append(
                f"  {row['rank']}. {call}: {row['mean_score']:+.1f} ({row['score_ci_low']:+.1f} "
                f"to {row['score_ci_high']:+.1f}) in {row['best_contract']}; {lead}"
            )
        if analysis.call_choice is not None:
            lines.append("  " + _choice_text(analysis.call_choice, "points a deal"))
    if analysis.dog_brings is not None:
        brings = analysis.dog_brings
        lines += ["", f"What this dog brings, {brings['cards']}: {dog_text(brings)}"]
    elif analysis.dog:
        unseen = 78 - rules.hand_size
        mean = {
            name: float(np.dot(law.index, law.to_numpy())) for name, law in analysis.dog.items()
        }
        lines += [
            "",
            f"What the dog brings (exact: {rules.dog_size} cards among the {unseen} unseen):",
            "  bouts: "
            + ", ".join(f"{k}: {v:.1%}" for k, v in analysis.dog["bouts"].items() if v > 0),
            f"  trumps: mean {mean['trumps']:.2f}; kings: mean {mean['kings']:.2f}; "
            f"card points: mean {mean['points']:.2f}",
        ]
    return "\n".join(lines)


def _choice_text(choice: dict[str, Any], unit: str) -> str:
    """``Ahead of garde by +4.1 points a deal (+1.2 to +7.0, paired over 20,000 deals).``, or
    the same as a tie when the interval reaches 0."""
    detail = (
        f"{choice['difference']:+.1f} {unit} ({choice['ci_low']:+.1f} to "
        f"{choice['ci_high']:+.1f}, deal by deal over {choice['n']:,} deals)"
    )
    if choice["tie"]:
        return f"A tie with {choice['runner_up']}: {choice['best']} leads by {detail}."
    return f"Ahead of {choice['runner_up']} by {detail}."
