"""How the toolkit shows progress: a bar for each phase of a run, named for the phase, and a
ticking line for a step that has nothing to count.

Each phase is a lowercase verb (:data:`DEALING`, :data:`PLAYING`,
:data:`PLAYING_EVERY_CONTRACT`, :data:`SCORING`, :data:`FITTING`, :data:`WRITING_CHARTS`,
:data:`COMPARING`, :data:`CHECKING`, :data:`SOLVING`, :data:`TRAINING`), followed by what it
works on: ``playing every contract · fft-4 seat 0``.

Every display writes to standard error and redraws itself every :data:`TICK_SECONDS` from a
thread of its own, so that a long chunk or step still shows its clock moving. While a display
is open, it also watches numba compile the game engine (the first run of a version on a
machine, or after a change of its source, compiles the kernels at their first call and keeps
them in the cache folder named in :mod:`tarot_analysis`): the first compilation of the process
prints :data:`COMPILING_NOTICE` once, and the display says ``compiling the game engine`` with
the time spent so far until it is done. With ``enabled=False`` nothing is printed.

>>> with bar(DEALING, 1_000, detail="fft-4", enabled=False) as shown:
...     shown.update(1_000)
>>> with step(SCORING, enabled=False, detail="fft-4 seat 0"):
...     pass
"""

from __future__ import annotations

import sys
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Final

from tqdm.auto import tqdm

__all__ = [
    "CHECKING",
    "COMPARING",
    "COMPILING_NOTICE",
    "DEALING",
    "FITTING",
    "PLAYING",
    "PLAYING_EVERY_CONTRACT",
    "SCORING",
    "SOLVING",
    "TICK_SECONDS",
    "TRAINING",
    "WRITING_CHARTS",
    "bar",
    "speed",
    "step",
]

#: Phases: what the toolkit is doing, as the displays name it.
CHECKING: Final = "checking"  # the chunks a run finds on disk, before it resumes
DEALING: Final = "dealing"
PLAYING: Final = "playing"
PLAYING_EVERY_CONTRACT: Final = "playing every contract"
SCORING: Final = "scoring"
FITTING: Final = "fitting"
WRITING_CHARTS: Final = "writing charts"
COMPARING: Final = "comparing"
SOLVING: Final = "solving"
TRAINING: Final = "training"  # a network, epoch by epoch

#: Seconds between two redraws of an open display.
TICK_SECONDS: Final = 1.0

#: Said once, when the game engine starts compiling. Measured on a 2-core machine with an empty
#: cache: the dealer alone (``hands``) 7 s; the table and the heuristic bot (``play``) 1 min 50 s
#: to 2 min 50 s; every contract and the pass (``guidance``) 1 min 50 s to 3 min 5 s when the
#: cores are idle, and 7 minutes when other work kept them busy: compiling is CPU work, so its
#: time grows with the load of the machine.
COMPILING_NOTICE: Final = (
    "compiling the game engine for this machine: once per version, about 3 minutes on 2 idle "
    "cores, longer on a busy machine (the dealer alone: 10 s)"
)

#: Shown on a display while the engine compiles, before the time spent so far.
COMPILING: Final = "compiling the game engine"


def bar(
    phase: str,
    total: int | None,
    *,
    unit: str = "deal",
    enabled: bool = True,
    detail: str = "",
    initial: int = 0,
    count: Callable[[], int] | None = None,
) -> Any:
    """A progress bar of ``total`` ``unit``s (``initial`` of them done already) named
    ``phase · detail``: a ``tqdm`` to advance with ``update(n)`` and to close (or use in a
    ``with``); or, given ``count``, the number done, read at each redraw (for work that counts
    its own progress as it goes, deal by deal within a chunk). Counts of a thousand or more are
    shown in thousands and millions; a speed below one per second, per minute or per hour
    (:func:`speed`).

    >>> with bar(PLAYING, 200, detail="fft-4", enabled=False) as shown:
    ...     shown.update(200)
    """
    return _Display(
        total=total, initial=initial, unit=unit, desc=_name(phase, detail),
        unit_scale=total is not None and total >= 1_000, disable=not enabled, file=sys.stderr,
        bar_format=_BAR_FORMAT, count=count,
    )  # fmt: skip


#: tqdm's own layout, with the speed of :func:`speed`.
_BAR_FORMAT: Final = "{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}, {speed}{postfix}]"


def speed(done: float, seconds: float, unit: str = "deal") -> str:
    """How fast ``done`` ``unit``s went in ``seconds``: per second, or per minute or per hour
    when fewer than one went in each, so that a slow bot's speed never reads 0.

    >>> speed(250_000, 2), speed(3, 10), speed(2, 7_200), speed(0, 5)
    ('125,000 deals per second', '18.0 deals per minute', '1.0 deal per hour', '0 deals per second')
    """
    per_second = done / seconds if seconds > 0 else 0.0
    for rate, per in ((per_second, "second"), (60 * per_second, "minute")):
        if rate >= 1 or per_second == 0:
            shown = f"{rate:,.0f}" if rate >= 100 or rate == 0 else f"{rate:.1f}"
            return f"{shown} {_plural(unit, rate)} per {per}"
    rate = 3600 * per_second
    return f"{rate:.1f} {_plural(unit, rate)} per hour"


def _plural(unit: str, count: float) -> str:
    return unit if f"{count:.1f}" == "1.0" else f"{unit}s"


@contextmanager
def step(phase: str, enabled: bool = True, *, detail: str = "") -> Iterator[Any]:
    """Show a step that has no count: a line ``phase · detail`` with the time since it began,
    redrawn every second, then ``phase · detail: done in 12.3 s`` when the step ends (not when
    it fails). Yields the display: ``set_postfix_str(text)`` names the part under way.

    >>> with step(SCORING, enabled=False, detail="fft-4 seat 0") as shown:
    ...     shown.set_postfix_str("thresholds")
    """
    name = _name(phase, detail)
    started = _now()
    display = _Display(
        total=None, desc=name, bar_format="{desc}: {elapsed} so far{postfix}",
        disable=not enabled, leave=False, file=sys.stderr,
    )  # fmt: skip
    try:
        yield display
    finally:
        display.close()
    if enabled:
        tqdm.write(f"{name}: done in {_now() - started:.1f} s", file=sys.stderr)


def _name(phase: str, detail: str) -> str:
    return f"{phase} · {detail}" if detail else phase


def _now() -> float:
    """The clock of every display, in seconds (only differences count)."""
    return time.perf_counter()


def _wait_for_tick(stop: threading.Event) -> bool:
    """Wait until the next redraw is due: ``True`` when the display has closed meanwhile."""
    return stop.wait(TICK_SECONDS)


class _Display(tqdm):
    """A ``tqdm`` that redraws itself every :data:`TICK_SECONDS` from a thread of its own and
    shows when the game engine is compiling."""

    # A Ctrl-C may stop ``__init__`` anywhere, and ``tqdm.__del__`` closes what was built.
    _stop: threading.Event | None = None
    _ticker: threading.Thread | None = None
    _built = False  # whether tqdm's own ``__init__`` returned

    def __init__(self, *args: Any, count: Callable[[], int] | None = None, **kwargs: Any) -> None:
        self._stop = threading.Event()
        self._count = count
        super().__init__(*args, **kwargs)
        self._built = True
        if self.disable:
            return
        # tqdm reads the wall clock; the display reads the module's, as its steps do.
        self._time = _now
        self.start_t = self.last_print_t = _now()
        _COMPILATION.open_display()
        # The thread holds the display weakly: a display dropped without closing still goes.
        self._ticker = threading.Thread(
            target=_tick, args=(weakref.ref(self), self._stop), name="progress", daemon=True
        )
        self._ticker.start()

    @property
    def format_dict(self) -> dict[str, Any]:
        if self._count is not None:
            self.n = self._count()
        shown: dict[str, Any] = super().format_dict
        elapsed, done = shown["elapsed"], shown["n"] - shown["initial"]
        shown["speed"] = speed(done, elapsed, shown["unit"]) if elapsed and done else "?"
        compiling = _COMPILATION.status()
        if compiling:
            shown["postfix"] = ", ".join(part for part in (shown["postfix"], compiling) if part)
        return shown

    def close(self) -> None:
        # Stop redrawing before the last drawing, which a late redraw would repeat.
        if self._stop is not None:
            self._stop.set()
        ticker, self._ticker = self._ticker, None
        if ticker is not None:
            if ticker is not threading.current_thread():
                ticker.join()
            _COMPILATION.close_display()
        if self._built:
            super().close()


def _tick(display: weakref.ref[_Display], stop: threading.Event) -> None:
    while not _wait_for_tick(stop):
        shown = display()
        if shown is None:
            return
        shown.refresh()
        del shown


class _Compilation:
    """Numba's compilations under way, told by its ``numba:compile`` events, which it sends
    only when a kernel is compiled (not when it is loaded from the cache)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._displays = 0  # displays open and enabled
        self._depth = 0  # compilations under way: a kernel compiles the kernels it calls
        self._started = 0.0  # when the compilations under way began
        self._spent = 0.0  # seconds spent compiling before them
        self._listening = False
        self._told = False

    def open_display(self) -> None:
        with self._lock:
            self._displays += 1
            if self._listening:
                return
            self._listening = True
        from numba.core import event

        compilation = self

        class Listener(event.Listener):
            def on_start(self, ev: Any) -> None:
                compilation.started()

            def on_end(self, ev: Any) -> None:
                compilation.ended()

        event.register("numba:compile", Listener())

    def close_display(self) -> None:
        with self._lock:
            self._displays -= 1

    def started(self) -> None:
        with self._lock:
            self._depth += 1
            if self._depth == 1:
                self._started = _now()
            tell = not self._told and self._displays > 0
            self._told = self._told or tell
        if tell:
            tqdm.write(COMPILING_NOTICE, file=sys.stderr)

    def ended(self) -> None:
        with self._lock:
            self._depth = max(0, self._depth - 1)
            if self._depth == 0:
                self._spent += _now() - self._started

    def status(self) -> str:
        """While a kernel compiles, ``compiling the game engine (01:23)``: the time this
        process has spent compiling; else ``""``."""
        with self._lock:
            if self._depth == 0:
                return ""
            seconds = self._spent + _now() - self._started
        return f"{COMPILING} ({tqdm.format_interval(seconds)})"


_COMPILATION = _Compilation()
