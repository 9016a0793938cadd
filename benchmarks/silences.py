"""The longest stretches during which a command prints nothing, and what it printed before each.

    python benchmarks/silences.py [--json] [--top 3] [--terminal] -- COMMAND [ARG ...]

Runs COMMAND with its standard output and error on pipes (with ``--terminal``, both on one
pseudo-terminal, as a person at a terminal runs it: some programs print progress only there)
and notes the time of every chunk of bytes read: any bytes count, a progress bar's ``\\r``
updates included. A silence
is the time between two chunks, from the start to the first chunk, or from the last chunk to
the exit. Prints the ``--top`` longest silences, each with the last line printed before it,
the total time and the exit status of COMMAND; COMMAND's own output is passed through as it
comes (not with ``--json``, which prints one JSON object). ``PYTHONUNBUFFERED=1`` is set, so
that a Python command prints each line when it writes it, as it does at a terminal.
"""

from __future__ import annotations

import argparse
import json
import os
import pty
import re
import selectors
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass

#: Characters of the last line shown before a silence.
SHOWN_CHARACTERS = 120


@dataclass
class Silence:
    """A stretch without output: its start and end (seconds from the start), what came before."""

    start: float
    end: float
    before: str

    @property
    def seconds(self) -> float:
        """How long nothing was printed."""
        return self.end - self.start


def last_line(output: bytes) -> str:
    """The last non-blank line of ``output``, a line ending at ``\\n`` or ``\\r``."""
    text = output[-4 * SHOWN_CHARACTERS :].decode("utf-8", errors="replace")
    lines = [line.strip() for line in re.split(r"[\r\n]", text) if line.strip()]
    return lines[-1][-SHOWN_CHARACTERS:] if lines else ""


def watch(
    command: list[str], *, echo: bool, terminal: bool = False
) -> tuple[int, float, list[tuple[float, bytes]]]:
    """Run ``command``: its exit status, its seconds, and every chunk read with its time."""
    environment = os.environ | {"PYTHONUNBUFFERED": "1"}
    started = time.perf_counter()
    if terminal:
        reader, writer = pty.openpty()
        process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=writer, stderr=writer, env=environment
        )
        os.close(writer)  # the command holds it now: its end is the end of the output
        passed_to = {reader: sys.stdout}
    else:
        process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0, env=environment
        )
        assert process.stdout is not None and process.stderr is not None
        passed_to = {process.stdout.fileno(): sys.stdout, process.stderr.fileno(): sys.stderr}
    chunks: list[tuple[float, bytes]] = []
    with selectors.DefaultSelector() as selector:
        for stream in passed_to:
            selector.register(stream, selectors.EVENT_READ)
        open_streams = len(passed_to)
        while open_streams:
            for key, _ in selector.select():
                try:
                    data = os.read(key.fd, 65536)
                except OSError:  # a pseudo-terminal whose last writer has closed it
                    data = b""
                if not data:
                    selector.unregister(key.fileobj)
                    open_streams -= 1
                    continue
                chunks.append((time.perf_counter() - started, data))
                if echo:
                    target = passed_to[key.fd]
                    target.buffer.write(data)
                    target.flush()
    status = process.wait()
    if terminal:
        os.close(reader)
    return status, time.perf_counter() - started, chunks


def silences(chunks: list[tuple[float, bytes]], seconds: float) -> list[Silence]:
    """Every stretch between two chunks, from the start to the first, and from the last to
    the end, longest first."""
    found: list[Silence] = []
    printed = b""
    previous = 0.0
    for moment, data in chunks:
        found.append(Silence(previous, moment, last_line(printed)))
        printed = (printed + data)[-4 * SHOWN_CHARACTERS :]
        previous = moment
    found.append(Silence(previous, seconds, last_line(printed)))
    return sorted(found, key=lambda silence: -silence.seconds)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--top", type=int, default=3, help="longest silences shown (default 3)")
    parser.add_argument(
        "--terminal", action="store_true", help="run the command on a pseudo-terminal"
    )
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command, after --")
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command to watch after --")

    status, seconds, chunks = watch(command, echo=not args.json, terminal=args.terminal)
    longest = silences(chunks, seconds)[: args.top]
    result = {
        "command": command,
        "terminal": args.terminal,
        "exit_status": status,
        "seconds": round(seconds, 2),
        "chunks": len(chunks),
        "bytes": sum(len(data) for _, data in chunks),
        "longest_silence_s": round(longest[0].seconds, 2),
        "longest_silences": [
            {
                "seconds": round(silence.seconds, 2),
                "start_s": round(silence.start, 2),
                "end_s": round(silence.end, 2),
                "after": silence.before,
            }
            for silence in longest
        ],
        "cpu_count": os.cpu_count(),
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(f"\n{shlex.join(command)}")
        print(f"  exit status {status}, {seconds:.1f} s, {len(chunks):,} chunks of output")
        print("  longest silences:")
        for silence in longest:
            after = repr(silence.before) if silence.before else "(the start)"
            print(f"    {silence.seconds:6.1f} s  from {silence.start:.1f} s, after {after}")
    return 0 if status == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
