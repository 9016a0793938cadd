"""The double-dummy search: fail-soft alpha-beta over the cards, with null windows from
:func:`~tarot_analysis.solver.solving.solve`.

The search is written with an explicit stack (no recursion, so numba's cache keeps it): a
frame per card to choose. Entering a node, it counts it against the budget, ends it when its
value is known (no card left, the last trick, the bounds of :mod:`.bounds` or the table's),
else orders the seat's cards (:mod:`.ordering`); it then tries them one after the other,
keeping the best, until a cut or the last card, and keeps the bounds found at a trick
boundary in the table (:mod:`.table`).
"""

from __future__ import annotations

from typing import Any, Final, NamedTuple

import numpy as np
from numba import njit

from tarot_analysis._jit import KERNEL
from tarot_analysis.engine.cardsets import ZERO, bit_of, half_points_of, lowest, size
from tarot_analysis.game import cards
from tarot_analysis.runs.interrupts import held_interrupts
from tarot_analysis.solver.bounds import _inside_window, _quick_window, _sure_window
from tarot_analysis.solver.ordering import _ordered_moves
from tarot_analysis.solver.table import _k_lo, _Table, _table_bits, _table_keep, _table_probe
from tarot_analysis.solver.tricks import (
    INFINITY,
    _least_half_points,
    _petit_at_last,
    _petit_live,
    _trick_half_points,
    _winner_offset,
    _won_by_rank,
)

#: The most cards a hand holds in a French preset (three players, 24 cards).
MAX_MOVES: Final = 32
#: ``root_card`` of :func:`_search` that searches every card at the root; and none given.
ROOT_SEARCH: Final = -2
_NO_ROOT_CARD: Final = -1

# Fields of one frame of the search stack (one card to choose).
_POS = 0  # cards already in the current trick
_LEADER = 1
_ACC = 2  # attack half points of the tricks completed since the root
_SEAT = 3
_N_MOVES = 4
_NEXT = 5  # index of the next move to try
_BEST = 6
_BEST_MOVE = 7
_ALPHA = 8
_BETA = 9
_IS_MAX = 10
_CARD = 11  # the card being tried
_LEFT = 12  # cards still in the hands
_STORE = 13  # 1: a trick boundary whose value goes to the table
_ALPHA0 = 14  # the window the node was searched in
_BETA0 = 15
_REST = 16  # half points of the cards still in the hands
_SLOT = 17  # the table entry found on entering a trick boundary, −1 none
_N_FIELDS = 18

# Fields of the counters array: positions searched, and the most to search (0: no limit);
# the count past which the search pauses, its stack kept (0: never), and the depth + 1 at
# which a paused search resumes (0: a new search).
_NODES = 0
_NODE_LIMIT = 1
_PAUSE_AT = 2
_RESUME = 3
_N_COUNTERS = 4
#: What :func:`_search` returns when it stops at the node limit.
_STOPPED: Final = -4 * INFINITY
#: What :func:`_search` returns when it pauses: called again, it goes on where it was.
_PAUSED: Final = -5 * INFINITY
# What entering a node finds besides those: its value known, or its cards to try.
_RESOLVED = 1
_OPENED = 2


@njit(inline="always")
def _start(
    hands_lo: Any,
    hands_hi: Any,
    trick_len: int,
    leader: int,
    players: int,
    alpha: int,
    beta: int,
    half_points: Any,
    frames: Any,
    counters: Any,
) -> int:
    """The depth to start at: that of a paused search (everything it needs is in the arrays),
    else 0, the root's frame written."""
    if counters[_RESUME] > 0:
        d = counters[_RESUME] - 1
        counters[_RESUME] = 0
        return d
    left = 0
    rest = 0
    for seat in range(players):
        left += size(hands_lo[seat], hands_hi[seat])
        rest += half_points_of(hands_lo[seat], hands_hi[seat], half_points)
    frames[0, _REST] = rest
    frames[0, _POS] = trick_len
    frames[0, _LEADER] = leader
    frames[0, _ACC] = 0
    frames[0, _ALPHA] = alpha
    frames[0, _BETA] = beta
    frames[0, _LEFT] = left
    return 0


@njit(inline="always")
def _spend_node(hands_lo: Any, hands_hi: Any, frames: Any, counters: Any, d: int) -> int:
    """Count the node entered at depth ``d``: 0, or :data:`_STOPPED` past the node limit (every
    card tried on the stack given back) or :data:`_PAUSED` past the pause (the node is entered,
    and counted, again on resuming)."""
    counters[_NODES] += 1
    if counters[_NODE_LIMIT] > 0 and counters[_NODES] > counters[_NODE_LIMIT]:
        counters[_NODES] -= 1  # this one is not searched
        for k in range(d):
            card_lo, card_hi = bit_of(frames[k, _CARD])
            hands_lo[frames[k, _SEAT]] |= card_lo
            hands_hi[frames[k, _SEAT]] |= card_hi
        return _STOPPED
    if counters[_PAUSE_AT] > 0 and counters[_NODES] > counters[_PAUSE_AT]:
        counters[_NODES] -= 1
        counters[_RESUME] = d + 1
        return _PAUSED
    return 0


@njit(inline="always")
def _last_trick(
    hands_lo: Any,
    hands_hi: Any,
    path: Any,
    start: int,
    leader: int,
    attack_mask: int,
    players: int,
    petit_bonus: int,
    half_points: Any,
    p: Any,
) -> tuple[int, np.uint64]:
    """The attack's half points of the last trick, one card in each hand (nothing to choose),
    and the card that won it by its rank (see :func:`_won_by_rank`)."""
    for k in range(players):
        seat = (leader + k) % players
        path[start + k] = lowest(hands_lo[seat], hands_hi[seat])
    offset = _winner_offset(path, start, players)
    winner = (leader + offset) % players
    value = _trick_half_points(
        path, start, players, leader, winner, attack_mask, True, half_points, p
    )
    value += _petit_at_last(path, start, players, winner, attack_mask, petit_bonus)
    return value, _won_by_rank(path, start, players, offset)


@njit(inline="always")
def _boundary_window(
    hands_lo: Any,
    hands_hi: Any,
    players: int,
    attack_mask: int,
    root_card: int,
    half_points: Any,
    least: int,
    table: Any,
    bits: int,
    epoch: np.uint64,
    frames: Any,
    node_keys: Any,
    node_hashes: Any,
    relevant: Any,
    d: int,
    store: bool,
    swing: int,
    a: int,
    b: int,
) -> tuple[int, int, int]:
    """The bounds ``(low, high)`` of a trick boundary at depth ``d`` from the sure tricks, the
    table (when the node's value goes there) and the quick tricks (when the window is still
    open and the leader free to lead), and the table's card (−1 none)."""
    leader = frames[d, _LEADER]
    acc = frames[d, _ACC]
    rest = frames[d, _REST]
    free = d > 0 or root_card < 0
    low, high, sure_attack, sure_defence = _sure_window(
        hands_hi, players, attack_mask, half_points, least, acc, rest, frames[d, _LEFT], swing, free
    )
    first_move = -1
    if store and low < b and high > a:
        h, slot, low, high, first_move, found = _table_probe(
            table,
            bits,
            hands_lo,
            hands_hi,
            players,
            leader,
            attack_mask,
            epoch,
            node_keys[d],
            acc,
            low,
            high,
        )
        node_hashes[d] = h
        frames[d, _SLOT] = slot
        relevant[d, 0] = found
    if low < b and high > a and low != high and free:
        low, high, masters = _quick_window(
            hands_lo,
            hands_hi,
            players,
            leader,
            attack_mask,
            half_points,
            least,
            acc,
            rest,
            swing,
            sure_attack,
            sure_defence,
            low,
            high,
        )
        relevant[d, 0] |= masters  # what the bound rests on
    return low, high, first_move


@njit(inline="always")
def _swing(hands_hi: Any, players: int, path: Any, start: int, pos: int, petit_bonus: int) -> int:
    """What the Petit at the last trick may still add to the value or take off."""
    if petit_bonus != 0 and _petit_live(hands_hi, players, path, start, pos):
        return petit_bonus
    return 0


@njit(inline="always")
def _node_value(
    hands_lo: Any,
    hands_hi: Any,
    path: Any,
    trick_len: int,
    attack_mask: int,
    players: int,
    root_card: int,
    petit_bonus: int,
    half_points: Any,
    p: Any,
    least: int,
    table: Any,
    bits: int,
    epoch: np.uint64,
    frames: Any,
    node_keys: Any,
    node_hashes: Any,
    relevant: Any,
    d: int,
) -> tuple[bool, int, int, int, int]:
    """Enter the node at depth ``d``: whether its value is known without trying a card, and
    that value; else the window ``(a, b)`` narrowed by its bounds, and the table's card."""
    pos = frames[d, _POS]
    acc = frames[d, _ACC]
    a = frames[d, _ALPHA]
    b = frames[d, _BETA]
    frames[d, _SLOT] = -1
    relevant[d, 0] = ZERO
    store = pos == 0 and not (d == 0 and root_card != _NO_ROOT_CARD)
    start = trick_len + d - pos
    swing = _swing(hands_hi, players, path, start, pos, petit_bonus)
    if frames[d, _LEFT] == 0:
        return True, acc, a, b, -1
    if d == 0 and root_card == ROOT_SEARCH:
        return False, 0, a, b, -1
    if pos == 0 and frames[d, _LEFT] == players:
        value, won = _last_trick(
            hands_lo,
            hands_hi,
            path,
            start,
            frames[d, _LEADER],
            attack_mask,
            players,
            petit_bonus,
            half_points,
            p,
        )
        relevant[d, 0] = won
        return True, acc + value, a, b, -1
    if pos > 0:
        low, high = _inside_window(
            hands_lo,
            hands_hi,
            path,
            start,
            pos,
            frames[d, _LEADER],
            players,
            attack_mask,
            half_points,
            least,
            acc,
            frames[d, _REST],
            swing,
        )
        if low >= b:
            return True, low, a, b, -1
        if high <= a:
            return True, high, a, b, -1
        return False, 0, a, b, -1
    low, high, first_move = _boundary_window(
        hands_lo,
        hands_hi,
        players,
        attack_mask,
        root_card,
        half_points,
        least,
        table,
        bits,
        epoch,
        frames,
        node_keys,
        node_hashes,
        relevant,
        d,
        store,
        swing,
        a,
        b,
    )
    if low >= b or low == high:
        return True, low, a, b, first_move
    if high <= a:
        return True, high, a, b, first_move
    return False, 0, max(a, low), min(b, high), first_move


@njit(inline="always")
def _open_node(
    hands_lo: Any,
    hands_hi: Any,
    path: Any,
    trick_len: int,
    attack_mask: int,
    players: int,
    root_card: int,
    half_points: Any,
    p: Any,
    frames: Any,
    moves: Any,
    move_keys: Any,
    d: int,
    a: int,
    b: int,
    first_move: int,
) -> None:
    """Set up the frame of a node whose cards are to be tried in the window ``(a, b)``: the seat
    to play, its side, and its cards in order (the root's imposed card alone)."""
    pos = frames[d, _POS]
    leader = frames[d, _LEADER]
    frames[d, _ALPHA] = a
    frames[d, _BETA] = b
    frames[d, _ALPHA0] = a
    frames[d, _BETA0] = b
    frames[d, _STORE] = 1 if pos == 0 and not (d == 0 and root_card != _NO_ROOT_CARD) else 0
    seat = (leader + pos) % players
    frames[d, _SEAT] = seat
    is_max = (attack_mask >> seat) & 1 == 1
    frames[d, _IS_MAX] = 1 if is_max else 0
    frames[d, _BEST] = -INFINITY if is_max else INFINITY
    frames[d, _BEST_MOVE] = -1
    frames[d, _NEXT] = 0
    if d == 0 and root_card >= 0:
        moves[d, 0] = root_card
        frames[d, _N_MOVES] = 1
        return
    start = trick_len + d - pos
    frames[d, _N_MOVES] = _ordered_moves(
        hands_lo,
        hands_hi,
        path,
        start,
        pos,
        leader,
        seat,
        is_max,
        attack_mask,
        players,
        first_move,
        half_points,
        p,
        moves,
        move_keys,
        d,
    )


@njit(inline="always")
def _take_back(
    hands_lo: Any, hands_hi: Any, frames: Any, relevant: Any, d: int, value: int, found: Any
) -> None:
    """The value of the card tried at depth ``d`` came back (``found``: the cards it rests on):
    give the card back to its hand, keep the best value and card, narrow the window."""
    card = frames[d, _CARD]
    seat = frames[d, _SEAT]
    card_lo, card_hi = bit_of(card)
    hands_lo[seat] |= card_lo
    hands_hi[seat] |= card_hi
    relevant[d, 0] |= found | relevant[d, 1]
    if frames[d, _IS_MAX] == 1:
        if value > frames[d, _BEST]:
            frames[d, _BEST] = value
            frames[d, _BEST_MOVE] = card
            frames[d, _ALPHA] = max(frames[d, _ALPHA], value)
    elif value < frames[d, _BEST]:
        frames[d, _BEST] = value
        frames[d, _BEST_MOVE] = card
        frames[d, _BETA] = min(frames[d, _BETA], value)


@njit(inline="always")
def _play_next(
    hands_lo: Any,
    hands_hi: Any,
    path: Any,
    trick_len: int,
    players: int,
    attack_mask: int,
    rules: Any,
    stack: Any,
    d: int,
) -> bool:
    """Play the next card of the node at depth ``d`` and write its child's frame, unless the
    window is closed (a cut) or every card was tried: then False."""
    half_points, p, petit_bonus, _ = rules
    frames, moves, _, _, _, relevant, _ = stack
    if frames[d, _ALPHA] >= frames[d, _BETA] or frames[d, _NEXT] >= frames[d, _N_MOVES]:
        return False
    card = moves[d, frames[d, _NEXT]]
    frames[d, _NEXT] += 1
    frames[d, _CARD] = card
    seat = frames[d, _SEAT]
    card_lo, card_hi = bit_of(card)
    hands_lo[seat] &= ~card_lo
    hands_hi[seat] &= ~card_hi
    pos = frames[d, _POS]
    path[trick_len + d] = card
    child = d + 1
    frames[child, _LEFT] = frames[d, _LEFT] - 1
    frames[child, _REST] = frames[d, _REST] - half_points[card]
    frames[child, _ALPHA] = frames[d, _ALPHA]
    frames[child, _BETA] = frames[d, _BETA]
    relevant[d, 1] = ZERO
    if pos + 1 < players:
        frames[child, _POS] = pos + 1
        frames[child, _LEADER] = frames[d, _LEADER]
        frames[child, _ACC] = frames[d, _ACC]
        return True
    start = trick_len + d + 1 - players
    trick_leader = frames[d, _LEADER]
    offset = _winner_offset(path, start, players)
    relevant[d, 1] = _won_by_rank(path, start, players, offset)
    winner = (trick_leader + offset) % players
    last = frames[child, _LEFT] == 0
    gained = _trick_half_points(
        path, start, players, trick_leader, winner, attack_mask, last, half_points, p
    )
    if last:
        gained += _petit_at_last(path, start, players, winner, attack_mask, petit_bonus)
    frames[child, _POS] = 0
    frames[child, _LEADER] = winner
    frames[child, _ACC] = frames[d, _ACC] + gained
    return True


@njit(inline="always")
def _close_node(
    hands_lo: Any, hands_hi: Any, players: int, tt: Any, stack: Any, d: int
) -> tuple[int, np.uint64]:
    """Every card of the node at depth ``d`` tried, or a cut: its value, and the cards it rests
    on; at a trick boundary, its bounds kept in the table."""
    table, bits, epoch = tt
    frames, _, _, node_keys, node_hashes, relevant, _ = stack
    best = frames[d, _BEST]
    if frames[d, _STORE] != 1:
        return best, relevant[d, 0]
    acc = frames[d, _ACC]
    found = _table_keep(
        table,
        bits,
        epoch,
        node_keys[d],
        node_hashes[d],
        frames[d, _SLOT],
        hands_lo,
        hands_hi,
        players,
        frames[d, _LEFT],
        relevant[d, 0],
        best - acc,
        frames[d, _ALPHA0] - acc,
        frames[d, _BETA0] - acc,
        frames[d, _BEST_MOVE],
    )
    return best, found


@njit(inline="always")
def _enter(
    hands_lo: Any,
    hands_hi: Any,
    path: Any,
    trick_len: int,
    players: int,
    attack_mask: int,
    root_card: int,
    rules: Any,
    tt: Any,
    stack: Any,
    d: int,
) -> tuple[int, int]:
    """Enter the node at depth ``d``: :data:`_STOPPED` or :data:`_PAUSED` (see
    :func:`_spend_node`); :data:`_RESOLVED` and its value, known without trying a card; or
    :data:`_OPENED`, its frame set up to try its cards."""
    half_points, p, petit_bonus, least = rules
    table, bits, epoch = tt
    frames, moves, move_keys, node_keys, node_hashes, relevant, counters = stack
    stop = _spend_node(hands_lo, hands_hi, frames, counters, d)
    if stop != 0:
        return stop, 0
    resolved, value, a, b, first_move = _node_value(
        hands_lo,
        hands_hi,
        path,
        trick_len,
        attack_mask,
        players,
        root_card,
        petit_bonus,
        half_points,
        p,
        least,
        table,
        bits,
        epoch,
        frames,
        node_keys,
        node_hashes,
        relevant,
        d,
    )
    if resolved:
        return _RESOLVED, value
    _open_node(
        hands_lo,
        hands_hi,
        path,
        trick_len,
        attack_mask,
        players,
        root_card,
        half_points,
        p,
        frames,
        moves,
        move_keys,
        d,
        a,
        b,
        first_move,
    )
    return _OPENED, 0


@njit(**KERNEL)
def _search(
    hands_lo: Any,
    hands_hi: Any,
    path: Any,
    trick_len: int,
    leader: int,
    attack_mask: int,
    players: int,
    root_card: int,
    alpha: int,
    beta: int,
    petit_bonus: int,
    half_points: Any,
    p: Any,
    table: Any,
    epoch: np.uint64,
    frames: Any,
    moves: Any,
    move_keys: Any,
    node_keys: Any,
    node_hashes: Any,
    relevant: Any,
    counters: Any,
) -> int:
    """Attack half points of the position, by fail-soft alpha-beta in ``(alpha, beta)``.

    ``path[:trick_len]`` holds the cards of the current trick; the cards played in the search
    follow them. ``root_card`` ≥ 0 limits the seat to play to that card (the value of one
    move); :data:`ROOT_SEARCH` searches every card of the seat to play, even when the value
    is known without (the best card is then ``frames[0, _BEST_MOVE]``). ``petit_bonus``:
    half points added to the value when the attack takes the last trick with the Petit in
    it, taken off when the defence does (0: card points only). ``hands_*`` and ``path`` are
    changed during the search and restored at its end. ``table``: the transposition table
    (see :class:`~tarot_analysis.solver.table._Table`); its entries of another ``epoch``
    count as empty, and one epoch keeps one ``half_points``, ``p`` and ``petit_bonus``.
    ``relevant[d, 0]`` gathers the suit cards that won a trick by rank in the search below
    depth ``d`` (what the table's entries must match on); ``relevant[d, 1]`` is the card that
    won the trick the card tried at depth ``d`` ended. ``counters``: positions searched so
    far, and a limit (0: none) past which the search gives the cards back and returns
    ``_STOPPED``; a count (0: none) past which it returns ``_PAUSED`` with its stack, hands
    and path as they are, and the depth to resume at: called again with the same arrays (and
    a later pause), it goes on.
    """
    rules = (half_points, p, petit_bonus, _least_half_points(half_points))
    tt = (table, _table_bits(table), epoch)
    stack = (frames, moves, move_keys, node_keys, node_hashes, relevant, counters)
    d = _start(
        hands_lo, hands_hi, trick_len, leader, players, alpha, beta, half_points, frames, counters
    )
    result = 0
    result_relevant = ZERO
    entering = True
    while True:
        if not entering:
            # The value of the card tried at depth d came back.
            _take_back(hands_lo, hands_hi, frames, relevant, d, result, result_relevant)
        else:
            entering = False
            status, result = _enter(
                hands_lo,
                hands_hi,
                path,
                trick_len,
                players,
                attack_mask,
                root_card,
                rules,
                tt,
                stack,
                d,
            )
            if status == _RESOLVED:
                if d == 0:
                    return result
                result_relevant = relevant[d, 0]
                d -= 1
                _take_back(hands_lo, hands_hi, frames, relevant, d, result, result_relevant)
            elif status != _OPENED:
                return status
        if _play_next(hands_lo, hands_hi, path, trick_len, players, attack_mask, rules, stack, d):
            d += 1
            entering = True
            continue
        result, result_relevant = _close_node(hands_lo, hands_hi, players, tt, stack, d)
        if d == 0:
            return result
        d -= 1


@njit(**KERNEL)
def _playout(
    hands_lo: Any,
    hands_hi: Any,
    path: Any,
    trick_len: int,
    leader: int,
    attack_mask: int,
    players: int,
    petit_bonus: int,
    half_points: Any,
    p: Any,
    frames: Any,
    moves: Any,
    move_keys: Any,
) -> int:
    """Attack half points of one play-out of the position in which every seat plays the first
    card of its move ordering (see :func:`_ordered_moves`): a first guess of the value,
    in no way a bound. ``hands_*`` and ``path`` are changed and restored."""
    left = 0
    for seat in range(players):
        left += size(hands_lo[seat], hands_hi[seat])
    pos = trick_len
    trick_leader = leader
    acc = 0
    d = 0
    while left > 0:
        start = trick_len + d - pos
        seat = (trick_leader + pos) % players
        is_max = (attack_mask >> seat) & 1 == 1
        _ordered_moves(
            hands_lo,
            hands_hi,
            path,
            start,
            pos,
            trick_leader,
            seat,
            is_max,
            attack_mask,
            players,
            -1,
            half_points,
            p,
            moves,
            move_keys,
            0,
        )
        card = moves[0, 0]
        card_lo, card_hi = bit_of(card)
        hands_lo[seat] &= ~card_lo
        hands_hi[seat] &= ~card_hi
        frames[d, _SEAT] = seat
        frames[d, _CARD] = card
        path[trick_len + d] = card
        d += 1
        left -= 1
        pos += 1
        if pos == players:
            offset = _winner_offset(path, start, players)
            winner = (trick_leader + offset) % players
            last = left == 0
            acc += _trick_half_points(
                path, start, players, trick_leader, winner, attack_mask, last, half_points, p
            )
            if last:
                acc += _petit_at_last(path, start, players, winner, attack_mask, petit_bonus)
            trick_leader = winner
            pos = 0
    for k in range(d):
        card_lo, card_hi = bit_of(frames[k, _CARD])
        hands_lo[frames[k, _SEAT]] |= card_lo
        hands_hi[frames[k, _SEAT]] |= card_hi
    return acc


class DoubleDummy(NamedTuple):
    """The arrays of double-dummy searches run from compiled code (see :func:`best_card`),
    allocated once by :func:`double_dummy`. The caller writes the position into ``hands_lo``,
    ``hands_hi`` (one word each per seat) and ``path`` (the cards of the trick so far)."""

    table: _Table
    hands_lo: Any
    hands_hi: Any
    path: Any
    frames: Any
    moves: Any
    move_keys: Any
    node_keys: Any
    node_hashes: Any
    relevant: Any
    counters: Any


def double_dummy(players: int, bits: int) -> DoubleDummy:
    """Arrays for searches of ``players`` seats with a table of ``2 ** bits`` entries, made by
    compiled code (:func:`allocate_double_dummy`) with Ctrl-C held while they come back: an
    interrupt there would crash the process (:mod:`tarot_analysis.runs.interrupts`); it is
    raised once they are here."""
    with held_interrupts():  # the arrays come back as a structure
        return allocate_double_dummy(players, bits)


@njit(cache=True)
def allocate_double_dummy(players: int, bits: int) -> DoubleDummy:
    """Arrays for searches of ``players`` seats with a table of ``2 ** bits`` entries: what
    compiled code calls; Python calls :func:`double_dummy`."""
    entries = 1 << bits
    width = _k_lo(players) + players
    depth = cards.N_CARDS + 1
    table = _Table(
        np.zeros((entries, width), dtype=np.uint64),
        np.zeros(entries, dtype=np.int64),
        np.zeros(entries, dtype=np.int64),
        np.zeros(entries, dtype=np.int64),
        np.zeros(entries, dtype=np.int64),
    )
    return DoubleDummy(
        table=table,
        hands_lo=np.zeros(players, dtype=np.uint64),
        hands_hi=np.zeros(players, dtype=np.uint64),
        path=np.zeros(cards.N_CARDS + players, dtype=np.int64),
        frames=np.zeros((depth, _N_FIELDS), dtype=np.int64),
        moves=np.zeros((depth, MAX_MOVES), dtype=np.int64),
        move_keys=np.zeros((depth, MAX_MOVES), dtype=np.int64),
        node_keys=np.zeros((depth, width), dtype=np.uint64),
        node_hashes=np.zeros(depth, dtype=np.uint64),
        relevant=np.zeros((depth, 2), dtype=np.uint64),
        counters=np.zeros(_N_COUNTERS, dtype=np.int64),
    )


@njit(**KERNEL)
def best_card(
    dd: DoubleDummy,
    players: int,
    trick_len: int,
    leader: int,
    attack_mask: int,
    petit_bonus: int,
    half_points: Any,
    p: Any,
    context: int,
) -> int:
    """The card the seat to play chooses with every hand visible, in the position written
    into ``dd`` (``trick_len`` cards of the trick in ``dd.path``, led by ``leader``): the
    attack maximises its half points (``half_points``, card by card), plus ``petit_bonus``
    when it takes the Petit at the last trick (minus when the defence does), and the defence
    minimises them. One card of each run of equivalent cards is considered: the lowest.

    The table of ``dd`` keeps what earlier calls learnt: ``context`` (0 to 2 ** 40) tells
    apart the ``half_points``, ``petit_bonus`` and rules its values were found under, so one
    set of arrays must be given the same ``context`` only for the same three."""
    _search(
        dd.hands_lo,
        dd.hands_hi,
        dd.path,
        trick_len,
        leader,
        attack_mask,
        players,
        np.int64(ROOT_SEARCH),  # not literals: see tarot_analysis._jit
        np.int64(-INFINITY),
        np.int64(INFINITY),
        petit_bonus,
        half_points,
        p,
        dd.table,
        np.uint64(context + 1),
        dd.frames,
        dd.moves,
        dd.move_keys,
        dd.node_keys,
        dd.node_hashes,
        dd.relevant,
        dd.counters,
    )
    return dd.frames[0, _BEST_MOVE]
