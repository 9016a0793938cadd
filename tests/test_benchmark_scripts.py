"""Every benchmark starts: a script's imports resolve and it prints its usage; a pytest plugin
among them imports."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = sorted((Path(__file__).parent.parent / "benchmarks").glob("*.py"))


def test_there_are_benchmarks() -> None:
    assert len(BENCHMARKS) >= 10


@pytest.mark.parametrize("path", BENCHMARKS, ids=lambda path: path.stem)
def test_benchmark_starts(path: Path) -> None:
    script = '__name__ == "__main__"' in path.read_text(encoding="utf-8")
    command = [str(path), "--help"] if script else ["-c", f"import {path.stem}"]
    done = subprocess.run(
        [sys.executable, *command], capture_output=True, text=True, timeout=300,
        cwd=path.parent,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr.strip().splitlines()[-1:]
    assert "usage:" in done.stdout or not script
