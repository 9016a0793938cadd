"""The ``pimc`` bot: each card chosen by playing the deal out on many guesses of the hidden cards.

Perfect-information Monte Carlo, as bridge and Skat programs play: at each card to play, the
bot deals the cards it cannot see again, many times (the *worlds*), each time in a way that
agrees with everything its seat has seen; on each world it tries each of its legal cards and
plays the deal out to the end with the heuristic bot at every seat; it then plays the card
whose mean score (the preset's own scoring, for its seat) over the worlds is highest. In the
last tricks of a French deal (its last :data:`ENDGAME_CARDS` cards) the worlds are played out
double dummy instead: every seat plays the card :func:`tarot_analysis.solver.best_card` finds
best with all hands seen (its side's card points, with the Petit and the Petit au bout at
their worth in the scoring).

What a world agrees with:

- the seat's own hand, every card played, the trick on the table, the voids the table has
  seen (a seat that did not follow holds none of the suit; one that did not trump, no trump);
- the poignées shown (the cards stay with the seat that showed them, and it holds no other
  trump; where a poignée shows only the count, the highest and the lowest trump, the seat
  holds as many more trumps as the count leaves, all between those two), the
  dog once shown (its cards are in the taker's hand or the écart), the écart's rules (no king
  or bout where forbidden; the trumps it holds when the rules show them);
- the auction and the announcements, read as the heuristic bot would have made them: a seat
  that bid a Garde holds a hand the heuristic values at a Garde, a silent seat holds less, and
  a defender that showed no poignée holds no double one. Worlds are drawn uniformly among the
  deals that fit the hard facts (exactly, by counting), then redrawn up to
  :data:`REDRAWS` times until one also fits the auction; the closest is kept otherwise.

Each card is tried on the same worlds, so the comparison between two cards is paired; when the
best and the next best differ by less than twice the standard error of their paired
difference after the budget, the bot draws more worlds, up to :data:`MORE` times the budget.
Cards that no other card in play separates (the 7 and 8 of a suit the bot holds, the 5 and 6
of trumps) are tried once. Bids, calls and poignées are searched the same way (each legal one
taken on the worlds, the deal played out by the heuristic); the écart and the chelem are the
heuristic's.

The budget is the number of worlds, not a time: a time budget would make the same seed play
differently on a faster machine. ``pimc`` draws :data:`DEFAULT_WORLDS`; ``pimc:N`` draws ``N``;
``pimc:N:E`` plays the last ``E`` tricks double dummy (0: never).
All its randomness comes from the table's generator, so the same seed plays the same cards.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, NamedTuple

import numpy as np
import numpy.typing as npt
from numba import njit

from tarot_analysis import solver
from tarot_analysis._jit import KERNEL, draw_unit, normalise_seed, trailing_zeros
from tarot_analysis.bots import (
    B_DEPTH,
    B_ENDGAME,
    B_KIND,
    B_LEARNS,
    B_NET,
    B_TRUNK,
    B_WEIGHED,
    B_WIDTH_0,
    B_WORLDS,
    DEFAULT_WORLDS,
    MAX_PIMC_WORLDS,
    N_BID_SHIFTS,
    N_BOT_COLUMNS,
    PIMC,
    Bot,
    heuristic,
    learned,
    margin,
    seat_rows,
)
from tarot_analysis.engine import params as R
from tarot_analysis.engine.action_features import N_ACTION_FEATURES
from tarot_analysis.engine.cardsets import (
    EXCUSE,
    N_SUIT_CARDS,
    ONE,
    PETIT,
    TRUMPS_HI,
    TWENTY_ONE,
    ZERO,
    holds,
    size,
)
from tarot_analysis.engine.core import ecart_sets, poignee_level
from tarot_analysis.engine.deal_score import SP_PETIT_VALUE, SP_REQUIRED, seat_scores
from tarot_analysis.engine.determinize import (
    DOG as DOG_PLACE,
)
from tarot_analysis.engine.determinize import (
    HIDDEN_TRUMPS,
    MAX_PLACES,
    add_card,
    count_ways,
    dog_taken,
    sample_into,
    unseen_places,
)
from tarot_analysis.engine.game import GameState
from tarot_analysis.engine.outcome import N_OUTCOME
from tarot_analysis.engine.state import (
    ANNOUNCE_CHELEM,
    ATTACK,
    BID,
    BID_0,
    CALL,
    CARD,
    CHELEM,
    ECART,
    M_DOG,
    M_ECART,
    M_HANDS,
    M_PLAYED,
    M_SHOWN,
    MAX_SEATS,
    N_ACTIONS,
    N_M,
    N_PARTS,
    N_S,
    N_VIEW,
    NO_CHELEM,
    OVER,
    PASS,
    POIGNEE,
    S_ACTOR,
    S_BIDS,
    S_BOUTS,
    S_CALLED_1,
    S_CALLED_2,
    S_CHELEM,
    S_CONTRACT,
    S_DEALT_OVER,
    S_ECART_LEFT,
    S_IN_TRICK,
    S_KIND,
    S_LEADER,
    S_LOG,
    S_NEXT,
    S_OUT,
    S_PARTS,
    S_PASSER,
    S_POIGNEES,
    S_SIDE,
    S_TAKER,
    S_TRICK,
    S_TRICK_CARDS,
    S_TRICKS,
    S_TRUMPS_BROKEN,
    S_VIEW,
    S_VOIDS,
    SHOW_0,
    apply,
    bid,
    discard,
    legal_cards_now,
    legal_mask,
    play_card,
    start,
)
from tarot_analysis.errors import TarotInputError, is_whole_number, seat_number
from tarot_analysis.runs.interrupts import held_interrupts
from tarot_analysis.solver.search import allocate_double_dummy

__all__ = [
    "DEFAULT_WORLDS",
    "ENDGAME_CARDS",
    "PIMC",
    "ActionValues",
    "Workspace",
    "action_values",
    "choose_action",
    "decide",
    "endgame_of",
    "play",
    "sample_world",
    "search_values",
    "spread_values",
    "values_at",
    "workspace",
]

# The heuristic's own bidding thresholds, as every seat of a world bids.
_NO_SHIFTS: Final = np.zeros(N_BID_SHIFTS, dtype=np.int64)
#: Up to this many times the budget when the best two cards are close.
MORE: Final = 3
#: Fresh draws of a world that disagrees with the auction before the closest is kept.
REDRAWS: Final = 24
#: Worlds a ``pimc:weighed`` bot draws for each one it keeps: it keeps one of them with a
#: chance in proportion to its weight (:func:`_weighed_world`).
WEIGHED_DRAWS: Final = 4
#: The temperature of the softmax that makes the learned network's scores the chances of the
#: other seats' cards (fitted on the cards of 200 ``fft-4`` deals of the heuristic at every
#: seat, seed 2: 0.107; ``benchmarks/world_weights.py``).
WEIGHT_TEMPERATURE: Final = 0.1

#: From this many cards left in the hands to the end (20: the last 5 tricks of 4 players, 4 of
#: 5, 6 of 3), a world is played out double dummy (every seat plays the card the solver finds
#: best with all hands seen), not by the heuristic; ``pimc:N:E`` plays the last ``E`` tricks.
ENDGAME_CARDS: Final = 20
#: Entries of the double-dummy table of a workspace: 2 ** bits.
_ENDGAME_TABLE_BITS: Final = 15

_MAX_FAILED: Final = 1000


class Workspace(NamedTuple):
    """The arrays one table's pimc seats work in, allocated once for a run of deals."""

    ways: Any  # the counting table of the exact sampler
    may: Any  # (78, places): card i of the unseen may lie in place g
    capacity: Any  # unseen cards each place holds
    strides: Any
    left: Any
    place_of: Any  # the seat of each place, or DOG_PLACE / ECART_PLACE (determinize)
    unseen: Any  # the unseen cards
    uniforms: Any
    chosen: Any
    best_chosen: Any  # the closest world to the auction so far
    weighed_chosen: Any  # the world kept among those a weighed bot drew
    now: Any  # (MAX_SEATS + 2, 2): each seat's hand now, then the dog and the écart
    played_by: Any  # (MAX_SEATS, 2): the cards each seat played
    deal: Any  # (MAX_SEATS + 1, 2): the world's deal as dealt
    forced: Any
    world_m: Any  # the world at the decision
    world_s: Any
    try_m: Any  # a world played out
    try_s: Any
    public: Any  # views of try_s and try_m, as a compiled bot reads them
    trick: Any
    played: Any
    voids: Any
    shown: Any
    out: Any
    poignees: Any
    scores: Any
    candidates: Any
    mask: Any  # the legal actions of a decision
    values: Any  # (worlds, candidates): the seat's score for each card on each world
    scoring: Any  # the preset's scoring (engine.deal_score)
    dd: solver.DoubleDummy  # the double-dummy search of the endgames
    petit_bonus: int  # the Petit au bout, in half points, for the double-dummy search
    dd_half: Any  # half points of each card as the double-dummy search weighs them
    bot: Any  # the row of the pimc bot searching: with a network, the learned bot plays out
    nets: Any  # float32: the table's networks' weights (:func:`tarot_analysis.bots.seat_rows`)
    # bool (MAX_SEATS,): the seats the heuristic plays in the worlds even for a pimc:learned
    # bot, as the bots at the table are known (all False: the network plays every seat)
    ruled: Any
    shifts: Any  # int64 (MAX_SEATS, N_BID_SHIFTS): each seat's bid shifts in the worlds
    inputs: Any  # float32: a seat's encoding, for the network
    outputs: Any  # float32 (N_ACTIONS,): the network's outputs
    hidden: Any  # float32: the network's hidden values
    legal: Any  # bool (N_ACTIONS,): the legal actions, for the network
    features: Any  # uint8 (N_ACTIONS, N_ACTION_FEATURES): an action-in network's features
    actions: Any  # int64 (N_ACTIONS,): the actions of those rows
    # float32 (MAX_SEATS, 0) and int64 (MAX_SEATS,): no first layer kept between decisions
    # (the network's scores asked from Python, a seat at a time)
    not_kept: Any
    not_updated: Any
    # Each seat's first layer kept between its decisions of one play-out (or of one world's
    # auction bid again), as the door keeps them at the table; computed whole at each seat's
    # first decision of a play-out (:func:`_fresh_layers`), so that a play-out is the same
    # whichever came before it
    kept: Any  # float32 (MAX_SEATS, first layer)
    seen: Any  # float32 (MAX_SEATS, encoding): the inputs each seat's kept layer is of
    updates: Any  # int64 (MAX_SEATS,): its updates since it was computed whole (0: never)


@njit(**KERNEL)
def endgame_of(bot: Any, players: int) -> int:
    """The tricks a pimc bot (its row) plays double dummy at the end of its worlds, at a table
    of ``players``."""
    endgame = bot[B_ENDGAME]
    return endgame if endgame >= 0 else ENDGAME_CARDS // players


def workspace(p: Any, scoring: Any, bots: Any, nets: Any) -> Workspace:
    """The arrays for the pimc seats among ``bots``, one row per seat (tiny ones when there
    are none), and ``nets`` the weights of the networks of their rows (those of a
    ``pimc:learned`` bot; :func:`tarot_analysis.bots.seat_rows`), made by compiled code
    (:func:`allocate_workspace`) with Ctrl-C held while they come back: an interrupt there
    would crash the process (:mod:`tarot_analysis.runs.interrupts`); it is raised once they
    are here."""
    with held_interrupts():  # the workspace's arrays come back as a structure
        return allocate_workspace(p, scoring, bots, nets)


@njit(cache=True)
def allocate_workspace(p: Any, scoring: Any, bots: Any, nets: Any) -> Workspace:
    """The arrays of :func:`workspace`: what compiled code calls; Python calls
    :func:`workspace`."""
    players = p[R.PLAYERS]
    most = 0
    endgames = False
    for seat in range(bots.shape[0]):
        if bots[seat, B_KIND] == PIMC:
            most = max(most, bots[seat, B_WORLDS])
            endgames = endgames or endgame_of(bots[seat], players) > 0
    table_size = 1
    if most > 0:
        for _ in range(players - 1):
            table_size *= p[R.HAND_SIZE] + 1
        table_size *= max(p[R.DOG_SIZE], 0) + 1
        if p[R.POIGNEE_SHOWS_ENDS]:
            # The taker's hand split in two places: (a + 1)(b + 1) rooms with a + b ≤ hand.
            half = p[R.HAND_SIZE] // 2 + 1
            table_size = table_size // (p[R.HAND_SIZE] + 1) * half * half
    try_m = np.zeros(N_M, dtype=np.uint64)
    try_s = np.zeros(N_S, dtype=np.int64)
    endgames = endgames and not p[R.TAROCCO]
    dd = allocate_double_dummy(players, _ENDGAME_TABLE_BITS if endgames else 1)
    petit_bonus = int(2 * scoring[SP_PETIT_VALUE] + 0.5) if endgames else 0
    return Workspace(
        ways=np.zeros(table_size, dtype=np.float64),
        may=np.zeros((78, MAX_PLACES), dtype=np.bool_),
        capacity=np.zeros(MAX_PLACES, dtype=np.int64),
        strides=np.zeros(MAX_PLACES, dtype=np.int64),
        left=np.zeros(MAX_PLACES, dtype=np.int64),
        place_of=np.zeros(MAX_PLACES, dtype=np.int64),
        unseen=np.zeros(78, dtype=np.int64),
        uniforms=np.zeros(78, dtype=np.float64),
        chosen=np.zeros(78, dtype=np.int64),
        best_chosen=np.zeros(78, dtype=np.int64),
        weighed_chosen=np.zeros(78, dtype=np.int64),
        now=np.zeros((MAX_SEATS + 2, 2), dtype=np.uint64),
        played_by=np.zeros((MAX_SEATS, 2), dtype=np.uint64),
        deal=np.zeros((MAX_SEATS + 1, 2), dtype=np.uint64),
        forced=np.full(4, -1, dtype=np.int64),
        world_m=np.zeros(N_M, dtype=np.uint64),
        world_s=np.zeros(N_S, dtype=np.int64),
        try_m=try_m,
        try_s=try_s,
        public=try_s[S_VIEW : S_VIEW + N_VIEW],
        trick=try_s[S_TRICK_CARDS : S_TRICK_CARDS + MAX_SEATS],
        played=try_m[M_PLAYED : M_PLAYED + 2],
        voids=try_s[S_VOIDS : S_VOIDS + MAX_SEATS],
        shown=try_s[S_POIGNEES : S_POIGNEES + MAX_SEATS],
        out=try_s[S_OUT : S_OUT + N_OUTCOME],
        poignees=try_s[S_POIGNEES : S_POIGNEES + MAX_SEATS],
        scores=np.zeros(MAX_SEATS, dtype=np.float64),
        candidates=np.zeros(N_ACTIONS, dtype=np.int64),
        mask=np.zeros(N_ACTIONS, dtype=np.bool_),
        values=np.zeros((max(MORE * most, 1), N_ACTIONS), dtype=np.float64),
        scoring=scoring,
        dd=dd,
        petit_bonus=petit_bonus,
        dd_half=np.zeros(78, dtype=np.int64),
        bot=np.zeros(N_BOT_COLUMNS, dtype=np.int64),
        nets=nets,
        ruled=np.zeros(MAX_SEATS, dtype=np.bool_),
        shifts=np.zeros((MAX_SEATS, N_BID_SHIFTS), dtype=np.int64),
        inputs=np.zeros(learned.MAX_ENCODING, dtype=np.float32),
        outputs=np.zeros(N_ACTIONS, dtype=np.float32),
        hidden=np.zeros(margin.table_scratch(bots), dtype=np.float32),
        legal=np.zeros(N_ACTIONS, dtype=np.bool_),
        features=np.zeros((N_ACTIONS, N_ACTION_FEATURES), dtype=np.uint8),
        actions=np.zeros(N_ACTIONS, dtype=np.int64),
        not_kept=np.zeros((MAX_SEATS, 0), dtype=np.float32),
        not_updated=np.zeros(MAX_SEATS, dtype=np.int64),
        kept=np.zeros((MAX_SEATS, margin.first_width(bots)), dtype=np.float32),
        seen=np.zeros((MAX_SEATS, learned.MAX_ENCODING), dtype=np.float32),
        updates=np.zeros(MAX_SEATS, dtype=np.int64),
    )


# --------------------------------------------------------------------------------------------
# What the seat knows: the places of the unseen cards
# --------------------------------------------------------------------------------------------


@njit(**KERNEL)
def _places(m: Any, s: Any, me: int, p: Any, ws: Workspace) -> tuple[int, int]:
    """Fill the sampler's tables with what seat ``me`` knows
    (:func:`tarot_analysis.engine.determinize.unseen_places`); return ``(places, unseen)``."""
    return unseen_places(m, s, me, p, ws.may, ws.capacity, ws.place_of, ws.unseen, ws.played_by)


# --------------------------------------------------------------------------------------------
# A world: the hidden cards dealt again, the deal replayed to where it stands
# --------------------------------------------------------------------------------------------


@njit(**KERNEL)
def _draw(places: int, n: int, rng: Any, ws: Workspace) -> None:
    for i in range(n):
        ws.uniforms[i] = draw_unit(rng)
    sample_into(
        ws.may, n, places, ws.capacity, ws.strides, ws.left, ws.ways, ws.uniforms, ws.chosen
    )


@njit(**KERNEL)
def _hands_now(
    m: Any, s: Any, me: int, p: Any, places: int, n: int, chosen: Any, ws: Workspace
) -> None:
    """Every hand, the dog and the écart as they stand in the world ``chosen``."""
    players = p[R.PLAYERS]
    dog_row = MAX_SEATS
    ecart_row = MAX_SEATS + 1
    for seat in range(players):
        if seat == me:
            ws.now[seat, 0] = m[M_HANDS + 2 * seat]
            ws.now[seat, 1] = m[M_HANDS + 2 * seat + 1]
        else:
            ws.now[seat, 0] = m[M_SHOWN + 2 * seat] & ~m[M_PLAYED]
            ws.now[seat, 1] = m[M_SHOWN + 2 * seat + 1] & ~m[M_PLAYED + 1]
    # The dog: known once shown (French) and to the Tarocco dealer, sampled while unseen.
    dog_known = dog_taken(s, p) and (not p[R.TAROCCO] or s[S_TAKER] == me)
    ws.now[dog_row, 0] = m[M_DOG] if dog_known else ZERO
    ws.now[dog_row, 1] = m[M_DOG + 1] if dog_known else ZERO
    if dog_taken(s, p) and s[S_TAKER] == me:
        ws.now[ecart_row, 0] = m[M_ECART]
        ws.now[ecart_row, 1] = m[M_ECART + 1]
    else:
        ws.now[ecart_row, 0] = ZERO
        ws.now[ecart_row, 1] = m[M_ECART + 1] & TRUMPS_HI if p[R.ECART_TRUMPS_SHOWN] else ZERO
    for i in range(n):
        place = ws.place_of[chosen[i]]
        if place >= HIDDEN_TRUMPS:
            place -= HIDDEN_TRUMPS
        row = place if place >= 0 else (dog_row if place == DOG_PLACE else ecart_row)
        add_card(ws.now, row, ws.unseen[i])


@njit(**KERNEL)
def _dealt(s: Any, p: Any, ws: Workspace) -> None:
    """The world's deal as dealt: each hand now with the cards it played; the taker's (the
    Tarocco dealer's) with its écart and without the dog it took."""
    players = p[R.PLAYERS]
    for seat in range(players):
        ws.deal[seat, 0] = ws.now[seat, 0] | ws.played_by[seat, 0]
        ws.deal[seat, 1] = ws.now[seat, 1] | ws.played_by[seat, 1]
    taker = s[S_TAKER]
    ecart_row = MAX_SEATS + 1
    ws.deal[players, 0] = ws.now[MAX_SEATS, 0]
    ws.deal[players, 1] = ws.now[MAX_SEATS, 1]
    if p[R.TAROCCO] and ws.now[MAX_SEATS, 0] | ws.now[MAX_SEATS, 1] == ZERO:
        # Extra cards that only the dealer saw: any of its cards will do; its discard does.
        ws.deal[players, 0] = ws.now[ecart_row, 0]
        ws.deal[players, 1] = ws.now[ecart_row, 1]
        return
    if dog_taken(s, p):
        ws.deal[taker, 0] = (ws.deal[taker, 0] | ws.now[ecart_row, 0]) & ~ws.now[MAX_SEATS, 0]
        ws.deal[taker, 1] = (ws.deal[taker, 1] | ws.now[ecart_row, 1]) & ~ws.now[MAX_SEATS, 1]


@njit(**KERNEL)
def _misfit(s: Any, me: int, p: Any, half: Any, ws: Workspace) -> int:
    """How far the world's hands are from the auction and the announcements, read as the
    heuristic bot makes them (the auction as the learned bot bids, for a ``pimc:learned``
    bot); 0: they fit."""
    if p[R.TAROCCO]:
        return 0
    players = p[R.PLAYERS]
    taker = s[S_TAKER]
    misfit = 0
    if s[S_BIDS] != -2 and ws.bot[B_DEPTH] > 0 and ws.bot[B_LEARNS] >> BID & 1:
        misfit += _learned_misfit(s, me, p, half, ws)
    elif s[S_BIDS] != -2:
        best = -1
        spoken = s[S_NEXT] if s[S_KIND] == BID else players
        for seat in range(spoken):
            said = s[S_BIDS + seat]
            # A seat that had to pass said nothing of its hand.
            if seat != me and seat != s[S_PASSER]:
                shifts = ws.shifts[seat]
                level = heuristic.contract_level(ws.deal[seat, 0], ws.deal[seat, 1], p, shifts)
                if said >= 0:
                    misfit += abs(level - said)
                elif level > best:
                    misfit += level - best
            if said > best:
                best = said
    if p[R.POIGNEE_SCORED] and s[S_KIND] >= POIGNEE:
        asked = s[S_NEXT] if s[S_KIND] == POIGNEE else players
        for seat in range(asked):
            if seat == me or s[S_POIGNEES + seat] > 0:
                continue
            if p[R.POIGNEE_TAKER_ONLY] and seat != taker:
                continue
            lo = ws.now[seat, 0] | ws.played_by[seat, 0]
            hi = ws.now[seat, 1] | ws.played_by[seat, 1]
            held = poignee_level(hi, p)
            if held > 0 and heuristic.poignee(seat, lo, hi, held, seat == taker, p) > 0:
                misfit += 1
    return misfit


@njit(**KERNEL)
def _learned_misfit(s: Any, me: int, p: Any, half: Any, ws: Workspace) -> int:
    """How far the auction heard is from the one the learned bot of ``ws.bot`` would have
    bid at every seat of the world: the world's deal bid again, each seat that spoke (but
    ``me`` and a seat that had to pass) asked what it bids where it stands, the contracts
    apart summed (a pass counts as −1); the auction then goes on as it was heard."""
    m = ws.try_m
    w = ws.try_s
    _forced_start(s, p, ws)
    start(m, w, ws.deal, ws.forced, s[S_TAKER], p, half)
    _fresh_layers(ws)
    spoken = s[S_NEXT] if s[S_KIND] == BID else p[R.PLAYERS]
    misfit = 0
    while w[S_KIND] == BID and w[S_NEXT] < spoken:
        seat = w[S_ACTOR]
        said = s[S_BIDS + seat]
        if seat != me and seat != s[S_PASSER]:
            action = _seat_action(m, w, seat, p, half, ws)
            misfit += abs((-1 if action == PASS else action - BID_0) - said)
        bid(m, w, said, p, half)
    return misfit


@njit(**KERNEL)
def _forced_start(s: Any, p: Any, ws: Workspace) -> None:
    """``ws.forced`` as the deal of ``s`` started: a contract set without an auction, or the
    seat that had to pass."""
    for k in range(4):
        ws.forced[k] = -1
    if not p[R.TAROCCO] and s[S_BIDS] == -2 and s[S_DEALT_OVER]:
        ws.forced[0] = s[S_TAKER]  # no auction: the contract was set
        ws.forced[1] = s[S_CONTRACT]
    elif s[S_PASSER] >= 0:
        ws.forced[0] = -2 - s[S_PASSER]


@njit(**KERNEL)
def _replay(m: Any, s: Any, p: Any, half: Any, ws: Workspace) -> bool:
    """Play the world's deal from its start with every action taken so far, to where the deal
    stands; ``False`` when the world cannot be (its deal would be redealt)."""
    wm = ws.world_m
    w = ws.world_s
    ecart_lo, ecart_hi = _replay_start(wm, w, s, p, half, ws)
    played = 0
    while True:
        if w[S_KIND] == OVER:
            return False
        action, played, ecart_lo, ecart_hi = _taken_next(w, s, p, played, ecart_lo, ecart_hi)
        if action < 0:
            return True
        apply(wm, w, action, p, half)


@njit(**KERNEL)
def _replay_start(
    m: Any, w: Any, s: Any, p: Any, half: Any, ws: Workspace
) -> tuple[np.uint64, np.uint64]:
    """The world's deal (``ws.deal``) dealt into ``(m, w)`` as the deal of ``s`` started; the
    écart it will discard (``ws.now``), to carry through :func:`_taken_next`."""
    _forced_start(s, p, ws)
    start(m, w, ws.deal, ws.forced, s[S_TAKER], p, half)
    return ws.now[MAX_SEATS + 1, 0], ws.now[MAX_SEATS + 1, 1]


@njit(**KERNEL)
def _taken_next(
    w: Any, s: Any, p: Any, played: int, ecart_lo: np.uint64, ecart_hi: np.uint64
) -> tuple[int, int, np.uint64, np.uint64]:
    """The action the deal of ``s`` took next where its world ``w`` stands, played again
    from the start: ``(action, played, ecart_lo, ecart_hi)``, the cards played so far and the
    écart's cards not yet discarded carried from call to call; the action is −1 once ``w``
    stands where ``s`` does."""
    kind = w[S_KIND]
    actor = w[S_ACTOR]
    if kind == s[S_KIND] and kind != CARD and _same_point(w, s):
        return -1, played, ecart_lo, ecart_hi
    if kind == BID:
        said = s[S_BIDS + actor]
        return (PASS if said < 0 else BID_0 + said), played, ecart_lo, ecart_hi
    if kind == CALL:
        called = s[S_CALLED_1] if w[S_CALLED_1] < 0 else s[S_CALLED_2]
        return called, played, ecart_lo, ecart_hi
    if kind == ECART:
        if ecart_lo != ZERO:
            return trailing_zeros(ecart_lo), played, ecart_lo & (ecart_lo - ONE), ecart_hi
        card = N_SUIT_CARDS + trailing_zeros(ecart_hi)
        return card, played, ecart_lo, ecart_hi & (ecart_hi - ONE)
    if kind == POIGNEE:
        return SHOW_0 + s[S_POIGNEES + actor], played, ecart_lo, ecart_hi
    if kind == CHELEM:
        return (ANNOUNCE_CHELEM if s[S_CHELEM] else NO_CHELEM), played, ecart_lo, ecart_hi
    players = p[R.PLAYERS]
    if played == s[S_TRICK] * players + s[S_IN_TRICK]:
        return -1, played, ecart_lo, ecart_hi
    t = played // players
    k = played % players
    card = s[S_LOG + t * MAX_SEATS + k] if t < s[S_TRICK] else s[S_TRICK_CARDS + k]
    return card, played + 1, ecart_lo, ecart_hi


@njit(**KERNEL)
def _same_point(w: Any, s: Any) -> bool:
    """Whether the world stands at the decision the deal stands at (one that is not a card)."""
    return (
        w[S_ACTOR] == s[S_ACTOR] and w[S_NEXT] == s[S_NEXT]
        and (w[S_CALLED_1] < 0) == (s[S_CALLED_1] < 0) and w[S_ECART_LEFT] == s[S_ECART_LEFT]
    )  # fmt: skip


@njit(**KERNEL)
def _world(
    m: Any, s: Any, me: int, p: Any, half: Any, rng: Any, places: int, n: int, ws: Workspace
) -> bool:
    """Draw a world into ``ws.world_m``, ``ws.world_s``: the first that fits the auction, or
    the closest of :data:`REDRAWS` + 1 draws; ``False`` if none could be replayed."""
    best = -1
    for _ in range(REDRAWS + 1):
        _draw(places, n, rng, ws)
        _hands_now(m, s, me, p, places, n, ws.chosen, ws)
        _dealt(s, p, ws)
        misfit = _misfit(s, me, p, half, ws)
        if best < 0 or misfit < best:
            best = misfit
            for i in range(n):
                ws.best_chosen[i] = ws.chosen[i]
        if misfit == 0:
            break
    _hands_now(m, s, me, p, places, n, ws.best_chosen, ws)
    _dealt(s, p, ws)
    return _replay(m, s, p, half, ws)


# --------------------------------------------------------------------------------------------
# Worlds weighed by what the other seats' cards revealed (tarot_analysis.bots.weighing)
# --------------------------------------------------------------------------------------------


@njit(**KERNEL)
def network_scores(m: Any, s: Any, seat: int, p: Any, half: Any, ws: Workspace) -> int:
    """The learned network of ``ws.bot`` scores each legal action of ``seat`` (the seat to act
    at ``(m, s)``, which ``ws.try_*`` hold) into ``ws.outputs[action]``, the legal actions into
    ``ws.mask``; returns how many are legal (no score when one is)."""
    legal_mask(m, s, p, ws.mask)
    count = 0
    for a in range(N_ACTIONS):
        count += ws.mask[a]
    if count <= 1:
        return count
    if s[S_KIND] == CARD:
        legal_lo, legal_hi = legal_cards_now(m, s, p)
        hint = heuristic.play(
            seat, m[M_HANDS + 2 * seat], m[M_HANDS + 2 * seat + 1], legal_lo, legal_hi,
            ws.public, ws.trick, ws.played, ws.voids, ws.shown, p,
        )  # fmt: skip
    else:
        hint = heuristic.action(m, s, seat, _NO_SHIFTS, p)
    bot = ws.bot
    widths = bot[B_WIDTH_0 : B_WIDTH_0 + bot[B_DEPTH]]
    learned.decide_action_in(
        m, s, seat, p, half, hint, ws.nets[bot[B_NET] :], widths, bot[B_TRUNK], ws.inputs,
        ws.outputs, ws.hidden, ws.legal, ws.features, ws.actions, ws.not_kept[seat],
        ws.not_kept[seat], ws.not_updated[seat : seat + 1],
    )  # fmt: skip
    return count


@njit(**KERNEL)
def action_log_probability(
    m: Any, s: Any, seat: int, action: int, temperature: float, p: Any, half: Any,
    ws: Workspace,
) -> float:  # fmt: skip
    """The logarithm of the chance that ``seat`` takes ``action`` at ``(m, s)`` (held in
    ``ws.try_*``): the softmax of the network's scores at ``temperature``; 0 when it is the
    only legal action."""
    count = network_scores(m, s, seat, p, half, ws)
    if count <= 1:
        return 0.0
    top = -np.inf
    for a in range(N_ACTIONS):
        if ws.mask[a]:
            top = max(top, ws.outputs[a] / temperature)
    total = 0.0
    for a in range(N_ACTIONS):
        if ws.mask[a]:
            total += np.exp(ws.outputs[a] / temperature - top)
    return ws.outputs[action] / temperature - top - np.log(total)


@njit(**KERNEL)
def log_likelihood(s: Any, me: int, temperature: float, p: Any, half: Any, ws: Workspace) -> float:
    """The log-likelihood of the world just drawn (its deal as dealt in ``ws.deal``, the hands
    now in ``ws.now``): the deal played again from its start into ``ws.try_*`` with the actions
    of ``s`` (as :func:`_replay` takes them), and at each card of a seat other than ``me`` the
    logarithm of its chance (:func:`action_log_probability`) added."""
    m = ws.try_m
    w = ws.try_s
    ecart_lo, ecart_hi = _replay_start(m, w, s, p, half, ws)
    played = 0
    total = 0.0
    while w[S_KIND] != OVER:
        card = w[S_KIND] == CARD
        actor = w[S_ACTOR]
        action, played, ecart_lo, ecart_hi = _taken_next(w, s, p, played, ecart_lo, ecart_hi)
        if action < 0:
            break
        if card and actor != me:
            total += action_log_probability(m, w, actor, action, temperature, p, half, ws)
        apply(m, w, action, p, half)
    return total


@njit(**KERNEL)
def _weighed_world(
    m: Any, s: Any, me: int, p: Any, half: Any, rng: Any, places: int, n: int, ws: Workspace
) -> bool:
    """A world as :func:`_world` draws one, kept among :data:`WEIGHED_DRAWS` of them with a
    chance in proportion to its likelihood (:func:`log_likelihood`, at
    :data:`WEIGHT_TEMPERATURE`): one draw of the weighed worlds, resampled as it streams by;
    ``False`` if none could be replayed."""
    total = -np.inf
    for _ in range(WEIGHED_DRAWS):
        if not _world(m, s, me, p, half, rng, places, n, ws):
            continue
        weight = log_likelihood(s, me, WEIGHT_TEMPERATURE, p, half, ws)
        grown = np.logaddexp(total, weight)
        if draw_unit(rng) < np.exp(weight - grown):
            for i in range(n):
                ws.weighed_chosen[i] = ws.best_chosen[i]
        total = grown
    if total == -np.inf:
        return False
    _hands_now(m, s, me, p, places, n, ws.weighed_chosen, ws)
    _dealt(s, p, ws)
    return _replay(m, s, p, half, ws)


# --------------------------------------------------------------------------------------------
# Trying the cards
# --------------------------------------------------------------------------------------------


@njit(**KERNEL)
def _candidates(
    m: Any, me: int, legal_lo: np.uint64, legal_hi: np.uint64, s: Any, half: Any, ws: Workspace
) -> int:
    """The legal cards worth trying: of cards that nothing in play separates (same suit, the
    same points, every card between them played or in the hand), only the lowest."""
    hand_lo = m[M_HANDS + 2 * me]
    hand_hi = m[M_HANDS + 2 * me + 1]
    gone_lo = m[M_PLAYED] | hand_lo
    gone_hi = m[M_PLAYED + 1] | hand_hi
    count = 0
    previous = -1
    for card in range(78):
        if not holds(legal_lo, legal_hi, card):
            continue
        special = (
            card in (EXCUSE, PETIT, TWENTY_ONE) or card == s[S_CALLED_1] or card == s[S_CALLED_2]
        )  # fmt: skip
        same_group = (
            previous >= 0
            and not special
            and half[card] == half[previous]
            and (card // 14 == previous // 14 if card < N_SUIT_CARDS else previous > EXCUSE)
        )
        if same_group:
            between = previous + 1
            while between < card and holds(gone_lo, gone_hi, between):
                between += 1
            if between == card:
                previous = card
                continue
        ws.candidates[count] = card
        count += 1
        previous = -1 if special else card
    return count


@njit(**KERNEL)
def _endgame(s: Any, endgame: int, p: Any) -> bool:
    """Whether the world's card play is in its last ``endgame`` tricks, under rules the solver
    plays by: a French preset, past the first trick (whose leads a call may restrict), with
    trumps free to lead."""
    return (
        not p[R.TAROCCO] and s[S_TRICK] > 0 and s[S_TRUMPS_BROKEN] == 1
        and s[S_TRICKS] - s[S_TRICK] <= endgame
    )  # fmt: skip


@njit(**KERNEL)
def _double_dummy_card(m: Any, s: Any, p: Any, half: Any, ws: Workspace) -> int:
    """The card the seat to play chooses with every hand of the world seen (see
    :func:`tarot_analysis.solver.best_card`): its side's card points, with the Petit au bout
    at its worth in the scoring, and the Petit itself worth its points and the points the
    attack needs less with one bout more."""
    players = p[R.PLAYERS]
    dd = ws.dd
    attack_mask = np.int64(0)  # not a literal 0: see tarot_analysis._jit
    bouts = s[S_BOUTS + ATTACK]  # the attack's bouts won, and those it cannot lose
    for seat in range(players):
        lo = m[M_HANDS + 2 * seat]
        hi = m[M_HANDS + 2 * seat + 1]
        dd.hands_lo[seat] = lo
        dd.hands_hi[seat] = hi
        if s[S_SIDE + seat] == ATTACK:
            attack_mask |= 1 << seat
            bouts += holds(lo, hi, TWENTY_ONE) + holds(lo, hi, EXCUSE)
    in_trick = s[S_IN_TRICK]
    for k in range(in_trick):
        dd.path[k] = s[S_TRICK_CARDS + k]
    for card in range(78):
        ws.dd_half[card] = half[card]
    petit_worth = 0
    if bouts < 3:
        required = ws.scoring[SP_REQUIRED + bouts] - ws.scoring[SP_REQUIRED + bouts + 1]
        petit_worth = int(2 * required + 0.5)
    ws.dd_half[PETIT] += petit_worth
    return solver.best_card(
        dd, players, in_trick, s[S_LEADER], attack_mask, ws.petit_bonus, ws.dd_half, p,
        petit_worth,
    )  # fmt: skip


@njit(**KERNEL)
def _play_out(me: int, double_dummy: bool, p: Any, half: Any, ws: Workspace) -> float:
    """Play ``ws.try_*`` to the end, the score of ``me``: with the heuristic at every seat (the
    learned bot for a ``pimc:learned`` bot), or with ``double_dummy`` every card chosen by the
    solver."""
    m = ws.try_m
    s = ws.try_s
    while s[S_KIND] == CARD:
        seat = s[S_ACTOR]
        if double_dummy:
            card = _double_dummy_card(m, s, p, half, ws)
        else:
            legal_lo, legal_hi = legal_cards_now(m, s, p)
            card = heuristic.play(
                seat, m[M_HANDS + 2 * seat], m[M_HANDS + 2 * seat + 1], legal_lo, legal_hi,
                ws.public, ws.trick, ws.played, ws.voids, ws.shown, p,
            )  # fmt: skip
            if ws.bot[B_DEPTH] > 0 and not ws.ruled[seat]:
                card = _learned(m, s, seat, card, p, half, ws)
        play_card(m, s, card, p, half)
    players = p[R.PLAYERS]
    if p[R.TAROCCO]:
        total = 0.0
        mine = 0.0
        for seat in range(players):
            count = 0.0
            for part in range(N_PARTS):
                count += s[S_PARTS + part * MAX_SEATS + seat]
            total += count
            if seat == me:
                mine = count
        return (mine - total / players) / 2.0
    seat_scores(ws.out, ws.poignees, ws.scoring, ws.scores)
    return ws.scores[me]


@njit(**KERNEL)
def _play_to_end(me: int, double_dummy: bool, p: Any, half: Any, ws: Workspace) -> float:
    """Play ``ws.try_*`` from any decision to the end with the heuristic at every seat (the
    learned bot for a ``pimc:learned`` bot; the cards by the solver with ``double_dummy``);
    the score of ``me``."""
    m = ws.try_m
    s = ws.try_s
    while s[S_KIND] != CARD and s[S_KIND] != OVER:
        kind = s[S_KIND]
        seat = s[S_ACTOR]
        lo = m[M_HANDS + 2 * seat]
        hi = m[M_HANDS + 2 * seat + 1]
        if kind == ECART:
            free_lo, free_hi, forced_lo, forced_hi = ecart_sets(lo, hi, p)
            count = s[S_ECART_LEFT]
            free = size(free_lo, free_hi)
            if free >= count:
                out_lo, out_hi = heuristic.ecart(lo, hi, free_lo, free_hi, count, p)
            else:
                out_lo, out_hi = heuristic.ecart(lo, hi, forced_lo, forced_hi, count - free, p)
                out_lo |= free_lo
                out_hi |= free_hi
            while s[S_KIND] == ECART:
                if out_lo != ZERO:
                    card = trailing_zeros(out_lo)
                    out_lo &= out_lo - ONE
                else:
                    card = N_SUIT_CARDS + trailing_zeros(out_hi)
                    out_hi &= out_hi - ONE
                discard(m, s, card, p, half)
            continue
        apply(m, s, _seat_action(m, s, seat, p, half, ws), p, half)
    if s[S_KIND] == OVER and not p[R.TAROCCO]:
        seat_scores(ws.out, ws.poignees, ws.scoring, ws.scores)
        return ws.scores[me]
    return _play_out(me, double_dummy, p, half, ws)


@njit(**KERNEL)
def _seat_action(m: Any, s: Any, seat: int, p: Any, half: Any, ws: Workspace) -> int:
    """The action of ``seat`` at a decision of a world other than an écart or a card: the
    heuristic's with the seat's bid shifts, or the learned bot's of a ``pimc:learned`` bot
    where the seat is not one the heuristic plays (``ws.ruled``)."""
    action = heuristic.action(m, s, seat, ws.shifts[seat], p)
    if ws.bot[B_DEPTH] > 0 and not ws.ruled[seat]:
        action = _learned(m, s, seat, action, p, half, ws)
    return action


@njit(**KERNEL)
def _learned(m: Any, s: Any, seat: int, ruled: int, p: Any, half: Any, ws: Workspace) -> int:
    """The action of the learned bot of a ``pimc:learned`` bot (``ws.bot``) at a decision of
    a world where the heuristic takes ``ruled``."""
    return margin.override(
        m, s, seat, ruled, ws.bot, p, half, ws.nets, ws.inputs, ws.outputs, ws.hidden, ws.legal,
        ws.features, ws.actions, ws.kept, ws.seen, ws.updates,
    )  # fmt: skip


@njit(**KERNEL)
def _fresh_layers(ws: Workspace) -> None:
    """A play-out (or a world's auction bid again) starts: each seat's first layer is computed
    whole at its first decision in it, then kept (:func:`_learned`)."""
    for seat in range(ws.updates.shape[0]):
        ws.updates[seat] = 0


@njit(**KERNEL)
def _try_actions(
    me: int, count: int, w: int, endgame: int, p: Any, half: Any, ws: Workspace
) -> None:
    """Each candidate action (a card, a bid, a call, a poignée) taken on the world at hand,
    then the deal played out: by the heuristic, or double dummy when the decision is a card
    in the endgame (see :func:`_endgame`)."""
    double_dummy = ws.world_s[S_KIND] == CARD and _endgame(ws.world_s, endgame, p)
    for c in range(count):
        for i in range(N_M):
            ws.try_m[i] = ws.world_m[i]
        for i in range(N_S):
            ws.try_s[i] = ws.world_s[i]
        apply(ws.try_m, ws.try_s, ws.candidates[c], p, half)
        _fresh_layers(ws)
        ws.values[w, c] = _play_to_end(me, double_dummy, p, half, ws)


@njit(**KERNEL)
def _best_two(count: int, worlds: int, ws: Workspace) -> tuple[int, int]:
    """The candidates with the highest and second highest mean over ``worlds`` worlds."""
    best = -1
    second = -1
    best_sum = 0.0
    second_sum = 0.0
    for c in range(count):
        total = 0.0
        for w in range(worlds):
            total += ws.values[w, c]
        if best < 0 or total > best_sum:
            second, second_sum = best, best_sum
            best, best_sum = c, total
        elif second < 0 or total > second_sum:
            second, second_sum = c, total
    return best, second


@njit(**KERNEL)
def _close(best: int, second: int, worlds: int, ws: Workspace) -> bool:
    """Whether the best two differ by less than twice the standard error of their paired
    difference."""
    mean = 0.0
    for w in range(worlds):
        mean += ws.values[w, best] - ws.values[w, second]
    mean /= worlds
    spread = 0.0
    for w in range(worlds):
        d = ws.values[w, best] - ws.values[w, second] - mean
        spread += d * d
    if worlds < 2:
        return True
    error = np.sqrt(spread / (worlds - 1) / worlds)
    return mean < 2.0 * error


@njit(**KERNEL)
def play(
    m: Any,
    s: Any,
    me: int,
    legal_lo: np.uint64,
    legal_hi: np.uint64,
    worlds: int,
    endgame: int,
    p: Any,
    half: Any,
    rng: Any,
    ws: Workspace,
) -> int:
    """The card seat ``me`` plays among the legal ones, by the mean of ``worlds`` worlds (more
    when the best two are close), their last ``endgame`` tricks played double dummy."""
    count = _candidates(m, me, legal_lo, legal_hi, s, half, ws)
    return _search(m, s, me, count, worlds, endgame, p, half, rng, ws)


@njit(**KERNEL)
def decide(m: Any, s: Any, worlds: int, p: Any, half: Any, rng: Any, ws: Workspace) -> int:
    """The action the seat to act takes at a bid, a call or a poignée, by the mean of
    ``worlds`` worlds in which the deal is played out by the heuristic after each legal
    action."""
    count = _legal_candidates(m, s, p, ws)
    return _search(m, s, s[S_ACTOR], count, worlds, np.int64(0), p, half, rng, ws)


@njit(**KERNEL)
def _legal_candidates(m: Any, s: Any, p: Any, ws: Workspace) -> int:
    """Every legal action of a bid, a call or a poignée into ``ws.candidates``; their count."""
    legal_mask(m, s, p, ws.mask)
    count = np.int64(0)  # not a literal 0: see tarot_analysis._jit
    for action in range(N_ACTIONS):
        if ws.mask[action]:
            ws.candidates[count] = action
            count += 1
    return int(count)


@njit(**KERNEL)
def spread_values(
    mask: Any, count: int, candidates: Any, means: Any, legal: Any, values: Any
) -> None:
    """Each action's value from :func:`search_values`'s ``count`` candidates and their
    ``means``: ``legal[a]`` whether ``a`` is legal, ``values[a]`` the mean of the highest
    candidate at or below it (the cards it stands for), NaN where ``a`` is not legal."""
    tried = -1
    for a in range(N_ACTIONS):
        legal[a] = mask[a]
        if tried + 1 < count and candidates[tried + 1] == a:
            tried += 1
        values[a] = means[tried] if mask[a] and tried >= 0 else np.nan


@njit(**KERNEL)
def search_values(
    m: Any,
    s: Any,
    worlds: int,
    endgame: int,
    p: Any,
    half: Any,
    rng: Any,
    ws: Workspace,
    means: Any,
) -> tuple[int, int, int]:
    """The search :func:`play` (a card) or :func:`decide` (a bid, a call, a poignée) makes for
    the seat to act, ``endgame`` for a card: ``(count, best, done)``, the candidates being
    ``ws.candidates[:count]``, the one taken ``ws.candidates[best]``, the seat's score for
    each on each of the ``done`` worlds ``ws.values[:done, :count]`` and their means in
    ``means[:count]`` (NaN when no world was drawn: a single candidate)."""
    me = s[S_ACTOR]
    card = s[S_KIND] == CARD
    if card:
        legal_lo, legal_hi = legal_cards_now(m, s, p)
        count = _candidates(m, me, legal_lo, legal_hi, s, half, ws)
    else:
        count = _legal_candidates(m, s, p, ws)
    tricks = endgame if card else 0
    best, done = _measure(m, s, me, count, worlds, tricks, p, half, rng, ws)
    for c in range(count):
        total = 0.0
        for w in range(done):
            total += ws.values[w, c]
        means[c] = total / done if done > 0 else np.nan
    return count, best, done


@njit(**KERNEL)
def _search(
    m: Any,
    s: Any,
    me: int,
    count: int,
    worlds: int,
    endgame: int,
    p: Any,
    half: Any,
    rng: Any,
    ws: Workspace,
) -> int:
    """The best of the ``count`` candidates of ``ws.candidates`` by their mean score over
    ``worlds`` worlds (more when the best two are close)."""
    best, _ = _measure(m, s, me, count, worlds, endgame, p, half, rng, ws)
    return ws.candidates[best]


@njit(**KERNEL)
def _measure(
    m: Any,
    s: Any,
    me: int,
    count: int,
    worlds: int,
    endgame: int,
    p: Any,
    half: Any,
    rng: Any,
    ws: Workspace,
) -> tuple[int, int]:
    """The search of :func:`_search`: ``(best, done)``, the index in ``ws.candidates`` of the
    candidate with the highest mean and the worlds it was tried on (their scores in
    ``ws.values[:done, :count]``); ``(0, 0)`` when there is a single candidate or no world
    could be drawn."""
    if count == 1:
        return 0, 0
    places, n = _places(m, s, me, p, ws)
    count_ways(ws.may, n, places, ws.capacity, ws.strides, ws.left, ws.ways)
    done = np.int64(0)  # not a literal 0: see tarot_analysis._jit
    limit = min(MORE * worlds, ws.values.shape[0])
    target = min(worlds, limit)
    failed = 0
    while True:
        while done < target and failed <= _MAX_FAILED:
            drawn = (
                _weighed_world(m, s, me, p, half, rng, places, n, ws)
                if ws.bot[B_WEIGHED]
                else _world(m, s, me, p, half, rng, places, n, ws)
            )
            if drawn:
                _try_actions(me, count, done, endgame, p, half, ws)
                done += 1
            else:
                failed += 1  # a world whose deal would have been redealt: draw another
        if done == 0:
            return 0, 0
        best, second = _best_two(count, done, ws)
        if done >= limit or failed > _MAX_FAILED or not _close(best, second, done, ws):
            return best, int(done)
        target = min(done + max(worlds // 2, 1), limit)


# --------------------------------------------------------------------------------------------
# From Python: one decision, one world
# --------------------------------------------------------------------------------------------


def _generator(seed: int | np.random.SeedSequence | None) -> npt.NDArray[np.uint64]:
    state = np.asarray(normalise_seed(seed).generate_state(4, np.uint64), dtype=np.uint64)
    if not state.any():
        state[0] = 1
    return state


#: The decisions the pimc bot searches; the écart and the chelem are the heuristic's.
SEARCHED: Final = ("card", "bid", "call", "poignee")
#: The decisions :func:`values_at` measures: every one.
MEASURED: Final = (*SEARCHED, "ecart", "chelem")


def _check(state: GameState, worlds: object, kinds: tuple[str, ...] = SEARCHED) -> None:
    """A decision the pimc bot searches and a budget it accepts, or :class:`TarotInputError`."""
    if state.decision not in kinds:
        if kinds == MEASURED:
            raise TarotInputError(f"no decision to measure: the deal is {state.decision}")
        raise TarotInputError(
            f"the pimc bot searches cards, bids, calls and poignées; the decision is "
            f"{state.decision}"
        )
    if not is_whole_number(worlds):
        raise TarotInputError(f"worlds must be a whole number, got {worlds!r}")
    if not 1 <= worlds <= MAX_PIMC_WORLDS:
        raise TarotInputError(f"worlds must be from 1 to {MAX_PIMC_WORLDS}, got {worlds}")


def choose_action(
    state: GameState, *, worlds: int = DEFAULT_WORLDS, seed: int | np.random.SeedSequence = 0
) -> int:
    """The action the pimc bot takes at ``state`` for the seat to act (a card, a bid, a call
    or a poignée; the écart and the chelem are the heuristic's), with ``worlds`` worlds drawn
    from ``seed``; it reads only what that seat may know.

    >>> from tarot_analysis.game.rules import load_rules
    >>> state = GameState.deal(load_rules("fft-4"), seed=3, forced=[0, 1, -1, -1])
    >>> while state.decision != "card":
    ...     state.apply(int(state.legal_actions()[0]))
    >>> choose_action(state, worlds=8, seed=1) in state.legal_actions()
    True
    """
    _check(state, worlds)
    p, half = state.engine.params, state.engine.half_points
    ws = _workspace(state, Bot("pimc", worlds=int(worlds)))
    m, s = state.m.copy(), state.s.copy()
    rng = _generator(seed)
    if state.decision != "card":
        return int(decide(m, s, worlds, p, half, rng, ws))
    legal_lo, legal_hi = legal_cards_now(m, s, p)
    seat = int(s[S_ACTOR])
    endgame = ENDGAME_CARDS // state.rules.players
    return int(play(m, s, seat, legal_lo, legal_hi, worlds, endgame, p, half, rng, ws))


@dataclass(frozen=True, eq=False)
class ActionValues:
    """What the pimc bot measured at one decision: each action it tried, the seat's mean
    score for it over the worlds (the preset's scoring, the seat's own score; NaN when no
    world was drawn), how many worlds, and the action it takes.

    For a card, ``actions`` are the legal cards the search tries: of legal cards that
    nothing in play separates (the 7 and 8 of a suit, the 5 and 6 of trumps) only the lowest.
    A legal card missing from ``actions`` is worth the same as the highest action below it;
    :meth:`mean` reads any legal action that way. Bids, calls and poignées try every legal
    action. A single action is taken without drawing any world (``worlds`` is 0).
    """

    #: The actions tried, in increasing order.
    actions: tuple[int, ...]
    #: The seat's mean score for each of ``actions`` over the worlds.
    means: npt.NDArray[np.float64]
    #: The number of worlds each action was tried on (the same worlds for every action).
    worlds: int
    #: The action the bot takes: the one with the highest mean.
    chosen: int
    #: The seat's score for each action on each world: ``(worlds, len(actions))``.
    values: npt.NDArray[np.float64]
    #: Every legal action of the decision.
    legal: tuple[int, ...]

    def mean(self, action: int) -> float:
        """The mean score of any legal ``action`` (a card the search merged with a lower
        one takes that one's)."""
        if action not in self.legal:
            raise TarotInputError(f"action {action} is not legal at this decision")
        tried = max(a for a in self.actions if a <= action)
        return float(self.means[self.actions.index(tried)])


def action_values(
    state: GameState, *, worlds: int = DEFAULT_WORLDS, seed: int | np.random.SeedSequence = 0
) -> ActionValues:
    """The value the pimc bot measures for each action it tries at ``state``, for the seat to
    act, with ``worlds`` worlds drawn from ``seed``: the same search as :func:`choose_action`
    on the same inputs, whose action is ``chosen``.

    >>> from tarot_analysis.game.rules import load_rules
    >>> state = GameState.deal(load_rules("fft-4"), seed=3, forced=[0, 1, -1, -1])
    >>> while state.decision != "card":
    ...     state.apply(int(state.legal_actions()[0]))
    >>> values = action_values(state, worlds=8, seed=1)
    >>> values.chosen == choose_action(state, worlds=8, seed=1)
    True
    """
    _check(state, worlds)
    return _measured(state, int(worlds), seed)


def values_at(
    state: GameState,
    *,
    worlds: int = DEFAULT_WORLDS,
    seed: int | np.random.SeedSequence = 0,
    learned: bool = False,
) -> ActionValues:
    """The values :func:`action_values` measures, at any decision: the écart and the chelem
    too, which the bot leaves to the heuristic (the same worlds, each legal action taken on
    them and the deal played out by the heuristic; an écart card by card, the rest of the
    écart the heuristic's). At a card, a bid, a call or a poignée it is
    :func:`action_values`. ``learned``: the worlds read and played out by the learned bot
    shipped for the preset (``pimc:learned``) instead of the heuristic.

    >>> from tarot_analysis.game.rules import load_rules
    >>> state = GameState.deal(load_rules("fft-4"), seed=3, forced=[0, 1, -1, -1])
    >>> while state.decision != "ecart":
    ...     state.apply(int(state.legal_actions()[0]))
    >>> values = values_at(state, worlds=4, seed=1)
    >>> values.chosen in values.legal, values.worlds >= 4
    (True, True)
    """
    _check(state, worlds, MEASURED)
    return _measured(state, int(worlds), seed, learned=bool(learned))


def _measured(
    state: GameState, worlds: int, seed: int | np.random.SeedSequence, *, learned: bool = False
) -> ActionValues:
    """The search's values at ``state``, a decision already checked."""
    p, half = state.engine.params, state.engine.half_points
    ws = _workspace(state, Bot("pimc", worlds=worlds, learned=learned))
    m, s = state.m.copy(), state.s.copy()
    means = np.zeros(N_ACTIONS, dtype=np.float64)
    endgame = ENDGAME_CARDS // state.rules.players
    count, best, done = (
        int(x) for x in search_values(m, s, worlds, endgame, p, half, _generator(seed), ws, means)
    )
    return ActionValues(
        actions=tuple(int(a) for a in ws.candidates[:count]),
        means=means[:count].copy(),
        worlds=done,
        chosen=int(ws.candidates[best]),
        values=ws.values[:done, :count].copy(),
        legal=tuple(int(a) for a in state.legal_actions()),
    )


def sample_world(
    state: GameState,
    seat: int,
    seed: int | np.random.SeedSequence = 0,
    *,
    bot: Bot | str = "pimc",
) -> GameState:
    """One world as the pimc bot draws it for ``seat`` at ``state`` (a card decision): the
    hidden cards dealt again, consistent with what the seat knows, and the deal replayed to
    where it stands. ``bot`` is the pimc bot drawing it: ``pimc:learned`` reads the auction
    as the learned bot bids.

    >>> from tarot_analysis.game.rules import load_rules
    >>> state = GameState.deal(load_rules("fft-4"), seed=3, forced=[0, 1, -1, -1])
    >>> while state.decision != "card":
    ...     state.apply(int(state.legal_actions()[0]))
    >>> world = sample_world(state, 1, seed=2)
    >>> world.hand(1) == state.hand(1), world.hand(2) == state.hand(2)
    (True, False)
    """
    seat = seat_number(seat, state.rules.players)
    if state.decision != "card":
        raise TarotInputError(
            f"worlds are drawn at a card decision; the decision is {state.decision}"
        )
    p, half = state.engine.params, state.engine.half_points
    searcher = bot if isinstance(bot, Bot) else Bot.parse(bot)
    if searcher.kind != "pimc":
        raise TarotInputError(f"worlds are drawn by a pimc bot, not {searcher.name!r}")
    ws = _workspace(state, searcher)
    places, n = _places(state.m, state.s, seat, p, ws)
    count_ways(ws.may, n, places, ws.capacity, ws.strides, ws.left, ws.ways)
    if ws.ways[_table_size(ws.capacity, places) - 1] == 0:
        raise TarotInputError(f"no deal of the unseen cards agrees with what seat {seat} knows")
    rng = _generator(seed)
    for _ in range(_MAX_FAILED):
        if _world(state.m, state.s, seat, p, half, rng, places, n, ws):
            world = state.copy()
            world.m[:] = ws.world_m
            world.s[:] = ws.world_s
            return world
    raise TarotInputError(f"no world agrees with what seat {seat} knows")


def _workspace(state: GameState, bot: Bot) -> Workspace:
    """The workspace of one pimc ``bot`` searching at ``state``, its row in ``ws.bot``."""
    rows, nets = seat_rows([bot], state.rules)
    ws = workspace(state.engine.params, state.engine.scoring, rows, nets)
    ws.bot[:] = rows[0]
    return ws


def _table_size(capacity: npt.NDArray[np.int64], places: int) -> int:
    return int(np.prod(capacity[:places] + 1))
