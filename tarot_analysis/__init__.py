"""tarot-analysis: the statistics of French Tarot and its relatives."""

from __future__ import annotations

import sys

#: What the command line says when Ctrl-C stops it before its command began.
INTERRUPTED_STARTING = "tarot-analysis: interrupted while starting: nothing was done"
#: The exit status of a command stopped by Ctrl-C (128 + SIGINT, as a shell gives it).
EXIT_INTERRUPTED = 130
_EXCEPTHOOK = sys.excepthook


def _interrupted_while_starting(
    kind: type[BaseException], error: BaseException, traceback: TracebackType | None
) -> None:
    """Ctrl-C during the package's import, the first moment of the command line, said in one
    line (:data:`INTERRUPTED_STARTING`); any other error as it was said before."""
    if issubclass(kind, KeyboardInterrupt):
        print(INTERRUPTED_STARTING, file=sys.stderr)
    else:
        _EXCEPTHOOK(kind, error, traceback)


# Until the package is imported whole (the command line answers Ctrl-C itself from then on).
sys.excepthook = _interrupted_while_starting

# Imported once the hook is set: a Ctrl-C while they load is said in one line too.
import hashlib  # noqa: E402
import os  # noqa: E402
from importlib import import_module  # noqa: E402
from pathlib import Path  # noqa: E402
from types import TracebackType  # noqa: E402


def _version() -> str:
    """The installed package's version (``0.0.0`` in a source tree never installed)."""
    # imported here: once the Ctrl-C of the start-up is answered (importlib.metadata is slow).
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("tarot-analysis")
    except PackageNotFoundError:
        return "0.0.0"


__version__ = _version()

#: The functions and records a user calls, by the module that holds each. The house's folders,
#: from the ground up: ``game`` (cards and rules), ``runs`` (chunks, resumable folders, Dask),
#: ``deals`` (what the cards alone decide), ``engine`` (a deal as a state that steps),
#: ``solver`` (double dummy), ``bots``, ``table`` (bots seated, deals played), ``learning``,
#: ``analyses``, ``report`` and ``cli``. Each is imported on first use, so that importing the
#: package (and ``tarot-analysis --help``) compiles and loads nothing.
PUBLIC: dict[str, str] = {
    "load_rules": "game.rules",
    "list_presets": "game.rules",
    "format_rules": "game.rules",
    "Rules": "game.rules",
    "deal": "deals.deal",
    "run_hands": "deals.hand_stats",
    "hand_odds": "deals.odds",
    "play": "table.play",
    "play_given": "table.play",
    "replay": "table.play",
    "solve": "solver",
    "play_every_contract": "analyses.counterfactual",
    "run_guidance": "analyses.guidance",
    "compare_variants": "analyses.compare",
    "analyse_hand": "analyses.one_hand",
    "ecart_advice": "analyses.ecart",
    "dd_table": "analyses.double_dummy",
    "run_bound": "analyses.dd_bound",
    "build_report": "report",
    "TarotInputError": "errors",
}

__all__ = ["__version__", *PUBLIC]


def __getattr__(name: str) -> object:
    """The public functions, imported from their modules on first use."""
    if name not in PUBLIC:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{PUBLIC[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(PUBLIC))


#: Folders and modules (paths under the package) that hold no compiled code and that no
#: compiled code imports: the command line, the report and charts, the analyses written over the
#: runners. A change in them keeps the compiled kernels (a test checks both conditions).
WITHOUT_COMPILED_CODE = frozenset(
    {
        "analyses/compare.py",
        "analyses/dd_bound.py",
        "analyses/double_dummy.py",
        "analyses/ecart.py",
        "analyses/guidance",
        "analyses/one_hand.py",
        "analyses/replay.py",
        "analyses/review",
        "cli",
        "deals/odds.py",
        "learning/rounds.py",
        "learning/streaming.py",
        "learning/training.py",
        "report",
        "runs/memory.py",
        "table/duplicate.py",
        "table/env.py",
        "table/mix.py",
    }
)


def left_out_of_the_digest(relative: Path) -> bool:
    """Whether a source file (its path under the package) is one of :data:`WITHOUT_COMPILED_CODE`
    or inside one of its folders."""
    parts = relative.as_posix().split("/")
    return any("/".join(parts[:end]) in WITHOUT_COMPILED_CODE for end in range(1, len(parts) + 1))


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
        if left_out_of_the_digest(path.relative_to(root)):
            continue
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "tarot-analysis"
    folder = base / f"numba-{digest.hexdigest()[:16]}"
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    if "numba" in sys.modules:  # imported before us: tell its configuration too
        sys.modules["numba"].config.CACHE_DIR = str(folder)


_use_numba_cache_of_this_source()
sys.excepthook = _EXCEPTHOOK  # the package is imported
