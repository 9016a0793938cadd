"""Ctrl-C sent to a command of the toolkit once it shows that it is under way."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def start_answering_ctrl_c(argv: list[str], **options: Any) -> subprocess.Popen[bytes]:
    """``subprocess.Popen(argv, **options)`` for a child in which SIGINT is Python's to answer,
    even when this process was started with SIGINT ignored (as a shell's background job is):
    an ignored signal stays ignored across ``exec``, a handled one starts at its default. Set
    around the start rather than in a ``preexec_fn``, which would fork this process, whose
    threads (JAX's among them) a fork can deadlock."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return subprocess.Popen(argv, **options)
    finally:
        signal.signal(signal.SIGINT, previous)


def interrupt_when(argv: list[str], ready: Callable[[bytes], bool]) -> tuple[int, str, bytes]:
    """Run ``tarot-analysis ARGV`` in a child process, read its standard error until
    ``ready(what it has written)`` holds, send SIGINT once and wait for it to end.

    Returns its exit status, the last line it wrote to standard error (progress redraws split
    on carriage returns) and its standard output. Readiness is read from the child, never
    waited for by the clock; the child ending first fails the test with what it wrote.
    """
    child = start_answering_ctrl_c(
        [sys.executable, "-m", "tarot_analysis.cli.program", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    assert child.stderr is not None
    shown = b""
    try:
        while not ready(shown):
            chunk = os.read(child.stderr.fileno(), 4096)
            assert chunk, f"the command ended before it was under way: {shown!r}"
            shown += chunk
        child.send_signal(signal.SIGINT)
        out, rest = child.communicate(timeout=120)
    finally:
        child.kill()
        child.wait()
    written = shown + rest
    assert b"Traceback" not in written, written.decode()
    last = written.decode().replace("\r", "\n").strip().splitlines()[-1]
    return child.returncode, last, out


class _Finalised:
    """An object whose finaliser runs Ctrl-C's handler, as the garbage collector may at any
    instruction: Python drops what a finaliser raises."""

    def __del__(self) -> None:
        handler = signal.getsignal(signal.SIGINT)
        assert callable(handler)
        handler(signal.SIGINT, None)


def drop_a_ctrl_c() -> None:
    """A Ctrl-C raised in a finaliser and dropped there: only
    :func:`~tarot_analysis.runs.interrupts.noted_interrupts` remembers it."""
    _Finalised()
