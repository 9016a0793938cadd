"""Where a decision of the learned bot spends its time, part by part, beside the heuristic's.

    python benchmarks/learned_parts.py [--rules fft-4] [--deals 1000] [--repeat 3] [--cpu-time]
        [--json]

The positions: every decision of ``--deals`` deals played by the shipped learned bot at every
seat (``learned``, the table's own door), kept where the bot asks its network of that kind of
decision. Then, one after the other on one thread, over the same positions, each part alone
(its inputs computed beforehand), the best of ``--repeat`` runs after a warm-up:

- ``heuristic``: the heuristic's action (the learned bot asks it first: its hint and its
  fallback), :func:`tarot_analysis.bots.door.decide_rules`;
- ``features``: the legal actions and each one's features,
  :func:`tarot_analysis.engine.action_features.action_features_into`;
- ``encoding``: what the seat knows, :func:`tarot_analysis.engine.encoding.encode_into`;
- ``trunk 1``, ``trunk 2``, ...: each layer of the trunk, from the previous one's outputs;
- ``trunk 1 kept``: the first layer kept per seat from its last decision and updated by the
  rows of the inputs that changed (:func:`tarot_analysis.bots.learned.kept_first_layer`), the
  decisions in the order they were played, as the table keeps it;
- ``head``: the rest of :func:`tarot_analysis.bots.learned.action_scores` (the head's state
  part once, then each legal action), measured as the whole of it less the trunk's layers;
- ``decision``: the whole decision as the table asks it
  (:func:`tarot_analysis.bots.door.decide_without_search`), forced ones included.

It also gives the share of those decisions where the table's action (its first layer kept per
seat) is the action taken with the first layer computed whole.

A decision with one legal action skips the network: the share of those is given. Times are
nanoseconds a decision (a position), and each part's share of the whole decision. Machines are
noisy: compare the shares and the ratios, not the absolute numbers.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import numpy as np
from bench_learned import _best
from numba import njit

from tarot_analysis import __version__
from tarot_analysis.bots import B_LEARNS, Bot, door, seat_rows
from tarot_analysis.bots.learned import (
    _layer,
    action_scores,
    kept_first_layer,
    load_model,
    shipped_model,
)
from tarot_analysis.deals.deal import deal
from tarot_analysis.engine import state as S
from tarot_analysis.engine.action_features import N_ACTION_FEATURES, action_features_into
from tarot_analysis.engine.encoding import encode_into, encoding_size
from tarot_analysis.engine.params import engine_rules
from tarot_analysis.game.rules import load_rules


@njit(cache=True)
def _positions(
    masks: Any, bots: Any, p: Any, half: Any, rng: Any, ws: Any, limit: int
) -> tuple[Any, Any, int, int]:
    """The state arrays of the decisions of the deals of ``masks`` played by ``bots`` where the
    seat's bot asks its network (at most ``limit``), and how many decisions there were in all."""
    ms = np.zeros((limit, S.N_M), dtype=np.uint64)
    ss = np.zeros((limit, S.N_S), dtype=np.int64)
    m, s = np.zeros(S.N_M, dtype=np.uint64), np.zeros(S.N_S, dtype=np.int64)
    forced = np.full(4, -1, dtype=np.int64)
    count = 0
    decisions = 0
    for d in range(masks.shape[0]):
        S.start(m, s, masks[d], forced, np.int64(-1), p, half)
        while s[S.S_KIND] != S.OVER:
            seat = s[S.S_ACTOR]
            if bots[seat, B_LEARNS] >> s[S.S_KIND] & 1 and count < limit:
                ms[count] = m
                ss[count] = s
                count += 1
            decisions += 1
            action = door.decide_without_search(m, s, seat, bots[seat], p, half, rng, ws)
            S.apply(m, s, action, p, half)
    return ms, ss, count, decisions


@njit(cache=True)
def _heuristic_all(ms: Any, ss: Any, count: int, bots: Any, p: Any, rng: Any, hints: Any) -> None:
    plan = np.zeros(2, dtype=np.uint64)
    for k in range(count):
        m, s = ms[k], ss[k]
        seat = s[S.S_ACTOR]
        hints[k] = door.decide_rules(m, s, seat, bots[seat], p, rng, plan)


@njit(cache=True)
def _features_all(
    ms: Any, ss: Any, count: int, p: Any, half: Any, hints: Any, features: Any, counts: Any
) -> None:
    mask = np.zeros(S.N_ACTIONS, dtype=np.bool_)
    actions = np.zeros(S.N_ACTIONS, dtype=np.int64)
    for k in range(count):
        s = ss[k]
        counts[k] = action_features_into(
            ms[k], s, p, half, s[S.S_ACTOR], hints[k], mask, actions, features[k]
        )


@njit(cache=True)
def _encode_all(ms: Any, ss: Any, count: int, p: Any, half: Any, xs: Any) -> None:
    for k in range(count):
        encode_into(ms[k], ss[k], p, half, ss[k, S.S_ACTOR], xs[k])


@njit(cache=True)
def _layer_all(
    weights: Any, at: int, n_in: int, n_out: int, src: Any, dst: Any, counts: Any
) -> None:
    for k in range(src.shape[0]):
        if counts[k] > 1:
            _layer(weights, at, n_in, n_out, src[k], 0, dst[k], 0, True)


@njit(cache=True)
def _kept_all(
    weights: Any, n_in: int, n_out: int, src: Any, ss: Any, counts: Any, kept: Any, seen: Any,
    updates: Any, dst: Any, count_changes: bool,
) -> int:  # fmt: skip
    """The first layer kept per seat from its last decision, the positions in the order they
    were played; the inputs changed since each seat's last decision, in all, when counted."""
    changed = 0
    for k in range(src.shape[0]):
        if counts[k] > 1:
            seat = ss[k, S.S_ACTOR]
            if count_changes:
                for i in range(n_in):
                    changed += src[k, i] != seen[seat, i]
            kept_first_layer(
                weights, n_in, n_out, src[k], kept[seat], seen[seat], updates[seat : seat + 1],
                dst[k],
            )  # fmt: skip
    return changed


@njit(cache=True)
def _scores_all(
    weights: Any, widths: Any, trunk: int, xs: Any, features: Any, counts: Any, scratch: Any
) -> float:
    scores = np.zeros(S.N_ACTIONS, dtype=np.float32)
    not_kept = np.zeros(0, dtype=np.float32)
    not_updated = np.zeros(1, dtype=np.int64)
    total = 0.0
    for k in range(xs.shape[0]):
        if counts[k] > 1:
            action_scores(
                weights, widths, trunk, xs[k], features[k], counts[k], scores, scratch,
                not_kept, not_kept, not_updated,
            )  # fmt: skip
            total += scores[0]
    return total


@njit(cache=True)
def _decisions_all(
    ms: Any, ss: Any, count: int, bots: Any, p: Any, half: Any, rng: Any, ws: Any, chosen: Any
) -> None:
    m = np.zeros(S.N_M, dtype=np.uint64)
    s = np.zeros(S.N_S, dtype=np.int64)
    for k in range(count):
        m[:] = ms[k]
        s[:] = ss[k]
        seat = s[S.S_ACTOR]
        chosen[k] = door.decide_without_search(m, s, seat, bots[seat], p, half, rng, ws)


def measure(
    preset: str, deals: int, repeat: int, limit: int, cpu_time: bool = False
) -> dict[str, Any]:
    """Each part's nanoseconds a decision, and what the decisions hold, as a dict."""
    rules = load_rules(preset)
    engine = engine_rules(rules)
    p, half = engine.params, engine.half_points
    rows, nets = seat_rows([Bot("learned")] * rules.players, rules)
    ws = door.workspace(p, engine.scoring, rows, nets)
    rng = np.array([1, 2, 3, 4], dtype=np.uint64)
    masks = deal(rules, deals, 1, threads=1).masks
    ms, ss, count, decisions = _positions(masks, rows, p, half, rng, ws, limit)
    model = load_model(shipped_model(rules), rules)
    weights, widths, trunk = model.weights, model.layout, model.trunk
    hints = np.zeros(count, dtype=np.int64)
    features = np.zeros((count, S.N_ACTIONS, N_ACTION_FEATURES), dtype=np.uint8)
    counts = np.zeros(count, dtype=np.int64)
    xs = np.zeros((count, encoding_size(rules.players)), dtype=np.float32)
    nanoseconds: dict[str, float] = {}

    def timed(name: str, run: Any) -> None:
        nanoseconds[name] = 1e9 * _best(run, repeat, cpu_time) / count

    timed("heuristic", lambda: _heuristic_all(ms, ss, count, rows, p, rng, hints))
    timed("features", lambda: _features_all(ms, ss, count, p, half, hints, features, counts))
    timed("encoding", lambda: _encode_all(ms, ss, count, p, half, xs))
    layers: list[np.ndarray] = [xs]
    at = 0
    for k in range(trunk):
        n_in, n_out = int(widths[k]), int(widths[k + 1])
        out = np.zeros((count, n_out), dtype=np.float32)
        timed(
            f"trunk {k + 1}",
            lambda a=at, i=n_in, o=n_out, src=layers[-1], dst=out: _layer_all(
                weights, a, i, o, src, dst, counts
            ),
        )
        layers.append(out)
        at += (n_in + 1) * n_out
    first = int(widths[1])
    kept = np.zeros((S.MAX_SEATS, first), dtype=np.float32)
    seen = np.zeros((S.MAX_SEATS, xs.shape[1]), dtype=np.float32)
    updates = np.zeros(S.MAX_SEATS, dtype=np.int64)
    out = np.zeros((count, first), dtype=np.float32)
    timed(
        "trunk 1 kept",
        lambda: _kept_all(
            weights, xs.shape[1], first, xs, ss, counts, kept, seen, updates, out, False
        ),
    )
    changed = _kept_all(weights, xs.shape[1], first, xs, ss, counts, kept, seen, updates, out, True)
    scratch = np.zeros(4 * int(max(widths[1:-1])) + 8, dtype=np.float32)
    whole = 1e9 * _best(
        lambda: _scores_all(weights, widths, trunk, xs, features, counts, scratch), repeat,
        cpu_time,
    ) / count  # fmt: skip
    nanoseconds["head"] = whole - sum(nanoseconds[f"trunk {k + 1}"] for k in range(trunk))
    chosen = np.zeros(count, dtype=np.int64)
    timed("decision", lambda: _decisions_all(ms, ss, count, rows, p, half, rng, ws, chosen))
    # The same decisions with the first layer computed whole at each: the actions compared.
    afresh = ws._replace(kept=np.zeros((S.MAX_SEATS, 0), dtype=np.float32))
    whole = np.zeros(count, dtype=np.int64)
    _decisions_all(ms, ss, count, rows, p, half, rng.copy(), ws, chosen)
    _decisions_all(ms, ss, count, rows, p, half, rng.copy(), afresh, whole)
    networked = counts > 1
    return {
        "rules": preset, "version": __version__, "deals": deals, "decisions": int(decisions),
        "clock": "cpu time" if cpu_time else "wall",
        "positions": int(count), "widths": [int(w) for w in widths], "trunk": int(trunk),
        "forced_share": float(1 - networked.mean()),
        "legal_actions_mean": float(counts[networked].mean()),
        "inputs_not_zero_mean": float((xs[networked] != 0).sum(axis=1).mean()),
        "trunk_1_not_zero_mean": float((layers[1][networked] != 0).sum(axis=1).mean()),
        "inputs_changed_mean": float(changed / networked.sum()),
        "same_action_kept_and_afresh": float((chosen == whole)[networked].mean()),
        "different_actions": int((chosen != whole)[networked].sum()),
        "nanoseconds": nanoseconds,
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="fft-4")
    parser.add_argument("--deals", type=int, default=1_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--limit", type=int, default=100_000, help="most positions kept")
    parser.add_argument(
        "--cpu-time", action="store_true",
        help="time by this process's CPU time, not the wall clock (on a machine doing other work)",
    )  # fmt: skip
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = measure(args.rules, args.deals, args.repeat, args.limit, args.cpu_time)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    ns = result["nanoseconds"]
    print(
        f"{args.rules}: {result['positions']:,} decisions the network is asked of, in "
        f"{args.deals:,} deals of the learned bot at every seat ({result['decisions']:,} "
        f"decisions in all), one thread"
    )
    print(
        f"  network {'x'.join(map(str, result['widths']))} (trunk {result['trunk']}); "
        f"{result['forced_share']:.1%} forced; {result['legal_actions_mean']:.1f} legal "
        f"actions, {result['inputs_not_zero_mean']:.0f} inputs and "
        f"{result['trunk_1_not_zero_mean']:.0f} first-layer outputs not zero, "
        f"{result['inputs_changed_mean']:.1f} inputs changed since the seat's last decision, "
        f"on average where it is asked"
    )
    print(
        f"  the same action with the first layer kept as computed whole: "
        f"{result['same_action_kept_and_afresh']:.4%} ({result['different_actions']} differ)"
    )
    print(f"  {'part':<12} {'ns a decision':>14} {'share':>7}")
    for name, value in ns.items():
        share = "" if name == "decision" else f"{value / ns['decision']:7.1%}"
        print(f"  {name:<12} {value:>14,.0f} {share}")


if __name__ == "__main__":
    main()
