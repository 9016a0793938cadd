"""The dealer: millions of uniformly random deals per second, as bitmasks.

A deal is an array of shape ``(groups, 2)`` of uint64: one row per seat, then one for the dog
(the cards left over: the dog in French presets, the dealer's six extra cards in Tarocco). Row
``(lo, hi)`` holds suit cards in ``lo`` at bit ``card id`` and the Excuse and trumps in ``hi`` at
bit ``card id − 56`` (see :mod:`tarot_analysis.game.cards`).

Every deal is equally likely. The kernel takes the cards one by one in a fixed order and
gives each to a seat or the dog with probability (places left there) / (cards left), drawn as
an exactly uniform integer; the cards left always fill the places left, and each way of
splitting the pack into hands and dog comes out with the same probability (one over the
multinomial coefficient). Packets of 3 or 4 and the rule that a dog card is never the top or
bottom card of the pack only change *which* positions of a shuffled pack reach each hand; with
a uniform shuffle every such assignment gives the same distribution, so the kernel fills hands
directly. As every deal follows the same steps, sixteen deals go side by side in the lanes of
one vector register (:mod:`tarot_analysis.deals._lanes`), and their features can be counted there
before any mask is written.

A run of ``n`` deals is cut into chunks of ``chunk_size`` deals fixed by the run, not by the
machine; chunk *k* draws from ``SeedSequence(seed, spawn_key=(k,))``. The same seed gives the
same deals on one thread, many threads or many machines.

>>> from tarot_analysis.game.rules import load_rules
>>> deals = deal(load_rules("fft-4"), 1000, seed=1)
>>> deals.masks.shape
(1000, 5, 2)
>>> sorted(len(deals.hand(0, seat)) for seat in range(5))
[6, 18, 18, 18, 18]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import numpy as np
import numpy.typing as npt
from numba import njit

from tarot_analysis._jit import chunk_lane_states, normalise_seed, xoshiro_next
from tarot_analysis.deals._lanes import (
    any_lane,
    broadcast,
    halves,
    lane_max,
    lane_popcount,
    load,
    mul_high,
    narrow,
    splat_each,
    store,
    view,
    with_item,
    zip_lanes,
)
from tarot_analysis.deals.features import (
    FEATURES,
    N_FEATURES,
    features_kernel,
    hand_features,
    kernel_params,
    write_features,
)
from tarot_analysis.errors import TarotInputError, run_numbers
from tarot_analysis.game import cards
from tarot_analysis.game.rules import Rules
from tarot_analysis.runs.simulate import map_chunks

__all__ = [
    "DEFAULT_CHUNK_SIZE",
    "DealPlan",
    "DealStream",
    "Deals",
    "deal",
    "deal_chunk",
    "deal_chunk_features",
    "deal_features",
    "make_plan",
]

#: Deals per chunk unless a run says otherwise: large enough that a chunk takes milliseconds,
#: small enough that a progress bar moves and an interrupted run loses little.
DEFAULT_CHUNK_SIZE: Final = 1 << 16

#: Deals dealt side by side: one per 16-bit lane of a 256-bit vector.
LANES: Final = 16

#: Generators side by side: each 64-bit output of the four gives four lanes 16 random bits.
GENERATORS: Final = 4

# In the kernel a hand is six 16-bit words: one per suit (rank r of suit s at bit r of word s),
# then the Excuse and trumps 1 to 15 (bits 0 to 15 of word 4), trumps 16 to 21 (word 5). A
# card's place in them is its slot, 16 × word + bit.
_WORD_BITS: Final = 16
_WORDS: Final = 6
_EXCUSE_WORD: Final = cards.N_SUITS
_SLOT_OF_CARD = np.array(
    [
        _WORD_BITS * (card // cards.N_RANKS) + card % cards.N_RANKS
        if card < cards.N_SUIT_CARDS
        else _WORD_BITS * _EXCUSE_WORD + card - cards.EXCUSE
        for card in range(cards.N_CARDS)
    ],
    dtype=np.int64,
)

# Bits of the Petit and the 21 in words 4 and 5, the Excuse being bit 0 of word 4.
_PETIT_BIT: Final = cards.PETIT - cards.EXCUSE
_TWENTY_ONE_BIT: Final = cards.TWENTY_ONE - cards.EXCUSE - _WORD_BITS

# The features of a hand leave the lanes as 16 bytes (features 0 to 15), then 4 bytes written
# from this one on (features 15 to 18; feature 15 twice, with the same value), so that no write
# reaches past the hand's row.
_LAST_FOUR: Final = N_FEATURES - 4

#: A hand constraint that keeps fewer deals than this is refused rather than left to spin.
MAX_TRIES_PER_DEAL: Final = 1_000_000


@dataclass(frozen=True)
class DealPlan:
    """How the kernel fills the groups of one preset: the arrays it reads, built once.

    The cards to deal (the pool: the pack less a fixed hand) are placed one by one in the order
    of their slots. Per card: ``draw_sizes``, the number of cards still to place (the card's
    group is drawn in proportion to the places left in each group); ``reject_below``, the
    threshold of that draw's exact rejection step; ``placed``, the cards placed once it is;
    ``bits``, its bit in its 16-bit word. ``word_starts`` cuts that order into the six words.
    """

    rules: Rules
    sizes: tuple[int, ...]  # cards per group: seats, then the dog
    fixed_seat: int  # −1, or the seat whose hand is given
    fixed_mask: tuple[int, int]
    pool_mask: tuple[int, int]
    check_seat: int  # −1, or the seat whose features must fall within bounds
    bounds: npt.NDArray[np.int64]  # (2, F): lowest and highest accepted value of each feature
    params: npt.NDArray[np.int64] = field(repr=False)
    drawn: npt.NDArray[np.int64]  # the groups dealt from the pool: size > 0, not the fixed seat
    cuts: tuple[int, ...]  # places in drawn groups 0..k, for every drawn group k but the last
    undrawn: npt.NDArray[np.int64] = field(repr=False)  # the other groups
    undrawn_features: npt.NDArray[np.uint8] = field(repr=False)  # (groups, F): theirs
    draw_sizes: npt.NDArray[np.uint16] = field(repr=False)
    reject_below: npt.NDArray[np.uint16] = field(repr=False)
    placed: npt.NDArray[np.uint16] = field(repr=False)
    bits: npt.NDArray[np.int16] = field(repr=False)
    word_starts: npt.NDArray[np.int64] = field(repr=False)
    pool_words: npt.NDArray[np.int16] = field(repr=False)

    @property
    def groups(self) -> int:
        """Seats plus the dog."""
        return len(self.sizes)


def make_plan(
    rules: Rules,
    *,
    seat: int | None = None,
    hand: cards.Hand | Sequence[int] | str | None = None,
    where: Mapping[str, int | tuple[int | None, int | None]] | None = None,
) -> DealPlan:
    """Plan the deals of ``rules``, optionally around a given hand or with a constraint.

    ``hand`` fixes the cards of ``seat`` (default 0); ``where`` keeps only deals whose ``seat``
    features fall within bounds, e.g. ``{"bouts": 2, "trumps": (8, None)}``.
    """
    sizes = (*([rules.hand_size] * rules.players), rules.dog_size)
    if seat is not None and not 0 <= seat < rules.players:
        raise TarotInputError(f"seat must be between 0 and {rules.players - 1}, got {seat}")
    target = 0 if seat is None else seat

    fixed_seat, fixed_mask = -1, (0, 0)
    remaining = list(range(cards.N_CARDS))
    if hand is not None:
        fixed = hand if isinstance(hand, cards.Hand) else cards.Hand(hand)
        if len(fixed) != rules.hand_size:
            raise TarotInputError(
                f"a hand of {rules.hand_size} cards was expected for {rules.name}, got {len(fixed)}"
            )
        fixed_seat, fixed_mask = target, fixed.mask
        held = set(fixed.cards)
        remaining = [card for card in remaining if card not in held]

    bounds = np.array([[0] * N_FEATURES, [255] * N_FEATURES], dtype=np.int64)
    check_seat = -1
    if where:
        check_seat = target
        for name, accepted in where.items():
            if name not in FEATURES:
                known = ", ".join(FEATURES)
                raise TarotInputError(
                    f"unknown feature {name!r} in a deal constraint; known: {known}"
                )
            low, high = (accepted, accepted) if isinstance(accepted, int) else accepted
            index = FEATURES.index(name)
            bounds[0, index] = 0 if low is None else low
            bounds[1, index] = 255 if high is None else high
            if bounds[0, index] > bounds[1, index]:
                raise TarotInputError(f"constraint on {name!r} accepts nothing: {accepted!r}")

    drawn = [g for g in range(len(sizes)) if g != fixed_seat and sizes[g] > 0]
    if len(drawn) < 2:
        raise TarotInputError(f"{rules.name} leaves fewer than two groups to deal to")
    undrawn = [g for g in range(len(sizes)) if g not in drawn]
    held_masks = np.zeros((len(sizes), 2), dtype=np.uint64)
    if fixed_seat >= 0:
        held_masks[fixed_seat] = fixed_mask
    slots = np.sort(_SLOT_OF_CARD[remaining])
    n = len(slots)
    pool_words = np.zeros(_WORDS, dtype=np.uint16)
    np.bitwise_or.at(pool_words, slots // _WORD_BITS, (1 << slots % _WORD_BITS).astype(np.uint16))
    pool_lo, pool_hi = cards.to_mask(remaining)
    return DealPlan(
        rules=rules,
        sizes=sizes,
        fixed_seat=fixed_seat,
        fixed_mask=fixed_mask,
        pool_mask=(pool_lo, pool_hi),
        check_seat=check_seat,
        bounds=bounds,
        params=kernel_params(rules),
        drawn=np.array(drawn, dtype=np.int64),
        cuts=tuple(int(c) for c in np.cumsum([sizes[g] for g in drawn])[:-1]),
        undrawn=np.array(undrawn, dtype=np.int64),
        undrawn_features=hand_features(held_masks, rules),
        draw_sizes=np.arange(n, 0, -1, dtype=np.uint16),
        reject_below=np.array([(1 << _WORD_BITS) % (n - i) for i in range(n)], dtype=np.uint16),
        placed=np.arange(1, n + 1, dtype=np.uint16),
        bits=(1 << slots % _WORD_BITS).astype(np.uint16).view(np.int16),
        word_starts=np.searchsorted(slots // _WORD_BITS, np.arange(_WORDS + 1)).astype(np.int64),
        pool_words=pool_words.view(np.int16),
    )


@njit(inline="always")
def _draw(
    x: Any, size: np.uint16, reject_below: np.uint16, s0: Any, s1: Any, s2: Any, s3: Any
) -> tuple[Any, Any, Any, Any, Any]:
    """An exactly uniform integer in ``[0, size)`` in every lane from its 16 random bits ``x``.

    Lemire's multiply-shift: the high half of ``x × size``. A lane whose low half falls below
    ``reject_below`` (2¹⁶ mod ``size``; rare) takes fresh bits from the generators.
    """
    low = x * size
    if any_lane(low < size):
        rejected = low < reject_below
        while any_lane(rejected):
            u, s0, s1, s2, s3 = xoshiro_next(s0, s1, s2, s3)
            x ^= (x ^ view(u, np.uint16)) & rejected
            low = x * size
            rejected = low < reject_below
    return mul_high(x, size), s0, s1, s2, s3


@njit(nogil=True)
def _deal_lanes(
    s0: Any,
    s1: Any,
    s2: Any,
    s3: Any,
    cuts: tuple[int, ...],
    draw_sizes: Any,
    reject_below: Any,
    placed: Any,
    bits: Any,
    word_starts: Any,
    pool_words: Any,
    words: Any,
) -> tuple[Any, Any, Any, Any]:
    """Deal the pool in the sixteen lanes; ``words[w]`` gets word ``w`` of every drawn group.

    Card by card, in the order of their slots, each lane draws which group takes the card, in
    proportion to the places left: with ``r`` uniform in ``[0, cards left)``, the card goes past
    every boundary ``k`` between groups where the places of groups ``0..k`` number no more
    than ``r``. ``cut[k]`` holds, per lane, those places plus the cards placed so far, so that
    one comparison with ``r`` plus the cards placed decides it. ``passed[k]`` collects the bits
    of the word's cards that went beyond boundary ``k``: a group's word is what passed the
    boundary before it and not its own. The boundaries are a tuple of vectors, one register
    each, looped over in full when the kernel is compiled (as one wide vector, three or five
    or six registers' worth, they would be split lane by lane by LLVM).
    """
    column = view(s0, np.int16)  # any 16 lanes of int16: the shape of one group's word
    cut = splat_each(cuts, column)
    passed = cut
    for w in range(word_starts.shape[0] - 1):
        for k in range(len(cuts)):
            passed = with_item(passed, k, broadcast(0, column))
        for i in range(np.uint64(word_starts[w]), np.uint64(word_starts[w + 1])):
            u, s0, s1, s2, s3 = xoshiro_next(s0, s1, s2, s3)
            r, s0, s1, s2, s3 = _draw(
                view(u, np.uint16), draw_sizes[i], reject_below[i], s0, s1, s2, s3
            )
            reach = view(r + placed[i], np.int16)
            for k in range(len(cuts)):
                beyond = reach > cut[k]
                cut = with_item(cut, k, cut[k] - beyond)
                passed = with_item(passed, k, passed[k] | (beyond & bits[i]))
        before = broadcast(pool_words[w], column)
        for k in range(len(cuts)):
            store(words[w], k * LANES, before & ~passed[k])
            before = passed[k]
        store(words[w], len(cuts) * LANES, before)
    return s0, s1, s2, s3


@njit(nogil=True)
def _deal_masks(
    s0: Any,
    s1: Any,
    s2: Any,
    s3: Any,
    cuts: tuple[int, ...],
    drawn: Any,
    draw_sizes: Any,
    reject_below: Any,
    placed: Any,
    bits: Any,
    word_starts: Any,
    pool_words: Any,
    words: Any,
    fixed_seat: int,
    fixed_lo: np.uint64,
    fixed_hi: np.uint64,
    out: Any,
    first: int,
) -> tuple[Any, Any, Any, Any]:
    """Deal sixteen deals as masks into ``out[first:first + 16]``, the fixed hand included."""
    s0, s1, s2, s3 = _deal_lanes(
        s0, s1, s2, s3, cuts, draw_sizes, reject_below, placed, bits, word_starts, pool_words,
        words,
    )  # fmt: skip
    for k in range(drawn.shape[0]):
        _write_masks(words, k * LANES, out, first, drawn[k])
    if fixed_seat >= 0:
        for j in range(LANES):
            out[first + j, fixed_seat, 0] = fixed_lo
            out[first + j, fixed_seat, 1] = fixed_hi
    return s0, s1, s2, s3


@njit(nogil=True)
def _zip_as(a: Any, b: Any, dtype: Any) -> tuple[Any, Any]:
    """``zip_lanes`` of two vectors read as lanes of ``dtype``."""
    return zip_lanes(view(a, dtype), view(b, dtype))


@njit(nogil=True)
def _write_masks(words: Any, column: int, out: Any, first: int, row: int) -> None:
    """One group of the sixteen lanes as ``(lo, hi)`` masks in ``out[first:first + 16, row]``.

    ``words[w, column:column + 16]`` holds word ``w`` of the group in each lane. The suits are
    packed back to card order (14 cards each), then three rounds of interleaving turn the
    eight 16-bit words of each lane (the last two empty) into one pair of 64-bit masks.
    """
    spades = view(load(words[0], column), np.uint16)
    hearts = view(load(words[1], column), np.uint16)
    diamonds = view(load(words[2], column), np.uint16)
    clubs = view(load(words[3], column), np.uint16)
    ranks = cards.N_RANKS
    w0 = spades | hearts << ranks
    w1 = hearts >> (_WORD_BITS - ranks) | diamonds << (2 * ranks - _WORD_BITS)
    w2 = diamonds >> (2 * (_WORD_BITS - ranks)) | clubs << (3 * ranks - 2 * _WORD_BITS)
    w3 = clubs >> (3 * (_WORD_BITS - ranks))
    w4 = view(load(words[4], column), np.uint16)
    w5 = view(load(words[5], column), np.uint16)
    a0, a1 = zip_lanes(w0, w1)  # words 0 and 1: lanes 0-7, then lanes 8-15
    a2, a3 = zip_lanes(w2, w3)
    a4, a5 = zip_lanes(w4, w5)
    none = broadcast(0, a4)  # words 6 and 7 (slots 96 to 127) hold no card
    b0, b1 = _zip_as(a0, a2, np.uint32)  # words 0-3: lanes 0-3, then 4-7
    b2, b3 = _zip_as(a1, a3, np.uint32)  # lanes 8-11, 12-15
    b4, b5 = _zip_as(a4, none, np.uint32)  # words 4-7: lanes 0-3, then 4-7
    b6, b7 = _zip_as(a5, none, np.uint32)
    _write_four_masks(out, first, row, b0, b4)
    _write_four_masks(out, first + 4, row, b1, b5)
    _write_four_masks(out, first + 8, row, b2, b6)
    _write_four_masks(out, first + 12, row, b3, b7)


@njit(nogil=True)
def _write_four_masks(out: Any, first: int, row: int, low_words: Any, high_words: Any) -> None:
    """Four deals' ``(lo, hi)`` masks of one group, from their low and high 64-bit halves."""
    c0, c1 = _zip_as(low_words, high_words, np.uint64)
    d0, d1 = halves(c0)
    d2, d3 = halves(c1)
    store(out[first, row], 0, d0)
    store(out[first + 1, row], 0, d1)
    store(out[first + 2, row], 0, d2)
    store(out[first + 3, row], 0, d3)


@njit(nogil=True)
def _lane_features(
    spades: Any,
    hearts: Any,
    diamonds: Any,
    clubs: Any,
    low_trumps: Any,
    high_trumps: Any,
    coefficients: tuple[int, ...],
) -> tuple[Any, ...]:
    """The features of one group in sixteen lanes (int16), in the order of ``FEATURES``.

    The same counts as :func:`~tarot_analysis.deals.features.write_features`, from the six words;
    ``coefficients`` holds the poignée thresholds less one, then the half points of any card,
    and what a bout, king, queen, knight and jack adds to them.
    """
    excuse = low_trumps & 1
    trumps = lane_popcount(low_trumps ^ excuse) + lane_popcount(high_trumps)
    petit = low_trumps >> _PETIT_BIT & 1
    twenty_one = high_trumps >> _TWENTY_ONE_BIT & 1
    bouts = excuse + petit + twenty_one
    kings = _count_rank(spades, hearts, diamonds, clubs, cards.KING)
    queens = _count_rank(spades, hearts, diamonds, clubs, cards.QUEEN)
    knights = _count_rank(spades, hearts, diamonds, clubs, cards.KNIGHT)
    jacks = _count_rank(spades, hearts, diamonds, clubs, cards.JACK)
    n_spades = lane_popcount(spades)
    n_hearts = lane_popcount(hearts)
    n_diamonds = lane_popcount(diamonds)
    n_clubs = lane_popcount(clubs)
    # Comparisons give −1 where true.
    voids = -((n_spades == 0) + (n_hearts == 0) + (n_diamonds == 0) + (n_clubs == 0))
    singletons = -((n_spades == 1) + (n_hearts == 1) + (n_diamonds == 1) + (n_clubs == 1))
    longest = lane_max(lane_max(n_spades, n_hearts), lane_max(n_diamonds, n_clubs))
    n_cards = n_spades + n_hearts + n_diamonds + n_clubs + trumps + excuse
    half_points = (
        n_cards * coefficients[3]
        + bouts * coefficients[4]
        + kings * coefficients[5]
        + queens * coefficients[6]
        + knights * coefficients[7]
        + jacks * coefficients[8]
    )
    with_excuse = trumps + excuse
    poignee = -(
        (with_excuse > coefficients[0])
        + (with_excuse > coefficients[1])
        + (with_excuse > coefficients[2])
    )
    petit_sec = (trumps == 1) & (excuse == 0) & petit
    return (
        trumps, excuse, petit, twenty_one, bouts, kings, queens, knights, jacks,
        n_spades, n_hearts, n_diamonds, n_clubs, voids, singletons, longest, half_points,
        poignee, petit_sec,
    )  # fmt: skip


@njit(nogil=True)
def _count_rank(spades: Any, hearts: Any, diamonds: Any, clubs: Any, rank: int) -> Any:
    """How many cards of ``rank`` the four suit words hold, in each lane."""
    return (
        (spades >> rank & 1) + (hearts >> rank & 1) + (diamonds >> rank & 1) + (clubs >> rank & 1)
    )


@njit(nogil=True)
def _write_features(
    words: Any, column: int, out: Any, first: int, row: int, coefficients: tuple[int, ...]
) -> None:
    """One group's features for the sixteen lanes into ``out[first:first + 16, row]``.

    Rounds of interleaving turn one vector per feature into the bytes of each deal: features
    0 to 15, then the last four (see ``_LAST_FOUR``).
    """
    f = _lane_features(
        view(load(words[0], column), np.int16),
        view(load(words[1], column), np.int16),
        view(load(words[2], column), np.int16),
        view(load(words[3], column), np.int16),
        view(load(words[4], column), np.int16),
        view(load(words[5], column), np.int16),
        coefficients,
    )
    q0 = _four_features(f[0], f[1], f[2], f[3])
    q1 = _four_features(f[4], f[5], f[6], f[7])
    q2 = _four_features(f[8], f[9], f[10], f[11])
    q3 = _four_features(f[12], f[13], f[14], f[15])
    tail = _four_features(f[15], f[16], f[17], f[18])
    for quarter in range(4):
        at = first + 4 * quarter
        r0, r1 = _zip_as(q0[quarter], q1[quarter], np.uint32)  # features 0-7: deals 0-1, 2-3
        r2, r3 = _zip_as(q2[quarter], q3[quarter], np.uint32)  # features 8-15
        d0, d1 = _zip_as(r0, r2, np.uint64)
        d2, d3 = _zip_as(r1, r3, np.uint64)
        low, high = halves(view(tail[quarter], np.uint8))
        t0, t1 = halves(low)
        t2, t3 = halves(high)
        store(out[at, row], _LAST_FOUR, t0)
        store(out[at, row], 0, view(d0, np.uint8))
        store(out[at + 1, row], _LAST_FOUR, t1)
        store(out[at + 1, row], 0, view(d1, np.uint8))
        store(out[at + 2, row], _LAST_FOUR, t2)
        store(out[at + 2, row], 0, view(d2, np.uint8))
        store(out[at + 3, row], _LAST_FOUR, t3)
        store(out[at + 3, row], 0, view(d3, np.uint8))


@njit(nogil=True)
def _four_features(a: Any, b: Any, c: Any, d: Any) -> tuple[Any, Any, Any, Any]:
    """Four features of the sixteen lanes as four vectors: four deals × four bytes each."""
    ab_low, ab_high = zip_lanes(narrow(a, np.uint8), narrow(b, np.uint8))  # deals 0-7, 8-15
    cd_low, cd_high = zip_lanes(narrow(c, np.uint8), narrow(d, np.uint8))
    q0, q1 = _zip_as(ab_low, cd_low, np.uint16)  # deals 0-3, 4-7
    q2, q3 = _zip_as(ab_high, cd_high, np.uint16)  # deals 8-11, 12-15
    return q0, q1, q2, q3


@njit(nogil=True)
def _feature_coefficients(params: Any) -> tuple[int, int, int, int, int, int, int, int, int]:
    """What :func:`_lane_features` needs from the preset's kernel parameters.

    A poignée threshold below 0 or above 256 counts as 0 or 256 (a hand holds at most 22
    trumps with the Excuse), which keeps the lanes' 16-bit comparisons exact.
    """
    other = params[8]
    return (
        min(max(params[0], 0), 256) - 1,
        min(max(params[1], 0), 256) - 1,
        min(max(params[2], 0), 256) - 1,
        other,
        params[3] - other,
        params[4] - other,
        params[5] - other,
        params[6] - other,
        params[7] - other,
    )


@njit(nogil=True)
def _accepted(lo: np.uint64, hi: np.uint64, scratch: Any, bounds: Any, params: Any) -> bool:
    """Whether the hand ``(lo, hi)`` has every feature within ``bounds``."""
    write_features(lo, hi, scratch, 0, params)
    for f in range(bounds.shape[1]):
        value = scratch[0, f]
        if value < bounds[0, f] or value > bounds[1, f]:
            return False
    return True


@njit(nogil=True)
def _load_state(state: Any) -> tuple[Any, Any, Any, Any]:
    """The four generators' state words, one vector per word."""
    return load(state[0], 0), load(state[1], 0), load(state[2], 0), load(state[3], 0)


@njit(nogil=True)
def _save_state(state: Any, s0: Any, s1: Any, s2: Any, s3: Any) -> None:
    """Write the generators' state back, for the next call."""
    store(state[0], 0, s0)
    store(state[1], 0, s1)
    store(state[2], 0, s2)
    store(state[3], 0, s3)


@njit(cache=True, nogil=True)
def _deal_kernel(
    state: Any,
    pending: Any,
    pending_at: Any,
    out: Any,
    cuts: tuple[int, ...],
    drawn: Any,
    draw_sizes: Any,
    reject_below: Any,
    placed: Any,
    bits: Any,
    word_starts: Any,
    pool_words: Any,
    fixed_seat: int,
    fixed_lo: np.uint64,
    fixed_hi: np.uint64,
    check_seat: int,
    bounds: Any,
    params: Any,
    max_tries: int,
) -> int:
    """Fill ``out`` (n, groups, 2) with deals; return how many deals a constraint rejected.

    Deals come sixteen at a time, lane ``j`` of a block being the block's deal ``j``; the deals
    of a block not yet handed out wait in ``pending`` (``pending_at``: the next one, and how
    many). ``state`` (the generators), ``pending`` and ``pending_at`` are advanced in place, so
    that dealing a chunk in several calls gives the deals of one call. With a constraint, the
    deals of a block that pass it are kept, in lane order. Returns −1 if more than
    ``max_tries`` deals in a row failed the constraint.
    """
    n = out.shape[0]
    filled = 0
    waiting = pending_at[0]
    count = pending_at[1]
    while filled < n and waiting < count:
        out[filled] = pending[waiting]
        filled += 1
        waiting += 1
    pending_at[0] = waiting
    if filled == n:
        return 0
    s0, s1, s2, s3 = _load_state(state)
    words = np.empty((_WORDS, (len(cuts) + 1) * LANES), dtype=np.int16)
    scratch = np.empty((1, bounds.shape[1]), dtype=np.uint8)
    rejected = 0
    tries = 0
    count = 0
    while filled < n:
        if check_seat < 0 and n - filled >= LANES:
            s0, s1, s2, s3 = _deal_masks(
                s0, s1, s2, s3, cuts, drawn, draw_sizes, reject_below, placed, bits,
                word_starts, pool_words, words, fixed_seat, fixed_lo, fixed_hi, out, filled,
            )  # fmt: skip
            filled += LANES
            continue
        s0, s1, s2, s3 = _deal_masks(
            s0, s1, s2, s3, cuts, drawn, draw_sizes, reject_below, placed, bits, word_starts,
            pool_words, words, fixed_seat, fixed_lo, fixed_hi, pending, 0,
        )  # fmt: skip
        count = 0
        for j in range(LANES):
            if check_seat >= 0 and not _accepted(
                pending[j, check_seat, 0], pending[j, check_seat, 1], scratch, bounds, params
            ):
                rejected += 1
                tries += 1
                if tries >= max_tries:
                    _save_state(state, s0, s1, s2, s3)
                    pending_at[0] = 0
                    pending_at[1] = 0
                    return -1
                continue
            tries = 0
            if filled < n:
                out[filled] = pending[j]
                filled += 1
            else:
                pending[count] = pending[j]
                count += 1
    _save_state(state, s0, s1, s2, s3)
    pending_at[0] = 0
    pending_at[1] = count
    return rejected


@njit(cache=True, nogil=True)
def _deal_features_kernel(
    state: Any,
    pending: Any,
    pending_at: Any,
    out: Any,
    cuts: tuple[int, ...],
    drawn: Any,
    draw_sizes: Any,
    reject_below: Any,
    placed: Any,
    bits: Any,
    word_starts: Any,
    pool_words: Any,
    fixed_seat: int,
    fixed_lo: np.uint64,
    fixed_hi: np.uint64,
    undrawn: Any,
    undrawn_features: Any,
    params: Any,
) -> None:
    """Fill ``out`` (n, groups, F) with the features of the next deals, as ``_deal_kernel``.

    Whole blocks of sixteen deals go from the lanes to features without masks; a block that
    ``out`` cannot hold whole is dealt as masks into ``pending``, as ``_deal_kernel`` would
    deal it, and its deals are counted one by one.
    """
    n = out.shape[0]
    groups = out.shape[1]
    filled = 0
    waiting = pending_at[0]
    count = pending_at[1]
    while filled < n and waiting < count:
        for g in range(groups):
            write_features(pending[waiting, g, 0], pending[waiting, g, 1], out[filled], g, params)
        filled += 1
        waiting += 1
    pending_at[0] = waiting
    if filled == n:
        return
    s0, s1, s2, s3 = _load_state(state)
    words = np.empty((_WORDS, (len(cuts) + 1) * LANES), dtype=np.int16)
    coefficients = _feature_coefficients(params)
    while n - filled >= LANES:
        s0, s1, s2, s3 = _deal_lanes(
            s0, s1, s2, s3, cuts, draw_sizes, reject_below, placed, bits, word_starts,
            pool_words, words,
        )  # fmt: skip
        for k in range(drawn.shape[0]):
            _write_features(words, k * LANES, out, filled, drawn[k], coefficients)
        for g in undrawn:
            for j in range(LANES):
                out[filled + j, g] = undrawn_features[g]
        filled += LANES
    count = 0
    if filled < n:
        s0, s1, s2, s3 = _deal_masks(
            s0, s1, s2, s3, cuts, drawn, draw_sizes, reject_below, placed, bits, word_starts,
            pool_words, words, fixed_seat, fixed_lo, fixed_hi, pending, 0,
        )  # fmt: skip
        waiting = 0
        while filled < n:
            for g in range(groups):
                write_features(
                    pending[waiting, g, 0], pending[waiting, g, 1], out[filled], g, params
                )
            filled += 1
            waiting += 1
        count = LANES
    _save_state(state, s0, s1, s2, s3)
    pending_at[0] = waiting if count else 0
    pending_at[1] = count


@dataclass
class DealStream:
    """Where the dealing of one chunk stands: its generators and the deals dealt but not given.

    All carry over from one call of :func:`deal_chunk` (or :func:`deal_chunk_features`) to the
    next.
    """

    state: npt.NDArray[np.uint64]  # (4, GENERATORS): word k of every generator in row k
    pending: npt.NDArray[np.uint64]  # (LANES, groups, 2): the last block of deals
    pending_at: npt.NDArray[np.int64]  # the next pending deal to give, and how many there are

    @classmethod
    def open(cls, plan: DealPlan, root: np.random.SeedSequence, chunk: int) -> DealStream:
        """The stream of chunk ``chunk`` of the run seeded by ``root``."""
        return cls(
            chunk_lane_states(root, chunk, GENERATORS),
            np.zeros((LANES, plan.groups, 2), dtype=np.uint64),
            np.zeros(2, dtype=np.int64),
        )


def deal_chunk(
    plan: DealPlan,
    stream: DealStream,
    n: int,
    out: npt.NDArray[np.uint64] | None = None,
) -> tuple[npt.NDArray[np.uint64], int]:
    """Deal the next ``n`` deals of ``stream`` (advanced in place): masks and rejections.

    ``out``, if given, is a zeroed C-contiguous ``(n, groups, 2)`` array to fill (rows of empty
    groups are never written); dealing into the same buffer again reuses it.
    """
    if out is None:
        out = np.zeros((n, plan.groups, 2), dtype=np.uint64)
    _check_out(out, (n, plan.groups, 2), np.uint64)
    rejected = _deal_kernel(
        stream.state, stream.pending, stream.pending_at, out, plan.cuts, plan.drawn,
        plan.draw_sizes, plan.reject_below, plan.placed, plan.bits, plan.word_starts,
        plan.pool_words, plan.fixed_seat, np.uint64(plan.fixed_mask[0]),
        np.uint64(plan.fixed_mask[1]), plan.check_seat, plan.bounds, plan.params,
        MAX_TRIES_PER_DEAL,
    )  # fmt: skip
    if rejected < 0:
        raise TarotInputError(
            f"the deal constraint kept no deal in {MAX_TRIES_PER_DEAL:,} tries: it is impossible "
            "or too rare to sample by rejection"
        )
    return out, rejected


def deal_chunk_features(
    plan: DealPlan,
    stream: DealStream,
    n: int,
    out: npt.NDArray[np.uint8] | None = None,
) -> tuple[npt.NDArray[np.uint8], int]:
    """The features of the next ``n`` deals of ``stream``, shape ``(n, groups, F)``.

    The deals are those :func:`deal_chunk` would give; without a constraint they are counted
    straight from the kernel's registers and never written as masks. ``out``, if given, is a
    C-contiguous array to fill. Returns the features and the deals a constraint rejected.
    """
    if out is None:
        out = np.empty((n, plan.groups, N_FEATURES), dtype=np.uint8)
    _check_out(out, (n, plan.groups, N_FEATURES), np.uint8)
    if plan.check_seat >= 0:
        masks, rejected = deal_chunk(plan, stream, n)
        features_kernel(masks.reshape(-1, 2), out.reshape(-1, N_FEATURES), plan.params)
        return out, rejected
    _deal_features_kernel(
        stream.state, stream.pending, stream.pending_at, out, plan.cuts, plan.drawn,
        plan.draw_sizes, plan.reject_below, plan.placed, plan.bits, plan.word_starts,
        plan.pool_words, plan.fixed_seat, np.uint64(plan.fixed_mask[0]),
        np.uint64(plan.fixed_mask[1]), plan.undrawn, plan.undrawn_features, plan.params,
    )  # fmt: skip
    return out, 0


def _check_out(out: npt.NDArray[Any], shape: tuple[int, ...], dtype: type) -> None:
    if out.shape != shape or out.dtype != dtype or not out.flags.c_contiguous:
        raise TarotInputError(
            f"out must be a C-contiguous {np.dtype(dtype).name} array of shape {shape}, "
            f"got {out.dtype.name} {out.shape}"
        )


@dataclass(frozen=True)
class Deals:
    """A batch of deals of one preset, with what it takes to deal them again."""

    rules: Rules
    masks: npt.NDArray[np.uint64]  # (n, groups, 2)
    seed: np.random.SeedSequence
    chunk_size: int
    rejected: int = 0  # deals a constraint threw away

    def __len__(self) -> int:
        return int(self.masks.shape[0])

    def hand(self, deal: int, seat: int) -> cards.Hand:
        """The hand of ``seat`` in deal ``deal`` (seat ``players`` is the dog)."""
        lo, hi = self.masks[deal, seat]
        return cards.Hand.from_mask(int(lo), int(hi))

    def dog(self, deal: int) -> cards.Hand:
        """The dog of deal ``deal``."""
        return self.hand(deal, self.rules.players)

    def features(self) -> npt.NDArray[np.uint8]:
        """Features of every hand and dog: shape ``(n, groups, F)``, see ``FEATURES``."""
        return hand_features(self.masks, self.rules)

    def describe(self, deal: int) -> str:
        """Deal ``deal`` in the hand notation, one line per seat and the dog."""
        lines = [f"{self.rules.name} deal {deal}"]
        for seat in range(self.rules.players + 1):
            label = "dog" if seat == self.rules.players else f"seat {seat}"
            lines.append(f"  {label:>7}: {self.hand(deal, seat)}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        shown = min(len(self), 3)
        parts = [
            f"<p><b>{len(self):,} deals</b> of <code>{self.rules.name}</code>, "
            f"seed {self.seed.entropy}, chunks of {self.chunk_size:,}</p>"
        ]
        for d in range(shown):
            rows = "".join(
                f"<tr><th>{'dog' if s == self.rules.players else f'seat {s}'}</th>"
                f"<td>{self.hand(d, s)._repr_html_()}</td></tr>"
                for s in range(self.rules.players + 1)
            )
            parts.append(f"<details><summary>deal {d}</summary><table>{rows}</table></details>")
        return "".join(parts)


def deal(
    rules: Rules,
    n: int,
    seed: int | np.random.SeedSequence | np.random.Generator | None = None,
    *,
    seat: int | None = None,
    hand: cards.Hand | Sequence[int] | str | None = None,
    where: Mapping[str, int | tuple[int | None, int | None]] | None = None,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    threads: int | None = None,
    client: Any = None,
) -> Deals:
    """Deal ``n`` deals of ``rules`` from ``seed``.

    ``hand`` fixes the cards of ``seat``; ``where`` keeps deals whose ``seat`` features fall in
    bounds. The result does not depend on ``threads`` (default: every core), nor on ``client``
    (a Dask client whose workers deal the chunks).
    """
    n, chunk_size, threads = run_numbers(n, chunk_size, threads, least_deals=0)
    plan = make_plan(rules, seat=seat, hand=hand, where=where)
    root = normalise_seed(seed)
    n_chunks = -(-n // chunk_size)
    masks = np.empty((n, plan.groups, 2), dtype=np.uint64)
    rejected = 0

    def work(chunk: int) -> tuple[int, npt.NDArray[np.uint64], int]:
        start = chunk * chunk_size
        stop = min(n, start + chunk_size)
        out, dropped = deal_chunk(plan, DealStream.open(plan, root, chunk), stop - start)
        return chunk, out, dropped

    for chunk, out, dropped in map_chunks(work, range(n_chunks), threads=threads, client=client):
        masks[chunk * chunk_size : chunk * chunk_size + len(out)] = out
        rejected += dropped
    return Deals(rules=rules, masks=masks, seed=root, chunk_size=chunk_size, rejected=rejected)


def deal_features(
    rules: Rules,
    n: int,
    seed: int | np.random.SeedSequence | np.random.Generator | None = None,
    *,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    threads: int | None = None,
    out: npt.NDArray[np.uint8] | None = None,
) -> npt.NDArray[np.uint8]:
    """Deal ``n`` deals and return only their features, shape ``(n, groups, F)``.

    The deals are those of :func:`deal` with the same seed and chunk size; their features are
    counted in the kernel's registers and the masks never written, so this is the fast path
    when features are all that is needed. ``out`` may be given to fill an existing C-contiguous
    array.
    """
    n, chunk_size, threads = run_numbers(n, chunk_size, threads, least_deals=0)
    plan = make_plan(rules)
    root = normalise_seed(seed)
    if out is None:
        out = np.empty((n, plan.groups, N_FEATURES), dtype=np.uint8)
    _check_out(out, (n, plan.groups, N_FEATURES), np.uint8)

    def work(chunk: int) -> int:
        start = chunk * chunk_size
        stop = min(n, start + chunk_size)
        deal_chunk_features(plan, DealStream.open(plan, root, chunk), stop - start, out[start:stop])
        return chunk

    for _ in map_chunks(work, range(-(-n // chunk_size)), threads=threads):
        pass
    return out
