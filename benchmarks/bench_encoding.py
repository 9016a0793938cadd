"""Encodings of what a seat knows per second, beside stepping the same deals without them.

    python benchmarks/bench_encoding.py [--deals 20000] [--rules fft-4] [--json]

Measures, one after the other on one thread:

- stepping ``--deals`` deals through the game state in compiled code, each decision an action
  taken among the legal ones by a fixed rule (no bot), and nothing else: the baseline;
- the same, writing at every decision the encoding of the seat to act
  (:func:`tarot_analysis.engine.encoding.encode_into`): the encoding's cost is the difference;
- :meth:`GameState.observation` in Python, the same facts as objects, at every decision of a
  few hundred deals (``--python-deals``).

Each timing is the best of ``--repeat`` runs after a warm-up (compilation is not counted).
Machines are noisy: compare the ratios, not the absolute numbers.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import numpy as np
from numba import njit

from tarot_analysis import __version__
from tarot_analysis.deals.deal import deal
from tarot_analysis.engine import state as S
from tarot_analysis.engine.encoding import encode_into, encoding_size
from tarot_analysis.engine.game import GameState
from tarot_analysis.engine.params import engine_rules
from tarot_analysis.game.rules import load_rules


@njit(cache=True)
def step_by_rule(m: Any, s: Any, mask: Any, p: Any, half: Any, k: int) -> None:
    """Take the legal action of index ``k`` modulo their count."""
    S.legal_mask(m, s, p, mask)
    legal = 0
    for a in range(S.N_ACTIONS):
        legal += mask[a]
    pick = k % legal
    for a in range(S.N_ACTIONS):
        if mask[a]:
            if pick == 0:
                S.apply(m, s, a, p, half)
                return
            pick -= 1


@njit(cache=True)
def _step_deals(
    masks: Any, m: Any, s: Any, mask: Any, p: Any, half: Any, out: Any, encode: bool
) -> int:
    """Play every deal of ``masks``, the ``k``-th decision's action the legal one of index
    ``k`` modulo their count; with ``encode``, the seat to act's encoding at each decision.
    Returns the decisions taken."""
    forced = np.full(4, -1, dtype=np.int64)
    decisions = 0
    for d in range(masks.shape[0]):
        S.start(m, s, masks[d], forced, p[0] - 1, p, half)
        while s[S.S_KIND] != S.OVER:
            if encode:
                encode_into(m, s, p, half, s[S.S_ACTOR], out)
            step_by_rule(m, s, mask, p, half, decisions * 7 + d)
            decisions += 1
    return decisions


def _python_observations(rules: Any, masks: Any) -> int:
    decisions = 0
    for d in range(masks.shape[0]):
        state = GameState(rules, masks[d])
        while not state.is_over:
            state.observation(state.actor)
            legal = state.legal_actions()
            state.apply(int(legal[(decisions * 7 + d) % len(legal)]))
            decisions += 1
    return decisions


def _best(run: Any, repeat: int) -> tuple[float, int]:
    best = float("inf")
    count = 0
    for _ in range(repeat):
        started = time.perf_counter()
        count = run()
        best = min(best, time.perf_counter() - started)
    return best, count


def measure(preset: str, deals: int, python_deals: int, repeat: int) -> dict[str, Any]:
    """The timings of the three loops, as a dict."""
    rules = load_rules(preset)
    engine = engine_rules(rules)
    p, half = engine.params, engine.half_points
    masks = deal(rules, deals, 1, threads=1).masks
    out = np.zeros(encoding_size(rules.players), dtype=np.float32)
    m, s = S.new_arrays()
    mask = np.zeros(S.N_ACTIONS, dtype=np.bool_)
    _step_deals(masks[:10], m, s, mask, p, half, out, np.bool_(False))  # compile and warm up
    _step_deals(masks[:10], m, s, mask, p, half, out, np.bool_(True))

    def step(encode: bool) -> int:
        return int(_step_deals(masks, m, s, mask, p, half, out, np.bool_(encode)))

    plain, decisions = _best(lambda: step(False), repeat)
    encoded, _ = _best(lambda: step(True), repeat)
    python, python_decisions = _best(
        lambda: _python_observations(rules, masks[:python_deals]), repeat
    )
    return {
        "rules": preset,
        "version": __version__,
        "deals": deals,
        "decisions": decisions,
        "encoding_length": int(out.shape[0]),
        "decisions_per_second_stepping": decisions / plain,
        "decisions_per_second_stepping_and_encoding": decisions / encoded,
        "encodings_per_second": decisions / max(encoded - plain, 1e-9),
        "microseconds_per_encoding": 1e6 * (encoded - plain) / decisions,
        "python_observations_per_second": python_decisions / python,
        "python_deals": python_deals,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="fft-4")
    parser.add_argument("--deals", type=int, default=20_000)
    parser.add_argument("--python-deals", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = measure(args.rules, args.deals, args.python_deals, args.repeat)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"{args.rules}: {result['decisions']:,} decisions of {args.deals:,} deals, one thread")
    print(f"  stepping only            {result['decisions_per_second_stepping']:>12,.0f} /s")
    both = result["decisions_per_second_stepping_and_encoding"]
    print(f"  stepping and encoding    {both:>12,.0f} /s")
    print(f"  encodings (difference)   {result['encodings_per_second']:>12,.0f} /s")
    print(f"  GameState.observation    {result['python_observations_per_second']:>12,.0f} /s")


if __name__ == "__main__":
    main()
