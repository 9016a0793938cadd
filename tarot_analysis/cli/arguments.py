"""What the commands share on their command lines: the parser, its exit status and the types.

The ``tarot-analysis`` command (:mod:`tarot_analysis.cli.program`) and its commands
(:mod:`tarot_analysis.cli.commands`), each of which adds its own subparser, read their
arguments with these, so that a mistake in any of them ends in the same one line.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import NoReturn

from tarot_analysis.errors import TarotInputError, deal_count

__all__ = [
    "EXIT_USAGE",
    "Parser",
    "add_run_options",
    "fraction",
    "non_negative",
    "number_of_deals",
    "positive",
    "positive_seconds",
    "seed",
]

#: Exit status of a usage mistake (argparse's own).
EXIT_USAGE = 2


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see --help)\n")


def positive(text: str) -> int:
    """A whole number of at least 1 (``1_000_000`` accepted)."""
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number of at least 1, got {value}")
    return value


def number_of_deals(text: str) -> int:
    """A number of deals: a whole number from 1 to
    :data:`~tarot_analysis.errors.MOST_DEALS` (:func:`~tarot_analysis.errors.deal_count`, the
    check every runner makes)."""
    try:
        return deal_count(positive(text))
    except TarotInputError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _number(text: str, what: str, within: str, fits: Callable[[float], bool]) -> float:
    """``text`` as a number that ``fits``, or one line saying it is not ``what``, ``within``."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
    if not fits(value):
        raise argparse.ArgumentTypeError(f"expected {within}, got {text}")
    return value


def positive_seconds(text: str) -> float:
    """A duration in seconds, more than 0 (``2.5`` accepted)."""
    return _number(
        text, "a number of seconds", "a positive number of seconds", lambda v: 0 < v < math.inf
    )


def fraction(text: str) -> float:
    """A fraction from 0 to below 1 (``0.1`` accepted)."""
    return _number(text, "a fraction", "a fraction from 0 to below 1", lambda v: 0 <= v < 1)


def non_negative(text: str) -> float:
    """A number of at least 0 (``0.5`` accepted)."""
    return _number(text, "a number", "a number of at least 0", lambda v: 0 <= v < math.inf)


def seed(text: str) -> int:
    """A random seed: a non-negative integer."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {value}")
    return value


def add_run_options(parser: argparse.ArgumentParser, *, deals: int) -> None:
    """The options of a run of deals: rules, deals, seed, chunking, threads, output, progress."""
    parser.add_argument("--rules", default="fft-4", help="preset name or TOML file (default fft-4)")
    parser.add_argument(
        "--deals", type=number_of_deals, default=deals,
        help=f"deals to simulate (default {deals:,})",
    )  # fmt: skip
    parser.add_argument("--seed", type=seed, default=1, help="random seed (default 1)")
    parser.add_argument(
        "--chunk-size", type=positive, default=None, help="deals per chunk (default 65,536)"
    )
    parser.add_argument(
        "--threads", type=positive, default=None, help="threads (default: every core)"
    )
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object instead of tables"
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def add_anchor_options(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """The options of a training on self-play anchored by a search's lessons."""
    parser.add_argument(
        "--anchor", metavar="FOLDER", default=None,
        help="a search's lessons of format 2 (teach --lesson-format 2) streamed between the "
        "chunks of self-play, so that every legal action keeps a target where self-play values "
        "the action taken alone",
    )  # fmt: skip
    parser.add_argument(
        "--anchor-chunks", type=positive, default=None, metavar="N",
        help="the anchor's first N chunks only (a run still going on)",
    )  # fmt: skip
