"""The package's imports point one way: no circle, every import down the floors of the house
(the engine below the bots, the bots below the table), and nobody importing the command line.

Every ``import`` statement of every module is read from its source (with :mod:`ast`, nothing
is imported): those at the top, those inside functions and those under ``TYPE_CHECKING``
alike, since an import moved into a function to dodge a circle is still a circle. ``from
tarot_analysis.x import y`` is an edge to ``tarot_analysis.x.y`` when that is a module, else to
``tarot_analysis.x``; relative imports are resolved the same way. A package importing one of
its own modules is an edge like any other; the implicit import of a module's parent package by
Python is not counted (every module would otherwise sit in a circle with a package that
gathers its modules).
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

import tarot_analysis

PACKAGE = "tarot_analysis"
ROOT = Path(tarot_analysis.__file__).parent

# The floors of the house, lowest first, by folder (or module) under the package: a module may
# import its own floor and those below, never one above. A deal flows upward through them: the
# game's cards and rules, the runs that cut work into chunks, what the cards alone decide, the
# engine that steps a deal, the solver, the bots, the table that seats them, what the bots
# learn, the analyses, the report and the command line. A test checks that every folder and
# module of the package stands on one floor.
FLOORS: tuple[frozenset[str], ...] = (
    frozenset({"errors", "reader", "stats", "bootstrap", "_jit"}),
    frozenset({"game"}),
    frozenset({"runs"}),
    frozenset({"deals"}),
    frozenset({"engine"}),
    frozenset({"solver"}),
    frozenset({"bots"}),
    frozenset({"table"}),
    frozenset({"learning"}),
    frozenset({"analyses"}),
    frozenset({"report"}),
    frozenset({"cli"}),
)
ENGINE = "engine"
BOTS = "bots"
#: What the engine and the bots may not import: everything that seats bots or sits above.
ABOVE_THE_BOTS = frozenset().union(*FLOORS[FLOORS.index(frozenset({"table"})) :])


def module_files(root: Path = ROOT, package: str = PACKAGE) -> dict[str, Path]:
    """Every module of the package under ``root``, by dotted name (a package by its own name)."""
    modules = {}
    for path in sorted(root.rglob("*.py")):
        parts = [package, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def imported_modules(
    module: str, source: str, is_package: bool, known: Iterable[str]
) -> list[tuple[str, int]]:
    """The package's modules that ``source`` (module ``module``) imports, with their lines.

    Every import statement counts, wherever it stands in the file.
    """
    known = set(known)
    package = module.split(".")[0]
    statements = [
        node
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Import | ast.ImportFrom)
    ]
    found = []
    for node in sorted(statements, key=lambda node: (node.lineno, node.col_offset)):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            if node.level:
                here = module.split(".") if is_package else module.split(".")[:-1]
                base = here[: len(here) - (node.level - 1)]
                origin = ".".join([*base, *([node.module] if node.module else [])])
            else:
                origin = node.module or ""
            targets = [
                f"{origin}.{alias.name}" if f"{origin}.{alias.name}" in known else origin
                for alias in node.names
            ]
        found += [
            (target, node.lineno)
            for target in targets
            if target.split(".")[0] == package and target != module
        ]
    return list(dict.fromkeys(found))


def import_graph(modules: Mapping[str, Path]) -> dict[str, dict[str, int]]:
    """For each module, the modules it imports and the line of the first import of each."""
    graph: dict[str, dict[str, int]] = {}
    for module, path in modules.items():
        edges = graph.setdefault(module, {})
        is_package = path.name == "__init__.py"
        for target, line in imported_modules(module, path.read_text(), is_package, modules):
            if target in modules:
                edges.setdefault(target, line)
    return graph


def circles(graph: Mapping[str, Mapping[str, int]]) -> list[list[str]]:
    """One circle of imports per group of modules that import each other, as a path.

    Each circle starts at its smallest module name and ends where it started.
    """
    found = []
    for group in strongly_connected(graph):
        start = min(group)
        # the shortest way back to the start inside the group, breadth first
        previous: dict[str, str] = {}
        frontier = [start]
        while start not in previous:
            following = []
            for module in frontier:
                for target in sorted(graph.get(module, {})):
                    if target in group and target not in previous:
                        previous[target] = module
                        following.append(target)
            frontier = following
        path = [start]
        while len(path) == 1 or path[-1] != start:
            path.append(previous[path[-1]])
        found.append(path[::-1])
    return sorted(found)


def strongly_connected(graph: Mapping[str, Mapping[str, int]]) -> list[set[str]]:
    """The groups of two or more modules that reach each other by imports (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for target in graph.get(module, {}):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in on_stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            group = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == module:
                    break
            if len(group) > 1:
                groups.append(group)

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return groups


def chains(graph: Mapping[str, Mapping[str, int]], start: str) -> dict[str, list[str]]:
    """Every module that ``start`` imports, directly or not, with the shortest chain to it."""
    found = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for module in frontier:
            for target in sorted(graph.get(module, {})):
                if target not in found:
                    found[target] = [*found[module], target]
                    following.append(target)
        frontier = following
    del found[start]
    return found


def describe(graph: Mapping[str, Mapping[str, int]], circle: list[str]) -> str:
    """A circle as its imports, each with its file and line."""
    steps = [f"{a} imports {b} ({path_of(a)}:{graph[a][b]})" for a, b in itertools.pairwise(circle)]
    return " -> ".join(circle) + "\n    " + "\n    ".join(steps)


def path_of(module: str) -> str:
    return str(MODULES[module].relative_to(ROOT.parent))


def in_group(module: str, names: Iterable[str]) -> bool:
    """Whether ``module`` is one of ``names`` (given without the package prefix) or inside one."""
    return any(
        module == f"{PACKAGE}.{name}" or module.startswith(f"{PACKAGE}.{name}.") for name in names
    )


def offending(
    graph: Mapping[str, Mapping[str, int]], importers: Iterable[str], forbidden: Iterable[str]
) -> list[str]:
    """Each import of a module of the groups ``forbidden`` by a module of the groups
    ``importers`` (groups named without the package prefix), with its file and line."""
    importers, forbidden = list(importers), list(forbidden)
    return [
        f"{module} imports {target} ({path_of(module)}:{line})"
        for module, edges in sorted(graph.items())
        if in_group(module, importers)
        for target, line in sorted(edges.items())
        if in_group(target, forbidden)
    ]


MODULES = module_files()
GRAPH = import_graph(MODULES)


def test_no_module_imports_itself_back_in_a_circle() -> None:
    found = circles(GRAPH)
    assert not found, "imports in a circle:\n" + "\n".join(describe(GRAPH, c) for c in found)


def test_the_engine_knows_no_bot_and_no_table() -> None:
    found = offending(GRAPH, [ENGINE], [BOTS, *ABOVE_THE_BOTS])
    assert not found, "the engine imports what sits above it:\n" + "\n".join(found)


def test_no_chain_of_imports_leads_from_the_engine_to_a_bot_or_the_table() -> None:
    # the engine may reach other modules through the dealer, say, but never a bot that way
    found = [
        " -> ".join(path)
        for module in sorted(GRAPH)
        if in_group(module, [ENGINE])
        for reached, path in sorted(chains(GRAPH, module).items())
        if in_group(reached, [BOTS, "table"])
    ]
    assert not found, "the engine leads to a bot or the table:\n" + "\n".join(found)


def test_the_bots_know_the_engine_not_the_table() -> None:
    found = offending(GRAPH, [BOTS], ABOVE_THE_BOTS)
    assert not found, "a bot imports what seats it:\n" + "\n".join(found)


def test_nobody_imports_the_command_line() -> None:
    found = offending(GRAPH, set().union(*FLOORS) - {"cli"}, ["cli"])
    assert not found, "the command line is imported:\n" + "\n".join(found)


def floor_of(module: str) -> int | None:
    """The floor of a module of the package (``None`` for the package's own face)."""
    name = module.split(".")[1] if "." in module else None
    return next((level for level, names in enumerate(FLOORS) if name in names), None)


def imports_up_a_floor(graph: Mapping[str, Mapping[str, int]]) -> list[tuple[str, str, int]]:
    """Every import of ``graph`` from a module to one on a higher floor, with its line (the
    package's own face, ``tarot_analysis`` itself, imports on first use and is left out)."""
    return [
        (module, target, line)
        for module, edges in sorted(graph.items())
        if module != PACKAGE
        for target, line in sorted(edges.items())
        if (floor_of(target) or 0) > (floor_of(module) or 0)
    ]


def test_every_import_goes_down_or_stays_on_its_floor() -> None:
    found = [
        f"{module} imports {target} ({path_of(module)}:{line})"
        for module, target, line in imports_up_a_floor(GRAPH)
    ]
    assert not found, "an import goes up a floor:\n" + "\n".join(found)


def test_every_folder_and_module_stands_on_a_floor() -> None:
    homeless = sorted(
        module for module in MODULES if module != PACKAGE and floor_of(module) is None
    )
    assert not homeless, f"modules on no floor (add them to FLOORS): {homeless}"


def test_an_import_up_a_floor_is_found() -> None:
    graph = {f"{PACKAGE}.engine.state": {f"{PACKAGE}.bots.heuristic": 3}}
    ups = [(module, target) for module, target, _ in imports_up_a_floor(graph)]
    assert ups == [(f"{PACKAGE}.engine.state", f"{PACKAGE}.bots.heuristic")]


@pytest.mark.parametrize("name", sorted(set().union(*FLOORS)))
def test_every_module_the_rules_name_exists(name: str) -> None:
    # a module moved or renamed must be renamed here too, or the rules above would check nothing
    assert f"{PACKAGE}.{name}" in MODULES, f"{PACKAGE}.{name} is no module: update the floors"


def test_imports_inside_functions_and_relative_imports_are_read() -> None:
    known = {"pkg", "pkg.engine", "pkg.engine.state", "pkg.engine.params", "pkg.bots"}
    source = (
        "import pkg.bots as bots\n"
        "from .params import N_PARAMS\n"
        "from . import params\n"
        "from .. import bots\n"
        "def f():\n"
        "    from pkg.engine import state, params\n"
        "if TYPE_CHECKING:\n"
        "    from pkg import engine\n"
    )
    edges = imported_modules("pkg.engine.state", source, False, known)
    assert edges == [
        ("pkg.bots", 1),
        ("pkg.engine.params", 2),
        ("pkg.engine.params", 3),
        ("pkg.bots", 4),
        ("pkg.engine.params", 6),
        ("pkg.engine", 8),
    ]
    assert imported_modules("pkg.engine", "from . import state", True, known) == [
        ("pkg.engine.state", 1)
    ]


def test_a_circle_hidden_in_a_function_is_found(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "engine").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "engine" / "__init__.py").write_text("")
    (package / "engine" / "params.py").write_text(
        "def rules():\n    from pkg.engine.state import N_S\n    return N_S\n"
    )
    (package / "engine" / "state.py").write_text("from pkg.engine import params\nN_S = 1\n")
    graph = import_graph(module_files(package, "pkg"))
    assert circles(graph) == [["pkg.engine.params", "pkg.engine.state", "pkg.engine.params"]]


def test_modules_outside_any_circle_are_left_out() -> None:
    graph = {"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1, "d": 2}, "d": {"e": 1}, "e": {}}
    assert circles(graph) == [["a", "b", "c", "a"]]
    assert circles({"a": {"b": 1}, "b": {}}) == []
