"""Move ordering of the double-dummy search: the cards worth trying for a seat, best guesses
first.

The table's card; cards the other side cannot beat after them, most points first; to a trick
the own side is sure to win, the cards of most points; the cheapest card that wins for now;
then the cards that cost least. Cards of one hand that no card in play separates (same suit,
next in rank, same points) are tried once.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from tarot_analysis.engine.cardsets import (
    EXCUSE,
    N_SUIT_CARDS,
    NOT_LED,
    ONE,
    SUIT_LO,
    TRUMP_LED,
    TRUMPS_HI,
    ZERO,
    bit_of,
    highest_bit,
    holds,
    suit_of,
    trumps_above,
)
from tarot_analysis.engine.core import legal_cards
from tarot_analysis.game import cards
from tarot_analysis.solver.tricks import (
    EXCUSE_COMPENSATION_HALF,
    INFINITY,
    _led_and_top,
    _strength,
    _union,
    _winner_offset,
)


@njit(inline="always")
def _can_beat(hand_lo: np.uint64, hand_hi: np.uint64, card: int, led: int, top: int) -> bool:
    """Whether a hand may beat ``card``, winning a trick of suit ``led`` whose highest trump
    is ``top``, with one of its cards (an estimate for ordering: the rules of over-trumping
    aside)."""
    if card == EXCUSE or led == NOT_LED:
        return True
    trumps = hand_hi & TRUMPS_HI
    if led == TRUMP_LED or hand_lo & SUIT_LO[led] == ZERO:
        if top > 0:
            return trumps_above(hand_hi, top) != ZERO
        return trumps != ZERO
    if card > EXCUSE:
        return False  # the hand must follow the suit led
    return hand_lo & SUIT_LO[led] & ~((ONE << np.uint64(card + 1)) - ONE) != ZERO


@njit(inline="always")
def _opponent_can_beat(
    hands_lo: Any,
    hands_hi: Any,
    leader: int,
    after: int,
    players: int,
    attack_mask: int,
    side_attacks: bool,
    card: int,
    led: int,
    top: int,
) -> bool:
    """Whether a seat of the other side, playing after trick position ``after``, may beat
    ``card``."""
    for k in range(after + 1, players):
        seat = (leader + k) % players
        opponent = ((attack_mask >> seat) & 1 == 1) != side_attacks
        if opponent and _can_beat(hands_lo[seat], hands_hi[seat], card, led, top):
            return True
    return False


@njit(inline="always")
def _side_sure(
    hands_lo: Any,
    hands_hi: Any,
    path: Any,
    start: int,
    pos: int,
    leader: int,
    players: int,
    attack_mask: int,
    is_max: bool,
    led: int,
    top: int,
) -> tuple[int, bool]:
    """How high the card winning the trick so far ranks (−2 before the lead), and whether the
    side to play (the attack when ``is_max``) is sure to win the trick: its card wins now and
    no seat of the other side after it can beat it."""
    if pos == 0:
        return -2, False
    winning = _winner_offset(path, start, pos)
    winner_card = path[start + winning]
    winner_strength = _strength(winner_card, led)
    winner_seat = (leader + winning) % players
    if ((attack_mask >> winner_seat) & 1 == 1) != is_max:
        return winner_strength, False
    sure = not _opponent_can_beat(
        hands_lo, hands_hi, leader, pos, players, attack_mask, is_max, winner_card, led, top
    )
    return winner_strength, sure


@njit(inline="always")
def _distinct_moves(
    legal_lo: np.uint64,
    legal_hi: np.uint64,
    in_play_lo: np.uint64,
    in_play_hi: np.uint64,
    half_points: Any,
    moves: Any,
    d: int,
) -> int:
    """Write one card for each run of legal cards that no card in play separates (same suit,
    next in rank among the cards in play, same points) into ``moves[d]``, highest first: the
    lowest of the run. Returns how many."""
    n_moves = 0
    word = legal_lo
    while word != ZERO:
        bit = highest_bit(word)
        word &= ~(ONE << np.uint64(bit))
        below = in_play_lo & SUIT_LO[bit // cards.N_RANKS] & ((ONE << np.uint64(bit)) - ONE)
        if below != ZERO:
            twin = highest_bit(below)
            if holds(legal_lo, ZERO, twin) and half_points[twin] == half_points[bit]:
                continue
        moves[d, n_moves] = bit
        n_moves += 1
    word = legal_hi
    while word != ZERO:
        bit = highest_bit(word)
        word &= ~(ONE << np.uint64(bit))
        card = N_SUIT_CARDS + bit
        if card != EXCUSE:
            below = in_play_hi & TRUMPS_HI & ((ONE << np.uint64(bit)) - ONE)
            if below != ZERO:
                twin = N_SUIT_CARDS + highest_bit(below)
                if holds(ZERO, legal_hi, twin) and half_points[twin] == half_points[card]:
                    continue
        moves[d, n_moves] = card
        n_moves += 1
    return n_moves


@njit(inline="always")
def _move_key(
    hands_lo: Any,
    hands_hi: Any,
    card: int,
    pos: int,
    leader: int,
    players: int,
    attack_mask: int,
    is_max: bool,
    led: int,
    top: int,
    winner_strength: int,
    side_sure: bool,
    first_move: int,
    half_points: Any,
) -> int:
    """The ordering key of ``card`` (higher first): see :func:`_ordered_moves`."""
    card_led = led if led != NOT_LED else suit_of(card)
    strength = _strength(card, card_led)
    card_top = top
    if card > EXCUSE and card - EXCUSE > card_top:
        card_top = card - EXCUSE
    cost = EXCUSE_COMPENSATION_HALF if card == EXCUSE else half_points[card]
    if card == first_move:
        return 6 * INFINITY
    if side_sure:
        return 4 * INFINITY + 64 * half_points[card] - strength
    if strength > winner_strength and not _opponent_can_beat(
        hands_lo, hands_hi, leader, pos, players, attack_mask, is_max, card, card_led, card_top
    ):
        return 5 * INFINITY + 64 * half_points[card] - strength
    if strength > winner_strength and pos > 0:
        return 3 * INFINITY - 64 * cost - strength
    return INFINITY - 64 * cost - strength


@njit(inline="always")
def _ordered_moves(
    hands_lo: Any,
    hands_hi: Any,
    path: Any,
    start: int,
    pos: int,
    leader: int,
    seat: int,
    is_max: bool,
    attack_mask: int,
    players: int,
    first_move: int,
    half_points: Any,
    p: Any,
    moves: Any,
    move_keys: Any,
    d: int,
) -> int:
    """Write the cards worth trying for ``seat`` into ``moves[d]``, best guesses first.

    One card stands for each run of its hand's legal cards that no card in play separates
    (same suit, next in rank among the cards in the hands and the trick, same points): the
    lowest of the run. Order: the table's card; then the cards that win the trick whatever
    the other side plays after them, most points first; to a trick the own side is sure to
    win, the cards of most points; then the cheapest card that wins for now; then the cards
    that cost the fewest points (the Excuse costs half a point).
    """
    led, top = _led_and_top(path, start, pos)
    legal_lo, legal_hi = legal_cards(hands_lo[seat], hands_hi[seat], led, top, ZERO, False, p)
    in_play_lo, in_play_hi = _union(hands_lo, hands_hi, players)
    for k in range(pos):
        card_lo, card_hi = bit_of(path[start + k])
        in_play_lo |= card_lo
        in_play_hi |= card_hi
    winner_strength, side_sure = _side_sure(
        hands_lo, hands_hi, path, start, pos, leader, players, attack_mask, is_max, led, top
    )
    n_moves = _distinct_moves(legal_lo, legal_hi, in_play_lo, in_play_hi, half_points, moves, d)
    for k in range(n_moves):
        card = moves[d, k]
        key = _move_key(
            hands_lo,
            hands_hi,
            card,
            pos,
            leader,
            players,
            attack_mask,
            is_max,
            led,
            top,
            winner_strength,
            side_sure,
            first_move,
            half_points,
        )
        j = k  # insertion: the keys of moves[d, :k] are in order, highest first
        while j > 0 and move_keys[d, j - 1] < key:
            move_keys[d, j] = move_keys[d, j - 1]
            moves[d, j] = moves[d, j - 1]
            j -= 1
        move_keys[d, j] = key
        moves[d, j] = card
    return n_moves
