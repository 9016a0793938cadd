"""Ctrl-C only where a run can stop: never while compiled code hands back what it built.

Python turns Ctrl-C (SIGINT) into a ``KeyboardInterrupt`` at the next instruction of Python
the main thread runs. Compiled code runs none, except as it returns: numba builds the Python
object of a structure it made (a ``NamedTuple`` of arrays, such as the workspace of a table's
bots or of a double-dummy search) by running a little Python code of its own, and an
interrupt raised there leaves it calling a null pointer: the process ends in a segmentation
fault. Every call from Python into compiled code that returns such a structure holds the
interrupt (:func:`held_interrupts`): a Ctrl-C during the call is kept and raised as soon as
the call has returned, where the run stops cleanly. ``tests/test_interrupts.py`` finds every
such call in the package and checks that it is held.

A ``KeyboardInterrupt`` raised while Python runs a finaliser (an object's ``__del__``, which
the garbage collector may run at any instruction) is printed as ignored and dropped, and the
run would go on to its end. The command line therefore notes every Ctrl-C as it raises it
(:func:`noted_interrupts`), and a run asks after each chunk (:func:`raise_if_interrupted`): a
Ctrl-C that was dropped stops it there.

>>> with held_interrupts():
...     pass
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

__all__ = ["held_interrupts", "noted_interrupts", "raise_if_interrupted"]

_noted = threading.Event()  # a Ctrl-C reached the handler of noted_interrupts


@contextmanager
def held_interrupts() -> Iterator[None]:
    """Hold Ctrl-C for the time of the block: an interrupt that arrives meanwhile is raised
    when the block ends, by the handler that was in place (``KeyboardInterrupt`` unless the
    program set another). Off the main thread, where Python runs no signal handler, and where
    SIGINT is ignored or left to the system, the block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGINT)
    if not callable(previous):
        yield
        return
    received: list[FrameType | None] = []

    def keep(signum: int, frame: FrameType | None) -> None:
        received.append(frame)

    signal.signal(signal.SIGINT, keep)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if received:
        previous(signal.SIGINT, received[0])


@contextmanager
def noted_interrupts() -> Iterator[None]:
    """For the time of the block, Ctrl-C raises ``KeyboardInterrupt`` as Python's own handler
    does, and is remembered, so that :func:`raise_if_interrupted` raises it again if it was
    dropped; one dropped in a finaliser is not printed. Only on the main thread, and only over
    Python's own handler."""
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    ):
        yield
        return

    def interrupt(signum: int, frame: FrameType | None) -> None:
        _noted.set()
        raise KeyboardInterrupt

    told = sys.unraisablehook

    def tell(unraisable: Any) -> None:
        # A Ctrl-C dropped in a finaliser is noted: the run's one line will say it.
        if not isinstance(unraisable.exc_value, KeyboardInterrupt):
            told(unraisable)

    _noted.clear()
    signal.signal(signal.SIGINT, interrupt)
    sys.unraisablehook = tell
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        sys.unraisablehook = told
        _noted.clear()


def raise_if_interrupted() -> None:
    """Raise ``KeyboardInterrupt`` if a Ctrl-C has been noted (:func:`noted_interrupts`):
    called between chunks, where a run can stop."""
    if _noted.is_set():
        raise KeyboardInterrupt
