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
prints :data:`COMPILING_NOTICE` once, and the display says ``compiling the heuristic bot
(01:23, 57 kernels)``, the part under way (:func:`compiled_part`), the time spent and the
kernels compiled so far, until it is done. A command that opens no display while it compiles
runs in :func:`saying_compilation`, which says the same on a line of its own, redrawn every
second while it compiles. Nothing is said when the compiled code comes from the cache, and
with ``enabled=False`` nothing is printed.

>>> with bar(DEALING, 1_000, detail="fft-4", enabled=False) as shown:
...     shown.update(1_000)
>>> with step(SCORING, enabled=False, detail="fft-4 seat 0"):
...     pass
"""

from __future__ import annotations

import importlib.abc
import sys
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib.machinery import ModuleSpec, PathFinder
from typing import Any, Final

from tqdm.auto import tqdm

__all__ = [
    "CHECKING",
    "COMPARING",
    "COMPILED_PARTS",
    "COMPILING_NOTICE",
    "DEALING",
    "FITTING",
    "LOADING",
    "PLAYING",
    "PLAYING_EVERY_CONTRACT",
    "SCORING",
    "SOLVING",
    "TICK_SECONDS",
    "TRAINING",
    "WRITING_CHARTS",
    "bar",
    "compiled_part",
    "saying_compilation",
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
LOADING: Final = "loading"  # the modules a long command runs, before its first phase

#: Seconds between two redraws of an open display.
TICK_SECONDS: Final = 1.0

#: Said once, when the game engine starts compiling. Measured on a 2-core machine with an empty
#: cache: the dealer alone (``hands``) 7 s; the table and the heuristic bot (``play``) 1 min 50 s
#: to 2 min 50 s; every contract and the pass (``guidance``) 1 min 50 s to 3 min 5 s when the
#: cores are idle, and 7 minutes when other work kept them busy: compiling is CPU work, so its
#: time grows with the load of the machine. One hand (``hand``) took 88 s on idle cores, and
#: 8 min 29 s with the machine's 2 cores shared by five other runs.
COMPILING_NOTICE: Final = (
    "compiling the game engine for this machine, once per version: it is kept for the next "
    "runs. About 3 minutes on 2 idle cores, longer on a busy machine (the dealer alone: 10 s); "
    "the line below names the part under way"
)

#: Said while the engine compiles, before the part under way, the time spent so far and the
#: kernels compiled: ``compiling the heuristic bot (01:23, 57 kernels)``.
COMPILING: Final = "compiling"

#: The parts of the compiled core, by the module or folder of their kernels, as the displays
#: name them while they compile (the longest name that holds the kernel's module wins).
COMPILED_PARTS: Final[dict[str, str]] = {
    "tarot_analysis": "the game engine",
    "tarot_analysis.bootstrap": "the bootstrap",
    "tarot_analysis.deals": "the dealer",
    "tarot_analysis.solver": "the double-dummy solver",
    "tarot_analysis.bots": "the bots",
    "tarot_analysis.bots.heuristic": "the heuristic bot",
    "tarot_analysis.bots.learned": "the learned bot",
    "tarot_analysis.bots.pimc": "the search bot",
    "tarot_analysis.table": "the table",
    "tarot_analysis.learning": "the lessons",
}


def compiled_part(module: str) -> str:
    """The part of the compiled core that a kernel of ``module`` belongs to
    (:data:`COMPILED_PARTS`); code outside the package counts as the game engine's.

    >>> compiled_part("tarot_analysis.bots.heuristic"), compiled_part("tarot_analysis.deals.deal")
    ('the heuristic bot', 'the dealer')
    >>> compiled_part("tarot_analysis.engine.state"), compiled_part("__main__")
    ('the game engine', 'the game engine')
    """
    names = module.split(".")
    for end in range(len(names), 0, -1):
        part = COMPILED_PARTS.get(".".join(names[:end]))
        if part is not None:
            return part
    return COMPILED_PARTS["tarot_analysis"]


@contextmanager
def saying_compilation(enabled: bool = True) -> Iterator[None]:
    """Within the block, every compilation is said even when no display is open: the first with
    :data:`COMPILING_NOTICE`, then a line of its own (``compiling the dealer (00:07, 3
    kernels)``) redrawn every :data:`TICK_SECONDS` while a kernel compiles, and gone when none
    does or a display opens to say it. The command line runs every command in it, so that the
    first run of a command on a machine says why it waits, whichever command it is. With
    ``enabled=False`` it does nothing.

    Numba is not imported for it: a command that never compiles does not load numba.

    >>> with saying_compilation(enabled=False):
    ...     pass
    """
    if not enabled:
        yield
        return
    _COMPILATION.say(True)
    _COMPILATION.listen_when_numba_loads()
    try:
        yield
    finally:
        _COMPILATION.say(False)


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
        self._saying = 0  # blocks of saying_compilation open
        self._parts: list[str] = []  # those under way: a kernel compiles the kernels it calls
        self._kernels = 0  # kernels compiled by this process, the one under way included
        self._started = 0.0  # when the compilations under way began
        self._spent = 0.0  # seconds spent compiling before them
        self._listening = False
        self._told = False
        self._line: tuple[threading.Thread, threading.Event] | None = None  # its own line

    def open_display(self) -> None:
        with self._lock:
            self._displays += 1
        self.listen_when_numba_loads()

    def close_display(self) -> None:
        with self._lock:
            self._displays -= 1

    def listen_when_numba_loads(self) -> None:
        """Hear numba's compilations now if numba is loaded, else as soon as it loads: a
        command that never compiles does not load numba to listen."""
        if _NUMBA_EVENTS in sys.modules:
            self.listen()
        elif not any(isinstance(finder, _WhenNumbaLoads) for finder in sys.meta_path):
            sys.meta_path.insert(0, _WhenNumbaLoads(self))

    def listen(self) -> None:
        """Hear numba's compilations from now on (the first call imports numba)."""
        with self._lock:
            if self._listening:
                return
            self._listening = True
        from numba.core import event

        compilation = self

        class Listener(event.Listener):
            def on_start(self, ev: Any) -> None:
                function = getattr(ev.data.get("dispatcher"), "py_func", None)
                compilation.started(getattr(function, "__module__", None) or "")

            def on_end(self, ev: Any) -> None:
                compilation.ended()

        event.register("numba:compile", Listener())

    def say(self, saying: bool) -> None:
        """Say compilations on a line of their own (:func:`saying_compilation`), or stop."""
        with self._lock:
            self._saying += 1 if saying else -1
            line = self._line if self._saying == 0 else None
            if line is not None:
                self._line = None
        _end_line(line)

    def started(self, module: str = "") -> None:
        """A kernel of ``module`` starts compiling. Numba's own functions that a kernel uses
        compile inside it, as part of it; a kernel outside the package is the engine's."""
        ours = module.split(".")[0] == "tarot_analysis"
        with self._lock:
            if not self._parts:
                self._started = _now()
            inside = self._parts[-1] if self._parts and not ours else compiled_part(module)
            self._parts.append(inside)
            if ours or len(self._parts) == 1:  # numba's own functions are not counted
                self._kernels += 1
            tell = not self._told and (self._displays > 0 or self._saying > 0)
            self._told = self._told or tell
            if self._saying > 0 and self._line is None:
                stop = threading.Event()
                shows = threading.Thread(
                    target=self._show, args=(stop, tell), name="compiling", daemon=True
                )
                self._line = (shows, stop)
                shows.start()  # under the lock: say(False) joins only a thread that runs
                tell = False  # the line's thread says it, before its line
        if tell:
            tqdm.write(COMPILING_NOTICE, file=sys.stderr)

    def ended(self) -> None:
        line = None
        with self._lock:
            if self._parts:
                self._parts.pop()
                if not self._parts:
                    self._spent += _now() - self._started
                    line, self._line = self._line, None
        # Gone before the command prints again: the kernel it waited for is ready.
        _end_line(line)

    def status(self) -> str:
        """While a kernel compiles, ``compiling the heuristic bot (01:23, 57 kernels)``: the
        part under way, the time this process has spent compiling and the kernels it has
        compiled; else ``""``."""
        with self._lock:
            return self._status()

    def _status(self) -> str:
        if not self._parts:
            return ""
        seconds = self._spent + _now() - self._started
        kernels = f"{self._kernels} {_plural('kernel', self._kernels)}"
        return f"{COMPILING} {self._parts[-1]} ({tqdm.format_interval(seconds)}, {kernels})"

    def _show(self, stop: threading.Event, tell: bool) -> None:
        """The line of :func:`saying_compilation`: drawn as a kernel starts compiling, then
        at every tick while no display says so, until the compilations under way end; after
        :data:`COMPILING_NOTICE` when ``tell``."""
        if tell:
            tqdm.write(COMPILING_NOTICE, file=sys.stderr)
        line = None
        try:
            while True:
                shown = "" if self._displays > 0 else self.status()
                if shown and line is None:
                    line = tqdm(
                        total=None, desc=shown, bar_format="{desc}", leave=False, file=sys.stderr
                    )
                elif shown and line is not None:
                    line.set_description_str(shown)
                elif line is not None:
                    line.close()
                    line = None
                if _wait_for_tick(stop):
                    return
        finally:
            if line is not None:
                line.close()


def _end_line(line: tuple[threading.Thread, threading.Event] | None) -> None:
    """Stop the thread of a compiling line, which erases it, and wait for it."""
    if line is not None:
        line[1].set()
        line[0].join()


_COMPILATION = _Compilation()


#: The module whose loading a :class:`_Compilation` waits for to listen: numba's events.
_NUMBA_EVENTS: Final = "numba.core.event"


class _WhenNumbaLoads(importlib.abc.MetaPathFinder):
    """Finds numba's events module as Python would, and has ``compilation`` listen once it has
    run."""

    def __init__(self, compilation: _Compilation) -> None:
        self._compilation = compilation

    def find_spec(self, name: str, path: Any, target: Any = None) -> ModuleSpec | None:
        if name != _NUMBA_EVENTS:
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        spec = PathFinder.find_spec(name, path)
        if spec is not None and spec.loader is not None:
            spec.loader = _ThenListen(spec.loader, self._compilation)
        return spec


class _ThenListen(importlib.abc.Loader):
    """A module's own loader, then :meth:`_Compilation.listen` once the module has run."""

    def __init__(self, loader: Any, compilation: _Compilation) -> None:
        self._loader = loader
        self._compilation = compilation

    def create_module(self, spec: ModuleSpec) -> Any:
        return self._loader.create_module(spec)

    def exec_module(self, module: Any) -> None:
        self._loader.exec_module(module)
        self._compilation.listen()

    def __getattr__(self, name: str) -> Any:  # the rest (get_source...) as the loader has it
        return getattr(self._loader, name)
