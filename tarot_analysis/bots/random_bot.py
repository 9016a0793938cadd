"""The ``random`` bot: every decision uniformly random among the legal ones.

It bids at random (pass half the time, else a random higher contract), calls a random king
(a queen if it holds all four kings, and so on), discards a random legal écart, shows a poignée
it holds half the time, never announces a chelem, and plays a uniformly random legal card. It is
the floor any other bot must beat.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from tarot_analysis._jit import KERNEL, draw_below
from tarot_analysis.engine.cardsets import ZERO, nth, size


@njit(**KERNEL)
def bid(seat: int, lo: np.uint64, hi: np.uint64, best: int, n_contracts: int, rng: Any) -> int:
    """A contract index higher than ``best``, or −1 to pass."""
    higher = n_contracts - 1 - best
    if higher <= 0 or draw_below(rng, 2) == 0:
        return -1
    return best + 1 + draw_below(rng, higher)


@njit(**KERNEL)
def pick(lo: np.uint64, hi: np.uint64, rng: Any) -> int:
    """A uniformly random card of a non-empty set."""
    return nth(lo, hi, draw_below(rng, size(lo, hi)))


@njit(**KERNEL)
def choose_from(lo: np.uint64, hi: np.uint64, count: int, rng: Any) -> tuple[np.uint64, np.uint64]:
    """``count`` cards drawn uniformly without replacement from a set holding at least that many."""
    out_lo = ZERO
    out_hi = ZERO
    for _ in range(count):
        card = pick(lo, hi, rng)
        if card < 56:
            bit = np.uint64(1) << np.uint64(card)
            lo ^= bit
            out_lo |= bit
        else:
            bit = np.uint64(1) << np.uint64(card - 56)
            hi ^= bit
            out_hi |= bit
    return out_lo, out_hi


@njit(**KERNEL)
def poignee(level_held: int, rng: Any) -> int:
    """Show the poignée held half the time."""
    if level_held > 0 and draw_below(rng, 2) == 1:
        return level_held
    return 0
