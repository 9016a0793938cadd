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
from typing import Any, NoReturn

import pandas as pd

from tarot_analysis import __version__
from tarot_analysis.errors import TarotInputError

__all__ = ["main"]

PROG = "tarot-analysis"
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see --help)\n")


def _positive(text: str) -> int:
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number of at least 1, got {value}")
    return value


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {value}")
    return value


def _add_run_options(parser: argparse.ArgumentParser, *, deals: int) -> None:
    parser.add_argument("--rules", default="fft-4", help="preset name or TOML file (default fft-4)")
    parser.add_argument(
        "--deals", type=_positive, default=deals, help=f"deals to simulate (default {deals:,})"
    )
    parser.add_argument("--seed", type=_seed, default=1, help="random seed (default 1)")
    parser.add_argument(
        "--chunk-size", type=_positive, default=None, help="deals per chunk (default 65,536)"
    )
    parser.add_argument(
        "--threads", type=_positive, default=None, help="threads (default: every core)"
    )
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object instead of tables"
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def build_parser() -> argparse.ArgumentParser:
    """The command line: ``hands``, ``rules list`` and ``rules show``."""
    parser = _Parser(prog=PROG, description="Statistics of French Tarot and its relatives.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    hands = commands.add_parser(
        "hands",
        help="hand statistics of a preset, simulated beside their exact values",
        description="Deal many times and compare every hand statistic with its exact value.",
    )
    _add_run_options(hands, deals=1_000_000)
    hands.add_argument("--out", help="save every hand's features to this Parquet file")

    rules = commands.add_parser("rules", help="list the rule presets or show one")
    rules_commands = rules.add_subparsers(dest="rules_command", required=True, parser_class=_Parser)
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
    except TarotInputError as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as error:
        where = f"{error.filename}: " if error.filename else ""
        print(f"{PROG}: error: {where}{error.strerror or error}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        # The reader of our output (``| head``) has gone: nothing is wrong, stop quietly.
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 (closed by the interpreter at exit)
        return 0
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    raise AssertionError(f"unhandled command {args.command}")


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

    chunk_size = args.chunk_size or DEFAULT_CHUNK_SIZE
    started = time.perf_counter()
    stats = run_hands(
        rules, args.deals, args.seed, chunk_size=chunk_size, threads=args.threads,
        progress=not (args.no_progress or args.json), out=args.out,
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
