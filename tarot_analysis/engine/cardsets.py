"""Sets of cards as two uint64 words, for the compiled engine.

``lo`` holds the suit cards at bit ``card id``; ``hi`` the Excuse at bit 0 and trump n at
bit n (see :mod:`tarot_analysis.game.cards`). Every function here is a small compiled function on
those two words.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
from numba import njit

from tarot_analysis._jit import leading_zeros, popcount, trailing_zeros
from tarot_analysis.game import cards

ZERO: Final = np.uint64(0)
ONE: Final = np.uint64(1)
EXCUSE_HI: Final = np.uint64(cards.EXCUSE_BIT_HI)
TRUMPS_HI: Final = np.uint64(cards.TRUMPS_MASK_HI)
BOUTS_HI: Final = np.uint64(cards.BOUTS_MASK_HI)
KINGS_LO: Final = np.uint64(cards.KINGS_MASK)
QUEENS_LO: Final = np.uint64(cards.QUEENS_MASK)
KNIGHTS_LO: Final = np.uint64(cards.KNIGHTS_MASK)
JACKS_LO: Final = np.uint64(cards.JACKS_MASK)
SUIT_LO: Final = np.array(cards.SUIT_MASKS, dtype=np.uint64)
SUIT_CARDS_LO: Final = np.uint64(cards.SUIT_CARDS_MASK_LO)
N_SUIT_CARDS: Final = cards.N_SUIT_CARDS
EXCUSE: Final = cards.EXCUSE
PETIT: Final = cards.PETIT
TWENTY_ONE: Final = cards.TWENTY_ONE
TRUMP_LED: Final = 4  # the "suit" of a trick whose first real card is a trump
NOT_LED: Final = -1  # nothing but the Excuse, or nothing, played yet


@njit(inline="always")
def bit_of(card: int) -> tuple[np.uint64, np.uint64]:
    """The set holding only ``card``."""
    if card < N_SUIT_CARDS:
        return ONE << np.uint64(card), ZERO
    return ZERO, ONE << np.uint64(card - N_SUIT_CARDS)


@njit(inline="always")
def holds(lo: np.uint64, hi: np.uint64, card: int) -> bool:
    """Whether the set holds ``card``."""
    if card < N_SUIT_CARDS:
        return (lo >> np.uint64(card)) & ONE != ZERO
    return (hi >> np.uint64(card - N_SUIT_CARDS)) & ONE != ZERO


@njit(inline="always")
def size(lo: np.uint64, hi: np.uint64) -> int:
    """Number of cards in the set."""
    return popcount(lo) + popcount(hi)


@njit(inline="always")
def lowest(lo: np.uint64, hi: np.uint64) -> int:
    """The card of lowest id in a non-empty set (suit cards before the Excuse and trumps)."""
    if lo != ZERO:
        return trailing_zeros(lo)
    return N_SUIT_CARDS + trailing_zeros(hi)


@njit(inline="always")
def highest_bit(x: np.uint64) -> int:
    """Index of the highest set bit of a non-zero word."""
    return 63 - leading_zeros(x)


@njit(inline="always")
def nth(lo: np.uint64, hi: np.uint64, n: int) -> int:
    """The ``n``-th card (from 0, in id order) of the set."""
    count_lo = popcount(lo)
    if n < count_lo:
        word = lo
        offset = 0
    else:
        word = hi
        n -= count_lo
        offset = N_SUIT_CARDS
    for _ in range(n):
        word &= word - ONE
    return offset + trailing_zeros(word)


@njit(inline="always")
def trumps_above(hi: np.uint64, trump: int) -> np.uint64:
    """The trumps of ``hi`` higher than trump number ``trump`` (0: every trump)."""
    return hi & TRUMPS_HI & ~((ONE << np.uint64(trump + 1)) - ONE)


@njit(inline="always")
def suit_of(card: int) -> int:
    """0–3 for suit cards, ``TRUMP_LED`` for trumps, −1 for the Excuse."""
    if card < N_SUIT_CARDS:
        return card // 14
    if card == EXCUSE:
        return -1
    return TRUMP_LED


@njit(inline="always")
def half_points_of(lo: np.uint64, hi: np.uint64, half_points: Any) -> int:
    """Card points × 2 of a set, from the per-card table ``half_points``."""
    total = 0
    while lo != ZERO:
        total += half_points[trailing_zeros(lo)]
        lo &= lo - ONE
    while hi != ZERO:
        total += half_points[N_SUIT_CARDS + trailing_zeros(hi)]
        hi &= hi - ONE
    return total


@njit(inline="always")
def bouts_in(hi: np.uint64) -> int:
    """Number of bouts in a set."""
    return popcount(hi & BOUTS_HI)
