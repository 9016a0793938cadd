"""Where the pimc bot's double-dummy endgames spend their time: the first solve of each line.

    python benchmarks/bench_endgame_lines.py [--rules fft-4] [--tricks 5 6 7] [--positions 60]
        [--seed 1] [--json]

At a card decision in the endgame, the pimc bot tries each candidate card on each world and
plays the world out double dummy: every card after the candidate is the one
:func:`tarot_analysis.solver.best_card` finds best, one solve per card played. Positions here
are card decisions with ``--tricks`` tricks left (deals stepped with random cards, a Garde of
seat 0, the first card of a trick played). For each, every legal card is tried as the bot
tries its candidates, on one table of its own (a new world): the time of the solve of the
position after the candidate (``first``), and that of the solves of the rest of its line
(``rest``), which the table the first one filled mostly answers. ``warm``: the same with one
solve of the decision's position before the candidates (a search of every candidate at once
whose table they then share). Times are the thread's CPU times (a busy machine does not
lengthen them), per decision, in milliseconds.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import numpy as np

from tarot_analysis import __version__, solver
from tarot_analysis.engine import state as S
from tarot_analysis.engine.cardsets import PETIT
from tarot_analysis.engine.game import GameState
from tarot_analysis.game.rules import load_rules

#: The Petit au bout as the search weighs it: 10 points, in half points.
PETIT_BONUS = 20


def positions(rules_name: str, tricks_left: int, count: int, seed: int) -> list[GameState]:
    """``count`` card decisions with ``tricks_left`` tricks left, trumps free to lead."""
    rules = load_rules(rules_name)
    found: list[GameState] = []
    deal = 0
    while len(found) < count:
        rng = np.random.default_rng([seed, deal])
        state = GameState.deal(rules, seed=seed * 100_000 + deal, forced=[0, 1, -1, -1])
        deal += 1
        trick = rules.hand_size - tricks_left
        while not state.is_over and not (
            state.decision == "card"
            and int(state.s[S.S_TRICK]) == trick
            and int(state.s[S.S_IN_TRICK]) == 1
        ):
            state.apply(int(rng.choice(state.legal_actions())))
        if not state.is_over and state.s[S.S_TRUMPS_BROKEN]:
            found.append(state)
    return found


def _load(dd: Any, m: Any, s: Any, players: int) -> int:
    """Write the position into ``dd``; the attack's seats as a mask."""
    attack = 0
    for seat in range(players):
        dd.hands_lo[seat] = m[S.M_HANDS + 2 * seat]
        dd.hands_hi[seat] = m[S.M_HANDS + 2 * seat + 1]
        if s[S.S_SIDE + seat] == S.ATTACK:
            attack |= 1 << seat
    for k in range(int(s[S.S_IN_TRICK])):
        dd.path[k] = s[S.S_TRICK_CARDS + k]
    return attack


def _solve(dd: Any, m: Any, s: Any, state: GameState, half: Any, context: int) -> int:
    players = state.rules.players
    attack = _load(dd, m, s, players)
    p = state.engine.params
    in_trick, leader = int(s[S.S_IN_TRICK]), int(s[S.S_LEADER])
    card = solver.best_card(dd, players, in_trick, leader, attack, PETIT_BONUS, half, p, context)
    return int(card)


def decision(
    dd: Any, state: GameState, half: Any, context: int, warm: bool
) -> tuple[float, float, float]:
    """Seconds of ``(decision solve, first solves, rest of the lines)`` at one decision."""
    p, points = state.engine.params, state.engine.half_points
    started = time.thread_time()
    if warm:
        _solve(dd, state.m.copy(), state.s.copy(), state, half, context)
    before = time.thread_time() - started
    first = rest = 0.0
    for card in state.legal_actions():
        m, s = state.m.copy(), state.s.copy()
        S.play_card(m, s, int(card), p, points)
        solves = 0
        while s[S.S_KIND] == S.CARD:
            started = time.thread_time()
            best = _solve(dd, m, s, state, half, context)
            seconds = time.thread_time() - started
            first += seconds if solves == 0 else 0.0
            rest += seconds if solves > 0 else 0.0
            solves += 1
            S.play_card(m, s, best, p, points)
    return before, first, rest


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rules", default="fft-4")
    parser.add_argument("--tricks", type=int, nargs="+", default=[5, 6, 7])
    parser.add_argument("--positions", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    rules = load_rules(args.rules)
    dd = solver.double_dummy(rules.players, 15)  # the pimc bot's table size
    context = 0
    rows = []
    for tricks in args.tricks:
        found = positions(args.rules, tricks, args.positions, args.seed)
        totals = {"cold": np.zeros(3), "warm": np.zeros(3)}
        for state in found:
            half = np.asarray(state.engine.half_points, dtype=np.int64).copy()
            half[PETIT] += 10  # 5 points more: the bot's weight with 0 or 2 bouts
            for mode in ("cold", "warm"):  # alternated, so that both see the same load
                context += 1  # a table of its own: a new world
                totals[mode] += decision(dd, state, half, context, mode == "warm")
        for mode, total in totals.items():
            ms = total / len(found) * 1e3
            rows.append(
                {
                    "tricks_left": tricks,
                    "mode": mode,
                    "positions": len(found),
                    "decision_ms": ms[0],
                    "first_ms": ms[1],
                    "rest_ms": ms[2],
                    "total_ms": ms.sum(),
                }
            )
    if args.json:
        print(json.dumps({"rules": args.rules, "runs": rows, "version": __version__}))
        return
    print(f"{'tricks':>6} {'mode':5} {'decision':>9} {'first':>9} {'rest':>9} {'total':>9}  ms")
    for row in rows:
        print(
            f"{row['tricks_left']:6} {row['mode']:5} {row['decision_ms']:9.2f} "
            f"{row['first_ms']:9.2f} {row['rest_ms']:9.2f} {row['total_ms']:9.2f}"
        )


if __name__ == "__main__":
    main()
