"""Milliseconds to solve a card-play endgame double dummy, by the number of tricks left.

    python benchmarks/bench_solver.py [--rules fft-4] [--positions 20] [--budget 2]
        [--tricks-left 4 6 8 10] [--max-nodes 20000000] [--json]

Each position comes from a fresh random deal (seeded): random legal cards are played from the
first trick on until ``tricks left`` tricks remain, then :func:`tarot_analysis.solver.solve`
finds the attack's card points and best cards, the attack being seat 0 alone. Sizes run from
the smallest up. A size is skipped, with the larger ones, when its expected mean time (the
last size's mean times its growth over the size before) or the last measured mean exceeds
``--budget`` seconds. A solve that reaches ``--max-nodes`` positions stops: it counts as not
solved, and the times are those of the positions solved (``solved`` of ``positions``). The
solver is compiled (or loaded from the cache) before timing. Machines are noisy: compare
sizes within one run.
"""

from __future__ import annotations

import argparse
import json
import random
import time

import numpy as np

from tarot_analysis import __version__, cards
from tarot_analysis.rules import Rules, load_rules
from tarot_analysis.solver import SearchStopped, legal_plays, solve, trick_winner

TRICKS_LEFT = (4, 6, 8, 10)
MAX_NODES = 20_000_000
ATTACK = frozenset({0})
FIRST_LEADER = 0
PERCENTILE = 95
MIN_SECONDS = 1e-4  # a floor for the growth between two sizes


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
    rules: Rules, tricks_left: int, positions: int, seed: int, max_nodes: int
) -> tuple[list[float], list[int], float]:
    """Seconds and nodes of the solves, among ``positions`` with ``tricks_left`` tricks left,
    that finished within ``max_nodes``; and the seconds spent on those that did not."""
    rng = random.Random(f"{seed} {tricks_left}")
    seconds: list[float] = []
    nodes: list[int] = []
    stopped_seconds = 0.0
    for _ in range(positions):
        hands, leader = random_endgame(rules, rng, tricks_left)
        started = time.perf_counter()
        try:
            solution = solve(rules, hands, leader=leader, attack=ATTACK, max_nodes=max_nodes)
        except SearchStopped:
            stopped_seconds += time.perf_counter() - started
            continue
        seconds.append(time.perf_counter() - started)
        nodes.append(solution.nodes)
    return seconds, nodes, stopped_seconds


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


def warm_up(rules: Rules) -> None:
    """Compile the solver, or load it from the cache, on a two-trick position with the Petit."""
    hands = [[cards.PETIT, cards.TWENTY_ONE]] + [
        [cards.suit_card(cards.HEARTS, 2 * seat), cards.suit_card(cards.HEARTS, 2 * seat + 1)]
        for seat in range(1, rules.players)
    ]
    solve(rules, hands, leader=FIRST_LEADER, attack=ATTACK)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rules", default="fft-4")
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--budget", type=float, default=2.0, help="seconds per position")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--tricks-left", type=int, nargs="+", default=list(TRICKS_LEFT))
    parser.add_argument("--max-nodes", type=int, default=MAX_NODES)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    rules = load_rules(args.rules)
    warm_up(rules)
    table: dict[str, dict[str, float]] = {}
    total_seconds = 0.0
    total_positions = 0
    means: list[float] = []
    sizes = sorted(args.tricks_left)
    for tricks_left in sizes:
        if tricks_left > rules.hand_size or expected_mean(means) > args.budget:
            break
        if means and means[-1] > args.budget:
            break
        seconds, nodes, stopped_seconds = measure(
            rules, tricks_left, args.positions, args.seed, args.max_nodes
        )
        row: dict[str, float] = {"positions": args.positions, "solved": len(seconds)}
        if seconds:
            mean = float(np.mean(seconds))
            means.append(mean)
            row |= {
                "ms_mean": round(1000 * mean, 3),
                "ms_median": round(1000 * float(np.median(seconds)), 3),
                "ms_p95": round(1000 * float(np.percentile(seconds, PERCENTILE)), 3),
                "nodes_mean": round(float(np.mean(nodes))),
            }
        if len(seconds) < args.positions:
            row["seconds_unsolved"] = round(stopped_seconds, 1)
            means.append(float("inf"))  # larger sizes would not finish either
        table[str(tricks_left)] = row
        total_seconds += sum(seconds)
        total_positions += len(seconds)
    positions_per_s = total_positions / total_seconds if total_seconds else 0.0
    if args.json:
        result = {
            "rules": rules.name,
            "positions": args.positions,
            "max_nodes": args.max_nodes,
            "seed": args.seed,
            "version": __version__,
            "tricks_left": table,
            "positions_per_s": round(positions_per_s, 2),
        }
        print(json.dumps(result))
        return
    print(
        f"double-dummy solves, {rules.name}, {args.positions} positions per size, "
        f"attack seat 0 alone, seed {args.seed}"
    )
    print(
        f"  {'tricks left':>11} {'ms mean':>10} {'ms median':>10} {'ms p95':>10} "
        f"{'nodes mean':>12} {'solved':>8}"
    )
    for size, row in table.items():
        solved = f"{row['solved']:.0f}/{row['positions']:.0f}"
        if "ms_mean" not in row:
            print(f"  {size:>11} {'-':>10} {'-':>10} {'-':>10} {'-':>12} {solved:>8}")
            continue
        print(
            f"  {size:>11} {row['ms_mean']:10.2f} {row['ms_median']:10.2f} {row['ms_p95']:10.2f} "
            f"{row['nodes_mean']:12,.0f} {solved:>8}"
        )
    print(f"  a solve stops after {args.max_nodes:,} positions")
    skipped = [str(t) for t in sizes if str(t) not in table and t <= rules.hand_size]
    if skipped:
        print(f"  skipped (expected mean over {args.budget} s): {', '.join(skipped)}")
    print(f"  positions per second, over all sizes: {positions_per_s:.2f}")


if __name__ == "__main__":
    main()
