"""The README's command executes every notebook, and every chart says what it was drawn from.

The command is read from the README (the line of its shell blocks that starts with
``make notebooks``) and run as a user runs it, with small deal counts and temporary folders
given as Make variables. Each executed notebook must hold no error and no warning, draw its
charts, and say which bots played how many deals; and the code of every cell that draws a chart
must put a description of its run (rules, bots, deals) in the chart's title.
"""

from __future__ import annotations

import ast
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import jupytext
import nbformat
import pytest

ROOT = Path(__file__).parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.py"))

#: Deals for each notebook, as the Make variables of ``make notebooks``.
SMALL = {
    "HAND_DEALS": 20_000,
    "CONTRACT_DEALS": 8_000,
    "GUIDANCE_DEALS": 10_000,  # played by the learned bot, slower than the heuristic
    "VARIANT_DEALS": 4_000,
}
#: What each executed notebook prints of its run, with the deals above.
#: The learned bot plays where a model ships for the preset (``BOTS ?= learned``); the variants
#: of fft-4 beside presets with none, the heuristic.
PRINTED = {
    "hand_distributions": "deal only, no bots · 20,000 deals",
    "contract_success": "learned bots · 2,000 deals",
    "bidding_guidance": "learned bots · 10,000 deals",
    "rule_variants": "heuristic bots · 1,000 deals",
}
#: The functions of tarot_analysis.report.plots that draw a figure.
CHARTS = {
    "calibration",
    "distribution",
    "expected_score_by_score",
    "petit_sec_by_preset",
    "poignee_by_preset",
    "recommended_map",
    "success_by_score",
    "taker_points",
    "variant_differences",
}


def readme_command() -> list[str]:
    """The command of the README's shell blocks that executes the notebooks."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```sh\n(.*?)^```", readme, flags=re.MULTILINE | re.DOTALL)
    lines = [
        line.split("#")[0].strip()
        for block in blocks
        for line in block.splitlines()
        if line.startswith("make notebooks")
    ]
    assert len(lines) == 1, f"the README should give one `make notebooks` command, not {lines}"
    return shlex.split(lines[0])


def outputs(notebook: Any) -> list[Any]:
    return [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]


def chart_cells(notebook: Any) -> list[ast.Module]:
    """The code cells that draw a chart, parsed (magics left out)."""
    cells = []
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        code = "\n".join(line for line in cell.source.splitlines() if not line.startswith("%"))
        tree = ast.parse(code)
        if any(
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "plots"
            and node.func.attr in CHARTS
            for node in ast.walk(tree)
        ):
            cells.append(tree)
    return cells


def descriptions(notebook: Any) -> set[str]:
    """Names given an f-string that says which bots (or none) played how many deals."""
    names = set()
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        code = "\n".join(line for line in cell.source.splitlines() if not line.startswith("%"))
        for node in ast.walk(ast.parse(code)):
            if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.JoinedStr)):
                continue
            text = "".join(
                str(part.value) for part in node.value.values if isinstance(part, ast.Constant)
            )
            if " bots · " in text and " deals" in text:
                names |= {target.id for target in node.targets if isinstance(target, ast.Name)}
    return names


def titles(tree: ast.Module) -> list[ast.expr]:
    """What a cell passes as a title: ``title=`` of a chart, or a figure's ``suptitle``."""
    found: list[ast.expr] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        found += [keyword.value for keyword in node.keywords if keyword.arg == "title"]
        if isinstance(node.func, ast.Attribute) and node.func.attr == "suptitle":
            found += node.args[:1]
    return found


def test_every_chart_title_names_rules_bots_and_deals() -> None:
    assert {path.stem for path in NOTEBOOKS} == set(PRINTED)
    for path in NOTEBOOKS:
        notebook = jupytext.read(path)
        named = descriptions(notebook)
        assert named, f"{path.name} describes no run (rules · bots · deals)"
        cells = chart_cells(notebook)
        assert cells, f"{path.name} draws no chart"
        for tree in cells:
            used = {
                node.id
                for title in titles(tree)
                for node in ast.walk(title)
                if isinstance(node, ast.Name)
            }
            assert used & named, (
                f"{path.name}: a chart's title does not name its run:\n{ast.unparse(tree)}"
            )


@pytest.mark.slow
def test_readme_command_executes_every_notebook(tmp_path: Path) -> None:
    out, data = tmp_path / "notebooks", tmp_path / "data"
    command = readme_command()
    assert command[:2] == ["make", "notebooks"]
    command += [f"{name}={value}" for name, value in SMALL.items()]
    command += [f"NOTEBOOKS_OUT={out}", f"NOTEBOOKS_DATA={data}"]
    # A `make test VARIABLE=...` above this test must not reach the command's own variables.
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    done = subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=1200, check=False
    )
    assert done.returncode == 0, f"{shlex.join(command)} failed:\n{done.stdout}\n{done.stderr}"

    assert sorted(path.stem for path in out.glob("*.ipynb")) == sorted(PRINTED)
    for name, printed in PRINTED.items():
        notebook = nbformat.read(out / f"{name}.ipynb", as_version=4)
        cells = outputs(notebook)
        errors = [o for o in cells if o.output_type == "error" or o.get("name") == "stderr"]
        assert not errors, f"{name}: {errors}"
        images = [o for o in cells if "image/png" in o.get("data", {})]
        assert images, f"{name} shows no chart"
        assert len(images) == len(chart_cells(notebook)), f"{name}: a chart was not drawn"
        stdout = "".join(o.text for o in cells if o.get("name") == "stdout")
        assert printed in stdout, f"{name} does not say {printed!r}:\n{stdout}"


@pytest.mark.slow
def test_make_executes_a_notebook_without_a_warning(tmp_path: Path) -> None:
    """The command `make notebooks` runs for one notebook, with this Python's environment: no
    warning from the runner (a notebook read from a pipe) nor from the kernel (channels in
    plain text)."""
    out, data = tmp_path / "notebooks", tmp_path / "data"
    out.mkdir()
    prefix = Path(sys.prefix)
    variables = [f"VENV={prefix}", f"NOTEBOOKS_OUT={out}", f"NOTEBOOKS_DATA={data}"]
    variables.append("HAND_DEALS=2000")
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    env["PYTHONPATH"] = str(ROOT)
    planned = subprocess.run(
        ["make", "-n", "-o", str(prefix / ".installed"), "notebooks", *variables],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    lines = planned.stdout.replace("\\\n", " ").splitlines()
    (command,) = [line for line in lines if "notebooks/hand_distributions.py" in line]
    done = subprocess.run(
        ["sh", "-c", command], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, f"{command} failed:\n{done.stdout}\n{done.stderr}"
    printed = done.stdout + done.stderr
    assert "warning" not in printed.lower(), f"{command} printed:\n{printed}"
    assert (out / "hand_distributions.ipynb").is_file()
