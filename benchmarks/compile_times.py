"""Seconds spent compiling each kernel, and how many times: a pytest plugin.

    PYTHONPATH=benchmarks NUMBA_CACHE_DIR=$(mktemp -d) .venv/bin/python -m pytest \
        -p compile_times -p no:xdist tests/test_cli_play.py [--compile-times-json FILE]

With an empty cache, every kernel the tests use is compiled once per signature; numba
reports each compilation as an event. The seconds of a kernel are its own: those of the
kernels it compiles while being compiled are counted for them, not again for it. A kernel
compiled more than once was called with more than one signature (a literal constant, a
read-only array, another tuple length): see ``tarot_analysis/_jit.py``. Only the pytest
process is measured (not the processes it starts).
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from typing import Any

import pytest
from numba.core import event

_seconds: defaultdict[str, float] = defaultdict(float)
_counts: defaultdict[str, int] = defaultdict(int)
_stack: list[list[float]] = []  # per compilation under way: its start, its nested seconds
SHOWN = 25


class _Listener(event.Listener):  # type: ignore[misc]
    def on_start(self, ev: Any) -> None:
        _stack.append([time.perf_counter(), 0.0])

    def on_end(self, ev: Any) -> None:
        started, nested = _stack.pop()
        seconds = time.perf_counter() - started
        if _stack:
            _stack[-1][1] += seconds
        function = ev.data["dispatcher"].py_func
        name = f"{function.__module__}.{function.__qualname__}"
        _seconds[name] += seconds - nested
        _counts[name] += 1


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--compile-times-json", default=None, help="write the table as JSON")


def pytest_configure(config: pytest.Config) -> None:
    event.register("numba:compile", _Listener())


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    rows = sorted(_seconds.items(), key=lambda item: -item[1])
    total = sum(_seconds.values())
    write = terminalreporter.write_line
    write(f"compiling: {total:.1f} s in {sum(_counts.values())} compilations")
    write(f"  {'seconds':>8} {'times':>6}  kernel")
    for name, seconds in rows[:SHOWN]:
        write(f"  {seconds:8.1f} {_counts[name]:6d}  {name}")
    path = config.getoption("--compile-times-json")
    if path:
        table = [{"kernel": n, "seconds": round(s, 3), "times": _counts[n]} for n, s in rows]
        with open(path, "w", encoding="utf-8") as out:
            json.dump({"total_seconds": round(total, 3), "kernels": table}, out, indent=1)
