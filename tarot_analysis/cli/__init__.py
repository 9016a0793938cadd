"""The command line, ``tarot-analysis``: one module per command in
:mod:`~tarot_analysis.cli.commands`, their shared options in
:mod:`~tarot_analysis.cli.arguments`, and :mod:`~tarot_analysis.cli.program`, which lists them and
turns a user's mistake into one line and exit status 2.

Nothing outside this folder imports it.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from tarot_analysis import EXIT_INTERRUPTED, INTERRUPTED_STARTING

__all__ = ["EXIT_INTERRUPTED", "main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line on ``argv`` (the process's arguments when ``None``)."""
    try:
        # imported here: a command module reads tarot_analysis.cli.arguments, which runs this
        # file first; importing every command from it would import them in a circle.
        from tarot_analysis.cli.program import main as run
        from tarot_analysis.runs.interrupts import noted_interrupts
    except KeyboardInterrupt:  # Ctrl-C while the commands load: nothing has been done yet
        print(INTERRUPTED_STARTING, file=sys.stderr)
        return EXIT_INTERRUPTED
    with noted_interrupts():
        return run(argv)
