"""A deal as a state that steps one decision at a time: who acts, what may be done, what follows.

The state of one deal is two fixed-shape arrays, the same for every preset: ``m`` (uint64,
:data:`N_M` words: the hands, the dog, the écart, the cards played and the cards shown, each as
two words, see ``M_*``) and ``s`` (int64, :data:`N_S`: everything else, see ``S_*``). Compiled
functions read and change them; none allocates, so a search can copy a state (two array
copies) and try every action from it. :class:`GameState` wraps them for people.

Phases, in order (French presets): the Petit-sec check, the auction (:data:`BID`), the call
(:data:`CALL`), the dog and the écart (:data:`ECART`, one card at a time), the announcements
(:data:`POIGNEE`, then :data:`CHELEM`), the tricks (:data:`CARD`), then :data:`OVER` with the
raw outcome (:mod:`tarot_analysis.engine.outcome`) in ``s[S_OUT:]``. Tarocco: the dealer's
discard (:data:`ECART`), then the tricks. Every rule comes from the engine's rule array ``p``
(:mod:`tarot_analysis.engine.params`); no bot is known here.

**Actions** are numbered once for every decision (:data:`N_ACTIONS` in all):

============  ================================================================
``0 .. 77``   a card, by its id (:mod:`tarot_analysis.game.cards`): called, discarded, or played
``78``        :data:`PASS` at the auction
``79 .. 86``  bid contract ``i`` of ``rules.contracts``: ``BID_0 + i``
``87 .. 90``  show a poignée of level 0 (none), 1, 2, 3: ``SHOW_0 + level``
``91, 92``    :data:`NO_CHELEM`, :data:`ANNOUNCE_CHELEM`
============  ================================================================
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
from numba import njit

from tarot_analysis._jit import KERNEL, popcount
from tarot_analysis.engine import params as R
from tarot_analysis.engine.cardsets import (
    EXCUSE,
    EXCUSE_HI,
    N_SUIT_CARDS,
    NOT_LED,
    ONE,
    PETIT,
    SUIT_LO,
    TRUMP_LED,
    TRUMPS_HI,
    ZERO,
    bit_of,
    bouts_in,
    half_points_of,
    highest_bit,
    holds,
    lowest,
    size,
    suit_of,
)
from tarot_analysis.engine.core import (
    ecart_sets,
    excuse_last_trick_side,
    first_call_candidates,
    has_petit_sec,
    legal_cards,
    poignee_level,
    second_call_candidates,
)
from tarot_analysis.engine.outcome import (
    N_OUTCOME,
    O_ATTACK_BOUTS,
    O_ATTACK_HALF,
    O_ATTACK_TRICKS,
    O_CALLED_1,
    O_CALLED_2,
    O_CHELEM_ANNOUNCED,
    O_CONTRACT,
    O_DEFENCE_TRICKS,
    O_DOG_HALF,
    O_ECART_HALF,
    O_PARTNER_1,
    O_PARTNER_2,
    O_PETIT_AU_BOUT,
    O_PETIT_AU_BOUT_SEAT,
    O_PETIT_WINS_LAST,
    O_REDEAL,
    O_TAKER,
    REDEAL_ALL_PASSED,
    REDEAL_NONE,
    REDEAL_PETIT_SEC,
)

MAX_SEATS: Final = 6
MAX_TRICKS: Final = 24
MAX_CONTRACTS: Final = 8

# ---- Decisions ------------------------------------------------------------------------------
BID: Final = 0
CALL: Final = 1
ECART: Final = 2
POIGNEE: Final = 3
CHELEM: Final = 4
CARD: Final = 5
OVER: Final = 6
#: The name of each kind of decision, by number.
DECISIONS: Final = ("bid", "call", "ecart", "poignee", "chelem", "card", "over")

# ---- Actions --------------------------------------------------------------------------------
N_CARD_ACTIONS: Final = 78
PASS: Final = 78
BID_0: Final = 79
SHOW_0: Final = BID_0 + MAX_CONTRACTS
NO_CHELEM: Final = SHOW_0 + 4
ANNOUNCE_CHELEM: Final = NO_CHELEM + 1
N_ACTIONS: Final = ANNOUNCE_CHELEM + 1

# ---- The public view every seat may see while playing (s[S_VIEW:]) -------------------------
V_TRICK: Final = 0  # number of the trick being played, from 0
V_LEADER: Final = 1  # seat that led it
V_LED: Final = 2  # suit of the trick: 0–3, TRUMP_LED, or NOT_LED
V_TOP_TRUMP: Final = 3  # highest trump in the trick (0: none)
V_TAKER: Final = 4  # the taker (Tarocco: the dealer)
V_IN_TRICK: Final = 5  # cards already in the trick (``trick[:V_IN_TRICK]``)
V_BEST: Final = 6  # position in the trick of the card winning it so far (−1: none)
V_CONTRACT: Final = 7
V_CALLED_1: Final = 8  # called cards (−1: none)
V_CALLED_2: Final = 9
V_PARTNER_1: Final = 10  # seat that played called card 1, once it is played (else −1)
V_PARTNER_2: Final = 11
V_PLAYERS: Final = 12
V_TRICKS: Final = 13  # tricks in the deal
V_CHELEM: Final = 14  # 1 when the taker announced a chelem
N_VIEW: Final = 15

#: In the voids (s[S_VOIDS + seat]): bit s for suit s, and NO_TRUMPS once a seat failed to trump.
NO_TRUMPS: Final = 16

ATTACK: Final = 1
DEFENCE: Final = 0

# ---- Tarocco: the parts of a deal's count and its events -----------------------------------
PART_POINTS: Final = 0  # card points of the pile, × 2
PART_MAGICIAN: Final = 1
PART_TAROCCHI: Final = 2
PART_ALL_TRICKS: Final = 3
N_PARTS: Final = 4
E_DEALER: Final = 0
E_FOOL_SEAT: Final = 1  # who held the Fool in play (−1: nobody, it was discarded)
E_FOOL_SHOWN: Final = 2  # the trick at which it was shown (−1: it was not)
E_MAGICIAN_SEAT: Final = 3  # who played the Magician to the last trick (−1: nobody)
E_LAST_WINNER: Final = 4
E_DISCARD_HALF: Final = 5
N_EVENTS: Final = 6
FOOL_AS_TAROCCO: Final = 14  # a card's rank in a trick: suit cards 0–13, the Fool, trump n
CANNOT_WIN: Final = -1
TAROCCHI_HI: Final = TRUMPS_HI | EXCUSE_HI

# ---- m: sets of cards, two words each -------------------------------------------------------
M_HANDS: Final = 0  # 2 × MAX_SEATS: each seat's hand now
M_DOG: Final = 2 * MAX_SEATS  # the dog as dealt (Tarocco: the dealer's extra cards)
M_ECART: Final = M_DOG + 2  # the écart (Tarocco: the dealer's discard), so far
M_PLAYED: Final = M_ECART + 2  # every card played, the trick in progress included
M_FORBIDDEN: Final = M_PLAYED + 2  # suit cards that may not lead the first trick (one word)
M_SHOWN: Final = M_FORBIDDEN + 2  # 2 × MAX_SEATS: the cards each seat showed (poignée)
N_M: Final = M_SHOWN + 2 * MAX_SEATS

# ---- s: everything else ---------------------------------------------------------------------
S_KIND: Final = 0  # the decision to take (BID .. CARD), or OVER
S_ACTOR: Final = 1  # the seat to take it
S_PLAYERS: Final = 2
S_TRICKS: Final = 3
S_TAKER: Final = 4  # Tarocco: the dealer
S_CONTRACT: Final = 5
S_CALLED_1: Final = 6
S_CALLED_2: Final = 7
S_NEXT: Final = 8  # the next seat to speak (auction) or to consider (poignées)
S_ECART_LEFT: Final = 9  # cards still to discard
S_CHELEM: Final = 10  # 1 when announced
S_TRICK: Final = 11  # the trick being played, from 0
S_IN_TRICK: Final = 12  # cards in it
S_LEADER: Final = 13
S_LED: Final = 14
S_TOP_TRUMP: Final = 15
S_BEST: Final = 16
S_EXCUSE_AT: Final = 17  # Tarocco: where the Fool was shown in this trick
S_TRUMPS_BROKEN: Final = 18
S_WON: Final = 19  # 2: tricks won by the defence, the attack
S_EXCUSE_DEBTOR: Final = 21  # the side owing a low card for the Excuse (−1: none)
S_PETIT_SIDE: Final = 22
S_PETIT_SEAT: Final = 23
S_PETIT_WINS_LAST: Final = 24
S_PEN_PETIT_SIDE: Final = 25
S_PEN_PETIT_WON: Final = 26
S_HALF: Final = 27  # 2: card points × 2 of the defence's and the attack's piles
S_BOUTS: Final = 29  # 2: their bouts
S_BEST_RANK: Final = 31  # Tarocco: the rank of the card winning the trick
S_DEALT_OVER: Final = 32  # 1 once the Petit-sec check is passed (the auction was held)
S_OUT: Final = 33  # N_OUTCOME: the raw outcome
S_VIEW: Final = S_OUT + N_OUTCOME  # N_VIEW
S_TRICK_CARDS: Final = S_VIEW + N_VIEW  # MAX_SEATS: the cards of the trick, in play order
S_VOIDS: Final = S_TRICK_CARDS + MAX_SEATS  # MAX_SEATS
S_POIGNEES: Final = S_VOIDS + MAX_SEATS  # MAX_SEATS: the poignée level each seat showed
S_BIDS: Final = S_POIGNEES + MAX_SEATS  # MAX_SEATS: each seat's bid (−1 pass, −2 none)
S_SIDE: Final = S_BIDS + MAX_SEATS  # MAX_SEATS: ATTACK or DEFENCE
S_LOG: Final = S_SIDE + MAX_SEATS  # MAX_TRICKS × MAX_SEATS: every trick in play order
S_LEADERS: Final = S_LOG + MAX_TRICKS * MAX_SEATS  # MAX_TRICKS + 1: who led each trick, then
# who won the last
S_PILES: Final = S_LEADERS + MAX_TRICKS + 1  # MAX_SEATS, Tarocco: card points × 2 by seat
S_WON_BY: Final = S_PILES + MAX_SEATS  # MAX_SEATS, Tarocco: tricks won by seat
S_PARTS: Final = S_WON_BY + MAX_SEATS  # N_PARTS × MAX_SEATS, Tarocco
S_EVENTS: Final = S_PARTS + N_PARTS * MAX_SEATS  # N_EVENTS, Tarocco
S_PASSER: Final = S_EVENTS + N_EVENTS  # a seat that must pass at the auction (−1: none)
# MAX_SEATS: the trumps with the Excuse each seat's poignée counted (0: none shown)
S_POIGNEE_COUNT: Final = S_PASSER + 1
N_S: Final = S_POIGNEE_COUNT + MAX_SEATS


def new_arrays() -> tuple[np.ndarray, np.ndarray]:
    """Empty state arrays ``(m, s)``."""
    return np.zeros(N_M, dtype=np.uint64), np.zeros(N_S, dtype=np.int64)


# --------------------------------------------------------------------------------------------
# Starting a deal
# --------------------------------------------------------------------------------------------


@njit(**KERNEL)
def start(m: Any, s: Any, deal: Any, forced: Any, dealer: int, p: Any, half: Any) -> None:
    """Set ``(m, s)`` to the start of the deal ``deal`` (players + 1, 2: hands and dog).

    ``forced``: taker, contract, called card 1 and 2 (−1: decided at the table; a taker of
    ``-2 - seat``: an auction in which ``seat`` must pass); ``dealer``:
    the dealing seat in Tarocco (ignored in French presets, where the last seat deals).
    """
    players = p[R.PLAYERS]
    m[:] = ZERO
    s[:] = 0
    for seat in range(players):
        m[M_HANDS + 2 * seat] = deal[seat, 0]
        m[M_HANDS + 2 * seat + 1] = deal[seat, 1]
    m[M_DOG] = deal[players, 0]
    m[M_DOG + 1] = deal[players, 1]
    s[S_PLAYERS] = players
    s[S_TRICKS] = p[R.HAND_SIZE]
    s[S_OUT : S_OUT + N_OUTCOME] = -1
    s[S_VIEW : S_VIEW + N_VIEW] = 0
    s[S_BIDS : S_BIDS + MAX_SEATS] = -2
    s[S_CALLED_1] = -1
    s[S_CALLED_2] = -1
    s[S_EXCUSE_DEBTOR] = -1
    s[S_PETIT_SIDE] = -1
    s[S_PETIT_SEAT] = -1
    s[S_PEN_PETIT_SIDE] = -1
    s[S_PASSER] = -1
    if p[R.TAROCCO]:
        _start_tarocco(m, s, dealer, p, half)
        return
    s[S_OUT + O_DOG_HALF] = half_points_of(m[M_DOG], m[M_DOG + 1], half)
    s[S_OUT + O_ECART_HALF] = 0
    if p[R.PETIT_SEC_REDEAL]:
        for seat in range(players):
            if has_petit_sec(m[M_HANDS + 2 * seat], m[M_HANDS + 2 * seat + 1]):
                s[S_OUT + O_REDEAL] = REDEAL_PETIT_SEC
                s[S_KIND] = OVER
                return
    s[S_DEALT_OVER] = 1
    s[S_TAKER] = forced[0]
    s[S_CONTRACT] = forced[1]
    s[S_CALLED_1] = forced[2]
    s[S_CALLED_2] = forced[3]
    if forced[0] < 0:
        if forced[0] <= -2:  # no taker forced, but this seat must pass: -2 - seat
            s[S_PASSER] = -2 - forced[0]
        s[S_TAKER] = -1
        s[S_CONTRACT] = -1
        s[S_BIDS : S_BIDS + players] = -1
        s[S_NEXT] = 0
        s[S_KIND] = BID
        s[S_ACTOR] = 0
        return
    _after_auction(m, s, p, half)


@njit(**KERNEL)
def _after_auction(m: Any, s: Any, p: Any, half: Any) -> None:
    s[S_OUT + O_REDEAL] = REDEAL_NONE
    s[S_OUT + O_TAKER] = s[S_TAKER]
    s[S_OUT + O_CONTRACT] = s[S_CONTRACT]
    _next_call(m, s, p, half)


@njit(**KERNEL)
def _next_call(m: Any, s: Any, p: Any, half: Any) -> None:
    """Ask for a called card still to choose, else go on to the dog."""
    if p[R.CALL] >= 1 and s[S_CALLED_1] < 0:
        s[S_KIND] = CALL
        s[S_ACTOR] = s[S_TAKER]
        return
    if p[R.CALL] == 2 and s[S_CALLED_2] < 0:
        s[S_KIND] = CALL
        s[S_ACTOR] = s[S_TAKER]
        return
    s[S_OUT + O_CALLED_1] = s[S_CALLED_1]
    s[S_OUT + O_CALLED_2] = s[S_CALLED_2]
    _dog(m, s, p, half)


@njit(**KERNEL)
def _dog(m: Any, s: Any, p: Any, half: Any) -> None:
    """The dog under the contract: taken (then an écart), or set aside for one side."""
    taker = s[S_TAKER]
    dog_use = p[R.CONTRACT_DOG + s[S_CONTRACT]]
    if dog_use == R.DOG_TAKEN:
        if not _take_the_dog(m, s, taker, p):
            _ecart_done(m, s, p, half)
        return
    if dog_use == R.DOG_FOR_TAKER:
        s[S_HALF + ATTACK] += s[S_OUT + O_DOG_HALF]
        s[S_BOUTS + ATTACK] += bouts_in(m[M_DOG + 1])
    else:
        s[S_HALF + DEFENCE] += s[S_OUT + O_DOG_HALF]
        s[S_BOUTS + DEFENCE] += bouts_in(m[M_DOG + 1])
    _sides(m, s, p, half)


@njit(**KERNEL)
def _take_the_dog(m: Any, s: Any, seat: int, p: Any) -> bool:
    """``seat`` takes the dog into its hand; whether it now has an écart to make."""
    m[M_HANDS + 2 * seat] |= m[M_DOG]
    m[M_HANDS + 2 * seat + 1] |= m[M_DOG + 1]
    s[S_ECART_LEFT] = p[R.DOG_SIZE]
    if s[S_ECART_LEFT] == 0:
        return False
    s[S_KIND] = ECART
    s[S_ACTOR] = seat
    return True


@njit(**KERNEL)
def _ecart_done(m: Any, s: Any, p: Any, half: Any) -> None:
    ecart_half = half_points_of(m[M_ECART], m[M_ECART + 1], half)
    s[S_HALF + ATTACK] += ecart_half
    s[S_BOUTS + ATTACK] += bouts_in(m[M_ECART + 1])
    s[S_OUT + O_ECART_HALF] = ecart_half
    _sides(m, s, p, half)


@njit(**KERNEL)
def _holder(m: Any, card: int, players: int) -> int:
    for seat in range(players):
        if holds(m[M_HANDS + 2 * seat], m[M_HANDS + 2 * seat + 1], card):
            return seat
    return -1


@njit(**KERNEL)
def _sides(m: Any, s: Any, p: Any, half: Any) -> None:
    """The taker's side: the taker and whoever holds a called card; then the announcements."""
    players = s[S_PLAYERS]
    taker = s[S_TAKER]
    partner_1 = -1
    partner_2 = -1
    if s[S_CALLED_1] >= 0:
        partner_1 = _holder(m, s[S_CALLED_1], players)
        if partner_1 == taker:
            partner_1 = -1
    if s[S_CALLED_2] >= 0:
        partner_2 = _holder(m, s[S_CALLED_2], players)
        if partner_2 == taker:
            partner_2 = -1
    s[S_OUT + O_PARTNER_1] = partner_1
    s[S_OUT + O_PARTNER_2] = partner_2
    for seat in range(players):
        is_attack = seat in (taker, partner_1, partner_2)
        s[S_SIDE + seat] = ATTACK if is_attack else DEFENCE
    s[S_NEXT] = 0
    _next_poignee(m, s, p, half)


@njit(**KERNEL)
def _next_poignee(m: Any, s: Any, p: Any, half: Any) -> None:
    """Ask the next seat holding a poignée it may show, else go on to the chelem."""
    players = s[S_PLAYERS]
    if p[R.POIGNEE_SCORED]:
        while s[S_NEXT] < players:
            seat = s[S_NEXT]
            may_show = not p[R.POIGNEE_TAKER_ONLY] or seat == s[S_TAKER]
            if may_show and poignee_level(m[M_HANDS + 2 * seat + 1], p) > 0:
                s[S_KIND] = POIGNEE
                s[S_ACTOR] = seat
                return
            s[S_NEXT] += 1
    if p[R.CHELEM_SCORED]:
        s[S_KIND] = CHELEM
        s[S_ACTOR] = s[S_TAKER]
        return
    s[S_OUT + O_CHELEM_ANNOUNCED] = 0
    _start_tricks(m, s, p)


@njit(**KERNEL)
def _start_tricks(m: Any, s: Any, p: Any) -> None:
    players = s[S_PLAYERS]
    taker = s[S_TAKER]
    leader = players - 1 if p[R.DEALER_LEADS] else 0
    if s[S_CHELEM] and p[R.CHELEM_ANNOUNCER_LEADS]:
        leader = taker
    forbidden = ZERO
    if p[R.FIRST_LEAD_CALLED_SUIT_FORBIDDEN]:
        for called in (s[S_CALLED_1], s[S_CALLED_2]):
            if 0 <= called < N_SUIT_CARDS:
                forbidden |= SUIT_LO[called // 14] & ~(ONE << np.uint64(called))
    m[M_FORBIDDEN] = forbidden
    s[S_TRUMPS_BROKEN] = 0 if p[R.TRUMPS_MUST_BE_BROKEN] else 1
    view = S_VIEW
    s[view + V_TAKER] = taker
    s[view + V_CONTRACT] = s[S_CONTRACT]
    s[view + V_CALLED_1] = s[S_CALLED_1]
    s[view + V_CALLED_2] = s[S_CALLED_2]
    s[view + V_PARTNER_1] = -1
    s[view + V_PARTNER_2] = -1
    s[view + V_PLAYERS] = players
    s[view + V_TRICKS] = s[S_TRICKS]
    s[view + V_CHELEM] = s[S_CHELEM]
    s[S_TRICK] = 0
    _start_trick(s, leader)


@njit(**KERNEL)
def _start_trick(s: Any, leader: int) -> None:
    s[S_LEADER] = leader
    s[S_IN_TRICK] = 0
    s[S_LED] = NOT_LED
    s[S_TOP_TRUMP] = 0
    s[S_BEST] = -1
    s[S_EXCUSE_AT] = -1
    s[S_BEST_RANK] = CANNOT_WIN
    s[S_VIEW + V_TRICK] = s[S_TRICK]
    s[S_VIEW + V_LEADER] = leader
    s[S_VIEW + V_LED] = NOT_LED
    s[S_VIEW + V_TOP_TRUMP] = 0
    s[S_VIEW + V_IN_TRICK] = 0
    s[S_VIEW + V_BEST] = -1
    s[S_KIND] = CARD
    s[S_ACTOR] = leader


# --------------------------------------------------------------------------------------------
# What may be done now
# --------------------------------------------------------------------------------------------


@njit(**KERNEL)
def legal_cards_now(m: Any, s: Any, p: Any) -> tuple[np.uint64, np.uint64]:
    """The cards the seat to act may play (a :data:`CARD` decision)."""
    seat = s[S_ACTOR]
    first = s[S_TRICK] == 0
    return legal_cards(
        m[M_HANDS + 2 * seat], m[M_HANDS + 2 * seat + 1], s[S_LED], s[S_TOP_TRUMP],
        m[M_FORBIDDEN] if first else ZERO, s[S_TRUMPS_BROKEN] == 0, p,
    )  # fmt: skip


@njit(**KERNEL)
def ecart_now(m: Any, s: Any, p: Any) -> tuple[np.uint64, np.uint64]:
    """The cards that may go to the écart next (an :data:`ECART` decision): the free ones, and
    those allowed only if forced while the free ones left are too few to complete it."""
    seat = s[S_ACTOR]
    free_lo, free_hi, forced_lo, forced_hi = ecart_sets(
        m[M_HANDS + 2 * seat], m[M_HANDS + 2 * seat + 1], p
    )
    if size(free_lo, free_hi) < s[S_ECART_LEFT]:
        return free_lo | forced_lo, free_hi | forced_hi
    return free_lo, free_hi


@njit(**KERNEL)
def call_now(m: Any, s: Any, p: Any) -> np.uint64:
    """The cards the taker may call now (a :data:`CALL` decision; suit cards, one word)."""
    lo = m[M_HANDS + 2 * s[S_TAKER]]
    if s[S_CALLED_1] < 0:
        return first_call_candidates(lo, p)
    return second_call_candidates(lo, s[S_CALLED_1])


@njit(**KERNEL)
def is_weighed(kind: int) -> bool:
    """Whether a decision of ``kind`` is one that a search or a network weighs: a bid, a call,
    a poignée or a card (the écart and the chelem are the heuristic's)."""
    return kind in (BID, CALL, POIGNEE, CARD)


@njit(**KERNEL)
def legal_mask(m: Any, s: Any, p: Any, out: Any) -> None:
    """Set ``out`` (:data:`N_ACTIONS` booleans) to the actions legal now."""
    out[:] = False
    kind = s[S_KIND]
    if kind == OVER:
        return
    if kind == BID:
        out[PASS] = True
        if s[S_ACTOR] == s[S_PASSER]:
            return
        for contract in range(max(s[S_CONTRACT] + 1, 0), p[R.N_CONTRACTS]):
            out[BID_0 + contract] = True
        return
    if kind == POIGNEE:
        held = poignee_level(m[M_HANDS + 2 * s[S_ACTOR] + 1], p)
        for level in range(held + 1):
            out[SHOW_0 + level] = True
        return
    if kind == CHELEM:
        out[NO_CHELEM] = True
        out[ANNOUNCE_CHELEM] = True
        return
    lo = ZERO
    hi = ZERO
    if kind == CARD:
        lo, hi = legal_cards_now(m, s, p)
    elif kind == ECART:
        lo, hi = ecart_now(m, s, p)
    elif kind == CALL:
        lo = call_now(m, s, p)
    for card in range(N_SUIT_CARDS):
        if (lo >> np.uint64(card)) & ONE:
            out[card] = True
    for bit in range(N_CARD_ACTIONS - N_SUIT_CARDS):
        if (hi >> np.uint64(bit)) & ONE:
            out[N_SUIT_CARDS + bit] = True


# --------------------------------------------------------------------------------------------
# Taking an action
# --------------------------------------------------------------------------------------------


@njit(**KERNEL)
def apply(m: Any, s: Any, action: int, p: Any, half: Any) -> None:
    """Take ``action`` (legal, see :func:`legal_mask`) for the seat to act, and go on to the
    next decision. Not checked here: :meth:`GameState.apply` checks, the compiled table trusts
    its bots, which choose among legal options."""
    kind = s[S_KIND]
    if kind == CARD:
        play_card(m, s, action, p, half)
    elif kind == BID:
        bid(m, s, -1 if action == PASS else action - BID_0, p, half)
    elif kind == CALL:
        call(m, s, action, p, half)
    elif kind == ECART:
        discard(m, s, action, p, half)
    elif kind == POIGNEE:
        show_poignee(m, s, action - SHOW_0, p, half)
    elif kind == CHELEM:
        announce_chelem(m, s, action == ANNOUNCE_CHELEM, p)


@njit(**KERNEL)
def bid(m: Any, s: Any, contract: int, p: Any, half: Any) -> None:
    """The seat to act bids ``contract`` (an index of the rules' contracts), or passes (−1 or
    any contract not above the best bid so far, and always the seat that must pass)."""
    seat = s[S_ACTOR]
    if contract > s[S_CONTRACT] and seat != s[S_PASSER]:
        s[S_BIDS + seat] = contract
        s[S_CONTRACT] = contract
        s[S_TAKER] = seat
    else:
        s[S_BIDS + seat] = -1
    s[S_NEXT] += 1
    if s[S_NEXT] < s[S_PLAYERS]:
        s[S_ACTOR] = s[S_NEXT]
        return
    if s[S_TAKER] < 0:
        s[S_OUT + O_REDEAL] = REDEAL_ALL_PASSED
        s[S_KIND] = OVER
        return
    _after_auction(m, s, p, half)


@njit(**KERNEL)
def call(m: Any, s: Any, card: int, p: Any, half: Any) -> None:
    """The taker calls ``card``."""
    if s[S_CALLED_1] < 0:
        s[S_CALLED_1] = card
    else:
        s[S_CALLED_2] = card
    _next_call(m, s, p, half)


@njit(**KERNEL)
def discard(m: Any, s: Any, card: int, p: Any, half: Any) -> None:
    """The taker (Tarocco: the dealer) puts ``card`` in the écart."""
    seat = s[S_ACTOR]
    card_lo, card_hi = bit_of(card)
    m[M_HANDS + 2 * seat] &= ~card_lo
    m[M_HANDS + 2 * seat + 1] &= ~card_hi
    m[M_ECART] |= card_lo
    m[M_ECART + 1] |= card_hi
    s[S_ECART_LEFT] -= 1
    if s[S_ECART_LEFT] > 0:
        return
    if p[R.TAROCCO]:
        _discard_done_tarocco(m, s, p, half)
    else:
        _ecart_done(m, s, p, half)


@njit(**KERNEL)
def show_poignee(m: Any, s: Any, level: int, p: Any, half: Any) -> None:
    """The seat to act shows a poignée of ``level`` (0: none), seen by all: its trumps and
    Excuse, or where the rules say so only how many, the highest and the lowest trump."""
    seat = s[S_ACTOR]
    s[S_POIGNEES + seat] = level
    if level > 0:
        held = m[M_HANDS + 2 * seat + 1] & (TRUMPS_HI | EXCUSE_HI)
        s[S_POIGNEE_COUNT + seat] = popcount(held)
        if p[R.POIGNEE_SHOWS_ENDS]:
            trumps = held & TRUMPS_HI
            ends = ZERO
            if trumps != ZERO:
                ends = ONE << np.uint64(highest_bit(trumps))
                ends |= ONE << np.uint64(lowest(ZERO, trumps) - N_SUIT_CARDS)
            m[M_SHOWN + 2 * seat + 1] = ends
        else:
            m[M_SHOWN + 2 * seat + 1] = held
    s[S_NEXT] += 1
    _next_poignee(m, s, p, half)


@njit(**KERNEL)
def announce_chelem(m: Any, s: Any, announced: bool, p: Any) -> None:
    """The taker announces a chelem, or not; then the first trick."""
    s[S_CHELEM] = 1 if announced else 0
    s[S_OUT + O_CHELEM_ANNOUNCED] = s[S_CHELEM]
    _start_tricks(m, s, p)


@njit(**KERNEL)
def play_card(m: Any, s: Any, card: int, p: Any, half: Any) -> None:
    """The seat to act plays ``card`` to the trick; a full trick is won and the next begins."""
    if p[R.TAROCCO]:
        _play_card_tarocco(m, s, card, p, half)
        return
    seat = s[S_ACTOR]
    k = s[S_IN_TRICK]
    _lay(m, s, seat, card, k, p)
    if card == s[S_CALLED_1]:
        s[S_VIEW + V_PARTNER_1] = seat
    if card == s[S_CALLED_2]:
        s[S_VIEW + V_PARTNER_2] = seat
    led = s[S_LED]
    suit = suit_of(card)
    if suit < 0:
        s[S_EXCUSE_AT] = k
    elif suit == TRUMP_LED:
        if led == NOT_LED:
            s[S_LED] = TRUMP_LED
        elif led != TRUMP_LED:
            s[S_TRUMPS_BROKEN] = 1
        if card - EXCUSE > s[S_TOP_TRUMP]:
            s[S_TOP_TRUMP] = card - EXCUSE
            s[S_BEST] = k
    elif led == NOT_LED:
        s[S_LED] = suit
        s[S_BEST] = k
    elif suit == led and s[S_TOP_TRUMP] == 0 and card > s[S_TRICK_CARDS + s[S_BEST]]:
        s[S_BEST] = k
    if _next_in_trick(s, k):
        return
    _end_trick(m, s, p, half)


@njit(**KERNEL)
def _lay(m: Any, s: Any, seat: int, card: int, k: int, p: Any) -> None:
    """``card`` leaves ``seat``'s hand for place ``k`` of the trick; the voids it shows (a
    suit card on a trump lead shows no trump left, unless the rules let a player who cannot
    beat the trick play any card)."""
    card_lo, card_hi = bit_of(card)
    m[M_HANDS + 2 * seat] &= ~card_lo
    m[M_HANDS + 2 * seat + 1] &= ~card_hi
    m[M_PLAYED] |= card_lo
    m[M_PLAYED + 1] |= card_hi
    s[S_TRICK_CARDS + k] = card
    led = s[S_LED]
    suit = suit_of(card)
    if 0 <= led < TRUMP_LED and suit != led and suit >= 0:
        s[S_VOIDS + seat] |= 1 << led
        if suit != TRUMP_LED:
            s[S_VOIDS + seat] |= NO_TRUMPS
    elif led == TRUMP_LED and 0 <= suit < TRUMP_LED and not p[R.TRUMP_LEAD_ANY_CARD]:
        s[S_VOIDS + seat] |= NO_TRUMPS


@njit(**KERNEL)
def _next_in_trick(s: Any, k: int) -> bool:
    """After the card at place ``k``: the next seat's turn, or ``False`` if the trick is full."""
    k += 1
    s[S_IN_TRICK] = k
    if k == s[S_PLAYERS]:
        return False
    s[S_ACTOR] = (s[S_LEADER] + k) % s[S_PLAYERS]
    s[S_VIEW + V_LED] = s[S_LED]
    s[S_VIEW + V_TOP_TRUMP] = s[S_TOP_TRUMP]
    s[S_VIEW + V_IN_TRICK] = k
    s[S_VIEW + V_BEST] = s[S_BEST]
    return True


@njit(**KERNEL)
def _log_trick(s: Any, t: int, leader: int) -> None:
    """Trick ``t``, led by ``leader``, into the record of the deal."""
    for k in range(s[S_PLAYERS]):
        s[S_LOG + t * MAX_SEATS + k] = s[S_TRICK_CARDS + k]
    s[S_LEADERS + t] = leader


@njit(**KERNEL)
def _end_trick(m: Any, s: Any, p: Any, half: Any) -> None:
    players = s[S_PLAYERS]
    tricks = s[S_TRICKS]
    t = s[S_TRICK]
    leader = s[S_LEADER]
    last = t == tricks - 1
    excuse_at = s[S_EXCUSE_AT]
    best = s[S_BEST]
    _log_trick(s, t, leader)
    # The Excuse led to the last trick by a side that took every other trick wins it.
    chelem_excuse = (
        last and excuse_at == 0 and p[R.CHELEM_EXCUSE_WINS_LAST]
        and s[S_WON + 1 - s[S_SIDE + leader]] == 0
    )  # fmt: skip
    if chelem_excuse:
        best = 0
    winner = (leader + best) % players
    side = s[S_SIDE + winner]
    trick_half = 0
    trick_bouts = 0
    for k in range(players):
        card = s[S_TRICK_CARDS + k]
        trick_half += half[card]
        if card in (EXCUSE, PETIT, EXCUSE + 21):
            trick_bouts += 1
    if excuse_at >= 0 and not last:
        # The Excuse stays with its side; a low card is owed for it if the trick is lost.
        owner = s[S_SIDE + (leader + excuse_at) % players]
        trick_half -= half[EXCUSE]
        trick_bouts -= 1
        s[S_HALF + owner] += half[EXCUSE]
        s[S_BOUTS + owner] += 1
        if owner != side:
            s[S_EXCUSE_DEBTOR] = owner
    elif excuse_at >= 0 and not chelem_excuse:
        # At the last trick the Excuse changes sides, or goes with the trick, as the rules say.
        owner = s[S_SIDE + (leader + excuse_at) % players]
        taken_by = excuse_last_trick_side(owner, side, p)
        if taken_by != side:
            trick_half -= half[EXCUSE]
            trick_bouts -= 1
            s[S_HALF + taken_by] += half[EXCUSE]
            s[S_BOUTS + taken_by] += 1
    s[S_HALF + side] += trick_half
    s[S_BOUTS + side] += trick_bouts
    s[S_WON + side] += 1
    for k in range(players):
        if s[S_TRICK_CARDS + k] == PETIT:
            if last:
                s[S_PETIT_SIDE] = side
                s[S_PETIT_SEAT] = (leader + k) % players
                s[S_PETIT_WINS_LAST] = 1 if best == k else 0
            elif t == tricks - 2:
                s[S_PEN_PETIT_SIDE] = side
                s[S_PEN_PETIT_WON] = 1 if best == k else 0
                s[S_PETIT_SEAT] = (leader + k) % players
    if chelem_excuse and s[S_PEN_PETIT_SIDE] == side and p[R.CHELEM_PETIT_PENULTIMATE]:
        # Under a chelem the Petit at the trick before the Excuse's counts as au bout; for a
        # personal bonus the Petit itself must have won that trick.
        s[S_PETIT_SIDE] = side
        if s[S_PEN_PETIT_WON]:
            s[S_PETIT_WINS_LAST] = 1
    if not last:
        s[S_TRICK] = t + 1
        _start_trick(s, winner)
        return
    s[S_LEADERS + tricks] = winner
    _end_deal(s, half)


@njit(**KERNEL)
def _end_deal(s: Any, half: Any) -> None:
    if s[S_PETIT_SIDE] < 0:
        s[S_PETIT_SEAT] = -1
    # The owed low card changes hands once the debtor has a trick to take it from.
    debtor = s[S_EXCUSE_DEBTOR]
    if debtor >= 0 and s[S_WON + debtor] > 0:
        low_card = half[EXCUSE + 2]  # trump 2: what a card exchanged for the Excuse is worth
        s[S_HALF + debtor] -= low_card
        s[S_HALF + 1 - debtor] += low_card
    out = S_OUT
    s[out + O_ATTACK_HALF] = s[S_HALF + ATTACK]
    s[out + O_ATTACK_BOUTS] = s[S_BOUTS + ATTACK]
    s[out + O_ATTACK_TRICKS] = s[S_WON + ATTACK]
    s[out + O_DEFENCE_TRICKS] = s[S_WON + DEFENCE]
    s[out + O_PETIT_AU_BOUT] = s[S_PETIT_SIDE]
    s[out + O_PETIT_AU_BOUT_SEAT] = s[S_PETIT_SEAT]
    s[out + O_PETIT_WINS_LAST] = s[S_PETIT_WINS_LAST]
    s[S_KIND] = OVER
    s[S_ACTOR] = -1


# --------------------------------------------------------------------------------------------
# Tarocco (docs/rules.md#tarocco): every player for himself
# --------------------------------------------------------------------------------------------


@njit(**KERNEL)
def _start_tarocco(m: Any, s: Any, dealer: int, p: Any, half: Any) -> None:
    s[S_TAKER] = dealer
    s[S_EVENTS : S_EVENTS + N_EVENTS] = -1
    s[S_EVENTS + E_DEALER] = dealer
    # The dealer takes the extra cards and discards as many.
    if not _take_the_dog(m, s, dealer, p):
        _discard_done_tarocco(m, s, p, half)


@njit(**KERNEL)
def _discard_done_tarocco(m: Any, s: Any, p: Any, half: Any) -> None:
    players = s[S_PLAYERS]
    dealer = s[S_TAKER]
    discard_half = half_points_of(m[M_ECART], m[M_ECART + 1], half)
    s[S_PILES + dealer] += discard_half
    s[S_EVENTS + E_DISCARD_HALF] = discard_half
    # Declarations before play: enough tarocchi, the Fool included.
    for seat in range(players):
        hi = m[M_HANDS + 2 * seat + 1]
        if popcount(hi & TAROCCHI_HI) >= p[R.TAROCCHI_COUNT]:
            s[S_PARTS + PART_TAROCCHI * MAX_SEATS + seat] = 2 * p[R.TAROCCHI_PREMIUM]
        if holds(m[M_HANDS + 2 * seat], hi, EXCUSE):
            s[S_EVENTS + E_FOOL_SEAT] = seat
    view = S_VIEW
    s[view : view + N_VIEW] = -1
    s[view + V_TAKER] = dealer
    s[view + V_PLAYERS] = players
    s[view + V_TRICKS] = s[S_TRICKS]
    s[view + V_CHELEM] = 0
    s[S_TRICK] = 0
    s[S_TRUMPS_BROKEN] = 1  # no lead restriction in Tarocco
    leader = dealer if p[R.DEALER_LEADS] else (dealer + 1) % players
    _start_trick(s, leader)


@njit(**KERNEL)
def _rank_in_trick(card: int, led: int, fool_is_tarocco: bool) -> int:
    """How high ``card`` ranks in a trick of suit ``led`` (``CANNOT_WIN``: it cannot win)."""
    if card > EXCUSE:
        return FOOL_AS_TAROCCO + card - EXCUSE
    if card == EXCUSE:
        return FOOL_AS_TAROCCO if fool_is_tarocco else CANNOT_WIN
    if card // 14 == led:
        return card % 14
    return CANNOT_WIN


@njit(**KERNEL)
def _play_card_tarocco(m: Any, s: Any, card: int, p: Any, half: Any) -> None:
    players = s[S_PLAYERS]
    seat = s[S_ACTOR]
    k = s[S_IN_TRICK]
    last = s[S_TRICK] == s[S_TRICKS] - 1
    _lay(m, s, seat, card, k, p)
    led = s[S_LED]
    suit = suit_of(card)
    if card == EXCUSE and p[R.FOOL_EXCUSED] and not last:
        # Shown, not played: set aside with its holder's cards.
        s[S_EXCUSE_AT] = k
        s[S_PILES + seat] += half[EXCUSE]
        s[S_EVENTS + E_FOOL_SHOWN] = s[S_TRICK]
    else:
        fool_is_tarocco = card == EXCUSE and last and p[R.FOOL_LOWEST_LAST] != 0
        if led == NOT_LED:
            if card > EXCUSE or fool_is_tarocco:
                s[S_LED] = TRUMP_LED
            elif card < N_SUIT_CARDS:
                s[S_LED] = suit
        if card > EXCUSE and card - EXCUSE > s[S_TOP_TRUMP]:
            s[S_TOP_TRUMP] = card - EXCUSE
        rank = _rank_in_trick(card, s[S_LED], fool_is_tarocco)
        if rank > s[S_BEST_RANK]:
            s[S_BEST_RANK] = rank
            s[S_BEST] = k
    if _next_in_trick(s, k):
        return
    t = s[S_TRICK]
    leader = s[S_LEADER]
    best = s[S_BEST]
    _log_trick(s, t, leader)
    winner = (leader + best) % players
    for j in range(players):
        if j != s[S_EXCUSE_AT]:
            s[S_PILES + winner] += half[s[S_TRICK_CARDS + j]]
    s[S_WON_BY + winner] += 1
    if last:
        for j in range(players):
            if s[S_TRICK_CARDS + j] == PETIT:
                holder = (leader + j) % players
                s[S_EVENTS + E_MAGICIAN_SEAT] = holder
                magician = p[R.MAGICIAN_WON] if j == best else p[R.MAGICIAN_LOST]
                s[S_PARTS + PART_MAGICIAN * MAX_SEATS + holder] = 2 * magician
        s[S_EVENTS + E_LAST_WINNER] = winner
        s[S_LEADERS + s[S_TRICKS]] = winner
        for j in range(players):
            s[S_PARTS + PART_POINTS * MAX_SEATS + j] = s[S_PILES + j]
            if s[S_WON_BY + j] == s[S_TRICKS]:
                s[S_PARTS + PART_ALL_TRICKS * MAX_SEATS + j] = 2 * p[R.ALL_TRICKS_PREMIUM]
        s[S_KIND] = OVER
        s[S_ACTOR] = -1
        return
    s[S_TRICK] = t + 1
    _start_trick(s, winner)
