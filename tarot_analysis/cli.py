"""The ``tarot-analysis`` command.

Every mistake a user can make (a bad card, a bad rules file, an impossible option) ends with
one line on stderr that says what and where, and a non-zero exit status: no traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

import numpy as np
import pandas as pd

from tarot_analysis import __version__
from tarot_analysis.arguments import (
    EXIT_USAGE,
    Parser,
    add_run_options,
    fraction,
    non_negative,
    positive,
    positive_seconds,
    seed,
)
from tarot_analysis.cluster import add_cluster_options, dask_client
from tarot_analysis.errors import TarotInputError

__all__ = ["main"]

PROG = "tarot-analysis"
EXIT_INTERRUPTED = 130


def build_parser() -> argparse.ArgumentParser:
    """The command line: ``hands``, ``rules list`` and ``rules show``."""
    parser = Parser(prog=PROG, description="Statistics of French Tarot and its relatives.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=Parser)

    hands = commands.add_parser(
        "hands",
        help="hand statistics of a preset, simulated beside their exact values",
        description="Deal many times and compare every hand statistic with its exact value.",
    )
    add_run_options(hands, deals=1_000_000)
    hands.add_argument("--out", help="save every hand's features to this Parquet file")
    hands.add_argument(
        "--no-rows", action="store_true",
        help="keep no per-hand rows, only the tables (the default unless --out is given)",
    )  # fmt: skip
    add_cluster_options(hands)

    play = commands.add_parser(
        "play",
        help="play deals to the end with bots: contract frequencies and success rates",
        description="Deal, bid, call, take the dog, play and score many deals with bots.",
    )
    add_run_options(play, deals=100_000)
    play.add_argument(
        "--bots", nargs="+", default=["heuristic"], metavar="BOT",
        help="one bot for every seat, or one per seat (default heuristic)",
    )  # fmt: skip
    play.add_argument("--out", help="save every deal's outcome and score to this Parquet file")
    play.add_argument(
        "--no-rows", action="store_true",
        help="keep per-chunk contract counts only, not the deals: memory for the table alone",
    )  # fmt: skip
    add_cluster_options(play)

    replay = commands.add_parser(
        "replay",
        help="one deal trick by trick: hands, bids, dog, écart, tricks and score",
        description="Replay one deal of a 'play' run (same rules, seed, bots and chunk size).",
    )
    replay.add_argument("--rules", default="fft-4", help="preset name or TOML file (default fft-4)")
    replay.add_argument("--seed", type=seed, default=1, help="random seed (default 1)")
    replay.add_argument("--deal", type=seed, default=0, help="deal number, from 0 (default 0)")
    replay.add_argument("--bots", nargs="+", default=["heuristic"], metavar="BOT")
    replay.add_argument("--chunk-size", type=positive, default=None, help="as in the play run")
    replay.add_argument("--json", action="store_true", help="print the deal as one JSON object")

    solve = commands.add_parser(
        "solve",
        help="the exact card points of a position with every hand visible (double dummy)",
        description=(
            "Solve a card-play position with every hand visible: the card points the attack "
            "takes in the remaining tricks with best play on both sides, and the best cards."
        ),
    )
    solve.add_argument(
        "hands", nargs="+", metavar="HAND",
        help='one hand per seat in the notation, quoted ("21 KH 7H"); equal lengths',
    )  # fmt: skip
    solve.add_argument("--rules", default="fft-4", help="preset name or TOML file (default fft-4)")
    solve.add_argument("--leader", type=int, default=0, help="the seat that leads the trick")
    solve.add_argument(
        "--attack", type=int, nargs="+", default=[0], metavar="SEAT",
        help="the seats of the attack (default 0)",
    )  # fmt: skip
    solve.add_argument(
        "--trick", default="", help="cards already in the trick, from the leader on (quoted)"
    )
    solve.add_argument(
        "--max-nodes", type=positive, default=None, metavar="N",
        help="stop after searching N positions, with the value's interval proved so far",
    )  # fmt: skip
    solve.add_argument(
        "--time-limit", type=positive_seconds, default=None, metavar="SECONDS",
        help="stop after SECONDS, with the value's interval proved so far",
    )  # fmt: skip
    solve.add_argument(
        "--value-only", action="store_true",
        help="the card points alone, without the best cards (faster on long positions)",
    )  # fmt: skip
    solve.add_argument("--no-progress", action="store_true", help="no progress line")
    solve.add_argument("--json", action="store_true", help="print one JSON object")

    from tarot_analysis.dd_command import add_parsers as add_double_dummy_parsers

    add_double_dummy_parsers(commands)

    hand = commands.add_parser(
        "hand",
        help="one hand: its chances in every contract, the bid, the call, what the dog brings",
        description="Deal the rest of the pack around a hand many times and play every contract.",
    )
    hand.add_argument("cards", help='the hand, e.g. "21 19 12 6 1 E KH CH 10H 8H 1H JD ..."')
    hand.add_argument("--rules", default="fft-4", help="preset name or TOML file (default fft-4)")
    hand.add_argument("--seat", type=int, default=0, help="the seat holding it (default 0)")
    hand.add_argument("--deals", type=positive, default=20_000, help="deals (default 20,000)")
    hand.add_argument("--seed", type=seed, default=1, help="random seed (default 1)")
    hand.add_argument("--bots", nargs="+", default=["heuristic"], metavar="BOT")
    hand.add_argument("--threads", type=positive, default=None)
    hand.add_argument(
        "--dog", default=None, metavar="CARDS",
        help="the dog's cards: the odds once it is seen, and the écarts ranked",
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

    odds = commands.add_parser(
        "odds",
        help="one hand: exact odds of where the cards it lacks lie",
        description=(
            "Exact chances, from the hand alone (and the dog once seen): how each suit's missing "
            "cards split, whether its king and queen pass, how the trumps split, whether another "
            "player holds a poignée, where the bouts are, what the dog brings."
        ),
    )
    odds.add_argument("cards", help='the hand, e.g. "21 19 12 6 1 E KH CH 10H 8H 1H JD ..."')
    odds.add_argument("--rules", default="fft-4", help="preset name or TOML file (default fft-4)")
    odds.add_argument("--seat", type=int, default=0, help="the seat holding it (default 0)")
    odds.add_argument("--dog", default=None, metavar="CARDS", help="the dog's cards, once seen")
    odds.add_argument("--json", action="store_true", help="print one JSON object")

    guidance = commands.add_parser(
        "guidance",
        help="bidding guidance: success and expected score per contract by hand evaluation",
        description=(
            "Deal hands to seat 0 (or the last seat) and play every contract on each deal, and "
            "the deal once more with that seat passing; write the guidance tables and print a "
            "summary. The run is stored under --data and resumes if stopped."
        ),
    )
    add_run_options(guidance, deals=1_000_000)
    guidance.add_argument("--bots", nargs="+", default=["heuristic"], metavar="BOT")
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

    teach = commands.add_parser(
        "teach",
        help="lessons of the search bot: its measured value of every action, for learning",
        description=(
            "Play deals with the search bot pimc at every seat and store one row per decision "
            "it searched: what the seat knew (the encoding), the legal actions, the seat's mean "
            "score for each over the search's worlds, the action taken and the seat's score for "
            "the deal. The run is stored under --data and resumes if stopped."
        ),
    )  # fmt: skip
    add_run_options(teach, deals=1_000)
    teach.add_argument(
        "--worlds", type=positive, default=None,
        help="worlds the search draws for each decision (default: pimc's, 32)",
    )  # fmt: skip
    teach.add_argument("--data", help="folder of the run's Parquet chunks (default under data/)")
    add_cluster_options(teach)
    train = commands.add_parser(
        "train",
        help="train a network on the search bot's decisions: held-out loss, matches and regret",
        description=(
            "Train a multilayer perceptron on a run of the search bot's decisions to predict "
            "each legal action's value; hold out whole deals and report the loss, how often it "
            "takes the search's action and its regret. Needs the train extra (JAX, optax)."
        ),
    )
    train.add_argument(
        "data", metavar="DATA_FOLDER", nargs="+",
        help="the run folders of the decisions (several: runs of one preset, other seeds)",
    )  # fmt: skip
    train.add_argument("--out", required=True, metavar="MODEL.npz", help="the model file to write")
    train.add_argument(
        "--hidden", type=positive, nargs="+", default=[256, 128], metavar="WIDTH",
        help="the widths of the hidden layers (default 256 128)",
    )  # fmt: skip
    train.add_argument("--epochs", type=seed, default=20, help="passes over the data (default 20)")
    train.add_argument("--seed", type=seed, default=1, help="random seed (default 1)")
    train.add_argument(
        "--holdout", type=fraction, default=0.1,
        help="the fraction of the deals held out to measure the network (default 0.1)",
    )  # fmt: skip
    train.add_argument(
        "--choice-weight", type=non_negative, default=0.0, metavar="W",
        help="add W times the cross-entropy of the search's choice to the loss (default 0)",
    )  # fmt: skip
    train.add_argument("--no-progress", action="store_true", help="no progress bar")
    train.add_argument("--json", action="store_true", help="print the report as one JSON object")

    from tarot_analysis.compare import add_parser as add_compare_parser

    add_compare_parser(commands)
    from tarot_analysis import report

    report.add_parser(commands)

    rules = commands.add_parser("rules", help="list the rule presets or show one")
    rules_commands = rules.add_subparsers(dest="rules_command", required=True, parser_class=Parser)
    rules_commands.add_parser("list", help="the presets shipped with the toolkit")
    show = rules_commands.add_parser("show", help="every rule of one preset or rules file")
    show.add_argument("name", help="preset name or TOML file")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (2 for a usage error, as argparse)."""
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as stop:  # --help, --version, or a usage error already printed
        return stop.code if isinstance(stop.code, int) else EXIT_USAGE
    try:
        if args.command == "hands":
            return _hands(args)
        if args.command == "rules":
            return _rules(args)
        if args.command == "play":
            return _play(args)
        if args.command == "replay":
            return _replay(args)
        if args.command == "hand":
            return _hand(args)
        if args.command == "odds":
            return _odds(args)
        if args.command == "solve":
            return _solve(args)
        if args.command in ("dd", "dd-bound"):
            from tarot_analysis.dd_command import run_bound_command, run_dd_command

            return run_dd_command(args) if args.command == "dd" else run_bound_command(args)
        if args.command == "guidance":
            return _guidance(args)
        if args.command == "teach":
            return _teach(args)
        if args.command == "train":
            return _train(args)
        if args.command == "compare":
            from tarot_analysis.compare import run_command

            return run_command(args)
        if args.command == "report":
            from tarot_analysis.report import run_command as run_report

            args.kept = (
                f"the runs finished so far are kept in {args.data}; the same command goes on"
            )

            return run_report(args)
    except BrokenPipeError:
        # The reader of our output (``| head``) has gone: nothing is wrong, stop quietly.
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 (closed by the interpreter at exit)
        return 0
    except TarotInputError as error:
        from tarot_analysis.cluster import ClusterLost

        said = error.line() if isinstance(error, ClusterLost) else str(error)
        print(f"{PROG}: error: {said}", file=sys.stderr)
        return EXIT_USAGE
    except ModuleNotFoundError as error:  # an optional extra that is not installed
        extra = {"matplotlib": "plots"}.get(str(error.name), "plots")
        print(
            f"{PROG}: error: {args.command} needs {error.name}: "
            f"pip install 'tarot-analysis[{extra}]'",
            file=sys.stderr,
        )
        return EXIT_USAGE
    except OSError as error:
        where = f"{error.filename}: " if error.filename else ""
        print(f"{PROG}: error: {where}{error.strerror or error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt as stop:
        print(f"{PROG}: {_interrupted(args, stop)}", file=sys.stderr)
        _end_if_chunks_run_on()
        return EXIT_INTERRUPTED
    raise AssertionError(f"unhandled command {args.command}")


#: What an interrupted command keeps, when it keeps nothing (its results are written once
#: every deal is played); commands that store their runs set ``args.kept``.
NOTHING_KEPT = "nothing was kept: the results are written once the run ends"


def _sentence(text: str) -> str:
    """``text`` with a capital first letter, to open a sentence."""
    return text[:1].upper() + text[1:]


def _interrupted(args: argparse.Namespace, stop: KeyboardInterrupt) -> str:
    """The line of an interrupted command: what it kept. A solve says what it had proved."""
    if str(stop):
        return str(stop)
    return f"interrupted: {getattr(args, 'kept', NOTHING_KEPT)}"


def _end_if_chunks_run_on() -> None:
    """End the process now if worker threads still run chunks (compiled code, which Ctrl-C
    cannot stop): waiting for them would hold the command for as long as a chunk takes. A
    chunk file is written whole or not at all, so nothing is left half done."""
    import threading

    if any(
        thread is not threading.main_thread() and not thread.daemon and thread.is_alive()
        for thread in threading.enumerate()
    ):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(EXIT_INTERRUPTED)


def _rules(args: argparse.Namespace) -> int:
    from tarot_analysis.rules import DEFAULT_PRESET, format_rules, list_presets, load_rules

    if args.rules_command == "list":
        for name in list_presets():
            rules = load_rules(name)
            is_marked = name == DEFAULT_PRESET and "default" not in rules.description
            marker = " (default)" if is_marked else ""
            print(f"{name:<16} {rules.description}{marker}")
        return 0
    print(format_rules(load_rules(args.name)))
    return 0


def _hands(args: argparse.Namespace) -> int:
    from tarot_analysis.rules import load_rules

    rules = load_rules(args.rules)  # before the compiled core loads: a bad file fails at once

    from tarot_analysis.deal import DEFAULT_CHUNK_SIZE
    from tarot_analysis.hand_stats import run_hands

    if args.no_rows and args.out:
        raise TarotInputError("--out saves one row per hand; --no-rows keeps none: choose one")
    chunk_size = args.chunk_size or DEFAULT_CHUNK_SIZE
    started = time.perf_counter()
    with dask_client(args.scheduler, args.workers) as client:
        stats = run_hands(
            rules, args.deals, args.seed, chunk_size=chunk_size, threads=args.threads,
            progress=not (args.no_progress or args.json), out=args.out, client=client,
        )  # fmt: skip
    elapsed = time.perf_counter() - started
    if args.json:
        result = stats.to_json()
        result["seconds"] = round(elapsed, 3)
        if args.out:
            result["out"] = args.out
        print(json.dumps(result, indent=2))
        return 0
    print(_hands_report(stats, elapsed, args.out))
    return 0


def _bots(names: list[str], players: int) -> str | list[str]:
    return names[0] if len(names) == 1 else names


def _play(args: argparse.Namespace) -> int:
    from tarot_analysis.rules import load_rules

    rules = load_rules(args.rules)  # before the compiled core loads: a bad file fails fast
    if args.no_rows and args.out:
        raise TarotInputError("--out saves one row per deal; --no-rows keeps none: choose one")
    if rules.tarocco is not None:
        if args.no_rows:
            raise TarotInputError(f"{rules.name}: --no-rows counts contracts; Tarocco has none")
        return _play_tarocco(args, rules)
    from tarot_analysis.deal import DEFAULT_CHUNK_SIZE
    from tarot_analysis.memory import check_memory
    from tarot_analysis.play import play, play_counts
    from tarot_analysis.progress import SCORING, step
    from tarot_analysis.simulate import check_output_path

    if not args.no_rows:
        check_memory("play", args.deals, "--no-rows")
    if args.out:
        check_output_path(args.out)
    chunk_size = args.chunk_size or DEFAULT_CHUNK_SIZE
    started = time.perf_counter()
    options = {
        "bots": _bots(args.bots, rules.players), "seed": args.seed, "chunk_size": chunk_size,
        "threads": args.threads, "progress": not (args.no_progress or args.json),
    }  # fmt: skip
    with dask_client(args.scheduler, args.workers) as client:
        if args.no_rows:
            counts, metadata = play_counts(rules, args.deals, client=client, **options)
        else:
            result = play(rules, args.deals, client=client, **options)
            with step(SCORING, bool(options["progress"]), detail=rules.name):
                scores = result.scores()
                counts, metadata = result.counts(scores), result.metadata
            if args.out:
                _save_scores(scores, metadata, args.out)
    elapsed = time.perf_counter() - started
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
    print(_play_report(counts, contracts, metadata, elapsed, args.out))
    return 0


def _play_tarocco(args: argparse.Namespace, rules: Any) -> int:
    from tarot_analysis.simulate import check_output_path
    from tarot_analysis.tarocco import play_tarocco_run

    if args.out:
        check_output_path(args.out)
    started = time.perf_counter()
    with dask_client(args.scheduler, args.workers) as client:
        result = play_tarocco_run(
            rules, args.deals, bots=_bots(args.bots, rules.players), seed=args.seed,
            chunk_size=args.chunk_size, threads=args.threads,
            progress=not (args.no_progress or args.json), client=client,
        )  # fmt: skip
    elapsed = time.perf_counter() - started
    summary = result.summary()
    if args.out:
        _save_scores(result.deal_scores(), result.metadata, args.out)
    if args.json:
        print(json.dumps({
            "rules": rules.name, "deals": args.deals, "seed": args.seed, "bots": list(result.bots),
            "mode": "tarocco", **summary, "seconds": round(elapsed, 3), "metadata": result.metadata,
        }, indent=2))  # fmt: skip
        return 0
    advantage = summary["dealer_advantage"]
    bots = (
        ", ".join(result.bots) if len(set(result.bots)) > 1 else f"{result.bots[0]} at every seat"
    )
    lines = [
        f"Tarocco — rules {rules.name}, bots: {bots}, {args.deals:,} deals "
        f"({summary['matches']['n']:,} matches of {rules.tarocco.match_deals}), seed {args.seed}, "
        f"chunks of {result.chunk_size:,}, tarot-analysis {__version__}",
        f"{args.deals / elapsed:,.0f} deals per second ({elapsed:.2f} s).",
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


def _odds(args: argparse.Namespace) -> int:
    from tarot_analysis.odds import hand_odds, odds_text
    from tarot_analysis.rules import load_rules

    rules = load_rules(args.rules)
    odds = hand_odds(args.cards, rules, seat=args.seat, dog=args.dog)
    print(json.dumps(odds.to_json(), indent=2) if args.json else odds_text(odds))
    return 0


def _hand(args: argparse.Namespace) -> int:
    from tarot_analysis.cards import Hand
    from tarot_analysis.rules import load_rules

    rules = load_rules(args.rules)
    held = Hand.parse(args.cards, size=rules.hand_size)
    from tarot_analysis.odds import hand_odds, odds_text
    from tarot_analysis.one_hand import analyse_hand

    # Exact, from what is seen; a bad dog, or a page that cannot be written, is refused here,
    # before any deal.
    odds = hand_odds(held, rules, seat=args.seat, dog=args.dog)
    if args.html is not None:
        from tarot_analysis.simulate import check_output_path

        check_output_path(Path(args.html))
    started = time.perf_counter()
    with dask_client(args.scheduler, args.workers) as client:
        analysis = analyse_hand(
            held, rules, seat=args.seat, deals=args.deals, bots=_bots(args.bots, rules.players),
            seed=args.seed, threads=args.threads, client=client,
        )  # fmt: skip
    elapsed = time.perf_counter() - started
    advice = None
    if args.dog is not None:
        from tarot_analysis.ecart import ecart_advice

        advice = ecart_advice(
            held, args.dog, rules, seat=args.seat, deals=args.ecart_deals,
            bots=_bots(args.bots, rules.players), seed=args.seed,
        )  # fmt: skip
    if args.html is not None:
        from tarot_analysis.report.hand_page import write_hand_page

        page = write_hand_page(args.html, analysis, odds, advice)
        print(f"Page: {page}", file=sys.stderr)
    if args.json:
        found = analysis.to_json() | {"odds": odds.to_json()}
        if advice is not None:
            found["ecart"] = advice.to_json()
        print(json.dumps(found | {"seconds": round(time.perf_counter() - started, 3)}, indent=2))
        return 0
    print(_hand_report(analysis, elapsed, args.seed))
    print()
    print(odds_text(odds))
    if advice is not None:
        print()
        print(advice.text())
    return 0


def _hand_report(analysis: Any, elapsed: float, seed: int) -> str:
    from tarot_analysis.evaluators import bid_names, bouts_and_trumps_bid, chavey_bid, chavey_sum
    from tarot_analysis.plots import contract_label

    rules = analysis.rules
    ev = analysis.evaluations
    chavey_says = contract_label(str(bid_names(chavey_bid(
        ev["chavey"], ev["chavey_with_distribution"], hand_size=rules.hand_size))))  # fmt: skip
    rule_of_thumb = contract_label(
        str(bid_names(bouts_and_trumps_bid(ev["bouts_and_trumps"], hand_size=rules.hand_size)))
    )
    bots = (
        analysis.bots[0] + " at every seat"
        if len(set(analysis.bots)) == 1
        else ", ".join(analysis.bots)
    )
    lines = [
        f"Hand {analysis.hand} — rules {rules.name}, seat {analysis.seat}, "
        f"{analysis.deals:,} deals dealt around it, bots: {bots}, mode: counterfactual "
        f"(every contract played on the same deals), seed {seed}, "
        f"tarot-analysis {__version__} ({elapsed:.1f} s)",
        # What the published counts bid, told apart from the bid these deals recommend below.
        f"Evaluations: Chavey {ev['chavey']} (with distribution {ev['chavey_with_distribution']}; "
        f"published thresholds: {chavey_says}); bouts and trumps {ev['bouts_and_trumps']} "
        f"(rule of thumb: {rule_of_thumb})",
        f"Chavey's count, part by part: {chavey_sum(analysis.hand)}",
        "",
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
    if analysis.dog:
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


def _teach(args: argparse.Namespace) -> int:
    from tarot_analysis.bots.pimc import DEFAULT_WORLDS
    from tarot_analysis.rules import load_rules
    from tarot_analysis.simulate import check_writable_folder
    from tarot_analysis.teacher import DEFAULT_CHUNK_SIZE, lesson_counts, teach

    rules = load_rules(args.rules)
    worlds = args.worlds or DEFAULT_WORLDS
    folder = args.data or f"data/lessons-{rules.name}-pimc{worlds}-seed{args.seed}-{args.deals}"
    check_writable_folder(folder, " for the run's chunks")
    args.kept = f"the chunks finished so far are kept in {folder}; the same command goes on"
    started = time.perf_counter()
    with dask_client(args.scheduler, args.workers) as client:
        result = teach(
            rules, args.deals, folder, worlds=worlds, seed=args.seed,
            chunk_size=args.chunk_size or DEFAULT_CHUNK_SIZE, threads=args.threads,
            progress=not (args.no_progress or args.json), client=client,
        )  # fmt: skip
    counts = lesson_counts(folder)
    elapsed = time.perf_counter() - started
    if args.json:
        print(json.dumps({
            "rules": rules.name, "deals": args.deals, "seed": args.seed, "bot": f"pimc:{worlds}",
            "data": str(folder), "rows": int(sum(counts.values())), "by_decision": counts,
            "chunks": result.chunks, "computed": result.computed, "resumed": result.resumed,
            "seconds": round(elapsed, 3),
        }, indent=2))  # fmt: skip
        return 0
    print(
        f"{rules.name}: {args.deals:,} deals played by pimc:{worlds} at every seat (seed "
        f"{args.seed}); {sum(counts.values()):,} decisions stored in {folder}"
    )
    for decision, count in counts.items():
        print(f"  {decision:8} {count:>10,}")
    print(
        f"{result.computed} chunks computed, {result.resumed} kept from an earlier run, "
        f"{elapsed:.1f} s"
    )
    return 0


def _guidance(args: argparse.Namespace) -> int:
    from tarot_analysis.rules import load_rules

    rules = load_rules(args.rules)
    if rules.tarocco is not None:
        raise TarotInputError(f"{rules.name} has no contracts: there is no bid to advise")
    from tarot_analysis.guidance import (
        best_choices,
        can_fit,
        compare_evaluators,
        guidance_tables,
        run_guidance,
        save_tables,
        seat_comparison,
        table_by,
    )

    bots = _bots(args.bots, rules.players)
    label = "-".join(args.bots)
    kept = "-counts" if args.no_rows else ""  # a run of counts never shares a folder of rows
    base = args.data or f"data/guidance-{rules.name}-{label}-seed{args.seed}-{args.deals}{kept}"
    last_seat = rules.players - 1
    # The last seat's run beside the first's: its own folder.
    folders = {0: base, last_seat: base if args.seat == "last" else f"{base}-last"}
    seats = {"first": [0], "last": [last_seat], "both": [0, last_seat]}[args.seat]
    data_folder = folders[seats[0]]
    tables_folder = args.tables or f"reports/guidance-{rules.name}-{label}" + (
        "-last" if args.seat == "last" else ""
    )
    from tarot_analysis.memory import check_memory
    from tarot_analysis.simulate import check_writable_folder

    if not args.no_rows:
        check_memory("guidance", args.deals, "--no-rows", runs=len(seats))
    check_writable_folder(tables_folder, " for the tables")
    for folder in {*(folders[seat] for seat in seats)}:
        check_writable_folder(folder, " for the run's chunks")
    started = time.perf_counter()
    progress = not (args.no_progress or args.json)
    kept_in = " and ".join(sorted({folders[seat] for seat in seats}))
    args.kept = f"the chunks finished so far are kept in {kept_in}; the same command goes on"

    runs = {}
    with dask_client(args.scheduler, args.workers) as client:
        for seat in seats:
            runs[seat] = run_guidance(
                rules, args.deals, folders[seat], bots=bots, seed=args.seed,
                chunk_size=args.chunk_size or 50_000, threads=args.threads,
                progress=progress, client=client, rows=not args.no_rows, seat=seat,
            )  # fmt: skip
    data = runs[seats[0]]
    tables = guidance_tables(data, progress=progress)
    by_seat = seat_comparison(runs[0], runs[last_seat]) if len(runs) == 2 else None
    if by_seat is not None:
        tables["by_seat"] = by_seat
    comparison: dict[str, Any] | None = None
    if data.frame is not None and can_fit(data):  # the model needs rows, and enough of them
        comparison = compare_evaluators(
            data, "garde" if "garde" in data.contracts else data.contracts[0], progress=progress
        )
        tables["model_coefficients"] = comparison["coefficients"]
        tables["by_model"] = comparison["by_model"]
        for name, frame in comparison["calibration"].items():
            tables[f"calibration_{name}"] = frame
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


_COMPARED = ("contract", "n_train", "n_test", "fitted", "chavey", "fitted_minus_chavey")


def _records(table: pd.DataFrame) -> list[dict[str, Any]]:
    """A table as JSON records, its index as columns; infinities and NaN as null."""
    frame = table.reset_index().replace([np.inf, -np.inf], np.nan).astype(object)
    records = frame.where(frame.notna(), None).to_dict(orient="records")
    return [{str(key): value for key, value in record.items()} for record in records]


def _plain_floats(series: pd.Series) -> dict[str, float]:
    return {str(key): round(float(value), 4) for key, value in series.items()}


def _guidance_report(
    data: Any, tables: dict[str, pd.DataFrame], comparison: dict[str, Any] | None,
    data_folder: str, tables_folder: str, elapsed: float, args: argparse.Namespace,
) -> str:  # fmt: skip
    from tarot_analysis.bootstrap import REPLICATES
    from tarot_analysis.guidance import best_ranges

    rules = data.rules
    bots = data.bots[0] + " at every seat" if len(set(data.bots)) == 1 else ", ".join(data.bots)
    ranges = best_ranges(tables["by_chavey"], min_n=200)
    lines = [
        f"Bidding guidance — rules {rules.name}, bots: {bots}, {args.deals:,} deals to seat 0 "
        f"({data.played_deals:,} played; Petit-sec redeals left out), mode: counterfactual "
        f"(every contract played on each deal; pass scores 0), seed {args.seed}, "
        f"tarot-analysis {__version__} ({elapsed:.1f} s)",
        f"Run data: {data_folder}   Tables (CSV): {tables_folder}",
        "",
        "Best contract by Chavey count (highest mean taker score; counts held by 200 deals or "
        "more; a ≈ b: a tie, the 95% interval of their paired difference reaches 0):",
    ]
    for _, run in ranges.iterrows():
        span = f"{run['low']}" if run["low"] == run["high"] else f"{run['low']}–{run['high']}"
        lines.append(
            f"  {span:>7}  {run['best']:<22} {run['n']:>9,} deals, its mean score "
            f"{run['mean_best_score']:+7.2f} ± {run['half_width']:.2f}"
        )
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
    for _, run in best_ranges(played_pass, min_n=200, reading="played").iterrows():
        span = f"{run['low']}" if run["low"] == run["high"] else f"{run['low']}–{run['high']}"
        lines.append(
            f"  {span:>7}  {run['best']:<22} {run['n']:>9,} deals, its mean score "
            f"{run['mean_best_score']:+7.2f} ± {run['half_width']:.2f}"
        )
    changes = tables["by_chavey"]["best_changes"]
    steady = tables["by_chavey"][tables["by_chavey"]["n"] >= 200]
    unstable = changes.reindex(steady.index)
    unstable = unstable[unstable >= 0.05]
    lines.append(
        f"  Counts whose best changes in 5% or more of {REPLICATES} bootstrap replicates: "
        + (", ".join(f"{k} ({v:.0%})" for k, v in unstable.items()) or "none")
    )
    if "thresholds" not in tables:
        from tarot_analysis.guidance import not_fitted

        lines += ["", f"{_sentence(not_fitted(data))}."]
        return "\n".join(lines)
    lines += [
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
    if comparison is None:
        lines += ["", "No fitted model: the run kept counts, not rows (--no-rows)."]
        return "\n".join(lines)
    contract = comparison["contract"]
    lines += [
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
    return "\n".join(lines)


def _count_text(value: float) -> str:
    """A threshold: a whole count, or ``none`` where the rule never reaches it."""
    return "none" if not np.isfinite(value) else f"{value:.0f}"


def _json_number(value: Any) -> float | int | None:
    if isinstance(value, (int, float)) and pd.isna(value):
        return None
    return value.item() if hasattr(value, "item") else value


def _save_scores(scores: pd.DataFrame, metadata: dict[str, Any], out: str) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from tarot_analysis.simulate import check_output_path

    path = check_output_path(out)
    table = pa.Table.from_pandas(scores.reset_index(), preserve_index=False)
    table = table.replace_schema_metadata({b"tarot_analysis": json.dumps(metadata).encode()})
    from tarot_analysis.files import replacing

    with replacing(path) as temporary:
        pq.write_table(table, temporary, compression="zstd", write_page_checksum=True)


def _play_report(
    counts: Any, contracts: pd.DataFrame, metadata: dict[str, Any], elapsed: float,
    out: str | None,
) -> str:  # fmt: skip
    rules = counts.rules
    deals = counts.deals
    redeals = counts.redeals
    bots = metadata["bots"]
    who = ", ".join(bots) if len(set(bots)) > 1 else f"{bots[0]} at every seat"
    played = deals - redeals["total"]
    lines = [
        f"Contracts — rules {rules.name}, bots: {who}, {deals:,} deals, seed "
        f"{metadata['seed']}, chunks of {metadata['chunk_size']:,}, mode: auction, "
        f"tarot-analysis {__version__}",
        f"{deals / elapsed:,.0f} deals per second ({elapsed:.2f} s). Redealt and left out: "
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


def _solve(args: argparse.Namespace) -> int:
    from tarot_analysis import cards
    from tarot_analysis.rules import load_rules
    from tarot_analysis.solver import SearchStopped, solve

    rules = load_rules(args.rules)
    trick = cards.parse_cards(args.trick) if args.trick.strip() else []
    started = time.perf_counter()
    progress = _SolveProgress(
        f"{rules.name}, {sum(len(hand.split()) for hand in args.hands)} cards",
        enabled=not (args.no_progress or args.json),
    )
    stopped: SearchStopped | None = None
    try:
        with progress:  # a line that says "done" only when the solve is
            solution = solve(
                rules, args.hands, leader=args.leader, attack=args.attack, trick=trick,
                max_nodes=args.max_nodes, time_limit=args.time_limit, progress=progress,
                best_cards=not args.value_only,
            )  # fmt: skip
    except SearchStopped as stop:
        stopped = stop
    seconds = time.perf_counter() - started
    attack = sorted(set(args.attack))
    if args.json:
        shown: dict[str, Any] = {
            "rules": rules.name, "hands": list(args.hands), "leader": args.leader,
            "attack": attack, "trick": [cards.card_name(c) for c in trick],
        }  # fmt: skip
        if stopped is None:
            shown |= {
                "exact": True, "attack_points": solution.attack_points,
                "best_cards": list(solution.best_cards), "petit_au_bout": solution.petit_au_bout,
                "nodes": solution.nodes,
            }  # fmt: skip
        else:
            shown |= {
                "exact": False, "stopped": str(stopped), "attack_points_low": stopped.low,
                "attack_points_high": stopped.high, "nodes": stopped.nodes,
            }  # fmt: skip
        print(json.dumps(shown | {"seconds": round(seconds, 4)}))
        return 0
    to_play = (args.leader + len(trick)) % rules.players
    header = (
        f"{rules.name}, double dummy: seat {args.leader} leads, the attack is seat(s) "
        f"{', '.join(str(seat) for seat in attack)}"
    )
    if stopped is not None:
        print(
            f"{header}\n{_sentence(str(stopped))}, proved so far.\n"
            f"({stopped.nodes:,} positions searched in {seconds:.3f} s)"
        )
        return 0
    best = (
        ""
        if args.value_only
        else f"Best cards for seat {to_play}: {' '.join(solution.best_cards)}\n"
    )
    print(
        f"{header}\n"
        f"The attack takes {solution.attack_points:g} card points in the remaining tricks with "
        f"best play on both sides.\n"
        f"{best}({solution.nodes:,} positions searched in {seconds:.3f} s)"
    )
    return 0


class _SolveProgress:
    """The progress line of a solve, from its first second on (a quick solve shows none):
    the time so far, the interval of the value proved and the positions searched. Called by
    the solver between slices of its search; a context manager that closes the line."""

    def __init__(self, detail: str, *, enabled: bool) -> None:
        from contextlib import ExitStack

        self.detail = detail
        self.enabled = enabled
        self.started = time.perf_counter()
        self.shown: Any = None
        self.stack = ExitStack()

    def __enter__(self) -> _SolveProgress:
        return self

    def __exit__(self, *failure: Any) -> None:
        self.stack.__exit__(*failure)

    def __call__(self, where: Any) -> None:
        from tarot_analysis.progress import SOLVING, TICK_SECONDS, step

        if not self.enabled or time.perf_counter() - self.started < TICK_SECONDS:
            return
        if self.shown is None:
            self.shown = self.stack.enter_context(step(SOLVING, detail=self.detail))
        interval = (
            f"{where.low:g}" if where.low == where.high else f"{where.low:g} to {where.high:g}"
        )
        self.shown.set_postfix_str(
            f"attack's points {interval}, {where.nodes:,} positions", refresh=False
        )


def _train(args: argparse.Namespace) -> int:
    from tarot_analysis.training import train_folder

    report = train_folder(
        args.data, args.out, hidden=tuple(args.hidden), epochs=args.epochs, seed=args.seed,
        holdout=args.holdout, choice_weight=args.choice_weight, progress=not args.no_progress,
    )  # fmt: skip
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(_train_report(report))
    return 0


def _train_report(report: dict[str, Any]) -> str:
    """The training's report for people: the data, the network, then each part's numbers."""
    widths = " → ".join(str(w) for w in report["widths"])
    lines = [
        f"{report['rules']}: {report['rows']:,} decisions of {report['deals']:,} deals "
        f"({report['skipped']:,} without values skipped), seed {report['seed']}",
        f"network {widths}, {report['epochs']} epochs, choice weight {report['choice_weight']}",
        f"model written to {report['out']}",
        "",
        f"{'':<10}{'decisions':>10}{'deals':>7}{'loss':>9}{'matches':>9}"
        f"{'regret (95% interval by deal)':>32}{'random':>8}",
    ]
    for name, part in (("training", report["train"]), ("held out", report["held_out"])):
        if not part["rows"]:
            lines.append(f"{name:<10}{0:>10}")
            continue
        regret = part["regret"]
        interval = (
            f"{regret['mean']:.2f} ({regret['ci_low']:.2f} to {regret['ci_high']:.2f})"
            if regret["ci_low"] is not None
            else f"{regret['mean']:.2f}"
        )
        lines.append(
            f"{name:<10}{part['rows']:>10,}{part['deals']:>7,}{part['loss']:>9.4f}"
            f"{part['match_rate']:>9.1%}{interval:>32}{part['random_regret']['mean']:>8.2f}"
        )
    lines += [
        "",
        "loss: squared error of the legal actions' advantages, in hundreds of points",
        "matches: the search's own action taken",
        "regret: points per decision below the search's best action, by the search's values",
        "random: the regret of a random legal action",
    ]
    return "\n".join(lines)


def _replay(args: argparse.Namespace) -> int:
    from tarot_analysis.rules import load_rules

    rules = load_rules(args.rules)  # before the compiled core loads: a bad file fails fast
    if rules.tarocco is not None:
        from tarot_analysis.replay import describe_tarocco, record_tarocco
        from tarot_analysis.tarocco import replay_tarocco

        tarocco = replay_tarocco(
            rules, args.deal, bots=_bots(args.bots, rules.players), seed=args.seed,
            chunk_size=args.chunk_size,
        )  # fmt: skip
        if args.json:
            print(json.dumps(record_tarocco(tarocco, deal_number=args.deal), indent=2))
        else:
            print(describe_tarocco(tarocco, deal_number=args.deal))
        return 0
    from tarot_analysis.deal import DEFAULT_CHUNK_SIZE
    from tarot_analysis.play import replay
    from tarot_analysis.replay import describe, record

    chunk_size = args.chunk_size or DEFAULT_CHUNK_SIZE
    result = replay(
        rules, args.deal, bots=_bots(args.bots, rules.players), seed=args.seed,
        chunk_size=chunk_size,
    )  # fmt: skip
    if args.json:
        print(json.dumps(record(result, deal_number=args.deal), indent=2))
    else:
        print(describe(result, deal_number=args.deal))
    return 0


def _format_table(table: pd.DataFrame, title: str) -> str:
    shown = pd.DataFrame(index=table.index)
    if "per" in table:
        shown["per"] = table["per"]
    if "trumps_with_excuse" in table:
        shown["trumps+E"] = table["trumps_with_excuse"]
    shown["n"] = table["n"].map("{:,}".format)
    shown["count"] = table["count"].map("{:,}".format)
    shown["simulated"] = table["simulated"].map(_rate)
    shown["95% interval"] = [
        f"{_rate(lo)} – {_rate(hi)}"
        for lo, hi in zip(table["ci_low"], table["ci_high"], strict=True)
    ]
    shown["exact"] = table["exact"].map(_rate)
    lines = [title, shown.to_string()]
    gof = table.attrs.get("gof")
    if gof is not None:
        who = "the dog" if table.attrs.get("who") == "dog" else "seat 0"
        lines.append(
            f"chi-square vs exact ({who}): {gof.statistic:.2f} on {gof.dof} df, "
            f"p = {gof.p_value:.3g}"
        )
    return "\n".join(lines)


def _rate(value: Any) -> str:
    if pd.isna(value):
        return "—"
    return f"{value:.6f}" if value >= 1e-4 or value == 0 else f"{value:.3e}"


TITLES = {
    "bouts": "Bouts per hand",
    "trumps": "Trumps per hand (Excuse not counted)",
    "kings": "Kings per hand",
    "voids": "Voids per hand",
    "singletons": "Singletons per hand",
    "longest_suit": "Longest suit per hand",
    "poignee": "Poignée: a hand holding at least each level, and a deal where someone does",
    "petit_sec": "Petit sec: per hand, and per deal (the deal is void)",
    "points": "Card points per hand",
    "dog_bouts": "Bouts in the dog",
}


def _hands_report(stats: Any, elapsed: float, out: str | None) -> str:
    rules = stats.rules
    header = [
        f"Hand statistics — rules {rules.name}, {stats.deals:,} deals, seed "
        f"{stats.metadata['seed']}, chunks of {stats.chunk_size:,}, tarot-analysis {__version__}",
        f"{stats.deals / elapsed:,.0f} deals per second ({elapsed:.2f} s). Rates pool the "
        f"{rules.players} seats (n = deals × {rules.players}); intervals are Wilson 95%.",
    ]
    if out:
        header.append(f"Per-hand features saved to {out}")
    sections = ["\n".join(header)]
    for name, table in stats.tables().items():
        sections.append(_format_table(table, TITLES.get(name, name)))
    return "\n\n".join(sections)


if __name__ == "__main__":
    sys.exit(main())
