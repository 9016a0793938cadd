"""The ``heuristic`` bot: French Tarot played by a club player's rules of thumb.

Every decision uses only what its seat may know: its own hand, the public ``view`` of the deal
(:mod:`tarot_analysis.engine.state`, ``V_*``), the cards in the trick, every card played so far
and the voids the table has seen (the poignées shown are not used yet). It never looks at
another hand or the dog. It draws no random numbers: the same position always gets the same
answer.

- **Bidding**: Chavey's count (:func:`hand_value`) with its weights refitted to how these bots
  make their contracts: 2 per trump and 1 more beyond the fourth, 1 per major trump (16 to 20),
  the 21 13 more, the Excuse 9, the Petit 9 more; king and queen 7, king 5, queen 2, knight 1.
  Without the dog (Garde sans, Garde contre) the Petit needs trumps behind it, and voids,
  singletons and long suits count, since the écart cannot make them. The count is scaled to an
  18-card hand, where it is about 40 plus the margin by which a Garde is made. The thresholds
  per contract depend on the number of players (:data:`CONTRACT_THRESHOLDS`); it only ever
  bids above the best bid so far.
- **Call**: a king it does not hold, in the suit where it is longest (the queen counts double).
- **Écart**: whole short suits first (voids), then honours (the écart's points are the
  taker's), then low cards of the shortest suits; trumps only when nothing else is allowed.
- **Poignée**: the taker shows what it holds; a defender only a double or triple.
- **Chelem**: only a sure one (top trumps enough to draw every other trump, and every suit card
  a master once trumps are out).
- **Play**: sides from the taker, the called cards it holds and the partners revealed. It gives
  points to a partner whose trick no opponent can take any more, takes a trick when no later
  player can beat its card (from the cards played and the voids seen, a void being presumed
  when few cards of the suit are out), and otherwise plays low. It saves the Petit on a trick
  its side is sure to win, and keeps it for the last trick once nobody else has a trump. The
  attacker draws trumps with master trumps when it holds as many as the others together, and
  cashes its masters; a defender leads low from its longest suit and keeps its kings for the
  suit's first round or a partner's trick. The Excuse saves an honour or the Petit that would
  be lost, and is never kept to the last trick (except by a taker who announced a chelem, for
  whom it wins there).

The weights were tuned by playing the bot against itself: a change to the attack's play is
better when the taker's mean score rises with the defence unchanged, and conversely. The
bidding thresholds were set in duplicate matches, one seat bidding with moved thresholds
(``heuristic:P/G/S/C``, :class:`tarot_analysis.bots.Bot`) against the others
(``benchmarks/bid_sweep.py``).
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
from numba import njit

from tarot_analysis._jit import KERNEL, popcount, trailing_zeros
from tarot_analysis.engine import params as R
from tarot_analysis.engine import state as _state
from tarot_analysis.engine.cardsets import (
    BOUTS_HI,
    EXCUSE,
    EXCUSE_HI,
    JACKS_LO,
    KINGS_LO,
    KNIGHTS_LO,
    NOT_LED,
    ONE,
    PETIT,
    QUEENS_LO,
    SUIT_LO,
    TRUMP_LED,
    TRUMPS_HI,
    ZERO,
    highest_bit,
    holds,
    lowest,
    size,
)
from tarot_analysis.engine.core import poignee_level
from tarot_analysis.game import cards

__all__ = [
    "bid",
    "call",
    "chelem",
    "contract_level",
    "ecart",
    "hand_value",
    "play",
    "poignee",
]

PETIT_HI: Final = np.uint64(cards.PETIT_BIT_HI)
TWENTY_ONE_HI: Final = np.uint64(cards.TWENTY_ONE_BIT_HI)
MAJORS_HI: Final = np.uint64(sum(1 << n for n in range(16, 21)))  # trumps 16 to 20
FACES_LO: Final = np.uint64(cards.FACE_CARDS_MASK)
SUIT_CARDS_LO: Final = np.uint64(cards.SUIT_CARDS_MASK_LO)
ALL_HI: Final = np.uint64(cards.ALL_MASK_HI)
HALF_POINTS: Final = np.array(cards.HALF_POINTS, dtype=np.int64)
RANKS: Final = cards.N_RANKS
KING_RANK: Final = cards.KING
JACK_RANK: Final = cards.JACK

# Hand evaluation, on the scale of an 18-card hand (four players). Chavey's count, with weights
# refitted to the margin by which this bot makes a Garde: about one count point per card point.
COUNT_HAND_SIZE: Final = 18
TRUMP_VALUE: Final = 2  # every trump
TRUMPS_BEFORE_LENGTH: Final = 4  # every trump beyond these counts LONG_TRUMP_VALUE more
LONG_TRUMP_VALUE: Final = 1
TWENTY_ONE_VALUE: Final = 13  # besides its value as a trump
EXCUSE_VALUE: Final = 9
PETIT_VALUE: Final = 9  # besides its value as a trump; with the dog to back it
PETIT_UNSEEN_DOG_VALUE: Final = (4, 6)  # without the dog: fewer than 5 trumps, 5 or more
PETIT_SAFE_TRUMPS: Final = 5
MAJOR_VALUE: Final = 1  # trumps 16 to 20
KING_QUEEN_VALUE: Final = 7
KING_VALUE: Final = 5
QUEEN_VALUE: Final = 2
KNIGHT_VALUE: Final = 1
LONG_SUIT_FROM: Final = 5  # without the dog, each suit card from the fifth counts 1
VOID_VALUE: Final = 3  # without the dog only: with it the écart makes voids
SINGLETON_VALUE: Final = 2
# The lowest count for each contract (prise, garde, garde sans, garde contre), by number of
# players from 3: the counts at which one seat's mean score per deal, the others bidding as
# before, is highest in duplicate matches (``heuristic:P/G/S/C`` against ``heuristic``,
# 20,000 deals, confirmed on other deals; docs/bots.md). A called partner makes up for a
# weaker hand, two of them (6 players) for a much weaker one; so does the larger share of the
# cards with 3 players. Where the prise's count is the garde's, the bot never bids a prise.
MIN_PLAYERS: Final = 3
CONTRACT_THRESHOLDS: Final = np.array(
    [
        [30, 31, 40, 46],  # 3 players
        [38, 39, 56, 62],  # 4
        [28, 31, 44, 50],  # 5, a king called
        [10, 10, 40, 70],  # 6, a king and a queen called
    ],
    dtype=np.int64,
)
DOG_SEEN_CONTRACTS: Final = 2  # the first contracts take the dog

# A seat not yet seen void in a suit is presumed void when few cards of it are out: the chance
# is about exp(-out × cards in hand / unknown cards), presumed above exp(-0.5) ≈ 0.6. (Presuming
# voids sooner makes the attack too timid: it then cashes and gives fewer points.)
VOID_PRESUMED_TENTHS: Final = 5
# A trick worth this many half points (an honour) is worth a high trump gamble to take it.
RICH_TRICK_HALF: Final = 9
# A master card led while trumps are out is at least a jack (1.5 points).
CASH_HALF: Final = 3
# An honour worth saving with the Excuse: a knight (2.5 points) or more.
SAVE_WITH_EXCUSE_HALF: Final = 5


# --------------------------------------------------------------------------------------------
# Bidding, call, écart, announcements
# --------------------------------------------------------------------------------------------


@njit(**KERNEL)
def hand_value(lo: np.uint64, hi: np.uint64, hand_size: int, with_dog: bool) -> int:
    """The count of a hand, scaled to an 18-card hand: about the margin, in card points, by
    which the bots make a Garde with it, plus 40.

    ``with_dog``: the taker will take the dog and make voids with the écart; without it the
    hand's own voids, singletons and long suits count, and the Petit needs trumps to back it.
    """
    trumps = popcount(hi & TRUMPS_HI)
    value = TRUMP_VALUE * trumps + MAJOR_VALUE * popcount(hi & MAJORS_HI)
    if trumps > TRUMPS_BEFORE_LENGTH:
        value += LONG_TRUMP_VALUE * (trumps - TRUMPS_BEFORE_LENGTH)
    if hi & TWENTY_ONE_HI != ZERO:
        value += TWENTY_ONE_VALUE
    if hi & EXCUSE_HI != ZERO:
        value += EXCUSE_VALUE
    if hi & PETIT_HI != ZERO:
        if with_dog:
            value += PETIT_VALUE
        else:
            # Trump length as it would be in 18 cards.
            scaled = (trumps * COUNT_HAND_SIZE + hand_size // 2) // hand_size
            value += PETIT_UNSEEN_DOG_VALUE[1 if scaled >= PETIT_SAFE_TRUMPS else 0]
    for s in range(4):
        suit = lo & SUIT_LO[s]
        king = suit & KINGS_LO != ZERO
        queen = suit & QUEENS_LO != ZERO
        if king and queen:
            value += KING_QUEEN_VALUE
        elif king:
            value += KING_VALUE
        elif queen:
            value += QUEEN_VALUE
        if suit & KNIGHTS_LO != ZERO:
            value += KNIGHT_VALUE
        if not with_dog:
            length = popcount(suit)
            if length == 0:
                value += VOID_VALUE
            elif length == 1:
                value += SINGLETON_VALUE
            elif length >= LONG_SUIT_FROM:
                value += length - LONG_SUIT_FROM + 1
    return (value * COUNT_HAND_SIZE + hand_size // 2) // hand_size


@njit(**KERNEL)
def contract_level(lo: np.uint64, hi: np.uint64, p: Any, shifts: Any) -> int:
    """The highest contract index the hand is worth (−1: pass), among the rules' contracts;
    ``shifts[k]`` moves the threshold of contract ``k`` (zeros: the bot's own thresholds)."""
    hand_size = p[R.HAND_SIZE]
    with_dog = hand_value(lo, hi, hand_size, True)
    without_dog = hand_value(lo, hi, hand_size, False)
    row = min(max(p[R.PLAYERS] - MIN_PLAYERS, 0), CONTRACT_THRESHOLDS.shape[0] - 1)
    level = -1
    for k in range(min(p[R.N_CONTRACTS], CONTRACT_THRESHOLDS.shape[1])):
        value = with_dog if k < DOG_SEEN_CONTRACTS else without_dog
        if value >= CONTRACT_THRESHOLDS[row, k] + shifts[k]:
            level = k
    return level


@njit(**KERNEL)
def bid(seat: int, lo: np.uint64, hi: np.uint64, best: int, p: Any, shifts: Any) -> int:
    """The contract the hand is worth if it beats ``best``, else −1 (pass); ``shifts`` moves
    the thresholds (:func:`contract_level`)."""
    level = contract_level(lo, hi, p, shifts)
    return level if level > best else -1


@njit(**KERNEL)
def call(lo: np.uint64, hi: np.uint64, cand_lo: np.uint64, p: Any) -> int:
    """The candidate to call: one not held if possible, then the highest rank (a queen first
    where any card may be called), in the suit where the taker is longest, the other honours of
    the suit (the queen beside a called king) counting double."""
    best_card = -1
    best_score = -1
    rest = cand_lo
    while rest != ZERO:
        card = trailing_zeros(rest)
        rest &= rest - ONE
        suit = lo & SUIT_LO[card // RANKS]
        # At most 2 × 15 + 2 × 2 = 34, below one step of rank (64).
        score = 2 * popcount(suit) + 2 * popcount(suit & (KINGS_LO | QUEENS_LO))
        score += 64 * (card % RANKS)
        if not holds(lo, hi, card):
            score += 1000  # calling one's own card means playing alone
        if score > best_score:
            best_score = score
            best_card = card
    return best_card


@njit(**KERNEL)
def _ecart_priority(card: int, lo: np.uint64, taken_lo: np.uint64) -> int:
    """How much the taker wants ``card`` in the écart (higher first)."""
    if card >= EXCUSE:
        if (ONE << np.uint64(card - EXCUSE)) & BOUTS_HI != ZERO:
            return -1000  # a bout: only when nothing else is allowed
        return -100 - (card - EXCUSE)  # trumps, lowest first
    suit = card // RANKS
    rank = card % RANKS
    length = popcount(lo & SUIT_LO[suit] & ~taken_lo)
    if rank == KING_RANK:
        return 0
    if rank >= JACK_RANK:
        if lo & SUIT_LO[suit] & KINGS_LO != ZERO:
            return 250 + rank - 5 * length  # behind the king: safe, but its points are banked
        return 300 + 10 * HALF_POINTS[card] - 5 * length  # would likely fall to the king
    return 200 - 10 * length - rank  # low cards of short suits, towards a void


@njit(**KERNEL)
def ecart(
    lo: np.uint64, hi: np.uint64, free_lo: np.uint64, free_hi: np.uint64, count: int, p: Any
) -> tuple[np.uint64, np.uint64]:
    """``count`` cards of ``free`` to discard: voids first, then honours, then low cards."""
    out_lo = ZERO
    out_hi = ZERO
    remaining = count
    # Voids: whole suits, shortest first, when every card of the suit may go.
    while remaining > 0:
        best_suit = -1
        best_length = 99
        for s in range(4):
            suit = lo & SUIT_LO[s] & ~out_lo
            length = popcount(suit)
            if length == 0 or length > remaining or suit & ~free_lo != ZERO:
                continue
            if length < best_length:
                best_length = length
                best_suit = s
        if best_suit < 0:
            break
        out_lo |= lo & SUIT_LO[best_suit]
        remaining -= best_length
    # The rest one at a time, the most wanted first.
    while remaining > 0:
        best_card = -1
        best_score = -(1 << 30)
        rest = free_lo & ~out_lo
        while rest != ZERO:
            card = trailing_zeros(rest)
            rest &= rest - ONE
            score = _ecart_priority(card, lo, out_lo)
            if score > best_score:
                best_score = score
                best_card = card
        rest = free_hi & ~out_hi
        while rest != ZERO:
            bit = trailing_zeros(rest)
            rest &= rest - ONE
            score = _ecart_priority(EXCUSE + bit, lo, out_lo)
            if score > best_score:
                best_score = score
                best_card = EXCUSE + bit
        if best_card < EXCUSE:
            out_lo |= ONE << np.uint64(best_card)
        else:
            out_hi |= ONE << np.uint64(best_card - EXCUSE)
        remaining -= 1
    return out_lo, out_hi


@njit(**KERNEL)
def poignee(
    seat: int, lo: np.uint64, hi: np.uint64, level_held: int, is_taker: bool, p: Any
) -> int:
    """The taker shows its poignée; a defender only a double or triple one (the bonus goes to
    the side that wins, and the taker usually does)."""
    if is_taker or level_held >= 2:
        return level_held
    return 0


@njit(**KERNEL)
def action(m: Any, s: Any, seat: int, shifts: Any, p: Any) -> int:
    """The heuristic's action, in the engine's numbering, at a bid, a call, a poignée or the
    chelem of the state ``(m, s)`` for ``seat``, the seat to act; ``shifts`` moves its bidding
    thresholds (:func:`contract_level`). A contract not above the best bid, or from the seat
    that must pass, is a pass."""
    kind = s[_state.S_KIND]
    lo = m[_state.M_HANDS + 2 * seat]
    hi = m[_state.M_HANDS + 2 * seat + 1]
    if kind == _state.BID:
        best = s[_state.S_CONTRACT]
        contract = bid(seat, lo, hi, best, p, shifts)
        if contract > best and seat != s[_state.S_PASSER]:
            return _state.BID_0 + contract
        return _state.PASS
    if kind == _state.CALL:
        return call(lo, hi, _state.call_now(m, s, p), p)
    if kind == _state.POIGNEE:
        held = poignee_level(hi, p)
        level = poignee(seat, lo, hi, held, seat == s[_state.S_TAKER], p)
        return _state.SHOW_0 + min(level, held)
    return _state.ANNOUNCE_CHELEM if chelem(lo, hi, p) else _state.NO_CHELEM


@njit(**KERNEL)
def chelem(lo: np.uint64, hi: np.uint64, p: Any) -> bool:
    """Announce a chelem only when it cannot fail: the taker leads, its unbroken run of top
    trumps is as long as the trumps it lacks, and each suit it holds is a run from the king down."""
    if not p[R.CHELEM_ANNOUNCER_LEADS]:
        return False
    trumps = hi & TRUMPS_HI
    run = 0
    n = 21
    while n >= 1 and (trumps >> np.uint64(n)) & ONE != ZERO:
        run += 1
        n -= 1
    if run < 21 - popcount(trumps):
        return False
    for s in range(4):
        suit = lo & SUIT_LO[s]
        length = popcount(suit)
        top_run = SUIT_LO[s] & ~((ONE << np.uint64(s * RANKS + RANKS - length)) - ONE)
        if suit != top_run:
            return False
    return True


# --------------------------------------------------------------------------------------------
# Play
# --------------------------------------------------------------------------------------------


@njit(**KERNEL)
def _sides(seat: int, lo: np.uint64, hi: np.uint64, view: Any) -> tuple[int, bool]:
    """The seats ``seat`` knows to be on its side (a bitmask), and whether it attacks.

    The taker and the revealed partners attack, and so does a seat holding a called card. A
    defender knows the other defenders once every called card's holder is known.
    """
    players = view[_state.V_PLAYERS]
    attack = 1 << view[_state.V_TAKER]
    resolved = True
    for i in range(2):
        called = view[_state.V_CALLED_1 + i]
        if called < 0:
            continue
        partner = view[_state.V_PARTNER_1 + i]
        if partner >= 0:
            attack |= 1 << partner
        elif holds(lo, hi, called):
            attack |= 1 << seat
        else:
            resolved = False
    me = 1 << seat
    if attack & me:
        return attack & ~me, True
    if resolved:
        return ((1 << players) - 1) & ~attack & ~me, False
    return 0, False


@njit(**KERNEL)
def _presumed_void(out_in_suit: int, in_hand: int, unknown: int) -> bool:
    """Whether a seat not seen void is presumed void: few cards of the suit are still out."""
    if out_in_suit == 0:
        return True
    return out_in_suit * in_hand * 10 < unknown * VOID_PRESUMED_TENTHS


@njit(**KERNEL)
def _may_trump(
    threats: int, led: int, voids: Any, unk_lo: np.uint64, in_hand: int, unknown: int
) -> bool:
    """Whether a seat of ``threats`` may play a trump on this trick."""
    presumed = led == TRUMP_LED or _presumed_void(popcount(unk_lo & SUIT_LO[led]), in_hand, unknown)
    rest = threats
    while rest:
        s = trailing_zeros(np.uint64(rest))
        rest &= rest - 1
        seen = voids[s]
        if seen & _state.NO_TRUMPS:
            continue
        if presumed or seen & (1 << led):
            return True
    return False


@njit(**KERNEL)
def _threatened(
    card: int,
    led: int,
    threats: int,
    voids: Any,
    unk_lo: np.uint64,
    unk_hi: np.uint64,
    in_hand: int,
    unknown: int,
) -> bool:
    """Whether a seat of ``threats``, still to play, may beat ``card`` winning the trick.

    ``unk``: the cards the seat cannot place (not in its hand, not played); ``in_hand``: the
    cards each later seat still holds; ``unknown``: how many cards are unknown.
    """
    if threats == 0:
        return False
    trumps_out = unk_hi & TRUMPS_HI
    if card > EXCUSE:
        above = trumps_out & ~((ONE << np.uint64(card - EXCUSE + 1)) - ONE)
        if above == ZERO:
            return False
        return _may_trump(threats, led, voids, unk_lo, in_hand, unknown)
    above_in_suit = unk_lo & SUIT_LO[led] & ~((ONE << np.uint64(card + 1)) - ONE)
    if above_in_suit != ZERO:
        rest = threats
        while rest:
            s = trailing_zeros(np.uint64(rest))
            rest &= rest - 1
            if voids[s] & (1 << led) == 0:
                return True
    if trumps_out == ZERO:
        return False
    return _may_trump(threats, led, voids, unk_lo, in_hand, unknown)


@njit(**KERNEL)
def _richest(mask: np.uint64) -> int:
    """The suit card of ``mask`` worth the most; among low cards the lowest."""
    for ranked in (KINGS_LO, QUEENS_LO, KNIGHTS_LO, JACKS_LO):
        if mask & ranked != ZERO:
            return trailing_zeros(mask & ranked)
    return trailing_zeros(mask)


@njit(**KERNEL)
def _cheapest(mask: np.uint64, lo: np.uint64) -> int:
    """The suit card of ``mask`` worth the least: a low card of the hand's shortest suit, else
    the smallest honour."""
    low = mask & ~FACES_LO
    if low != ZERO:
        best_suit = 0
        best_length = 99
        for s in range(4):
            if low & SUIT_LO[s] != ZERO:
                length = popcount(lo & SUIT_LO[s])
                if length < best_length:
                    best_length = length
                    best_suit = s
        return trailing_zeros(low & SUIT_LO[best_suit])
    for ranked in (JACKS_LO, KNIGHTS_LO, QUEENS_LO, KINGS_LO):
        if mask & ranked != ZERO:
            return trailing_zeros(mask & ranked)
    return trailing_zeros(mask)


@njit(**KERNEL)
def _lowest_trump(trumps: np.uint64) -> int:
    """The lowest trump of a non-empty set, the Petit only when it is alone."""
    others = trumps & ~PETIT_HI
    if others != ZERO:
        return EXCUSE + trailing_zeros(others)
    return PETIT


@njit(**KERNEL)
def _lead(
    lo: np.uint64,
    hi: np.uint64,
    real_lo: np.uint64,
    real_hi: np.uint64,
    attacker: bool,
    chelem_taker: bool,
    threats: int,
    voids: Any,
    unk_lo: np.uint64,
    unk_hi: np.uint64,
    in_hand: int,
    unknown: int,
) -> int:
    """The card to lead, among ``real`` (the legal cards but the Excuse)."""
    my_trumps = real_hi & TRUMPS_HI
    trumpers = 0
    rest = threats
    while rest:
        s = trailing_zeros(np.uint64(rest))
        rest &= rest - 1
        if voids[s] & _state.NO_TRUMPS == 0:
            trumpers |= 1 << s
    their_trumps = unk_hi & TRUMPS_HI if trumpers else ZERO
    # Once nobody else holds a trump, the Petit wins the last trick: keep it for then.
    if hi & PETIT_HI != ZERO and their_trumps == ZERO and in_hand > 1:
        my_trumps &= ~PETIT_HI
    # Draw trumps: the attacker with trumps to spare, or the taker going for a chelem.
    if my_trumps != ZERO and their_trumps != ZERO:
        mine = popcount(hi & TRUMPS_HI)
        if chelem_taker or (attacker and mine >= popcount(their_trumps)):
            top = highest_bit(my_trumps)
            if top > highest_bit(their_trumps):
                return EXCUSE + top
            if mine >= 2 * popcount(their_trumps) and my_trumps & ~PETIT_HI != ZERO:
                return _lowest_trump(my_trumps)
    # Cash a master card nobody is likely to trump. A defender waits until the attack has no
    # trumps left: its kings fall anyway when the suit is led, or go to a partner's trick.
    best_card = -1
    best_half = 0
    for s in range(4):
        mine_in_suit = real_lo & SUIT_LO[s]
        if mine_in_suit == ZERO:
            continue
        top = highest_bit(mine_in_suit)
        # While trumps are out a low master is kept as a way back to the lead.
        if HALF_POINTS[top] < CASH_HALF and their_trumps != ZERO:
            continue
        if not attacker and their_trumps != ZERO:
            continue
        if _threatened(top, s, threats, voids, unk_lo, unk_hi, in_hand, unknown):
            continue
        if HALF_POINTS[top] > best_half:
            best_half = HALF_POINTS[top]
            best_card = top
    if best_card >= 0:
        return best_card
    # A low card of the longest suit; a defender prefers a suit where it holds the king, which
    # then guards the suit's later rounds.
    low = real_lo & ~FACES_LO
    if low != ZERO:
        best_suit = -1
        best_length = 0
        for s in range(4):
            if low & SUIT_LO[s] == ZERO:
                continue
            length = popcount(lo & SUIT_LO[s])
            key = length + (4 if not attacker and lo & SUIT_LO[s] & KINGS_LO != ZERO else 0)
            if best_suit < 0 or key > best_length:
                best_length = key
                best_suit = s
        return trailing_zeros(low & SUIT_LO[best_suit])
    if attacker and my_trumps != ZERO:
        return _lowest_trump(my_trumps)
    if real_lo != ZERO:
        return _cheapest(real_lo, lo)
    if my_trumps != ZERO:
        return _lowest_trump(my_trumps)
    return _lowest_trump(real_hi & TRUMPS_HI)


@njit(**KERNEL)
def _follow(
    lo: np.uint64,
    hi: np.uint64,
    real_lo: np.uint64,
    real_hi: np.uint64,
    view: Any,
    trick: Any,
    allies: int,
    spare_excuse: bool,
    threats: int,
    voids: Any,
    unk_lo: np.uint64,
    unk_hi: np.uint64,
    in_hand: int,
    unknown: int,
) -> int:
    """The card to play on a trick already led, among ``real`` (the legal cards but the
    Excuse); the Excuse itself when it saves an honour or the Petit (``spare_excuse``)."""
    players = view[_state.V_PLAYERS]
    led = view[_state.V_LED]
    top_trump = view[_state.V_TOP_TRUMP]
    best = view[_state.V_BEST]
    winner = (view[_state.V_LEADER] + best) % players
    winning = trick[best]
    ally_wins = (allies >> winner) & 1 == 1
    secure = ally_wins and not _threatened(
        winning, led, threats, voids, unk_lo, unk_hi, in_hand, unknown
    )
    if led < TRUMP_LED and real_lo & SUIT_LO[led] != ZERO:
        # Following suit.
        if secure:
            return _richest(real_lo)
        if top_trump == 0:
            above = real_lo & ~((ONE << np.uint64(winning + 1)) - ONE)
            if above != ZERO:
                mine = highest_bit(above)
                if not _threatened(mine, led, threats, voids, unk_lo, unk_hi, in_hand, unknown):
                    return mine
        card = trailing_zeros(real_lo)
        if spare_excuse and not ally_wins and HALF_POINTS[card] >= SAVE_WITH_EXCUSE_HALF:
            return EXCUSE
        return card
    if real_lo == ZERO:
        # Trumping, or playing on a trump lead.
        trumps = real_hi
        winners = trumps & ~((ONE << np.uint64(top_trump + 1)) - ONE)
        sure_winners = winners
        out = unk_hi & TRUMPS_HI
        if out != ZERO and _may_trump(threats, led, voids, unk_lo, in_hand, unknown):
            sure_winners &= ~((ONE << np.uint64(highest_bit(out) + 1)) - ONE)
        if trumps & PETIT_HI != ZERO:
            if trumps == PETIT_HI:
                if secure or sure_winners != ZERO:
                    return PETIT
                if spare_excuse:
                    return EXCUSE
                return PETIT
            keep_for_last = unk_hi & TRUMPS_HI == ZERO  # it will win the last trick
            if not keep_for_last and (secure or sure_winners & PETIT_HI != ZERO):
                return PETIT
        others = trumps & ~PETIT_HI
        if secure:
            return _lowest_trump(others)
        taking = sure_winners & ~PETIT_HI
        if taking != ZERO:
            return EXCUSE + trailing_zeros(taking)
        # No sure win: gamble the highest trump only on a rich trick or one holding the Petit.
        could = others & ~((ONE << np.uint64(top_trump + 1)) - ONE)
        if could != ZERO and not ally_wins:
            rich = False
            half = 0
            for k in range(view[_state.V_IN_TRICK]):
                if trick[k] == PETIT:
                    rich = True
                if trick[k] != EXCUSE:
                    half += HALF_POINTS[trick[k]]
            if rich or half >= RICH_TRICK_HALF:
                return EXCUSE + highest_bit(could)
        return _lowest_trump(others)
    # Discarding: void in the suit led and without trumps.
    if secure:
        return _richest(real_lo)
    card = _cheapest(real_lo, lo)
    if spare_excuse and not ally_wins and HALF_POINTS[card] >= SAVE_WITH_EXCUSE_HALF:
        return EXCUSE
    return card


@njit(**KERNEL)
def play(
    seat: int,
    lo: np.uint64,
    hi: np.uint64,
    legal_lo: np.uint64,
    legal_hi: np.uint64,
    view: Any,
    trick: Any,
    played: Any,
    voids: Any,
    shown: Any,
    p: Any,
) -> int:
    """The card ``seat``, holding ``(lo, hi)``, plays among the legal ones (see the module)."""
    if size(legal_lo, legal_hi) == 1:
        return lowest(legal_lo, legal_hi)
    tricks = view[_state.V_TRICKS]
    t = view[_state.V_TRICK]
    taker = view[_state.V_TAKER]
    chelem_taker = view[_state.V_CHELEM] == 1 and seat == taker
    has_excuse = legal_hi & EXCUSE_HI != ZERO
    # The Excuse played at the last trick is not kept (docs/rules.md#the-excuse): it changes
    # sides, or goes with a trick it cannot win. Play it at the one before at the latest.
    if has_excuse and not chelem_taker and t >= tricks - 2:
        return EXCUSE
    real_lo = legal_lo
    real_hi = legal_hi & ~EXCUSE_HI
    if real_lo | real_hi == ZERO:
        return EXCUSE
    players = view[_state.V_PLAYERS]
    allies, attacker = _sides(seat, lo, hi, view)
    unk_lo = SUIT_CARDS_LO & ~(lo | played[0])
    unk_hi = ALL_HI & ~(hi | played[1])
    unknown = popcount(unk_lo) + popcount(unk_hi)
    in_hand = tricks - t  # cards held by each seat yet to play this trick
    n_in = view[_state.V_IN_TRICK]
    leader = view[_state.V_LEADER]
    # Seats still to play after this one, not known to be on its side (not a literal 0: see
    # tarot_analysis._jit).
    threats = np.int64(0)
    for k in range(n_in + 1, players):
        s = (leader + k) % players
        if (allies >> s) & 1 == 0:
            threats |= 1 << s
    if view[_state.V_LED] == NOT_LED:
        return _lead(
            lo, hi, real_lo, real_hi, attacker, chelem_taker,
            threats, voids, unk_lo, unk_hi, in_hand, unknown,
        )  # fmt: skip
    return _follow(
        lo, hi, real_lo, real_hi, view, trick, allies, has_excuse and not chelem_taker,
        threats, voids, unk_lo, unk_hi, in_hand, unknown,
    )  # fmt: skip
