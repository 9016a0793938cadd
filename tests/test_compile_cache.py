"""The compiled-code cache is keyed on the modules that compiled code can reach, and only those."""

from __future__ import annotations

import ast
from pathlib import Path

import tarot_analysis
from tarot_analysis import WITHOUT_COMPILED_CODE, left_out_of_the_digest

ROOT = Path(tarot_analysis.__file__).parent


def _left_out(path: Path) -> bool:
    return left_out_of_the_digest(path.relative_to(ROOT))


def _imported_modules(path: Path) -> set[str]:
    """The ``tarot_analysis`` modules a file imports (dotted, without the package's name), at
    its top or inside its functions; ``from x import y`` names both ``x`` and ``x.y``."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            parts = node.module.split(".")
            if parts[0] != "tarot_analysis":
                continue
            base = parts[1:]
            if base:
                found.add(".".join(base))
            found.update(".".join([*base, alias.name]) for alias in node.names)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "tarot_analysis" and len(parts) > 1:
                    found.add(".".join(parts[1:]))
    return found


def _is_left_out(module: str) -> bool:
    """Whether a dotted module (a module file or a package's folder) is left out."""
    path = Path(module.replace(".", "/"))
    return left_out_of_the_digest(path) or left_out_of_the_digest(path.with_suffix(".py"))


def test_modules_left_out_of_the_digest_exist() -> None:
    for entry in WITHOUT_COMPILED_CODE:
        assert (ROOT / entry).exists(), entry


def test_modules_left_out_hold_no_compiled_code() -> None:
    for path in ROOT.rglob("*.py"):
        if _left_out(path):
            text = path.read_text(encoding="utf-8")
            assert "numba" not in text and "njit" not in text and "KERNEL" not in text, path


def test_no_module_in_the_digest_imports_one_left_out() -> None:
    for path in ROOT.rglob("*.py"):
        if _left_out(path) or path == ROOT / "__init__.py":
            continue
        assert not {m for m in _imported_modules(path) if _is_left_out(m)}, path


def test_the_check_sees_an_import_inside_a_function(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "def f():\n"
        "    from tarot_analysis.report import plots\n"
        "    import tarot_analysis.cli.program\n"
    )
    assert _imported_modules(module) == {"report", "report.plots", "cli.program"}
    assert all(_is_left_out(name) for name in _imported_modules(module))
    assert not _is_left_out("table.play") and _is_left_out("analyses.guidance.counts")
