"""The Garde under other bots, deal by deal: a run of the same deals found beside the report's.

A ``guidance`` run of the same rules and seed with other bots (``tarot-analysis guidance
--bots pimc ...``, into the report's data folder under the name the command gives it) deals the
same hands to seat 0 when its chunks are as long as the report's (the first deals of the first
chunk always agree). On the deals both hold, checked hand by hand through their Chavey counts:
by band of Chavey count, how the Garde's score moves from the report's bots to the others. The
best contract of each run comes from its own deals (the ladder's reading,
:func:`~tarot_analysis.analyses.guidance.chavey_advice`), not from here.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
import pandas as pd

from tarot_analysis.stats import Z_95

__all__ = ["garde_change"]

#: The contract whose score the comparison follows: the one most bid.
GARDE = "garde"


def _interval(values: npt.NDArray[np.float64]) -> tuple[float, float, float]:
    """Mean and its normal 95% interval."""
    mean = float(values.mean()) if len(values) else math.nan
    if len(values) < 2:
        return mean, math.nan, math.nan
    half = Z_95 * float(values.std(ddof=1)) / math.sqrt(len(values))
    return mean, mean - half, mean + half


def garde_change(
    ours: pd.DataFrame | None, other: pd.DataFrame | None, bands: pd.DataFrame
) -> dict[str, tuple[int, tuple[float, float, float]]] | None:
    """By band (the rows of ``bands``: ``low`` and ``high`` counts, by band text), the deals
    both runs played and the Garde's score of ``other`` less that of ``ours`` on them, mean
    and 95% interval. ``ours`` and ``other``: the rows of two guidance runs; ``None`` when
    either kept no rows, they were dealt other hands (their Chavey counts differ on a deal both
    hold) or they share no deal."""
    columns = ["deal", "chavey", "redeal", f"score_{GARDE}"]
    if ours is None or other is None or any(c not in f for f in (ours, other) for c in columns):
        return None
    joined = ours[columns].merge(other[columns], on="deal", suffixes=("", "_other"))
    if joined.empty or not (joined["chavey"] == joined["chavey_other"]).all():
        return None
    joined = joined[~joined["redeal"].astype(bool) & ~joined["redeal_other"].astype(bool)]
    chavey = joined["chavey"].to_numpy()
    change = (joined[f"score_{GARDE}_other"] - joined[f"score_{GARDE}"]).to_numpy(dtype=float)
    out = {}
    for band, row in bands.iterrows():
        here = (chavey >= row["low"]) & (chavey <= row["high"])
        if here.sum() >= 1:
            out[str(band)] = (int(here.sum()), _interval(change[here]))
    return out
