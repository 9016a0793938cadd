"""The rules of play as small compiled functions: what may be called, discarded and played.

The game state (:mod:`tarot_analysis.engine.state`) asks these at each decision; everything a
preset can change comes from the engine's rule array (:mod:`tarot_analysis.engine.params`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from tarot_analysis._jit import KERNEL, popcount
from tarot_analysis.engine import params as R
from tarot_analysis.engine.cardsets import (
    BOUTS_HI,
    EXCUSE,
    EXCUSE_HI,
    JACKS_LO,
    KINGS_LO,
    KNIGHTS_LO,
    N_SUIT_CARDS,
    NOT_LED,
    ONE,
    PETIT,
    QUEENS_LO,
    SUIT_CARDS_LO,
    SUIT_LO,
    TRUMP_LED,
    TRUMPS_HI,
    ZERO,
    holds,
    trumps_above,
)


@njit(**KERNEL)
def has_petit_sec(lo: np.uint64, hi: np.uint64) -> bool:
    """The Petit is the hand's only trump, and there is no Excuse."""
    return (hi & (TRUMPS_HI | EXCUSE_HI)) == np.uint64(1 << (PETIT - EXCUSE))


@njit(**KERNEL)
def poignee_level(hi: np.uint64, p: Any) -> int:
    """The highest poignée a hand can show: trumps with the Excuse against the thresholds."""
    count = popcount(hi & (TRUMPS_HI | EXCUSE_HI))
    level = 0
    for k in range(3):
        if count >= p[R.POIGNEE_1 + k]:
            level = k + 1
    return level


@njit(**KERNEL)
def call_candidates(lo: np.uint64, call_rank: int) -> np.uint64:
    """The cards a taker holding ``lo`` may call: kings, or queens when holding all four kings,
    then knights, then jacks (``call_rank`` 0 starts at kings, 1 at queens)."""
    ranks = (KINGS_LO, QUEENS_LO, KNIGHTS_LO, JACKS_LO)
    for r in range(call_rank, 4):
        if lo & ranks[r] != ranks[r]:
            return ranks[r]
    return JACKS_LO


@njit(**KERNEL)
def first_call_candidates(lo: np.uint64, p: Any) -> np.uint64:
    """The cards a taker holding ``lo`` may call first under the rules ``p``: as
    :func:`call_candidates`, except that a taker holding all four kings may call any suit
    card where the rules say so (the older 5-player rule; a king called is the taker's own)."""
    if lo & KINGS_LO == KINGS_LO and p[R.CALL_ANY_HOLDING_ALL_KINGS]:
        return SUIT_CARDS_LO
    return call_candidates(lo, 0)


@njit(**KERNEL)
def second_call_candidates(lo: np.uint64, called_1: int) -> np.uint64:
    """The cards a six-player taker holding ``lo`` may call second, after ``called_1``
    (docs/rules.md#calling-a-partner-five-and-six-players): a queen other than the first call;
    holding all four queens, one of its own queens or any other suit card but a king. Never two
    kings, never the same card twice."""
    holds_all_queens = lo & QUEENS_LO == QUEENS_LO
    candidates = SUIT_CARDS_LO & ~KINGS_LO if holds_all_queens else QUEENS_LO
    if 0 <= called_1 < N_SUIT_CARDS:
        candidates &= ~(ONE << np.uint64(called_1))
    return candidates


@njit(**KERNEL)
def first_refused_call(masks: Any, forced: Any, p: Any) -> tuple[int, int]:
    """The first deal whose forced call the call rule does not allow for the forced taker's
    hand, and which call (1 or 2) it is; ``(-1, 0)`` when every forced call is allowed."""
    for d in range(masks.shape[0]):
        taker = forced[d, 0]
        if taker < 0:
            continue
        lo = masks[d, taker, 0]
        called_1 = forced[d, 2]
        called_2 = forced[d, 3]
        if called_1 >= 0 and not holds(first_call_candidates(lo, p), ZERO, called_1):
            return d, 1
        if called_2 >= 0 and not holds(second_call_candidates(lo, called_1), ZERO, called_2):
            return d, 2
    return -1, 0


@njit(**KERNEL)
def ecart_sets(
    lo: np.uint64, hi: np.uint64, p: Any
) -> tuple[np.uint64, np.uint64, np.uint64, np.uint64]:
    """Cards that may be discarded freely, and those only when nothing else is left."""
    free_lo = lo
    free_hi = hi
    forced_lo = ZERO
    forced_hi = ZERO
    kings = lo & KINGS_LO
    if p[R.ECART_KINGS] == R.FORBIDDEN:
        free_lo &= ~kings
    elif p[R.ECART_KINGS] == R.IF_FORCED:
        free_lo &= ~kings
        forced_lo |= kings
    bouts = hi & BOUTS_HI
    if p[R.ECART_BOUTS] == R.FORBIDDEN:
        free_hi &= ~bouts
    elif p[R.ECART_BOUTS] == R.IF_FORCED:
        free_hi &= ~bouts
        forced_hi |= bouts
    plain_trumps = hi & TRUMPS_HI & ~BOUTS_HI
    if p[R.ECART_TRUMPS] == R.FORBIDDEN:
        free_hi &= ~plain_trumps
    elif p[R.ECART_TRUMPS] == R.IF_FORCED:
        free_hi &= ~plain_trumps
        forced_hi |= plain_trumps
    return free_lo, free_hi, forced_lo, forced_hi


@njit(**KERNEL)
def legal_cards(
    lo: np.uint64,
    hi: np.uint64,
    led: int,
    top_trump: int,
    forbidden_lead_lo: np.uint64,
    trumps_locked: bool,
    p: Any,
) -> tuple[np.uint64, np.uint64]:
    """The cards of hand ``(lo, hi)`` that may be played next (docs/rules.md#play,
    #trumps-broken-4, #tarocco).

    ``led`` is the suit of the trick (``NOT_LED`` while nothing but the Excuse is down: the
    player then leads), ``top_trump`` the highest trump in it (0: none).
    ``forbidden_lead_lo``: suit cards that may not be led now (the called suits at the first
    trick); ``trumps_locked``: trumps may not be led yet.
    """
    excuse = hi & EXCUSE_HI
    if led == NOT_LED:
        lead_lo = lo & ~forbidden_lead_lo
        lead_hi = hi
        if trumps_locked and lead_lo != ZERO:
            lead_hi = excuse  # trumps only when no suit card may be led
        if lead_lo | lead_hi == ZERO:
            return lo, hi  # a restriction that leaves nothing to lead cannot bind
        return lead_lo, lead_hi
    if led != TRUMP_LED:
        follow = lo & SUIT_LO[led]
        if follow != ZERO:
            return follow, excuse
    # Void in the suit led, or a trump led: a trump if possible, a higher one where the rules say.
    trumps = hi & TRUMPS_HI
    if trumps == ZERO:
        return lo, hi
    overtrump = p[R.OVERTRUMP_WHEN_VOID] if led != TRUMP_LED else p[R.OVERTRUMP_ON_TRUMP_LEAD]
    if overtrump:
        higher = trumps_above(hi, top_trump)
        if higher != ZERO:
            return ZERO, higher | excuse
        if led == TRUMP_LED and p[R.TRUMP_LEAD_ANY_CARD]:
            return lo, hi  # unable to beat a trump lead: any card, where the rules say so
    return ZERO, trumps | excuse


@njit(**KERNEL)
def excuse_last_trick_side(owner_side: int, winner_side: int, p: Any) -> int:
    """The side that takes the Excuse played to the last trick, outside a chelem
    (docs/rules.md#the-excuse): the opponents of ``owner_side``, the side that played it,
    whoever wins the trick, where the rules say it changes sides (FFT, the online rules
    page); else ``winner_side``, the side winning the trick (the 2014 four-player
    rules). Sides are 1 attack, 0 defence.
    The engine's tricks and the solver's counts both ask this."""
    if p[R.EXCUSE_LAST_CHANGES_SIDES]:
        return 1 - owner_side
    return winner_side
