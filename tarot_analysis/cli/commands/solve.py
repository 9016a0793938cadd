"""The ``solve`` command: the exact card points of a position with every hand visible."""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from tarot_analysis.cli.arguments import positive, positive_seconds
from tarot_analysis.cli.commands import SolveLine, sentence

# What the command runs is imported inside the functions that run it, not here: that keeps
# `tarot-analysis --help` and a mistake in the arguments quick (see tarot_analysis.cli.commands).


def add_parser(subparsers: Any) -> None:
    """Add ``solve`` to the subcommands of the command line."""
    solve = subparsers.add_parser(
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
    solve.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``tarot-analysis solve``: the value of the position and its best cards."""
    from tarot_analysis.game import cards
    from tarot_analysis.game.rules import load_rules
    from tarot_analysis.solver import SearchStopped, solve

    rules = load_rules(args.rules)
    trick = cards.parse_cards(args.trick) if args.trick.strip() else []
    started = time.perf_counter()
    progress = SolveLine(
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
            f"{header}\n{sentence(str(stopped))}, proved so far.\n"
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
