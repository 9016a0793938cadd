"""tarot-analysis: the statistics of French Tarot and its relatives."""

from __future__ import annotations

import hashlib
import os
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

try:
    __version__ = version("tarot-analysis")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0"

__all__ = ["__version__"]

#: Modules and packages that hold no compiled code and that no compiled code imports: the
#: command line, the report, charts and the analyses written over the runners. A change in them
#: keeps the compiled kernels (a test checks both conditions on every module).
WITHOUT_COMPILED_CODE = frozenset(
    {
        "arguments.py",
        "cli.py",
        "commands",
        "compare.py",
        "dd_bound.py",
        "dd_command.py",
        "double_dummy.py",
        "ecart.py",
        "env.py",
        "guidance",
        "memory.py",
        "odds.py",
        "one_hand.py",
        "plots.py",
        "replay.py",
        "report",
        "training.py",
    }
)


def _use_numba_cache_of_this_source() -> None:
    """Keep compiled kernels in a cache folder named after the package's source.

    Numba checks only the file of each cached function when it decides whether its cache is
    still good; a kernel that calls a bot in another file would run the old bot after that file
    changed. A folder per source digest makes any change of source compile afresh; the modules of
    :data:`WITHOUT_COMPILED_CODE` are left out of the digest. A user's own ``NUMBA_CACHE_DIR`` is
    left alone.
    """
    if "NUMBA_CACHE_DIR" in os.environ:
        return
    root = Path(__file__).parent
    digest = hashlib.sha256(__version__.encode())
    for path in sorted(root.rglob("*.py")):
        if path.relative_to(root).parts[0] in WITHOUT_COMPILED_CODE:
            continue
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "tarot-analysis"
    folder = base / f"numba-{digest.hexdigest()[:16]}"
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    if "numba" in sys.modules:  # imported before us: tell its configuration too
        sys.modules["numba"].config.CACHE_DIR = str(folder)


_use_numba_cache_of_this_source()
