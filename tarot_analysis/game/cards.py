"""The 78 cards of the French Tarot deck: ids, lookup tables, bitmasks and notation.

A card is a small int, its id:

* suit cards: ``id = suit * 14 + rank_index``, suits in the order spades, hearts, diamonds,
  clubs (0..3), rank_index 0 for the ace (1, the lowest) up to 9 for the 10, then Jack 10,
  Knight 11, Queen 12, King 13;
* the Excuse: ``EXCUSE = 56``;
* trump n (1..21): ``56 + n``, so ``PETIT = 57`` and ``TWENTY_ONE = 77``.

Lookup tables indexed by id (``POINTS``, ``SUIT``, ``RANK``, ``IS_BOUT``...) are read-only numpy
arrays built once at import, for the compiled kernels as much as for people.

A set of cards is a bitmask in two unsigned 64-bit words: ``lo`` holds the suit cards at bit
``id``, ``hi`` holds the Excuse at bit 0 and trump n at bit n (bit ``id - 56``). Counting the
trumps of a hand is then ``(hi & TRUMPS_MASK_HI).bit_count()``.

People write hands in a notation: trumps as numbers ``1``..``21``, the Excuse as ``E``, suit
cards as a rank (``K Q C J 10 9 .. 2 1``, ``C`` for the knight, the cavalier) followed by a suit
letter (``S H D C``)::

    21 19 12 6 1 E KH CH 10H 8H 1H JD 8D QC CC 7C 6S 4S

``1`` is the Petit, ``1H`` the ace of hearts, ``CC`` the knight of clubs; ``C`` alone is no card.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Final, TypeVar

import numpy as np
import numpy.typing as npt

from tarot_analysis.errors import CardError, is_whole_number

# --------------------------------------------------------------------------------------------
# Sizes, suits, ranks
# --------------------------------------------------------------------------------------------

N_CARDS: Final = 78
N_SUITS: Final = 4
N_RANKS: Final = 14
N_SUIT_CARDS: Final = N_SUITS * N_RANKS  # 56: the suit cards fill the lo word
N_TRUMPS: Final = 21

SPADES: Final = 0
HEARTS: Final = 1
DIAMONDS: Final = 2
CLUBS: Final = 3
TRUMP_SUIT: Final = 4
EXCUSE_SUIT: Final = 5

# Rank indices of the suit cards; the number cards n = 1..10 have rank index n - 1.
ACE: Final = 0
JACK: Final = 10
KNIGHT: Final = 11
QUEEN: Final = 12
KING: Final = 13

SUIT_LETTERS: Final = ("S", "H", "D", "C")
SUIT_NAMES: Final = ("Spades", "Hearts", "Diamonds", "Clubs")
SUIT_SYMBOLS: Final = ("♠", "♥", "♦", "♣")
RANK_TOKENS: Final = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "C", "Q", "K")
RANK_NAMES: Final = (
    "Ace",
    "2",
    "3",
    "4",
    "5",
    "6",
    "7",
    "8",
    "9",
    "10",
    "Jack",
    "Knight",
    "Queen",
    "King",
)

EXCUSE: Final = 56
PETIT: Final = 57
TWENTY_ONE: Final = 77
TRUMP_ID_OFFSET: Final = EXCUSE  # trump n has id TRUMP_ID_OFFSET + n


def trump(n: int) -> int:
    """The id of trump ``n`` (1 = the Petit .. 21).

    >>> trump(1) == PETIT, trump(21) == TWENTY_ONE
    (True, True)
    """
    if not 1 <= n <= N_TRUMPS:
        raise CardError(f"there is no trump {n}: trumps run from 1 to {N_TRUMPS}")
    return TRUMP_ID_OFFSET + n


def suit_card(suit: int, rank_index: int) -> int:
    """The id of the suit card of ``suit`` (0..3) and ``rank_index`` (0 ace .. 13 king).

    >>> suit_card(HEARTS, KING) == KING_OF_HEARTS
    True
    >>> suit_card(CLUBS, 9) == TEN_OF_CLUBS
    True
    """
    if not 0 <= suit < N_SUITS:
        raise CardError(
            f"there is no suit {suit}: suits are 0..3 (spades, hearts, diamonds, clubs)"
        )
    if not 0 <= rank_index < N_RANKS:
        raise CardError(
            f"there is no rank index {rank_index}: rank indices are 0 (ace) .. 13 (king)"
        )
    return suit * N_RANKS + rank_index


# One name per suit card, rank index order (ace first, king last).
(
    ACE_OF_SPADES,
    TWO_OF_SPADES,
    THREE_OF_SPADES,
    FOUR_OF_SPADES,
    FIVE_OF_SPADES,
    SIX_OF_SPADES,
    SEVEN_OF_SPADES,
    EIGHT_OF_SPADES,
    NINE_OF_SPADES,
    TEN_OF_SPADES,
    JACK_OF_SPADES,
    KNIGHT_OF_SPADES,
    QUEEN_OF_SPADES,
    KING_OF_SPADES,
) = range(SPADES * N_RANKS, SPADES * N_RANKS + N_RANKS)
(
    ACE_OF_HEARTS,
    TWO_OF_HEARTS,
    THREE_OF_HEARTS,
    FOUR_OF_HEARTS,
    FIVE_OF_HEARTS,
    SIX_OF_HEARTS,
    SEVEN_OF_HEARTS,
    EIGHT_OF_HEARTS,
    NINE_OF_HEARTS,
    TEN_OF_HEARTS,
    JACK_OF_HEARTS,
    KNIGHT_OF_HEARTS,
    QUEEN_OF_HEARTS,
    KING_OF_HEARTS,
) = range(HEARTS * N_RANKS, HEARTS * N_RANKS + N_RANKS)
(
    ACE_OF_DIAMONDS,
    TWO_OF_DIAMONDS,
    THREE_OF_DIAMONDS,
    FOUR_OF_DIAMONDS,
    FIVE_OF_DIAMONDS,
    SIX_OF_DIAMONDS,
    SEVEN_OF_DIAMONDS,
    EIGHT_OF_DIAMONDS,
    NINE_OF_DIAMONDS,
    TEN_OF_DIAMONDS,
    JACK_OF_DIAMONDS,
    KNIGHT_OF_DIAMONDS,
    QUEEN_OF_DIAMONDS,
    KING_OF_DIAMONDS,
) = range(DIAMONDS * N_RANKS, DIAMONDS * N_RANKS + N_RANKS)
(
    ACE_OF_CLUBS,
    TWO_OF_CLUBS,
    THREE_OF_CLUBS,
    FOUR_OF_CLUBS,
    FIVE_OF_CLUBS,
    SIX_OF_CLUBS,
    SEVEN_OF_CLUBS,
    EIGHT_OF_CLUBS,
    NINE_OF_CLUBS,
    TEN_OF_CLUBS,
    JACK_OF_CLUBS,
    KNIGHT_OF_CLUBS,
    QUEEN_OF_CLUBS,
    KING_OF_CLUBS,
) = range(CLUBS * N_RANKS, CLUBS * N_RANKS + N_RANKS)

# --------------------------------------------------------------------------------------------
# Lookup tables, indexed by id
# --------------------------------------------------------------------------------------------

# Card points, French count, in half points so that every sum is exact in integers.
BOUT_HALF_POINTS: Final = 9  # 4.5
KING_HALF_POINTS: Final = 9  # 4.5
QUEEN_HALF_POINTS: Final = 7  # 3.5
KNIGHT_HALF_POINTS: Final = 5  # 2.5
JACK_HALF_POINTS: Final = 3  # 1.5
LOW_CARD_HALF_POINTS: Final = 1  # 0.5
TOTAL_POINTS: Final = 91


_Scalar = TypeVar("_Scalar", bound=np.generic)


def _read_only(array: npt.NDArray[_Scalar]) -> npt.NDArray[_Scalar]:
    array.flags.writeable = False
    return array


_ids = np.arange(N_CARDS)
_is_suit_card = _ids < N_SUIT_CARDS
_is_trump = _ids > EXCUSE
_rank = np.where(_is_suit_card, _ids % N_RANKS, np.where(_is_trump, _ids - TRUMP_ID_OFFSET, 0))
_half_points = np.full(N_CARDS, LOW_CARD_HALF_POINTS)
_half_points[_is_suit_card & (_rank == JACK)] = JACK_HALF_POINTS
_half_points[_is_suit_card & (_rank == KNIGHT)] = KNIGHT_HALF_POINTS
_half_points[_is_suit_card & (_rank == QUEEN)] = QUEEN_HALF_POINTS
_half_points[_is_suit_card & (_rank == KING)] = KING_HALF_POINTS
_half_points[[EXCUSE, PETIT, TWENTY_ONE]] = BOUT_HALF_POINTS

HALF_POINTS: Final = _read_only(_half_points.astype(np.uint8))
"""Twice the card points, as integers: sums of half points are exact."""
POINTS: Final = _read_only(_half_points.astype(np.float64) / 2)
"""Card points (French count): bouts and kings 4.5, queens 3.5, knights 2.5, jacks 1.5, others
0.5; 91 in all."""
SUIT: Final = _read_only(
    np.where(_is_suit_card, _ids // N_RANKS, np.where(_is_trump, TRUMP_SUIT, EXCUSE_SUIT)).astype(
        np.uint8
    )
)
"""Suit index: 0..3 for suit cards (S H D C), ``TRUMP_SUIT`` (4), ``EXCUSE_SUIT`` (5)."""
RANK: Final = _read_only(_rank.astype(np.uint8))
"""Rank index (0 ace .. 13 king) for suit cards, n for trump n, 0 for the Excuse."""
IS_SUIT_CARD: Final = _read_only(_is_suit_card)
"""True for the 56 suit cards."""
IS_TRUMP: Final = _read_only(_is_trump)
"""True for the 21 trumps; the Excuse is not a trump."""
IS_EXCUSE: Final = _read_only(_ids == EXCUSE)
"""True for the Excuse only."""
IS_BOUT: Final = _read_only((_ids == EXCUSE) | (_ids == PETIT) | (_ids == TWENTY_ONE))
"""True for the three bouts (oudlers): the Petit, the 21 and the Excuse."""
IS_KING: Final = _read_only(_is_suit_card & (_rank == KING))
"""True for the four kings."""
IS_QUEEN: Final = _read_only(_is_suit_card & (_rank == QUEEN))
"""True for the four queens."""
IS_KNIGHT: Final = _read_only(_is_suit_card & (_rank == KNIGHT))
"""True for the four knights (cavaliers)."""
IS_JACK: Final = _read_only(_is_suit_card & (_rank == JACK))
"""True for the four jacks."""
IS_FACE_CARD: Final = _read_only(_is_suit_card & (_rank >= JACK))
"""True for the sixteen face cards: kings, queens, knights and jacks."""
MASK_WORD: Final = _read_only(np.where(_is_suit_card, 0, 1).astype(np.uint8))
"""Which mask word holds the card: 0 (``lo``) for suit cards, 1 (``hi``) for trumps and Excuse."""
MASK_BIT: Final = _read_only(np.where(_is_suit_card, _ids, _ids - TRUMP_ID_OFFSET).astype(np.uint8))
"""The card's bit in its mask word: ``id`` in ``lo``, ``id - 56`` in ``hi``."""
del _ids, _is_suit_card, _is_trump, _rank, _half_points

# --------------------------------------------------------------------------------------------
# Bitmask constants (Python ints; every lo mask stays below 2**56, every hi mask below 2**22)
# --------------------------------------------------------------------------------------------


def _lo_mask(ids: Iterable[int]) -> int:
    mask = 0
    for card in ids:
        mask |= 1 << card
    return mask


SUIT_MASKS: Final = tuple(_lo_mask(range(s * N_RANKS, (s + 1) * N_RANKS)) for s in range(N_SUITS))
"""Lo-word masks of the four suits, in the order spades, hearts, diamonds, clubs."""
SUIT_CARDS_MASK_LO: Final = (1 << N_SUIT_CARDS) - 1
KINGS_MASK: Final = _lo_mask(suit_card(s, KING) for s in range(N_SUITS))
QUEENS_MASK: Final = _lo_mask(suit_card(s, QUEEN) for s in range(N_SUITS))
KNIGHTS_MASK: Final = _lo_mask(suit_card(s, KNIGHT) for s in range(N_SUITS))
JACKS_MASK: Final = _lo_mask(suit_card(s, JACK) for s in range(N_SUITS))
FACE_CARDS_MASK: Final = KINGS_MASK | QUEENS_MASK | KNIGHTS_MASK | JACKS_MASK

EXCUSE_BIT_HI: Final = 1
PETIT_BIT_HI: Final = 1 << (PETIT - TRUMP_ID_OFFSET)
TWENTY_ONE_BIT_HI: Final = 1 << (TWENTY_ONE - TRUMP_ID_OFFSET)
TRUMPS_MASK_HI: Final = ((1 << (N_TRUMPS + 1)) - 1) & ~EXCUSE_BIT_HI
BOUTS_MASK_HI: Final = EXCUSE_BIT_HI | PETIT_BIT_HI | TWENTY_ONE_BIT_HI
ALL_MASK_HI: Final = TRUMPS_MASK_HI | EXCUSE_BIT_HI

# --------------------------------------------------------------------------------------------
# Masks
# --------------------------------------------------------------------------------------------


def _check_card(card: int) -> int:
    """``card`` as a plain int, or CardError if it is not a card id."""
    if not is_whole_number(card):
        raise CardError(f"a card id is an int in 0..{N_CARDS - 1}, not {card!r}")
    value = int(card)
    if not 0 <= value < N_CARDS:
        raise CardError(f"there is no card id {value}: card ids run from 0 to {N_CARDS - 1}")
    return value


def to_mask(cards: Iterable[int]) -> tuple[int, int]:
    """The bitmask ``(lo, hi)`` of a set of card ids; a repeated card sets its bit once.

    >>> to_mask([ACE_OF_SPADES, KING_OF_HEARTS, EXCUSE, PETIT, TWENTY_ONE])
    (134217729, 2097155)
    """
    lo = hi = 0
    for card in cards:
        value = _check_card(card)
        if value < N_SUIT_CARDS:
            lo |= 1 << value
        else:
            hi |= 1 << (value - TRUMP_ID_OFFSET)
    return lo, hi


def from_mask(lo: int, hi: int) -> list[int]:
    """The card ids of the bitmask ``(lo, hi)``, in increasing order.

    >>> from_mask(1 << KING_OF_HEARTS, EXCUSE_BIT_HI | PETIT_BIT_HI) == [KING_OF_HEARTS, 56, 57]
    True
    """
    lo, hi = int(lo), int(hi)
    if lo < 0 or lo & ~SUIT_CARDS_MASK_LO:
        raise CardError(f"lo mask {lo:#x} has bits outside the {N_SUIT_CARDS} suit cards")
    if hi < 0 or hi & ~ALL_MASK_HI:
        raise CardError(f"hi mask {hi:#x} has bits outside the trumps and the Excuse")
    ids: list[int] = []
    for word, offset in ((lo, 0), (hi, TRUMP_ID_OFFSET)):
        while word:
            lowest = word & -word
            ids.append(offset + lowest.bit_length() - 1)
            word ^= lowest
    return ids


def ids_to_masks(
    ids: npt.ArrayLike,
) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]]:
    """Vectorised ``to_mask``: card ids of shape ``(..., k)`` to ``lo, hi`` of shape ``(...)``.

    >>> lo, hi = ids_to_masks([[KING_OF_HEARTS, PETIT], [ACE_OF_SPADES, EXCUSE]])
    >>> [from_mask(a, b) for a, b in zip(lo, hi)] == [[KING_OF_HEARTS, PETIT], [0, EXCUSE]]
    True
    """
    array = np.asarray(ids)
    if not np.issubdtype(array.dtype, np.integer):
        raise CardError(f"card ids must be integers, not {array.dtype}")
    if array.ndim == 0:
        raise CardError("card ids must have at least one dimension (the cards of a set)")
    if array.size and (array.min() < 0 or array.max() >= N_CARDS):
        raise CardError(f"card ids must lie in 0..{N_CARDS - 1}")
    bits = np.left_shift(np.uint64(1), MASK_BIT[array].astype(np.uint64))
    zero = np.uint64(0)
    in_hi = MASK_WORD[array] == 1
    lo = np.bitwise_or.reduce(np.where(in_hi, zero, bits), axis=-1)
    hi = np.bitwise_or.reduce(np.where(in_hi, bits, zero), axis=-1)
    return lo.astype(np.uint64), hi.astype(np.uint64)


def masks_to_membership(lo: npt.ArrayLike, hi: npt.ArrayLike) -> npt.NDArray[np.bool_]:
    """Masks of shape ``(...)`` to a boolean array of shape ``(..., 78)``, True where held.

    >>> masks_to_membership(1 << KING_OF_HEARTS, 0).nonzero()[0].tolist() == [KING_OF_HEARTS]
    True
    """
    lo_words, hi_words = np.broadcast_arrays(
        np.asarray(lo, dtype=np.uint64), np.asarray(hi, dtype=np.uint64)
    )
    one = np.uint64(1)
    lo_bits = (lo_words[..., np.newaxis] >> np.arange(N_SUIT_CARDS, dtype=np.uint64)) & one
    hi_bits = (
        hi_words[..., np.newaxis] >> np.arange(N_CARDS - N_SUIT_CARDS, dtype=np.uint64)
    ) & one
    return np.concatenate([lo_bits, hi_bits], axis=-1).astype(np.bool_)


def masks_to_ids(lo: npt.ArrayLike, hi: npt.ArrayLike) -> npt.NDArray[np.int8]:
    """Vectorised ``from_mask`` for sets of equal size: shape ``(...)`` to ``(..., k)``.

    Each row lists its card ids in increasing order. Every set must hold the same number of
    cards ``k`` (hands of one deal size); use ``masks_to_membership`` otherwise.

    >>> lo, hi = ids_to_masks([[PETIT, KING_OF_HEARTS], [EXCUSE, ACE_OF_SPADES]])
    >>> masks_to_ids(lo, hi).tolist() == [[KING_OF_HEARTS, PETIT], [ACE_OF_SPADES, EXCUSE]]
    True
    """
    held = masks_to_membership(lo, hi)
    counts = held.sum(axis=-1)
    if counts.size == 0:
        return np.zeros((*held.shape[:-1], 0), dtype=np.int8)
    size = int(counts.flat[0])
    if np.any(counts != size):
        raise CardError(
            f"masks_to_ids needs sets of equal size, got sizes {sorted(set(counts.flat))}"
        )
    flat = held.reshape(-1, N_CARDS)
    columns = np.nonzero(flat)[1]  # row-major: each row's ids come together, increasing
    return columns.astype(np.int8).reshape(*held.shape[:-1], size)


# --------------------------------------------------------------------------------------------
# Notation
# --------------------------------------------------------------------------------------------

_CARD_TOKENS: Final = tuple(
    [RANK_TOKENS[r] + SUIT_LETTERS[s] for s in range(N_SUITS) for r in range(N_RANKS)]
    + ["E"]
    + [str(n) for n in range(1, N_TRUMPS + 1)]
)
_TOKEN_TO_ID: Final = {token: card for card, token in enumerate(_CARD_TOKENS)}
_SEPARATORS: Final = re.compile(r"[\s,;]+")


def _display_key(card: int) -> int:
    """Sort key of the canonical order: trumps 21 down to 1, the Excuse, then S H D C K down."""
    if card > EXCUSE:
        return TWENTY_ONE - card  # 21 first
    if card == EXCUSE:
        return N_TRUMPS
    return N_TRUMPS + 1 + card // N_RANKS * N_RANKS + (KING - card % N_RANKS)


_DISPLAY_ORDER = sorted(range(N_CARDS), key=_display_key)
_DISPLAY_TOKENS = np.array([_CARD_TOKENS[card] for card in _DISPLAY_ORDER], dtype=object)


def format_masks(lo: npt.ArrayLike, hi: npt.ArrayLike) -> list[str]:
    """``format_cards`` of many sets at once, given as arrays of masks.

    >>> format_masks(*ids_to_masks([[PETIT, KING_OF_HEARTS], [EXCUSE, ACE_OF_SPADES]]))
    ['1 KH', 'E 1S']
    """
    held = masks_to_membership(lo, hi).reshape(-1, N_CARDS)[:, _DISPLAY_ORDER]
    return [" ".join(_DISPLAY_TOKENS[row]) for row in held]


def display_sorted(cards: Iterable[int]) -> list[int]:
    """``cards`` in the canonical order of the notation.

    Trumps from 21 down to 1, then the Excuse, then spades, hearts, diamonds, clubs, each from
    the King down to the ace.

    >>> [card_name(c) for c in display_sorted([ACE_OF_HEARTS, EXCUSE, PETIT, KING_OF_SPADES])]
    ['1', 'E', 'KS', '1H']
    """
    return sorted((_check_card(card) for card in cards), key=_display_key)


def card_name(card: int) -> str:
    """The card's token in the notation.

    >>> card_name(KING_OF_HEARTS), card_name(KNIGHT_OF_CLUBS), card_name(EXCUSE), card_name(PETIT)
    ('KH', 'CC', 'E', '1')
    """
    return _CARD_TOKENS[_check_card(card)]


def card_long_name(card: int) -> str:
    """The card's name in words.

    >>> card_long_name(KING_OF_HEARTS), card_long_name(TWENTY_ONE), card_long_name(EXCUSE)
    ('King of Hearts', 'Trump 21', 'Excuse')
    """
    value = _check_card(card)
    if value == EXCUSE:
        return "Excuse"
    if value > EXCUSE:
        return f"Trump {value - TRUMP_ID_OFFSET}"
    return f"{RANK_NAMES[value % N_RANKS]} of {SUIT_NAMES[value // N_RANKS]}"


def parse_card(token: str) -> int:
    """The id of one card written in the notation (any case, surrounding spaces ignored).

    >>> parse_card("KH") == KING_OF_HEARTS, parse_card("cc") == KNIGHT_OF_CLUBS
    (True, True)
    >>> parse_card("1") == PETIT, parse_card("1H") == ACE_OF_HEARTS, parse_card("e") == EXCUSE
    (True, True, True)
    >>> parse_card("C")
    Traceback (most recent call last):
    ...
    tarot_analysis.errors.CardError: unknown card 'C'
    """
    card = _TOKEN_TO_ID.get(token.strip().upper())
    if card is None:
        raise CardError(f"unknown card {token.strip()!r}")
    return card


def _size_phrase(n: int) -> str:
    return f"{n} card" if n == 1 else f"{n} cards"


def parse_cards(text: str, *, size: int | None = None) -> tuple[int, ...]:
    """The card ids written in ``text``, in the order written.

    Tokens are separated by spaces, commas or semicolons, in any case. A token that is no card,
    a card written twice, or (when ``size`` is given) a wrong number of cards raises
    ``CardError`` naming the token, the card or the count.

    >>> parse_cards("21, 1; e kh") == (TWENTY_ONE, PETIT, EXCUSE, KING_OF_HEARTS)
    True
    >>> parse_cards("KH QH ZH")
    Traceback (most recent call last):
    ...
    tarot_analysis.errors.CardError: unknown card 'ZH' (token 3)
    >>> parse_cards("KH 21", size=3)
    Traceback (most recent call last):
    ...
    tarot_analysis.errors.CardError: a hand of 3 cards was expected, got 2
    """
    tokens = [token for token in _SEPARATORS.split(text) if token]
    cards: list[int] = []
    position_of: dict[int, int] = {}
    for position, token in enumerate(tokens, start=1):
        card = _TOKEN_TO_ID.get(token.upper())
        if card is None:
            raise CardError(f"unknown card {token!r} (token {position})")
        if card in position_of:
            raise CardError(
                f"card {_CARD_TOKENS[card]!r} appears twice "
                f"(tokens {position_of[card]} and {position})"
            )
        position_of[card] = position
        cards.append(card)
    if size is not None and len(cards) != size:
        raise CardError(f"a hand of {_size_phrase(size)} was expected, got {len(cards)}")
    return tuple(cards)


def check_each_once(groups: Iterable[tuple[str, Iterable[int]]]) -> None:
    """Raise :class:`~tarot_analysis.errors.CardError` naming the first card found twice among
    ``groups`` (a place named, such as ``"seat 1"``, and its cards): twice in one place, or in
    two places."""
    seen: dict[int, str] = {}
    for where, ids in groups:
        for card in ids:
            if card in seen:
                places = (
                    f"twice in {where}"
                    if seen[card] == where
                    else f"both in {seen[card]} and in {where}"
                )
                raise CardError(f"card {card_name(card)!r} is {places}")
            seen[card] = where


def format_cards(cards: Iterable[int]) -> str:
    """``cards`` in the notation, in canonical order (see ``display_sorted``).

    >>> format_cards([ACE_OF_HEARTS, KING_OF_HEARTS, EXCUSE, PETIT, TWENTY_ONE, QUEEN_OF_CLUBS])
    '21 1 E KH 1H QC'
    """
    return " ".join(_CARD_TOKENS[card] for card in display_sorted(cards))


def trumps_text(trumps: int, excuse: bool) -> str:
    """``trumps`` trumps (the Excuse not among them) and, if ``excuse``, the Excuse, in words.

    >>> trumps_text(5, True), trumps_text(0, False)
    ('5 trumps and the Excuse', 'no trump')
    """
    count = "no trump" if trumps == 0 else f"{trumps} trump{'s' * (trumps != 1)}"
    return f"{count} and the Excuse" if excuse else count


# --------------------------------------------------------------------------------------------
# Hand
# --------------------------------------------------------------------------------------------

_RED_SUITS: Final = (HEARTS, DIAMONDS)


@dataclass(frozen=True, init=False, repr=False, slots=True)
class Hand:
    """A set of cards held by one player (or a dog, or an écart), immutable.

    Built from card ids or from a text in the notation. ``cards`` holds the ids in increasing
    order; ``str(hand)`` writes the notation in canonical order, and ``repr(hand)`` is an
    expression that rebuilds the hand.

    >>> hand = Hand.parse("21 19 12 6 1 E KH CH 10H 8H 1H JD 8D QC CC 7C 6S 4S", size=18)
    >>> len(hand), hand.bouts, hand.trumps, hand.has_excuse, hand.points
    (18, 3, 5, True, 33.0)
    >>> hand.suit_lengths
    (2, 5, 2, 3)
    >>> KING_OF_HEARTS in hand, "QC" in hand, "QH" in hand
    (True, True, False)
    """

    cards: tuple[int, ...]
    _lo: int = field(compare=False)
    _hi: int = field(compare=False)

    def __init__(self, cards: str | Iterable[int] = ()) -> None:
        """A hand of ``cards``: card ids, or a text in the notation (as ``Hand.parse``).

        A card given twice raises ``CardError``.

        >>> Hand([KING_OF_HEARTS, TWENTY_ONE]) == Hand("21 KH")
        True
        """
        if isinstance(cards, str):
            cards = parse_cards(cards)
        ids = [_check_card(card) for card in cards]
        lo, hi = to_mask(ids)
        if lo.bit_count() + hi.bit_count() != len(ids):
            seen: set[int] = set()
            for card in ids:
                if card in seen:
                    raise CardError(f"card {_CARD_TOKENS[card]!r} appears twice")
                seen.add(card)
        object.__setattr__(self, "cards", tuple(sorted(ids)))
        object.__setattr__(self, "_lo", lo)
        object.__setattr__(self, "_hi", hi)

    @classmethod
    def parse(cls, text: str, size: int | None = None) -> Hand:
        """The hand written in ``text`` in the notation (see ``parse_cards``).

        >>> Hand.parse("kh 21 e")
        Hand('21 E KH')
        """
        return cls(parse_cards(text, size=size))

    @classmethod
    def from_mask(cls, lo: int, hi: int) -> Hand:
        """The hand of the bitmask ``(lo, hi)``.

        >>> Hand.from_mask(1 << KING_OF_HEARTS, TWENTY_ONE_BIT_HI)
        Hand('21 KH')
        """
        return cls(from_mask(lo, hi))

    @property
    def mask(self) -> tuple[int, int]:
        """The bitmask ``(lo, hi)`` of the hand."""
        return self._lo, self._hi

    def __len__(self) -> int:
        return len(self.cards)

    def __iter__(self) -> Iterator[int]:
        return iter(self.cards)

    def __contains__(self, card: object) -> bool:
        """Whether the hand holds ``card``, a card id or a token such as ``'KH'``."""
        if isinstance(card, str):
            card = parse_card(card)
        if not is_whole_number(card):
            return False
        value = int(card)
        if not 0 <= value < N_CARDS:
            return False
        if value < N_SUIT_CARDS:
            return bool(self._lo >> value & 1)
        return bool(self._hi >> (value - TRUMP_ID_OFFSET) & 1)

    def __str__(self) -> str:
        return format_cards(self.cards)

    def __repr__(self) -> str:
        return f"Hand({str(self)!r})"

    @property
    def half_points(self) -> int:
        """Twice the card points of the hand, an exact integer."""
        return int(HALF_POINTS[list(self.cards)].sum(dtype=np.int64))

    @property
    def points(self) -> float:
        """The card points of the hand (French count)."""
        return self.half_points / 2

    @property
    def bouts(self) -> int:
        """How many bouts (Petit, 21, Excuse) the hand holds."""
        return (self._hi & BOUTS_MASK_HI).bit_count()

    @property
    def trumps(self) -> int:
        """How many trumps the hand holds, not counting the Excuse."""
        return (self._hi & TRUMPS_MASK_HI).bit_count()

    @property
    def has_excuse(self) -> bool:
        """Whether the hand holds the Excuse."""
        return bool(self._hi & EXCUSE_BIT_HI)

    @property
    def trumps_text(self) -> str:
        """The hand's trumps in words, the Excuse named apart (it is no trump, yet counts beside
        them for a poignée and for Chavey's count): every command says them this way.

        >>> Hand("21 19 12 6 1 E KH").trumps_text, Hand("E").trumps_text, Hand("7").trumps_text
        ('5 trumps and the Excuse', 'no trump and the Excuse', '1 trump')
        """
        return trumps_text(self.trumps, self.has_excuse)

    @property
    def has_petit(self) -> bool:
        """Whether the hand holds the Petit (trump 1)."""
        return bool(self._hi & PETIT_BIT_HI)

    @property
    def suit_lengths(self) -> tuple[int, int, int, int]:
        """How many cards of each suit the hand holds: (spades, hearts, diamonds, clubs)."""
        s, h, d, c = ((self._lo & mask).bit_count() for mask in SUIT_MASKS)
        return s, h, d, c

    def _repr_html_(self) -> str:
        """The hand as a small HTML table for notebooks: trumps, then one row per suit."""
        trumps = [c for c in display_sorted(self.cards) if c > EXCUSE]
        trump_cells = " ".join(_CARD_TOKENS[c] for c in trumps)
        if self.has_excuse:
            trump_cells = f"{trump_cells} <b>E</b>" if trump_cells else "<b>E</b>"
        rows = [
            "<tr><th style='text-align:left'>Trumps</th>"
            f"<td style='text-align:left'>{trump_cells or '—'}</td></tr>"
        ]
        for suit in range(N_SUITS):
            held = [
                c for c in display_sorted(self.cards) if c < N_SUIT_CARDS and c // N_RANKS == suit
            ]
            colour = "#c00" if suit in _RED_SUITS else "inherit"  # black suits follow the theme
            ranks = " ".join(RANK_TOKENS[c % N_RANKS] for c in held) or "—"
            rows.append(
                f"<tr><th style='text-align:left;color:{colour}' title='{SUIT_NAMES[suit]}'>"
                f"{SUIT_SYMBOLS[suit]}</th>"
                f"<td style='text-align:left;color:{colour}'>{ranks}</td></tr>"
            )
        caption = (
            f"{_size_phrase(len(self))}, {self.bouts} bout{'s' if self.bouts != 1 else ''}, "
            f"{self.points:g} points"
        )
        return (
            f"<table class='tarot-hand' title='{html.escape(str(self), quote=True)}'>"
            f"<caption style='text-align:left'>{caption}</caption>" + "".join(rows) + "</table>"
        )
