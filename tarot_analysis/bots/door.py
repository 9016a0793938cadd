"""One door for every compiled bot: the seat to act, its bot, and one action back.

:func:`decide` puts any decision of a deal (a bid, a call, one card of the écart, a poignée,
the chelem, a card to play) to the bot of the seat to act and returns one action in the
engine's numbering (:mod:`tarot_analysis.engine.state`: cards 0–77, ``PASS``, ``BID_0 + k``,
``SHOW_0 + level``, ``NO_CHELEM``, ``ANNOUNCE_CHELEM``), which the table takes with
``engine.state.apply``. The bot is its row of :func:`tarot_analysis.bots.bot_rows`.

The engine works out what is legal; a bot only chooses among legal options, so no bot can
break a rule. A bot is told only what its seat may know: its hand, the cards played so far,
the trick on the table and what was announced.

The random and heuristic bots decide by rule (:func:`decide_rules`). The pimc bot searches
its cards, bids, calls and poignées (:mod:`tarot_analysis.bots.pimc`); its écart and chelem
are the heuristic's. A table of rule bots only calls :func:`decide_rules`, a small function,
in its loop. A table where no pimc bot sits asks :func:`decide_without_search`, compiled
without the search and the solver: about a quarter of what compiling :func:`decide` takes.

The écart is chosen whole, at its first decision (:func:`choose_ecart`: among the cards that
may go freely, the rest among those allowed only when too few may), kept in the workspace
(:attr:`Workspace.plan`) and returned one card per decision, in increasing order.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit

from tarot_analysis._jit import KERNEL
from tarot_analysis.bots import (
    B_KIND,
    B_LEARNS,
    B_SHIFT_0,
    B_WORLDS,
    LEARNED,
    N_BID_SHIFTS,
    PIMC,
    RANDOM,
    heuristic,
    learned,
    margin,
    pimc,
    random_bot,
)
from tarot_analysis.engine import params as R
from tarot_analysis.engine.action_features import N_ACTION_FEATURES
from tarot_analysis.engine.cardsets import N_SUIT_CARDS, ONE, ZERO, lowest, size
from tarot_analysis.engine.core import ecart_sets, poignee_level
from tarot_analysis.engine.state import (
    BID,
    BID_0,
    CALL,
    CARD,
    ECART,
    M_HANDS,
    M_PLAYED,
    MAX_SEATS,
    N_ACTIONS,
    N_VIEW,
    NO_CHELEM,
    PASS,
    POIGNEE,
    S_CONTRACT,
    S_ECART_LEFT,
    S_KIND,
    S_PASSER,
    S_POIGNEES,
    S_TRICK_CARDS,
    S_VIEW,
    S_VOIDS,
    SHOW_0,
    call_now,
    legal_cards_now,
    start,
)
from tarot_analysis.runs.interrupts import held_interrupts

__all__ = [
    "Workspace",
    "asks_more",
    "choose_ecart",
    "decide",
    "decide_rules",
    "decide_without_search",
    "network_action",
    "new_deal",
    "start_deal",
    "workspace",
]


class Workspace(NamedTuple):
    """What the door keeps for one table, allocated once for a run of deals: where a bot that
    needs arrays of its own (a search's, a network's weights) finds them, beside the bot's
    row."""

    pimc: pimc.Workspace  # the pimc seats' search
    plan: Any  # (2,) uint64: the cards of the écart chosen and not yet discarded
    nets: Any  # float32: the learned seats' networks' weights, one after another
    x: Any  # float32: a seat's encoding
    out: Any  # float32 (N_ACTIONS,): a network's outputs
    scratch: Any  # float32: a network's hidden values
    mask: Any  # bool (N_ACTIONS,): the legal actions
    features: Any  # uint8 (N_ACTIONS, N_ACTION_FEATURES): an action-in network's features
    actions: Any  # int64 (N_ACTIONS,): the actions of those rows
    kept: Any  # float32 (MAX_SEATS, first layer): each seat's first layer, kept between decisions
    seen: Any  # float32 (MAX_SEATS, encoding): the inputs each seat's kept layer is of
    updates: Any  # int64 (MAX_SEATS,): its updates since it was computed whole (0: never)


def workspace(p: Any, scoring: Any, bots: Any, nets: Any) -> Workspace:
    """The workspace of a table of ``bots`` (one row per seat) and ``nets``, the weights of
    its learned bots (:func:`tarot_analysis.bots.seat_rows`); ``scoring`` the preset's scoring
    (``EngineRules.scoring``), for the pimc bot. Made by compiled code
    (:func:`allocate_workspace`) with Ctrl-C held while it comes back: an interrupt there
    would crash the process (:mod:`tarot_analysis.runs.interrupts`); it is raised once the
    workspace is here."""
    with held_interrupts():  # the workspace's arrays come back as a structure
        return allocate_workspace(p, scoring, bots, nets)


@njit(cache=True)
def allocate_workspace(p: Any, scoring: Any, bots: Any, nets: Any) -> Workspace:
    """The workspace of :func:`workspace`: what compiled code calls; Python calls
    :func:`workspace`."""
    return Workspace(
        pimc=pimc.allocate_workspace(p, scoring, bots, nets), plan=np.zeros(2, dtype=np.uint64),
        nets=nets, x=np.zeros(learned.MAX_ENCODING, dtype=np.float32),
        out=np.zeros(N_ACTIONS, dtype=np.float32),
        scratch=np.zeros(margin.table_scratch(bots), dtype=np.float32),
        mask=np.zeros(N_ACTIONS, dtype=np.bool_),
        features=np.zeros((N_ACTIONS, N_ACTION_FEATURES), dtype=np.uint8),
        actions=np.zeros(N_ACTIONS, dtype=np.int64),
        kept=np.zeros((MAX_SEATS, margin.first_width(bots)), dtype=np.float32),
        seen=np.zeros((MAX_SEATS, learned.MAX_ENCODING), dtype=np.float32),
        updates=np.zeros(MAX_SEATS, dtype=np.int64),
    )  # fmt: skip


@njit(**KERNEL)
def start_deal(
    m: Any, s: Any, cards: Any, forced: Any, dealer: int, p: Any, half: Any, ws: Workspace
) -> None:
    """Start a deal at a table: the engine's start (``engine.state.start``) and the table's
    workspace told (:func:`new_deal`). Every loop that plays deals through the door starts
    them here."""
    start(m, s, cards, forced, dealer, p, half)
    new_deal(ws)


@njit(**KERNEL)
def new_deal(ws: Workspace) -> None:
    """A deal starts: each seat's first layer is computed whole at its first decision, so that
    a deal is played the same alone as within a run of deals (the layer kept from the seat's
    last decision, :func:`tarot_analysis.bots.learned.kept_first_layer`, sums its rows in
    another order than the layer computed whole, which could, rarely, tip a close choice)."""
    ws.updates[:] = 0


@njit(**KERNEL)
def asks_more(bots: Any) -> bool:
    """Whether a bot that is more than a rule sits at the table ``bots`` (a search, a
    network): the table then asks through :func:`decide` (or :func:`decide_without_search`),
    else :func:`decide_rules` alone."""
    for seat in range(bots.shape[0]):
        if bots[seat, B_KIND] == PIMC or bots[seat, B_KIND] == LEARNED:
            return True
    return False


@njit(**KERNEL)
def decide(m: Any, s: Any, seat: int, bot: Any, p: Any, half: Any, rng: Any, ws: Workspace) -> int:
    """The action the bot ``bot`` (its row) takes for ``seat``, the seat to act, at the
    decision of ``(m, s)``; ``rng`` the table's generator, ``ws`` its :func:`workspace`."""
    if bot[B_KIND] == PIMC:
        for k in range(bot.shape[0]):
            ws.pimc.bot[k] = bot[k]  # how its worlds are read and played out
        kind = s[S_KIND]
        if kind == CARD:
            legal_lo, legal_hi = legal_cards_now(m, s, p)
            endgame = pimc.endgame_of(bot, p[R.PLAYERS])
            return pimc.play(
                m, s, seat, legal_lo, legal_hi, bot[B_WORLDS], endgame, p, half, rng, ws.pimc
            )
        if kind in (BID, CALL, POIGNEE):
            return pimc.decide(m, s, bot[B_WORLDS], p, half, rng, ws.pimc)
    return decide_without_search(m, s, seat, bot, p, half, rng, ws)


@njit(**KERNEL)
def decide_without_search(
    m: Any, s: Any, seat: int, bot: Any, p: Any, half: Any, rng: Any, ws: Workspace
) -> int:
    """:func:`decide` where no seat searches: the learned bots' networks and the rule bots.
    Compiled without the pimc bot's search and the double-dummy solver, which are most of what
    :func:`decide` takes to compile: a table with no pimc seat asks here
    (:func:`tarot_analysis.table.compiled.play_deals_without_search`)."""
    if bot[B_KIND] == LEARNED and bot[B_LEARNS] >> s[S_KIND] & 1:
        return network_action(m, s, seat, bot, p, half, rng, ws)
    return decide_rules(m, s, seat, bot, p, rng, ws.plan)


@njit(**KERNEL)
def network_action(
    m: Any, s: Any, seat: int, bot: Any, p: Any, half: Any, rng: Any, ws: Workspace
) -> int:
    """The learned bot's action: its network's best, where the network predicts it to gain
    more than the bot's margin over the heuristic's action; the heuristic's otherwise."""
    ruled = decide_rules(m, s, seat, bot, p, rng, ws.plan)
    return margin.override(
        m, s, seat, ruled, bot, p, half, ws.nets, ws.x, ws.out, ws.scratch, ws.mask,
        ws.features, ws.actions, ws.kept, ws.seen, ws.updates,
    )  # fmt: skip


@njit(**KERNEL)
def decide_rules(m: Any, s: Any, seat: int, bot: Any, p: Any, rng: Any, plan: Any) -> int:
    """:func:`decide` for the bots that decide by rule: the random bot, and the heuristic for
    every other bot (the pimc bot's écart and chelem). It takes of the workspace only the
    écart's ``plan`` (``ws.plan``): a table of rule bots passes no more at each decision."""
    kind = s[S_KIND]
    lo = m[M_HANDS + 2 * seat]
    hi = m[M_HANDS + 2 * seat + 1]
    by_chance = bot[B_KIND] == RANDOM
    if kind == CARD:
        legal_lo, legal_hi = legal_cards_now(m, s, p)
        if by_chance:
            return random_bot.pick(legal_lo, legal_hi, rng)
        return heuristic.play(
            seat, lo, hi, legal_lo, legal_hi, s[S_VIEW : S_VIEW + N_VIEW],
            s[S_TRICK_CARDS : S_TRICK_CARDS + MAX_SEATS], m[M_PLAYED : M_PLAYED + 2],
            s[S_VOIDS : S_VOIDS + MAX_SEATS], s[S_POIGNEES : S_POIGNEES + MAX_SEATS], p,
        )  # fmt: skip
    if kind == ECART:
        return _ecart_card(lo, hi, s[S_ECART_LEFT], bot, p, rng, plan)
    if not by_chance:
        return heuristic.action(m, s, seat, bot[B_SHIFT_0 : B_SHIFT_0 + N_BID_SHIFTS], p)
    if kind == BID:
        best = s[S_CONTRACT]
        contract = random_bot.bid(seat, lo, hi, best, p[R.N_CONTRACTS], rng)
        # Any contract not above the best, or from the seat that must pass, is a pass.
        if contract > best and seat != s[S_PASSER]:
            return BID_0 + contract
        return PASS
    if kind == CALL:
        return random_bot.pick(call_now(m, s, p), ZERO, rng)
    if kind == POIGNEE:
        held = poignee_level(hi, p)
        return SHOW_0 + min(random_bot.poignee(held, rng), held)
    return NO_CHELEM


@njit(**KERNEL)
def _ecart_card(
    lo: np.uint64, hi: np.uint64, left: int, bot: Any, p: Any, rng: Any, plan: Any
) -> int:
    """The next card of the écart planned in ``plan``: the whole écart is chosen at its first
    decision (when the plan is not ``left`` cards of the hand ``lo, hi``)."""
    if not (size(plan[0], plan[1]) == left and plan[0] & ~lo == ZERO and plan[1] & ~hi == ZERO):
        chosen_lo, chosen_hi, _ = choose_ecart(bot, lo, hi, left, ZERO, ZERO, p, rng)
        plan[0] = chosen_lo
        plan[1] = chosen_hi
    card = lowest(plan[0], plan[1])
    if card < N_SUIT_CARDS:
        plan[0] &= ~(ONE << np.uint64(card))
    else:
        plan[1] &= ~(ONE << np.uint64(card - N_SUIT_CARDS))
    return card


@njit(**KERNEL)
def choose_ecart(
    bot: Any,
    lo: np.uint64,
    hi: np.uint64,
    count: int,
    script_lo: np.uint64,
    script_hi: np.uint64,
    p: Any,
    rng: Any,
) -> tuple[np.uint64, np.uint64, bool]:
    """``count`` cards of ``(lo, hi)`` to discard, and whether the choice is legal.

    The bot (its row) chooses among the cards that may be discarded freely; when there are too
    few, all of them go with the rest taken among the cards allowed only if forced. A scripted
    choice (``script_lo | script_hi`` non-zero) is taken as it is and checked.
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
        chosen_lo, chosen_hi = _ecart(bot, lo, hi, free_lo, free_hi, count, p, rng)
        return chosen_lo, chosen_hi, True
    extra_lo, extra_hi = _ecart(bot, lo, hi, forced_lo, forced_hi, count - free_count, p, rng)
    return free_lo | extra_lo, free_hi | extra_hi, True


@njit(**KERNEL)
def _ecart(
    bot: Any,
    lo: np.uint64,
    hi: np.uint64,
    among_lo: np.uint64,
    among_hi: np.uint64,
    count: int,
    p: Any,
    rng: Any,
) -> tuple[np.uint64, np.uint64]:
    """``count`` cards to discard, all among ``among``."""
    if bot[B_KIND] == RANDOM:
        return random_bot.choose_from(among_lo, among_hi, count, rng)
    return heuristic.ecart(lo, hi, among_lo, among_hi, count, p)
