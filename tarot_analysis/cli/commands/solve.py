"""The ``solve`` command: the exact card points of a position with every hand visible."""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from tarot_analysis.cli.arguments import positive, positive_seconds
from tarot_analysis.cli.commands import sentence

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
        from tarot_analysis.runs.progress import SOLVING, TICK_SECONDS, step

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
