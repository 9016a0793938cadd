"""``import tarot_analysis`` gives the functions a user calls, and loads nothing heavy."""

from __future__ import annotations

import subprocess
import sys

import pytest

import tarot_analysis


@pytest.mark.parametrize("name", sorted(set(tarot_analysis.__all__) - {"__version__"}))
def test_every_public_name_is_the_function_of_its_module(name: str) -> None:
    from importlib import import_module

    module = import_module(f"tarot_analysis.{tarot_analysis.PUBLIC[name]}")
    assert getattr(tarot_analysis, name) is getattr(module, name)
    assert name in dir(tarot_analysis)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'lode_rules'"):
        tarot_analysis.lode_rules  # noqa: B018


def test_importing_the_package_compiles_and_loads_nothing() -> None:
    code = (
        "import sys, tarot_analysis\n"
        "print(sorted(m for m in ('numba', 'pandas', 'tarot_analysis.engine') if m in sys.modules))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert loaded == "[]"


def test_the_public_face_plays_a_preset() -> None:
    rules = tarot_analysis.load_rules("fft-4")
    assert rules.players == 4
    assert "fft-4" in tarot_analysis.list_presets()
