"""The ``tarot-analysis`` command: its commands, its top-level parser and its errors.

Each command is a module with ``add_parser(subparsers)`` and a handler
(:mod:`tarot_analysis.cli.commands` describes them); this module lists them, in the order of
``--help``, and runs the one asked for. It imports the module of that command alone (all of
them for ``--help``), so that a command starts at once, whatever the others load. Every
mistake a user can make (a bad card, a bad rules file, an impossible option) ends with one line
on stderr that says what and where, and a non-zero exit status: no traceback. A command that
compiles the engine says so while it does
(:func:`~tarot_analysis.runs.progress.saying_compilation`), unless it was asked for ``--json``
or ``--no-progress``.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from importlib import import_module
from types import ModuleType

from tarot_analysis import EXIT_INTERRUPTED, __version__
from tarot_analysis.cli.arguments import EXIT_USAGE, Parser
from tarot_analysis.errors import TarotInputError
from tarot_analysis.runs.cluster import ClusterLost
from tarot_analysis.runs.progress import saying_compilation

__all__ = ["EXIT_INTERRUPTED", "main"]

PROG = "tarot-analysis"

#: The command modules of :mod:`tarot_analysis.cli.commands` by name, in the order of
#: ``tarot-analysis --help``; each adds the command of its name (``dd`` adds ``dd`` and
#: ``dd-bound``, :data:`ADDED_BY`).
COMMANDS: tuple[str, ...] = (
    "hands", "play", "replay", "review", "solve", "dd", "hand", "odds", "guidance", "teach",
    "train", "selfplay", "compare", "report", "rules",
)  # fmt: skip
#: The commands added by a module of another name.
ADDED_BY: dict[str, str] = {"dd-bound": "dd", "rounds": "selfplay"}


def command_module(name: str) -> ModuleType:
    """The module of :data:`COMMANDS` named ``name``, imported."""
    return import_module(f"tarot_analysis.cli.commands.{name}")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line: every command of :data:`COMMANDS`, each with its handler; or, given
    the name of one, that command alone, so that running it imports no other command's
    module."""
    parser = Parser(prog=PROG, description="Statistics of French Tarot and its relatives.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    for name in COMMANDS if command is None else (ADDED_BY.get(command, command),):
        command_module(name).add_parser(subparsers)
    return parser


def _command_asked(argv: Sequence[str] | None) -> str | None:
    """The command that ``argv`` runs when it opens with one, else ``None`` (``--help``,
    ``--version``, a mistyped command: what every command's parser answers)."""
    words = sys.argv[1:] if argv is None else list(argv)
    first = words[0] if words else None
    return first if first in COMMANDS or first in ADDED_BY else None


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (2 for a usage error, as argparse).

    Ctrl-C at any moment, from the reading of the arguments on, ends in one line saying what
    was kept."""
    args = argparse.Namespace()
    try:
        try:
            args = build_parser(_command_asked(argv)).parse_args(argv)
        except SystemExit as stop:  # --help, --version, or a usage error already printed
            return stop.code if isinstance(stop.code, int) else EXIT_USAGE
        return _handled(args)
    except KeyboardInterrupt as stop:
        with _deaf_to_interrupts():  # a second Ctrl-C cannot cut the line short
            print(f"{PROG}: {_interrupted(args, stop)}", file=sys.stderr)
            _end_if_chunks_run_on()
        return EXIT_INTERRUPTED


def _handled(args: argparse.Namespace) -> int:
    """The exit status of the command of ``args``: its handler's, or that of the mistake it
    raised, said in one line."""
    quiet = getattr(args, "json", False) or getattr(args, "no_progress", False)
    try:
        handler: Callable[[argparse.Namespace], int] = args.handler
        with saying_compilation(enabled=not quiet):
            return handler(args)
    except BrokenPipeError:
        # The reader of our output (``| head``) has gone: nothing is wrong, stop quietly.
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 (closed by the interpreter at exit)
        return 0
    except TarotInputError as error:
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


@contextmanager
def _deaf_to_interrupts() -> Iterator[None]:
    """SIGINT ignored for the time of the block (on the main thread, where it is delivered)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


#: What an interrupted command keeps, when it keeps nothing (its results are written once
#: every deal is played); commands that store their runs set ``args.kept``.
NOTHING_KEPT = "nothing was kept: the results are written once the run ends"


def _interrupted(args: argparse.Namespace, stop: KeyboardInterrupt) -> str:
    """The line of an interrupted command: what it kept. A solve says what it had proved."""
    if str(stop):
        return str(stop)
    return f"interrupted: {getattr(args, 'kept', NOTHING_KEPT)}"


def _end_if_chunks_run_on() -> None:
    """End the process now if worker threads still run chunks (compiled code, which Ctrl-C
    cannot stop): waiting for them would hold the command for as long as a chunk takes. A
    chunk file is written whole or not at all, so nothing is left half done."""
    if any(
        thread is not threading.main_thread() and not thread.daemon and thread.is_alive()
        for thread in threading.enumerate()
    ):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(EXIT_INTERRUPTED)


if __name__ == "__main__":
    sys.exit(main())
