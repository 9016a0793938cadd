"""Deals of the unseen cards consistent with what one seat knows: the search bot's worlds.

:func:`determinize` takes a :class:`~tarot_analysis.engine.game.GameState` and a seat and
returns copies of the state in which every card that seat cannot see has been dealt again, at
random, among the places it may be: the other hands (each keeps its size), the dog while it is
unseen, and the écart for a seat that did not make it. Each copy is drawn uniformly among all
the deals consistent with the seat's observation
(:meth:`~tarot_analysis.engine.game.GameState.observation`):

- its own hand and every card played stay where they are;
- a seat seen void in a suit holds none of it, one seen without trumps holds no trump (under
  ``trump_lead_unable_to_beat = "any_card"`` a card other than a trump on a trump lead shows
  no void: the worlds then leave out only what the voids say, not that the player held no
  higher trump);
- the cards shown with a poignée stay with the seat that showed them, until played, and that
  seat holds no other trump (a poignée shows every trump and the Excuse of the hand); where
  the rules show only the count, the highest and the lowest trump, the seat holds exactly as
  many unseen trumps (or the Excuse) as that count leaves, all between those two (a place of
  its own in the sampler, :data:`HIDDEN_TRUMPS`);
- a dog that was shown (Prise, Garde) is in the taker's hand or the écart, and the écart holds
  no card the rules forbid there (kings, bouts), nor a trump unless the rules show discarded
  trumps, in which case the shown ones are there and no other;
- the Tarocco dealer's discard likewise, for the other two;
- the poignée phase asks the same seats: a seat it asked (the seat to act at a poignée
  decision, or one that showed none when asked) holds at least the lowest threshold of trumps
  with the Excuse, one it passed over holds fewer (the engine asks only the seats that hold
  one);
- no hand as dealt holds a Petit sec (the table would have redealt).

The last two are kept by drawing again a deal that breaks them (:func:`agrees`), at most
:data:`MAX_ATTEMPTS` times for one world; a seat asked that showed none is drawn exactly
instead, stratum by stratum (each number of the unseen trumps it may hold, with its weight),
since few deals may give it enough trumps. Rejection keeps the draws uniform among the deals
that pass.

Sampling is exact: the cards are placed one after another, each in a place with probability
proportional to the number of ways the remaining cards can then be placed (counted over the
places' remaining room, compiled), so every consistent deal has the same chance. A called card
not yet played may then lie elsewhere: the sides follow it.

Where each unseen card may lie is read by one compiled function, :func:`unseen_places`, which
the pimc bot's worlds (:mod:`tarot_analysis.bots.pimc`) read too.

>>> from tarot_analysis.game.rules import load_rules
>>> state = GameState.deal(load_rules("fft-4"), seed=2)
>>> worlds = determinize(state, 0, rng=1, count=3)
>>> [world.hand(0) == state.hand(0) for world in worlds]
[True, True, True]
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

from tarot_analysis._jit import KERNEL, popcount
from tarot_analysis.engine import params as R
from tarot_analysis.engine import state as S
from tarot_analysis.engine.cardsets import (
    EXCUSE,
    EXCUSE_HI,
    N_SUIT_CARDS,
    ONE,
    PETIT,
    TRUMPS_HI,
    TWENTY_ONE,
    ZERO,
    highest_bit,
    holds,
    lowest,
    size,
)
from tarot_analysis.engine.game import GameState
from tarot_analysis.errors import TarotInputError, seat_number
from tarot_analysis.game import cards

__all__ = [
    "MAX_PLACES",
    "add_card",
    "agrees",
    "consistent_places",
    "count_ways",
    "determinize",
    "dog_taken",
    "played_by_seat",
    "sample_into",
    "sample_places",
    "unseen_places",
]

#: The places a card can be, besides the hands: the dog, the écart.
DOG: int = -1
ECART: int = -2
#: ``HIDDEN_TRUMPS + seat``: the unseen trumps of a seat whose poignée showed only their count,
#: the highest and the lowest (a part of that seat's hand with a room of its own).
HIDDEN_TRUMPS: int = 16
#: The most places :func:`unseen_places` fills: the other seats, as many places of hidden
#: trumps, the dog or the écart.
MAX_PLACES: int = 2 * S.MAX_SEATS - 1
#: How many draws :func:`sample_places` makes for one world before it gives up finding one
#: that keeps the poignées asked and has no Petit sec (:func:`agrees`).
MAX_ATTEMPTS: int = 10_000


def holder_of(place: int) -> int:
    """The seat (or :data:`DOG`, :data:`ECART`) that a place of :func:`consistent_places` is."""
    return place - HIDDEN_TRUMPS if place >= HIDDEN_TRUMPS else place


def consistent_places(
    state: GameState, seat: int
) -> tuple[list[int], dict[int, list[int]], dict[int, int]]:
    """What ``seat`` knows of where the unseen cards are (:func:`unseen_places`).

    Returns ``(places, allowed, room)``: the places the unseen cards can be (other seats,
    :data:`HIDDEN_TRUMPS` places, then :data:`DOG` or :data:`ECART` where hidden), for each
    unseen card the places it may be, and how many unseen cards each place holds.
    """
    seat = seat_number(seat, state.rules.players)
    may = np.zeros((cards.N_CARDS, MAX_PLACES), dtype=np.bool_)
    capacity = np.zeros(MAX_PLACES, dtype=np.int64)
    place_of = np.zeros(MAX_PLACES, dtype=np.int64)
    unseen = np.zeros(cards.N_CARDS, dtype=np.int64)
    played = np.zeros((S.MAX_SEATS, 2), dtype=np.uint64)
    count, n = unseen_places(
        state.m, state.s, seat, state.engine.params, may, capacity, place_of, unseen, played
    )
    places = [int(place) for place in place_of[:count]]
    allowed = {int(unseen[i]): [places[g] for g in range(count) if may[i, g]] for i in range(n)}
    room = {places[g]: int(capacity[g]) for g in range(count)}
    return places, allowed, room


def sample_places(
    state: GameState,
    seat: int,
    rng: int | np.random.Generator | np.random.SeedSequence | None = None,
    count: int = 1,
) -> tuple[list[int], list[int], npt.NDArray[np.int64]]:
    """Where the unseen cards lie in ``count`` worlds, without building the states.

    Returns ``(places, unseen, chosen)``: card ``unseen[i]`` lies at ``places[chosen[w, i]]``
    in world ``w`` (places as in :func:`consistent_places`). The counting table is built once
    for all the worlds.
    """
    if count < 0:
        raise TarotInputError(f"count must be 0 or more, got {count}")
    generator = np.random.default_rng(rng)
    places, allowed, room = consistent_places(state, seat)
    unseen = sorted(allowed)
    capacity = np.array([room[place] for place in places], dtype=np.int64)
    may = np.zeros((len(unseen), len(places)), dtype=np.bool_)
    for i, card in enumerate(unseen):
        for j, place in enumerate(places):
            may[i, j] = place in allowed[card]
    strata = _strata(state, seat, places, unseen, may, capacity)
    if not strata:
        raise TarotInputError(f"no deal of the unseen cards agrees with what seat {seat} knows")
    weights = np.array([stratum[2][-1] for stratum in strata])
    cumulative = np.cumsum(weights / weights.sum())
    chosen = np.empty((count, len(unseen)), dtype=np.int64)
    for world in range(count):
        for _ in range(MAX_ATTEMPTS):
            pick = 0
            if len(strata) > 1:
                pick = min(int(np.searchsorted(cumulative, generator.random(), "right")),
                           len(strata) - 1)  # fmt: skip
            split_may, split_capacity, table, owner = strata[pick]
            row = owner[_sample(split_may, split_capacity, table, generator.random(len(unseen)))]
            if agrees(state, places, unseen, row):
                break
        else:
            raise TarotInputError(
                f"no deal of the unseen cards drawn in {MAX_ATTEMPTS} attempts agrees with what"
                f" seat {seat} knows of the poignées and the Petit sec"
            )
        chosen[world] = row
    return places, unseen, chosen


Stratum = tuple[
    npt.NDArray[np.bool_], npt.NDArray[np.int64], npt.NDArray[np.float64], npt.NDArray[np.int64]
]


def _strata(
    state: GameState,
    seat: int,
    places: list[int],
    unseen: list[int],
    may: npt.NDArray[np.bool_],
    capacity: npt.NDArray[np.int64],
) -> list[Stratum]:
    """The deals where each seat asked for a poignée it did not show holds enough trumps, as
    strata the exact sampler can draw from: in each, such a seat holds an exact number of the
    unseen trumps (a place of its own). Each is ``(may, capacity, table, owner)``: the sampler's
    places and counting table, and the place of :func:`consistent_places` each of its places
    belongs to. Only strata holding a deal are kept; a single one where no seat needs it."""
    minimum = _unseen_trumps_needed(state, seat, places, unseen)
    trump = np.array([card >= cards.EXCUSE for card in unseen], dtype=np.bool_)
    ranges = []
    for g, low in minimum.items():
        most = min(int(capacity[g]), int((may[:, g] & trump).sum()))
        ranges.append([(g, j) for j in range(max(low, 0), most + 1)])
    strata: list[Stratum] = []
    for combination in itertools.product(*ranges):
        split_may = may.copy()
        split_capacity = capacity.copy()
        owner = list(range(len(places)))
        for g, j in combination:
            split_may = np.column_stack([split_may, may[:, g] & trump])
            split_may[:, g] &= ~trump
            split_capacity[g] -= j
            split_capacity = np.append(split_capacity, j)
            owner.append(g)
        table = _ways(np.ascontiguousarray(split_may), split_capacity)
        if table[-1] > 0:
            strata.append((split_may, split_capacity, table, np.array(owner, dtype=np.int64)))
    return strata


def _unseen_trumps_needed(
    state: GameState, seat: int, places: list[int], unseen: list[int]
) -> dict[int, int]:
    """For each other seat the poignée phase asked and that showed none (it declined, or it is
    asked now), the index of its place and how many of the unseen trumps (with the Excuse) it
    must hold to reach the lowest threshold."""
    p = state.engine.params
    players = state.rules.players
    played = _played_by_seat(state)
    asked = _asked(state, [set(state.hand(k)) for k in range(players)], played)
    hidden = set(unseen)
    needed = {}
    for k in _seats_asked_or_passed(state):
        if k == seat or not asked[k] or int(state.s[S.S_POIGNEES + k]):
            continue
        known = sum(card >= cards.EXCUSE for card in (set(state.hand(k)) | played[k]) - hidden)
        needed[places.index(k)] = int(p[R.POIGNEE_1]) - known
    return needed


def agrees(
    state: GameState, places: list[int], unseen: list[int], chosen: npt.NDArray[np.int64]
) -> bool:
    """Whether the deal with card ``unseen[i]`` at ``places[chosen[i]]`` (from the sampler of
    :func:`consistent_places`) also keeps what its placement cannot express: no hand as dealt
    holds a Petit sec (the table would have redealt), and the poignée phase asked the same
    seats (those that held at least the lowest threshold of trumps with the Excuse)."""
    now, dealt = _world_hands(state, places, unseen, chosen)
    p = state.engine.params
    players = state.rules.players
    redeals = state.rules.tarocco is None and p[R.PETIT_SEC_REDEAL]
    if redeals and any(_is_petit_sec(dealt[k]) for k in range(players)):
        return False
    seats = _seats_asked_or_passed(state)
    if not seats:
        return True
    played = _played_by_seat(state)
    truth = _asked(state, [set(state.hand(k)) for k in range(players)], played)
    world = _asked(state, [now[k] for k in range(players)], played)
    return all(world[k] == truth[k] for k in seats)


def _is_petit_sec(hand: set[int]) -> bool:
    """The Petit is the hand's only trump, and there is no Excuse."""
    return cards.PETIT in hand and not any(c >= cards.EXCUSE and c != cards.PETIT for c in hand)


def _seats_asked_or_passed(state: GameState) -> list[int]:
    """The seats the poignée phase has reached so far: asked, or passed over for holding none."""
    p = state.engine.params
    kind = int(state.s[S.S_KIND])
    if not p[R.POIGNEE_SCORED]:
        return []
    if kind == S.POIGNEE:
        return list(range(int(state.s[S.S_NEXT]) + 1))  # the seat to act is asked
    if kind in (S.CHELEM, S.CARD):
        return list(range(state.rules.players))
    return []


def _asked(state: GameState, hands: list[set[int]], played: list[set[int]]) -> list[bool]:
    """Whether the poignée phase asks each seat: it may show one, and its hand then (what it
    holds now and what it played since) holds at least the lowest threshold of trumps."""
    p = state.engine.params
    taker = int(state.s[S.S_TAKER])
    asked = []
    for k, hand in enumerate(hands):
        trumps = sum(card >= cards.EXCUSE for card in hand | played[k])
        may_show = not p[R.POIGNEE_TAKER_ONLY] or k == taker
        asked.append(bool(may_show and trumps >= p[R.POIGNEE_1]))
    return asked


def determinize(
    state: GameState,
    seat: int,
    rng: int | np.random.Generator | np.random.SeedSequence | None = None,
    count: int = 1,
) -> list[GameState]:
    """``count`` copies of ``state`` with the cards ``seat`` cannot see dealt again, each
    uniformly among the deals consistent with its observation (see the module's docstring).
    """
    if state.is_over:
        return [state.copy() for _ in range(count)]
    places, unseen, chosen = sample_places(state, seat, rng, count)
    return [_rebuilt(state, places, unseen, row) for row in chosen]


@njit(**KERNEL)
def _strides(capacity: Any, places: int, strides: Any) -> int:
    size = 1
    for g in range(places):
        strides[g] = size
        size *= capacity[g] + 1
    return size


@njit(**KERNEL)
def count_ways(
    may: Any, n: int, places: int, capacity: Any, strides: Any, left: Any, ways: Any
) -> int:
    """Fill ``ways`` with, for every room left in each place (a mixed-radix index over
    ``capacity[:places]``), the number of ways to place the last cards of ``may[:n]`` (as many
    as the room left), as a float; return the table's size, whose last entry counts every
    consistent deal. ``strides`` and ``left`` are scratch (``places`` entries)."""
    size = _strides(capacity, places, strides)
    for g in range(places):
        left[g] = 0
    total = 0
    for index in range(size):
        if index > 0:
            # The next room left, as an odometer: the first place not yet full takes one more.
            g = 0
            while left[g] == capacity[g]:
                total -= left[g]
                left[g] = 0
                g += 1
            left[g] += 1
            total += 1
        if total == 0:
            ways[index] = 1.0
            continue
        card = n - total
        if card < 0:
            ways[index] = 0.0
            continue
        count = 0.0
        for g in range(places):
            if left[g] > 0 and may[card, g]:
                count += ways[index - strides[g]]
        ways[index] = count
    return size


@njit(**KERNEL)
def sample_into(
    may: Any,
    n: int,
    places: int,
    capacity: Any,
    strides: Any,
    left: Any,
    ways: Any,
    uniforms: Any,
    chosen: Any,
) -> None:
    """A place for each card of ``may[:n]`` into ``chosen``, every consistent deal equally
    likely, from the table of :func:`count_ways` and ``n`` uniform numbers."""
    size = _strides(capacity, places, strides)
    index = size - 1
    for g in range(places):
        left[g] = capacity[g]
    for card in range(n):
        target = uniforms[card] * ways[index]
        place = -1
        for g in range(places):
            if left[g] > 0 and may[card, g]:
                weight = ways[index - strides[g]]
                place = g
                if target < weight:
                    break
                target -= weight
        chosen[card] = place
        left[place] -= 1
        index -= strides[place]


@njit(cache=True)
def _ways(may: Any, capacity: Any) -> npt.NDArray[np.float64]:
    """The counting table of :func:`count_ways` for every card of ``may``."""
    places = capacity.shape[0]
    size = 1
    for g in range(places):
        size *= capacity[g] + 1
    ways = np.zeros(size, dtype=np.float64)
    scratch = np.empty((2, places), dtype=np.int64)
    count_ways(may, may.shape[0], places, capacity, scratch[0], scratch[1], ways)
    return ways


@njit(cache=True)
def _sample(may: Any, capacity: Any, ways: Any, uniforms: Any) -> npt.NDArray[np.int64]:
    """A place for each card of ``may``, every consistent deal equally likely."""
    places = capacity.shape[0]
    chosen = np.empty(may.shape[0], dtype=np.int64)
    scratch = np.empty((2, places), dtype=np.int64)
    sample_into(may, may.shape[0], places, capacity, scratch[0], scratch[1], ways, uniforms, chosen)
    return chosen


# --------------------------------------------------------------------------------------------
# Where the unseen cards may lie, compiled: what the search bot's worlds and determinize read
# --------------------------------------------------------------------------------------------


@njit(**KERNEL)
def dog_taken(s: Any, p: Any) -> bool:
    """Whether the dog went to a hand (and an écart was made): French contracts that take it,
    and always the Tarocco dealer's extra cards."""
    if p[R.TAROCCO]:
        return True
    if s[S.S_KIND] == S.BID or s[S.S_KIND] == S.CALL or s[S.S_CONTRACT] < 0:
        return False
    return p[R.DOG_SIZE] > 0 and p[R.CONTRACT_DOG + s[S.S_CONTRACT]] == R.DOG_TAKEN


@njit(**KERNEL)
def _may_be_discarded(card: int, p: Any) -> bool:
    """Whether the rules ever let ``card`` go to the écart (or the Tarocco discard)."""
    if card in (EXCUSE, PETIT, TWENTY_ONE):
        return p[R.ECART_BOUTS] != R.FORBIDDEN
    if card > EXCUSE:
        return p[R.ECART_TRUMPS] != R.FORBIDDEN
    if card % 14 == 13:
        return p[R.ECART_KINGS] != R.FORBIDDEN
    return True


@njit(**KERNEL)
def add_card(sets: Any, row: int, card: int) -> None:
    """Put ``card`` in the set of row ``row`` of ``sets`` (one pair of words a row)."""
    if card < N_SUIT_CARDS:
        sets[row, 0] |= ONE << np.uint64(card)
    else:
        sets[row, 1] |= ONE << np.uint64(card - N_SUIT_CARDS)


@njit(**KERNEL)
def played_by_seat(s: Any, p: Any, played_by: Any) -> None:
    """The cards each seat has played into ``played_by`` (a row of two words a seat), the
    trick on the table included (public)."""
    players = p[R.PLAYERS]
    for seat in range(players):
        played_by[seat, 0] = ZERO
        played_by[seat, 1] = ZERO
    for t in range(s[S.S_TRICK]):
        leader = s[S.S_LEADERS + t]
        for k in range(players):
            add_card(played_by, (leader + k) % players, s[S.S_LOG + t * S.MAX_SEATS + k])
    for k in range(s[S.S_IN_TRICK]):
        add_card(played_by, (s[S.S_LEADER] + k) % players, s[S.S_TRICK_CARDS + k])


@njit(**KERNEL)
def unseen_places(
    m: Any,
    s: Any,
    me: int,
    p: Any,
    may: Any,
    capacity: Any,
    place_of: Any,
    unseen: Any,
    played_by: Any,
) -> tuple[int, int]:
    """What seat ``me`` knows of where the cards it cannot see lie; ``(places, n)``.

    ``place_of[:places]``: the places (the other seats in order, a place of
    :data:`HIDDEN_TRUMPS` ``+ seat`` for each poignée that showed only its count, then
    :data:`DOG` while unseen or :data:`ECART` when another seat made it), ``capacity`` the
    unseen cards each holds, ``unseen[:n]`` the unseen cards in increasing order and
    ``may[i, g]`` whether ``unseen[i]`` may lie at place ``g`` (see the module's docstring);
    ``played_by``: the cards each seat played (:func:`played_by_seat`). Reads only what the
    seat may see: its hand, the cards played and shown, the voids, the size of each hand, the
    dog once shown and its own écart.
    """
    players = p[R.PLAYERS]
    taker = s[S.S_TAKER]
    taken = dog_taken(s, p)
    dog_shown = taken and not p[R.TAROCCO]
    played_by_seat(s, p, played_by)
    known_lo = m[S.M_HANDS + 2 * me] | m[S.M_PLAYED]
    known_hi = m[S.M_HANDS + 2 * me + 1] | m[S.M_PLAYED + 1]
    places = 0
    for seat in range(players):
        if seat == me:
            continue
        shown_lo = m[S.M_SHOWN + 2 * seat] & ~m[S.M_PLAYED]
        shown_hi = m[S.M_SHOWN + 2 * seat + 1] & ~m[S.M_PLAYED + 1]
        known_lo |= shown_lo
        known_hi |= shown_hi
        place_of[places] = seat
        capacity[places] = size(m[S.M_HANDS + 2 * seat], m[S.M_HANDS + 2 * seat + 1]) - size(
            shown_lo, shown_hi
        )
        places += 1
    if p[R.POIGNEE_SHOWS_ENDS]:
        # A poignée that showed only its count: its other trumps are a place of their own.
        for seat in range(players):
            if seat == me or s[S.S_POIGNEES + seat] == 0:
                continue
            held = m[S.M_SHOWN + 2 * seat + 1] | (played_by[seat, 1] & (TRUMPS_HI | EXCUSE_HI))
            hidden = s[S.S_POIGNEE_COUNT + seat] - popcount(held)
            for g in range(places):
                if place_of[g] == seat:
                    capacity[g] -= hidden
            place_of[places] = HIDDEN_TRUMPS + seat
            capacity[places] = hidden
            places += 1
    ecart_size = size(m[S.M_ECART], m[S.M_ECART + 1])
    shown_ecart_hi = ZERO
    if not taken:
        place_of[places] = DOG
        capacity[places] = p[R.DOG_SIZE]
        places += 1
    elif me == taker:
        known_lo |= m[S.M_ECART]
        known_hi |= m[S.M_ECART + 1]
    elif ecart_size > 0:
        if p[R.ECART_TRUMPS_SHOWN]:
            shown_ecart_hi = m[S.M_ECART + 1] & TRUMPS_HI
            known_hi |= shown_ecart_hi
        place_of[places] = ECART
        capacity[places] = ecart_size - popcount(shown_ecart_hi)
        places += 1
    n = 0
    for card in range(cards.N_CARDS):
        if holds(known_lo, known_hi, card):
            continue
        unseen[n] = card
        in_shown_dog = dog_shown and holds(m[S.M_DOG], m[S.M_DOG + 1], card)
        for g in range(places):
            may[n, g] = _may_lie(m, s, p, card, place_of[g], taker, in_shown_dog)
        n += 1
    return places, n


@njit(**KERNEL)
def _may_lie(m: Any, s: Any, p: Any, card: int, place: int, taker: int, in_shown_dog: bool) -> bool:
    """Whether the unseen ``card`` may lie at ``place`` (of :func:`unseen_places`); a card of
    the dog shown lies with the taker or in the écart."""
    if place >= HIDDEN_TRUMPS:
        seat = place - HIDDEN_TRUMPS
        return (
            card >= EXCUSE and _between_shown_ends(m, seat, card)
            and not (in_shown_dog and seat != taker)
        )  # fmt: skip
    if place >= 0:
        voids = s[S.S_VOIDS + place]
        if card < N_SUIT_CARDS and (voids >> (card // 14)) & 1:
            return False
        if card > EXCUSE and voids & S.NO_TRUMPS:
            return False
        if card >= EXCUSE and s[S.S_POIGNEES + place] > 0:
            # A poignée shows every trump and the Excuse of its hand (or its count: the
            # others are then in its place of hidden trumps).
            return False
        return not (in_shown_dog and place != taker)
    if place == ECART:
        return _may_be_discarded(card, p) and not (p[R.ECART_TRUMPS_SHOWN] and card > EXCUSE)
    return True  # the unseen dog


@njit(**KERNEL)
def _between_shown_ends(m: Any, seat: int, card: int) -> bool:
    """Whether ``card`` may be among the hidden trumps of a poignée that showed only its
    highest and lowest trump: the Excuse, or a trump between the two."""
    ends = m[S.M_SHOWN + 2 * seat + 1] & TRUMPS_HI
    if card == EXCUSE:
        return True
    if ends == ZERO:
        return False
    return lowest(ZERO, ends) < card < N_SUIT_CARDS + highest_bit(ends)


def _rebuilt(
    state: GameState, places: list[int], unseen: list[int], chosen: npt.NDArray[np.int64]
) -> GameState:
    """The deal with card ``unseen[i]`` at ``places[chosen[i]]``, played again from its start
    with every action taken so far: the piles, the sides and the announcements follow."""
    rules = state.rules
    players = rules.players
    s = state.s
    now, dealt = _world_hands(state, places, unseen, chosen)
    taker = int(s[S.S_TAKER])
    masks = np.zeros((players + 1, 2), dtype=np.uint64)
    for seat in range(players):
        masks[seat] = cards.to_mask(sorted(dealt[seat]))
    masks[players] = cards.to_mask(sorted(now[DOG]))

    forced = None
    if rules.tarocco is None and int(s[S.S_DEALT_OVER]) and int(s[S.S_BIDS]) == -2:
        forced = [taker, int(s[S.S_CONTRACT]), -1, -1]  # no auction: the contract was forced
    world = GameState(
        rules,
        masks,
        forced=forced,
        dealer=taker if rules.tarocco is not None else None,
        engine=state.engine,
        _whole_deal=False,  # the dog cards seen may stand in the taker's dealt hand
    )
    _replay_actions(world, state, sorted(now[ECART]))
    return world


def _world_hands(
    state: GameState, places: list[int], unseen: list[int], chosen: npt.NDArray[np.int64]
) -> tuple[dict[int, set[int]], list[set[int]]]:
    """Where the cards are now (each seat, :data:`DOG`, :data:`ECART`) with card ``unseen[i]``
    at ``places[chosen[i]]``, and each seat's hand as it was dealt."""
    rules = state.rules
    players = rules.players
    m, s = state.m, state.s
    now = {place: set(state.hand(place)) for place in range(players)}
    now[DOG] = set(cards.from_mask(int(m[S.M_DOG]), int(m[S.M_DOG + 1])))
    now[ECART] = set(cards.from_mask(int(m[S.M_ECART]), int(m[S.M_ECART + 1])))
    moved = set(unseen)
    for place in now:
        now[place] -= moved
    for card, index in zip(unseen, chosen, strict=True):
        now[holder_of(places[int(index)])].add(card)

    # Each seat's hand as dealt: what it holds now and what it played; the taker (Tarocco: the
    # dealer) also what it discarded, less the dog it took.
    played = _played_by_seat(state)
    dealt = [now[seat] | played[seat] for seat in range(players)]
    taker = int(s[S.S_TAKER])
    dog_taken = state.dog_is_taken
    if dog_taken:
        if rules.tarocco is None:  # shown to all: it stays the dog as dealt, taken by the taker
            now[DOG] = set(cards.from_mask(int(m[S.M_DOG]), int(m[S.M_DOG + 1])))
        dealt[taker] = (dealt[taker] | now[ECART]) - now[DOG]
    return now, dealt


def _played_by_seat(state: GameState) -> list[set[int]]:
    """The cards each seat has played, the trick in progress included."""
    players = state.rules.players
    s = state.s
    played: list[set[int]] = [set() for _ in range(players)]
    if int(s[S.S_KIND]) != S.CARD and not state.is_played:
        return played
    finished = int(s[S.S_TRICK]) if int(s[S.S_KIND]) == S.CARD else state.rules.hand_size
    for t in range(finished):
        leader = int(s[S.S_LEADERS + t])
        for k in range(players):
            played[(leader + k) % players].add(int(s[S.S_LOG + t * S.MAX_SEATS + k]))
    if int(s[S.S_KIND]) == S.CARD:
        leader = int(s[S.S_LEADER])
        for k in range(int(s[S.S_IN_TRICK])):
            played[(leader + k) % players].add(int(s[S.S_TRICK_CARDS + k]))
    return played


def _progress(state: GameState) -> tuple[int, int, int, int]:
    """How far a deal has gone: seats asked (auction, poignées), calls, discards, cards."""
    s, m = state.s, state.m
    kind = int(s[S.S_KIND])
    asked = int(s[S.S_NEXT]) if kind in (S.BID, S.POIGNEE) else 0
    calls = int(s[S.S_CALLED_1] >= 0) + int(s[S.S_CALLED_2] >= 0)
    discards = bin(int(m[S.M_ECART])).count("1") + bin(int(m[S.M_ECART + 1])).count("1")
    played = int(s[S.S_TRICK]) * state.rules.players + int(s[S.S_IN_TRICK])
    return asked, calls, discards, played if kind == S.CARD else 0


def _replay_actions(world: GameState, original: GameState, ecart: list[int]) -> None:
    """Take in ``world`` every action taken so far in ``original``, until it stands where
    ``original`` stands."""
    s = original.s
    sequence = [card for seat_cards in _play_order(original) for card in seat_cards]
    discards = iter(ecart)
    cards_played = iter(sequence)
    target = (int(s[S.S_KIND]), _progress(original))
    while not world.is_over and (int(world.s[S.S_KIND]), _progress(world)) != target:
        kind = int(world.s[S.S_KIND])
        actor = int(world.s[S.S_ACTOR])
        if kind == S.BID:
            bid = int(s[S.S_BIDS + actor])
            action = S.PASS if bid < 0 else S.BID_0 + bid
        elif kind == S.CALL:
            action = int(s[S.S_CALLED_1] if world.s[S.S_CALLED_1] < 0 else s[S.S_CALLED_2])
        elif kind == S.ECART:
            action = next(discards)
        elif kind == S.POIGNEE:
            action = S.SHOW_0 + int(s[S.S_POIGNEES + actor])
        elif kind == S.CHELEM:
            action = S.ANNOUNCE_CHELEM if s[S.S_CHELEM] else S.NO_CHELEM
        else:
            action = next(cards_played)
        S.apply(world.m, world.s, action, world.engine.params, world.engine.half_points)


def _play_order(state: GameState) -> list[list[int]]:
    """The cards played so far, trick by trick, in play order."""
    s = state.s
    players = state.rules.players
    kind = int(s[S.S_KIND])
    if kind != S.CARD and not state.is_played:
        return []
    finished = int(s[S.S_TRICK]) if kind == S.CARD else state.rules.hand_size
    tricks = [
        [int(s[S.S_LOG + t * S.MAX_SEATS + k]) for k in range(players)] for t in range(finished)
    ]
    if kind == S.CARD:
        tricks.append([int(s[S.S_TRICK_CARDS + k]) for k in range(int(s[S.S_IN_TRICK]))])
    return tricks
