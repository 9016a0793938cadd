"""A bound no bot's skill enters: how often a Garde is made with every card seen.

:func:`run_bound` makes seat 0 take a contract (a Garde by default) on many deals, the
heuristic bots at every seat choosing the call and the écart and playing the first
``after_tricks`` tricks; the rest of each deal is solved double dummy
(:mod:`tarot_analysis.analyses.double_dummy`) within a node budget. One row per deal: the taker's
hand as dealt (Chavey's count, bouts, trumps), the attack's double-dummy points (the interval
proved when the budget stops the solve), the contract made, lost or undecided by double
dummy, and the heuristic's own points and result on the same deal, played on from the same
position, so that the two stand side by side, deal by deal.

The rows go to a run folder (:mod:`tarot_analysis.runs.runner`): Parquet chunks that a stopped run
resumes, the same rows for the same seed (a node budget, not a time limit, so that they do
not depend on the machine), on local threads or a Dask cluster.

:func:`bound_rates` gives the make rates by band of Chavey's count. A deal left undecided
counts as not made in ``dd_rate`` and as made in ``dd_rate_undecided_made``: the double-dummy
rate lies between the two. Void deals (a Petit sec) are left out.

>>> import tempfile
>>> from tarot_analysis.game.rules import load_rules
>>> folder = tempfile.mkdtemp()
>>> data = run_bound(load_rules("fft-4"), 4, folder, after_tricks=15, chunk_size=2)
>>> len(data), sorted(set(data["dd_outcome"]) - {"made", "lost", "undecided", "redealt"})
(4, [])
"""

from __future__ import annotations

import itertools
import os
from typing import Any, Final

import numpy as np
import pandas as pd
import pyarrow as pa

from tarot_analysis.analyses.double_dummy import (
    DEFAULT_CONTRACT,
    LOST,
    MADE,
    REDEALT,
    UNDECIDED,
    contract_index,
    requirement,
    solve_start,
    start_after,
    verdict,
)
from tarot_analysis.deals import evaluators
from tarot_analysis.errors import TarotInputError, is_whole_number
from tarot_analysis.game import cards
from tarot_analysis.game.rules import Rules, rules_to_dict
from tarot_analysis.runs.progress import PLAYING
from tarot_analysis.runs.runner import RunSpec, read_dataset, run
from tarot_analysis.stats import Z_95, wilson_interval
from tarot_analysis.table.play import play

__all__ = [
    "BAND_EDGES",
    "DEFAULT_CHUNK_SIZE",
    "DEFAULT_MAX_NODES",
    "KIND",
    "bound_chunk",
    "bound_rates",
    "read_bound",
    "run_bound",
]

#: The kind of run in a folder's definition.
KIND: Final = "dd-bound"
#: Deals per chunk: a few seconds to a few minutes of solving, by the tricks left.
DEFAULT_CHUNK_SIZE: Final = 100
#: Positions each deal's solve may search before it stops with an interval.
DEFAULT_MAX_NODES: Final = 5_000_000
#: Chavey's least counts for a Prise, a Garde, a Garde sans and a Garde contre: the bands'
#: edges, on the 18-card scale (:func:`tarot_analysis.deals.evaluators.scale_to_18`).
BAND_EDGES: Final = evaluators.CHAVEY_THRESHOLDS
#: The columns of a row, one row per deal.
BOUND_COLUMNS: Final = (
    "deal", "chavey", "bouts", "trumps", "points_before", "dd_low", "dd_high", "dd_bouts",
    "dd_required", "dd_outcome", "nodes", "heuristic_points", "heuristic_made",
)  # fmt: skip


def _chunk_seed(seed: int, chunk: int) -> np.random.SeedSequence:
    return np.random.SeedSequence(seed, spawn_key=(chunk,))


def _hand_columns(rules: Rules, masks: np.ndarray) -> dict[str, Any]:
    """Chavey's count, bouts and trumps of seat 0's hand as dealt."""
    lo, hi = masks[:, 0, 0], masks[:, 0, 1]
    return {
        "chavey": evaluators.chavey(lo, hi),
        "bouts": np.bitwise_count(hi & np.uint64(cards.BOUTS_MASK_HI)).astype(np.int8),
        "trumps": np.bitwise_count(hi & np.uint64(cards.TRUMPS_MASK_HI)).astype(np.int8),
    }


def _solved_row(
    rules: Rules, result: Any, row: int, after_tricks: int, max_nodes: int
) -> dict[str, Any]:
    """The double-dummy columns of deal ``row`` of the heuristic's ``result``."""
    start = start_after(rules, result, row, after_tricks)
    if start is None:
        nan = float("nan")
        return {
            "points_before": nan, "dd_low": nan, "dd_high": nan, "dd_bouts": -1,
            "dd_required": nan, "dd_outcome": REDEALT, "nodes": 0,
        }  # fmt: skip
    solved = solve_start(rules, start, max_nodes=max_nodes)
    before = start.half_before / 2
    required = requirement(rules, start.bouts)
    low, high = before + solved.low, before + solved.high
    return {
        "points_before": before, "dd_low": low, "dd_high": high, "dd_bouts": start.bouts,
        "dd_required": required, "dd_outcome": verdict(low, high, required),
        "nodes": solved.nodes,
    }  # fmt: skip


def bound_chunk(
    rules: Rules, seed: int, spec: dict[str, Any], chunk: int, first: int, n: int
) -> pa.Table:
    """The rows of deals ``first .. first + n`` of a run (chunk ``chunk``): the toolkit's
    deals for ``(seed, chunk)``, played by the heuristic with seat 0 taking ``spec``'s
    contract, then solved from ``spec["after_tricks"]`` on."""
    contract = contract_index(rules, spec["contract"])
    result = play(
        rules, n, bots="heuristic", seed=_chunk_seed(seed, chunk), forced=[0, contract, -1, -1],
        chunk_size=n, threads=1, keep_tricks=True,
    )  # fmt: skip
    scored = result.scores()
    solved = [
        _solved_row(rules, result, row, spec["after_tricks"], spec["max_nodes"]) for row in range(n)
    ]
    columns: dict[str, Any] = {"deal": np.arange(first, first + n, dtype=np.int64)}
    columns |= _hand_columns(rules, result.masks)
    for name in ("points_before", "dd_low", "dd_high", "dd_bouts", "dd_required", "nodes"):
        columns[name] = np.array([row[name] for row in solved])
    columns["dd_outcome"] = pa.array([row["dd_outcome"] for row in solved], pa.string())
    columns["heuristic_points"] = scored["attack_points"].to_numpy(dtype=float)
    columns["heuristic_made"] = scored["made"].fillna(False).to_numpy(dtype=bool)
    return pa.table({name: columns[name] for name in BOUND_COLUMNS})


def run_bound(
    rules: Rules,
    deals: int,
    folder: str | os.PathLike[str],
    *,
    after_tricks: int = 10,
    max_nodes: int = DEFAULT_MAX_NODES,
    contract: str = DEFAULT_CONTRACT,
    seed: int = 1,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    threads: int | None = None,
    progress: bool = False,
    client: Any = None,
) -> pd.DataFrame:
    """Solve ``deals`` deals with seat 0 taking ``contract`` into ``folder`` (resuming what
    is there), the first ``after_tricks`` tricks the heuristic's; every row of the run."""
    if rules.tarocco is not None:
        raise TarotInputError(f"the double-dummy bound is for French Tarot, not {rules.name}")
    contract_index(rules, contract)
    if not is_whole_number(after_tricks) or not 0 <= after_tricks < rules.hand_size:
        raise TarotInputError(
            f"after_tricks must be from 0 to {rules.hand_size - 1}, got {after_tricks!r}"
        )
    if not is_whole_number(max_nodes) or max_nodes < 1:
        raise TarotInputError(f"max_nodes must be a whole number of 1 or more, got {max_nodes!r}")
    extra: dict[str, Any] = {
        "after_tricks": int(after_tricks), "max_nodes": int(max_nodes), "contract": contract,
        "taker": 0, "rules_definition": rules_to_dict(rules), "columns": list(BOUND_COLUMNS),
    }  # fmt: skip
    spec = RunSpec(
        kind=KIND, rules=rules.name, bots=("heuristic",) * rules.players, seed=seed,
        deals=deals, chunk_size=chunk_size, extra=extra,
    )  # fmt: skip

    def work(chunk: int, first: int, n: int) -> pa.Table:
        return bound_chunk(rules, seed, extra, chunk, first, n)

    run(
        spec, folder, work, threads=threads, progress=progress, client=client, phase=PLAYING,
        detail=f"{rules.name} double dummy after {after_tricks} tricks",
    )  # fmt: skip
    return read_bound(folder)


def read_bound(folder: str | os.PathLike[str]) -> pd.DataFrame:
    """Every row of a bound run's folder, each chunk checked; another kind is refused."""
    frame = read_dataset(folder).to_pandas()
    missing = [name for name in BOUND_COLUMNS if name not in frame.columns]
    if missing:
        raise TarotInputError(
            f"{folder} holds no double-dummy bound (no column {', '.join(missing)})"
        )
    return frame


def band_labels() -> list[str]:
    """The bands of Chavey's count, cut at :data:`BAND_EDGES`."""
    edges = list(BAND_EDGES)
    inner = [f"{low}–{high - 1}" for low, high in itertools.pairwise(edges)]
    return [f"under {edges[0]}", *inner, f"{edges[-1]} and over"]


def _bands(chavey: pd.Series, hand_size: int) -> pd.Categorical:
    """Each count's band, on the 18-card scale."""
    scaled = evaluators.scale_to_18(chavey.to_numpy(), hand_size)
    bins = [-np.inf, *BAND_EDGES, np.inf]
    return pd.cut(scaled, bins=bins, right=False, labels=band_labels())


def _paired(made: np.ndarray, other: np.ndarray) -> tuple[float, float, float]:
    """The mean of ``made − other`` (booleans, one per deal) and its normal 95% interval."""
    differences = made.astype(float) - other.astype(float)
    n = len(differences)
    mean = float(differences.mean()) if n else float("nan")
    half = Z_95 * float(differences.std(ddof=1)) / np.sqrt(n) if n > 1 else float("nan")
    return mean, mean - half, mean + half


def _band_row(part: pd.DataFrame) -> dict[str, float]:
    """Rates of one band: double dummy (undecided as not made, and as made), the heuristic,
    and the paired difference, its interval widened over both readings of the undecided."""
    n = len(part)
    made = (part["dd_outcome"] == MADE).to_numpy()
    undecided = (part["dd_outcome"] == UNDECIDED).to_numpy()
    heuristic = part["heuristic_made"].to_numpy(dtype=bool)
    dd_low, dd_high = wilson_interval(made.sum(), n)
    _, upper_high = wilson_interval((made | undecided).sum(), n)
    h_low, h_high = wilson_interval(heuristic.sum(), n)
    difference, low, _ = _paired(made, heuristic)
    _, _, high = _paired(made | undecided, heuristic)
    rate = float(made.mean()) if n else float("nan")
    return {
        "n": n, "dd_made": int(made.sum()), "dd_lost": int((part["dd_outcome"] == LOST).sum()),
        "undecided": int(undecided.sum()), "dd_rate": rate, "dd_ci_low": float(dd_low),
        "dd_ci_high": float(dd_high),
        "dd_rate_undecided_made": float((made | undecided).mean()) if n else float("nan"),
        "dd_undecided_made_ci_high": float(upper_high), "heuristic_made": int(heuristic.sum()),
        "heuristic_rate": float(heuristic.mean()) if n else float("nan"),
        "heuristic_ci_low": float(h_low), "heuristic_ci_high": float(h_high),
        "difference": difference, "difference_ci_low": low, "difference_ci_high": high,
    }  # fmt: skip


def bound_rates(frame: pd.DataFrame, hand_size: int) -> pd.DataFrame:
    """Make rates by band of Chavey's count (and ``all``), void deals left out: double dummy
    (``dd_rate``: undecided as not made; ``dd_rate_undecided_made``: as made), the
    heuristic's, each with its Wilson 95% interval, and the paired difference double dummy −
    heuristic with its normal 95% interval (low end with the undecided not made, high end
    with them made)."""
    played = frame[frame["dd_outcome"] != REDEALT]
    bands = _bands(played["chavey"], hand_size)
    rows = {str(label): _band_row(played[np.asarray(bands == label)]) for label in band_labels()}
    rows["all"] = _band_row(played)
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "chavey"
    return table
