"""Progress: every bar and step names its phase, a long wait still shows its clock moving, the
engine's compilation is said, nothing is printed without progress, and the silence meter."""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import subprocess
import sys
import threading
from pathlib import Path
from types import ModuleType, SimpleNamespace

import pytest
from numba.core import event

from tarot_analysis.cli import main
from tarot_analysis.runs import progress
from tarot_analysis.runs.progress import (
    COMPILING,
    COMPILING_NOTICE,
    PLAYING,
    SCORING,
    TICK_SECONDS,
    bar,
    saying_compilation,
    step,
)

SILENCES = Path(__file__).parent.parent / "benchmarks" / "silences.py"


def _lines(err: str) -> list[str]:
    """What was printed, each redraw of a display on its own line."""
    return [line.strip() for line in err.replace("\r", "\n").splitlines() if line.strip()]


class Clock:
    """Time that moves only when a test says so: ``advance`` moves it, ``tick`` moves it one
    redraw on and returns once every open display has redrawn. Displays read it instead of
    the wall clock, and their redraw threads wait for its ticks instead of sleeping."""

    def __init__(self) -> None:
        self.now = 1_000.0
        self._lock = threading.Condition()
        self._ticks = 0  # ticks given so far
        self._seen: dict[int, int] = {}  # redraw thread → the ticks it has redrawn for

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds

    def wait_for_tick(self, stop: threading.Event) -> bool:
        """The redraw threads' wait: until the next tick, or until their display closes."""
        me = threading.get_ident()
        with self._lock:
            self._seen[me] = self._ticks
            self._lock.notify_all()
            # A display that closes sets ``stop`` without a word to this lock: look again often.
            while self._ticks == self._seen[me] and not stop.is_set():
                self._lock.wait(0.01)
            if stop.is_set():
                del self._seen[me]
                return True
            self._seen[me] = -1  # redrawing
            return False

    def tick(self) -> None:
        self.advance(TICK_SECONDS)
        with self._lock:
            self._ticks += 1
            self._lock.notify_all()
            # Back to waiting: every display has redrawn with the new time.
            self._lock.wait_for(lambda: all(seen == self._ticks for seen in self._seen.values()))


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    manual = Clock()
    monkeypatch.setattr(progress, "_now", manual)
    monkeypatch.setattr(progress, "_wait_for_tick", manual.wait_for_tick)
    return manual


def _wait_for_display(clock: Clock, threads: int = 1) -> None:
    """Until ``threads`` redraw threads wait for a tick (each display starts one)."""
    with clock._lock:
        assert clock._lock.wait_for(
            lambda: sum(seen == clock._ticks for seen in clock._seen.values()) >= threads,
            timeout=30,
        ), "no display is drawing"


def test_a_bar_names_its_phase_then_what_it_works_on(
    capsys: pytest.CaptureFixture[str], clock: Clock
) -> None:
    with bar(PLAYING, 10, detail="fft-4") as shown:
        shown.update(10)
    lines = _lines(capsys.readouterr().err)
    assert lines and all(line.startswith("playing · fft-4:") for line in lines)
    assert "10/10" in lines[-1]


def test_a_waiting_bar_redraws_its_clock_every_second(
    capsys: pytest.CaptureFixture[str], clock: Clock
) -> None:
    with bar(PLAYING, 10, detail="fft-4"):
        _wait_for_display(clock)
        for _ in range(2):
            clock.tick()
        clock.advance(0.5)
    lines = _lines(capsys.readouterr().err)
    assert any("[00:01<" in line for line in lines), lines
    assert any("[00:02<" in line for line in lines), lines


def test_a_step_prints_its_start_its_clock_and_its_end(
    capsys: pytest.CaptureFixture[str], clock: Clock
) -> None:
    with step(SCORING, detail="fft-4 seat 0") as shown:
        _wait_for_display(clock)
        clock.tick()
        clock.advance(0.5)
        shown.set_postfix_str("thresholds")
        clock.tick()
        clock.advance(0.2)
    lines = _lines(capsys.readouterr().err)
    assert lines[0] == "scoring · fft-4 seat 0: 00:00 so far"
    assert "scoring · fft-4 seat 0: 00:01 so far" in lines
    assert "scoring · fft-4 seat 0: 00:02 so far, thresholds" in lines
    assert lines[-1] == "scoring · fft-4 seat 0: done in 2.7 s"


def test_a_step_that_fails_does_not_say_done(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ValueError), step(SCORING, detail="fft-4"):
        raise ValueError("no rows")
    err = capsys.readouterr().err
    assert "scoring · fft-4" in err and "done" not in err


def test_nothing_is_printed_when_disabled(capsys: pytest.CaptureFixture[str], clock: Clock) -> None:
    with bar(PLAYING, 10, detail="fft-4", enabled=False) as shown:
        shown.update(5)
        shown.set_postfix_str("more")
        with event.trigger_event("numba:compile", data={}):
            clock.advance(1.2)
            shown.refresh()
    with step(SCORING, False, detail="fft-4") as shown:
        shown.set_postfix_str("thresholds")
        clock.advance(1.2)
        shown.refresh()
    assert capsys.readouterr().err == ""


def test_a_display_stopped_while_it_was_being_built_closes_quietly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Ctrl-C during tqdm's own start: the half-built display is closed by its __del__.
    def interrupted(self: object, *args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(progress.tqdm, "__init__", interrupted)
    with pytest.raises(KeyboardInterrupt):
        progress._Display(total=10)
    progress._Display.__new__(progress._Display).close()  # before any line of __init__ ran


@pytest.fixture
def fresh_compilation(monkeypatch: pytest.MonkeyPatch) -> None:
    """A process that has not compiled yet: it has not said so."""
    monkeypatch.setattr(progress, "_COMPILATION", progress._Compilation())


@pytest.mark.usefixtures("fresh_compilation")
def test_compiling_is_said_once_and_shown_while_it_lasts(
    capsys: pytest.CaptureFixture[str], clock: Clock
) -> None:
    with bar(PLAYING, 2, detail="fft-4") as shown:
        _wait_for_display(clock)
        assert COMPILING not in str(shown)
        # numba announces each compilation; a kernel compiles the kernels it calls inside.
        with event.trigger_event("numba:compile", data={}):
            with event.trigger_event("numba:compile", data={}):
                pass
            clock.tick()  # redrawn while compiling
            clock.advance(1.2)
            assert f"{COMPILING} the game engine (00:02, 1 kernel)" in str(shown)
        clock.advance(30)  # time after the compilation does not count
        assert COMPILING not in str(shown)
        shown.update(1)
        with event.trigger_event("numba:compile", data={}):
            # the time spent compiling so far, and the kernels
            assert f"{COMPILING} the game engine (00:02, 2 kernels)" in str(shown)
        shown.update(1)
    err = capsys.readouterr().err
    assert err.count(COMPILING_NOTICE) == 1
    assert err.index(COMPILING_NOTICE) < err.index("1/2")
    assert any(f"{COMPILING} the game engine (00:01, 1 kernel)" in line for line in _lines(err))


def test_the_compiling_notice_says_what_its_time_depends_on() -> None:
    assert "idle cores" in COMPILING_NOTICE and "busy" in COMPILING_NOTICE
    assert "once per version" in COMPILING_NOTICE and "kept for the next runs" in COMPILING_NOTICE
    assert "2 to 3 minutes" not in COMPILING_NOTICE


@pytest.mark.usefixtures("fresh_compilation")
def test_a_real_compilation_is_said(capsys: pytest.CaptureFixture[str]) -> None:
    from numba import njit

    @njit
    def double(x: int) -> int:
        return 2 * x

    with bar(PLAYING, 1, detail="fft-4") as shown:
        assert double(21) == 42
        shown.update(1)
    assert capsys.readouterr().err.count(COMPILING_NOTICE) == 1


@pytest.mark.usefixtures("fresh_compilation")
def test_compiling_without_a_display_says_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    with bar(PLAYING, 1, enabled=False), event.trigger_event("numba:compile", data={}):
        pass
    assert capsys.readouterr().err == ""


def _compiling(module: str) -> dict[str, object]:
    """What numba tells of a kernel of ``module`` that starts compiling."""
    return {"dispatcher": SimpleNamespace(py_func=SimpleNamespace(__module__=module))}


@pytest.mark.usefixtures("fresh_compilation")
def test_a_command_without_a_display_says_what_compiles_on_a_line_of_its_own(
    capsys: pytest.CaptureFixture[str], clock: Clock
) -> None:
    with saying_compilation():
        with event.trigger_event("numba:compile", data=_compiling("tarot_analysis.table.compiled")):
            _wait_for_display(clock)
            # A bot compiles inside the table's kernel, and numba's own functions inside it.
            with event.trigger_event("numba:compile", data=_compiling("tarot_analysis.bots.pimc")):
                clock.tick()
                with event.trigger_event("numba:compile", data=_compiling("numba.np.arrayobj")):
                    clock.tick()
            clock.tick()
        said = capsys.readouterr().err
        clock.advance(5)  # nothing compiles: the line has gone, and stays gone
        assert capsys.readouterr().err == ""
        with event.trigger_event("numba:compile", data=_compiling("tarot_analysis.deals.deal")):
            _wait_for_display(clock)
        again = capsys.readouterr().err
    assert said.count(COMPILING_NOTICE) == 1 and COMPILING_NOTICE not in again
    lines = _lines(said)
    assert lines[:5] == [
        COMPILING_NOTICE,
        "compiling the table (00:00, 1 kernel)",
        "compiling the search bot (00:01, 2 kernels)",
        "compiling the search bot (00:02, 2 kernels)",  # numba's own: part of the bot, not counted
        "compiling the table (00:03, 2 kernels)",
    ]
    assert said.endswith("\r") and said.split("\r")[-2].strip() == ""  # erased at the end
    assert _lines(again)[0] == "compiling the dealer (00:03, 3 kernels)"


@pytest.mark.usefixtures("fresh_compilation")
def test_a_display_says_the_compilation_in_place_of_the_line(
    capsys: pytest.CaptureFixture[str], clock: Clock
) -> None:
    with saying_compilation(), bar(PLAYING, 1, detail="fft-4") as shown:
        _wait_for_display(clock)
        with event.trigger_event("numba:compile", data=_compiling("tarot_analysis.deals.deal")):
            _wait_for_display(clock, threads=2)
            clock.tick()
            assert "compiling the dealer (00:01, 1 kernel)" in str(shown)
        shown.update(1)
    lines = _lines(capsys.readouterr().err)
    assert lines.count(COMPILING_NOTICE) == 1
    assert not [line for line in lines if line.startswith("compiling the dealer")]


@pytest.mark.usefixtures("fresh_compilation")
def test_kernels_from_the_cache_are_not_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import numba

    source = tmp_path / "cached_kernels.py"
    source.write_text(
        "from numba import njit\n\n\n@njit(cache=True)\ndef double(x):\n    return 2 * x\n"
    )
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path / "cache"))

    def loaded() -> ModuleType:
        """The module as a new process loads it: its kernel compiled or read from the cache."""
        spec = importlib.util.spec_from_file_location("cached_kernels", source)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    with saying_compilation():
        assert loaded().double(21) == 42  # an empty cache: compiled
    assert capsys.readouterr().err.startswith(COMPILING_NOTICE)
    monkeypatch.setattr(progress, "_COMPILATION", progress._Compilation())  # as a new process
    with saying_compilation():
        assert loaded().double(21) == 42  # read from the cache
    assert capsys.readouterr().err == ""


def test_numba_is_not_loaded_to_listen_but_heard_once_it_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    heard = []
    compilation = progress._Compilation()
    monkeypatch.setattr(progress, "_COMPILATION", compilation)
    monkeypatch.setattr(compilation, "listen", lambda: heard.append(True))
    # numba is loaded in this process: a module of its own stands in for its events.
    name = "tarot_test_numba_events"
    (tmp_path / f"{name}.py").write_text("LOADED = True\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(progress, "_NUMBA_EVENTS", name)
    try:
        with saying_compilation():
            assert not heard and name not in sys.modules
            module = importlib.import_module(name)
            assert heard == [True] and module.LOADED
    finally:
        sys.modules.pop(name, None)
    assert not [f for f in sys.meta_path if isinstance(f, progress._WhenNumbaLoads)]


@pytest.mark.usefixtures("fresh_compilation")
@pytest.mark.parametrize(("quiet", "said"), [({}, True), ({"json": True}, False),
                                             ({"no_progress": True}, False)])  # fmt: skip
def test_every_command_says_its_compilation_unless_asked_to_be_quiet(
    capsys: pytest.CaptureFixture[str], quiet: dict[str, bool], said: bool
) -> None:
    from tarot_analysis.cli import program

    def compiles(args: argparse.Namespace) -> int:
        with event.trigger_event("numba:compile", data=_compiling("tarot_analysis.deals.deal")):
            pass
        return 0

    assert program._handled(argparse.Namespace(handler=compiles, **quiet)) == 0
    assert (COMPILING_NOTICE in capsys.readouterr().err) is said


def test_hands_says_dealing(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hands", "--deals", "3000", "--chunk-size", "1000"]) == 0
    lines = _lines(capsys.readouterr().err)
    assert any(line.startswith("dealing · fft-4:") and "3.00k/3.00k" in line for line in lines)


def test_play_says_playing(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--deals", "2000", "--chunk-size", "1000", "--bots", "random"]) == 0
    lines = _lines(capsys.readouterr().err)
    assert any(line.startswith("playing · fft-4:") and "2.00k/2.00k" in line for line in lines)
    assert any(line.startswith("scoring · fft-4: done in ") for line in lines)
    assert main(["play", "--deals", "2000", "--bots", "random", "--no-rows"]) == 0
    assert "playing · fft-4:" in capsys.readouterr().err


@pytest.mark.slow
def test_guidance_names_every_phase(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["guidance", "--deals", "12000", "--chunk-size", "3000", "--bots", "random",
            "--data", str(tmp_path / "run"), "--tables", str(tmp_path / "tables")]  # fmt: skip
    assert main(argv) == 0
    lines = _lines(capsys.readouterr().err)
    assert any(
        line.startswith("playing every contract · fft-4 seat 0:") and "12.0k/12.0k" in line
        for line in lines
    )
    for name in ("scoring · fft-4 seat 0, the run's rows", "scoring · fft-4 seat 0, tables",
                 "fitting · fft-4 seat 0, the success model of garde"):  # fmt: skip
        assert f"{name}: 00:00 so far" in lines, name
        assert any(line.startswith(f"{name}: done in ") for line in lines), name
    # In the order they run.
    ends = [next(i for i, line in enumerate(lines) if line.startswith(name)) for name in
            ("playing every", "scoring · fft-4 seat 0, the run's", "scoring · fft-4 seat 0, tables",
             "fitting")]  # fmt: skip
    assert ends == sorted(ends)


def test_compare_names_its_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", "fft-4", "legacy-4", "--deals", "400", "--bots", "random"]) == 0
    err = capsys.readouterr().err
    assert "comparing · 2 variants:" in err
    for run in ("playing fft-4", "playing every contract fft-4", "dealing legacy-4"):
        assert run in err, run


@pytest.mark.parametrize("quiet", ["--no-progress", "--json"])
@pytest.mark.slow
def test_no_progress_prints_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], quiet: str
) -> None:
    runs = [
        ["hands", "--deals", "2000"],
        ["play", "--deals", "2000", "--bots", "random"],
        ["guidance", "--deals", "12000", "--chunk-size", "3000", "--bots", "random",
         "--data", str(tmp_path / "run"), "--tables", str(tmp_path / "tables")],
        ["compare", "fft-4", "legacy-4", "--deals", "400", "--bots", "random"],
    ]  # fmt: skip
    for argv in runs:
        assert main([*argv, quiet]) == 0
        assert capsys.readouterr().err == "", argv


def _silence_meter() -> ModuleType:
    """``benchmarks/silences.py``, loaded as a module."""
    name = "benchmarks_silences"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, SILENCES)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # its dataclass looks its module up by name
    spec.loader.exec_module(module)
    return module


def test_the_silence_meter_finds_the_longest_gap_and_what_came_before() -> None:
    meter = _silence_meter()
    chunks = [(0.5, b"1\n"), (2.75, b"2\n"), (3.0, b"3\n")]
    found = meter.silences(chunks, 3.25)
    assert [silence.seconds for silence in found] == [2.25, 0.5, 0.25, 0.25]
    longest = found[0]
    assert (longest.start, longest.end, longest.before) == (0.5, 2.75, "1")
    assert found[1].before == ""  # from the start to the first output


def test_the_silence_meter_counts_redraws_on_one_line() -> None:
    # A display redrawn on one line (``\r``, no newline) every 0.2 s is never silent long, and
    # what it showed last is the text after the last ``\r``.
    meter = _silence_meter()
    chunks = [(0.2 * (i + 1), f"\rstep {i}".encode()) for i in range(10)]
    found = meter.silences(chunks, 2.1)
    assert max(silence.seconds for silence in found) < 0.21
    assert sorted(silence.before for silence in found) == ["", *(f"step {i}" for i in range(10))]
    assert meter.last_line(b"\rstep 8\rstep 9") == "step 9"


def test_the_silence_meter_reads_a_command_to_its_end() -> None:
    # Every byte the command prints on either stream, its exit status; times only ever grow.
    code = "import sys; print(1, flush=True); print(2, file=sys.stderr); sys.exit(3)"
    result = subprocess.run(
        [sys.executable, str(SILENCES), "--json", "--", sys.executable, "-c", code],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    found = json.loads(result.stdout)
    assert found["exit_status"] == 3
    assert found["bytes"] == 4 and 1 <= found["chunks"] <= 4  # however the pipes split them
    assert all(0 <= silence["start_s"] <= silence["end_s"] <= found["seconds"]
               for silence in found["longest_silences"])  # fmt: skip
    assert found["longest_silence_s"] == max(s["seconds"] for s in found["longest_silences"])


def test_a_slow_speed_is_given_per_minute_or_per_hour_never_as_zero() -> None:
    assert progress.speed(250_000, 2) == "125,000 deals per second"
    assert progress.speed(3, 10) == "18.0 deals per minute"
    assert progress.speed(1, 3_600) == "1.0 deal per hour"


def test_a_bar_of_a_slow_run_shows_deals_per_minute(
    capsys: pytest.CaptureFixture[str], clock: Clock
) -> None:
    with bar(PLAYING, 100, detail="fft-4") as shown:
        _wait_for_display(clock)
        clock.advance(59)
        shown.update(2)
        clock.tick()  # a minute since the bar opened
    assert "2.0 deals per minute" in _lines(capsys.readouterr().err)[-1]


class _Watcher:
    """A Python bot that notes, at each of its decisions, the deals the run's bar counts."""

    name = "watcher"

    def __init__(self, count: dict[str, object]) -> None:
        self.count = count
        self.seen: list[int] = []

    def act(self, observation: object) -> int:
        count = self.count["count"]
        assert callable(count)
        self.seen.append(int(count()))
        return int(observation.legal_actions[0])  # type: ignore[attr-defined]


def _capture_count(monkeypatch: pytest.MonkeyPatch) -> dict[str, object]:
    from tarot_analysis.table import play as play_module

    captured: dict[str, object] = {}
    shown = play_module.progress_bar

    def capturing(*args: object, count: object = None, **kwargs: object) -> object:
        captured["count"] = count
        return shown(*args, count=count, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(play_module, "progress_bar", capturing)
    return captured


def test_the_bar_of_a_run_moves_deal_by_deal_within_a_chunk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tarot_analysis.game.rules import load_rules
    from tarot_analysis.table.play import play

    captured = _capture_count(monkeypatch)
    watcher = _Watcher(captured)
    bots = [watcher, "random", "random", "random"]
    play(load_rules("fft-4"), 8, bots=bots, seed=1, chunk_size=8, progress=True)
    # One chunk of 8 deals: the bar counted each deal as it ended, not the chunk at its end.
    assert watcher.seen == sorted(watcher.seen)
    assert watcher.seen[0] == 0 and watcher.seen[-1] >= 5


def test_the_compiled_table_counts_its_deals_as_it_plays_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tarot_analysis.game.rules import load_rules
    from tarot_analysis.table.play import play

    captured = _capture_count(monkeypatch)
    play(load_rules("fft-4"), 50, bots="heuristic", seed=1, chunk_size=20, progress=True)
    count = captured["count"]
    assert callable(count) and count() == 50
