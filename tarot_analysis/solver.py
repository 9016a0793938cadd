"""Double-dummy solving of card play: every hand visible, best play on both sides.

:func:`solve` gives the exact card points the attack takes in the remaining tricks when the
attack maximises them and the defence minimises them, under a French preset's rules of play
(the engine's own compiled :func:`~tarot_analysis.engine.core.legal_cards`).

Counting, in half points as the engine counts them: the winner of a trick takes its cards;
the Excuse played before the last trick stays with its owner's side (4.5 points), which gives
half a point to the trick's winner when the two sides differ; the Excuse played to the last
trick changes sides or goes to that trick's winner, as the rules say (the engine's own
:func:`~tarot_analysis.engine.core.excuse_last_trick_side`). The chelem's special cases are
left out.

The search is fail-soft alpha-beta over the cards, written with an explicit stack (no
recursion, so numba's cache keeps it), run with null windows from a first guess until the
value is exact (MTD(f)): the guess is the value of one play-out in which every seat plays the
first card of its move ordering. At each trick boundary:

- bounds: the attack keeps what it has taken and takes at most every card left; the side
  holding the highest trump is sure of its trumps above the other side's (all of them when
  the other side has none), and of at least half a point from each of the other side's cards
  in those tricks; the side of the Excuse keeps it, less half a point, with two tricks or
  more to play; the side on lead is sure of its leader's master suit cards as long as no
  other hand can trump them (quick tricks, as bridge solvers count them), and of a trick
  with each of the leader's trumps when its masters can draw every other trump first;
- a transposition table, shared by the searches of one solve, keeps bounds and the best card.
  Its key renumbers the cards by rank among those left, so positions that differ only by which
  cards are gone share an entry; and, as in partition search (Ginsberg's, as bridge solvers
  use it), an entry keeps only the ranks of each suit down to the lowest card that won a trick
  by its rank in the search below it (face cards always): the low cards under them may lie in
  any hand of the same lengths, and the entry still holds.

Moves are ordered: the table's card; cards the other side cannot beat after them, most points
first; to a trick the own side is sure to win, the cards of most points; the cheapest card
that wins for now; then the cards that cost least. Cards of one hand that no card in play
separates (same suit, next in rank, same points) are tried once. The best cards are the root
cards whose null-window search reaches the value; the Petit au bout is read from one principal
variation played out card by card.

>>> from tarot_analysis.game.rules import load_rules
>>> solution = solve(load_rules("fft-4"), ["21 KH", "1 QH", "2 1H", "3 2H"], leader=0, attack={0})
>>> solution.attack_points, solution.best_cards
(19.0, ('21', 'KH'))
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final, NamedTuple

import numpy as np
import numpy.typing as npt
from numba import njit

from tarot_analysis._jit import KERNEL, leading_zeros, popcount, trailing_zeros
from tarot_analysis.engine.cardsets import (
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
    SUIT_LO,
    TRUMP_LED,
    TRUMPS_HI,
    TWENTY_ONE,
    ZERO,
    bit_of,
    half_points_of,
    highest_bit,
    holds,
    lowest,
    size,
    suit_of,
    trumps_above,
)
from tarot_analysis.engine.core import excuse_last_trick_side, legal_cards
from tarot_analysis.engine.params import engine_rules
from tarot_analysis.engine.state import MAX_SEATS
from tarot_analysis.errors import TarotInputError, is_whole_number, seat_number
from tarot_analysis.game import cards
from tarot_analysis.game.rules import Rules

__all__ = [
    "DoubleDummy",
    "SearchInterrupted",
    "SearchStopped",
    "Solution",
    "SolveProgress",
    "best_card",
    "double_dummy",
    "legal_plays",
    "solve",
    "trick_winner",
]

#: Half points of the low card the side owing the Excuse gives the trick's winner (0.5 point).
EXCUSE_COMPENSATION_HALF: Final = 1
#: A value beyond any card points, in half points: the open ends of the search window.
INFINITY: Final = 1 << 20
#: The most cards a hand holds in a French preset (three players, 24 cards).
MAX_MOVES: Final = 32
#: Entries of the transposition table: 2 ** bits, more bits for longer endgames.
TABLE_BITS_MIN: Final = 12
TABLE_BITS_MAX: Final = 18
#: ``root_card`` of :func:`_search` that searches every card at the root; and none given.
ROOT_SEARCH: Final = -2
_NO_ROOT_CARD: Final = -1
#: ``Solution.petit_au_bout``: the side that took the Petit at the last trick.
PETIT_AU_BOUT_ATTACK: Final = 1
PETIT_AU_BOUT_DEFENCE: Final = 0
PETIT_AU_BOUT_NONE: Final = -1

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
#: Positions searched between two pauses of a solve (a few hundredths of a second): between
#: them, the solve checks its time limit, shows its progress and lets Ctrl-C through.
SLICE_NODES: Final = 200_000

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
_TRUMP_STRENGTH = 100  # any trump ranks above any suit card when ordering moves


class _Proved:
    """What a stopped solve had proved: the attack takes between ``low`` and ``high`` card
    points in the remaining tricks (equal once the value is exact, when only the best cards
    were unfinished), after searching ``nodes`` positions."""

    low: float
    high: float
    nodes: int

    def _keep(self, low: float, high: float, nodes: int) -> None:
        self.low, self.high, self.nodes = low, high, nodes

    @property
    def proved(self) -> str:
        """The value as far as it was proved, in words."""
        if self.low == self.high:
            return f"the attack takes {self.low:g} card points (the best cards unfinished)"
        return f"the attack takes between {self.low:g} and {self.high:g} card points"


class SearchStopped(_Proved, RuntimeError):
    """A solve reached its ``max_nodes`` or its ``time_limit`` before it knew all it was
    asked; ``low``, ``high`` and ``nodes`` say what it had proved."""

    def __init__(self, reason: str, low: float, high: float, nodes: int) -> None:
        self._keep(low, high, nodes)
        super().__init__(f"{reason}: {self.proved}")


class SearchInterrupted(_Proved, KeyboardInterrupt):
    """A solve stopped by Ctrl-C (SIGINT); ``low``, ``high`` and ``nodes`` say what it had
    proved."""

    def __init__(self, low: float, high: float, nodes: int) -> None:
        self._keep(low, high, nodes)
        super().__init__(f"interrupted after {nodes:,} positions: {self.proved}")


class SolveProgress(NamedTuple):
    """Where a solve stands, given to its ``progress`` callback between two slices of the
    search: the value proved to lie in ``[low, high]`` card points, ``nodes`` searched."""

    low: float
    high: float
    nodes: int


@dataclass(frozen=True)
class Solution:
    """The value of a position and the cards that keep it.

    ``attack_points``: card points the attack takes in the remaining tricks with best play;
    ``best_cards``: every card of the seat to play that keeps that value, in the notation;
    ``nodes``: positions searched; ``petit_au_bout``: in one principal variation, the side
    that wins the last trick when it holds the Petit (1 attack, 0 defence, −1 none).
    """

    attack_points: float
    best_cards: tuple[str, ...]
    nodes: int
    petit_au_bout: int = PETIT_AU_BOUT_NONE


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
def _sure_half_points(
    hands_hi: Any, players: int, attack_mask: int, half_points: Any, least: int
) -> tuple[int, int]:
    """Half points each side is sure to take at a trick boundary: ``(attack, defence)``.

    The side holding the highest trump left wins every trick in which it plays one of its
    trumps above all the other side's: those trumps, and at least ``least`` half points
    from each card of the other side in those tricks (an Excuse among them owes half a
    point, ``least`` no more than that).
    One seat plays one card a trick, so those tricks are at least as many as the most such
    trumps in one of the side's hands.
    """
    attack_trumps = ZERO
    defence_trumps = ZERO
    for seat in range(players):
        if (attack_mask >> seat) & 1 == 1:
            attack_trumps |= hands_hi[seat] & TRUMPS_HI
        else:
            defence_trumps |= hands_hi[seat] & TRUMPS_HI
    if attack_trumps == defence_trumps:
        return 0, 0  # no trump left
    attacking = attack_trumps > defence_trumps
    other = defence_trumps if attacking else attack_trumps
    # With no trump on the other side, every trump of the side wins the trick it falls in.
    above = ~ZERO if other == ZERO else ~((ONE << np.uint64(highest_bit(other) + 1)) - ONE)
    masters = (attack_trumps if attacking else defence_trumps) & above
    tricks = 0
    others = 0
    for seat in range(players):
        if ((attack_mask >> seat) & 1 == 1) == attacking:
            tricks = max(tricks, popcount(hands_hi[seat] & masters))
        else:
            others += 1
    sure = half_points_of(ZERO, masters, half_points) + tricks * others * least
    if attacking:
        return sure, 0
    return 0, sure


@njit(inline="always")
def _excuse_kept(hands_hi: Any, players: int, attack_mask: int, half_points: Any, left: int) -> int:
    """Half points the side holding the Excuse is sure to keep from it at a trick boundary
    with two tricks or more to play, positive for the attack, negative for the defence: its
    seat may play it to any trick before the last, and it stays with the side, less the half
    point owed when the other side wins that trick. Nothing with one trick left (it may
    change sides then) or no Excuse in the hands.

    The trumps' sure tricks (:func:`_sure_half_points`) count only the other side's cards,
    so the two add up.
    """
    if left < 2 * players:
        return 0
    for seat in range(players):
        if hands_hi[seat] & EXCUSE_HI != ZERO:
            kept = max(0, half_points[EXCUSE] - EXCUSE_COMPENSATION_HALF)
            return kept if (attack_mask >> seat) & 1 == 1 else -kept
    return 0


@njit(inline="always")
def _quick_half_points(
    hands_lo: Any,
    hands_hi: Any,
    players: int,
    leader: int,
    attack_mask: int,
    half_points: Any,
    least: int,
) -> tuple[int, np.uint64, int]:
    """Half points the leader's side is sure to take at a trick boundary from the leader's
    master suit cards, cashed one after the other while it keeps the lead; those masters,
    whose ranks the bound depends on (a table entry must keep them); and what it is sure to
    take from the leader's trumps once every other trump is drawn (0 when they cannot be).

    In a suit, the leader's cards from the top down to the first card another hand holds are
    masters. Each wins its round as long as no other hand can trump it: a hand holding
    trumps follows that many rounds only while it has cards of the suit (a partner's trump
    too is counted out, since it may be a trump the trump bound already counts), unless the
    leader can first draw every other trump with trumps above them all (tricks the trump
    bound counts). Those rounds bring their masters' points and at least ``least`` half
    points from each card of the other side, as in :func:`_sure_half_points`; they use suit
    cards only, so they are other tricks than the trumps' there. The leader must be free to
    lead: not at the root of a search whose first card is imposed.

    When the leader can draw every other trump so, each of its trumps wins a trick: the
    masters first, then the others, which no hand can beat any more. Those tricks bring the
    leader's trumps and at least ``least`` half points from each card of the other side: a
    bound on the trumps' tricks to take instead of :func:`_sure_half_points`', not besides.
    """
    side = (attack_mask >> leader) & 1
    others = 0
    for seat in range(players):
        if (attack_mask >> seat) & 1 != side:
            others += 1
    # Trumps drawn first: the leader's trumps above every other hand's, when there are as
    # many as the most trumps another hand holds, leave no trump to the others.
    others_trumps = ZERO
    longest = 0
    for seat in range(players):
        if seat != leader:
            others_trumps |= hands_hi[seat] & TRUMPS_HI
            # The Excuse counts: played to a round of trumps, it keeps a trump back.
            longest = max(longest, popcount(hands_hi[seat]))
    drawn = others_trumps == ZERO
    if not drawn:
        above = ~((ONE << np.uint64(highest_bit(others_trumps) + 1)) - ONE)
        drawn = popcount(hands_hi[leader] & TRUMPS_HI & above) >= longest
    mine_lo = hands_lo[leader]
    sure = 0
    used = ZERO
    for s in range(_N_SUITS):
        mine = mine_lo & SUIT_LO[s]
        if mine == ZERO:
            continue
        rounds = popcount(mine)
        everyone = ZERO
        for seat in range(players):
            held = hands_lo[seat] & SUIT_LO[s]
            everyone |= held
            if not drawn and seat != leader and hands_hi[seat] & TRUMPS_HI != ZERO:
                rounds = min(rounds, popcount(held))
        while rounds > 0 and everyone != ZERO:
            top = highest_bit(everyone)
            bit = ONE << np.uint64(top)
            if mine & bit == ZERO:
                break
            sure += half_points[top] + others * least
            used |= bit
            everyone &= ~bit
            rounds -= 1
    trumps_sure = 0
    if drawn:
        trumps = hands_hi[leader] & TRUMPS_HI
        trumps_sure = half_points_of(ZERO, trumps, half_points) + popcount(trumps) * others * least
    return sure, used, trumps_sure


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
    winner_strength = -2
    side_sure = False
    if pos > 0:
        winning = _winner_offset(path, start, pos)
        winner_card = path[start + winning]
        winner_strength = _strength(winner_card, led)
        winner_seat = (leader + winning) % players
        if ((attack_mask >> winner_seat) & 1 == 1) == is_max:
            side_sure = not _opponent_can_beat(
                hands_lo,
                hands_hi,
                leader,
                pos,
                players,
                attack_mask,
                is_max,
                winner_card,
                led,
                top,
            )
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
    for k in range(n_moves):
        card = moves[d, k]
        card_led = led if led != NOT_LED else suit_of(card)
        strength = _strength(card, card_led)
        card_top = top
        if card > EXCUSE and card - EXCUSE > card_top:
            card_top = card - EXCUSE
        cost = EXCUSE_COMPENSATION_HALF if card == EXCUSE else half_points[card]
        if card == first_move:
            key = 6 * INFINITY
        elif side_sure:
            key = 4 * INFINITY + 64 * half_points[card] - strength
        elif strength > winner_strength and not _opponent_can_beat(
            hands_lo,
            hands_hi,
            leader,
            pos,
            players,
            attack_mask,
            is_max,
            card,
            card_led,
            card_top,
        ):
            key = 5 * INFINITY + 64 * half_points[card] - strength
        elif strength > winner_strength and pos > 0:
            key = 3 * INFINITY - 64 * cost - strength
        else:
            key = INFINITY - 64 * cost - strength
        j = k
        while j > 0 and move_keys[d, j - 1] < key:
            move_keys[d, j] = move_keys[d, j - 1]
            moves[d, j] = moves[d, j - 1]
            j -= 1
        move_keys[d, j] = key
        moves[d, j] = card
    return n_moves


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
    (see :class:`_Table`); its entries of another ``epoch`` count as empty, and one epoch
    keeps one ``half_points``, ``p`` and ``petit_bonus``. ``relevant[d, 0]`` gathers the
    suit cards that won a trick by rank in the search below depth ``d`` (what the table's
    entries must match on); ``relevant[d, 1]`` is the card that won the trick the card tried
    at depth ``d`` ended. ``counters``: positions searched so far, and a limit (0: none)
    past which the search gives the cards back and returns ``_STOPPED``; a count (0: none)
    past which it returns ``_PAUSED`` with its stack, hands and path as they are, and the
    depth to resume at: called again with the same arrays (and a later pause), it goes on.
    """
    keys, lower, upper, table_move, entry_left = table
    bits = 64 - leading_zeros(np.uint64(lower.shape[0])) - 1
    least = EXCUSE_COMPENSATION_HALF  # the least a card brings to the side winning its trick
    for card in range(cards.N_CARDS):
        if card != EXCUSE:
            least = max(0, min(least, half_points[card]))
    d = 0
    if counters[_RESUME] > 0:
        # A paused search: everything it needs is in the arrays; enter the node it paused at.
        d = counters[_RESUME] - 1
        counters[_RESUME] = 0
    else:
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
    result = 0
    result_relevant = ZERO
    entering = True
    child_value = False
    while True:
        if entering:
            entering = False
            child_value = False
            counters[_NODES] += 1
            if counters[_NODE_LIMIT] > 0 and counters[_NODES] > counters[_NODE_LIMIT]:
                # Out of budget: give every card tried on the stack back, and stop.
                counters[_NODES] -= 1  # this one is not searched
                for k in range(d):
                    card_lo, card_hi = bit_of(frames[k, _CARD])
                    hands_lo[frames[k, _SEAT]] |= card_lo
                    hands_hi[frames[k, _SEAT]] |= card_hi
                return _STOPPED
            if counters[_PAUSE_AT] > 0 and counters[_NODES] > counters[_PAUSE_AT]:
                # A pause: this node is entered (and counted) again on resuming.
                counters[_NODES] -= 1
                counters[_RESUME] = d + 1
                return _PAUSED
            pos = frames[d, _POS]
            node_leader = frames[d, _LEADER]
            acc = frames[d, _ACC]
            a = frames[d, _ALPHA]
            b = frames[d, _BETA]
            resolved = False
            first_move = -1
            frames[d, _SLOT] = -1
            relevant[d, 0] = ZERO
            store = pos == 0 and not (d == 0 and root_card != _NO_ROOT_CARD)
            start = trick_len + d - pos
            # What the Petit at the last trick may still add or take off.
            swing = 0
            if petit_bonus != 0 and _petit_live(hands_hi, players, path, start, pos):
                swing = petit_bonus
            if frames[d, _LEFT] == 0:
                result = acc
                resolved = True
            elif d == 0 and root_card == ROOT_SEARCH:
                pass
            elif pos == 0 and frames[d, _LEFT] == players:
                # The last trick: one card in each hand, nothing to choose.
                for k in range(players):
                    seat = (node_leader + k) % players
                    path[start + k] = lowest(hands_lo[seat], hands_hi[seat])
                offset = _winner_offset(path, start, players)
                winner = (node_leader + offset) % players
                result = acc + _trick_half_points(
                    path, start, players, node_leader, winner, attack_mask, True, half_points, p
                )
                result += _petit_at_last(path, start, players, winner, attack_mask, petit_bonus)
                relevant[d, 0] = _won_by_rank(path, start, players, offset)
                resolved = True
            elif pos > 0:
                # Inside a trick: the attack keeps what it has, and takes at most every card
                # still in the hands and in the trick.
                high = acc + frames[d, _REST] + swing
                for k in range(pos):
                    high += half_points[path[start + k]]
                if acc - swing >= b:
                    result = acc - swing
                    resolved = True
                elif high <= a:
                    result = high
                    resolved = True
            else:
                sure_attack, sure_defence = _sure_half_points(
                    hands_hi, players, attack_mask, half_points, least
                )
                # The Excuse kept adds to the trumps' tricks, not to the quick tricks below
                # (cashed one after the other, they may leave it only the last trick); its
                # seat must be free to play it, as for the quick tricks.
                kept = 0
                if d > 0 or root_card < 0:
                    left = frames[d, _LEFT]
                    kept = _excuse_kept(hands_hi, players, attack_mask, half_points, left)
                low = acc + sure_attack + max(kept, 0) - swing
                high = acc + frames[d, _REST] - sure_defence - max(-kept, 0) + swing
                if store and low < b and high > a:
                    h = _boundary_key(
                        hands_lo, hands_hi, players, node_leader, attack_mask, epoch, node_keys[d]
                    )
                    node_hashes[d] = h
                    slot = _table_find(keys, h, node_keys[d], players, bits)
                    frames[d, _SLOT] = slot
                    if slot >= 0:
                        low = max(low, lower[slot] + acc)
                        high = min(high, upper[slot] + acc)
                        u_lo, u_hi = _union(hands_lo, hands_hi, players)
                        first_move = _card_of_code(table_move[slot], u_lo, u_hi)
                        ranks = keys[slot, _k_lo(players) - 1]
                        relevant[d, 0] = _relevant_cards(ranks, u_lo)
                # The quick tricks, when the window is still open and the leader free to lead.
                if low < b and high > a and low != high and (d > 0 or root_card < 0):
                    quick, masters, trumps_sure = _quick_half_points(
                        hands_lo, hands_hi, players, node_leader, attack_mask, half_points, least
                    )
                    if (attack_mask >> node_leader) & 1 == 1:
                        quick_low = acc + max(sure_attack, trumps_sure) + quick - swing
                        if quick_low > low:
                            low = quick_low
                            relevant[d, 0] |= masters  # what the bound rests on
                    else:
                        sure = max(sure_defence, trumps_sure)
                        quick_high = acc + frames[d, _REST] - sure - quick + swing
                        if quick_high < high:
                            high = quick_high
                            relevant[d, 0] |= masters
                if low >= b or low == high:
                    result = low
                    resolved = True
                elif high <= a:
                    result = high
                    resolved = True
                else:
                    a = max(a, low)
                    b = min(b, high)
            if resolved:
                if d == 0:
                    return result
                result_relevant = relevant[d, 0]
                d -= 1
                child_value = True
            else:
                frames[d, _ALPHA] = a
                frames[d, _BETA] = b
                frames[d, _ALPHA0] = a
                frames[d, _BETA0] = b
                frames[d, _STORE] = 1 if store else 0
                seat = (node_leader + pos) % players
                frames[d, _SEAT] = seat
                is_max = (attack_mask >> seat) & 1 == 1
                frames[d, _IS_MAX] = 1 if is_max else 0
                frames[d, _BEST] = -INFINITY if is_max else INFINITY
                frames[d, _BEST_MOVE] = -1
                frames[d, _NEXT] = 0
                if d == 0 and root_card >= 0:
                    moves[d, 0] = root_card
                    frames[d, _N_MOVES] = 1
                else:
                    frames[d, _N_MOVES] = _ordered_moves(
                        hands_lo,
                        hands_hi,
                        path,
                        start,
                        pos,
                        node_leader,
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
        if child_value:
            # The value of the card tried at frame d came back: take it back, keep the best.
            card = frames[d, _CARD]
            seat = frames[d, _SEAT]
            card_lo, card_hi = bit_of(card)
            hands_lo[seat] |= card_lo
            hands_hi[seat] |= card_hi
            relevant[d, 0] |= result_relevant | relevant[d, 1]
            if frames[d, _IS_MAX] == 1:
                if result > frames[d, _BEST]:
                    frames[d, _BEST] = result
                    frames[d, _BEST_MOVE] = card
                    frames[d, _ALPHA] = max(frames[d, _ALPHA], result)
            elif result < frames[d, _BEST]:
                frames[d, _BEST] = result
                frames[d, _BEST_MOVE] = card
                frames[d, _BETA] = min(frames[d, _BETA], result)
        if frames[d, _ALPHA] < frames[d, _BETA] and frames[d, _NEXT] < frames[d, _N_MOVES]:
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
            else:
                start = trick_len + d + 1 - players
                trick_leader = frames[d, _LEADER]
                offset = _winner_offset(path, start, players)
                relevant[d, 1] = _won_by_rank(path, start, players, offset)
                winner = (trick_leader + offset) % players
                gained = _trick_half_points(
                    path,
                    start,
                    players,
                    trick_leader,
                    winner,
                    attack_mask,
                    frames[child, _LEFT] == 0,
                    half_points,
                    p,
                )
                if frames[child, _LEFT] == 0:
                    gained += _petit_at_last(path, start, players, winner, attack_mask, petit_bonus)
                frames[child, _POS] = 0
                frames[child, _LEADER] = winner
                frames[child, _ACC] = frames[d, _ACC] + gained
            d = child
            entering = True
            continue
        # Every card tried, or a cut: keep the bounds at a trick boundary, return the value.
        best = frames[d, _BEST]
        result_relevant = relevant[d, 0]
        if frames[d, _STORE] == 1:
            key = node_keys[d]
            u_lo, u_hi = _union(hands_lo, hands_hi, players)
            ranks = _relevant_ranks(result_relevant, u_lo)
            slot, fresh = _table_store(
                keys,
                entry_left,
                node_hashes[d],
                key,
                players,
                bits,
                epoch,
                frames[d, _SLOT],
                ranks,
                frames[d, _LEFT],
            )
            if fresh:
                lower[slot] = -INFINITY
                upper[slot] = INFINITY
            result_relevant = _relevant_cards(keys[slot, _k_lo(players) - 1], u_lo)
            # Fail-soft: at or below the window an upper bound, at or above it a lower bound,
            # inside it the exact value.
            relative = best - frames[d, _ACC]
            if best > frames[d, _ALPHA0]:
                lower[slot] = max(lower[slot], relative)
            if best < frames[d, _BETA0]:
                upper[slot] = min(upper[slot], relative)
            best_move = frames[d, _BEST_MOVE]
            table_move[slot] = -1 if best_move < 0 else _card_code(best_move, u_lo, u_hi)
        result = best
        if d == 0:
            return result
        d -= 1
        child_value = True


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


@njit(cache=True)
def double_dummy(players: int, bits: int) -> DoubleDummy:
    """Arrays for searches of ``players`` seats with a table of ``2 ** bits`` entries."""
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


def _card_of(token: str | int, where: str) -> int:
    """The card id of one card written in the notation or given as an id."""
    if isinstance(token, str):
        try:
            parsed = cards.parse_cards(token)
        except TarotInputError as error:
            raise TarotInputError(f"{where}: {error}") from None
        if len(parsed) != 1:
            raise TarotInputError(f"{where}: one card expected, got {token!r}")
        return parsed[0]
    if not is_whole_number(token):
        raise TarotInputError(f"{where}: a card is a notation string or an id, got {token!r}")
    if not 0 <= int(token) < cards.N_CARDS:
        raise TarotInputError(f"{where}: there is no card id {token} (ids are 0..77)")
    return int(token)


def _hand_of(hand: str | Iterable[str | int], seat: int) -> tuple[int, ...]:
    """The card ids of one seat's hand."""
    try:
        if isinstance(hand, str):
            return cards.parse_cards(hand)
        return tuple(_card_of(card, f"card {k + 1}") for k, card in enumerate(hand))
    except TarotInputError as error:
        raise TarotInputError(f"seat {seat}: {error}") from None


@dataclass
class _Position:
    """A checked position, as the kernel takes it."""

    hands_lo: npt.NDArray[np.uint64]
    hands_hi: npt.NDArray[np.uint64]
    path: npt.NDArray[np.int64]
    trick_len: int
    leader: int
    attack_mask: int
    players: int
    to_play: int
    cards_left: int


def _position(
    rules: Rules,
    hands: Sequence[str | Iterable[str | int]],
    leader: object,
    attack: Iterable[object],
    trick: Sequence[str | int],
) -> _Position:
    """Check the input of :func:`solve` and build the kernel's arrays."""
    if rules.tarocco is not None:
        raise TarotInputError(f"the solver plays French Tarot only, not {rules.name}")
    if engine_rules(rules).half_points.min() < 0:
        raise TarotInputError(f"the solver needs card points of 0 or more; {rules.name} has less")
    players = rules.players
    if isinstance(hands, str) or len(hands) != players:
        raise TarotInputError(f"{rules.name} needs {players} hands, one per seat")
    held = [_hand_of(hand, seat) for seat, hand in enumerate(hands)]
    first = seat_number(leader, players, "leader")
    attack_seats = [seat_number(seat, players, "an attack seat") for seat in attack]
    if not attack_seats:
        raise TarotInputError("the attack needs at least one seat")
    if len(trick) >= players:
        raise TarotInputError(
            f"a trick in progress holds at most {players - 1} cards, got {len(trick)}"
        )
    played = [_card_of(card, f"trick card {k + 1}") for k, card in enumerate(trick)]
    cards.check_each_once([*((f"seat {s}", h) for s, h in enumerate(held)), ("the trick", played)])
    already = {(first + k) % players for k in range(len(played))}
    tricks_left = len(held[(first + len(played)) % players])
    for seat, hand in enumerate(held):
        expected = tricks_left - 1 if seat in already else tricks_left
        if len(hand) != expected:
            raise TarotInputError(
                f"seat {seat} holds {len(hand)} cards, {expected} expected: hands must be of "
                f"one length, one card shorter for the seats that played to the trick"
            )
    if tricks_left == 0:
        raise TarotInputError("no card is left to play")
    _check_trick(rules, held, first, played)
    hands_lo = np.zeros(players, dtype=np.uint64)
    hands_hi = np.zeros(players, dtype=np.uint64)
    for seat, hand in enumerate(held):
        lo, hi = cards.to_mask(hand)
        hands_lo[seat] = lo
        hands_hi[seat] = hi
    path = np.zeros(cards.N_CARDS + players, dtype=np.int64)
    path[: len(played)] = played
    attack_mask = sum(1 << seat for seat in set(attack_seats))
    to_play = (first + len(played)) % players
    cards_left = sum(len(hand) for hand in held)
    return _Position(
        hands_lo, hands_hi, path, len(played), first, attack_mask, players, to_play, cards_left
    )


def _check_trick(rules: Rules, held: list[tuple[int, ...]], leader: int, played: list[int]) -> None:
    """Refuse a trick its seats could not have played: each card after the lead must be one
    that its seat, holding its hand and that card, could play (it follows suit, trumps,
    overtrumps when it can)."""
    for k in range(1, len(played)):
        seat = (leader + k) % rules.players
        legal = legal_plays(rules, [*held[seat], played[k]], played[:k])
        if played[k] not in legal:
            raise TarotInputError(
                f"the trick is impossible: seat {seat} played {cards.card_name(played[k])} to "
                f"{' '.join(cards.card_name(card) for card in played[:k])} holding "
                f"{cards.format_cards(held[seat])}; "
                f"it had to play one of {cards.format_cards(legal)}"
            )


def legal_plays(rules: Rules, hand: Iterable[int], trick: Sequence[int]) -> list[int]:
    """The cards of ``hand`` (ids) that may be played to ``trick`` (ids, in play order).

    >>> from tarot_analysis.game.rules import load_rules
    >>> hand = cards.parse_cards("KH 2H 5 E")
    >>> queen_led = list(cards.parse_cards("QH"))
    >>> [cards.card_name(c) for c in legal_plays(load_rules("fft-4"), hand, queen_led)]
    ['2H', 'KH', 'E']
    """
    lo, hi = cards.to_mask(hand)
    played = [_card_of(card, f"trick card {k + 1}") for k, card in enumerate(trick)]
    if len(played) >= rules.players:
        raise TarotInputError(
            f"a trick in progress holds at most {rules.players - 1} cards, got {len(played)}"
        )
    path = np.asarray(played or [0], dtype=np.int64)
    led, top = _led_and_top_py(path, len(played))
    params = engine_rules(rules).params
    legal_lo, legal_hi = legal_cards(np.uint64(lo), np.uint64(hi), led, top, ZERO, False, params)
    return cards.from_mask(int(legal_lo), int(legal_hi))


@njit(**KERNEL)
def _led_and_top_py(path: Any, count: int) -> tuple[int, int]:
    """:func:`_led_and_top` for Python callers."""
    return _led_and_top(path, 0, count)


def _run_representative(
    card: int, legal: set[int], in_play: set[int], half_points: npt.NDArray[np.int64]
) -> int:
    """The lowest card of ``card``'s run: the legal cards below it in its suit (trumps for a
    trump), with no other card in play between them, of the same points."""
    if card == cards.EXCUSE:
        return card
    first = card - card % cards.N_RANKS if card < cards.N_SUIT_CARDS else cards.PETIT
    for lower in range(card - 1, first - 1, -1):
        if lower not in in_play:
            continue
        if lower not in legal or half_points[lower] != half_points[card]:
            break
        card = lower
    return card


def _mtdf(search: Callable[[int, int, int], int], bounds: list[int], guess: int) -> int:
    """The exact value, known to lie in ``bounds`` (``[low, high]``), by null-window searches
    from a first guess (MTD(f), Plaat's).

    Each search tells whether the value reaches a bound at the latest guess; its fail-soft
    answer moves an end, and is the next guess. Searches that keep moving the same end
    double their step beyond the answer, so that a guess far from the value costs few
    searches. The table keeps what earlier searches learnt. ``bounds`` is narrowed in place:
    when a search stops, it holds what was proved.
    """
    g = min(max(guess, bounds[0]), bounds[1])
    step = 1
    direction = 0
    while bounds[0] < bounds[1]:
        beta = g + 1 if g == bounds[0] else g
        found = search(-1, beta - 1, beta)
        moved = 1 if found >= beta else -1
        if moved == 1:
            bounds[0] = min(max(bounds[0], found), bounds[1])
        else:
            bounds[1] = max(min(bounds[1], found), bounds[0])
        step = 2 * step if moved == direction else 1
        direction = moved
        g = min(max(found + moved * (step - 1), bounds[0]), bounds[1])
    return bounds[0]


def _budget(max_nodes: object, time_limit: object) -> tuple[int, float | None]:
    """The node limit (0: none) and the time limit of a solve, checked."""
    limit = 0
    if max_nodes is not None:
        if not is_whole_number(max_nodes):
            raise TarotInputError(f"max_nodes must be a whole number, got {max_nodes!r}")
        if max_nodes < 1:
            raise TarotInputError(f"max_nodes must be at least 1, got {max_nodes}")
        limit = int(max_nodes)
    if time_limit is None:
        return limit, None
    if isinstance(time_limit, bool) or not isinstance(time_limit, int | float | np.number):
        raise TarotInputError(f"time_limit must be a number of seconds, got {time_limit!r}")
    if not 0 < float(time_limit) < float("inf"):
        raise TarotInputError(f"time_limit must be a positive number of seconds, got {time_limit}")
    return limit, float(time_limit)


def solve(
    rules: Rules,
    hands: Sequence[str | Iterable[str | int]],
    *,
    leader: int,
    attack: Iterable[int],
    trick: Sequence[str | int] = (),
    max_nodes: int | None = None,
    time_limit: float | None = None,
    progress: Callable[[SolveProgress], None] | None = None,
    best_cards: bool = True,
) -> Solution:
    """The card points the attack takes in the remaining tricks with best play on both sides.

    ``hands``: one hand per seat, in the notation (or card ids), of equal lengths at a trick
    boundary; ``trick``: the cards already played to the current trick by the seats from
    ``leader`` on, whose hands are one card shorter (each card must be one its seat could
    play, holding its hand and that card). ``attack``: the seats of the attack.
    Every card is visible to every seat (double dummy); the attack maximises its card points,
    the defence minimises them.

    The search runs in slices of :data:`SLICE_NODES` positions. ``max_nodes`` (positions, the
    whole solve: value, best cards and Petit au bout) and ``time_limit`` (seconds) bound it:
    past either, it raises :class:`SearchStopped`, and on Ctrl-C :class:`SearchInterrupted`;
    both hold the interval of the value proved so far (``low``, ``high``). ``progress``, when
    given, is called between slices with a :class:`SolveProgress`. With ``best_cards``
    false, only the value is searched: the solution's ``best_cards`` is empty and its
    ``petit_au_bout`` −1.

    >>> from tarot_analysis.game.rules import load_rules
    >>> rules = load_rules("fft-3")
    >>> solve(rules, ["KS 1S", "3S", "QS 4S"], leader=1, attack=[0], trick=["2S"])
    Solution(attack_points=8.5, best_cards=('QS', '4S'), nodes=..., petit_au_bout=-1)
    """
    node_limit, seconds = _budget(max_nodes, time_limit)
    position = _position(rules, hands, leader, attack, trick)
    tables = engine_rules(rules)
    players = position.players
    left = position.cards_left
    tricks_left = -(-(left + position.trick_len) // players)
    bits = min(TABLE_BITS_MAX, TABLE_BITS_MIN + tricks_left)
    table, epoch = _table_for(players, bits)
    depth = left + 1
    frames = np.zeros((depth, _N_FIELDS), dtype=np.int64)
    moves = np.zeros((depth, MAX_MOVES), dtype=np.int64)
    move_keys = np.zeros((depth, MAX_MOVES), dtype=np.int64)
    node_keys = np.zeros((depth, _k_lo(players) + players), dtype=np.uint64)
    node_hashes = np.zeros(depth, dtype=np.uint64)
    relevant = np.zeros((depth, 2), dtype=np.uint64)
    counters = np.zeros(_N_COUNTERS, dtype=np.int64)
    counters[_NODE_LIMIT] = node_limit
    # The attack takes at least nothing and at most every card still in play.
    in_play = [int(card) for card in position.path[: position.trick_len]]
    for lo, hi in zip(position.hands_lo, position.hands_hi, strict=True):
        in_play += cards.from_mask(int(lo), int(hi))
    bounds = [0, int(tables.half_points[in_play].sum())]
    deadline = None if seconds is None else time.monotonic() + seconds

    def stop(reason: str) -> SearchStopped:
        return SearchStopped(reason, bounds[0] / 2, bounds[1] / 2, int(counters[_NODES]))

    def search(root_card: int, alpha: int, beta: int, at: _Position = position) -> int:
        counters[_RESUME] = 0
        while True:
            counters[_PAUSE_AT] = counters[_NODES] + SLICE_NODES
            value = int(
                _search(
                    at.hands_lo,
                    at.hands_hi,
                    at.path,
                    at.trick_len,
                    at.leader,
                    at.attack_mask,
                    players,
                    root_card,
                    alpha,
                    beta,
                    0,
                    tables.half_points,
                    tables.params,
                    table,
                    epoch,
                    frames,
                    moves,
                    move_keys,
                    node_keys,
                    node_hashes,
                    relevant,
                    counters,
                )
            )
            if value == _STOPPED:
                raise stop(f"the search stopped after {node_limit:,} positions")
            if value != _PAUSED:
                return value
            if deadline is not None and time.monotonic() >= deadline:
                raise stop(f"the search stopped at its time limit of {seconds:g} s")
            if progress is not None:
                progress(SolveProgress(bounds[0] / 2, bounds[1] / 2, int(counters[_NODES])))

    try:
        guess = _playout(
            position.hands_lo,
            position.hands_hi,
            position.path,
            position.trick_len,
            position.leader,
            position.attack_mask,
            players,
            0,
            tables.half_points,
            tables.params,
            frames,
            moves,
            move_keys,
        )
        value = _mtdf(search, bounds, int(guess))
        if not best_cards:
            return Solution(attack_points=value / 2, best_cards=(), nodes=int(counters[_NODES]))
        return _solution(rules, position, search, value, in_play, counters)
    except KeyboardInterrupt:
        raise SearchInterrupted(bounds[0] / 2, bounds[1] / 2, int(counters[_NODES])) from None


def _solution(
    rules: Rules,
    position: _Position,
    search: Callable[..., int],
    value: int,
    in_play: list[int],
    counters: npt.NDArray[np.int64],
) -> Solution:
    """The solution of ``position``, whose value is ``value``: its best cards and Petit au
    bout by ``search``."""
    tables = engine_rules(rules)
    seat = position.to_play
    hand = cards.from_mask(int(position.hands_lo[seat]), int(position.hands_hi[seat]))
    candidates = legal_plays(rules, hand, list(position.path[: position.trick_len]))
    maximising = bool((position.attack_mask >> seat) & 1)

    # Cards of one run (see _ordered_moves) are worth the same: one search answers for all.
    run_keeps_value: dict[int, bool] = {}
    best = []
    for card in candidates:
        run = _run_representative(card, set(candidates), set(in_play), tables.half_points)
        if run not in run_keeps_value:
            only = len(candidates) == 1
            run_keeps_value[run] = only or _keeps(search, run, value, maximising, position)
        if run_keeps_value[run]:
            best.append(card)
    petit_au_bout = PETIT_AU_BOUT_NONE
    if cards.PETIT in in_play:
        petit_au_bout = _principal_petit_au_bout(rules, position, value, search)
    return Solution(
        attack_points=value / 2,
        best_cards=tuple(cards.card_name(card) for card in cards.display_sorted(best)),
        nodes=int(counters[_NODES]),
        petit_au_bout=petit_au_bout,
    )


def _keeps(
    search: Callable[[int, int, int, _Position], int],
    card: int,
    value: int,
    attacking: bool,
    at: _Position,
) -> bool:
    """Whether playing ``card`` in ``at``, whose value is ``value``, keeps that value."""
    if attacking:
        return search(card, value - 1, value, at) >= value
    return search(card, value, value + 1, at) <= value


def _principal_petit_au_bout(
    rules: Rules,
    position: _Position,
    value: int,
    search: Callable[[int, int, int, _Position], int],
) -> int:
    """Play out one principal variation (at each turn the first legal card that keeps the
    value) and tell which side wins the last trick if the Petit is in it."""
    players = position.players
    at = replace(
        position,
        hands_lo=position.hands_lo.copy(),
        hands_hi=position.hands_hi.copy(),
        path=position.path.copy(),
    )
    tables = engine_rules(rules)
    half_points = tables.half_points
    trick = [int(card) for card in at.path[: at.trick_len]]
    remaining = value
    while True:
        seat = (at.leader + len(trick)) % players
        hand = cards.from_mask(int(at.hands_lo[seat]), int(at.hands_hi[seat]))
        legal = legal_plays(rules, hand, trick)
        attacking = bool((at.attack_mask >> seat) & 1)

        chosen = legal[0]
        if len(legal) > 1:
            chosen = next(c for c in legal if _keeps(search, c, remaining, attacking, at))
        lo, hi = cards.to_mask([chosen])
        at.hands_lo[seat] &= ~np.uint64(lo)
        at.hands_hi[seat] &= ~np.uint64(hi)
        at.cards_left -= 1
        trick.append(chosen)
        if len(trick) < players:
            at.path[: len(trick)] = trick
            at.trick_len = len(trick)
            continue
        winner = (at.leader + trick_winner(trick)) % players
        if cards.PETIT in trick or at.cards_left == 0:
            if cards.PETIT not in trick or at.cards_left > 0:
                return PETIT_AU_BOUT_NONE
            return PETIT_AU_BOUT_ATTACK if (at.attack_mask >> winner) & 1 else PETIT_AU_BOUT_DEFENCE
        remaining -= int(
            _trick_half_points_py(
                np.asarray(trick, dtype=np.int64),
                players,
                at.leader,
                winner,
                at.attack_mask,
                half_points,
                tables.params,
            )
        )
        at.leader = winner
        at.path[:] = 0
        trick = []
        at.trick_len = 0


def trick_winner(trick: Sequence[int]) -> int:
    """The index in ``trick`` (card ids in play order, at least one) of the card winning it.

    >>> trick_winner(cards.parse_cards("QH KH 2 1H"))
    2
    """
    if not trick:
        raise TarotInputError("an empty trick has no winner")
    played = [_card_of(card, f"trick card {k + 1}") for k, card in enumerate(trick)]
    if len(played) > MAX_SEATS or len(set(played)) < len(played):
        raise TarotInputError(
            f"a trick holds different cards, one per seat (at most {MAX_SEATS}), got "
            f"{' '.join(cards.card_name(card) for card in played)}"
        )
    path = np.asarray(played, dtype=np.int64)
    return int(_winner_offset_py(path, len(trick)))


@njit(**KERNEL)
def _winner_offset_py(path: Any, count: int) -> int:
    """:func:`_winner_offset` for Python callers."""
    return _winner_offset(path, 0, count)


@njit(**KERNEL)
def _trick_half_points_py(
    trick: Any, players: int, leader: int, winner: int, attack_mask: int, half_points: Any, p: Any
) -> int:
    """:func:`_trick_half_points` of a trick before the last, for Python callers."""
    return _trick_half_points(trick, 0, players, leader, winner, attack_mask, False, half_points, p)
