"""What the commands share on their command lines: the parser, its exit status and the types.

The ``tarot-analysis`` command (:mod:`tarot_analysis.cli.program`) and its commands
(:mod:`tarot_analysis.cli.commands`), each of which adds its own subparser, read their
arguments with these, so that a mistake in any of them ends in the same one line.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NoReturn

from tarot_analysis.errors import TarotInputError, deal_count

__all__ = [
    "BOTS_HELP",
    "EXIT_USAGE",
    "Parser",
    "add_bots_option",
    "add_run_options",
    "bot_name",
    "fraction",
    "non_negative",
    "number_of_deals",
    "positive",
    "positive_seconds",
    "seed",
]

#: Exit status of a usage mistake (argparse's own).
EXIT_USAGE = 2


#: The help of ``--bots`` where the command gives answers and has nothing more to say of its
#: bots: the default is chosen by the preset (:func:`tarot_analysis.bots.default.default_bot`).
BOTS_HELP = (
    "one bot for every seat, or one per seat (default learned, the network shipped for the "
    "preset; heuristic for a preset with none, which the output says beside the bots; "
    "--bots heuristic for the rule-based bot's answers)"
)


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, and whose lists of bots (the options of
    :func:`add_bots_option`) end at the first word that is not a bot's name: in
    ``hand --bots heuristic "21 19 12 ..."`` the hand is the hand, not one more bot."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see --help)\n")

    def parse_known_args(
        self, args: Iterable[str] | None = None, namespace: Any = None
    ) -> tuple[Any, list[str]]:
        words = sys.argv[1:] if args is None else list(args)
        return super().parse_known_args(self._bots_apart(words), namespace)

    def _bots_option(self, word: str) -> bool:
        """Whether ``word`` opens a list of bots: the option, or the one option it abbreviates."""
        if not word.startswith("--") or "=" in word:
            return False
        named = {
            action: word in action.option_strings
            for action in self._actions
            for option in action.option_strings
            if option == word or (self.allow_abbrev and option.startswith(word))
        }
        chosen = [action for action, exact in named.items() if exact] or list(named)
        return len(chosen) == 1 and chosen[0].type is bot_name

    def _bots_apart(self, words: list[str]) -> list[str]:
        """``words`` with each list of bots that a word of another kind follows moved after the
        other options (before a ``--``), so that argparse, which gives an option taking a list
        every word up to the next option, gives it the bots alone."""
        if not any(action.type is bot_name for action in self._actions):
            return words
        end = words.index("--") if "--" in words else len(words)
        kept: list[str] = []
        moved: list[str] = []
        at = 0
        while at < end:
            if not self._bots_option(words[at]):
                kept.append(words[at])
                at += 1
                continue
            last = at + 1
            while last < end and _is_bot_name(words[last]):
                last += 1
            # No bot at all: left as it is, for argparse to name the first word that is not one.
            ends_the_list = last == at + 1 or last == end or words[last].startswith("-")
            (kept if ends_the_list else moved).extend(words[at:last])
            at = last
        return kept + moved + words[end:]


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


def share(text: str) -> float:
    """A share above 0 and at most 1 (``0.25`` accepted)."""
    return _number(text, "a share", "a share above 0 and at most 1", lambda v: 0 < v <= 1)


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


def _is_bot_name(word: str) -> bool:
    try:
        bot_name(word)
    except argparse.ArgumentTypeError:
        return False
    return True


def bot_name(text: str) -> str:
    """A bot's name, checked as the runners read it (:meth:`tarot_analysis.bots.Bot.parse`):
    ``heuristic``, ``pimc:64``, ``learned``..."""
    # imported here: the bots' records (and numpy), which a command without --bots never needs
    from tarot_analysis.bots import Bot

    try:
        Bot.parse(text)
    except TarotInputError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def add_bots_option(
    parser: argparse.ArgumentParser | argparse._ArgumentGroup,
    option: str = "--bots",
    *,
    default: Sequence[str] | None = None,
    help: str = BOTS_HELP,
) -> None:
    """The option of a list of bots, each name checked (:func:`bot_name`); a :class:`Parser`
    ends the list at the first word that is not a bot's name. No default (``None``): the
    command seats the default bots of its preset
    (:func:`tarot_analysis.cli.commands.seated`)."""
    parser.add_argument(
        option, nargs="+", type=bot_name, default=None if default is None else list(default),
        metavar="BOT", help=help,
    )  # fmt: skip


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
        help="a search's lessons (teach's) streamed between the chunks of self-play, so that "
        "every legal action keeps a target where self-play values the action taken alone",
    )  # fmt: skip
    parser.add_argument(
        "--anchor-chunks", type=positive, default=None, metavar="N",
        help="the anchor's first N chunks only (a run still going on)",
    )  # fmt: skip


def add_seating_options(parser: argparse.ArgumentParser, *, default: int | None) -> None:
    """The options of lessons on a bot's own play that say where the other bots sit and who
    plays their seats in the search's worlds."""
    parser.add_argument(
        "--other-seats", type=positive, default=default, metavar="N",
        help="the seats the other bot of a deal takes, from seat deal %% players on (default "
        "1; up to the players less one)",
    )  # fmt: skip
    parser.add_argument(
        "--network-at-every-seat", action="store_true", default=None,
        help="the search's worlds played out by its own bot at every seat, rather than by the "
        "bot at each seat (the heuristic, with its bid shifts, where a rule bot sits)",
    )  # fmt: skip
