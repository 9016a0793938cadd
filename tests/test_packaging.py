"""The package's metadata as the packaging standards of today read it.

The license is an SPDX expression with the files that hold its text (PEP 639), and the build
backend is pinned to the releases that read it that way: a license written as a TOML table, or
an unpinned setuptools, makes every install print deprecation warnings and breaks builds once
setuptools drops the old form.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from packaging.licenses import canonicalize_license_expression
from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))

#: The first setuptools that reads ``license`` as an SPDX string and ``license-files``.
SETUPTOOLS_WITH_PEP_639 = Version("77")


def test_the_license_is_an_spdx_expression_with_its_files() -> None:
    project = PYPROJECT["project"]
    spdx = project["license"]
    assert isinstance(spdx, str), f"project.license should be an SPDX string, not {spdx!r}"
    assert canonicalize_license_expression(spdx) == spdx
    files = project["license-files"]
    assert files, "project.license-files names no file"
    for pattern in files:
        assert list(ROOT.glob(pattern)), f"license-files: {pattern} matches no file"
    # PEP 639: a license expression and a license classifier are not given together.
    classifiers = project.get("classifiers", [])
    assert not [c for c in classifiers if c.startswith("License ::")], classifiers


def test_the_build_backend_is_pinned_to_releases_that_read_that_license() -> None:
    build = PYPROJECT["build-system"]
    assert build["build-backend"] == "setuptools.build_meta"
    (setuptools,) = [
        Requirement(r) for r in build["requires"] if Requirement(r).name == "setuptools"
    ]
    lower = [Version(s.version) for s in setuptools.specifier if s.operator in (">=", "==")]
    upper = [Version(s.version) for s in setuptools.specifier if s.operator in ("<", "<=", "==")]
    assert lower and min(lower) >= SETUPTOOLS_WITH_PEP_639, str(setuptools)
    assert upper, f"{setuptools} has no upper bound"
    assert not setuptools.specifier.contains("76.1.0")
    assert setuptools.specifier.contains(str(SETUPTOOLS_WITH_PEP_639))
