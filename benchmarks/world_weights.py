"""How well do worlds weighed by what the play revealed place the hidden cards?

    python benchmarks/world_weights.py [--rules fft-4] [--bots heuristic] [--fit-deals 200] \\
        [--fit-seed 2] [--deals 200] [--seed 1] [--worlds 64] [--tricks 3 6 9 12 15] [--json]

The search draws its worlds alike: every deal of the hidden cards that fits what the seat saw
(and the auction) as likely as another. :mod:`tarot_analysis.bots.weighing` weighs each by the
probability of the cards the other seats played, under the learned network's softmax at a
temperature. This measures both ways of placing the cards, on deals played by ``--bots``:

1. **The temperature**, fitted on the card decisions of ``--fit-deals`` deals of
   ``--fit-seed`` (those with more than one legal card, every seat): the one whose softmax of
   the network's scores gives the cards played the highest likelihood; beside it the
   log-loss of the cards played under it and under a uniform choice among the legal cards.
2. **The placement**, on ``--deals`` other deals (``--seed``): at the second card of each
   trick of ``--tricks``, the seat to play draws ``--worlds`` worlds as the search draws them
   (:func:`~tarot_analysis.bots.weighing.weighed_worlds`). For each card whose place differs
   between its worlds, the share of the worlds (alike, or weighed) that put it where it truly
   is; its log-loss (the logarithm of that share, mixed with 1% of a choice among the places
   the worlds put it, so that a share of 0 is not infinite); and the effective number of
   worlds the weights leave (the square of their sum over the sum of their squares).

Each difference (weighed less alike) comes with a 95% interval in which deals are the
independent units (:func:`tarot_analysis.stats.deal_interval`). Lower log-loss is better.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import numpy as np

from tarot_analysis import __version__
from tarot_analysis.analyses.replay import record
from tarot_analysis.analyses.review.record import parse_record
from tarot_analysis.bots.weighing import ROWS, Scorer, fit_temperature, log_loss, weighed_worlds
from tarot_analysis.engine import state as S
from tarot_analysis.engine.cardsets import N_SUIT_CARDS
from tarot_analysis.engine.game import GameState
from tarot_analysis.game.rules import load_rules
from tarot_analysis.stats import deal_interval
from tarot_analysis.table.play import play

#: The share of a card's log-loss given to a choice among the places the worlds put it.
MIX = 0.01


def _records(rules_name: str, deals: int, bots: str, seed: int) -> list[Any]:
    """The deals of ``play`` that someone took, as records."""
    rules = load_rules(rules_name)
    result = play(rules, deals, bots=bots, seed=seed, keep_tricks=True, threads=1)
    found = []
    for row in range(deals):
        data = record(result, row, deal_number=row)
        if not data["redeal"] and data.get("tricks"):
            found.append(parse_record(data, source=f"deal {row}"))
    return found


def fitted(rules_name: str, deals: int, bots: str, seed: int) -> dict[str, Any]:
    """The temperature fitted on the card decisions of the deals, with the log-losses."""
    games = _records(rules_name, deals, bots, seed)
    scorer: Scorer | None = None
    scores, taken = [], []
    for game in games:
        for state, step in game.states():
            if step.kind != "card":
                continue
            scorer = scorer or Scorer(state)
            legal, values = scorer.scores(state)
            if len(values) > 1:
                scores.append(values)
                taken.append(int(np.flatnonzero(legal == step.action)[0]))
    temperature = fit_temperature(scores, taken)
    uniform = float(np.mean([np.log(len(row)) for row in scores]))
    best = float(np.mean([np.argmax(row) == k for row, k in zip(scores, taken, strict=True)]))
    return {
        "temperature": temperature, "decisions": len(scores), "deals": len(games),
        "log_loss": log_loss(scores, taken, temperature), "log_loss_uniform": uniform,
        "played_best_share": best,
    }  # fmt: skip


def _place(rows: np.ndarray, card: int, players: int) -> int:
    """The row holding ``card`` (a seat's hand first, then the écart, then the dog)."""
    word, bit = (0, card) if card < N_SUIT_CARDS else (1, card - N_SUIT_CARDS)
    for row in [*range(players), S.MAX_SEATS + 1, S.MAX_SEATS]:
        if int(rows[row, word]) >> bit & 1:
            return row
    return -1


def _truth(state: GameState) -> np.ndarray:
    """The true cards of the rows of a world (:data:`ROWS`): the hands now, the dog, the écart."""
    rows = np.zeros((ROWS, 2), dtype=np.uint64)
    for seat in range(state.rules.players):
        rows[seat] = state.m[S.M_HANDS + 2 * seat : S.M_HANDS + 2 * seat + 2]
    rows[S.MAX_SEATS] = state.m[S.M_DOG : S.M_DOG + 2]
    rows[S.MAX_SEATS + 1] = state.m[S.M_ECART : S.M_ECART + 2]
    return rows


def placed(
    rules_name: str, deals: int, bots: str, seed: int, worlds: int, tricks: list[int],
    temperature: float,
) -> list[dict[str, Any]]:  # fmt: skip
    """One row per hidden card at each point measured: its deal, trick, and for the worlds
    alike and weighed the share on its true place and the log-loss; and the point's effective
    number of worlds."""
    rows = []
    for game in _records(rules_name, deals, bots, seed):
        number = int(game.source.split()[-1])
        for state, step in game.states():
            if step.kind != "card" or step.place != 1 or step.trick not in tricks:
                continue
            me = state.actor
            cards, ll = weighed_worlds(
                state, me, worlds, temperature=temperature, seed=np.random.SeedSequence(
                    seed, spawn_key=(number, step.trick))
            )  # fmt: skip
            if len(ll) < 2:
                continue
            weights = np.exp(ll - ll.max())
            weights /= weights.sum()
            effective = 1.0 / float((weights**2).sum())
            players = state.rules.players
            truth = _truth(state)
            for card in range(78):
                true_place = _place(truth, card, players)
                if true_place == me or true_place < 0:
                    continue
                places = np.array([_place(world, card, players) for world in cards])
                seen = np.unique(places)
                if len(seen) < 2:
                    continue  # every world puts it in the same place: nothing to weigh
                hit = places == true_place
                alike, weighed = float(hit.mean()), float(weights[hit].sum())
                floor = MIX / len(seen)
                rows.append({
                    "deal": number, "trick": step.trick, "card": card,
                    "alike": alike, "weighed": weighed,
                    "loss_alike": -np.log((1 - MIX) * alike + floor),
                    "loss_weighed": -np.log((1 - MIX) * weighed + floor),
                    "effective": effective,
                })  # fmt: skip
    return rows


def _summary(rows: list[dict[str, Any]], tricks: list[int]) -> list[dict[str, Any]]:
    out = []
    for trick in [None, *tricks]:
        part = [r for r in rows if trick is None or r["trick"] == trick]
        if not part:
            continue
        deals = np.array([r["deal"] for r in part])
        col = {k: np.array([r[k] for r in part], dtype=np.float64) for k in part[0]}
        diff = deal_interval(col["loss_weighed"] - col["loss_alike"], deals)
        share = deal_interval(col["weighed"] - col["alike"], deals)
        out.append({
            "trick": "all" if trick is None else trick, "cards": len(part),
            "deals": len(np.unique(deals)),
            "loss_alike": float(col["loss_alike"].mean()),
            "loss_weighed": float(col["loss_weighed"].mean()),
            "loss_difference": diff["mean"], "loss_low": diff["ci_low"],
            "loss_high": diff["ci_high"], "share_alike": float(col["alike"].mean()),
            "share_weighed": float(col["weighed"].mean()),
            "share_difference": share["mean"], "share_low": share["ci_low"],
            "share_high": share["ci_high"], "effective_worlds": float(col["effective"].mean()),
        })  # fmt: skip
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rules", default="fft-4")
    parser.add_argument("--bots", default="heuristic")
    parser.add_argument("--fit-deals", type=int, default=200)
    parser.add_argument("--fit-seed", type=int, default=2)
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--worlds", type=int, default=64)
    parser.add_argument("--tricks", type=int, nargs="+", default=[3, 6, 9, 12, 15])
    parser.add_argument("--temperature", type=float, default=None, help="instead of fitting it")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    started = time.perf_counter()
    fit = (
        fitted(args.rules, args.fit_deals, args.bots, args.fit_seed)
        if args.temperature is None
        else {"temperature": args.temperature}
    )
    rows = placed(args.rules, args.deals, args.bots, args.seed, args.worlds, args.tricks,
                  fit["temperature"])  # fmt: skip
    table = _summary(rows, args.tricks)
    facts = {
        "rules": args.rules, "bots": args.bots, "fit_seed": args.fit_seed, "seed": args.seed,
        "deals": args.deals, "worlds": args.worlds, "fit": fit,
        "seconds": round(time.perf_counter() - started, 1), "version": __version__,
    }  # fmt: skip
    if args.json:
        print(json.dumps({**facts, "by_trick": table}, indent=2))
        return
    print(json.dumps(facts))
    print()
    print(
        "| trick | cards | deals | log-loss alike | weighed | difference (95%) | "
        "share on the true place: alike | weighed | difference (95%) | effective worlds |"
    )
    print("|---|---:|---:|---:|---:|---|---:|---:|---|---:|")
    for r in table:
        print(
            f"| {r['trick']} | {r['cards']:,} | {r['deals']:,} | {r['loss_alike']:.3f} | "
            f"{r['loss_weighed']:.3f} | {r['loss_difference']:+.3f} ({r['loss_low']:+.3f} to "
            f"{r['loss_high']:+.3f}) | {r['share_alike']:.3f} | {r['share_weighed']:.3f} | "
            f"{r['share_difference']:+.3f} ({r['share_low']:+.3f} to {r['share_high']:+.3f}) | "
            f"{r['effective_worlds']:.1f} of {args.worlds} |"
        )


if __name__ == "__main__":
    main()
