"""The compiled engine: each deal played through its phases, and its raw outcome recorded.

Phases, in order (each a function below): petit-sec check, bidding, call, dog and écart,
announcements, the tricks. Scoring reads the raw outcome afterwards
(:mod:`tarot_analysis.engine.scoring`). Everything a preset can change comes from the
engine's rule arrays (:mod:`tarot_analysis.engine.params`); bots choose only among legal
options (:mod:`tarot_analysis.bots.policy`).
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
from numba import njit

from tarot_analysis._jit import popcount
from tarot_analysis.bots import policy
from tarot_analysis.engine import params as R
from tarot_analysis.engine.cardsets import (
    BOUTS_HI,
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
    SUIT_CARDS_LO,
    SUIT_LO,
    TRUMP_LED,
    TRUMPS_HI,
    ZERO,
    bit_of,
    bouts_in,
    half_points_of,
    holds,
    size,
    suit_of,
    trumps_above,
)
from tarot_analysis.engine.outcome import (
    REDEAL_ALL_PASSED,
    REDEAL_NONE,
    REDEAL_PETIT_SEC,
)

# Column numbers of the raw outcome (see outcome.OUTCOME_COLUMNS).
O_REDEAL: Final = 0
O_TAKER: Final = 1
O_CONTRACT: Final = 2
O_CALLED_1: Final = 3
O_CALLED_2: Final = 4
O_PARTNER_1: Final = 5
O_PARTNER_2: Final = 6
O_ATTACK_HALF: Final = 7
O_ATTACK_BOUTS: Final = 8
O_ATTACK_TRICKS: Final = 9
O_DEFENCE_TRICKS: Final = 10
O_PETIT_AU_BOUT: Final = 11
O_PETIT_AU_BOUT_SEAT: Final = 12
O_PETIT_WINS_LAST: Final = 13
O_CHELEM_ANNOUNCED: Final = 14
O_DOG_HALF: Final = 15
O_ECART_HALF: Final = 16

# What every player may see while playing (the ``view`` array); a bot also knows its own hand.
V_TRICK: Final = 0  # number of the trick being played, from 0
V_LEADER: Final = 1  # seat that led it
V_LED: Final = 2  # suit of the trick: 0–3, TRUMP_LED, or NOT_LED
V_TOP_TRUMP: Final = 3  # highest trump in the trick (0: none)
V_TAKER: Final = 4
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

# Per seat, what the table has seen it lack (the ``voids`` array): bit s for suit s, and
# NO_TRUMPS once it failed to trump.
NO_TRUMPS: Final = 16

ATTACK: Final = 1
DEFENCE: Final = 0


@njit(cache=True)
def has_petit_sec(lo: np.uint64, hi: np.uint64) -> bool:
    """The Petit is the hand's only trump, and there is no Excuse."""
    return (hi & (TRUMPS_HI | EXCUSE_HI)) == np.uint64(1 << (PETIT - EXCUSE))


@njit(cache=True)
def poignee_level(hi: np.uint64, p: Any) -> int:
    """The highest poignée a hand can show: trumps with the Excuse against the thresholds."""
    count = popcount(hi & (TRUMPS_HI | EXCUSE_HI))
    level = 0
    for k in range(3):
        if count >= p[R.POIGNEE_1 + k]:
            level = k + 1
    return level


@njit(cache=True)
def call_candidates(lo: np.uint64, call_rank: int) -> np.uint64:
    """The cards a taker holding ``lo`` may call: kings, or queens when holding all four kings,
    then knights, then jacks (``call_rank`` 0 starts at kings, 1 at queens)."""
    ranks = (KINGS_LO, QUEENS_LO, KNIGHTS_LO, JACKS_LO)
    for r in range(call_rank, 4):
        if lo & ranks[r] != ranks[r]:
            return ranks[r]
    return JACKS_LO


@njit(cache=True)
def first_call_candidates(lo: np.uint64, p: Any) -> np.uint64:
    """The cards a taker holding ``lo`` may call first under the rules ``p``: as
    :func:`call_candidates`, except that a taker holding all four kings may call any suit
    card where the rules say so (the older 5-player rule; a king called is the taker's own)."""
    if lo & KINGS_LO == KINGS_LO and p[R.CALL_ANY_HOLDING_ALL_KINGS]:
        return SUIT_CARDS_LO
    return call_candidates(lo, 0)


@njit(cache=True)
def second_call_candidates(lo: np.uint64, called_1: int) -> np.uint64:
    """The cards a six-player taker holding ``lo`` may call second, after ``called_1``
    (RULES.md §4): a queen other than the first call; holding all four queens, any other suit
    card that is neither a king nor a queen. Never two kings, never the same card twice."""
    if lo & QUEENS_LO == QUEENS_LO:
        candidates = SUIT_CARDS_LO & ~KINGS_LO & ~QUEENS_LO
    else:
        candidates = QUEENS_LO
    if 0 <= called_1 < N_SUIT_CARDS:
        candidates &= ~(ONE << np.uint64(called_1))
    return candidates


@njit(cache=True)
def first_refused_call(masks: Any, forced: Any, p: Any) -> tuple[int, int]:
    """The first deal whose forced call the call rule does not allow for the forced taker's
    hand, and which call (1 or 2) it is; ``(-1, 0)`` when every forced call is allowed."""
    for d in range(masks.shape[0]):
        taker = forced[d, 0]
        if taker < 0:
            continue
        lo = masks[d, taker, 0]
        called_1 = forced[d, 2]
        called_2 = forced[d, 3]
        if called_1 >= 0 and not holds(first_call_candidates(lo, p), ZERO, called_1):
            return d, 1
        if called_2 >= 0 and not holds(second_call_candidates(lo, called_1), ZERO, called_2):
            return d, 2
    return -1, 0


@njit(cache=True)
def ecart_sets(
    lo: np.uint64, hi: np.uint64, p: Any
) -> tuple[np.uint64, np.uint64, np.uint64, np.uint64]:
    """Cards that may be discarded freely, and those only when nothing else is left."""
    free_lo = lo
    free_hi = hi
    forced_lo = ZERO
    forced_hi = ZERO
    kings = lo & KINGS_LO
    if p[R.ECART_KINGS] == R.FORBIDDEN:
        free_lo &= ~kings
    elif p[R.ECART_KINGS] == R.IF_FORCED:
        free_lo &= ~kings
        forced_lo |= kings
    bouts = hi & BOUTS_HI
    if p[R.ECART_BOUTS] == R.FORBIDDEN:
        free_hi &= ~bouts
    elif p[R.ECART_BOUTS] == R.IF_FORCED:
        free_hi &= ~bouts
        forced_hi |= bouts
    plain_trumps = hi & TRUMPS_HI & ~BOUTS_HI
    if p[R.ECART_TRUMPS] == R.FORBIDDEN:
        free_hi &= ~plain_trumps
    elif p[R.ECART_TRUMPS] == R.IF_FORCED:
        free_hi &= ~plain_trumps
        forced_hi |= plain_trumps
    return free_lo, free_hi, forced_lo, forced_hi


@njit(cache=True)
def choose_ecart(
    bot: int,
    lo: np.uint64,
    hi: np.uint64,
    count: int,
    script_lo: np.uint64,
    script_hi: np.uint64,
    p: Any,
    rng: Any,
) -> tuple[np.uint64, np.uint64, bool]:
    """``count`` cards of ``(lo, hi)`` to discard, and whether the choice is legal.

    The bot chooses among the cards that may be discarded freely; when there are too few, all
    of them go with the rest taken among the cards allowed only if forced. A scripted choice
    (``script_lo | script_hi`` non-zero) is taken as it is and checked.
    """
    free_lo, free_hi, forced_lo, forced_hi = ecart_sets(lo, hi, p)
    free_count = size(free_lo, free_hi)
    short = free_count < count
    if script_lo | script_hi != ZERO:
        allowed_lo = free_lo | (forced_lo if short else ZERO)
        allowed_hi = free_hi | (forced_hi if short else ZERO)
        legal = (
            size(script_lo, script_hi) == count
            and script_lo & ~allowed_lo == ZERO
            and script_hi & ~allowed_hi == ZERO
            and not (short and (free_lo & ~script_lo) | (free_hi & ~script_hi) != ZERO)
        )
        return script_lo, script_hi, legal
    if not short:
        chosen_lo, chosen_hi = policy.ecart(bot, lo, hi, free_lo, free_hi, count, p, rng)
        return chosen_lo, chosen_hi, True
    extra_lo, extra_hi = policy.ecart(bot, lo, hi, forced_lo, forced_hi, count - free_count, p, rng)
    return free_lo | extra_lo, free_hi | extra_hi, True


@njit(cache=True)
def legal_cards(
    lo: np.uint64,
    hi: np.uint64,
    led: int,
    top_trump: int,
    forbidden_lead_lo: np.uint64,
    trumps_locked: bool,
    p: Any,
) -> tuple[np.uint64, np.uint64]:
    """The cards of hand ``(lo, hi)`` that may be played next (RULES.md §2, §6, §7).

    ``led`` is the suit of the trick (``NOT_LED`` while nothing but the Excuse is down: the
    player then leads), ``top_trump`` the highest trump in it (0: none).
    ``forbidden_lead_lo``: suit cards that may not be led now (the called suits at the first
    trick); ``trumps_locked``: trumps may not be led yet.
    """
    excuse = hi & EXCUSE_HI
    if led == NOT_LED:
        lead_lo = lo & ~forbidden_lead_lo
        lead_hi = hi
        if trumps_locked and lead_lo != ZERO:
            lead_hi = excuse  # trumps only when no suit card may be led
        if lead_lo | lead_hi == ZERO:
            return lo, hi  # a restriction that leaves nothing to lead cannot bind
        return lead_lo, lead_hi
    if led != TRUMP_LED:
        follow = lo & SUIT_LO[led]
        if follow != ZERO:
            return follow, excuse
    # Void in the suit led, or a trump led: a trump if possible, a higher one where the rules say.
    trumps = hi & TRUMPS_HI
    if trumps == ZERO:
        return lo, hi
    overtrump = p[R.OVERTRUMP_WHEN_VOID] if led != TRUMP_LED else p[R.OVERTRUMP_ON_TRUMP_LEAD]
    if overtrump:
        higher = trumps_above(hi, top_trump)
        if higher != ZERO:
            return ZERO, higher | excuse
    return ZERO, trumps | excuse


@njit(cache=True)
def _remove(hands: Any, seat: int, card: int) -> None:
    b_lo, b_hi = bit_of(card)
    hands[seat, 0] &= ~b_lo
    hands[seat, 1] &= ~b_hi


@njit(cache=True)
def _holder(hands: Any, card: int, players: int) -> int:
    for seat in range(players):
        if holds(hands[seat, 0], hands[seat, 1], card):
            return seat
    return -1


@njit(cache=True, nogil=True)
def play_deals(
    masks: Any,
    bots: Any,
    forced: Any,
    p: Any,
    contract_dog: Any,
    half: Any,
    rng: Any,
    outcomes: Any,
    poignees: Any,
    log: Any,
    leaders: Any,
    ecarts: Any,
    bids: Any,
    script: Any,
    script_ecart: Any,
) -> None:
    """Play every deal of ``masks`` (n, players + 1, 2) to the end.

    ``forced`` (n, 4): taker, contract, called card 1, called card 2 (−1: decided at the
    table). Fills ``outcomes`` (n, N_OUTCOME), ``poignees`` (n, players); when ``log`` has n
    rows, also the cards of every trick in play order ``log`` (n, tricks, players), who led
    each trick ``leaders`` (n, tricks + 1; the last column is who won the last trick), the
    écart ``ecarts`` (n, 2) and each seat's bid ``bids`` (n, players: a contract index, −1
    for a pass, −2 when there was no auction).

    ``script`` (n, tricks, players), when it has n rows, gives the card each seat plays at each
    trick (−1: its bot chooses), and ``script_ecart`` (n, 2) the écart (zero: the bot's); a
    scripted card that is not legal raises ``ValueError``. This replays a known deal.
    """
    players = p[R.PLAYERS]
    tricks = p[R.HAND_SIZE]
    keep_log = log.shape[0] == masks.shape[0]
    scripted = script.shape[0] == masks.shape[0]
    hands = np.empty((players, 2), dtype=np.uint64)
    attack = np.zeros(players, dtype=np.int64)
    trick = np.empty(players, dtype=np.int64)
    view = np.zeros(N_VIEW, dtype=np.int64)
    voids = np.zeros(players, dtype=np.int64)
    played = np.zeros(2, dtype=np.uint64)  # every card played in earlier tricks and this one
    shown = np.zeros(players, dtype=np.int64)  # poignée level shown by each seat
    low_card = half[EXCUSE + 2]  # trump 2: what a card exchanged for the Excuse is worth
    for d in range(masks.shape[0]):
        out = outcomes[d]
        out[:] = -1
        poignees[d, :] = 0
        for seat in range(players):
            hands[seat, 0] = masks[d, seat, 0]
            hands[seat, 1] = masks[d, seat, 1]
        dog_lo = masks[d, players, 0]
        dog_hi = masks[d, players, 1]
        out[O_DOG_HALF] = half_points_of(dog_lo, dog_hi, half)
        out[O_ECART_HALF] = 0

        # Petit sec: the deal is void.
        if p[R.PETIT_SEC_REDEAL]:
            void = False
            for seat in range(players):
                if has_petit_sec(hands[seat, 0], hands[seat, 1]):
                    void = True
            if void:
                out[O_REDEAL] = REDEAL_PETIT_SEC
                continue

        # Bidding: one turn each from seat 0, each bid above the last.
        taker = forced[d, 0]
        contract = forced[d, 1]
        if keep_log:
            bids[d, :] = -2
        if taker < 0:
            contract = -1
            for seat in range(players):
                bid = policy.bid(bots[seat], seat, hands[seat, 0], hands[seat, 1], contract, p, rng)
                if keep_log:
                    bids[d, seat] = bid if bid > contract else -1
                if bid > contract:
                    contract = bid
                    taker = seat
            if taker < 0:
                out[O_REDEAL] = REDEAL_ALL_PASSED
                continue
        out[O_REDEAL] = REDEAL_NONE
        out[O_TAKER] = taker
        out[O_CONTRACT] = contract

        # Call: a king (five players), a king and a queen (six).
        called_1 = forced[d, 2]
        called_2 = forced[d, 3]
        if p[R.CALL] >= 1 and called_1 < 0:
            candidates = first_call_candidates(hands[taker, 0], p)
            called_1 = policy.call(
                bots[taker], hands[taker, 0], hands[taker, 1], candidates, p, rng
            )
        if p[R.CALL] == 2 and called_2 < 0:
            candidates = second_call_candidates(hands[taker, 0], called_1)
            called_2 = policy.call(
                bots[taker], hands[taker, 0], hands[taker, 1], candidates, p, rng
            )
        out[O_CALLED_1] = called_1
        out[O_CALLED_2] = called_2

        # Dog and écart.
        attack_half = 0
        attack_bouts = 0
        defence_half = 0
        defence_bouts = 0
        dog_use = contract_dog[contract]
        ecart_lo = ZERO
        ecart_hi = ZERO
        if dog_use == R.DOG_TAKEN:
            hands[taker, 0] |= dog_lo
            hands[taker, 1] |= dog_hi
            lo = hands[taker, 0]
            hi = hands[taker, 1]
            script_lo = script_ecart[d, 0] if scripted else ZERO
            script_hi = script_ecart[d, 1] if scripted else ZERO
            ecart_lo, ecart_hi, legal = choose_ecart(
                bots[taker], lo, hi, p[R.DOG_SIZE], script_lo, script_hi, p, rng
            )
            if not legal:
                raise ValueError("the scripted écart is not legal")
            hands[taker, 0] &= ~ecart_lo
            hands[taker, 1] &= ~ecart_hi
            attack_half += half_points_of(ecart_lo, ecart_hi, half)
            attack_bouts += bouts_in(ecart_hi)
            out[O_ECART_HALF] = half_points_of(ecart_lo, ecart_hi, half)
        elif dog_use == R.DOG_FOR_TAKER:
            attack_half += out[O_DOG_HALF]
            attack_bouts += bouts_in(dog_hi)
        else:
            defence_half += out[O_DOG_HALF]
            defence_bouts += bouts_in(dog_hi)
        if keep_log:
            ecarts[d, 0] = ecart_lo
            ecarts[d, 1] = ecart_hi

        # Sides: the taker, and whoever holds a called card.
        partner_1 = -1
        partner_2 = -1
        if called_1 >= 0:
            partner_1 = _holder(hands, called_1, players)
            if partner_1 == taker:
                partner_1 = -1
        if called_2 >= 0:
            partner_2 = _holder(hands, called_2, players)
            if partner_2 == taker:
                partner_2 = -1
        out[O_PARTNER_1] = partner_1
        out[O_PARTNER_2] = partner_2
        for seat in range(players):
            is_attack = seat in (taker, partner_1, partner_2)
            attack[seat] = ATTACK if is_attack else DEFENCE

        # Announcements: poignées, then the taker's chelem.
        if p[R.POIGNEE_SCORED]:
            for seat in range(players):
                if p[R.POIGNEE_TAKER_ONLY] and seat != taker:
                    continue
                held = poignee_level(hands[seat, 1], p)
                if held > 0:
                    level = policy.poignee(
                        bots[seat],
                        seat,
                        hands[seat, 0],
                        hands[seat, 1],
                        held,
                        seat == taker,
                        p,
                        rng,
                    )
                    poignees[d, seat] = min(level, held)
        announced = False
        if p[R.CHELEM_SCORED]:
            announced = policy.chelem(bots[taker], hands[taker, 0], hands[taker, 1], p, rng)
        out[O_CHELEM_ANNOUNCED] = 1 if announced else 0

        # The tricks.
        leader = players - 1 if p[R.DEALER_LEADS] else 0
        if announced and p[R.CHELEM_ANNOUNCER_LEADS]:
            leader = taker
        forbidden_lead = ZERO
        if p[R.FIRST_LEAD_CALLED_SUIT_FORBIDDEN]:
            for called in (called_1, called_2):
                if 0 <= called < 56:
                    suit = called // 14
                    forbidden_lead |= SUIT_LO[suit] & ~(ONE << np.uint64(called))
        trumps_broken = not p[R.TRUMPS_MUST_BE_BROKEN]
        won = np.zeros(2, dtype=np.int64)  # tricks by side
        excuse_debtor = -1  # the side owing a low card for the Excuse
        petit_side = -1
        petit_seat = -1
        petit_wins_last = 0
        penultimate_petit_side = -1
        penultimate_petit_won = False
        view[V_TAKER] = taker
        view[V_CONTRACT] = contract
        view[V_CALLED_1] = called_1
        view[V_CALLED_2] = called_2
        view[V_PARTNER_1] = -1
        view[V_PARTNER_2] = -1
        view[V_PLAYERS] = players
        view[V_TRICKS] = tricks
        view[V_CHELEM] = 1 if announced else 0
        voids[:] = 0
        played[:] = ZERO
        for seat in range(players):
            shown[seat] = poignees[d, seat]
        for t in range(tricks):
            led = NOT_LED
            top_trump = 0
            best = -1
            excuse_at = -1
            last = t == tricks - 1
            view[V_TRICK] = t
            view[V_LEADER] = leader
            for k in range(players):
                seat = (leader + k) % players
                legal_lo, legal_hi = legal_cards(
                    hands[seat, 0], hands[seat, 1], led, top_trump,
                    forbidden_lead if t == 0 else ZERO, not trumps_broken, p,
                )  # fmt: skip
                view[V_LED] = led
                view[V_TOP_TRUMP] = top_trump
                view[V_IN_TRICK] = k
                view[V_BEST] = best
                # Written in place (as in the Tarocco kernel): behind a shared function the
                # engine plays at half the speed.
                if scripted and script[d, t, seat] >= 0:
                    card = script[d, t, seat]
                    if not holds(legal_lo, legal_hi, card):
                        raise ValueError("a scripted card is not legal at that point")
                else:
                    card = policy.play(
                        bots[seat], seat, hands[seat, 0], hands[seat, 1], legal_lo, legal_hi,
                        view, trick, played, voids, shown, p, rng,
                    )  # fmt: skip
                _remove(hands, seat, card)
                trick[k] = card
                card_lo, card_hi = bit_of(card)
                played[0] |= card_lo
                played[1] |= card_hi
                if card == called_1:
                    view[V_PARTNER_1] = seat
                if card == called_2:
                    view[V_PARTNER_2] = seat
                suit = suit_of(card)
                if 0 <= led < TRUMP_LED and suit != led and suit >= 0:
                    voids[seat] |= 1 << led
                    if suit != TRUMP_LED:
                        voids[seat] |= NO_TRUMPS
                elif led == TRUMP_LED and 0 <= suit < TRUMP_LED:
                    voids[seat] |= NO_TRUMPS
                if suit < 0:
                    excuse_at = k
                elif suit == TRUMP_LED:
                    if led == NOT_LED:
                        led = TRUMP_LED
                    elif led != TRUMP_LED:
                        trumps_broken = True
                    if card - EXCUSE > top_trump:
                        top_trump = card - EXCUSE
                        best = k
                else:
                    if led == NOT_LED:
                        led = suit
                        best = k
                    elif suit == led and top_trump == 0 and card > trick[best]:
                        best = k
            if keep_log:
                for k in range(players):
                    log[d, t, k] = trick[k]
                leaders[d, t] = leader
            # The Excuse led to the last trick by a side that took every other trick wins it.
            chelem_excuse = (
                last and excuse_at == 0 and p[R.CHELEM_EXCUSE_WINS_LAST]
                and won[1 - attack[leader]] == 0
            )  # fmt: skip
            if chelem_excuse:
                best = 0
            winner = (leader + best) % players
            side = attack[winner]
            trick_half = 0
            trick_bouts = 0
            for k in range(players):
                trick_half += half[trick[k]]
                if trick[k] == EXCUSE or trick[k] == PETIT or trick[k] == EXCUSE + 21:
                    trick_bouts += 1
            if excuse_at >= 0 and not last:
                # The Excuse stays with its side; a low card is owed for it if the trick is lost.
                owner = attack[(leader + excuse_at) % players]
                trick_half -= half[EXCUSE]
                trick_bouts -= 1
                if owner == ATTACK:
                    attack_half += half[EXCUSE]
                    attack_bouts += 1
                else:
                    defence_half += half[EXCUSE]
                    defence_bouts += 1
                if owner != side:
                    excuse_debtor = owner
            if side == ATTACK:
                attack_half += trick_half
                attack_bouts += trick_bouts
            else:
                defence_half += trick_half
                defence_bouts += trick_bouts
            won[side] += 1
            for k in range(players):
                if trick[k] == PETIT:
                    if last:
                        petit_side = side
                        petit_seat = (leader + k) % players
                        petit_wins_last = 1 if best == k else 0
                    elif t == tricks - 2:
                        penultimate_petit_side = side
                        penultimate_petit_won = best == k
                        petit_seat = (leader + k) % players
            if chelem_excuse and penultimate_petit_side == side and p[R.CHELEM_PETIT_PENULTIMATE]:
                # Under a chelem the Petit at the trick before the Excuse's counts as au bout;
                # for a personal bonus the Petit itself must have won that trick.
                petit_side = side
                if penultimate_petit_won:
                    petit_wins_last = 1
            leader = winner
        if keep_log:
            leaders[d, tricks] = leader  # the winner of the last trick
        if petit_side < 0:
            petit_seat = -1
        # The owed low card changes hands once the debtor has a trick to take it from.
        if excuse_debtor >= 0 and won[excuse_debtor] > 0:
            if excuse_debtor == ATTACK:
                attack_half -= low_card
                defence_half += low_card
            else:
                defence_half -= low_card
                attack_half += low_card
        out[O_ATTACK_HALF] = attack_half
        out[O_ATTACK_BOUTS] = attack_bouts
        out[O_ATTACK_TRICKS] = won[ATTACK]
        out[O_DEFENCE_TRICKS] = won[DEFENCE]
        out[O_PETIT_AU_BOUT] = petit_side
        out[O_PETIT_AU_BOUT_SEAT] = petit_seat
        out[O_PETIT_WINS_LAST] = petit_wins_last
