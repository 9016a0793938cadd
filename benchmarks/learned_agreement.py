"""Does the table's learned bot take the actions of its float32 network, evaluated plainly?

    python benchmarks/learned_agreement.py [--rules fft-4] [--deals 20000] [--seed 1] [--json]

The table evaluates a learned bot's network its own way, for speed: the first layer kept per
seat from its last decision and updated by the rows of the inputs that changed, the rows of
inputs that are zero skipped, four rows summed at once, the last layer's products summed in
eight lanes (:mod:`tarot_analysis.bots.learned`). Each changes where float32's rounding falls,
so that a close choice could tip. This plays ``--deals`` deals with the shipped learned bot at
every seat, as a table plays them (:func:`tarot_analysis.bots.door.decide_without_search`),
and at each decision where the bot asks its network, evaluates the same network again with
numpy: each layer a float32 matrix product of the whole inputs, its bias added, ReLU between
(the network as it was trained). From those scores it takes the bot's action as the bot's
rule does (the network's best where it gains more than the bot's margin over the heuristic's
action, else the heuristic's), and compares.

It prints the decisions compared, the share where both take the same action, and the deals
on which any decision differs. A deal on which none differs is played the same by both ways,
whoever sits where: a duplicate match of the two is 0 points on that deal, so the deals with a
difference bound the deals a duplicate match of the two could score apart.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import numpy as np
from numba import njit

from tarot_analysis import __version__
from tarot_analysis.bots import B_LEARNS, B_MARGIN_0, Bot, door, seat_rows
from tarot_analysis.bots.learned import shipped_model
from tarot_analysis.deals.deal import deal
from tarot_analysis.engine import state as S
from tarot_analysis.engine.action_features import (
    FEATURE_SCALE,
    N_ACTION_FEATURES,
    action_features_into,
)
from tarot_analysis.engine.encoding import encode_into, encoding_size
from tarot_analysis.engine.game import GameState
from tarot_analysis.engine.params import engine_rules
from tarot_analysis.game.rules import load_rules
from tarot_analysis.learning.streaming import load_action_in, scores
from tarot_analysis.table.duplicate import mean_interval

#: Deals played and compared at a time (their encodings are kept until compared).
CHUNK = 250


@njit(cache=True)
def _play(
    masks: Any, bots: Any, p: Any, half: Any, rng: Any, ws: Any, xs: Any, features: Any,
    rows: Any, chosen: Any, ruled: Any, margins: Any, deal_of: Any,
) -> tuple[int, int]:  # fmt: skip
    """The deals of ``masks`` played by ``bots`` through the table's door. At each decision
    where a seat asks its network with more than one legal action: its encoding into
    ``xs[k]``, its actions' features into ``features[rows[k]:rows[k + 1]]``, the slots of the
    action taken and of the heuristic's among those rows into ``chosen[k]`` and ``ruled[k]``, the
    bot's margin into ``margins[k]`` and the deal into ``deal_of[k]``. Returns the decisions
    kept and the feature rows used."""
    m, s = np.zeros(S.N_M, dtype=np.uint64), np.zeros(S.N_S, dtype=np.int64)
    forced = np.full(4, -1, dtype=np.int64)
    mask = np.zeros(S.N_ACTIONS, dtype=np.bool_)
    actions = np.zeros(S.N_ACTIONS, dtype=np.int64)
    own = np.zeros((S.N_ACTIONS, N_ACTION_FEATURES), dtype=np.uint8)
    rng_before = np.zeros_like(rng)
    plan_before = np.zeros_like(ws.plan)
    count = 0
    used = 0
    for d in range(masks.shape[0]):
        door.start_deal(m, s, masks[d], forced, np.int64(-1), p, half, ws)
        while s[S.S_KIND] != S.OVER:
            seat = s[S.S_ACTOR]
            kind = s[S.S_KIND]
            asks = bots[seat, B_LEARNS] >> kind & 1
            rng_before[:] = rng
            plan_before[:] = ws.plan
            action = door.decide_without_search(m, s, seat, bots[seat], p, half, rng, ws)
            if asks:
                # The heuristic's action again, from the same generator and plan.
                hint = door.decide_rules(m, s, seat, bots[seat], p, rng_before, plan_before)
                n = action_features_into(m, s, p, half, seat, hint, mask, actions, own)
                if n > 1:
                    encode_into(m, s, p, half, seat, xs[count])
                    features[used : used + n] = own[:n]
                    rows[count + 1] = used + n
                    chosen[count] = -1
                    for k in range(n):
                        if actions[k] == hint:
                            ruled[count] = k
                        if actions[k] == action:
                            chosen[count] = k
                    margins[count] = bots[seat, B_MARGIN_0 + kind]
                    deal_of[count] = d
                    used += n
                    count += 1
            S.apply(m, s, action, p, half)
    return count, used


def _reference_scores(params: Any, xs: Any, features: Any, rows: Any) -> np.ndarray:
    """Each feature row's score by the network evaluated plainly, as it was trained
    (:func:`tarot_analysis.learning.streaming.scores` in numpy: whole float32 matrix products,
    biases, ReLU between the layers); ``features[rows[k]:rows[k + 1]]`` are decision ``k``'s."""
    counts = np.diff(rows)
    position = np.repeat(np.arange(len(counts)), counts)
    slot = np.arange(rows[-1]) - np.repeat(rows[:-1], counts)
    padded = np.zeros((len(counts), counts.max(), N_ACTION_FEATURES), dtype=np.float32)
    padded[position, slot] = features.astype(np.float32) * FEATURE_SCALE
    return scores(np, params, xs, padded)[position, slot]


def _plain_action(table: dict[str, Any], m: Any, s: Any, seat: int, rng: Any) -> int:
    """The learned bot's action at ``(m, s)`` with its network evaluated plainly
    (:func:`_reference_scores`), from the same generator and écart plan as the table's."""
    bot, p, half, ws = table["bots"][seat], table["p"], table["half"], table["ws"]
    kind = s[S.S_KIND]
    hint = door.decide_rules(m, s, seat, bot, p, rng, ws.plan)
    if not bot[B_LEARNS] >> kind & 1:
        return int(hint)
    mask = np.zeros(S.N_ACTIONS, dtype=np.bool_)
    actions = np.zeros(S.N_ACTIONS, dtype=np.int64)
    features = np.zeros((S.N_ACTIONS, N_ACTION_FEATURES), dtype=np.uint8)
    n = action_features_into(m, s, p, half, seat, hint, mask, actions, features)
    if n <= 1:
        return int(actions[0])
    x = np.zeros((1, table["encoding"]), dtype=np.float32)
    encode_into(m, s, p, half, seat, x[0])
    plain = _reference_scores(table["params"], x, features[:n], np.array([0, n]))
    best = int(np.argmax(plain))
    ruled = int(np.flatnonzero(actions[:n] == hint)[0])
    gain = 100.0 * (float(plain[best]) - float(plain[ruled]))
    return int(actions[best] if gain > bot[B_MARGIN_0 + kind] / 100.0 else hint)


def _duplicate_edge(table: dict[str, Any], cards: Any) -> float:
    """The edge of the table's evaluation (A) over the plain one (B) on one deal, as
    :func:`tarot_analysis.table.duplicate.duplicate` counts it: the deal played once per seat
    with A at that seat and B at the others, A's score less the others' mean, averaged over the
    seats. Every play starts from the same generator."""
    rules, p, half, ws = table["rules"], table["p"], table["half"], table["ws"]
    forced = np.full(4, -1, dtype=np.int64)
    edges = []
    for a_seat in range(rules.players):
        state = GameState(rules, cards)  # its arrays started again as the table starts a deal
        m, s = state.m, state.s
        rng = np.array([1, 2, 3, 4], dtype=np.uint64)
        door.start_deal(m, s, cards, forced, np.int64(-1), p, half, ws)
        while s[S.S_KIND] != S.OVER:
            seat = int(s[S.S_ACTOR])
            if seat == a_seat:
                action = door.decide_without_search(
                    m, s, seat, table["bots"][seat], p, half, rng, ws
                )
            else:
                action = _plain_action(table, m, s, seat, rng)
            S.apply(m, s, action, p, half)
        seat_scores = state.scores()
        others = (seat_scores.sum() - seat_scores[a_seat]) / (rules.players - 1)
        edges.append(seat_scores[a_seat] - others)
    return float(np.mean(edges))


def measure(preset: str, deals: int, seed: int) -> dict[str, Any]:
    """The decisions compared and how many differ, as a dict."""
    rules = load_rules(preset)
    engine = engine_rules(rules)
    p, half = engine.params, engine.half_points
    bots, nets = seat_rows([Bot("learned")] * rules.players, rules)
    ws = door.workspace(p, engine.scoring, bots, nets)
    params, _ = load_action_in(shipped_model(rules), preset)
    rng = np.array([1, 2, 3, 4], dtype=np.uint64)
    masks = deal(rules, deals, seed, threads=1).masks
    limit = CHUNK * 80
    xs = np.zeros((limit, encoding_size(rules.players)), dtype=np.float32)
    features = np.zeros((limit * 12, N_ACTION_FEATURES), dtype=np.uint8)
    rows = np.zeros(limit + 1, dtype=np.int64)
    chosen, ruled, margins, deal_of = (np.zeros(limit, dtype=np.int64) for _ in range(4))
    compared = same = 0
    differing: set[int] = set()
    for start in range(0, deals, CHUNK):
        count, used = _play(
            masks[start : start + CHUNK], bots, p, half, rng, ws, xs, features, rows, chosen,
            ruled, margins, deal_of,
        )  # fmt: skip
        plain = _reference_scores(params, xs[:count], features[:used], rows[: count + 1])
        for k in range(count):
            mine = plain[rows[k] : rows[k + 1]]
            best = int(np.argmax(mine))  # the lowest of equal ones, as the bot takes
            gain = 100.0 * (float(mine[best]) - float(mine[ruled[k]]))
            action = best if gain > margins[k] / 100.0 else int(ruled[k])
            same += int(action == chosen[k])
            if action != chosen[k]:
                differing.add(start + int(deal_of[k]))
        compared += count
    # The duplicate match of the two ways: 0 on every deal where no decision differs (both
    # play it alike, whoever sits where); the others played in duplicate.
    table = {
        "rules": rules, "p": p, "half": half, "ws": ws, "bots": bots, "params": params,
        "encoding": encoding_size(rules.players),
    }  # fmt: skip
    per_deal = np.zeros(deals)
    for d in sorted(differing):
        per_deal[d] = _duplicate_edge(table, masks[d])
    mean, _, half_width = mean_interval(per_deal)
    return {
        "rules": preset, "version": __version__, "deals": deals, "seed": seed,
        "bots": "learned at every seat (the shipped model)", "decisions_compared": compared,
        "same_action": same, "same_share": same / compared,
        "deals_with_a_difference": len(differing),
        "duplicate": {
            "edge_per_deal": mean, "interval": [mean - half_width, mean + half_width],
            "deals_not_zero": int((per_deal != 0).sum()),
            "edges_not_zero": [float(e) for e in per_deal[per_deal != 0]],
        },
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="fft-4")
    parser.add_argument("--deals", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = measure(args.rules, args.deals, args.seed)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(
        f"{args.rules}, {args.deals:,} deals of seed {args.seed}, the learned bot at every seat: "
        f"{result['decisions_compared']:,} decisions with more than one legal action compared"
    )
    print(
        f"  the same action as the float32 network evaluated plainly: {result['same_action']:,} "
        f"({result['same_share']:.4%}); deals with any decision different: "
        f"{result['deals_with_a_difference']:,}"
    )
    match = result["duplicate"]
    low, high = match["interval"]
    print(
        f"  duplicate, the table's way (A) against the plain one (B): A − B "
        f"{match['edge_per_deal']:+.4f} a deal (95% interval {low:+.4f} to {high:+.4f}), not 0 "
        f"on {match['deals_not_zero']} deals"
    )


if __name__ == "__main__":
    main()
