"""What one seat knows, as a fixed-length vector of numbers, written by compiled code.

:func:`encode_into` writes into a float32 array what ``seat`` may know of a deal at this moment,
from the same facts as :meth:`~tarot_analysis.engine.game.GameState.observation`: its own hand,
the auction, the taker and the contract, the called cards and the partners once seen, the dog
once shown, its own écart (another seat: the trumps of an écart the rules show), the poignées
shown, a chelem announced, every card played and by whom, the trick in progress, the voids,
the card points and tricks each seat has won, its place in the trick, the decision and the
number of players. Seats are counted from ``seat`` (0 is itself, 1 the next to play, ...), so
one layout serves every seat. Values are 0 or 1 (one-hot) except the counts, which are
fractions in [0, 1] (:func:`layout` names them).

The vector's length depends only on the number of players (:func:`encoding_size`): blocks by
seat have one row per player, and a learned bot is trained for one preset. Tarocco is not
encoded (no taker, no sides, every player for himself): :func:`encode` refuses it.

>>> from tarot_analysis.game.rules import load_rules
>>> state = GameState.deal(load_rules("fft-4"), seed=3)
>>> vector = encode(state, 0)
>>> vector.shape, vector.dtype
((1378,), dtype('float32'))
>>> hand = block(layout(4), "hand")
>>> tuple(int(card) for card in vector[hand].nonzero()[0]) == state.hand(0)
True
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import numpy.typing as npt
from numba import njit

from tarot_analysis._jit import KERNEL, trailing_zeros
from tarot_analysis.engine import params as R
from tarot_analysis.engine import state as S
from tarot_analysis.engine.cardsets import EXCUSE, N_SUIT_CARDS, ONE, TRUMPS_HI, ZERO
from tarot_analysis.engine.game import GameState
from tarot_analysis.engine.outcome import O_CONTRACT, O_REDEAL, O_TAKER, REDEAL_NONE
from tarot_analysis.errors import TarotInputError, seat_number

__all__ = [
    "ENCODING_VERSION",
    "block",
    "encode",
    "encode_into",
    "encoding_size",
    "layout",
]

#: The version of the layout: changed whenever a block is added, moved or read differently.
ENCODING_VERSION: Final = 1

N_CARDS: Final = 78
MIN_PLAYERS: Final = 3
#: Each seat's bid: not spoken (or no auction), pass, then each contract of the preset.
BID_CHOICES: Final = 2 + S.MAX_CONTRACTS
POIGNEE_LEVELS: Final = 4
VOID_MARKS: Final = 5  # the four suits, then no trumps
#: The most trumps with the Excuse a poignée can count: its count is given as a fraction of it.
POIGNEE_MAX: Final = 22

#: The blocks in order: name, rows (``"seats"``: one per player, else that many), row length,
#: and what the block holds. Seats are counted from the encoding seat.
BLOCKS: Final[tuple[tuple[str, int | str, int, str], ...]] = (
    ("players", 1, S.MAX_SEATS - MIN_PLAYERS + 1, "the number of players, 3 to 6, one-hot"),
    ("decision", 1, len(S.DECISIONS), "the decision to take: bid .. card, over; one-hot"),
    ("to_act", 1, 1, "1 when this seat is to act"),
    ("actor", "seats", 1, "the seat to act, one-hot (none once over)"),
    ("hand", 1, N_CARDS, "its own cards now"),
    ("bids", "seats", BID_CHOICES, "each seat's bid: not spoken, pass, contract 0 .. 7"),
    ("taker", "seats", 1, "the taker once the auction is over, one-hot"),
    ("contract", 1, S.MAX_CONTRACTS, "the contract once the auction is over, one-hot"),
    ("called", 1, N_CARDS, "the called cards once called"),
    ("partners", "seats", 1, "the seats seen to hold a called card (it was played)"),
    ("dog", 1, N_CARDS, "the dog once shown"),
    ("ecart", 1, N_CARDS, "the écart: all of it for the taker, else its trumps the rules show"),
    ("poignee_level", "seats", POIGNEE_LEVELS, "the poignée each seat showed: level 0 .. 3"),
    ("poignee_cards", "seats", N_CARDS, "the cards each seat showed with its poignée"),
    ("poignee_count", "seats", 1, "the trumps with the Excuse each poignée counted, / 22"),
    ("chelem", 1, 1, "1 when the taker announced a chelem"),
    ("played", "seats", N_CARDS, "every card each seat has played, the trick in progress too"),
    ("trick", "seats", N_CARDS, "the trick in progress, one card by place from its lead"),
    ("leader", "seats", 1, "the seat that led the trick in progress, one-hot"),
    ("position", "seats", 1, "this seat's place in the trick in progress, one-hot"),
    ("trick_number", 1, 1, "tricks finished, / the tricks of the deal"),
    ("voids", "seats", VOID_MARKS, "the suits each seat was seen to lack, then no trumps"),
    ("points", "seats", 1, "card points of the tricks each seat won, / the pack's points"),
    ("tricks_won", "seats", 1, "tricks each seat won, / the tricks of the deal"),
)

#: The vector's length is ``FIXED_LENGTH + SEAT_LENGTH × players``.
FIXED_LENGTH: Final = sum(int(rows) * width for _, rows, width, _ in BLOCKS if rows != "seats")
SEAT_LENGTH: Final = sum(width for _, rows, width, _ in BLOCKS if rows == "seats")


def layout(players: int) -> list[tuple[str, int, int]]:
    """The blocks of the vector for ``players``: ``(name, start, length)``, in order, tiling
    it exactly."""
    if isinstance(players, bool) or not MIN_PLAYERS <= int(players) <= S.MAX_SEATS:
        raise TarotInputError(f"players must be from 3 to 6, got {players!r}")
    blocks = []
    start = 0
    for name, rows, width, _ in BLOCKS:
        length = (int(players) if rows == "seats" else int(rows)) * width
        blocks.append((name, start, length))
        start += length
    return blocks


def encoding_size(players: int) -> int:
    """The length of the vector for ``players``."""
    _, start, length = layout(players)[-1]
    return start + length


def block(blocks: list[tuple[str, int, int]], name: str) -> slice:
    """The slice of block ``name`` in ``blocks`` (from :func:`layout`)."""
    for other, start, length in blocks:
        if other == name:
            return slice(start, start + length)
    raise TarotInputError(f"no block {name!r}; blocks: {', '.join(b[0] for b in blocks)}")


def encode(state: GameState, seat: int) -> npt.NDArray[np.float32]:
    """What ``seat`` knows of ``state`` now, as a float32 vector (see :func:`layout`)."""
    rules = state.rules
    if rules.tarocco is not None:
        raise TarotInputError(f"{rules.name}: Tarocco deals are not encoded")
    seat = seat_number(seat, rules.players)
    out = np.zeros(encoding_size(rules.players), dtype=np.float32)
    encode_into(state.m, state.s, state.engine.params, state.engine.half_points, seat, out)
    return out


# --------------------------------------------------------------------------------------------
# Compiled
# --------------------------------------------------------------------------------------------


@njit(**KERNEL)
def encode_into(m: Any, s: Any, p: Any, half: Any, seat: int, out: Any) -> int:
    """Write what ``seat`` knows of the state ``(m, s)`` into ``out`` (float32, at least
    :func:`encoding_size` long; French presets) and return the length written. ``p``, ``half``:
    the engine's rule array and card half-points. Allocates nothing.

    Each block group of :data:`BLOCKS` is written by its own function, in order: each takes
    where its blocks start and returns where the next start."""
    players = s[S.S_PLAYERS]
    for i in range(FIXED_LENGTH + SEAT_LENGTH * players):
        out[i] = 0.0
    at = _encode_turn(s, seat, out)
    _cards(m[S.M_HANDS + 2 * seat], m[S.M_HANDS + 2 * seat + 1], out, at)
    at += N_CARDS
    at = _encode_auction(s, seat, out, at)
    at = _encode_called(s, seat, out, at)
    at = _encode_dog_and_ecart(m, s, p, seat, out, at)
    at = _encode_announcements(m, s, seat, out, at)
    at = _encode_cards_played(s, seat, out, at)
    at = _encode_voids(s, seat, out, at)
    return _encode_won(s, half, seat, out, at)


@njit(**KERNEL)
def _cards(lo: np.uint64, hi: np.uint64, out: Any, at: int) -> None:
    """Set ``out[at + card]`` for every card of the set ``(lo, hi)``, taking its lowest card
    off until none is left: as many steps as cards, not 78 tests."""
    while lo:
        out[at + trailing_zeros(lo)] = 1.0
        lo &= lo - ONE
    while hi:
        out[at + N_SUIT_CARDS + trailing_zeros(hi)] = 1.0
        hi &= hi - ONE


@njit(**KERNEL)
def _tricks_seen(s: Any, kind: int) -> int:
    """Tricks finished and seen: those before the current one, every one once played out."""
    if kind == S.CARD:
        return s[S.S_TRICK]
    if kind == S.OVER and s[S.S_DEALT_OVER] and s[S.S_OUT + O_REDEAL] == REDEAL_NONE:
        return s[S.S_TRICKS]
    return 0


# The writers of the blocks below are inlined into encode_into by numba (``inline="always"``,
# not cached on their own, as in tarot_analysis._jit): called as functions, they made an
# encoding 7% slower than the one body they were split from.


@njit(inline="always")
def _actor(s: Any, kind: int) -> int:
    """The seat to act, −1 once the deal is over."""
    return s[S.S_ACTOR] if kind != S.OVER else -1


@njit(inline="always")
def _encode_turn(s: Any, seat: int, out: Any) -> int:
    """The blocks ``players``, ``decision``, ``to_act`` and ``actor``, from the start."""
    players = s[S.S_PLAYERS]
    kind = s[S.S_KIND]
    at = 0
    out[at + players - MIN_PLAYERS] = 1.0
    at += S.MAX_SEATS - MIN_PLAYERS + 1
    out[at + kind] = 1.0
    at += len(S.DECISIONS)
    actor = _actor(s, kind)
    if actor == seat:
        out[at] = 1.0
    at += 1
    if actor >= 0:
        out[at + (actor - seat) % players] = 1.0
    return at + players


@njit(inline="always")
def _encode_auction(s: Any, seat: int, out: Any, at: int) -> int:
    """The blocks ``bids``, ``taker`` and ``contract``.

    During the auction the seat to act and those after it have not spoken; the taker and the
    contract are known once it is over."""
    players = s[S.S_PLAYERS]
    kind = s[S.S_KIND]
    actor = _actor(s, kind)
    for k in range(players):
        bid = s[S.S_BIDS + k]
        if kind == S.BID and k >= actor:
            bid = -2
        out[at + ((k - seat) % players) * BID_CHOICES + bid + 2] = 1.0
    at += players * BID_CHOICES
    taker = s[S.S_OUT + O_TAKER]
    if taker >= 0:
        out[at + (taker - seat) % players] = 1.0
    at += players
    contract = s[S.S_OUT + O_CONTRACT]
    if contract >= 0:
        out[at + contract] = 1.0
    return at + S.MAX_CONTRACTS


@njit(inline="always")
def _encode_called(s: Any, seat: int, out: Any, at: int) -> int:
    """The blocks ``called`` and ``partners``.

    During the call only the cards already called; a partner once a called card is played."""
    players = s[S.S_PLAYERS]
    kind = s[S.S_KIND]
    called_1 = s[S.S_CALLED_1]
    called_2 = s[S.S_CALLED_2] if kind != S.CALL else -1
    if called_1 >= 0:
        out[at + called_1] = 1.0
    if called_2 >= 0:
        out[at + called_2] = 1.0
    at += N_CARDS
    if kind == S.CARD or (kind == S.OVER and _tricks_seen(s, kind) > 0):
        for v in (S.V_PARTNER_1, S.V_PARTNER_2):
            partner = s[S.S_VIEW + v]
            if partner >= 0:
                out[at + (partner - seat) % players] = 1.0
    return at + players


@njit(inline="always")
def _encode_dog_and_ecart(m: Any, s: Any, p: Any, seat: int, out: Any, at: int) -> int:
    """The blocks ``dog`` (once shown) and ``ecart`` (the taker's own, the trumps shown to the
    others when the rules show them)."""
    kind = s[S.S_KIND]
    taker = s[S.S_OUT + O_TAKER]
    contract = s[S.S_OUT + O_CONTRACT]
    dog_shown = (
        contract >= 0 and kind != S.BID and kind != S.CALL
        and p[R.CONTRACT_DOG + contract] == R.DOG_TAKEN
    )  # fmt: skip
    if dog_shown:
        _cards(m[S.M_DOG], m[S.M_DOG + 1], out, at)
    at += N_CARDS
    if taker >= 0 and seat == taker:
        _cards(m[S.M_ECART], m[S.M_ECART + 1], out, at)
    elif p[R.ECART_TRUMPS_SHOWN]:
        _cards(ZERO, m[S.M_ECART + 1] & TRUMPS_HI, out, at)
    return at + N_CARDS


@njit(inline="always")
def _encode_announcements(m: Any, s: Any, seat: int, out: Any, at: int) -> int:
    """The blocks ``poignee_level``, ``poignee_cards``, ``poignee_count`` and ``chelem``."""
    players = s[S.S_PLAYERS]
    for k in range(players):
        out[at + ((k - seat) % players) * POIGNEE_LEVELS + s[S.S_POIGNEES + k]] = 1.0
    at += players * POIGNEE_LEVELS
    for k in range(players):
        row = at + ((k - seat) % players) * N_CARDS
        _cards(m[S.M_SHOWN + 2 * k], m[S.M_SHOWN + 2 * k + 1], out, row)
    at += players * N_CARDS
    for k in range(players):
        out[at + (k - seat) % players] = s[S.S_POIGNEE_COUNT + k] / POIGNEE_MAX
    at += players
    if s[S.S_CHELEM]:
        out[at] = 1.0
    return at + 1


@njit(inline="always")
def _encode_cards_played(s: Any, seat: int, out: Any, at: int) -> int:
    """The blocks ``played`` (every card by seat, the trick in progress too), ``trick`` (the
    trick in progress by place), ``leader``, ``position`` and ``trick_number``."""
    players = s[S.S_PLAYERS]
    kind = s[S.S_KIND]
    finished = _tricks_seen(s, kind)
    in_trick = s[S.S_IN_TRICK] if kind == S.CARD else 0
    leader = s[S.S_LEADER]
    for t in range(finished):
        first = s[S.S_LEADERS + t]
        for k in range(players):
            card = s[S.S_LOG + t * S.MAX_SEATS + k]
            out[at + ((first + k - seat) % players) * N_CARDS + card] = 1.0
    for k in range(in_trick):
        card = s[S.S_TRICK_CARDS + k]
        out[at + ((leader + k - seat) % players) * N_CARDS + card] = 1.0
    at += players * N_CARDS
    for k in range(in_trick):
        out[at + k * N_CARDS + s[S.S_TRICK_CARDS + k]] = 1.0
    at += players * N_CARDS
    if kind == S.CARD:
        out[at + (leader - seat) % players] = 1.0
    at += players
    if kind == S.CARD:
        out[at + (seat - leader) % players] = 1.0
    at += players
    out[at] = finished / s[S.S_TRICKS]
    return at + 1


@njit(inline="always")
def _encode_voids(s: Any, seat: int, out: Any, at: int) -> int:
    """The block ``voids``: the suits each seat was seen to lack, then no trumps."""
    players = s[S.S_PLAYERS]
    for k in range(players):
        voids = s[S.S_VOIDS + k]
        row = at + ((k - seat) % players) * VOID_MARKS
        for suit in range(4):
            if (voids >> suit) & 1:
                out[row + suit] = 1.0
        if voids & S.NO_TRUMPS:
            out[row + 4] = 1.0
    return at + players * VOID_MARKS


@njit(inline="always")
def _encode_won(s: Any, half: Any, seat: int, out: Any, at: int) -> int:
    """The blocks ``points`` and ``tricks_won``: the card points and tricks each seat won; the
    Excuse stays with its player's pile."""
    players = s[S.S_PLAYERS]
    kind = s[S.S_KIND]
    finished = _tricks_seen(s, kind)
    tricks = s[S.S_TRICKS]
    leader = s[S.S_LEADER]
    pack = 0
    for card in range(N_CARDS):
        pack += half[card]
    points_at = at
    won_at = at + players
    for t in range(finished):
        first = s[S.S_LEADERS + t]
        # the winner leads the next trick; the last one's is recorded after it
        next_leader = s[S.S_LEADERS + t + 1] if t + 1 < finished or kind == S.OVER else leader
        winner = (next_leader - seat) % players
        out[won_at + winner] += 1.0 / tricks
        for k in range(players):
            card = s[S.S_LOG + t * S.MAX_SEATS + k]
            owner = winner
            if card == EXCUSE and t < tricks - 1:
                owner = (first + k - seat) % players
            out[points_at + owner] += half[card] / pack
    return won_at + players
