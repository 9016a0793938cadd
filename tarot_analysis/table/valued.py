"""Deals of a ``play`` run played again by its bots, every decision the search values measured
before the bot of the seat plays: the compiled loop of a review of many deals
(:mod:`tarot_analysis.analyses.review.many` stores and tables its rows).

The deals and the bots' generator are the play run's, chunk by chunk (:func:`chunk_start`),
so deal ``k`` is that run's deal ``k`` whatever the review's own chunking. Before each bid,
call, poignée and card with more than one legal action the search
(:func:`tarot_analysis.bots.pimc.search_values`) values every legal action for the seat, from
its own generator; the table's generator is never drawn by it, so the bots play as in the run.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import numpy.typing as npt
from numba import njit

from tarot_analysis._jit import chunk_states
from tarot_analysis.bots import Bot, door, pimc, seat_rows
from tarot_analysis.engine import state as S
from tarot_analysis.engine.outcome import O_CONTRACT, O_PARTNER_1, O_PARTNER_2, O_TAKER
from tarot_analysis.engine.params import engine_rules
from tarot_analysis.game.rules import Rules
from tarot_analysis.runs.interrupts import held_interrupts
from tarot_analysis.table.play import chunk_start

__all__ = ["FACTS", "SIDES", "valued_deals"]

#: The columns of the facts of a decision :func:`valued_deals` returns.
FACTS: Final = (
    "deal", "seat", "step", "kind", "trick", "played", "best", "worlds", "legal", "side",
    "contract",
)  # fmt: skip
#: The sides of a seat in the deal as it ended, by the number in the ``side`` fact
#: (``none``: everyone passed).
SIDES: Final = ("taker", "partner", "defence", "none")

_F_DEAL, _F_SEAT, _F_STEP, _F_KIND, _F_TRICK, _F_PLAYED, _F_BEST, _F_WORLDS = range(8)
_F_LEGAL, _F_SIDE, _F_CONTRACT = 8, 9, 10
_N_FACTS: Final = len(FACTS)


@njit(cache=True, nogil=True)
def _value_deals(
    masks: Any, skip: int, bots: Any, p: Any, half: Any, worlds: int, endgame: int,
    table_rng: Any, search_rng: Any, table_ws: Any, search_ws: Any, facts: Any, means_out: Any,
    row: int,
) -> int:  # fmt: skip
    """Play every deal of ``masks`` with ``bots`` (a row per seat) from the table's generator
    ``table_rng``; from deal ``skip`` on, before each bid, call, poignée and card with more
    than one legal action, the search's values of the played action and the best into
    ``means_out`` and the decision's facts into ``facts`` (see ``_F_*``), from row ``row``.
    Returns the next free row."""
    m = np.zeros(S.N_M, dtype=np.uint64)
    s = np.zeros(S.N_S, dtype=np.int64)
    means = np.zeros(S.N_ACTIONS, dtype=np.float64)
    mask = np.zeros(S.N_ACTIONS, dtype=np.bool_)
    no_forced = np.full(4, -1, dtype=np.int64)
    for d in range(masks.shape[0]):
        door.start_deal(m, s, masks[d], no_forced, np.int64(-1), p, half, table_ws)
        first_row = row
        step = 0
        legal = 0
        while s[S.S_KIND] != S.OVER:
            kind = s[S.S_KIND]
            seat = s[S.S_ACTOR]
            valued = d >= skip and S.is_weighed(kind)
            if valued:
                S.legal_mask(m, s, p, mask)
                legal = mask.sum()
                valued = legal > 1
            count, best, done = 0, 0, 0
            if valued:
                count, best, done = pimc.search_values(
                    m, s, worlds, endgame if kind == S.CARD else 0, p, half, search_rng,
                    search_ws, means,
                )  # fmt: skip
            trick = s[S.S_TRICK] + 1 if kind == S.CARD else 0
            action = door.decide(m, s, seat, bots[seat], p, half, table_rng, table_ws)
            if valued and (done > 0 or count == 1):
                taken = 0  # the candidate standing for the action: the highest not above it
                for c in range(count):
                    if search_ws.candidates[c] <= action:
                        taken = c
                facts[row, _F_DEAL] = d - skip
                facts[row, _F_SEAT] = seat
                facts[row, _F_STEP] = step
                facts[row, _F_KIND] = kind
                facts[row, _F_TRICK] = trick
                facts[row, _F_PLAYED] = action
                facts[row, _F_WORLDS] = done
                facts[row, _F_LEGAL] = legal
                if done == 0 or taken == best or means[taken] >= means[best]:
                    facts[row, _F_BEST] = action  # the cards alike, or the best played
                    means_out[row, 0] = means[taken] if done > 0 else np.nan
                    means_out[row, 1] = means_out[row, 0]
                else:
                    facts[row, _F_BEST] = search_ws.candidates[best]
                    means_out[row, 0] = means[taken]
                    means_out[row, 1] = means[best]
                row += 1
            S.apply(m, s, action, p, half)
            step += 1
        taker = s[S.S_OUT + O_TAKER]
        for r in range(first_row, row):
            seat = facts[r, _F_SEAT]
            if taker < 0:
                facts[r, _F_SIDE] = 3
            elif seat == taker:
                facts[r, _F_SIDE] = 0
            elif seat == s[S.S_OUT + O_PARTNER_1] or seat == s[S.S_OUT + O_PARTNER_2]:
                facts[r, _F_SIDE] = 1
            else:
                facts[r, _F_SIDE] = 2
            facts[r, _F_CONTRACT] = s[S.S_OUT + O_CONTRACT]
    return row


def _steps_per_deal(rules: Rules) -> int:
    """The most decisions a deal can hold: every card, a bid, a poignée and a chelem per seat,
    the calls."""
    return rules.players * rules.hand_size + 3 * rules.players + 2


def _pieces(first: int, n: int, play_chunk_size: int) -> list[tuple[int, int, int]]:
    """Deals ``first .. first + n`` as pieces of the play run's chunks: ``(play chunk,
    offset in it, deals)``."""
    pieces = []
    deal = first
    while deal < first + n:
        chunk, offset = divmod(deal, play_chunk_size)
        take = min(play_chunk_size - offset, first + n - deal)
        pieces.append((chunk, offset, take))
        deal += take
    return pieces


def valued_deals(
    rules: Rules, bots: tuple[str, ...], seed: int, worlds: int, play_chunk_size: int,
    search_seed: np.random.SeedSequence, first: int, n: int, *, learned: bool = False,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:  # fmt: skip
    """Deals ``first .. first + n`` of ``play(rules, …, bots=bots, seed=seed, chunk_size=
    play_chunk_size)`` played again, each decision the search values over ``worlds`` worlds
    (drawn from ``search_seed``) measured: the decisions' :data:`FACTS` ``(rows, 11)`` (the
    deal's number in the run, the kind an index of ``state.DECISIONS``, the trick from 1 or 0
    before the play, the side an index of :data:`SIDES`, the contract an index of
    ``rules.contracts`` or −1) and the means of the action played and of the best
    ``(rows, 2)`` (NaN where the legal actions are alike and no world was drawn).
    ``learned``: the worlds read and played out by the learned bot shipped for the preset
    (``pimc:learned``), not the heuristic."""
    engine = engine_rules(rules)
    p, half = engine.params, engine.half_points
    searcher, search_nets = seat_rows([Bot("pimc", worlds=worlds, learned=learned)], rules)
    rows, nets = seat_rows(list(bots), rules)
    with held_interrupts():  # the workspaces' arrays come back as structures
        search_ws = pimc.workspace(p, engine.scoring, searcher, search_nets)
        table_ws = door.workspace(p, engine.scoring, rows, nets)
    search_ws.bot[:] = searcher[0]
    search_rng = chunk_states(search_seed, 0, 1)[0]
    endgame = pimc.ENDGAME_CARDS // rules.players
    facts = np.zeros((n * _steps_per_deal(rules), _N_FACTS), dtype=np.int64)
    means = np.zeros((len(facts), 2), dtype=np.float64)
    row, done = 0, 0
    for play_chunk, offset, take in _pieces(first, n, play_chunk_size):
        masks, table_rng = chunk_start(
            rules, seed, play_chunk, offset + take, chunk_size=play_chunk_size
        )
        start = row
        found = _value_deals(
            masks, offset, rows, p, half, worlds, endgame, table_rng, search_rng, table_ws,
            search_ws, facts, means, row,
        )  # fmt: skip
        row = int(found)
        facts[start:row, _F_DEAL] += first + done
        done += take
    return facts[:row], means[:row]
