"""Decisions per second of the learned bot's compiled network, beside the heuristic's.

    python benchmarks/bench_learned.py [--deals 2000] [--rules fft-4]
        [--layers 64:32 256x128:64 ...] [--json]

Positions: every third card decision of ``--deals`` deals stepped through the game state in
compiled code, each decision an action taken among the legal ones by a fixed rule, copied out. Then,
one after the other on one thread, over the same positions:

- the baseline: the seat's encoding alone (:func:`tarot_analysis.engine.encoding.encode_into`)
  and its legal actions (:func:`tarot_analysis.engine.state.legal_mask`);
- the heuristic bot's card (:func:`tarot_analysis.bots.door.decide_rules`);
- :func:`tarot_analysis.bots.learned.decide_action_in` (the legal actions and their features,
  the encoding, each legal action's score) for each ``--layers`` action-in network
  (``512x256:128``: a trunk of two layers, a head of one then the score), its weights drawn at
  random (He); a trained network's ReLU leaves about as many zeros. The first layer is computed
  whole at each decision and no action is marked as the heuristic's (the table asks the
  heuristic first, and keeps each seat's first layer: ``benchmarks/learned_parts.py``
  measures those with the shipped network).

Each timing is the best of ``--repeat`` runs after a warm-up (compilation is not counted).
Machines are noisy: compare the ratios, not the absolute numbers.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import numpy as np
from bench_encoding import step_by_rule
from numba import njit

from tarot_analysis import __version__
from tarot_analysis.bots import bot_rows, door
from tarot_analysis.bots.learned import decide_action_in, scratch_size
from tarot_analysis.deals.deal import deal
from tarot_analysis.engine import state as S
from tarot_analysis.engine.action_features import N_ACTION_FEATURES
from tarot_analysis.engine.encoding import encode_into, encoding_size
from tarot_analysis.engine.params import engine_rules
from tarot_analysis.game.rules import load_rules
from tarot_analysis.learning.streaming import init_params


@njit(cache=True)
def _positions(masks: Any, p: Any, half: Any, limit: int) -> tuple[Any, Any, int]:
    """The state arrays of every third card decision of the deals of ``masks`` (at most
    ``limit``), each decision's action the legal one of index ``k`` modulo their count."""
    ms = np.zeros((limit, S.N_M), dtype=np.uint64)
    ss = np.zeros((limit, S.N_S), dtype=np.int64)
    m, s = np.zeros(S.N_M, dtype=np.uint64), np.zeros(S.N_S, dtype=np.int64)
    mask = np.zeros(S.N_ACTIONS, dtype=np.bool_)
    forced = np.full(4, -1, dtype=np.int64)
    count = 0
    decisions = 0
    for d in range(masks.shape[0]):
        S.start(m, s, masks[d], forced, p[0] - 1, p, half)
        while s[S.S_KIND] != S.OVER:
            if s[S.S_KIND] == S.CARD and decisions % 3 == 0 and count < limit:
                ms[count] = m
                ss[count] = s
                count += 1
            step_by_rule(m, s, mask, p, half, decisions * 7 + d)
            decisions += 1
    return ms, ss, count


@njit(cache=True)
def _encode_all(ms: Any, ss: Any, count: int, p: Any, half: Any, x: Any, mask: Any) -> int:
    total = 0
    for k in range(count):
        encode_into(ms[k], ss[k], p, half, ss[k, S.S_ACTOR], x)
        S.legal_mask(ms[k], ss[k], p, mask)
        total += mask[0]
    return total


@njit(cache=True)
def _heuristic_all(ms: Any, ss: Any, count: int, bot: Any, p: Any, rng: Any) -> int:
    total = 0
    plan = np.zeros(2, dtype=np.uint64)
    for k in range(count):
        m, s = ms[k], ss[k]
        total += door.decide_rules(m, s, s[S.S_ACTOR], bot, p, rng, plan)
    return total


@njit(cache=True)
def _learned_all(
    ms: Any, ss: Any, count: int, p: Any, half: Any, weights: Any, widths: Any, trunk: int,
    x: Any, out: Any, scratch: Any, mask: Any,
) -> int:  # fmt: skip
    features = np.zeros((S.N_ACTIONS, N_ACTION_FEATURES), dtype=np.uint8)
    actions = np.zeros(S.N_ACTIONS, dtype=np.int64)
    none = np.zeros(0, dtype=np.float32)  # no first layer kept: computed whole each time
    updates = np.zeros(1, dtype=np.int64)
    total = 0
    for k in range(count):
        total += decide_action_in(
            ms[k], ss[k], ss[k, S.S_ACTOR], p, half, -1, weights, widths, trunk, x, out,
            scratch, mask, features, actions, none, none, updates,
        )  # fmt: skip
    return total


def _best(run: Any, repeat: int, cpu_time: bool = False) -> float:
    """The shortest of ``repeat`` runs of ``run`` after a warm-up, in seconds: of the wall
    clock, or of this process's CPU time (``cpu_time``), which other work on the machine
    lengthens less."""
    clock = time.process_time if cpu_time else time.perf_counter
    run()  # warm-up
    best = float("inf")
    for _ in range(repeat):
        started = clock()
        run()
        best = min(best, clock() - started)
    return best


def _network(inputs: int, name: str, seed: int) -> tuple[Any, Any, int]:
    """The flat weights, the widths and the trunk's layers of an action-in network named
    ``TRUNK:HEAD`` (``512x256:128``), its weights drawn at random (He), its biases 0."""
    trunk_part, _, head_part = name.partition(":")
    trunk = tuple(int(w) for w in trunk_part.split("x"))
    head = tuple(int(w) for w in head_part.split("x") if w)
    params = init_params(inputs, trunk, head, seed)
    layers = [a for part in ("trunk", "head") for layer in params[part] for a in layer]
    weights = np.concatenate([a.ravel() for a in layers]).astype(np.float32)
    widths = np.array([inputs, *trunk, *head, 1], dtype=np.int64)
    return weights, widths, len(trunk)


def measure(preset: str, deals: int, networks: list[str], repeat: int) -> dict[str, Any]:
    """The decisions per second of each bot, as a dict."""
    rules = load_rules(preset)
    engine = engine_rules(rules)
    p, half = engine.params, engine.half_points
    masks = deal(rules, deals, 1, threads=1).masks
    ms, ss, count = _positions(masks, p, half, deals * 30)
    x = np.zeros(encoding_size(rules.players), dtype=np.float32)
    mask = np.zeros(S.N_ACTIONS, dtype=np.bool_)
    rng = np.array([1, 2, 3, 4], dtype=np.uint64)
    heuristic = bot_rows(["heuristic"])[0]
    result: dict[str, Any] = {
        "rules": preset, "version": __version__, "deals": deals, "decisions": int(count),
        "encoding_length": int(x.shape[0]),
    }  # fmt: skip
    seconds = _best(lambda: _encode_all(ms, ss, count, p, half, x, mask), repeat)
    result["encoding_and_legal_per_second"] = count / seconds
    seconds = _best(lambda: _heuristic_all(ms, ss, count, heuristic, p, rng), repeat)
    result["heuristic_per_second"] = count / seconds
    result["learned_per_second"] = {}
    for name in networks:
        weights, widths, trunk = _network(int(x.shape[0]), name, seed=1)
        out = np.zeros(S.N_ACTIONS, dtype=np.float32)
        scratch = np.zeros(scratch_size(widths), dtype=np.float32)
        seconds = _best(
            lambda w=weights, n=widths, k=trunk, o=out, t=scratch: _learned_all(
                ms, ss, count, p, half, w, n, k, x, o, t, mask
            ),
            repeat,
        )
        result["learned_per_second"][name] = count / seconds
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="fft-4")
    parser.add_argument("--deals", type=int, default=2_000)
    parser.add_argument(
        "--layers", nargs="+", default=["64:32", "256x128:64", "512x256:128"],
        help="action-in networks, TRUNK:HEAD (512x256:128: a trunk of 512 then 256, a head of "
        "128 then the score)",
    )  # fmt: skip
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = measure(args.rules, args.deals, args.layers, args.repeat)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(
        f"{args.rules}: {result['decisions']:,} card decisions of {args.deals:,} deals, one thread"
    )
    print(f"  encoding and legal actions {result['encoding_and_legal_per_second']:>12,.0f} /s")
    print(f"  heuristic                  {result['heuristic_per_second']:>12,.0f} /s")
    for name, rate in result["learned_per_second"].items():
        print(f"  learned {name:<18} {rate:>12,.0f} /s")


if __name__ == "__main__":
    main()
