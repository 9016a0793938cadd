"""Hand evaluations: the point counts players use to judge a hand before bidding.

Each count reads the two-word bitmasks of :mod:`tarot_analysis.game.cards` (``lo``: suit cards,
``hi``: the Excuse at bit 0 and trump n at bit n) and is vectorised with numpy: arrays of masks
of any shape give an array of counts of the same shape, with no Python loop over the hands.

* :func:`chavey` is the count published by Noël Chavey, *Le jeu de tarot* (Hatier, 1986), still
  taught in clubs; :func:`chavey_bid` turns it into a contract.
* :func:`bouts_and_trumps` is a rule of thumb on bouts and trumps alone ("two bouts and six
  trumps to take"), not a published count; :func:`bouts_and_trumps_bid` turns it into a contract.

Bids are contract indices: ``PASS`` (-1) for a pass, then 0 Prise, 1 Garde, 2 Garde sans,
3 Garde contre, the order of ``rules.contracts`` in the French presets (lowest first), so that
``rules.contracts[level]`` is the contract bid. :func:`bid_names` writes them as names.

>>> hand = Hand.parse("21 19 12 6 1 E KH CH 10H 8H 1H JD 8D QC CC 7C 6S 4S")
>>> evaluate(hand, "chavey"), evaluate(hand, "bouts_and_trumps")
(60, 24)
>>> str(bid_names(chavey_bid(60, 60)))
'garde'
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from typing import Final

import numpy as np
import numpy.typing as npt
from numba import njit

from tarot_analysis._jit import popcount
from tarot_analysis.errors import CardError, TarotInputError, is_whole_number
from tarot_analysis.game import cards
from tarot_analysis.game.cards import Hand

__all__ = [
    "BID_NAMES",
    "BOUTS_AND_TRUMPS_THRESHOLDS",
    "CHAVEY_HAND_SIZE",
    "CHAVEY_PARTS",
    "CHAVEY_THRESHOLDS",
    "EVALUATORS",
    "PASS",
    "Evaluator",
    "bid_names",
    "bouts_and_trumps",
    "bouts_and_trumps_bid",
    "chavey",
    "chavey_bid",
    "chavey_count",
    "chavey_parts",
    "chavey_sum",
    "evaluate",
    "scale_to_18",
]

Evaluator = Callable[[npt.ArrayLike, npt.ArrayLike], npt.NDArray[np.int64]]
"""A count: masks ``lo, hi`` of any shape to one integer per hand, of the same shape."""

# --------------------------------------------------------------------------------------------
# Bids
# --------------------------------------------------------------------------------------------

PASS: Final = -1
"""The bid index of a pass; contracts are 0 (Prise) .. 3 (Garde contre)."""
BID_NAMES: Final = ("pass", "prise", "garde", "garde_sans", "garde_contre")
"""Bid names by bid index + 1: ``BID_NAMES[level + 1]``; contract names as in the presets."""
_BID_NAME_ARRAY: Final = np.array(BID_NAMES)


def bid_names(levels: npt.ArrayLike) -> npt.NDArray[np.str_]:
    """The names of bid indices (``PASS`` = -1 .. 3), as an array of the same shape.

    >>> bid_names([-1, 0, 1, 2, 3]).tolist()
    ['pass', 'prise', 'garde', 'garde_sans', 'garde_contre']
    """
    index = np.asarray(levels)
    if index.size and (
        not np.issubdtype(index.dtype, np.integer)
        or index.min() < PASS
        or index.max() >= len(BID_NAMES) - 1
    ):
        raise TarotInputError(f"bid indices run from {PASS} (pass) to {len(BID_NAMES) - 2}")
    return _BID_NAME_ARRAY[index.astype(np.intp) + 1]


# --------------------------------------------------------------------------------------------
# Hand sizes
# --------------------------------------------------------------------------------------------

CHAVEY_HAND_SIZE: Final = 18
"""The hand the counts were made for: 18 cards, four players."""

_Scores = npt.NDArray[np.int64] | npt.NDArray[np.float64]


def _check_hand_size(hand_size: int) -> int:
    if not is_whole_number(hand_size):
        raise TarotInputError(f"hand_size must be an integer, got {hand_size!r}")
    if hand_size < 1:
        raise TarotInputError(f"hand_size must be at least 1, got {hand_size}")
    return int(hand_size)


def scale_to_18(score: npt.ArrayLike, hand_size: int) -> npt.NDArray[np.float64]:
    """A count of a ``hand_size``-card hand put on the scale of an 18-card hand.

    The counts were made for four players, 18 cards each; with 24 cards (three players) a hand
    holds on average a third more trumps, honours and suit length, with 15 (five players) a
    sixth less. Our assumption, not the author's: the whole count scales in proportion to the
    hand size, ``score × 18 / hand_size``, so that the thresholds keep their meaning. The items
    of the count (the Petit with 5 trumps, a long suit of 5) are not rescaled one by one, and
    the scaled score is not rounded.

    >>> scale_to_18([40, 60], 24).tolist()
    [30.0, 45.0]
    """
    size = _check_hand_size(hand_size)
    return np.asarray(score, dtype=np.float64) * CHAVEY_HAND_SIZE / size


def _reaches(score: _Scores, threshold: int, hand_size: int) -> npt.NDArray[np.bool_]:
    """Whether ``scale_to_18(score) >= threshold``, exactly for integer scores."""
    return np.asarray(score * CHAVEY_HAND_SIZE >= threshold * hand_size)


def _scores(score: npt.ArrayLike, what: str) -> _Scores:
    array = np.asarray(score)
    if not (np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.floating)):
        raise TarotInputError(f"{what} must be numbers, not {array.dtype}")
    # int64 keeps ``score × 18`` exact for small unsigned types.
    if np.issubdtype(array.dtype, np.integer):
        return array.astype(np.int64)
    return array.astype(np.float64)


# --------------------------------------------------------------------------------------------
# Masks
# --------------------------------------------------------------------------------------------

_LO_ALLOWED: Final = np.uint64(cards.SUIT_CARDS_MASK_LO)
_HI_ALLOWED: Final = np.uint64(cards.ALL_MASK_HI)


def _check_masks(
    masks_lo: npt.ArrayLike, masks_hi: npt.ArrayLike
) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]]:
    """The masks as uint64 arrays of their common shape; bits that are no card raise."""
    words: list[npt.NDArray[np.uint64]] = []
    for name, value, allowed in (("lo", masks_lo, _LO_ALLOWED), ("hi", masks_hi, _HI_ALLOWED)):
        array = np.asarray(value)
        if not np.issubdtype(array.dtype, np.integer):
            raise CardError(f"{name} masks must be integers, not {array.dtype}")
        if np.issubdtype(array.dtype, np.signedinteger) and array.size and array.min() < 0:
            raise CardError(f"{name} masks must not be negative")
        word = array.astype(np.uint64, copy=False)
        if np.any(word & ~allowed):
            raise CardError(f"{name} masks hold bits that are no card (allowed: {int(allowed):#x})")
        words.append(word)
    lo, hi = np.broadcast_arrays(*words)
    return lo, hi


def _hand_masks(hand_or_masks: Hand | tuple[int, int]) -> tuple[int, int]:
    if isinstance(hand_or_masks, Hand):
        return hand_or_masks.mask
    lo, hi = hand_or_masks
    return int(lo), int(hi)


# --------------------------------------------------------------------------------------------
# Chavey's count
# --------------------------------------------------------------------------------------------

# The trumps, on the 18-card scale.
TWENTY_ONE_VALUE: Final = 10
EXCUSE_VALUE: Final = 8
PETIT_VALUE_BY_TRUMPS: Final = (0, 0, 0, 0, 0, 5, 7, 9)
"""The Petit by trumps held, the Excuse and the Petit among them: 0 under 5, then 5, 7, 9 (7+)."""
TRUMP_LENGTH_LEAST: Final = 5  # "more than 4 trumps": then every one counts
TRUMP_VALUE: Final = 2
LEAST_MAJOR: Final = 16  # the major trumps are 16 to 21
MAJOR_VALUE: Final = 2
MAJOR_SEQUENCE_VALUE: Final = 1
# The suits.
KING_AND_QUEEN_VALUE: Final = 10
KING_VALUE: Final = 6  # without the queen
QUEEN_VALUE: Final = 3  # without the king
KNIGHT_VALUE: Final = 2
JACK_VALUE: Final = 1
LONG_SUIT_VALUE_BY_LENGTH: Final = (0, 0, 0, 0, 0, 5, 7, 9)
"""A suit by its length: 5 cards 5, 6 cards 7, 7 or more 9."""
# The distribution, counted only for the Garde sans and the Garde contre.
VOID_VALUE: Final = 6
SINGLETON_VALUE: Final = 3

CHAVEY_THRESHOLDS: Final = (40, 56, 71, 81)
"""The least count for a Prise, a Garde, a Garde sans and a Garde contre (18 cards)."""
DOG_TAKEN_CONTRACTS: Final = 2
"""The Prise and the Garde take the dog, so they are judged without the distribution."""

CHAVEY_PARTS: Final = (
    "twenty_one",
    "excuse",
    "petit",
    "trump_length",
    "majors",
    "major_sequences",
    "honours",
    "long_suits",
    "distribution",
)
"""The named parts of Chavey's count, in the order of :func:`chavey_parts`."""

_SUIT_BITS: Final = cards.N_RANKS
_SUIT_PATTERNS: Final = 1 << _SUIT_BITS
_MAJOR_SHIFT: Final = np.uint64(LEAST_MAJOR)
_MAJORS: Final = np.uint64((1 << (cards.N_TRUMPS - LEAST_MAJOR + 1)) - 1)  # 16..21: six bits
_PETIT_SHIFT: Final = np.uint64(cards.PETIT - cards.TRUMP_ID_OFFSET)
_TWENTY_ONE_SHIFT: Final = np.uint64(cards.TWENTY_ONE - cards.TRUMP_ID_OFFSET)
_ONE: Final = np.uint64(1)
_PETIT_TABLE: Final = np.array(PETIT_VALUE_BY_TRUMPS, dtype=np.int64)


def _suit_tables() -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Honours, long suit and distribution of every 14-bit suit pattern (bit r: rank index r)."""
    pattern = np.arange(_SUIT_PATTERNS, dtype=np.int64)
    king = (pattern >> cards.KING) & 1
    queen = (pattern >> cards.QUEEN) & 1
    knight = (pattern >> cards.KNIGHT) & 1
    jack = (pattern >> cards.JACK) & 1
    honours = (
        king * queen * KING_AND_QUEEN_VALUE
        + king * (1 - queen) * KING_VALUE
        + queen * (1 - king) * QUEEN_VALUE
        + knight * KNIGHT_VALUE
        + jack * JACK_VALUE
    )
    length = np.bitwise_count(pattern)
    long_table = np.array(LONG_SUIT_VALUE_BY_LENGTH, dtype=np.int64)
    long_suit = long_table[np.minimum(length, len(long_table) - 1)]
    distribution = np.select([length == 0, length == 1], [VOID_VALUE, SINGLETON_VALUE], 0)
    return honours, long_suit, distribution


_HONOURS, _LONG_SUIT, _DISTRIBUTION = _suit_tables()
# Small tables of small ints: the gathers stay in cache.
_SUIT_COUNT: Final = (_HONOURS + _LONG_SUIT).astype(np.int16)
_SUIT_COUNT_WITH_DISTRIBUTION: Final = (_HONOURS + _LONG_SUIT + _DISTRIBUTION).astype(np.int16)
_SUIT_MASK: Final = np.uint64(_SUIT_PATTERNS - 1)


def _suit_patterns(lo: npt.NDArray[np.uint64]) -> list[npt.NDArray[np.intp]]:
    """The 14-bit pattern of each suit (spades, hearts, diamonds, clubs) of every hand."""
    return [
        ((lo >> np.uint64(suit * _SUIT_BITS)) & _SUIT_MASK).astype(np.intp)
        for suit in range(cards.N_SUITS)
    ]


def _trump_parts(hi: npt.NDArray[np.uint64]) -> dict[str, npt.NDArray[np.int64]]:
    """The trump parts of the count, for ``hi`` masks already checked."""
    trumps = np.bitwise_count(hi).astype(np.int64)  # hi holds trumps and the Excuse only
    has_petit = ((hi >> _PETIT_SHIFT) & _ONE).astype(np.int64)
    majors = (hi >> _MAJOR_SHIFT) & _MAJORS
    # A major is in a sequence when a neighbour is a major too: then its run has 2 or more.
    in_sequence = majors & ((majors << _ONE) | (majors >> _ONE))
    return {
        "twenty_one": TWENTY_ONE_VALUE * ((hi >> _TWENTY_ONE_SHIFT) & _ONE).astype(np.int64),
        "excuse": EXCUSE_VALUE * (hi & _ONE).astype(np.int64),
        "petit": has_petit * _PETIT_TABLE[np.minimum(trumps, len(_PETIT_TABLE) - 1)],
        "trump_length": np.where(trumps >= TRUMP_LENGTH_LEAST, TRUMP_VALUE * trumps, 0),
        "majors": MAJOR_VALUE * np.bitwise_count(majors).astype(np.int64),
        "major_sequences": MAJOR_SEQUENCE_VALUE * np.bitwise_count(in_sequence).astype(np.int64),
    }


def chavey(
    masks_lo: npt.ArrayLike, masks_hi: npt.ArrayLike, *, with_distribution: bool = False
) -> npt.NDArray[np.int64]:
    """Noël Chavey's count of each hand, from *Le jeu de tarot* (Hatier, 1986).

    The count, for a hand of 18 cards (four players):

    * the 21: 10; the Excuse: 8;
    * the Petit: 0 with fewer than 5 trumps, 5 with 5, 7 with 6, 9 with 7 or more;
    * 2 per trump, bouts included, when the hand holds more than 4 trumps;
    * 2 more per major trump (16 to 21), and 1 more per major that is part of a sequence of
      majors (19-20-21 gives 3);
    * in each suit: the king with its queen 10, the king alone 6, the queen alone 3, each knight
      2, each jack 1; a long suit of 5 cards 5, of 6 cards 7, of 7 or more 9;
    * only when judging a Garde sans or a Garde contre (``with_distribution=True``, the dog is
      then not taken, so the distribution cannot be improved by an écart): each void 6, each
      singleton 3.

    How we read it (each checked by a test):

    * *Trumps* are counted with the Excuse, as the book does: for the Petit (6 trumps with the
      Excuse give 7) and for "2 per trump" (more than 4 trumps with the Excuse ⇒ 2 × all of
      them, the Excuse, the Petit and the 21 included). With exactly 4, the length is worth 0.
    * *A sequence of majors* is a maximal run of consecutive trumps, all of 16 or more, of
      length 2 or more; every trump in it gets 1 (21-20 gives 2, 21-20-19 gives 3, 21-19 and
      16 alone give nothing). A run that reaches below 16 counts only its majors (15-16-17
      gives 2: 16 and 17).
    * The Excuse is no major: it has no number, so it is neither among 16..21 nor in a run.
    * "King with its queen" is the same suit's queen; a queen counts 3 only without her king.
      The knight and the jack count whatever else the suit holds.
    * Long suits past 7 cards stay at 9.

    ``masks_lo`` and ``masks_hi`` are arrays of any (broadcastable) shape, or scalars; the result
    has their shape, one integer per hand. The count is not rescaled for hand sizes other than
    18; :func:`chavey_bid` does that.

    Worked example (from the book, as republished by clubs):
    ``21 19 12 6 1 E  KH CH 10H 8H 1H  JD 8D  QC CC 7C  6S 4S`` counts 21: 10, Petit with 6
    trumps: 7, Excuse: 8, 6 trumps: 12, majors 21 and 19 (no sequence): 4; king of hearts alone
    6, knight 2, five hearts 5; jack of diamonds 1; queen of clubs alone 3, knight 2: 60, a
    Garde.

    >>> lo, hi = Hand.parse("21 19 12 6 1 E KH CH 10H 8H 1H JD 8D QC CC 7C 6S 4S").mask
    >>> int(chavey(lo, hi))
    60
    >>> hands = [Hand.parse("21 20 19 KS QS").mask, Hand.parse("21 16 15 1 E").mask]
    >>> chavey(*np.array(hands, dtype=np.uint64).T).tolist()
    [29, 37]
    """
    lo, hi = _check_masks(masks_lo, masks_hi)
    trumps = _trump_parts(hi)
    total = sum(trumps.values(), np.zeros(lo.shape, dtype=np.int64))
    table = _SUIT_COUNT_WITH_DISTRIBUTION if with_distribution else _SUIT_COUNT
    for pattern in _suit_patterns(lo):
        total += table[pattern]
    return total


@njit(cache=True)
def chavey_count(lo: np.uint64, hi: np.uint64, with_distribution: bool) -> np.int64:
    """:func:`chavey` of one hand in compiled code, for compiled callers (the features of a
    bid, :mod:`tarot_analysis.engine.action_features`).

    >>> lo, hi = Hand.parse("21 19 12 6 1 E KH CH 10H 8H 1H JD 8D QC CC 7C 6S 4S").mask
    >>> chavey_count(np.uint64(lo), np.uint64(hi), False)
    60
    """
    trumps = popcount(hi)  # hi holds trumps and the Excuse only
    total = TWENTY_ONE_VALUE * np.int64((hi >> _TWENTY_ONE_SHIFT) & _ONE)
    total += EXCUSE_VALUE * np.int64(hi & _ONE)
    if (hi >> _PETIT_SHIFT) & _ONE:
        total += _PETIT_TABLE[min(trumps, len(_PETIT_TABLE) - 1)]
    if trumps >= TRUMP_LENGTH_LEAST:
        total += TRUMP_VALUE * trumps
    majors = (hi >> _MAJOR_SHIFT) & _MAJORS
    in_sequence = majors & ((majors << _ONE) | (majors >> _ONE))
    total += MAJOR_VALUE * popcount(majors) + MAJOR_SEQUENCE_VALUE * popcount(in_sequence)
    table = _SUIT_COUNT_WITH_DISTRIBUTION if with_distribution else _SUIT_COUNT
    for suit in range(cards.N_SUITS):
        total += table[np.int64((lo >> np.uint64(suit * _SUIT_BITS)) & _SUIT_MASK)]
    return total


def chavey_parts(
    masks_lo: npt.ArrayLike, masks_hi: npt.ArrayLike
) -> dict[str, npt.NDArray[np.int64]]:
    """Chavey's count split into its named parts (:data:`CHAVEY_PARTS`), one array each.

    ``chavey`` is the sum of every part but ``distribution``; with ``with_distribution=True`` it
    is the sum of them all. ``honours``, ``long_suits`` and ``distribution`` add up the four
    suits. Useful to group hands by what their count is made of.

    >>> hand = Hand.parse("21 20 19 16 14 12 8 E KH QH 8H 5H 4H 2H KD 9C 8C 3C")
    >>> parts = chavey_parts(*hand.mask)
    >>> {name: int(value) for name, value in parts.items()}  # doctest: +NORMALIZE_WHITESPACE
    {'twenty_one': 10, 'excuse': 8, 'petit': 0, 'trump_length': 16, 'majors': 8,
     'major_sequences': 3, 'honours': 16, 'long_suits': 7, 'distribution': 9}
    """
    lo, hi = _check_masks(masks_lo, masks_hi)
    parts = _trump_parts(hi)
    for name, table in (
        ("honours", _HONOURS),
        ("long_suits", _LONG_SUIT),
        ("distribution", _DISTRIBUTION),
    ):
        total = np.zeros(lo.shape, dtype=np.int64)
        for pattern in _suit_patterns(lo):
            total += table[pattern]
        parts[name] = total
    return {name: parts[name] for name in CHAVEY_PARTS}


def chavey_sum(hand_or_masks: Hand | tuple[int, int]) -> str:
    """Chavey's count of one hand written as a player adds it up: each part that counts, then
    the total (the count without the distribution, the one the Prise and the Garde are judged
    on), and the voids and singletons a Garde sans or a Garde contre adds, if any.

    >>> chavey_sum(Hand.parse("21 19 12 6 1 E KH CH 10H 8H 1H JD 8D QC CC 7C 6S 4S"))
    'the 21: 10 + the Excuse: 8 + the Petit among 5 trumps and the Excuse: 7 + 5 trumps and the Excuse, 2 each: 12 + majors: 4 + honours: 14 + long suits: 5 = 60'
    >>> chavey_sum(Hand.parse("21 20 19 16 14 12 8 E KH QH 8H 5H 4H 2H KD 9C 8C 3C")).split("; ")[1]
    'with voids and singletons: 77'
    """  # noqa: E501
    lo, hi = _hand_masks(hand_or_masks)
    parts = {name: int(value) for name, value in chavey_parts(lo, hi).items()}
    # The trumps in the words of every command (the Excuse named apart), though it counts here.
    trumps = Hand.from_mask(int(lo), int(hi)).trumps_text
    labels = {
        "twenty_one": "the 21",
        "excuse": "the Excuse",
        "petit": f"the Petit among {trumps}",
        "trump_length": f"{trumps}, {TRUMP_VALUE} each",
        "majors": "majors",
        "major_sequences": "runs of majors",
        "honours": "honours",
        "long_suits": "long suits",
    }
    counted = [f"{labels[name]}: {parts[name]}" for name in labels if parts[name]]
    total = sum(parts[name] for name in labels)
    text = f"{' + '.join(counted) or 'nothing'} = {total}"
    if parts["distribution"]:
        text += f"; with voids and singletons: {total + parts['distribution']}"
    return text


def chavey_bid(
    score: npt.ArrayLike,
    score_with_distribution: npt.ArrayLike,
    *,
    hand_size: int = CHAVEY_HAND_SIZE,
) -> npt.NDArray[np.int8]:
    """The contract Chavey's count bids: ``PASS`` (-1), or 0 Prise .. 3 Garde contre.

    The book's thresholds: under 40 pass, 40 to 55 Prise, 56 to 70 Garde, 71 to 80 Garde sans,
    over 80 Garde contre. The distribution counts only for the contracts played without the dog,
    so the two scores combine this way (our reading):

    * Garde contre if ``score_with_distribution`` is over 80, else Garde sans if it is 71 or
      more;
    * else Garde if ``score`` (without distribution) is 56 or more, Prise if 40 or more;
    * else pass.

    ``score`` is ``chavey(lo, hi)`` and ``score_with_distribution`` is
    ``chavey(lo, hi, with_distribution=True)``, never smaller, so a hand whose plain count
    reaches 71 bids at least a Garde sans. Both broadcast; the result has their shape.

    The thresholds are the least counts 40, 56, 71 and 81 (:data:`CHAVEY_THRESHOLDS`): a score
    reaches a contract when it is at least its least count, so a score between 55 and 56 (a
    float, or a rescaled score) is still a Prise. For a ``hand_size`` other than 18, a score is
    compared on the 18-card scale, as :func:`scale_to_18` (our assumption), without rounding:
    ``score × 18 ≥ threshold × hand_size``, exact for integer scores. Indices follow the order
    of ``rules.contracts`` in the French presets.

    >>> chavey_bid([39, 40, 55, 56, 70], [39, 40, 55, 56, 70]).tolist()
    [-1, 0, 0, 1, 1]
    >>> chavey_bid([68, 68, 68], [70, 77, 81]).tolist()
    [1, 2, 3]
    >>> chavey_bid(34, 34, hand_size=15).tolist()  # 34 × 18 / 15 = 40.8: a Prise at five
    0
    """
    size = _check_hand_size(hand_size)
    plain, dealt = np.broadcast_arrays(
        _scores(score, "scores"), _scores(score_with_distribution, "scores")
    )
    prise, garde, garde_sans, garde_contre = CHAVEY_THRESHOLDS
    level = np.select(
        [
            _reaches(dealt, garde_contre, size),
            _reaches(dealt, garde_sans, size),
            _reaches(plain, garde, size),
            _reaches(plain, prise, size),
        ],
        [3, 2, 1, 0],
        PASS,
    )
    return level.astype(np.int8)


# --------------------------------------------------------------------------------------------
# Bouts and trumps
# --------------------------------------------------------------------------------------------

BOUT_WEIGHT: Final = 6
"""A bout counts as six trumps more (besides itself), so that three bouts always make a Garde."""
BOUTS_AND_TRUMPS_THRESHOLDS: Final = (18, 21)
"""The least value for a Prise (2 bouts and 6 trumps) and a Garde (2 bouts and 9 trumps)."""
_BOUTS: Final = np.uint64(cards.BOUTS_MASK_HI)


def bouts_and_trumps(masks_lo: npt.ArrayLike, masks_hi: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """A rule of thumb on bouts and trumps: ``6 × bouts + trumps``, the Excuse a trump.

    Not a published count: the advice club players give beginners, "two bouts and six trumps
    for a Prise; three bouts, or two bouts and nine trumps, for a Garde", written as one number
    so that it can be compared, averaged and plotted like :func:`chavey`.

    * ``trumps`` counts every trump with the Excuse, the bouts among them (as for a poignée):
      ``21 12 8 3 1 E`` holds 3 bouts and 6 trumps.
    * A bout is worth six trumps besides itself: the least weight with which three bouts, which
      are three trumps with the Excuse, reach the Garde (6 × 3 + 3 = 21 = 6 × 2 + 9). Then
      "two bouts and six trumps" is 18 (:data:`BOUTS_AND_TRUMPS_THRESHOLDS`), and the value is
      exact on both halves of the rule.
    * With one bout or none the rule of thumb says nothing; the value extends it (one bout and
      12 trumps for a Prise, 15 for a Garde), which is our extrapolation.

    The suit cards do not count. The result has the masks' shape.

    >>> int(bouts_and_trumps(*Hand.parse("21 1 E 12 8 3 KH QH").mask))  # 3 bouts, 6 trumps
    24
    """
    lo, hi = _check_masks(masks_lo, masks_hi)
    del lo  # the suit cards do not count; the lo masks are still checked
    bouts = np.bitwise_count(hi & _BOUTS).astype(np.int64)
    trumps = np.bitwise_count(hi).astype(np.int64)
    return BOUT_WEIGHT * bouts + trumps


def bouts_and_trumps_bid(
    value: npt.ArrayLike, *, hand_size: int = CHAVEY_HAND_SIZE
) -> npt.NDArray[np.int8]:
    """The contract the bouts-and-trumps rule of thumb bids: ``PASS`` (-1), 0 Prise or 1 Garde.

    Prise from 18 (two bouts and six trumps), Garde from 21 (two bouts and nine trumps, or
    three bouts). The rule of thumb never bids a Garde sans or a Garde contre. For a
    ``hand_size`` other than 18 the value is put on the 18-card scale, as
    :func:`scale_to_18` (our assumption).

    >>> bouts_and_trumps_bid([17, 18, 20, 21, 40]).tolist()
    [-1, 0, 0, 1, 1]
    """
    size = _check_hand_size(hand_size)
    score = _scores(value, "values")
    prise, garde = BOUTS_AND_TRUMPS_THRESHOLDS
    level = np.select([_reaches(score, garde, size), _reaches(score, prise, size)], [1, 0], PASS)
    return level.astype(np.int8)


# --------------------------------------------------------------------------------------------
# Registry
# --------------------------------------------------------------------------------------------

EVALUATORS: Final[dict[str, Evaluator]] = {
    "chavey": chavey,
    "bouts_and_trumps": bouts_and_trumps,
}
"""The counts by name: each takes masks ``lo, hi`` and gives one integer per hand."""


def evaluate(
    hand_or_masks: Hand | tuple[int, int], name: str, *, with_distribution: bool = False
) -> int:
    """The count ``name`` (a key of :data:`EVALUATORS`) of one hand, a ``Hand`` or ``(lo, hi)``.

    ``with_distribution`` is passed to :func:`chavey` (voids and singletons counted); the other
    counts have no such option.

    >>> evaluate(Hand.parse("20 18 14 13 9 8 6 KH 10H 5H 4H KD QD 8C 7C 8S 7S 5S"), "chavey")
    34
    """
    count = EVALUATORS.get(name)
    if count is None:
        close = difflib.get_close_matches(name, EVALUATORS, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise TarotInputError(
            f"no evaluator {name!r}{hint}; known evaluators: {', '.join(EVALUATORS)}"
        )
    lo, hi = _hand_masks(hand_or_masks)
    if name == "chavey":
        return int(chavey(lo, hi, with_distribution=with_distribution))
    if with_distribution:
        raise TarotInputError(f"evaluator {name!r} does not count the distribution")
    return int(count(lo, hi))
