"""Deals per second, with hand features, beside plain numpy dealing in the same run.

    python benchmarks/bench_deal.py [--deals 2000000] [--rules fft-4] [--json]

Measures three things on the same machine, one after the other:

- the compiled dealer with features on every core (``deal_features``),
- the same on one thread,
- a plain numpy dealer: ``argsort`` of random keys per deal, then the same features counted
  with numpy (matrix products over card indicators).

Each timing is the best of ``--repeat`` runs, after a warm-up (compilation and first touch of
memory are not counted). Machines are noisy: compare the ratios, not the absolute numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable

import numpy as np

from tarot_analysis import __version__
from tarot_analysis.deals.deal import deal_features
from tarot_analysis.deals.features import FEATURES, N_FEATURES
from tarot_analysis.engine.params import engine_rules
from tarot_analysis.game import cards
from tarot_analysis.game.rules import Rules, load_rules
from tarot_analysis.runs.simulate import default_threads


def best_rate(run: Callable[[], object], deals: int, repeat: int) -> float:
    """Deals per second of the fastest of ``repeat`` runs."""
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - started)
    return deals / best


class NumpyDealer:
    """Dealing the straightforward numpy way: shuffle by argsort, count with matrix products."""

    def __init__(self, rules: Rules, block: int = 8192) -> None:
        self.rules = rules
        self.block = block
        sizes = [rules.hand_size] * rules.players + [rules.dog_size]
        self.group_of_position = np.repeat(np.arange(len(sizes)), sizes)
        ids = np.arange(cards.N_CARDS)
        half_points = engine_rules(rules).half_points
        columns = [
            cards.IS_TRUMP, ids == cards.EXCUSE, ids == cards.PETIT, ids == cards.TWENTY_ONE,
            cards.IS_BOUT, cards.IS_KING, cards.IS_QUEEN, cards.IS_KNIGHT, cards.IS_JACK,
            *(cards.IS_SUIT_CARD & (cards.SUIT == suit) for suit in range(4)),
            half_points,
        ]  # fmt: skip
        # card × count matrix: a hand's counts are its indicator row times this matrix
        self.card_matrix = np.stack(columns, axis=1).astype(np.float32)
        self.thresholds = np.array(rules.poignee.thresholds)

    def deal(self, n: int, rng: np.random.Generator) -> np.ndarray:
        groups = self.rules.players + 1
        out = np.empty((n, groups, N_FEATURES), dtype=np.uint8)
        for start in range(0, n, self.block):
            size = min(self.block, n - start)
            order = np.argsort(rng.random((size, cards.N_CARDS)), axis=1)
            group_of_card = np.empty_like(order)
            np.put_along_axis(group_of_card, order, self.group_of_position[None, :], axis=1)
            for g in range(groups):
                counts = (group_of_card == g).astype(np.float32) @ self.card_matrix
                suits = counts[:, 9:13]
                with_excuse = counts[:, 0] + counts[:, 1]
                feature = out[start : start + size, g]
                feature[:, :13] = counts[:, :13]
                feature[:, 13] = (suits == 0).sum(axis=1)
                feature[:, 14] = (suits == 1).sum(axis=1)
                feature[:, 15] = suits.max(axis=1)
                feature[:, 16] = counts[:, 13]
                feature[:, 17] = (with_excuse[:, None] >= self.thresholds[None, :]).sum(axis=1)
                feature[:, 18] = (counts[:, 0] == 1) & (counts[:, 2] == 1) & (counts[:, 1] == 0)
        return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="fft-4")
    parser.add_argument("--deals", type=int, default=2_000_000)
    parser.add_argument("--numpy-deals", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    rules = load_rules(args.rules)
    threads = default_threads()
    out = np.empty((args.deals, rules.players + 1, N_FEATURES), dtype=np.uint8)
    out.fill(0)  # touch the memory once, outside the timings
    deal_features(rules, 10_000, seed=0, out=out[:10_000])  # compile or load from cache

    all_cores = best_rate(
        lambda: deal_features(rules, args.deals, seed=1, threads=threads, out=out),
        args.deals,
        args.repeat,
    )
    one_thread = best_rate(
        lambda: deal_features(rules, args.deals, seed=1, threads=1, out=out),
        args.deals,
        args.repeat,
    )
    dealer = NumpyDealer(rules)
    check = dealer.deal(50_000, np.random.default_rng(0))
    fast = deal_features(rules, 50_000, seed=0)
    # Same distribution: the mean of every feature agrees (a sanity check, not a test).
    drift = np.abs(check.mean(axis=(0, 1)) - fast.mean(axis=(0, 1))).max()
    numpy_rate = best_rate(
        lambda: dealer.deal(args.numpy_deals, np.random.default_rng(1)),
        args.numpy_deals,
        args.repeat,
    )
    result = {
        "rules": rules.name,
        "deals": args.deals,
        "threads": threads,
        "features": list(FEATURES),
        "deals_per_s": round(all_cores),
        "deals_per_s_1thread": round(one_thread),
        "numpy_baseline_per_s": round(numpy_rate),
        "speedup_vs_numpy": round(all_cores / numpy_rate, 2),
        "speedup_1thread_vs_numpy": round(one_thread / numpy_rate, 2),
        "cpu_count": os.cpu_count(),
        "version": __version__,
    }
    if args.json:
        print(json.dumps(result))
        return
    print(
        f"dealing {rules.name} with {N_FEATURES} features per hand and dog (best of {args.repeat})"
    )
    print(f"  compiled, {threads} threads : {all_cores / 1e6:8.2f} M deals/s")
    print(f"  compiled, 1 thread  : {one_thread / 1e6:8.2f} M deals/s")
    print(f"  numpy argsort       : {numpy_rate / 1e6:8.2f} M deals/s  (baseline, same run)")
    ratio, ratio_one = all_cores / numpy_rate, one_thread / numpy_rate
    print(f"  speed-up vs numpy   : {ratio:8.1f}x ({ratio_one:.1f}x on one thread)")
    print(f"  largest difference of feature means, numpy vs compiled: {drift:.3f}")


if __name__ == "__main__":
    main()
