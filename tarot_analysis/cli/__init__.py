"""The command line, ``tarot-analysis``: one module per command in
:mod:`~tarot_analysis.cli.commands`, their shared options in
:mod:`~tarot_analysis.cli.arguments`, and :mod:`~tarot_analysis.cli.program`, which lists them and
turns a user's mistake into one line and exit status 2.

Nothing outside this folder imports it.
"""

from __future__ import annotations

import atexit
import os
import sys
from collections.abc import Sequence
from contextlib import suppress

from tarot_analysis import EXIT_INTERRUPTED, INTERRUPTED_STARTING

__all__ = ["EXIT_INTERRUPTED", "main"]

#: What the command line says when Ctrl-C comes as a command ends, its output printed whole.
INTERRUPTED_ENDING = "tarot-analysis: interrupted as it ended: its work was done"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line on ``argv`` (the process's arguments when ``None``).

    As the process's own command line (``argv`` is ``None``), the process ends once the command
    is done and Python's exit handlers have run, without the teardown of every object left: the
    engine's compiled code took 5 s to tear down after the last line of a first run, and 34 s
    on a busy machine, saying nothing."""
    if argv is None:
        status: list[int] = []
        atexit.register(_end_now, status)  # the first exit handler registered runs last
        status.append(_command_line(None))
        return status[0]
    return _command_line(argv)


def _end_now(status: list[int]) -> None:
    """End the process with ``status``, its output written (when the command returned one)."""
    if not status:
        return
    for stream in (sys.stdout, sys.stderr):
        with suppress(OSError, ValueError):  # a reader gone (``| head``), a stream closed
            stream.flush()
    os._exit(status[0])


def _command_line(argv: Sequence[str] | None) -> int:
    try:
        # imported here: a command module reads tarot_analysis.cli.arguments, which runs this
        # file first; importing every command from it would import them in a circle.
        from tarot_analysis.cli.program import main as run
        from tarot_analysis.runs.interrupts import noted_interrupts
    except KeyboardInterrupt:  # Ctrl-C while the commands load: nothing has been done yet
        print(INTERRUPTED_STARTING, file=sys.stderr)
        return EXIT_INTERRUPTED
    try:
        with noted_interrupts():
            return run(argv)
    except KeyboardInterrupt:  # Ctrl-C as the command ends, after its work was done and said
        print(INTERRUPTED_ENDING, file=sys.stderr)
        return EXIT_INTERRUPTED
