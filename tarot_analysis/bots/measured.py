"""How strong the bots were measured to be, in duplicate: one table, with its commands.

The matches of docs/bots.md ("The ladder, in duplicate" and "How far from each goal") that
say how much the bots that play the answers gain over the heuristic, and how far that stands
from the search bot, ``pimc``: each a row with its rules, its two bots, A's mean score a deal
less B's with its 95% interval (Student t over deals), its deals, seed and date, and the
command that measured it (run from the repository's root, on this project's 2-core machine).
A duplicate match plays the same deals once per seat, bot A at that seat and bot B at every
other, so that the luck of the cards cancels. The report's first page reads its bot's rows here
(:func:`edge`, :func:`share_of_search`); a new measurement is a new row, and docs/bots.md says
the same numbers.

>>> row = edge("fft-4", "learned")
>>> f"{row.mean:+.1f} ({row.low:+.1f} to {row.high:+.1f}), {row.deals:,} deals"
'+5.2 (+4.7 to +5.8), 20,000 deals'
>>> round(share_of_search("fft-4", "learned") or 0, 2)
0.36
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Final

__all__ = ["MEASURED", "SEARCH_BOT", "Duplicate", "edge", "points", "share_of_search"]

#: The bot whose lead over the heuristic the others are measured against.
SEARCH_BOT: Final = "pimc"
#: The bot every edge is measured over.
BASELINE: Final = "heuristic"


def points(value: float, sign: bool = True) -> str:
    """Points a deal to one decimal, as docs/bots.md rounds them (half up, from the digits
    written: ``+10.45`` is ``+10.5``), signed unless ``sign`` is false.

    >>> points(10.45), points(-4.21), points(9.36, sign=False)
    ('+10.5', '-4.2', '9.4')
    """
    # the table's hundredths, read as written (10.45 is 10.4499... in binary), then half up
    rounded = Decimal(repr(round(value, 2))).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)
    return f"{rounded:+}" if sign else f"{rounded}"


@dataclass(frozen=True)
class Duplicate:
    """One duplicate match: bot ``a`` at one seat, ``b`` at the others, the seats rotated;
    ``mean`` A's score a deal less B's, ``low`` and ``high`` its 95% interval."""

    rules: str
    a: str
    b: str
    mean: float
    low: float
    high: float
    deals: int
    seed: int
    date: str
    command: str
    where: str  # the section of docs/bots.md that reports it

    @property
    def interval(self) -> str:
        """``+4.7 to +5.8``: the 95% interval in points a deal."""
        return f"{points(self.low)} to {points(self.high)}"


_LADDER = (
    "benchmarks/ladder.py --rules fft-3 fft-4 fft-5 --deals 1000 "
    "--matches heuristic:random pimc:heuristic --threads 1 --json"
)
_LADDER_AT = "The ladder, in duplicate"
_GOALS_AT = "How far from each goal"


def _learned(rules: str, mean: float, low: float, high: float, date: str) -> Duplicate:
    """The shipped learned bot against the heuristic, 20,000 deals of seed 1."""
    command = (
        f"benchmarks/duplicate.py --rules {rules} --deals 20000 --bots learned heuristic "
        "--seed 1 --json"
    )
    return Duplicate(rules, "learned", BASELINE, mean, low, high, 20_000, 1, date, command,
                     _GOALS_AT)  # fmt: skip


#: Every match measured, by rules, then bot.
MEASURED: Final = (
    _learned("fft-3", 31.59, 30.37, 32.80, "2026-12-03"),
    _learned("fft-4", 5.24, 4.72, 5.75, "2026-12-02"),
    _learned("fft-5", 10.45, 9.27, 11.62, "2026-12-03"),
    Duplicate("fft-3", SEARCH_BOT, BASELINE, 60.1, 54.7, 65.5, 1_000, 1, "2026-12-01", _LADDER,
              _LADDER_AT),
    Duplicate("fft-4", SEARCH_BOT, BASELINE, 14.6, 12.0, 17.1, 1_000, 1, "2026-12-01", _LADDER,
              _LADDER_AT),
    Duplicate("fft-5", SEARCH_BOT, BASELINE, 25.3, 20.1, 30.5, 1_000, 1, "2026-12-01", _LADDER,
              _LADDER_AT),
    Duplicate("fft-4", "learned", SEARCH_BOT, -4.21, -6.48, -1.94, 1_000, 1, "2026-12-02",
              "benchmarks/duplicate.py --rules fft-4 --deals 1000 --bots learned pimc --seed 1 "
              "--threads 2 --json", _GOALS_AT),
)  # fmt: skip


def edge(rules: str, bot: str, over: str = BASELINE) -> Duplicate | None:
    """The match of ``bot`` against ``over`` (the heuristic) in ``rules``'s preset, or
    ``None`` where none was measured."""
    for row in MEASURED:
        if (row.rules, row.a, row.b) == (rules, bot, over):
            return row
    return None


def share_of_search(rules: str, bot: str) -> float | None:
    """``bot``'s edge over the heuristic as a share of the search bot's, both measured in
    ``rules``'s preset (1: as strong as ``pimc`` by this measure), or ``None``."""
    ours, search = edge(rules, bot), edge(rules, SEARCH_BOT)
    if ours is None or search is None or search.mean <= 0:
        return None
    return ours.mean / search.mean
