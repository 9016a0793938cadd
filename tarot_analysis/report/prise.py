"""The Prise read once: what a run's numbers say of bidding a Prise, for every page that says it.

A Prise is played as a Garde is (the same dog, the same écart) and scores about half of it, so
on most hands one of its neighbours beats it: the pass where a Garde loses, the Garde where it
wins. Three places of the report speak of it, each from its own reading of the same run: the
summary's table of thresholds (the fitted rule's "bid from", a Prise *or a higher contract*),
the best contract count by count (``45: Pass ≈ Prise``) and the best by band of Chavey's
published thresholds, pooled (``40–55: Prise over Garde``). :func:`prise_reading` decides once
which of them holds for the Prise alone, and each place writes what it decided:

* the Prise is **bid alone** when some count has it best with no tie *and* the rule fitted over
  every count bids it below the Garde; then its threshold reads as it is;
* otherwise it is **never better than the alternatives alone**: the summary's row reads a
  Garde from the Garde's threshold, the counts where the Prise ties with the pass or the Garde
  are named, and a band whose pooled best is the Prise is marked *pooled only*.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from tarot_analysis.report.html import label, threshold

if TYPE_CHECKING:
    from tarot_analysis.analyses.guidance import ChaveyAdvice

__all__ = ["POOLED_ONLY", "PRISE", "PriseReading", "prise_reading"]

#: The contract read here.
PRISE: Final = "prise"
#: What a band's cell adds when its pooled best is a contract that no count of it bids alone.
POOLED_ONLY: Final = "pooled only"


def _ranges(text: list[tuple[int, int]]) -> str:
    """``45, 47–48``: counts and ranges of counts in words."""
    return ", ".join(f"{low}" if low == high else f"{low}–{high}" for low, high in text)


def _option(name: str) -> str:
    """``passing``, ``the Garde``: an option as a sentence names it."""
    return "passing" if name == "pass" else f"the {label(name)}"


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


@dataclass(frozen=True)
class PriseReading:
    """What a run says of the Prise: counts where it is best alone or tied (by count), the
    fitted thresholds of the Prise and of the contract above it, the bands whose pooled best
    it is, and the verdict (:attr:`bid_alone`) every page writes."""

    alone: list[tuple[int, int]]  # by count: the Prise best, no tie
    ties: dict[str, list[tuple[int, int]]]  # by count: tied with this option (pass, garde...)
    start: float | None  # fitted: the Prise or a higher contract from this count; None: no fit
    above: str  # the contract above the Prise
    above_start: float | None  # fitted: that contract or a higher one from this count
    bands: list[str]  # bands whose pooled best is the Prise
    bid_alone: bool

    @property
    def pooled_only(self) -> list[str]:
        """Bands whose pooled best is the Prise though it is not bid alone."""
        return [] if self.bid_alone else self.bands

    def bid_from(self) -> str:
        """The summary's "bid from" of the Prise: its threshold when it is bid alone, else the
        contract bid instead and from where."""
        if self.bid_alone or self.start is None:
            return threshold(self.start) if self.start is not None else "—"
        if self.above_start is None or not math.isfinite(self.above_start):
            return "never alone"
        return f"never alone: a {label(self.above)} from {threshold(self.above_start)}"

    def band_suffix(self, band: str) -> str:
        """What a band's cell adds: :data:`POOLED_ONLY` for a band whose pooled best is the
        Prise though it is not bid alone, else nothing."""
        return POOLED_ONLY if band in self.pooled_only else ""

    def sentence(self) -> str:
        """The reading in words, said once (page 1)."""
        if self.bid_alone:
            text = f"The Prise scores best on its own at {_ranges(self.alone)}"
            if self.start is not None:
                text += f": bid it from {threshold(self.start)}"
                if self.above_start is not None and math.isfinite(self.above_start):
                    text += f", a {label(self.above)} from {threshold(self.above_start)}"
            return text + "."
        parts = ["The Prise is never better than the alternatives on its own here"]
        tied = [f"with {_option(o)} at {_ranges(r)}" for o, r in self.ties.items() if r]
        if tied:
            parts.append(f"count by count it ties {_and(tied)}")
        if self.alone:
            parts.append(
                f"it is best at {_ranges(self.alone)} count by count, but the rule fitted over "
                "every count never bids it below the next contract up"
            )
        elif (
            self.start is not None
            and self.above_start is not None
            and (self.start < self.above_start)
        ):
            parts.append(
                f"the rule fitted over every count bids it from {threshold(self.start)}, but no "
                "count has it best on its own"
            )
        if self.above_start is not None and math.isfinite(self.above_start):
            parts.append(
                f"its row in the table reads a {label(self.above)} from "
                f"{threshold(self.above_start)}"
            )
        text = "; ".join(parts) + "."
        if self.pooled_only:
            text += (
                f" Pooled over Chavey's band {_and(self.pooled_only)} it comes out best (marked "
                f"{POOLED_ONLY}): the band mixes hands that pass with hands that take a Garde."
            )
        return text


def _tie_partner(best: str) -> str | None:
    """The option tied with the Prise in a count's best (``pass ≈ prise`` → ``pass``)."""
    pair = best.split(" ≈ ")
    if len(pair) != 2 or PRISE not in pair:
        return None
    return pair[0] if pair[1] == PRISE else pair[1]


def prise_reading(
    advice: ChaveyAdvice, fitted: Mapping[Any, Any] | None, contracts: list[str]
) -> PriseReading | None:
    """The one reading of the Prise of a run: ``advice`` its best contract by Chavey count,
    ``fitted`` its fitted Chavey thresholds by contract (``fitted``: the Prise or a higher
    contract from that count; ``None`` when the run was too short to fit them), ``contracts``
    the rules' contracts, lowest first. ``None`` when the rules have no Prise."""
    if PRISE not in contracts:
        return None
    above = contracts[contracts.index(PRISE) + 1] if contracts[-1] != PRISE else ""
    alone: list[tuple[int, int]] = []
    ties: dict[str, list[tuple[int, int]]] = {}
    for _, row in advice.by_count.iterrows():
        best, span = str(row["best"]), (int(row["low"]), int(row["high"]))
        if best == PRISE:
            alone.append(span)
        partner = _tie_partner(best)
        if partner is not None:
            ties.setdefault(partner, []).append(span)
    start = above_start = None
    if fitted is not None and PRISE in fitted:
        start = float(fitted[PRISE]["fitted"])
        if above in fitted:
            above_start = float(fitted[above]["fitted"])
    fitted_alone = start is None or above_start is None or start < above_start
    bands = [str(band) for band, row in advice.by_band.iterrows() if str(row["best"]) == PRISE]
    return PriseReading(
        alone=alone, ties=ties, start=start, above=above, above_start=above_start, bands=bands,
        bid_alone=bool(alone) and fitted_alone,
    )  # fmt: skip
