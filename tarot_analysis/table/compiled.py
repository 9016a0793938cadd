"""The table: compiled bots seated around the game state, deals played from start to end.

The engine (:mod:`tarot_analysis.engine.state`) knows the rules and steps a deal one decision at
a time; it knows no bot. Here each decision is put to the bot of the seat to act through one
door (:func:`tarot_analysis.bots.door.decide`, the bot as its row of
:func:`tarot_analysis.bots.bot_rows`), which returns one action, and the table applies it
(``engine.state.apply``) until the deal is over; the raw outcome and, when kept, every trick
are copied out. Bots written in Python sit at the table through
:mod:`tarot_analysis.table.python_bots`, one decision at a time.

A scripted card or écart (a known deal replayed) stands in for the bot's answer and is
checked: the table's business, not the bot's.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from tarot_analysis._jit import KERNEL
from tarot_analysis.bots import door
from tarot_analysis.bots.door import choose_ecart
from tarot_analysis.engine import params as R
from tarot_analysis.engine.cardsets import N_SUIT_CARDS, ONE, ZERO, holds
from tarot_analysis.engine.outcome import N_OUTCOME, O_REDEAL, REDEAL_NONE
from tarot_analysis.engine.state import (
    CARD,
    ECART,
    M_ECART,
    M_HANDS,
    MAX_SEATS,
    N_EVENTS,
    N_M,
    N_PARTS,
    N_S,
    OVER,
    S_ACTOR,
    S_BIDS,
    S_DEALT_OVER,
    S_ECART_LEFT,
    S_EVENTS,
    S_KIND,
    S_LEADERS,
    S_LOG,
    S_OUT,
    S_PARTS,
    S_POIGNEES,
    S_TRICK,
    S_WON_BY,
    apply,
    discard,
    legal_cards_now,
    play_card,
)
from tarot_analysis.game.cards import N_CARDS

__all__ = ["choose_ecart", "play_deals", "play_deals_without_search", "record_deal"]


@njit(**KERNEL)
def _scripted(
    m: Any,
    s: Any,
    bots: Any,
    d: int,
    script: Any,
    script_ecart: Any,
    p: Any,
    half: Any,
    rng: Any,
) -> bool:
    """Take the scripted card or écart of deal ``d`` if there is one now, checked; whether it
    did (if not, the bot of the seat to act decides). Called only where deals are scripted."""
    kind = s[S_KIND]
    seat = s[S_ACTOR]
    if kind == CARD:
        card = script[d, s[S_TRICK], seat]
        if card < 0:
            return False
        legal_lo, legal_hi = legal_cards_now(m, s, p)
        if not holds(legal_lo, legal_hi, card):
            raise ValueError("a scripted card is not legal at that point")
        play_card(m, s, card, p, half)
        return True
    if kind != ECART or script_ecart[d, 0] | script_ecart[d, 1] == ZERO:
        return False
    lo = m[M_HANDS + 2 * seat]
    hi = m[M_HANDS + 2 * seat + 1]
    chosen_lo, chosen_hi, legal = choose_ecart(
        bots[seat], lo, hi, s[S_ECART_LEFT], script_ecart[d, 0],
        script_ecart[d, 1], p, rng,
    )  # fmt: skip
    if not legal and p[R.TAROCCO]:
        raise ValueError("the scripted discard is not legal")
    if not legal:
        raise ValueError("the scripted écart is not legal")
    for card in range(N_SUIT_CARDS):
        if (chosen_lo >> np.uint64(card)) & ONE:
            discard(m, s, card, p, half)
    for bit in range(N_CARDS - N_SUIT_CARDS):
        if (chosen_hi >> np.uint64(bit)) & ONE:
            discard(m, s, N_SUIT_CARDS + bit, p, half)
    return True


@njit(**KERNEL)
def _play_out(
    m: Any,
    s: Any,
    bots: Any,
    d: int,
    scripted: bool,
    script: Any,
    script_ecart: Any,
    p: Any,
    half: Any,
    rng: Any,
    ws: Any,
) -> None:
    """Every decision of the deal in ``(m, s)`` to its end: the script's where it has one,
    else the bot's through the door (:func:`~tarot_analysis.bots.door.decide`)."""
    while s[S_KIND] != OVER:
        if not (scripted and _scripted(m, s, bots, d, script, script_ecart, p, half, rng)):
            seat = s[S_ACTOR]
            apply(m, s, door.decide(m, s, seat, bots[seat], p, half, rng, ws), p, half)


@njit(**KERNEL)
def _play_out_without_search(
    m: Any,
    s: Any,
    bots: Any,
    d: int,
    scripted: bool,
    script: Any,
    script_ecart: Any,
    p: Any,
    half: Any,
    rng: Any,
    ws: Any,
) -> None:
    """:func:`_play_out` where no pimc bot sits: the door without the search
    (:func:`~tarot_analysis.bots.door.decide_without_search`), and a table of rule bots through
    :func:`~tarot_analysis.bots.door.decide_rules` alone, a smaller loop."""
    if door.asks_more(bots):
        while s[S_KIND] != OVER:
            if not (scripted and _scripted(m, s, bots, d, script, script_ecart, p, half, rng)):
                seat = s[S_ACTOR]
                action = door.decide_without_search(m, s, seat, bots[seat], p, half, rng, ws)
                apply(m, s, action, p, half)
        return
    while s[S_KIND] != OVER:
        if not (scripted and _scripted(m, s, bots, d, script, script_ecart, p, half, rng)):
            seat = s[S_ACTOR]
            action = door.decide_rules(m, s, seat, bots[seat], p, rng, ws.plan)
            apply(m, s, action, p, half)


@njit(cache=True, nogil=True)
def play_deals(
    masks: Any,
    dealers: Any,
    bots: Any,
    nets: Any,
    forced: Any,
    p: Any,
    half: Any,
    scoring: Any,
    rng: Any,
    outcomes: Any,
    poignees: Any,
    log: Any,
    leaders: Any,
    ecarts: Any,
    bids: Any,
    counts: Any,
    script: Any,
    script_ecart: Any,
    done: Any,
) -> None:
    """Play every deal of ``masks`` (n, players + 1, 2) to the end; ``bots`` a row per seat
    and ``nets`` the learned bots' weights (:func:`tarot_analysis.bots.seat_rows`);
    ``scoring`` the preset's scoring (``EngineRules.scoring``), for the pimc bot. A table
    where no pimc bot sits plays the same deals with :func:`play_deals_without_search`,
    which compiles in about a quarter of the time.

    ``dealers`` (n): in Tarocco the dealing seat, who takes row ``players`` of the deal (the
    extra cards), discards and leads; empty in French presets, where the last seat deals.
    ``forced`` (n, 4): taker, contract, called card 1 and 2 (−1: decided at the table).
    Fills ``outcomes`` (n, N_OUTCOME), ``poignees`` (n, players); when ``log`` has n rows, also
    the cards of every trick in play order ``log`` (n, tricks, players; a shown Fool stands at
    its place), who led each trick ``leaders`` (n, tricks + 1; the last column is who won the
    last trick), the écart (the Tarocco dealer's discard) ``ecarts`` (n, 2) and each seat's bid
    ``bids`` (n, players: a contract index, −1 for a pass, −2 when there was no auction).
    ``counts`` = (parts, tricks_won, events), Tarocco's count (:func:`record_deal`).

    ``script`` (n, tricks, players), when it has n rows, gives the card each seat plays at each
    trick (−1: its bot chooses), and ``script_ecart`` (n, 2) the écart (zero: the bot's); a
    scripted card that is not legal raises ``ValueError``. This replays a known deal.

    ``done`` (1,), when it has a row, holds the deals finished so far, written after each: what
    a progress bar reads while a long chunk plays (empty: not kept).
    """
    scripted = script.shape[0] == masks.shape[0]
    m = np.zeros(N_M, dtype=np.uint64)
    s = np.zeros(N_S, dtype=np.int64)
    ws = door.allocate_workspace(p, scoring, bots, nets)
    parts, tricks_won, events = counts
    for d in range(masks.shape[0]):
        _start_deal(m, s, masks, dealers, forced, d, p, half, ws)
        _play_out(m, s, bots, d, scripted, script, script_ecart, p, half, rng, ws)
        record_deal(
            m, s, d, p, outcomes, poignees, log, leaders, ecarts, bids, parts, tricks_won,
            events, done,
        )  # fmt: skip


@njit(cache=True, nogil=True)
def play_deals_without_search(
    masks: Any,
    dealers: Any,
    bots: Any,
    nets: Any,
    forced: Any,
    p: Any,
    half: Any,
    scoring: Any,
    rng: Any,
    outcomes: Any,
    poignees: Any,
    log: Any,
    leaders: Any,
    ecarts: Any,
    bids: Any,
    counts: Any,
    script: Any,
    script_ecart: Any,
    done: Any,
) -> None:
    """:func:`play_deals` for a table where no pimc bot sits, compiled without the search and
    the double-dummy solver: the same arguments, the same deals, the same results."""
    scripted = script.shape[0] == masks.shape[0]
    m = np.zeros(N_M, dtype=np.uint64)
    s = np.zeros(N_S, dtype=np.int64)
    ws = door.allocate_workspace(p, scoring, bots, nets)
    parts, tricks_won, events = counts
    for d in range(masks.shape[0]):
        _start_deal(m, s, masks, dealers, forced, d, p, half, ws)
        _play_out_without_search(m, s, bots, d, scripted, script, script_ecart, p, half, rng, ws)
        record_deal(
            m, s, d, p, outcomes, poignees, log, leaders, ecarts, bids, parts, tricks_won,
            events, done,
        )  # fmt: skip


@njit(**KERNEL)
def _start_deal(
    m: Any, s: Any, masks: Any, dealers: Any, forced: Any, d: int, p: Any, half: Any, ws: Any
) -> None:
    """Deal ``d`` of ``masks`` dealt into ``(m, s)``, its dealer and forced choices set
    (:func:`~tarot_analysis.bots.door.start_deal`)."""
    dealer = dealers[d] if d < dealers.shape[0] else np.int64(-1)
    door.start_deal(m, s, masks[d], forced[d], dealer, p, half, ws)


@njit(**KERNEL)
def record_deal(
    m: Any,
    s: Any,
    d: int,
    p: Any,
    outcomes: Any,
    poignees: Any,
    log: Any,
    leaders: Any,
    ecarts: Any,
    bids: Any,
    parts: Any,
    tricks_won: Any,
    events: Any,
    done: Any,
) -> None:
    """Copy a finished deal into row ``d`` of the result arrays (see :func:`play_deals`); its
    bids, écart and tricks only when ``log`` has rows. Tarocco's count goes to ``parts``
    (n, N_PARTS, players: each seat's card points, Magician, tarocchi and every-trick premiums,
    in half points), ``tricks_won`` (n, players) and ``events`` (n, N_EVENTS); in French
    presets they have no rows. ``done`` (1,), when it has a row, then counts ``d + 1`` deals
    finished."""
    players = p[R.PLAYERS]
    for column in range(N_OUTCOME):
        outcomes[d, column] = s[S_OUT + column]
    for seat in range(players):
        poignees[d, seat] = s[S_POIGNEES + seat]
    if p[R.TAROCCO]:
        _record_count(s, d, p, parts, tricks_won, events)
    if d < log.shape[0] and (s[S_DEALT_OVER] or p[R.TAROCCO]):
        for seat in range(players):
            bids[d, seat] = s[S_BIDS + seat]
        if p[R.TAROCCO] or s[S_OUT + O_REDEAL] == REDEAL_NONE:
            _record_tricks(m, s, d, p, log, leaders, ecarts)
    if done.shape[0] > 0:
        done[0] = d + 1


@njit(**KERNEL)
def _record_count(s: Any, d: int, p: Any, parts: Any, tricks_won: Any, events: Any) -> None:
    """A finished Tarocco deal's count into row ``d`` (see :func:`record_deal`)."""
    players = p[R.PLAYERS]
    for part in range(N_PARTS):
        for seat in range(players):
            parts[d, part, seat] = s[S_PARTS + part * MAX_SEATS + seat]
    for seat in range(players):
        tricks_won[d, seat] = s[S_WON_BY + seat]
    for column in range(N_EVENTS):
        events[d, column] = s[S_EVENTS + column]


@njit(**KERNEL)
def _record_tricks(m: Any, s: Any, d: int, p: Any, log: Any, leaders: Any, ecarts: Any) -> None:
    """The écart (or discard) and every trick of a finished deal into row ``d``."""
    players = p[R.PLAYERS]
    tricks = p[R.HAND_SIZE]
    ecarts[d, 0] = m[M_ECART]
    ecarts[d, 1] = m[M_ECART + 1]
    for t in range(tricks):
        leaders[d, t] = s[S_LEADERS + t]
        for k in range(players):
            log[d, t, k] = s[S_LOG + t * MAX_SEATS + k]
    leaders[d, tricks] = s[S_LEADERS + tricks]


@njit(cache=True)
def advance(
    m: Any,
    s: Any,
    bots: Any,
    python: Any,
    steps: int,
    p: Any,
    half: Any,
    rng: Any,
    ws: Any,
) -> None:
    """The compiled bots' decisions (``bots``, one row per seat) one after another, until a
    seat of ``python`` (booleans by seat) is to act, the deal is over, or ``steps`` decisions
    were taken (−1: no limit): what a table of compiled and Python bots does between two
    Python decisions. ``ws``: the table's workspace (:func:`tarot_analysis.bots.door.workspace`)."""
    while s[S_KIND] != OVER and not python[s[S_ACTOR]] and steps != 0:
        steps -= 1
        seat = s[S_ACTOR]
        apply(m, s, door.decide(m, s, seat, bots[seat], p, half, rng, ws), p, half)
