"""Sure bounds of the double-dummy search, from the cards alone.

The attack keeps what it has taken and takes at most every card left; the side holding the
highest trump is sure of its trumps above the other side's (all of them when the other side
has none), and of at least half a point from each of the other side's cards in those tricks;
the side of the Excuse keeps it, less half a point, with two tricks or more to play; the side
on lead is sure of its leader's master suit cards as long as no other hand can trump them
(quick tricks, as bridge solvers count them), and of a trick with each of the leader's trumps
when its masters can draw every other trump first. Inside a trick, the side sure to
win it (no seat of the other side still to play can beat its card) is sure of its cards so
far, and the master trumps count the trumps played to it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from tarot_analysis._jit import popcount
from tarot_analysis.engine.cardsets import (
    EXCUSE,
    EXCUSE_HI,
    N_SUIT_CARDS,
    ONE,
    SUIT_LO,
    TRUMPS_HI,
    ZERO,
    half_points_of,
    highest_bit,
)
from tarot_analysis.solver.ordering import _opponent_can_beat
from tarot_analysis.solver.tricks import EXCUSE_COMPENSATION_HALF, _led_and_top, _winner_offset

_N_SUITS = 4


@njit(inline="always")
def _sure_half_points(
    hands_hi: Any, players: int, attack_mask: int, half_points: Any, least: int
) -> tuple[int, int]:
    """Half points each side is sure to take at a trick boundary: ``(attack, defence)``
    (see :func:`_sure_half_points_above`)."""
    return _sure_half_points_above(
        hands_hi, players, attack_mask, half_points, least, ZERO, ZERO, -1
    )


@njit(inline="always")
def _sure_half_points_above(
    hands_hi: Any,
    players: int,
    attack_mask: int,
    half_points: Any,
    least: int,
    played_attack: np.uint64,
    played_defence: np.uint64,
    trick_side: int,
) -> tuple[int, int]:
    """Half points each side is sure to take: ``(attack, defence)``; inside a trick,
    ``played_*`` are the trumps each side played to it (as words of the cards' high part),
    and ``trick_side`` the side sure to win it (1 attack, 0 defence, −1 neither): its cards
    are counted apart, so the side's trump tricks count one less when it is that side.

    The side holding the highest trump left wins every trick in which it plays one of its
    trumps above all the other side's: those trumps, and at least ``least`` half points
    from each card of the other side in those tricks (an Excuse among them owes half a
    point, ``least`` no more than that).
    One seat plays one card a trick, so those tricks are at least as many as the most such
    trumps in one of the side's hands. Inside a trick, the trumps the other side played to it
    count among its trumps: a trump of the side above them all wins the trick too.
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
    other = (defence_trumps | played_defence) if attacking else (attack_trumps | played_attack)
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
    if trick_side == (1 if attacking else 0):
        tricks = max(tricks - 1, 0)  # the trick being played may be one of them
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
def _sure_window(
    hands_hi: Any,
    players: int,
    attack_mask: int,
    half_points: Any,
    least: int,
    acc: int,
    rest: int,
    left: int,
    swing: int,
    free: bool,
) -> tuple[int, int, int, int]:
    """The bounds ``(low, high)`` on the attack's half points at a trick boundary from the
    trumps' sure tricks and the Excuse kept, ``acc`` taken so far and ``rest`` still in the
    hands, ``left`` cards left; ``swing`` what the Petit at the last trick may add or take
    off; and the trumps' sure half points of each side (for :func:`_quick_window`).

    The Excuse kept adds to the trumps' tricks, not to the quick tricks (cashed one after the
    other, they may leave it only the last trick); its seat must be ``free`` to play it (not
    at the root of a search whose first card is imposed), as for the quick tricks.
    """
    sure_attack, sure_defence = _sure_half_points(
        hands_hi, players, attack_mask, half_points, least
    )
    kept = 0
    if free:
        kept = _excuse_kept(hands_hi, players, attack_mask, half_points, left)
    low = acc + sure_attack + max(kept, 0) - swing
    high = acc + rest - sure_defence - max(-kept, 0) + swing
    return low, high, sure_attack, sure_defence


@njit(inline="always")
def _quick_window(
    hands_lo: Any,
    hands_hi: Any,
    players: int,
    leader: int,
    attack_mask: int,
    half_points: Any,
    least: int,
    acc: int,
    rest: int,
    swing: int,
    sure_attack: int,
    sure_defence: int,
    low: int,
    high: int,
) -> tuple[int, int, np.uint64]:
    """``(low, high)`` narrowed by the leader's quick tricks (:func:`_quick_half_points`), and
    the masters the narrowed bound rests on (none when it is not narrowed)."""
    quick, masters, trumps_sure = _quick_half_points(
        hands_lo, hands_hi, players, leader, attack_mask, half_points, least
    )
    if (attack_mask >> leader) & 1 == 1:
        quick_low = acc + max(sure_attack, trumps_sure) + quick - swing
        if quick_low > low:
            return quick_low, high, masters
    else:
        quick_high = acc + rest - max(sure_defence, trumps_sure) - quick + swing
        if quick_high < high:
            return low, quick_high, masters
    return low, high, ZERO


@njit(inline="always")
def _inside_window(
    hands_lo: Any,
    hands_hi: Any,
    path: Any,
    start: int,
    pos: int,
    leader: int,
    players: int,
    attack_mask: int,
    half_points: Any,
    least: int,
    acc: int,
    rest: int,
    swing: int,
) -> tuple[int, int]:
    """The bounds ``(low, high)`` on the attack's half points inside a trick (``pos`` cards of
    it in ``path[start:]``, led by ``leader``): the attack keeps what it has and takes at most
    every card still in the hands and in the trick. When no seat of the other side still to
    play can beat the card winning the trick, the winner's side is sure of the trick's cards
    (the Excuse aside); and each side of what its master trumps bring
    (:func:`_sure_half_points_above`, the trumps played to the trick counted)."""
    high = acc + rest + swing
    taken = 0  # the trick's cards, the Excuse aside
    played_attack = ZERO
    played_defence = ZERO
    for k in range(pos):
        card = path[start + k]
        high += half_points[card]
        if card != EXCUSE:
            taken += half_points[card]
        if card > EXCUSE:
            bit = ONE << np.uint64(card - N_SUIT_CARDS)
            if (attack_mask >> ((leader + k) % players)) & 1 == 1:
                played_attack |= bit
            else:
                played_defence |= bit
    led, top = _led_and_top(path, start, pos)
    winning = _winner_offset(path, start, pos)
    winner_card = path[start + winning]
    winner_attacks = (attack_mask >> ((leader + winning) % players)) & 1 == 1
    trick_side = -1
    if not _opponent_can_beat(
        hands_lo,
        hands_hi,
        leader,
        pos - 1,
        players,
        attack_mask,
        winner_attacks,
        winner_card,
        led,
        top,
    ):
        trick_side = 1 if winner_attacks else 0
    sure_attack, sure_defence = _sure_half_points_above(
        hands_hi,
        players,
        attack_mask,
        half_points,
        least,
        played_attack,
        played_defence,
        trick_side,
    )
    if trick_side == 1:
        sure_attack += taken
    elif trick_side == 0:
        sure_defence += taken
    return acc + sure_attack - swing, high - sure_defence
