"""What each legal action would do, as small whole numbers, written by compiled code.

Beside the seat's encoding (:mod:`tarot_analysis.engine.encoding`, what the seat knows),
:func:`action_features_into` writes one row of :data:`N_ACTION_FEATURES` numbers for every
legal action, in the order of the actions' numbers: for a card, whether it wins the trick as it
stands, whether a seat still to play may beat it (from the voids seen and the cards not seen),
whether it is the master of its suit, its points, its suit and rank, what is left of its suit
and of trumps outside the hand; for a bid, the contract, whether it takes the dog, and the
hand's evaluations (Noël Chavey's count for that contract, the bouts, trumps, kings, voids...);
for a call, the called card's suit and rank and the hand's cards of that suit; for a poignée, its
level. Every row also says whether the action is the one given as ``hint`` (the heuristic's,
which the bots compute: the engine knows no bot).

A value is a whole number from 0 to 255 (:data:`ACTION_FEATURES` names each, with its scale);
:data:`FEATURE_SCALE` turns them into the network's inputs, about 0 to 1. What a seat may not
know is never read: "outside" means the cards neither in its hand, nor played, nor in its own
écart.

>>> from tarot_analysis.game.rules import load_rules
>>> from tarot_analysis.engine.game import GameState
>>> state = GameState.deal(load_rules("fft-4"), seed=3)
>>> rows, actions = action_features(state, 0)
>>> rows.shape[1] == N_ACTION_FEATURES, list(actions) == list(state.legal_actions())
(True, True)
>>> int(rows[0, feature("pass")]), int(rows[1, feature("bid")])
(1, 1)
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import numpy.typing as npt
from numba import njit

from tarot_analysis._jit import KERNEL, popcount
from tarot_analysis.deals.evaluators import chavey_count
from tarot_analysis.engine import params as R
from tarot_analysis.engine import state as S
from tarot_analysis.engine.cardsets import (
    BOUTS_HI,
    EXCUSE,
    EXCUSE_HI,
    KINGS_LO,
    N_SUIT_CARDS,
    NOT_LED,
    ONE,
    SUIT_LO,
    TRUMP_LED,
    TRUMPS_HI,
    ZERO,
    half_points_of,
    trumps_above,
)
from tarot_analysis.engine.game import GameState
from tarot_analysis.errors import TarotInputError, seat_number

__all__ = [
    "ACTION_FEATURES",
    "FEATURES_VERSION",
    "FEATURE_SCALE",
    "N_ACTION_FEATURES",
    "action_features",
    "action_features_into",
    "feature",
]

#: The version of the features: changed whenever one is added, moved or computed differently.
FEATURES_VERSION: Final = 1

#: The features of an action in order: name, the unit of its whole number (its value × unit
#: is about 0 to 1 as the network reads it), and what it says.
ACTION_FEATURES: Final[tuple[tuple[str, float, str], ...]] = (
    ("card", 1.0, "1 for a card"),
    ("wins_now", 1.0, "the card would win the trick as it stands"),
    ("may_be_beaten", 1.0, "it wins as it stands and a seat still to play may beat it"),
    ("beaters_outside", 1 / 21, "cards outside the hand that beat it in its suit or by trumping"),
    ("master", 1.0, "no card outside the hand beats it in its own suit (trumps: no higher trump)"),
    ("half_points", 1 / 9, "its card points × 2"),
    ("bout", 1.0, "the Excuse, the Petit or the 21"),
    ("trump", 1.0, "a trump (not the Excuse)"),
    ("excuse", 1.0, "the Excuse"),
    ("spades", 1.0, "a spade (a call: the called card's suit)"),
    ("hearts", 1.0, "a heart"),
    ("diamonds", 1.0, "a diamond"),
    ("clubs", 1.0, "a club"),
    ("rank", 1 / 21, "1 (ace) to 14 (king) for a suit card, the number of a trump"),
    ("suit_outside", 1 / 21, "cards of its suit outside the hand (a trump: trumps outside)"),
    ("trumps_outside", 1 / 21, "trumps outside the hand"),
    ("suit_in_hand", 1 / 21, "cards of its suit in the hand, itself included"),
    ("trick_half_points", 1 / 54, "the card points × 2 the trick would hold with it"),
    ("called", 1.0, "a called card"),
    ("hint", 1.0, "the action given as the hint (the heuristic's)"),
    ("pass", 1.0, "1 for a pass"),
    ("bid", 1.0, "1 for a contract bid"),
    ("contract", 1 / 4, "the contract bid, 1 for the lowest"),
    ("takes_dog", 1.0, "the contract bid takes the dog"),
    ("chavey", 1 / 100, "Chavey's count of the hand for it (voids and singletons without dog)"),
    ("hand_trumps", 1 / 22, "the hand's trumps, the Excuse included"),
    ("hand_bouts", 1 / 3, "the hand's bouts"),
    ("hand_kings", 1 / 4, "the hand's kings"),
    ("hand_voids", 1 / 4, "the hand's void suits"),
    ("hand_singletons", 1 / 4, "the hand's single cards of a suit"),
    ("hand_longest", 1 / 14, "the hand's longest suit"),
    ("hand_half_points", 1 / 100, "the hand's card points × 2"),
    ("call", 1.0, "1 for a call"),
    ("poignee", 1.0, "1 for a poignée shown or not"),
    ("poignee_level", 1 / 3, "the poignée's level, 0 for none"),
    ("chelem", 1.0, "1 for announcing a chelem or not"),
    ("announce", 1.0, "announcing the chelem"),
)
N_ACTION_FEATURES: Final = len(ACTION_FEATURES)
#: The unit of each feature, for compiled code.
FEATURE_SCALE: Final = np.array([unit for _, unit, _ in ACTION_FEATURES], dtype=np.float32)
_NAMES: Final = tuple(name for name, _, _ in ACTION_FEATURES)

F_CARD: Final = _NAMES.index("card")
F_WINS: Final = _NAMES.index("wins_now")
F_BEATEN: Final = _NAMES.index("may_be_beaten")
F_BEATERS: Final = _NAMES.index("beaters_outside")
F_MASTER: Final = _NAMES.index("master")
F_HALF: Final = _NAMES.index("half_points")
F_BOUT: Final = _NAMES.index("bout")
F_TRUMP: Final = _NAMES.index("trump")
F_EXCUSE: Final = _NAMES.index("excuse")
F_SUIT_0: Final = _NAMES.index("spades")
F_RANK: Final = _NAMES.index("rank")
F_SUIT_OUT: Final = _NAMES.index("suit_outside")
F_TRUMPS_OUT: Final = _NAMES.index("trumps_outside")
F_SUIT_IN: Final = _NAMES.index("suit_in_hand")
F_TRICK_HALF: Final = _NAMES.index("trick_half_points")
F_CALLED: Final = _NAMES.index("called")
F_HINT: Final = _NAMES.index("hint")
F_PASS: Final = _NAMES.index("pass")
F_BID: Final = _NAMES.index("bid")
F_CONTRACT: Final = _NAMES.index("contract")
F_TAKES_DOG: Final = _NAMES.index("takes_dog")
F_CHAVEY: Final = _NAMES.index("chavey")
F_HAND_0: Final = _NAMES.index("hand_trumps")
F_CALL: Final = _NAMES.index("call")
F_POIGNEE: Final = _NAMES.index("poignee")
F_POIGNEE_LEVEL: Final = _NAMES.index("poignee_level")
F_CHELEM: Final = _NAMES.index("chelem")
F_ANNOUNCE: Final = _NAMES.index("announce")
_RANKS: Final = 14


def feature(name: str) -> int:
    """The column of feature ``name`` (:data:`ACTION_FEATURES`)."""
    if name not in _NAMES:
        raise TarotInputError(f"no action feature {name!r}; features: {', '.join(_NAMES)}")
    return _NAMES.index(name)


def action_features(
    state: GameState, seat: int, hint: int = -1
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]:
    """The features of each legal action of ``seat`` (the seat to act) at ``state``, one row
    each, and the actions, in order; ``hint``: the action to mark as the hint (−1: none)."""
    seat = seat_number(seat, state.rules.players)
    if state.rules.tarocco is not None:
        raise TarotInputError(f"{state.rules.name}: Tarocco deals have no action features")
    out = np.zeros((S.N_ACTIONS, N_ACTION_FEATURES), dtype=np.uint8)
    actions = np.zeros(S.N_ACTIONS, dtype=np.int64)
    mask = np.zeros(S.N_ACTIONS, dtype=np.bool_)
    count = action_features_into(
        state.m, state.s, state.engine.params, state.engine.half_points, seat, hint, mask,
        actions, out,
    )  # fmt: skip
    return out[:count].copy(), actions[:count].copy()


# --------------------------------------------------------------------------------------------
# Compiled
# --------------------------------------------------------------------------------------------


@njit(**KERNEL)
def action_features_into(
    m: Any, s: Any, p: Any, half: Any, seat: int, hint: int, mask: Any, actions: Any, out: Any
) -> int:
    """Write a row of features (uint8, :data:`N_ACTION_FEATURES`) into ``out[k]`` for the
    ``k``-th legal action of ``seat`` (the seat to act) at ``(m, s)``, that action into
    ``actions[k]``; the legal actions into ``mask``. Returns how many; rows past them are left
    as they were. Allocates nothing."""
    S.legal_mask(m, s, p, mask)
    lo = m[S.M_HANDS + 2 * seat]
    hi = m[S.M_HANDS + 2 * seat + 1]
    count = 0
    for action in range(S.N_ACTIONS):
        if not mask[action]:
            continue
        row = out[count]
        for f in range(N_ACTION_FEATURES):
            row[f] = 0
        if action == hint:
            row[F_HINT] = 1
        kind = s[S.S_KIND]
        if kind == S.CALL:
            call_features(lo, action, row)
        elif action < S.PASS:
            _card_features(m, s, p, half, seat, lo, hi, action, row)
        elif kind == S.BID:
            _bid_features(p, half, lo, hi, action, row)
        elif s[S.S_KIND] == S.POIGNEE:
            row[F_POIGNEE] = 1
            row[F_POIGNEE_LEVEL] = action - S.SHOW_0
        elif action == S.NO_CHELEM or action == S.ANNOUNCE_CHELEM:
            row[F_CHELEM] = 1
            row[F_ANNOUNCE] = 1 if action == S.ANNOUNCE_CHELEM else 0
        actions[count] = action
        count += 1
    return count


@njit(inline="always")
def _outside(
    m: Any, s: Any, seat: int, lo: np.uint64, hi: np.uint64
) -> tuple[np.uint64, np.uint64]:
    """The cards ``seat`` cannot see: neither in its hand, nor played, nor in its own écart."""
    out_lo = ~lo & ~m[S.M_PLAYED] & np.uint64((1 << N_SUIT_CARDS) - 1)
    out_hi = ~hi & ~m[S.M_PLAYED + 1] & (TRUMPS_HI | EXCUSE_HI)
    if s[S.S_TAKER] == seat:
        out_lo &= ~m[S.M_ECART]
        out_hi &= ~m[S.M_ECART + 1]
    return out_lo, out_hi


@njit(inline="always")
def _suit_above(suit: int, rank: int) -> np.uint64:
    """The cards of ``suit`` above rank index ``rank`` (0: the ace)."""
    return SUIT_LO[suit] & ~((ONE << np.uint64(suit * _RANKS + rank + 1)) - ONE)


@njit(**KERNEL)
def _card_features(
    m: Any, s: Any, p: Any, half: Any, seat: int, lo: np.uint64, hi: np.uint64, card: int,
    row: Any,
) -> None:  # fmt: skip
    """The features of playing ``card``."""
    out_lo, out_hi = _outside(m, s, seat, lo, hi)
    row[F_CARD] = 1
    row[F_HALF] = half[card]
    row[F_TRUMPS_OUT] = popcount(out_hi & TRUMPS_HI)
    called = card == s[S.S_CALLED_1] or card == s[S.S_CALLED_2]
    row[F_CALLED] = 1 if called else 0
    trick_half = half[card]
    for k in range(s[S.S_IN_TRICK]):
        trick_half += half[s[S.S_TRICK_CARDS + k]]
    row[F_TRICK_HALF] = min(trick_half, 255)
    if card == EXCUSE:
        row[F_EXCUSE] = 1
        row[F_BOUT] = 1
        return
    if card >= N_SUIT_CARDS:
        number = card - N_SUIT_CARDS
        above_lo, above_hi = ZERO, trumps_above(out_hi, number)
        row[F_TRUMP] = 1
        row[F_BOUT] = 1 if (ONE << np.uint64(number)) & BOUTS_HI else 0
        row[F_RANK] = number
        row[F_SUIT_OUT] = popcount(out_hi & TRUMPS_HI)
        row[F_SUIT_IN] = popcount(hi & TRUMPS_HI)
        beaters = popcount(above_hi)
    else:
        suit = card // _RANKS
        above_lo, above_hi = out_lo & _suit_above(suit, card % _RANKS), ZERO
        row[F_SUIT_0 + suit] = 1
        row[F_RANK] = card % _RANKS + 1
        row[F_SUIT_OUT] = popcount(out_lo & SUIT_LO[suit])
        row[F_SUIT_IN] = popcount(lo & SUIT_LO[suit])
        beaters = popcount(above_lo) + popcount(out_hi & TRUMPS_HI)
    row[F_BEATERS] = beaters
    row[F_MASTER] = 1 if above_lo | above_hi == ZERO else 0
    if _wins_now(s, card):
        row[F_WINS] = 1
        if _may_be_beaten(s, p, seat, card, above_lo, above_hi, out_hi):
            row[F_BEATEN] = 1


@njit(inline="always")
def _led_after(s: Any, card: int) -> int:
    """The suit of the trick once ``card`` is down: its own when it is the first real card."""
    led = s[S.S_LED]
    if led != NOT_LED:
        return led
    return card // _RANKS if card < N_SUIT_CARDS else TRUMP_LED


@njit(**KERNEL)
def _wins_now(s: Any, card: int) -> bool:
    """Whether ``card`` (not the Excuse) would win the trick as it stands."""
    best = s[S.S_BEST]
    if s[S.S_LED] == NOT_LED or best < 0:
        return True
    winner = s[S.S_TRICK_CARDS + best]
    if card >= N_SUIT_CARDS:
        return winner < N_SUIT_CARDS or card > winner
    return winner < N_SUIT_CARDS and card // _RANKS == s[S.S_LED] and card > winner


@njit(**KERNEL)
def _may_be_beaten(
    s: Any, p: Any, seat: int, card: int, above_lo: np.uint64, above_hi: np.uint64,
    out_hi: np.uint64,
) -> bool:  # fmt: skip
    """Whether a seat still to play in the trick may beat ``card``, winning it as it stands:
    a higher card of its suit outside the hand and the seat not seen void of it, or (a suit
    card) trumps outside and the seat not seen without trumps."""
    players = p[R.PLAYERS]
    later = players - s[S.S_IN_TRICK] - 1
    led = _led_after(s, card)
    trumps_out = out_hi & TRUMPS_HI
    for j in range(1, later + 1):
        voids = s[S.S_VOIDS + (seat + j) % players]
        has_trumps = not voids & S.NO_TRUMPS
        if card >= N_SUIT_CARDS:
            if above_hi != ZERO and has_trumps:
                return True
        else:
            if above_lo != ZERO and not (voids >> led) & 1:
                return True
            if trumps_out != ZERO and has_trumps:
                return True
    return False


@njit(**KERNEL)
def _bid_features(p: Any, half: Any, lo: np.uint64, hi: np.uint64, action: int, row: Any) -> None:
    """The features of a pass or a bid: the contract, and the hand's evaluations."""
    if action == S.PASS:
        row[F_PASS] = 1
        chavey = chavey_count(lo, hi, False)
    else:
        contract = action - S.BID_0
        takes_dog = p[R.CONTRACT_DOG + contract] == R.DOG_TAKEN
        row[F_BID] = 1
        row[F_CONTRACT] = contract + 1
        row[F_TAKES_DOG] = 1 if takes_dog else 0
        chavey = chavey_count(lo, hi, not takes_dog)
    row[F_CHAVEY] = min(max(chavey, 0), 255)
    row[F_HAND_0] = popcount(hi)
    row[F_HAND_0 + 1] = popcount(hi & BOUTS_HI)
    row[F_HAND_0 + 2] = popcount(lo & KINGS_LO)
    voids = 0
    singletons = 0
    longest = 0
    for suit in range(4):
        n = popcount(lo & SUIT_LO[suit])
        voids += n == 0
        singletons += n == 1
        longest = max(longest, n)
    row[F_HAND_0 + 3] = voids
    row[F_HAND_0 + 4] = singletons
    row[F_HAND_0 + 5] = longest
    row[F_HAND_0 + 6] = min(half_points_of(lo, hi, half), 255)


@njit(**KERNEL)
def call_features(lo: np.uint64, card: int, row: Any) -> None:
    """The features of calling ``card``: its suit and rank, the hand's cards of its suit."""
    suit = card // _RANKS
    row[F_CALL] = 1
    row[F_SUIT_0 + suit] = 1
    row[F_RANK] = card % _RANKS + 1
    row[F_SUIT_IN] = popcount(lo & SUIT_LO[suit])
