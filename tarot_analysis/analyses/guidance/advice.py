"""The best contract by Chavey count of a guidance run: one answer, read two ways.

Every place that tells a player what to bid at a Chavey count reads :func:`chavey_advice`, and
says which of its two readings it shows:

* **by count** (``by_count``): each count held by at least :data:`COUNT_MIN_DEALS` deals is read
  on its own deals; the thinner counts (the weakest and the strongest hands) are pooled with
  their neighbours until a pool holds that many (``pools``), so that every count the run holds
  is answered. Runs of counts that share their best contract are then written as one range
  (:func:`~tarot_analysis.analyses.guidance.tables.best_ranges`).
* **by band** (``by_band``): the deals of each band of Chavey's published thresholds (below 40,
  40–55, 56–70, 71–80, 81 and more on 18 cards; :func:`published_thresholds` for other hand
  sizes) pooled into one: the band's best contract taken as a whole, which need not be the best
  at each of its counts (in 40–55 the pass at the lower counts and the Garde at the higher ones
  can pool into a Prise).

Counts are never scaled: a count is that of the hand as dealt, of whatever size; Chavey's
thresholds, made for 18 cards, are scaled to the hand size instead (× hand size / 18, rounded
up to the least whole count that reaches them), as
:func:`~tarot_analysis.deals.evaluators.chavey_bid` compares them.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
import pandas as pd

from tarot_analysis.analyses.guidance.counts import GuidanceData, _grouping
from tarot_analysis.analyses.guidance.tables import _rate_rows, best_ranges
from tarot_analysis.analyses.guidance.thresholds import _published_starts

__all__ = [
    "COUNT_MIN_DEALS",
    "ChaveyAdvice",
    "chavey_advice",
    "chavey_bands",
    "count_pools",
    "published_thresholds",
]

#: Fewest deals for a Chavey count to be read on its own deals; thinner counts are pooled with
#: their neighbours (as the ``guidance`` command's summary keeps counts of this many deals).
COUNT_MIN_DEALS: Final = 200


def published_thresholds(hand_size: int, contracts: int = 4) -> list[float]:
    """Chavey's published thresholds on the count of a ``hand_size``-card hand: the least whole
    count from which they bid each contract or a higher one (``inf`` when they never do).

    >>> published_thresholds(18), published_thresholds(15), published_thresholds(24)
    ([40.0, 56.0, 71.0, 81.0], [34.0, 47.0, 60.0, 68.0], [54.0, 75.0, 95.0, 108.0])
    """
    return [float(value) for value in _published_starts("chavey", np.zeros(0), hand_size,
                                                        contracts + 1)]  # fmt: skip


def chavey_bands(published: Sequence[float]) -> list[tuple[float, float, str]]:
    """Bands of Chavey count cut at the published thresholds, each ``(low, high, text)`` with
    ``low <= count < high``.

    >>> [text for _, _, text in chavey_bands([40, 56, 71, 81])]
    ['below 40', '40–55', '56–70', '71–80', '81 and more']
    """
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


def count_pools(n: pd.Series, min_n: int) -> list[tuple[int, int]]:
    """Consecutive counts, lowest first, gathered into pools of at least ``min_n`` deals: a count
    held by ``min_n`` deals or more stands alone (unless a thinner count below it needs it), the
    thinner ones join the next counts up until the pool holds ``min_n``, and a thin remainder
    at the top joins the pool below it. ``n``: the deals of each count, indexed by count.

    >>> count_pools(pd.Series([50, 160, 300, 250, 90, 60], index=[3, 5, 6, 7, 8, 9]), 200)
    [(3, 5), (6, 6), (7, 9)]
    """
    pools: list[list[int]] = []
    current: list[int] = []
    held = 0
    for value, deals in zip(n.sort_index().index, n.sort_index(), strict=True):
        current.append(int(value))
        held += int(deals)
        if held >= min_n:
            pools.append(current)
            current, held = [], 0
    if current:
        if pools:
            pools[-1] += current
        else:
            pools.append(current)
    return [(pool[0], pool[-1]) for pool in pools]


@dataclass(frozen=True)
class ChaveyAdvice:
    """The best contract by Chavey count of one run, by count and by band (the module says
    what each is)."""

    by_count: pd.DataFrame  # ranges: low, high, best, tie, n, mean_best_score, half_width
    pools: list[tuple[int, int]]  # counts read together, each held by fewer than min_n deals
    by_band: pd.DataFrame  # by band text, in order: low, high, n, best, runner_up, difference…
    min_n: int
    played: int  # deals counted

    @property
    def lowest(self) -> int | None:
        """The lowest count the run holds."""
        return int(self.by_count["low"].min()) if len(self.by_count) else None

    @property
    def highest(self) -> int | None:
        """The highest count the run holds."""
        return int(self.by_count["high"].max()) if len(self.by_count) else None

    def best_at(self, value: int) -> str | None:
        """The best contract (``"a ≈ b"`` for a tie) by count at ``value``, ``None`` outside."""
        for _, row in self.by_count.iterrows():
            if row["low"] <= value <= row["high"]:
                return str(row["best"])
        return None


def _by_count(data: GuidanceData, min_n: int) -> tuple[pd.DataFrame, list[tuple[int, int]]]:
    """The rate rows of every pool of counts (index its lowest count, ``high`` its highest)."""
    counts = _grouping(data, "chavey").groupby(level="key_1").sum()
    counts = counts[counts["n"] > 0]
    pools = count_pools(counts["n"], min_n)
    low_of = {value: low for low, high in pools for value in counts.index if low <= value <= high}
    summed = counts.groupby(counts.index.map(low_of.__getitem__)).sum()
    table = _rate_rows(summed, data.contracts)
    table.insert(1, "high", [high for _, high in pools])
    table.index.name = "chavey"
    return table, [(low, high) for low, high in pools if high > low]


def _by_band(data: GuidanceData, published: Sequence[float]) -> pd.DataFrame:
    counts = _grouping(data, "chavey").groupby(level="key_1").sum()
    counts = counts[counts["n"] > 0]
    cuts = chavey_bands(published)
    band = [next(k for k, (lo, hi, _) in enumerate(cuts) if lo <= v < hi) for v in counts.index]
    summed = counts.groupby(band).sum().sort_index()
    table = _rate_rows(summed, data.contracts)
    table.insert(0, "low", [cuts[k][0] for k in summed.index])
    table.insert(1, "high", [cuts[k][1] - 1 for k in summed.index])
    table.index = pd.Index([cuts[k][2] for k in summed.index], name="band")
    return table


def chavey_advice(data: GuidanceData, *, min_n: int = COUNT_MIN_DEALS) -> ChaveyAdvice:
    """The best contract by Chavey count of ``data``, by count (every count it holds, the thin
    ones pooled) and by band of the published thresholds scaled to its hand size."""
    table, pools = _by_count(data, min_n)
    published = published_thresholds(data.rules.hand_size, len(data.contracts))
    return ChaveyAdvice(
        by_count=best_ranges(table),
        pools=pools,
        by_band=_by_band(data, published),
        min_n=min_n,
        played=data.played_deals,
    )
