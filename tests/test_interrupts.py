"""Ctrl-C at any moment ends a command in one line, never in a crash or a traceback."""

from __future__ import annotations

import ast
import functools
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tarot_analysis.runs.interrupts import held_interrupts, noted_interrupts
from tarot_analysis.runs.simulate import map_chunks
from tests.interrupting import drop_a_ctrl_c, start_answering_ctrl_c

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "tarot_analysis"


def _is_compiled(function: ast.FunctionDef) -> bool:
    """Whether ``function`` is compiled by numba (``@njit`` or ``@njit(...)``)."""
    for decorator in function.decorator_list:
        called = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(called, ast.Name) and called.id == "njit":
            return True
    return False


@functools.cache
def _parsed() -> tuple[tuple[Path, ast.Module], ...]:
    return tuple(
        (path, ast.parse(path.read_text(encoding="utf-8")))
        for path in sorted(PACKAGE.rglob("*.py"))
    )


def _trees() -> Iterator[tuple[Path, ast.Module]]:
    yield from _parsed()


def structures_made_by_compiled_code() -> set[str]:
    """The names of the compiled functions that return a NamedTuple to their caller."""
    named_tuples = {
        node.name
        for _, tree in _trees()
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
        and any(isinstance(base, ast.Name) and base.id == "NamedTuple" for base in node.bases)
    }
    makers = set()
    for _, tree in _trees():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and _is_compiled(node) and node.returns:
                returned = ast.unparse(node.returns).strip("'\"").split(".")[-1]
                if returned in named_tuples:
                    makers.add(node.name)
    return makers


def _callee(call: ast.Call) -> str:
    called = call.func
    if isinstance(called, ast.Attribute):
        return called.attr
    return called.id if isinstance(called, ast.Name) else ""


def _holds(node: ast.With) -> bool:
    return any(
        isinstance(item.context_expr, ast.Call) and _callee(item.context_expr) == "held_interrupts"
        for item in node.items
    )


def unheld_calls(makers: set[str]) -> list[str]:
    """Where Python calls one of ``makers`` outside ``with held_interrupts()``."""
    found = []

    def visit(node: ast.AST, held: bool, path: Path) -> None:
        if isinstance(node, ast.FunctionDef) and _is_compiled(node):
            return  # compiled code calling compiled code builds no Python object
        if isinstance(node, ast.With) and _holds(node):
            held = True
        if isinstance(node, ast.Call) and _callee(node) in makers and not held:
            found.append(f"{path.relative_to(ROOT)}:{node.lineno} {ast.unparse(node.func)}")
        for child in ast.iter_child_nodes(node):
            visit(child, held, path)

    for path, tree in _trees():
        visit(tree, False, path)
    return found


def public_names() -> set[str]:
    """Every name that a module of the package lists in its ``__all__``."""
    names = set()
    for _, tree in _trees():
        for node in tree.body:
            if (
                isinstance(node, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
                and isinstance(node.value, ast.List | ast.Tuple)
            ):
                names |= {e.value for e in node.value.elts if isinstance(e, ast.Constant)}
    return names


def test_every_structure_that_compiled_code_returns_to_python_is_returned_with_ctrl_c_held() -> (
    None
):
    makers = structures_made_by_compiled_code()
    assert {"allocate_workspace", "allocate_double_dummy"} <= makers  # the scan finds them
    assert unheld_calls(makers) == []


def test_no_public_function_returns_a_compiled_structure_to_python_unheld() -> None:
    """A user calls a public function from Python, as a notebook does, without holding
    Ctrl-C: one that compiled code builds a structure in must hold it itself."""
    public = public_names()
    assert {"workspace", "double_dummy", "solve"} <= public  # the scan finds what it looks for
    assert sorted(structures_made_by_compiled_code() & public) == []


@pytest.mark.parametrize(
    ("module", "name", "compiled"),
    [
        ("tarot_analysis.solver.search", "double_dummy", "allocate_double_dummy"),
        ("tarot_analysis.bots.pimc", "workspace", "allocate_workspace"),
        ("tarot_analysis.bots.door", "workspace", "allocate_workspace"),
    ],
)
def test_a_ctrl_c_while_a_public_function_makes_its_structure_is_raised_once_it_is_back(
    monkeypatch: pytest.MonkeyPatch, module: str, name: str, compiled: str
) -> None:
    """Ctrl-C arriving while the compiled code returns: the structure comes back whole, then
    the interrupt is raised."""
    import importlib

    where = importlib.import_module(module)
    finished: list[bool] = []

    def interrupted_in_the_middle(*arguments: object) -> str:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.01)  # Python runs its signal handlers meanwhile
        finished.append(True)
        return "structure"

    monkeypatch.setattr(where, compiled, interrupted_in_the_middle)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            getattr(where, name)(*([None] * (2 if name == "double_dummy" else 4)))
    finally:
        signal.signal(signal.SIGINT, previous)
    assert finished == [True]


def test_a_ctrl_c_during_a_held_block_is_raised_once_it_ends() -> None:
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    finished = False
    try:
        with pytest.raises(KeyboardInterrupt), held_interrupts():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.01)  # Python runs its signal handlers meanwhile
            finished = True
    finally:
        signal.signal(signal.SIGINT, previous)
    assert finished
    assert signal.getsignal(signal.SIGINT) is previous


class _Broken:
    def __del__(self) -> None:
        raise ValueError("a finaliser's own fault")


def test_a_ctrl_c_dropped_in_a_finaliser_stops_the_run_at_its_next_chunk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    told: list[type[BaseException]] = []  # what Python would print as ignored
    monkeypatch.setattr(sys, "unraisablehook", lambda unraisable: told.append(unraisable.exc_type))
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with noted_interrupts():
            drop_a_ctrl_c()  # its finaliser runs here, and raises into nothing
            _Broken()
            assert told == [ValueError]  # the Ctrl-C unsaid: the run's one line will say it
            finished: list[int] = []
            with pytest.raises(KeyboardInterrupt):
                finished.extend(map_chunks(lambda chunk: chunk, range(3), threads=1))
            assert finished == []
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        # Once the command has ended, nothing is remembered.
        assert list(map_chunks(lambda chunk: chunk, range(3), threads=1)) == [0, 1, 2]
    finally:
        signal.signal(signal.SIGINT, previous)


def test_a_ctrl_c_as_a_command_ends_is_one_line_not_a_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ctrl-C as the command line leaves the handling of Ctrl-C, its command done."""
    from tarot_analysis import EXIT_INTERRUPTED
    from tarot_analysis.cli import INTERRUPTED_ENDING, main, program

    def done_as_ctrl_c_comes(argv: object) -> int:
        print("the output, whole")
        raise KeyboardInterrupt

    monkeypatch.setattr(program, "main", done_as_ctrl_c_comes)
    try:
        done = main(["rules", "list"])
    except KeyboardInterrupt:
        pytest.fail("the Ctrl-C escaped the command line, to end in a traceback")
    assert done == EXIT_INTERRUPTED
    said = capsys.readouterr()
    assert said.out == "the output, whole\n" and said.err == INTERRUPTED_ENDING + "\n"


#: When SIGINT reaches ``teach --threads 1``: seconds after it started (importing, then
#: loading the compiled search), or just as its first or second chunk is written.
MOMENTS = ("0.05 s", "0.3 s", "1 s", "chunk 1", "chunk 2")


@pytest.mark.slow
@pytest.mark.parametrize("moment", MOMENTS)
def test_ctrl_c_ends_teach_in_one_line_whenever_it_comes(tmp_path: Path, moment: str) -> None:
    folder = tmp_path / "lessons"
    child = start_answering_ctrl_c(
        [sys.executable, "-m", "tarot_analysis.cli", "teach", "--deals", "1000",
         "--chunk-size", "1", "--worlds", "2", "--threads", "1", "--no-progress",
         "--data", str(folder)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
    )  # fmt: skip
    try:
        if moment.startswith("chunk"):
            chunks = int(moment.split()[1])
            while len(list(folder.glob("chunk-*.parquet"))) < chunks:
                assert child.poll() is None, child.communicate()
                time.sleep(0.001)
        else:
            time.sleep(float(moment.split()[0]))
        child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=120)
    finally:
        child.kill()
        child.wait()
    said = err.decode()
    assert child.returncode != -signal.SIGSEGV, said
    if "tarot_analysis/" not in said and said.rstrip().endswith("KeyboardInterrupt"):
        # Python's own start (its site module, the editable install's import hook, runpy
        # finding the module): no code of the toolkit has run yet, and the interpreter
        # answers in its own words.
        return
    # 130: the command said what it kept; killed by SIGINT: before Python answers Ctrl-C, or
    # after the one line of an interrupted start.
    assert child.returncode in (130, -signal.SIGINT), (child.returncode, said)
    assert "Traceback" not in said, said
    lines = said.strip().splitlines()
    assert len(lines) <= 1, said
    if child.returncode == 130:
        assert lines and lines[0].startswith("tarot-analysis: interrupted"), said
