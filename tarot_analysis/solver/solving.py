"""The public :func:`solve`: the value of a position by null-window searches from a first
guess (MTD(f)), run in slices that check the budget; then its best cards and Petit au bout."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Final, NamedTuple

import numpy as np
import numpy.typing as npt

from tarot_analysis.engine.params import EngineRules, engine_rules
from tarot_analysis.errors import TarotInputError, is_whole_number
from tarot_analysis.game import cards
from tarot_analysis.game.rules import Rules
from tarot_analysis.solver.position import (
    _Position,
    _position,
    _run_representative,
    _trick_half_points_py,
    legal_plays,
    trick_winner,
)
from tarot_analysis.solver.results import (
    PETIT_AU_BOUT_ATTACK,
    PETIT_AU_BOUT_DEFENCE,
    PETIT_AU_BOUT_NONE,
    SearchInterrupted,
    SearchStopped,
    Solution,
    SolveProgress,
)
from tarot_analysis.solver.search import (
    _N_COUNTERS,
    _N_FIELDS,
    _NODE_LIMIT,
    _NODES,
    _PAUSE_AT,
    _PAUSED,
    _RESUME,
    _STOPPED,
    MAX_MOVES,
    _playout,
    _search,
)
from tarot_analysis.solver.table import TABLE_BITS_MAX, TABLE_BITS_MIN, _k_lo, _Table, _table_for

#: Positions searched between two pauses of a solve (a few hundredths of a second): between
#: them, the solve checks its time limit, shows its progress and lets Ctrl-C through.
SLICE_NODES: Final = 200_000


def _mtdf(search: Callable[[int, int, int], int], bounds: list[int], guess: int) -> int:
    """The exact value, known to lie in ``bounds`` (``[low, high]``), by null-window searches
    from a first guess (MTD(f), Plaat's).

    Each search tells whether the value reaches a bound at the latest guess; its fail-soft
    answer moves an end, and is the next guess. Searches that keep moving the same end
    double their step beyond the answer, so that a guess far from the value costs few
    searches. The table keeps what earlier searches learnt. ``bounds`` is narrowed in place:
    when a search stops, it holds what was proved.
    """
    g = min(max(guess, bounds[0]), bounds[1])
    step = 1
    direction = 0
    while bounds[0] < bounds[1]:
        beta = g + 1 if g == bounds[0] else g
        found = search(-1, beta - 1, beta)
        moved = 1 if found >= beta else -1
        if moved == 1:
            bounds[0] = min(max(bounds[0], found), bounds[1])
        else:
            bounds[1] = max(min(bounds[1], found), bounds[0])
        step = 2 * step if moved == direction else 1
        direction = moved
        g = min(max(found + moved * (step - 1), bounds[0]), bounds[1])
    return bounds[0]


def _budget(max_nodes: object, time_limit: object) -> tuple[int, float | None]:
    """The node limit (0: none) and the time limit of a solve, checked."""
    limit = 0
    if max_nodes is not None:
        if not is_whole_number(max_nodes):
            raise TarotInputError(f"max_nodes must be a whole number, got {max_nodes!r}")
        if max_nodes < 1:
            raise TarotInputError(f"max_nodes must be at least 1, got {max_nodes}")
        limit = int(max_nodes)
    if time_limit is None:
        return limit, None
    if isinstance(time_limit, bool) or not isinstance(time_limit, int | float | np.number):
        raise TarotInputError(f"time_limit must be a number of seconds, got {time_limit!r}")
    if not 0 < float(time_limit) < float("inf"):
        raise TarotInputError(f"time_limit must be a positive number of seconds, got {time_limit}")
    return limit, float(time_limit)


class _Arrays(NamedTuple):
    """The stack of a search (see :func:`~tarot_analysis.solver.search._search`) and its
    counters."""

    frames: npt.NDArray[np.int64]
    moves: npt.NDArray[np.int64]
    move_keys: npt.NDArray[np.int64]
    node_keys: npt.NDArray[np.uint64]
    node_hashes: npt.NDArray[np.uint64]
    relevant: npt.NDArray[np.uint64]
    counters: npt.NDArray[np.int64]


def _arrays(players: int, depth: int, node_limit: int) -> _Arrays:
    """The arrays of searches ``depth`` cards deep at most, stopped past ``node_limit``
    positions (0: never)."""
    counters = np.zeros(_N_COUNTERS, dtype=np.int64)
    counters[_NODE_LIMIT] = node_limit
    return _Arrays(
        frames=np.zeros((depth, _N_FIELDS), dtype=np.int64),
        moves=np.zeros((depth, MAX_MOVES), dtype=np.int64),
        move_keys=np.zeros((depth, MAX_MOVES), dtype=np.int64),
        node_keys=np.zeros((depth, _k_lo(players) + players), dtype=np.uint64),
        node_hashes=np.zeros(depth, dtype=np.uint64),
        relevant=np.zeros((depth, 2), dtype=np.uint64),
        counters=counters,
    )


def _in_play(position: _Position) -> list[int]:
    """The cards of the trick so far and of the hands."""
    in_play = [int(card) for card in position.path[: position.trick_len]]
    for lo, hi in zip(position.hands_lo, position.hands_hi, strict=True):
        in_play += cards.from_mask(int(lo), int(hi))
    return in_play


def _sliced_search(
    position: _Position,
    tables: EngineRules,
    table: _Table,
    epoch: np.uint64,
    arrays: _Arrays,
    bounds: list[int],
    limits: tuple[int, float | None],
    progress: Callable[[SolveProgress], None] | None,
) -> Callable[..., int]:
    """``search(root_card, alpha, beta, at=position)``: one search of ``at`` run in slices of
    :data:`SLICE_NODES` positions. Between slices it checks the time limit (``limits``: the
    node limit and the seconds, None for none) and calls ``progress``; past a limit it raises
    :class:`SearchStopped` with ``bounds``, the interval proved so far."""
    node_limit, seconds = limits
    deadline = None if seconds is None else time.monotonic() + seconds
    counters = arrays.counters

    def stop(reason: str) -> SearchStopped:
        return SearchStopped(reason, bounds[0] / 2, bounds[1] / 2, int(counters[_NODES]))

    def search(root_card: int, alpha: int, beta: int, at: _Position = position) -> int:
        counters[_RESUME] = 0
        while True:
            counters[_PAUSE_AT] = counters[_NODES] + SLICE_NODES
            value = int(
                _search(
                    at.hands_lo,
                    at.hands_hi,
                    at.path,
                    at.trick_len,
                    at.leader,
                    at.attack_mask,
                    at.players,
                    root_card,
                    alpha,
                    beta,
                    0,
                    tables.half_points,
                    tables.params,
                    table,
                    epoch,
                    *arrays,
                )
            )
            if value == _STOPPED:
                raise stop(f"the search stopped after {node_limit:,} positions")
            if value != _PAUSED:
                return value
            if deadline is not None and time.monotonic() >= deadline:
                raise stop(f"the search stopped at its time limit of {seconds:g} s")
            if progress is not None:
                progress(SolveProgress(bounds[0] / 2, bounds[1] / 2, int(counters[_NODES])))

    return search


def _first_guess(position: _Position, tables: EngineRules, arrays: _Arrays) -> int:
    """The value of one play-out of ``position`` (see :func:`_playout`), in half points."""
    return int(
        _playout(
            position.hands_lo,
            position.hands_hi,
            position.path,
            position.trick_len,
            position.leader,
            position.attack_mask,
            position.players,
            0,
            tables.half_points,
            tables.params,
            arrays.frames,
            arrays.moves,
            arrays.move_keys,
        )
    )


def solve(
    rules: Rules,
    hands: Sequence[str | Iterable[str | int]],
    *,
    leader: int,
    attack: Iterable[int],
    trick: Sequence[str | int] = (),
    max_nodes: int | None = None,
    time_limit: float | None = None,
    progress: Callable[[SolveProgress], None] | None = None,
    best_cards: bool = True,
) -> Solution:
    """The card points the attack takes in the remaining tricks with best play on both sides.

    ``hands``: one hand per seat, in the notation (or card ids), of equal lengths at a trick
    boundary; ``trick``: the cards already played to the current trick by the seats from
    ``leader`` on, whose hands are one card shorter (each card must be one its seat could
    play, holding its hand and that card). ``attack``: the seats of the attack.
    Every card is visible to every seat (double dummy); the attack maximises its card points,
    the defence minimises them.

    The search runs in slices of :data:`SLICE_NODES` positions. ``max_nodes`` (positions, the
    whole solve: value, best cards and Petit au bout) and ``time_limit`` (seconds) bound it:
    past either, it raises :class:`SearchStopped`, and on Ctrl-C :class:`SearchInterrupted`;
    both hold the interval of the value proved so far (``low``, ``high``). ``progress``, when
    given, is called between slices with a :class:`SolveProgress`. With ``best_cards``
    false, only the value is searched: the solution's ``best_cards`` is empty and its
    ``petit_au_bout`` −1.

    >>> from tarot_analysis.game.rules import load_rules
    >>> rules = load_rules("fft-3")
    >>> solve(rules, ["KS 1S", "3S", "QS 4S"], leader=1, attack=[0], trick=["2S"])
    Solution(attack_points=8.5, best_cards=('QS', '4S'), nodes=..., petit_au_bout=-1)
    """
    limits = _budget(max_nodes, time_limit)
    position = _position(rules, hands, leader, attack, trick)
    tables = engine_rules(rules)
    players = position.players
    tricks_left = -(-(position.cards_left + position.trick_len) // players)
    table, epoch = _table_for(players, min(TABLE_BITS_MAX, TABLE_BITS_MIN + tricks_left))
    arrays = _arrays(players, position.cards_left + 1, limits[0])
    counters = arrays.counters
    # The attack takes at least nothing and at most every card still in play.
    in_play = _in_play(position)
    bounds = [0, int(tables.half_points[in_play].sum())]
    search = _sliced_search(position, tables, table, epoch, arrays, bounds, limits, progress)
    try:
        value = _mtdf(search, bounds, _first_guess(position, tables, arrays))
        if not best_cards:
            return Solution(attack_points=value / 2, best_cards=(), nodes=int(counters[_NODES]))
        return _solution(rules, position, search, value, in_play, counters)
    except KeyboardInterrupt:
        raise SearchInterrupted(bounds[0] / 2, bounds[1] / 2, int(counters[_NODES])) from None


def _solution(
    rules: Rules,
    position: _Position,
    search: Callable[..., int],
    value: int,
    in_play: list[int],
    counters: npt.NDArray[np.int64],
) -> Solution:
    """The solution of ``position``, whose value is ``value``: its best cards and Petit au
    bout by ``search``."""
    tables = engine_rules(rules)
    seat = position.to_play
    hand = cards.from_mask(int(position.hands_lo[seat]), int(position.hands_hi[seat]))
    candidates = legal_plays(rules, hand, list(position.path[: position.trick_len]))
    maximising = bool((position.attack_mask >> seat) & 1)

    # Cards of one run (see _ordered_moves) are worth the same: one search answers for all.
    run_keeps_value: dict[int, bool] = {}
    best = []
    for card in candidates:
        run = _run_representative(card, set(candidates), set(in_play), tables.half_points)
        if run not in run_keeps_value:
            only = len(candidates) == 1
            run_keeps_value[run] = only or _keeps(search, run, value, maximising, position)
        if run_keeps_value[run]:
            best.append(card)
    petit_au_bout = PETIT_AU_BOUT_NONE
    if cards.PETIT in in_play:
        petit_au_bout = _principal_petit_au_bout(rules, position, value, search)
    return Solution(
        attack_points=value / 2,
        best_cards=tuple(cards.card_name(card) for card in cards.display_sorted(best)),
        nodes=int(counters[_NODES]),
        petit_au_bout=petit_au_bout,
    )


def _keeps(
    search: Callable[[int, int, int, _Position], int],
    card: int,
    value: int,
    attacking: bool,
    at: _Position,
) -> bool:
    """Whether playing ``card`` in ``at``, whose value is ``value``, keeps that value."""
    if attacking:
        return search(card, value - 1, value, at) >= value
    return search(card, value, value + 1, at) <= value


def _principal_petit_au_bout(
    rules: Rules,
    position: _Position,
    value: int,
    search: Callable[[int, int, int, _Position], int],
) -> int:
    """Play out one principal variation (at each turn the first legal card that keeps the
    value) and tell which side wins the last trick if the Petit is in it."""
    players = position.players
    at = replace(
        position,
        hands_lo=position.hands_lo.copy(),
        hands_hi=position.hands_hi.copy(),
        path=position.path.copy(),
    )
    tables = engine_rules(rules)
    half_points = tables.half_points
    trick = [int(card) for card in at.path[: at.trick_len]]
    remaining = value
    while True:
        seat = (at.leader + len(trick)) % players
        hand = cards.from_mask(int(at.hands_lo[seat]), int(at.hands_hi[seat]))
        legal = legal_plays(rules, hand, trick)
        attacking = bool((at.attack_mask >> seat) & 1)

        chosen = legal[0]
        if len(legal) > 1:
            chosen = next(c for c in legal if _keeps(search, c, remaining, attacking, at))
        lo, hi = cards.to_mask([chosen])
        at.hands_lo[seat] &= ~np.uint64(lo)
        at.hands_hi[seat] &= ~np.uint64(hi)
        at.cards_left -= 1
        trick.append(chosen)
        if len(trick) < players:
            at.path[: len(trick)] = trick
            at.trick_len = len(trick)
            continue
        winner = (at.leader + trick_winner(trick)) % players
        if cards.PETIT in trick or at.cards_left == 0:
            if cards.PETIT not in trick or at.cards_left > 0:
                return PETIT_AU_BOUT_NONE
            return PETIT_AU_BOUT_ATTACK if (at.attack_mask >> winner) & 1 else PETIT_AU_BOUT_DEFENCE
        remaining -= int(
            _trick_half_points_py(
                np.asarray(trick, dtype=np.int64),
                players,
                at.leader,
                winner,
                at.attack_mask,
                half_points,
                tables.params,
            )
        )
        at.leader = winner
        at.path[:] = 0
        trick = []
        at.trick_len = 0
