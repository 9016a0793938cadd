"""The same guidance under other bots: a run of the same deals found beside the report's.

A ``guidance`` run of the same rules and seed with other bots (``tarot-analysis guidance
--bots pimc ...``, into the report's data folder under the name the command gives it) deals the
same hands to seat 0 when its chunks are as long as the report's (the first deals of the first
chunk always agree). Deal by deal on the deals both hold, checked hand by hand through their
Chavey counts: by band of Chavey count, each run's best contract with its runner-up and their
difference, and how the Garde's mean score moves from the report's bots to the others.
"""

from __future__ import annotations

import itertools
import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pandas as pd

from tarot_analysis.stats import Z_95

__all__ = ["BandComparison", "BotsComparison", "bands", "compare_runs", "other_runs"]

CONTRACTS = ("prise", "garde", "garde_sans", "garde_contre")


@dataclass(frozen=True)
class BandComparison:
    """One band of Chavey count: each run's best and runner-up, and the Garde's move."""

    band: str
    deals: int
    best: tuple[str, str]  # (report's bots, other bots); "A ≈ B" for a tie
    difference: tuple[tuple[float, float, float], tuple[float, float, float]]  # mean, low, high
    garde_change: tuple[float, float, float]  # other bots less the report's, paired


@dataclass(frozen=True)
class BotsComparison:
    """The report's guidance beside another run of the same deals."""

    folder: Path
    bots: str
    deals: int
    bands: list[BandComparison]


def other_runs(
    data_dir: str | os.PathLike[str], rules_name: str, label: str, seed: int
) -> list[Path]:
    """Guidance runs of ``rules_name`` and ``seed`` under bots other than ``label``, the
    largest first (seat 0's runs only: the last seat's end in ``-last``)."""
    pattern = re.compile(
        rf"guidance-{re.escape(rules_name)}-(?P<bots>.+)-seed{seed}-(?P<deals>\d+)"
    )
    found = []
    for folder in Path(data_dir).glob(f"guidance-{rules_name}-*-seed{seed}-*"):
        match = pattern.fullmatch(folder.name)
        if match and match["bots"] != label and (folder / "_run.json").exists():
            found.append((int(match["deals"]), folder))
    return [folder for _, folder in sorted(found, reverse=True)]


def _interval(values: npt.NDArray[np.float64]) -> tuple[float, float, float]:
    """Mean and its normal 95% interval."""
    mean = float(values.mean()) if len(values) else math.nan
    if len(values) < 2:
        return mean, math.nan, math.nan
    half = Z_95 * float(values.std(ddof=1)) / math.sqrt(len(values))
    return mean, mean - half, mean + half


def bands(published: Sequence[float]) -> list[tuple[float, float, str]]:
    """Bands of Chavey count cut at the published thresholds: ``below 40``, ``40–55``…"""
    cuts = [int(value) for value in published if math.isfinite(value)]
    edges = [-math.inf, *cuts, math.inf]
    out = []
    for low, high in itertools.pairwise(edges):
        if low == -math.inf:
            text = f"below {int(high)}"
        elif high == math.inf:
            text = f"{int(low)} and more"
        else:
            text = f"{int(low)}–{int(high) - 1}"
        out.append((low, high, text))
    return out


def _best(scores: dict[str, npt.NDArray[np.float64]]) -> tuple[str, tuple[float, float, float]]:
    ranked = sorted(scores, key=lambda name: scores[name].mean(), reverse=True)
    best, runner = ranked[0], ranked[1]
    difference = _interval(scores[best] - scores[runner])
    tie = difference[1] <= 0
    return (f"{best} ≈ {runner}" if tie else best), difference


def compare_runs(
    ours: pd.DataFrame, other: pd.DataFrame, published: Sequence[float], folder: Path, bots: str
) -> BotsComparison | None:
    """``ours`` and ``other``: rows of two guidance runs; ``None`` when they were dealt other
    hands (their Chavey counts differ on a deal both hold) or share no deal."""
    columns = ["deal", "chavey", "redeal", *(f"score_{c}" for c in CONTRACTS)]
    if any(c not in frame for frame in (ours, other) for c in columns):
        return None
    joined = ours[columns].merge(other[columns], on="deal", suffixes=("", "_other"))
    if joined.empty or not (joined["chavey"] == joined["chavey_other"]).all():
        return None
    joined = joined[~joined["redeal"].astype(bool) & ~joined["redeal_other"].astype(bool)]
    chavey = joined["chavey"].to_numpy()
    out = []
    for low, high, text in bands(published):
        rows = joined[(chavey >= low) & (chavey < high)]
        if len(rows) < 2:
            continue
        runs = []
        for suffix in ("", "_other"):
            scores = {c: rows[f"score_{c}{suffix}"].to_numpy(dtype=float) for c in CONTRACTS}
            scores["pass"] = np.zeros(len(rows))
            runs.append(_best(scores))
        garde = rows["score_garde_other"].to_numpy(dtype=float) - rows["score_garde"].to_numpy(
            dtype=float
        )
        out.append(
            BandComparison(
                text, len(rows), (runs[0][0], runs[1][0]), (runs[0][1], runs[1][1]),
                _interval(garde),
            )
        )  # fmt: skip
    return BotsComparison(folder, bots, len(joined), out)
