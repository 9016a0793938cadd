"""The transposition table of the double-dummy search, shared by the searches of one solve.

An entry holds a trick boundary's bounds on the attack's half points still to take and the
best card found. Its key renumbers the cards by rank among those left, so positions that
differ only by which cards are gone share an entry; and, as in partition search (Ginsberg's,
as bridge solvers use it), an entry keeps only the ranks of each suit down to the lowest card
that won a trick by its rank in the search below it (face cards always): the low cards under
them may lie in any hand of the same lengths, and the entry still holds.
"""

from __future__ import annotations

import threading
from typing import Any, Final, NamedTuple

import numpy as np
import numpy.typing as npt
from numba import njit

from tarot_analysis._jit import leading_zeros, popcount, trailing_zeros
from tarot_analysis.engine.cardsets import (
    EXCUSE,
    EXCUSE_HI,
    JACKS_LO,
    KINGS_LO,
    KNIGHTS_LO,
    N_SUIT_CARDS,
    ONE,
    PETIT,
    QUEENS_LO,
    SUIT_LO,
    TRUMPS_HI,
    TWENTY_ONE,
    ZERO,
)
from tarot_analysis.game import cards
from tarot_analysis.solver.tricks import INFINITY, _union

#: Entries of the transposition table: 2 ** bits, more bits for longer endgames.
TABLE_BITS_MIN: Final = 12
TABLE_BITS_MAX: Final = 18

# The table: entries by buckets of four. The fields of a key (see _boundary_key): the epoch,
# the seats of the attack and the leader + 1; each hand's length in each suit (four seats a
# word); the face cards and bouts left; each hand's trumps and Excuse; then the ranks that
# matter and each hand's suit cards on those ranks.
_BUCKET = 4
_EPOCH_SHIFT = np.uint64(16)
_K_LEADER = 0
_K_LENGTHS = 1
_K_SIGNATURE = 3
_K_HI = 4
_SEATS_A_WORD = 4
_SUIT_BLOCK = np.uint64((1 << 14) - 1)
_N_SUITS = 4
_FACES_LO = KINGS_LO | QUEENS_LO | KNIGHTS_LO | JACKS_LO
_HASH_MULTIPLIER_LO = np.uint64(0x9E3779B97F4A7C15)
_HASH_MULTIPLIER_HI = np.uint64(0xC2B2AE3D27D4EB4F)


def _compress_table() -> npt.NDArray[np.uint8]:
    """``table[(u << 7) | h]``: the bits of ``h`` at the places of the bits of ``u`` (7-bit
    words), packed down: bit ``i`` of the answer is the ``i``-th bit of ``u``, set in ``h``."""
    table = np.zeros(1 << 14, dtype=np.uint8)
    for u in range(1 << 7):
        places = [bit for bit in range(7) if u >> bit & 1]
        for h in range(1 << 7):
            table[(u << 7) | h] = sum(1 << i for i, bit in enumerate(places) if h >> bit & 1)
    return table


_COMPRESS = _compress_table()
_CHUNK = 7  # bits a lookup of _COMPRESS packs; a suit is two chunks
_LO_CHUNKS = N_SUIT_CARDS // _CHUNK


@njit(inline="always")
def _compress(h: np.uint64, u: np.uint64, chunks: int) -> np.uint64:
    """The bits of ``h`` (a subset of ``u``) renumbered by rank within their suit among the
    bits of ``u``: each suit of 14 bits (two chunks of 7) packed down to its lowest bits;
    with three chunks, one run of 21 bits (the trumps)."""
    out = ZERO
    base = 0
    for chunk in range(chunks):
        shift = np.uint64(_CHUNK * chunk)
        u7 = (u >> shift) & np.uint64(127)
        h7 = (h >> shift) & np.uint64(127)
        if chunks == _LO_CHUNKS and chunk % 2 == 0:
            base = _CHUNK * chunk  # a new suit starts
        out |= np.uint64(_COMPRESS[(u7 << np.uint64(_CHUNK)) | h7]) << np.uint64(base)
        base += popcount(u7)
    return out


@njit(inline="always")
def _boundary_key(
    hands_lo: Any,
    hands_hi: Any,
    players: int,
    leader: int,
    attack_mask: int,
    epoch: np.uint64,
    key: Any,
) -> np.uint64:
    """Write the key of a trick boundary into ``key`` and return the hash of its fixed part.

    Cards are renumbered within their suit by rank among the cards still in the hands (the
    trumps from 1, the Excuse kept at 0): who wins a trick depends on the order of the
    cards, not on their names. Their points do: the key holds which face cards and bouts
    are left. The fixed part (see the ``_K_*`` fields) is matched exactly: leader, each
    hand's length in each suit, trumps and Excuse, face cards and bouts left. The suit
    cards, renumbered, go to ``key[_k_lo(players) + seat]``: an entry matches them only on
    the ranks its search found to matter (see :func:`_relevant_ranks`).
    """
    u_lo, u_hi = _union(hands_lo, hands_hi, players)
    key[_K_LENGTHS] = ZERO
    key[_K_LENGTHS + 1] = ZERO
    lo = _k_lo(players)
    for seat in range(players):
        key[lo + seat] = _compress(hands_lo[seat], u_lo, _LO_CHUNKS)
        # The Excuse stays at bit 0, the trumps from bit 1.
        excuse = hands_hi[seat] & EXCUSE_HI
        key[_K_HI + seat] = excuse | (_compress(hands_hi[seat] >> ONE, u_hi >> ONE, 3) << ONE)
        word = _K_LENGTHS + seat // _SEATS_A_WORD
        for suit in range(_N_SUITS):
            length = np.uint64(popcount(hands_lo[seat] & SUIT_LO[suit]))
            shift = np.uint64(16 * (seat % _SEATS_A_WORD) + 4 * suit)
            key[word] |= length << shift
    petit = (u_hi >> np.uint64(PETIT - N_SUIT_CARDS)) & ONE
    twenty_one = (u_hi >> np.uint64(TWENTY_ONE - N_SUIT_CARDS)) & ONE
    key[_K_SIGNATURE] = (
        (u_lo & _FACES_LO)
        | (petit << np.uint64(N_SUIT_CARDS))
        | (twenty_one << np.uint64(N_SUIT_CARDS + 1))
    )
    key[_K_LEADER] = (epoch << _EPOCH_SHIFT) | np.uint64(attack_mask << 8) | np.uint64(leader + 1)
    h = key[_K_LEADER] * _HASH_MULTIPLIER_HI
    for k in range(1, _K_HI + players):
        h = (h ^ key[k]) * _HASH_MULTIPLIER_LO
        h ^= h >> np.uint64(29)
    h *= _HASH_MULTIPLIER_HI
    return h ^ (h >> np.uint64(32))


@njit(inline="always")
def _k_lo(players: int) -> int:
    """Index in a key of seat 0's suit cards, after the ranks that matter (``_k_lo − 1``)."""
    return _K_HI + players + 1


@njit(inline="always")
def _entry_matches(keys: Any, entry: int, key: Any, players: int) -> bool:
    """Whether table entry ``entry`` holds the position of ``key``: the fixed part equal,
    and each hand's suit cards equal on the ranks the entry keeps."""
    for k in range(_K_HI + players):
        if keys[entry, k] != key[k]:
            return False
    lo = _k_lo(players)
    ranks = keys[entry, lo - 1]
    for seat in range(players):  # noqa: SIM110 (a generator needs numba's reference counting)
        if key[lo + seat] & ranks != keys[entry, lo + seat]:
            return False
    return True


@njit(inline="always")
def _table_find(keys: Any, h: np.uint64, key: Any, players: int, bits: int) -> int:
    """The first table entry of the bucket of ``h`` that holds ``key``'s position, −1 if none."""
    bucket = int(h >> np.uint64(64 - bits)) & ~(_BUCKET - 1)
    for entry in range(bucket, bucket + _BUCKET):
        if _entry_matches(keys, entry, key, players):
            return entry
    return -1


@njit(inline="always")
def _relevant_ranks(relevant: np.uint64, u_lo: np.uint64) -> np.uint64:
    """The renumbered ranks (see :func:`_boundary_key`) that a search has found to matter.

    ``relevant``: suit cards that won a trick by their rank in the search. In each suit,
    those ranks and every rank above them, with the face cards always (they are worth more
    than the others): below them, cards of one hand can be swapped for any other of the
    same suit without changing a trick's winner or its points.
    """
    ranks = ZERO
    for suit in range(_N_SUITS):
        cards_left = u_lo & SUIT_LO[suit]
        if cards_left == ZERO:
            continue
        count = popcount(cards_left)
        first = count - popcount(cards_left & _FACES_LO)
        winners = relevant & cards_left
        if winners != ZERO:
            lowest_winner = winners & (~winners + ONE)
            first = min(first, popcount(cards_left & (lowest_winner - ONE)))
        span = ((ONE << np.uint64(count)) - ONE) & ~((ONE << np.uint64(first)) - ONE)
        ranks |= span << np.uint64(suit * cards.N_RANKS)
    return ranks


@njit(inline="always")
def _relevant_cards(ranks: np.uint64, u_lo: np.uint64) -> np.uint64:
    """The cards left at the lowest rank of ``ranks`` in each suit (inverse of
    :func:`_relevant_ranks`, as far as it needs to be)."""
    relevant = ZERO
    for suit in range(_N_SUITS):
        block = (ranks >> np.uint64(suit * cards.N_RANKS)) & _SUIT_BLOCK
        if block == ZERO:
            continue
        word = u_lo & SUIT_LO[suit]
        for _ in range(trailing_zeros(block)):
            word &= word - ONE
        relevant |= word & (~word + ONE)
    return relevant


@njit(inline="always")
def _table_store(
    keys: Any,
    entry_left: Any,
    h: np.uint64,
    key: Any,
    players: int,
    bits: int,
    epoch: np.uint64,
    hint: int,
    ranks: np.uint64,
    left: int,
) -> tuple[int, bool]:
    """The entry to keep a node's bounds in, and whether it is new.

    The entry found when the node was entered, if it still holds the position: its bounds
    stay (they hold on fewer positions once it keeps more ranks). Otherwise an entry of the
    bucket: one of an earlier solve, or the one with the fewest cards left.
    """
    lo = _k_lo(players)
    if hint >= 0 and _entry_matches(keys, hint, key, players):
        ranks |= keys[hint, lo - 1]
        keys[hint, lo - 1] = ranks
        for seat in range(players):
            keys[hint, lo + seat] = key[lo + seat] & ranks
        return hint, False
    bucket = int(h >> np.uint64(64 - bits)) & ~(_BUCKET - 1)
    victim = bucket
    for entry in range(bucket, bucket + _BUCKET):
        if keys[entry, _K_LEADER] >> _EPOCH_SHIFT != epoch:
            victim = entry
            break
        if entry_left[entry] < entry_left[victim]:
            victim = entry
    for k in range(_K_HI + players):
        keys[victim, k] = key[k]
    keys[victim, lo - 1] = ranks
    for seat in range(players):
        keys[victim, lo + seat] = key[lo + seat] & ranks
    entry_left[victim] = left
    return victim, True


@njit(inline="always")
def _card_code(card: int, u_lo: np.uint64, u_hi: np.uint64) -> int:
    """``card`` renumbered as in :func:`_boundary_key`: its rank among the cards left."""
    if card < N_SUIT_CARDS:
        suit = card // cards.N_RANKS
        below = u_lo & SUIT_LO[suit] & ((ONE << np.uint64(card)) - ONE)
        return suit * cards.N_RANKS + popcount(below)
    if card == EXCUSE:
        return EXCUSE
    below = u_hi & TRUMPS_HI & ((ONE << np.uint64(card - N_SUIT_CARDS)) - ONE)
    return PETIT + popcount(below)


@njit(inline="always")
def _card_of_code(code: int, u_lo: np.uint64, u_hi: np.uint64) -> int:
    """The card left whose :func:`_card_code` is ``code`` (−1 for none)."""
    if code < 0 or code == EXCUSE:
        return code
    if code < N_SUIT_CARDS:
        offset = 0
        word = u_lo & SUIT_LO[code // cards.N_RANKS]
        skip = code % cards.N_RANKS
    else:
        offset = N_SUIT_CARDS
        word = u_hi & TRUMPS_HI
        skip = code - PETIT
    for _ in range(skip):
        word &= word - ONE
    if word == ZERO:
        return -1
    return offset + trailing_zeros(word)


@njit(inline="always")
def _table_bits(table: Any) -> int:
    """The ``bits`` of a table of ``2 ** bits`` entries."""
    return 64 - leading_zeros(np.uint64(table[1].shape[0])) - 1


@njit(inline="always")
def _table_probe(
    table: Any,
    bits: int,
    hands_lo: Any,
    hands_hi: Any,
    players: int,
    leader: int,
    attack_mask: int,
    epoch: np.uint64,
    key: Any,
    acc: int,
    low: int,
    high: int,
) -> tuple[np.uint64, int, int, int, int, np.uint64]:
    """Look a trick boundary up, its key written into ``key``: the key's hash, the entry found
    (−1 none), the bounds ``low`` and ``high`` narrowed by it (``acc`` taken so far), the card
    it keeps (−1 none) and the cards its ranks stand on (what the bounds rest on)."""
    keys, lower, upper, table_move, _ = table
    h = _boundary_key(hands_lo, hands_hi, players, leader, attack_mask, epoch, key)
    slot = _table_find(keys, h, key, players, bits)
    if slot < 0:
        return h, slot, low, high, -1, ZERO
    low = max(low, lower[slot] + acc)
    high = min(high, upper[slot] + acc)
    u_lo, u_hi = _union(hands_lo, hands_hi, players)
    first_move = _card_of_code(table_move[slot], u_lo, u_hi)
    ranks = keys[slot, _k_lo(players) - 1]
    return h, slot, low, high, first_move, _relevant_cards(ranks, u_lo)


@njit(inline="always")
def _table_keep(
    table: Any,
    bits: int,
    epoch: np.uint64,
    key: Any,
    h: np.uint64,
    hint: int,
    hands_lo: Any,
    hands_hi: Any,
    players: int,
    left: int,
    relevant: np.uint64,
    value: int,
    alpha: int,
    beta: int,
    best_move: int,
) -> np.uint64:
    """Keep what the search of a trick boundary found: ``value`` of the half points still to
    take, searched in the window ``(alpha, beta)`` (fail-soft: at or below the window an upper
    bound, at or above it a lower bound, inside it the exact value), and its best card. The
    entry keeps the ranks ``relevant`` rests on; returns the cards the entry stands on."""
    keys, lower, upper, table_move, entry_left = table
    u_lo, u_hi = _union(hands_lo, hands_hi, players)
    ranks = _relevant_ranks(relevant, u_lo)
    slot, fresh = _table_store(keys, entry_left, h, key, players, bits, epoch, hint, ranks, left)
    if fresh:
        lower[slot] = -INFINITY
        upper[slot] = INFINITY
    if value > alpha:
        lower[slot] = max(lower[slot], value)
    if value < beta:
        upper[slot] = min(upper[slot], value)
    table_move[slot] = -1 if best_move < 0 else _card_code(best_move, u_lo, u_hi)
    return _relevant_cards(keys[slot, _k_lo(players) - 1], u_lo)


class _Table(NamedTuple):
    """The transposition table: ``keys`` (one row per entry, see :func:`_boundary_key`), the
    bounds ``lower`` and ``upper`` of the attack's half points still to take, the best card
    found (``move``, renumbered) and the cards left at the entry (``left``)."""

    keys: npt.NDArray[np.uint64]
    lower: npt.NDArray[np.int64]
    upper: npt.NDArray[np.int64]
    move: npt.NDArray[np.int64]
    left: npt.NDArray[np.int64]


def new_table(players: int, bits: int = TABLE_BITS_MAX) -> _Table:
    """An empty transposition table of ``2 ** bits`` entries for ``players`` seats."""
    entries = 1 << bits
    return _Table(
        np.zeros((entries, _k_lo(players) + players), dtype=np.uint64),
        np.zeros(entries, dtype=np.int64),
        np.zeros(entries, dtype=np.int64),
        np.zeros(entries, dtype=np.int64),
        np.zeros(entries, dtype=np.int64),
    )


_tables = threading.local()


def _table_for(players: int, bits: int) -> tuple[_Table, np.uint64]:
    """This thread's table for ``players`` seats and ``bits``, and a new epoch: the entries
    of earlier solves then count as empty, and the table needs no clearing."""
    cache: dict[tuple[int, int], list[Any]] = _tables.__dict__.setdefault("cache", {})
    if (players, bits) not in cache:
        cache[(players, bits)] = [new_table(players, bits), 0]
    held = cache[(players, bits)]
    held[1] += 1
    return held[0], np.uint64(held[1])
