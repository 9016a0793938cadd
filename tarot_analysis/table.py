"""The table: compiled bots seated around the game state, deals played from start to end.

The engine (:mod:`tarot_analysis.engine.state`) knows the rules and steps a deal one decision at
a time; it knows no bot. Here each decision is put to the bot of the seat to act
(:mod:`tarot_analysis.bots.policy`, by number) and its answer applied, until the deal is over;
the raw outcome and, when kept, every trick are copied out. Bots written in Python sit at the
table through :mod:`tarot_analysis.python_bots`, one decision at a time.

A compiled bot chooses the whole écart at once (its answer is applied card by card); a scripted
card or écart (a known deal replayed) stands in for the bot's answer and is checked.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from tarot_analysis._jit import KERNEL
from tarot_analysis.bots import pimc, policy
from tarot_analysis.engine import params as R
from tarot_analysis.engine.cardsets import ZERO, holds, size
from tarot_analysis.engine.core import ecart_sets, poignee_level
from tarot_analysis.engine.outcome import N_OUTCOME, REDEAL_NONE
from tarot_analysis.engine.state import (
    BID,
    CALL,
    CARD,
    ECART,
    M_ECART,
    M_HANDS,
    M_PLAYED,
    MAX_SEATS,
    N_EVENTS,
    N_M,
    N_PARTS,
    N_S,
    N_VIEW,
    O_REDEAL,
    OVER,
    POIGNEE,
    S_ACTOR,
    S_BIDS,
    S_CONTRACT,
    S_DEALT_OVER,
    S_ECART_LEFT,
    S_EVENTS,
    S_KIND,
    S_LEADERS,
    S_LOG,
    S_OUT,
    S_PARTS,
    S_POIGNEES,
    S_TAKER,
    S_TRICK,
    S_TRICK_CARDS,
    S_VIEW,
    S_VOIDS,
    S_WON_BY,
    announce_chelem,
    apply,
    bid,
    call,
    call_now,
    discard,
    legal_cards_now,
    play_card,
    show_poignee,
    start,
)

__all__ = ["choose_ecart", "play_deals", "play_tarocco"]


@njit(**KERNEL)
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


@njit(**KERNEL)
def _discard_all(
    m: Any, s: Any, chosen_lo: np.uint64, chosen_hi: np.uint64, p: Any, half: Any
) -> None:
    """Apply a whole écart, card by card."""
    for card in range(56):
        if (chosen_lo >> np.uint64(card)) & np.uint64(1):
            discard(m, s, card, p, half)
    for bit in range(22):
        if (chosen_hi >> np.uint64(bit)) & np.uint64(1):
            discard(m, s, 56 + bit, p, half)


@njit(cache=True)
def _views(m: Any, s: Any) -> Any:
    """What a compiled bot sees while playing, as views of the state: the public view, the
    trick, the cards played, the voids and the poignées shown."""
    return (
        s[S_VIEW : S_VIEW + N_VIEW], s[S_TRICK_CARDS : S_TRICK_CARDS + MAX_SEATS],
        m[M_PLAYED : M_PLAYED + 2], s[S_VOIDS : S_VOIDS + MAX_SEATS],
        s[S_POIGNEES : S_POIGNEES + MAX_SEATS],
    )  # fmt: skip


@njit(**KERNEL)
def _decide(
    m: Any,
    s: Any,
    view: Any,
    trick: Any,
    played: Any,
    voids: Any,
    shown: Any,
    bots: Any,
    d: int,
    scripted: bool,
    script: Any,
    script_ecart: Any,
    p: Any,
    half: Any,
    rng: Any,
) -> None:
    """Put the decision of the seat to act to its bot (or the script) and apply the answer."""
    kind = s[S_KIND]
    seat = s[S_ACTOR]
    bot = bots[seat]
    lo = m[M_HANDS + 2 * seat]
    hi = m[M_HANDS + 2 * seat + 1]
    if kind == CARD:
        legal_lo, legal_hi = legal_cards_now(m, s, p)
        t = s[S_TRICK]
        if scripted and script[d, t, seat] >= 0:
            card = script[d, t, seat]
            if not holds(legal_lo, legal_hi, card):
                raise ValueError("a scripted card is not legal at that point")
        else:
            card = policy.play(
                bot, seat, lo, hi, legal_lo, legal_hi, view, trick, played, voids, shown, p, rng
            )
        play_card(m, s, card, p, half)
    elif kind == BID:
        bid(m, s, policy.bid(bot, seat, lo, hi, s[S_CONTRACT], p, rng), p, half)
    elif kind == CALL:
        call(m, s, policy.call(bot, lo, hi, call_now(m, s, p), p, rng), p, half)
    elif kind == ECART:
        script_lo = script_ecart[d, 0] if scripted else ZERO
        script_hi = script_ecart[d, 1] if scripted else ZERO
        chosen_lo, chosen_hi, legal = choose_ecart(
            bot, lo, hi, s[S_ECART_LEFT], script_lo, script_hi, p, rng
        )
        if not legal and p[R.TAROCCO]:
            raise ValueError("the scripted discard is not legal")
        if not legal:
            raise ValueError("the scripted écart is not legal")
        _discard_all(m, s, chosen_lo, chosen_hi, p, half)
    elif kind == POIGNEE:
        held = poignee_level(hi, p)
        level = policy.poignee(bot, seat, lo, hi, held, seat == s[S_TAKER], p, rng)
        show_poignee(m, s, min(level, held), p, half)
    else:
        announce_chelem(m, s, policy.chelem(bot, lo, hi, p, rng), p)


@njit(**KERNEL)
def _decide_any(
    m: Any,
    s: Any,
    view: Any,
    trick: Any,
    played: Any,
    voids: Any,
    shown: Any,
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
    """:func:`_decide` at a table where a pimc bot sits: its searched decisions (cards, bids,
    calls, poignées) here, in the workspace ``ws``, the others as every bot's. Kept apart so
    that a table of rule bots runs the small loop of :func:`_decide` alone."""
    kind = s[S_KIND]
    seat = s[S_ACTOR]
    bot = bots[seat]
    searched = kind in (BID, CALL, POIGNEE) or (
        kind == CARD and not (scripted and script[d, s[S_TRICK], seat] >= 0)
    )
    if not (pimc.is_pimc(bot) and searched):
        _decide(
            m, s, view, trick, played, voids, shown, bots, d, scripted, script, script_ecart,
            p, half, rng,
        )  # fmt: skip
        return
    if kind == CARD:
        legal_lo, legal_hi = legal_cards_now(m, s, p)
        worlds = pimc.worlds_of(bot)
        endgame = pimc.endgame_of(bot, p[R.PLAYERS])
        card = pimc.play(m, s, seat, legal_lo, legal_hi, worlds, endgame, p, half, rng, ws)
        play_card(m, s, card, p, half)
        return
    apply(m, s, pimc.decide(m, s, pimc.worlds_of(bot), p, half, rng, ws), p, half)


@njit(cache=True, nogil=True)
def play_deals(
    masks: Any,
    bots: Any,
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
    script: Any,
    script_ecart: Any,
) -> None:
    """Play every deal of ``masks`` (n, players + 1, 2) to the end, French presets; ``scoring``
    the preset's scoring (``EngineRules.scoring``), for the pimc bot.

    ``forced`` (n, 4): taker, contract, called card 1 and 2 (−1: decided at the table).
    Fills ``outcomes`` (n, N_OUTCOME), ``poignees`` (n, players); when ``log`` has n rows, also
    the cards of every trick in play order ``log`` (n, tricks, players), who led each trick
    ``leaders`` (n, tricks + 1; the last column is who won the last trick), the écart
    ``ecarts`` (n, 2) and each seat's bid ``bids`` (n, players: a contract index, −1 for a
    pass, −2 when there was no auction).

    ``script`` (n, tricks, players), when it has n rows, gives the card each seat plays at each
    trick (−1: its bot chooses), and ``script_ecart`` (n, 2) the écart (zero: the bot's); a
    scripted card that is not legal raises ``ValueError``. This replays a known deal.
    """
    scripted = script.shape[0] == masks.shape[0]
    m = np.zeros(N_M, dtype=np.uint64)
    s = np.zeros(N_S, dtype=np.int64)
    view, trick, played, voids, shown = _views(m, s)
    ws = pimc.workspace(p, scoring, bots)
    searching = pimc.any_pimc(bots)
    for d in range(masks.shape[0]):
        start(m, s, masks[d], forced[d], np.int64(-1), p, half)
        while s[S_KIND] != OVER:
            if searching:
                _decide_any(
                    m, s, view, trick, played, voids, shown, bots, d, scripted, script,
                    script_ecart, p, half, rng, ws,
                )  # fmt: skip
            else:
                _decide(
                    m, s, view, trick, played, voids, shown, bots, d, scripted, script,
                    script_ecart, p, half, rng,
                )  # fmt: skip
        record_deal(m, s, d, p, outcomes, poignees, log, leaders, ecarts, bids)


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
) -> None:
    """Copy a finished French deal into row ``d`` of the result arrays (see
    :func:`play_deals`); its bids, écart and tricks only when ``log`` has rows."""
    players = p[R.PLAYERS]
    for column in range(N_OUTCOME):
        outcomes[d, column] = s[S_OUT + column]
    for seat in range(players):
        poignees[d, seat] = s[S_POIGNEES + seat]
    if d < log.shape[0] and s[S_DEALT_OVER]:
        for seat in range(players):
            bids[d, seat] = s[S_BIDS + seat]
        if s[S_OUT + O_REDEAL] == REDEAL_NONE:
            _record_tricks(m, s, d, p, log, leaders, ecarts)


@njit(cache=True, nogil=True)
def play_tarocco(
    masks: Any,
    dealers: Any,
    bots: Any,
    p: Any,
    half: Any,
    scoring: Any,
    rng: Any,
    parts: Any,
    tricks_won: Any,
    events: Any,
    log: Any,
    leaders: Any,
    discards: Any,
    script: Any,
    script_discard: Any,
) -> None:
    """Play every Tarocco deal of ``masks`` (n, players + 1, 2) to the end and count it.

    ``dealers`` (n): the dealing seat, who takes row ``players`` of the deal (the extra cards),
    discards and leads. Fills ``parts`` (n, N_PARTS, players): each seat's card points,
    Magician, tarocchi and every-trick premiums, all in half points (their sum is the deal's
    count); ``tricks_won`` (n, players) and ``events`` (n, N_EVENTS). When ``log`` has n rows,
    also every trick ``log`` (n, tricks, players; a shown Fool stands at its place), who led
    each trick ``leaders`` (n, tricks + 1) and the discard ``discards`` (n, 2). ``script`` and
    ``script_discard`` as in :func:`play_deals`; an illegal one raises ``ValueError``.
    """
    scripted = script.shape[0] == masks.shape[0]
    m = np.zeros(N_M, dtype=np.uint64)
    s = np.zeros(N_S, dtype=np.int64)
    view, trick, played, voids, shown = _views(m, s)
    no_forced = np.full(4, -1, dtype=np.int64)
    ws = pimc.workspace(p, scoring, bots)
    searching = pimc.any_pimc(bots)
    for d in range(masks.shape[0]):
        start(m, s, masks[d], no_forced, dealers[d], p, half)
        while s[S_KIND] != OVER:
            if searching:
                _decide_any(
                    m, s, view, trick, played, voids, shown, bots, d, scripted, script,
                    script_discard, p, half, rng, ws,
                )  # fmt: skip
            else:
                _decide(
                    m, s, view, trick, played, voids, shown, bots, d, scripted, script,
                    script_discard, p, half, rng,
                )  # fmt: skip
        record_tarocco(m, s, d, p, parts, tricks_won, events, log, leaders, discards)


@njit(**KERNEL)
def record_tarocco(
    m: Any,
    s: Any,
    d: int,
    p: Any,
    parts: Any,
    tricks_won: Any,
    events: Any,
    log: Any,
    leaders: Any,
    discards: Any,
) -> None:
    """Copy a finished Tarocco deal into row ``d`` of the result arrays (see
    :func:`play_tarocco`); its discard and tricks only when ``log`` has rows."""
    players = p[R.PLAYERS]
    for part in range(N_PARTS):
        for seat in range(players):
            parts[d, part, seat] = s[S_PARTS + part * MAX_SEATS + seat]
    for seat in range(players):
        tricks_won[d, seat] = s[S_WON_BY + seat]
    for column in range(N_EVENTS):
        events[d, column] = s[S_EVENTS + column]
    if d < log.shape[0]:
        _record_tricks(m, s, d, p, log, leaders, discards)


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
    """The compiled bots' decisions (``bots`` by number) one after another, until a seat of
    ``python`` (booleans by seat) is to act, the deal is over, or ``steps`` decisions were
    taken (−1: no limit): what a table of compiled and Python bots does between two Python
    decisions. ``ws``: the pimc seats' workspace (:func:`tarot_analysis.bots.pimc.workspace`)."""
    view, trick, played, voids, shown = _views(m, s)
    no_script = np.empty((0, 1, 1), dtype=np.int64)
    no_ecart = np.empty((0, 2), dtype=np.uint64)
    while s[S_KIND] != OVER and not python[s[S_ACTOR]] and steps != 0:
        steps -= 1
        _decide_any(
            m, s, view, trick, played, voids, shown, bots, np.int64(0), np.bool_(False),
            no_script, no_ecart, p, half, rng, ws,
        )  # fmt: skip
