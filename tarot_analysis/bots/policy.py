"""The questions the engine asks a bot, dispatched on the bot's number.

The engine works out what is legal; a bot only chooses among legal options, so no bot can
break a rule. A bot is told only what its seat may know: its hand, the cards played so far,
the trick on the table and what was announced.

Bots by number (:data:`tarot_analysis.bots.BOTS`): 0 random, 1 heuristic, 2 pimc. The pimc
bot's card play is a search over the whole state (:mod:`tarot_analysis.bots.pimc`, called by
the table); its other decisions are the heuristic's, so every bot but the random one answers
here as the heuristic.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
from numba import njit

from tarot_analysis._jit import KERNEL
from tarot_analysis.bots import BID_SHIFT_SHIFT, heuristic, random_bot
from tarot_analysis.engine.params import N_CONTRACTS

RANDOM: Final = 0  # the random bot's number in BOTS; the others decide as the heuristic here
HEURISTIC: Final = 1


@njit(**KERNEL)
def bid_shifts(bot: int) -> np.int64:
    """The shifts a ``heuristic:B`` bot moves its bidding thresholds by, one signed byte per
    contract from the prise's (0 for every other bot): the bits above the bot's own 8."""
    if bot & 0xFF != HEURISTIC:
        return np.int64(0)
    return np.int64(bot >> BID_SHIFT_SHIFT)


@njit(**KERNEL)
def bid(bot: int, seat: int, lo: np.uint64, hi: np.uint64, best: int, p: Any, rng: Any) -> int:
    """The contract index ``seat`` bids over ``best`` (−1: pass); ``p`` the engine's rules."""
    if bot != RANDOM:
        return heuristic.bid(seat, lo, hi, best, p, bid_shifts(bot))
    return random_bot.bid(seat, lo, hi, best, p[N_CONTRACTS], rng)


@njit(**KERNEL)
def call(bot: int, lo: np.uint64, hi: np.uint64, cand_lo: np.uint64, p: Any, rng: Any) -> int:
    """The card the taker (holding ``lo, hi``) calls among the candidates ``cand_lo``."""
    if bot != RANDOM:
        return heuristic.call(lo, hi, cand_lo, p)
    return random_bot.pick(cand_lo, np.uint64(0), rng)


@njit(**KERNEL)
def ecart(
    bot: int,
    lo: np.uint64,
    hi: np.uint64,
    free_lo: np.uint64,
    free_hi: np.uint64,
    count: int,
    p: Any,
    rng: Any,
) -> tuple[np.uint64, np.uint64]:
    """``count`` cards to discard, all among ``free`` (the engine adds forced cards itself)."""
    if bot != RANDOM:
        return heuristic.ecart(lo, hi, free_lo, free_hi, count, p)
    return random_bot.choose_from(free_lo, free_hi, count, rng)


@njit(**KERNEL)
def poignee(
    bot: int,
    seat: int,
    lo: np.uint64,
    hi: np.uint64,
    level_held: int,
    is_taker: bool,
    p: Any,
    rng: Any,
) -> int:
    """The poignée level ``seat`` shows (0: none), at most ``level_held``."""
    if bot != RANDOM:
        return heuristic.poignee(seat, lo, hi, level_held, is_taker, p)
    return random_bot.poignee(level_held, rng)


@njit(**KERNEL)
def chelem(bot: int, lo: np.uint64, hi: np.uint64, p: Any, rng: Any) -> bool:
    """Whether the taker announces a chelem."""
    if bot != RANDOM:
        return heuristic.chelem(lo, hi, p)
    return False


@njit(**KERNEL)
def play(
    bot: int,
    seat: int,
    lo: np.uint64,
    hi: np.uint64,
    legal_lo: np.uint64,
    legal_hi: np.uint64,
    view: Any,
    trick: Any,
    played: Any,
    voids: Any,
    shown: Any,
    p: Any,
    rng: Any,
) -> int:
    """The card ``seat``, holding ``(lo, hi)``, plays among the legal ones.

    ``view``: the public state of the deal (``engine.state.V_*``); ``trick[:view[V_IN_TRICK]]``
    the cards already in the trick, in play order; ``played`` every card played so far (two
    words); ``voids`` per seat, the suits (bit s) it was seen to lack and ``NO_TRUMPS``;
    ``shown`` the poignée level each seat showed.
    """
    if bot != RANDOM:
        return heuristic.play(
            seat, lo, hi, legal_lo, legal_hi, view, trick, played, voids, shown, p
        )
    return random_bot.pick(legal_lo, legal_hi, rng)
