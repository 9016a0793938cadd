"""Milliseconds to solve a card-play endgame double dummy, by the number of tricks left.

    python benchmarks/bench_solver.py [--rules fft-4] [--positions 20] [--budget 2]
        [--tricks-left 4 6 8 10 12] [--max-nodes 20000000] [--json] [--solver FILE]
    python benchmarks/bench_solver.py --whole-deals 5 [--deal-max-nodes N] [--deal-seconds S]

Each position comes from a fresh random deal (seeded): random legal cards are played from the
first trick on until ``tricks left`` tricks remain, then :func:`tarot_analysis.solver.solve`
finds the attack's card points, the attack being seat 0 alone: once for the value alone
(``best_cards=False``), once for the value with every best card and the Petit au bout.
Sizes run from the smallest up. A size is skipped, with the larger ones, when its expected
mean time (the last size's mean times its growth over the size before) or the last measured
mean exceeds ``--budget`` seconds. A solve that reaches ``--max-nodes`` positions stops: it
counts as not solved, and the times are those of the positions solved (``solved`` of
``positions``). The solver is compiled (or loaded from the cache) before timing. Machines
are noisy: compare sizes within one run. ``--solver`` times the solver module of another
file instead (a copy of an older version, say), so that two versions compare on one machine.

``--whole-deals N`` solves the value of N whole deals instead: each deal (seeded) is played by
the heuristic at every seat, seat 0 taking a Garde, to the first card: the hands after the
heuristic's écart, every one of its tricks left. A solve stops at ``--deal-max-nodes``
positions or ``--deal-seconds`` seconds, whichever comes first.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import sys
import time
from types import ModuleType
from typing import Any

import numpy as np

from tarot_analysis import __version__, solver
from tarot_analysis.game import cards
from tarot_analysis.game.rules import Rules, load_rules
from tarot_analysis.solver import legal_plays, trick_winner
from tarot_analysis.table.play import play

TRICKS_LEFT = (4, 6, 8, 10)
MAX_NODES = 20_000_000
DEAL_MAX_NODES = 2_000_000_000
DEAL_SECONDS = 300.0
TAKER = 0
#: The two ways a position is solved: its value alone, and with every best card.
MODES = {"value": False, "best": True}
ATTACK = frozenset({0})
FIRST_LEADER = 0
PERCENTILE = 95
MIN_SECONDS = 1e-4  # a floor for the growth between two sizes
WARM_UP_POSITIONS = 10
WARM_UP_TRICKS = 3


def random_endgame(
    rules: Rules, rng: random.Random, tricks_left: int
) -> tuple[list[list[int]], int]:
    """Hands (card ids) and the leader after random legal play down to ``tricks_left`` tricks."""
    deck = list(range(rules.players * rules.hand_size + rules.dog_size))
    rng.shuffle(deck)
    size = rules.hand_size
    hands = [set(deck[seat * size : (seat + 1) * size]) for seat in range(rules.players)]
    leader = FIRST_LEADER
    while len(hands[0]) > tricks_left:
        trick: list[int] = []
        for k in range(rules.players):
            seat = (leader + k) % rules.players
            card = rng.choice(legal_plays(rules, sorted(hands[seat]), trick))
            hands[seat].remove(card)
            trick.append(card)
        leader = (leader + trick_winner(trick)) % rules.players
    return [sorted(hand) for hand in hands], leader


def measure(
    module: ModuleType, rules: Rules, tricks_left: int, positions: int, seed: int, max_nodes: int
) -> dict[str, tuple[list[float], list[int], float]]:
    """For each mode (:data:`MODES`): seconds and nodes of the solves, among ``positions``
    with ``tricks_left`` tricks left, that finished within ``max_nodes``; and the seconds spent
    on those that did not. Each position is solved in every mode before the next is drawn."""
    rng = random.Random(f"{seed} {tricks_left}")
    runs: dict[str, tuple[list[float], list[int], float]] = {m: ([], [], 0.0) for m in MODES}
    for _ in range(positions):
        hands, leader = random_endgame(rules, rng, tricks_left)
        for mode, best in MODES.items():
            seconds, nodes, stopped = runs[mode]
            started = time.process_time()
            try:
                solution = module.solve(
                    rules, hands, leader=leader, attack=ATTACK, max_nodes=max_nodes, best_cards=best
                )
            except module.SearchStopped:
                runs[mode] = (seconds, nodes, stopped + time.process_time() - started)
                continue
            seconds.append(time.process_time() - started)
            nodes.append(solution.nodes)
    return runs


def whole_deals(rules: Rules, deals: int, seed: int) -> list[tuple[list[list[int]], int]]:
    """The hands after the écart and the first leader of ``deals`` deals played by the
    heuristic, seat 0 taking a Garde."""
    garde = [c.name for c in rules.contracts].index("garde")
    result = play(
        rules, deals, bots="heuristic", seed=seed, forced=[TAKER, garde, -1, -1], keep_tricks=True
    )
    assert result.ecarts is not None and result.leaders is not None
    out = []
    for d in range(deals):
        masks = result.masks[d]
        hands = [list(cards.from_mask(int(lo), int(hi))) for lo, hi in masks[: rules.players]]
        dog = cards.from_mask(int(masks[rules.players][0]), int(masks[rules.players][1]))
        ecart = set(cards.from_mask(int(result.ecarts[d][0]), int(result.ecarts[d][1])))
        hands[TAKER] = sorted((set(hands[TAKER]) | set(dog)) - ecart)
        out.append((hands, int(result.leaders[d][0])))
    return out


def measure_deals(
    module: ModuleType, rules: Rules, deals: int, seed: int, max_nodes: int, seconds: float
) -> list[dict[str, Any]]:
    """The value of each whole deal (:func:`whole_deals`): seconds, positions, and the
    attack's card points, or the interval proved when the solve stopped."""
    rows: list[dict[str, Any]] = []
    for hands, leader in whole_deals(rules, deals, seed):
        started = time.process_time()
        row: dict[str, Any]
        try:
            solution = module.solve(
                rules,
                hands,
                leader=leader,
                attack={TAKER},
                max_nodes=max_nodes,
                time_limit=seconds,
                best_cards=False,
            )
            row = {"solved": True, "points": solution.attack_points, "nodes": solution.nodes}
        except module.SearchStopped as stopped:
            row = {
                "solved": False,
                "low": stopped.low,
                "high": stopped.high,
                "nodes": stopped.nodes,
            }
        row["seconds"] = round(time.process_time() - started, 2)
        rows.append(row)
    return rows


def load_solver(path: str | None) -> ModuleType:
    """The solver module of ``path``, or the toolkit's own."""
    if path is None:
        return solver
    spec = importlib.util.spec_from_file_location("bench_solver_module", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"bench_solver: cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def summary(
    seconds: list[float], nodes: list[int], stopped: float, positions: int
) -> dict[str, float]:
    """One row of the table: times and positions searched of the solves that finished."""
    row: dict[str, float] = {"positions": positions, "solved": len(seconds)}
    if seconds:
        row |= {
            "ms_mean": round(1000 * float(np.mean(seconds)), 3),
            "ms_median": round(1000 * float(np.median(seconds)), 3),
            "ms_p95": round(1000 * float(np.percentile(seconds, PERCENTILE)), 3),
            "nodes_mean": round(float(np.mean(nodes))),
        }
    if len(seconds) < positions:
        row["seconds_unsolved"] = round(stopped, 1)
    return row


def expected_mean(means: list[float]) -> float:
    """The mean time expected at the next size, from the growth between the last two sizes.

    Solving time grows by a large factor with every two tricks more, so a size whose mean
    is under the budget can be followed by one taking minutes a position: the next size is
    skipped when the last mean times the last growth is over the budget.
    """
    if not means:
        return 0.0
    if len(means) == 1:
        return means[0]
    return means[-1] * max(1.0, means[-1] / max(means[-2], MIN_SECONDS))


def warm_up(module: ModuleType, rules: Rules) -> None:
    """Compile the solver, or load it from the cache: a two-trick position with the Petit,
    then a few small endgames in both modes (every compiled function called once)."""
    hands = [[cards.PETIT, cards.TWENTY_ONE]] + [
        [cards.suit_card(cards.HEARTS, 2 * seat), cards.suit_card(cards.HEARTS, 2 * seat + 1)]
        for seat in range(1, rules.players)
    ]
    module.solve(rules, hands, leader=FIRST_LEADER, attack=ATTACK)
    rng = random.Random("warm up")
    for _ in range(WARM_UP_POSITIONS):
        hands, leader = random_endgame(rules, rng, WARM_UP_TRICKS)
        for best in MODES.values():
            module.solve(rules, hands, leader=leader, attack=ATTACK, best_cards=best)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rules", default="fft-4")
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--budget", type=float, default=2.0, help="seconds per position")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--tricks-left", type=int, nargs="+", default=list(TRICKS_LEFT))
    parser.add_argument("--max-nodes", type=int, default=MAX_NODES)
    parser.add_argument("--solver", help="the solver module of this file, to compare")
    parser.add_argument("--whole-deals", type=int, default=0, help="solve this many whole deals")
    parser.add_argument("--deal-max-nodes", type=int, default=DEAL_MAX_NODES)
    parser.add_argument("--deal-seconds", type=float, default=DEAL_SECONDS)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    rules = load_rules(args.rules)
    module = load_solver(args.solver)
    warm_up(module, rules)
    if args.whole_deals:
        report_deals(args, rules, module)
        return
    table: dict[str, dict[str, dict[str, float]]] = {}
    means: list[float] = []
    sizes = sorted(args.tricks_left)
    for tricks_left in sizes:
        if tricks_left > rules.hand_size or expected_mean(means) > args.budget:
            break
        if means and means[-1] > args.budget:
            break
        runs = measure(module, rules, tricks_left, args.positions, args.seed, args.max_nodes)
        table[str(tricks_left)] = {mode: summary(*runs[mode], args.positions) for mode in MODES}
        seconds = runs["best"][0]
        means.append(float(np.mean(seconds)) if seconds else float("inf"))
        if len(seconds) < args.positions:
            means.append(float("inf"))  # larger sizes would not finish either
    if args.json:
        result = {
            "rules": rules.name,
            "positions": args.positions,
            "max_nodes": args.max_nodes,
            "seed": args.seed,
            "version": __version__,
            "solver": args.solver or "tarot_analysis.solver",
            "tricks_left": table,
        }
        print(json.dumps(result))
        return
    print(
        f"double-dummy solves, {rules.name}, {args.positions} positions per size, "
        f"attack seat 0 alone, seed {args.seed}, CPU time"
    )
    print(
        f"  {'tricks left':>11} {'solve':>6} {'ms mean':>10} {'ms median':>10} {'ms p95':>10} "
        f"{'nodes mean':>12} {'solved':>8}"
    )
    for size, rows in table.items():
        for mode, row in rows.items():
            solved = f"{row['solved']:.0f}/{row['positions']:.0f}"
            if "ms_mean" not in row:
                dash = f"{'-':>10} {'-':>10} {'-':>10} {'-':>12}"
                print(f"  {size:>11} {mode:>6} {dash} {solved:>8}")
                continue
            print(
                f"  {size:>11} {mode:>6} {row['ms_mean']:10.2f} {row['ms_median']:10.2f} "
                f"{row['ms_p95']:10.2f} {row['nodes_mean']:12,.0f} {solved:>8}"
            )
    print(f"  a solve stops after {args.max_nodes:,} positions")
    skipped = [str(t) for t in sizes if str(t) not in table and t <= rules.hand_size]
    if skipped:
        print(f"  skipped (expected mean over {args.budget} s): {', '.join(skipped)}")


def report_deals(args: argparse.Namespace, rules: Rules, module: ModuleType) -> None:
    """Solve and report ``--whole-deals`` whole deals."""
    rows = measure_deals(
        module, rules, args.whole_deals, args.seed, args.deal_max_nodes, args.deal_seconds
    )
    solved = [row["seconds"] for row in rows if row["solved"]]
    # A stopped solve counts at the time it stopped: less than it would have taken.
    median = float(np.median([row["seconds"] for row in rows]))
    if args.json:
        result = {
            "rules": rules.name,
            "deals": args.whole_deals,
            "seed": args.seed,
            "max_nodes": args.deal_max_nodes,
            "seconds_limit": args.deal_seconds,
            "version": __version__,
            "solver": args.solver or "tarot_analysis.solver",
            "solved": len(solved),
            "seconds_median": round(median, 2),
            "deals_rows": rows,
        }
        print(json.dumps(result))
        return
    print(
        f"whole deals of {rules.name} after the écart, seat 0 taking a Garde, seed {args.seed}: "
        f"the value, CPU time"
    )
    for k, row in enumerate(rows):
        what = (
            f"{row['points']:g} card points"
            if row["solved"]
            else f"stopped: between {row['low']:g} and {row['high']:g}"
        )
        print(f"  deal {k}: {row['seconds']:8.2f} s {row['nodes']:14,} positions  {what}")
    print(
        f"  solved {len(solved)} of {len(rows)}, median {median:.2f} s (a stopped solve counts "
        f"at its stop)"
    )


if __name__ == "__main__":
    main()
