"""The cost of reading the pimc bot's values beside choosing its action, on the same decisions.

    python benchmarks/bench_action_values.py [--rules fft-4] [--decisions 40] [--worlds 32]

Decisions part-way through deals whose actions are drawn at random (cards, bids, calls,
poignées); ``action_values`` and ``choose_action`` are timed in turn on each, the first of the
two alternating, with the same seed, after a warm-up (compilation is not counted). The ratio
is the time of the first over the second.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from tarot_analysis.bots.pimc import action_values, choose_action
from tarot_analysis.engine.game import GameState
from tarot_analysis.game.rules import load_rules


def decisions(name: str, count: int, seed: int) -> list[GameState]:
    """Decisions pimc searches, from deals whose actions are drawn at random."""
    rng = np.random.default_rng(seed)
    found: list[GameState] = []
    deal = 0
    while len(found) < count:
        state = GameState.deal(load_rules(name), seed=seed * 1000 + deal)
        deal += 1
        while state.decision != "over" and len(found) < count:
            legal = state.legal_actions()
            if state.decision in ("card", "bid", "call", "poignee") and rng.random() < 0.2:
                found.append(state.copy())
            state.apply(int(legal[rng.integers(len(legal))]))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rules", default="fft-4")
    parser.add_argument("--decisions", type=int, default=40)
    parser.add_argument("--worlds", type=int, default=32)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    states = decisions(args.rules, args.decisions, args.seed)
    action_values(states[0], worlds=2)  # compile, warm up
    choose_action(states[0], worlds=2)
    spent = {"action_values": 0.0, "choose_action": 0.0}
    runs = [("action_values", action_values), ("choose_action", choose_action)]
    for k, state in enumerate(states):
        for name, run in runs if k % 2 == 0 else runs[::-1]:
            started = time.perf_counter()
            run(state, worlds=args.worlds, seed=k)
            spent[name] += time.perf_counter() - started
    for name, seconds in spent.items():
        print(f"{name:14} {len(states) / seconds:8.2f} decisions/s")
    print(f"ratio {spent['action_values'] / spent['choose_action']:.3f}")


if __name__ == "__main__":
    main()
