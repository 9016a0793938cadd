"""The compiled-code cache is keyed on the modules that compiled code can reach, and only those."""

from __future__ import annotations

import ast
from pathlib import Path

import tarot_analysis
from tarot_analysis import WITHOUT_COMPILED_CODE

ROOT = Path(tarot_analysis.__file__).parent


def _top(path: Path) -> str:
    return path.relative_to(ROOT).parts[0]


def _imported_modules(path: Path) -> set[str]:
    """The ``tarot_analysis`` modules a file imports, at its top or inside its functions."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            parts = node.module.split(".")
            if parts[0] != "tarot_analysis":
                continue
            if len(parts) > 1:
                found.add(parts[1])
            else:
                found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "tarot_analysis" and len(parts) > 1:
                    found.add(parts[1])
    return found


def _name(entry: str) -> str:
    return entry.removesuffix(".py")


def test_modules_left_out_of_the_digest_exist() -> None:
    tops = {_top(path) for path in ROOT.rglob("*.py")}
    assert WITHOUT_COMPILED_CODE <= tops


def test_modules_left_out_hold_no_compiled_code() -> None:
    for path in ROOT.rglob("*.py"):
        if _top(path) in WITHOUT_COMPILED_CODE:
            text = path.read_text(encoding="utf-8")
            assert "numba" not in text and "njit" not in text and "KERNEL" not in text, path


def test_no_module_in_the_digest_imports_one_left_out() -> None:
    left_out = {_name(entry) for entry in WITHOUT_COMPILED_CODE}
    for path in ROOT.rglob("*.py"):
        if _top(path) in WITHOUT_COMPILED_CODE:
            continue
        assert not _imported_modules(path) & left_out, path


def test_the_check_sees_an_import_inside_a_function(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "def f():\n    from tarot_analysis.plots import x\n    import tarot_analysis.cli\n"
    )
    assert _imported_modules(module) == {"plots", "cli"}


def test_nothing_imports_the_command_line() -> None:
    """``cli`` imports the runners; the runners take their argument helpers from ``arguments``."""
    for path in ROOT.rglob("*.py"):
        if path.name != "cli.py":
            assert "cli" not in _imported_modules(path), path
