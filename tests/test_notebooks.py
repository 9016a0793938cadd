"""Every notebook runs from top to bottom with small parameters.

The notebooks are plain-text percent scripts (paired with jupytext). Each is read into a
notebook, its ``parameters`` cell replaced by small values (as papermill does), and executed
in a real Jupyter kernel: a notebook that breaks fails the suite.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jupytext
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).parent.parent / "notebooks").glob("*.py"))

SMALL: dict[str, dict[str, Any]] = {
    "hand_distributions": {"deals": 20_000},
    "contract_success": {"deals": 8_000},
    "bidding_guidance": {"deals": 20_000},
    "rule_variants": {"deals": 4_000},
}


def with_parameters(notebook: Any, values: dict[str, Any]) -> None:
    """Append the small values to the cell tagged ``parameters``, as papermill injects them."""
    for cell in notebook.cells:
        if "parameters" in cell.get("metadata", {}).get("tags", []):
            cell.source += "\n" + "\n".join(f"{k} = {v!r}" for k, v in values.items())
            return
    raise AssertionError("the notebook has no cell tagged 'parameters'")


def test_every_notebook_is_listed_with_small_parameters() -> None:
    assert {path.stem for path in NOTEBOOKS} <= set(SMALL)
    assert NOTEBOOKS


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs(path: Path, tmp_path: Path) -> None:
    notebook = jupytext.read(path)
    with_parameters(notebook, SMALL[path.stem] | {"data_dir": str(tmp_path)})
    client = NotebookClient(notebook, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}})  # fmt: skip
    client.execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    assert any("image/png" in o.get("data", {}) for o in outputs)  # charts were drawn
