"""The package's functions stay short enough to read: none over :data:`MOST_LINES` lines.

Every function of every module is read from its source (with :mod:`ast`, nothing is imported):
top-level functions, methods and functions nested in others alike. A function's length runs
from its ``def`` line to its last line, its docstring included and its decorators left out.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import tarot_analysis

ROOT = Path(tarot_analysis.__file__).parent

#: The most lines a function may have.
MOST_LINES = 100


def functions(source: str, prefix: str) -> Iterator[tuple[str, int, int]]:
    """Every function of ``source`` as ``(name, first line, length)``, named after ``prefix``
    and the classes and functions it sits in (``prefix.Class.method``, ``prefix.outer.inner``)."""

    def walk(node: ast.AST, scope: str) -> Iterator[tuple[str, int, int]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                name = f"{scope}.{child.name}"
                end = child.end_lineno if child.end_lineno is not None else child.lineno
                yield name, child.lineno, end - child.lineno + 1
                yield from walk(child, name)
            elif isinstance(child, ast.ClassDef):
                yield from walk(child, f"{scope}.{child.name}")
            else:
                yield from walk(child, scope)

    yield from walk(ast.parse(source), prefix)


def module_name(path: Path, root: Path = ROOT) -> str:
    """The module of ``path`` without the package's name (``engine.encoding``; a package by
    its own name)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()
    return ".".join(parts)


def long_functions(root: Path = ROOT, most: int = MOST_LINES) -> dict[str, str]:
    """Every function under ``root`` longer than ``most`` lines: its name, then its file, line
    and length."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        for name, line, length in functions(path.read_text(), module_name(path, root)):
            if length > most:
                found[name] = f"{path.relative_to(root.parent)}:{line}, {length} lines"
    return found


def test_no_function_is_longer_than_the_most_lines() -> None:
    found = long_functions()
    assert not found, f"functions over {MOST_LINES} lines; split them:\n" + "\n".join(
        f"{name} ({where})" for name, where in sorted(found.items())
    )


def test_a_long_function_is_found_wherever_it_stands(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    body = "".join(f"    x{i} = {i}\n" for i in range(MOST_LINES - 1))
    (package / "__init__.py").write_text(f"def at_the_limit():\n{body}")
    (package / "sub" / "mod.py").write_text(
        "import functools\n"
        "class Table:\n"
        "    @functools.cache\n"
        "    def seat(self):\n"
        "        def inner():\n"
        f"{body.replace('    ', '            ')}"
        "            return 0\n"
        "        return inner\n"
        f"async def top():\n{body}    return 1\n"
        "def short():\n"
        "    return 2\n"
    )
    assert long_functions(package) == {
        "sub.mod.Table.seat": f"{Path('pkg/sub/mod.py')}:4, {MOST_LINES + 3} lines",
        "sub.mod.Table.seat.inner": f"{Path('pkg/sub/mod.py')}:5, {MOST_LINES + 1} lines",
        "sub.mod.top": f"{Path('pkg/sub/mod.py')}:{MOST_LINES + 7}, {MOST_LINES + 1} lines",
    }
