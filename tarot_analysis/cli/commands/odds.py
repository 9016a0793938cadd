"""The ``odds`` command: the exact odds of where the cards a hand lacks lie."""

from __future__ import annotations

import argparse
import json
from typing import Any

# What the command runs is imported inside the functions that run it, not here: that keeps
# `tarot-analysis --help` and a mistake in the arguments quick (see tarot_analysis.cli.commands).


def add_parser(subparsers: Any) -> None:
    """Add ``odds`` to the subcommands of the command line."""
    odds = subparsers.add_parser(
        "odds",
        help="one hand: exact odds of where the cards it lacks lie",
        description=(
            "Exact chances, from the hand alone: how each suit's missing cards split, whether its "
            "king and queen pass, how the trumps split, whether another player holds a poignée, "
            "where the bouts are, what the dog brings. With --dog the seat takes the dog: the "
            "odds are then of the hand it keeps after the écart (--ecart, or the heuristic "
            "bot's)."
        ),
    )
    odds.add_argument("cards", help='the hand, e.g. "21 19 12 6 1 E KH CH 10H 8H 1H JD ..."')
    odds.add_argument("--rules", default="fft-4", help="preset name or TOML file (default fft-4)")
    odds.add_argument("--seat", type=int, default=0, help="the seat holding it (default 0)")
    odds.add_argument(
        "--dog", default=None, metavar="CARDS",
        help="the dog's cards: the seat takes it, and the odds are of its hand after the écart",
    )  # fmt: skip
    odds.add_argument(
        "--ecart", default=None, metavar="CARDS",
        help="the taker's écart, with --dog (default: the heuristic bot's)",
    )  # fmt: skip
    odds.add_argument("--json", action="store_true", help="print one JSON object")
    odds.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``tarot-analysis odds``: the exact odds of a hand, as text or JSON."""
    from tarot_analysis.deals.odds import hand_odds, odds_text
    from tarot_analysis.game.rules import load_rules

    rules = load_rules(args.rules)
    if args.dog is None:  # the hand as dealt: nothing compiled to load
        odds = hand_odds(args.cards, rules, seat=args.seat, ecart=args.ecart)
    else:
        from tarot_analysis.analyses.ecart import taker_odds

        odds = taker_odds(args.cards, rules, seat=args.seat, dog=args.dog, ecart=args.ecart)
    print(json.dumps(odds.to_json(), indent=2) if args.json else odds_text(odds))
    return 0
