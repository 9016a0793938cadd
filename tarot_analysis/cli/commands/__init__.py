"""The commands of ``tarot-analysis``, one module each.

Every command module has the same two functions:

- ``add_parser(subparsers)`` adds the command to the subcommands of the command line (what
  ``ArgumentParser.add_subparsers`` returned), with its options, and sets its handler with
  ``set_defaults(handler=run)``;
- ``run(args) -> int`` runs it on the parsed arguments and returns the exit status. A user's
  mistake raises :class:`~tarot_analysis.errors.TarotInputError`: :func:`tarot_analysis.cli.program`
  prints it as one line and returns 2.

``dd`` adds two commands, ``dd`` and ``dd-bound``, with ``run`` and ``run_bound``.
:mod:`tarot_analysis.cli.program` lists them all in the order of ``tarot-analysis --help``. No
command module imports :mod:`tarot_analysis.cli.program`.

Start-up: a module imports at its top only what its parser and its report need; what the
command runs (the rules, the compiled core, the runners, pyarrow, the analyses) is imported
inside its functions, so that ``tarot-analysis --help`` and a mistake in the arguments stay
quick. Keep it so when adding a command.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from typing import Any

__all__ = ["SolveLine", "bots_argument", "bots_said", "seated", "sentence"]


def bots_argument(names: list[str]) -> str | list[str]:
    """The ``--bots`` option as the runners take it: one name for every seat, or one a seat."""
    return names[0] if len(names) == 1 else names


def seated(args: argparse.Namespace, *rules: Any) -> str:
    """The bots of ``args`` seated: where ``--bots`` named none, the default bots of ``rules``
    (:func:`tarot_analysis.bots.default.seated_bots`: the learned bot, or the heuristic for a
    preset with no shipped model) put in ``args.bots``; ``args.bots_note`` and the answer say
    why the default is the heuristic (empty otherwise)."""
    from tarot_analysis.bots.default import seated_bots

    args.bots, args.bots_note = seated_bots(args.bots, *rules)
    return str(args.bots_note)


def bots_said(bots: Sequence[str], note: str = "") -> str:
    """The bots as an answer names them: ``learned at every seat``, or one per seat, with why
    the default bots are the heuristic where they are (``note``, :func:`seated`).

    >>> bots_said(["heuristic"] * 4, "the default where no learned model ships: legacy-4")
    'heuristic at every seat (the default where no learned model ships: legacy-4)'
    """
    named = f"{bots[0]} at every seat" if len(set(bots)) == 1 else ", ".join(bots)
    return f"{named} ({note})" if note else named


def sentence(text: str) -> str:
    """``text`` with a capital first letter, to open a sentence."""
    return text[:1].upper() + text[1:]


class SolveLine:
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

    def __enter__(self) -> SolveLine:
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
