"""The cards of one trick, as the double-dummy search counts them: the suit led, the card
winning, the half points the attack takes from it (the Excuse's exchange included), and the
values every part of the search shares."""

from __future__ import annotations

from typing import Any, Final

import numpy as np
from numba import njit

from tarot_analysis.engine.cardsets import (
    EXCUSE,
    N_SUIT_CARDS,
    NOT_LED,
    ONE,
    PETIT,
    TRUMP_LED,
    ZERO,
    suit_of,
)
from tarot_analysis.engine.core import excuse_last_trick_side
from tarot_analysis.game import cards

#: Half points of the low card the side owing the Excuse gives the trick's winner (0.5 point).
EXCUSE_COMPENSATION_HALF: Final = 1
#: A value beyond any card points, in half points: the open ends of the search window.
INFINITY: Final = 1 << 20
_TRUMP_STRENGTH = 100  # any trump ranks above any suit card when ordering moves


@njit(inline="always")
def _least_half_points(half_points: Any) -> int:
    """The least a card brings to the side winning its trick: no more than the half point
    the Excuse's owner gives, no less than nothing."""
    least = EXCUSE_COMPENSATION_HALF
    for card in range(cards.N_CARDS):
        if card != EXCUSE:
            least = max(0, min(least, half_points[card]))
    return least


@njit(inline="always")
def _led_and_top(path: Any, start: int, count: int) -> tuple[int, int]:
    """The suit of the trick in ``path[start : start + count]`` and its highest trump (0 none)."""
    led = NOT_LED
    top = 0
    for k in range(count):
        card = path[start + k]
        if card == EXCUSE:
            continue
        if led == NOT_LED:
            led = suit_of(card)
        if card > EXCUSE and card - EXCUSE > top:
            top = card - EXCUSE
    return led, top


@njit(inline="always")
def _strength(card: int, led: int) -> int:
    """How high ``card`` ranks in a trick of suit ``led``: −1 when it cannot win it."""
    if card > EXCUSE:
        return _TRUMP_STRENGTH + card - EXCUSE
    if card == EXCUSE:
        return -1
    if led == NOT_LED or card // cards.N_RANKS == led:
        return card % cards.N_RANKS
    return -1


@njit(inline="always")
def _winner_offset(path: Any, start: int, count: int) -> int:
    """Index in the trick ``path[start : start + count]`` of the card winning it so far."""
    led, _ = _led_and_top(path, start, count)
    best = -1
    best_strength = -2
    for k in range(count):
        strength = _strength(path[start + k], led)
        if strength > best_strength:
            best_strength = strength
            best = k
    return best


@njit(inline="always")
def _won_by_rank(path: Any, start: int, count: int, offset: int) -> np.uint64:
    """The card that won the trick ``path[start : start + count]`` (at ``offset``) as a set,
    if it won by its rank in a suit no trump was played to; otherwise the empty set."""
    led, top = _led_and_top(path, start, count)
    if led in (NOT_LED, TRUMP_LED) or top > 0:
        return ZERO
    return ONE << np.uint64(path[start + offset])


@njit(inline="always")
def _petit_live(hands_hi: Any, players: int, path: Any, start: int, pos: int) -> bool:
    """Whether the Petit is still in a hand or in the trick being played."""
    petit_hi = ONE << np.uint64(PETIT - N_SUIT_CARDS)
    for seat in range(players):
        if hands_hi[seat] & petit_hi != ZERO:
            return True
    for k in range(pos):  # noqa: SIM110 (a generator needs numba's reference counting)
        if path[start + k] == PETIT:
            return True
    return False


@njit(inline="always")
def _petit_at_last(
    path: Any, start: int, players: int, winner: int, attack_mask: int, bonus: int
) -> int:
    """``bonus`` for the attack (negative for the defence) if the Petit is in the last trick
    ``path[start : start + players]``, won by ``winner``."""
    for k in range(players):
        if path[start + k] == PETIT:
            return bonus if (attack_mask >> winner) & 1 == 1 else -bonus
    return 0


@njit(inline="always")
def _trick_half_points(
    path: Any,
    start: int,
    players: int,
    leader: int,
    winner: int,
    attack_mask: int,
    last: bool,
    half_points: Any,
    p: Any,
) -> int:
    """Attack half points of a completed trick, the Excuse's exchange included; at the last
    trick the Excuse goes where the engine sends it (:func:`excuse_last_trick_side`)."""
    winner_attacks = (attack_mask >> winner) & 1 == 1
    total = 0
    for k in range(players):
        card = path[start + k]
        if card == EXCUSE and last:
            owner_side = (attack_mask >> ((leader + k) % players)) & 1
            if excuse_last_trick_side(owner_side, 1 if winner_attacks else 0, p) == 1:
                total += half_points[card]
        elif card == EXCUSE:
            owner = (leader + k) % players
            owner_attacks = (attack_mask >> owner) & 1 == 1
            if owner_attacks:
                total += half_points[card]
                if not winner_attacks:
                    total -= EXCUSE_COMPENSATION_HALF
            elif winner_attacks:
                total += EXCUSE_COMPENSATION_HALF
        elif winner_attacks:
            total += half_points[card]
    return total


@njit(inline="always")
def _union(hands_lo: Any, hands_hi: Any, players: int) -> tuple[np.uint64, np.uint64]:
    """Every card still in the hands."""
    u_lo = ZERO
    u_hi = ZERO
    for seat in range(players):
        u_lo |= hands_lo[seat]
        u_hi |= hands_hi[seat]
    return u_lo, u_hi
