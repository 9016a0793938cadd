"""Does a loss the review claims come true? Claimed beside realised, on the actual deals.

    python benchmarks/review_realised.py [--rules fft-4] [--seed 1] [--deals 200] \\
        [--bots heuristic] [--worlds 128] [--play-outs heuristic] [--min-loss 5] [--limit 300] \\
        [--continuation pimc] [--repeats 2] [--fresh] [--threads N] [--out FILE.csv] [--json]

The review of many deals (:func:`tarot_analysis.analyses.review.many.review_deals`, its run
folder resumed or made) values each decision of ``--deals`` deals played by ``--bots`` with
the search (``pimc`` over ``--worlds`` worlds a decision, played out by ``--play-outs``) and
claims a loss where the action played is worth less than the best over the worlds the seat
could not tell apart. Here each decision claimed to lose
``--min-loss`` points or more (``--limit`` of them drawn at random, seeded by ``--seed``) is
played out on the **actual** deal twice, from the same state: once with the action played,
once with the review's best, the rest of the deal played by ``--continuation`` at every seat
from the same seed for both (so the difference is the action's, not the play-outs' luck), and
that ``--repeats`` times from other seeds. The realised gain is the seat's score after the
best less its score after the action played, its mean over the repeats.

With ``--fresh`` each decision is also valued again by the same search on other worlds: a
claim that is only the luck of the worlds the best was picked on does not come back there.

It prints, for every decision and by group (the seat's side, the taker and the defence before
trick 14, whether the best was the Excuse), the decisions and deals, the mean claimed and the
mean realised with 95% intervals in which deals are the independent units
(:func:`tarot_analysis.stats.deal_interval`), and realised ÷ claimed (the ratio of the sums)
with a 95% bootstrap interval over deals. A review a player can act on realises most of what
it claims: the goal is a ratio of at least 0.8 for the taker and the defence.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import numpy as np
import pandas as pd

from tarot_analysis import __version__
from tarot_analysis.analyses.replay import record
from tarot_analysis.analyses.review.many import read_review_run, review_deals, review_folder
from tarot_analysis.analyses.review.record import parse_record
from tarot_analysis.bootstrap import poisson_weights
from tarot_analysis.bots import pimc
from tarot_analysis.game import cards
from tarot_analysis.game.rules import load_rules
from tarot_analysis.stats import deal_interval
from tarot_analysis.table.play import replay
from tarot_analysis.table.play_on import play_on

#: Replicates of the bootstrap of realised ÷ claimed.
REPLICATES = 2000
#: The trick before which a card is "early": from it on the search's worlds are solved double
#: dummy (the last five tricks of ``fft-4``), and the heuristic's late Excuse falls there.
EARLY = 14


def realised(
    rules_name: str, rows: pd.DataFrame, bots: str, seed: int, play_chunk: int,
    continuation: str, repeats: int, fresh: tuple[int, bool] | None = None,
) -> pd.DataFrame:  # fmt: skip
    """``rows`` (decisions of the review run) with ``realised``: the seat's score after the
    best less after the action played, each played out on the actual deal by
    ``continuation`` ``repeats`` times (the two actions from the same seeds), the mean. With
    ``fresh`` (the review's worlds and whether the learned bot played them out), also
    ``fresh``: the best's value less the played action's, the search run again on other
    worlds."""
    rules = load_rules(rules_name)
    out = []
    for deal, group in rows.groupby("deal", sort=True):
        result = replay(rules, int(deal), bots=bots, seed=seed, chunk_size=play_chunk)
        game = parse_record(record(result, deal_number=int(deal)), source=f"deal {deal}")
        states = list(game.states())  # the deal played once, each step with its state
        for row in group.itertuples():
            state, step = states[row.step]
            if step.seat != row.seat or step.action != row.played_action:
                raise RuntimeError(f"deal {deal}, step {row.step}: the replay is not the review's")
            gains = []
            for repeat in range(repeats):
                seed_of = np.random.SeedSequence(seed, spawn_key=(int(deal), int(row.step), repeat))
                scores = []
                for action in (int(row.best_action), int(row.played_action)):
                    arm = state.copy()
                    arm.apply(action)
                    scores.append(
                        float(play_on(arm, continuation, seed=seed_of).scores()[row.seat])
                    )
                gains.append(scores[0] - scores[1])
            found = {**row._asdict(), "realised": float(np.mean(gains))}
            if fresh is not None:
                other = np.random.SeedSequence(seed, spawn_key=(int(deal), int(row.step), 99))
                values = pimc.values_at(state, worlds=fresh[0], seed=other, learned=fresh[1])
                found["fresh"] = values.mean(int(row.best_action)) - values.mean(
                    int(row.played_action)
                )
            out.append(found)
    return pd.DataFrame(out).drop(columns="Index")


def _ratio_interval(frame: pd.DataFrame, seed: int) -> tuple[float, float, float]:
    """Realised ÷ claimed (the ratio of the sums) and its 95% bootstrap interval over deals."""
    by_deal = frame.groupby("deal")[["realised", "loss"]].sum()
    weights = poisson_weights(seed, by_deal.index.to_numpy(), REPLICATES).astype(np.float64)
    claimed = weights @ by_deal["loss"].to_numpy()
    got = weights @ by_deal["realised"].to_numpy()
    ratios = got[claimed > 0] / claimed[claimed > 0]
    low, high = np.percentile(ratios, [2.5, 97.5])
    return float(by_deal["realised"].sum() / by_deal["loss"].sum()), float(low), float(high)


def groups(frame: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The decisions by the groups the table shows."""
    early = frame["trick"].fillna(0).astype(int) < EARLY
    excuse = frame["best"] == cards.card_name(cards.EXCUSE)
    return {
        "all": frame,
        "taker": frame[frame["side"] == "taker"],
        "partner": frame[frame["side"] == "partner"],
        "defence": frame[frame["side"] == "defence"],
        f"taker, before trick {EARLY}": frame[(frame["side"] == "taker") & early],
        f"defence, before trick {EARLY}": frame[(frame["side"] == "defence") & early],
        f"from trick {EARLY}, the solver's": frame[~early & frame["trick"].notna()],
        "best the Excuse": frame[excuse],
        "best another action": frame[~excuse],
    }


def summary(frame: pd.DataFrame, seed: int) -> list[dict[str, Any]]:
    """One row a group: decisions, deals, claimed, realised and their ratio with intervals."""
    rows = []
    for name, group in groups(frame).items():
        if group.empty:
            continue
        deals = group["deal"].to_numpy()
        claimed = deal_interval(group["loss"].to_numpy(), deals)
        again = deal_interval(group["fresh"].to_numpy(), deals) if "fresh" in group else None
        got = deal_interval(group["realised"].to_numpy(), deals)
        ratio, low, high = (
            _ratio_interval(group, seed)
            if group["deal"].nunique() > 1
            else (float("nan"), float("nan"), float("nan"))
        )
        rows.append({
            "group": name, "decisions": len(group), "deals": int(group["deal"].nunique()),
            "claimed": claimed["mean"], "claimed_low": claimed["ci_low"],
            "claimed_high": claimed["ci_high"], "realised": got["mean"],
            "realised_low": got["ci_low"], "realised_high": got["ci_high"],
            "ratio": ratio, "ratio_low": low, "ratio_high": high,
            **({} if again is None else {
                "fresh": again["mean"], "fresh_low": again["ci_low"],
                "fresh_high": again["ci_high"]}),
        })  # fmt: skip
    return rows


def _cell(mean: float, low: float | None, high: float | None) -> str:
    if low is None or high is None:
        return f"{mean:+.1f}"
    return f"{mean:+.1f} ({low:+.1f} to {high:+.1f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rules", default="fft-4")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--bots", default="heuristic")
    parser.add_argument("--worlds", type=int, default=128)
    parser.add_argument("--play-outs", choices=("heuristic", "learned"), default="heuristic")
    parser.add_argument("--min-loss", type=float, default=5.0)
    parser.add_argument("--limit", type=int, default=300)
    parser.add_argument("--continuation", default="pimc")
    parser.add_argument("--repeats", type=int, default=2, help="play-outs of each action")
    parser.add_argument(
        "--fresh", action="store_true", help="also value each decision again on other worlds"
    )
    parser.add_argument("--data", default=None, help="the review's run folder")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--out", default=None, help="a CSV file for every decision played out")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    rules = load_rules(args.rules)
    started = time.perf_counter()
    folder = args.data or review_folder(
        rules, (args.bots,) * rules.players, args.seed, args.deals, args.worlds, args.play_outs
    )
    review_deals(
        rules, args.deals, folder, bots=args.bots, worlds=args.worlds, seed=args.seed,
        play_outs=args.play_outs, threads=args.threads, progress=not args.json,
    )  # fmt: skip
    reviewed = time.perf_counter() - started
    run = read_review_run(folder)
    claimed = run.frame[run.frame["loss"] >= args.min_loss]
    if len(claimed) > args.limit:  # a sample spread over every deal, not the first deals'
        chosen = np.random.default_rng(args.seed).choice(len(claimed), args.limit, replace=False)
        claimed = claimed.iloc[np.sort(chosen)]
    started = time.perf_counter()
    frame = realised(args.rules, claimed, args.bots, args.seed,
                     int(run.spec.extra["play_chunk_size"]), args.continuation,
                     args.repeats,
                     (args.worlds, args.play_outs == "learned") if args.fresh else None,
                     )  # fmt: skip
    played = time.perf_counter() - started
    if args.out:
        frame.to_csv(args.out, index=False)
    rows = summary(frame, args.seed)
    facts = {
        "rules": args.rules, "seed": args.seed, "deals": args.deals, "bots": args.bots,
        "searcher": run.spec.extra["searcher"], "min_loss": args.min_loss,
        "decisions_claimed": int((run.frame["loss"] >= args.min_loss).sum()),
        "decisions_valued": len(run.frame), "continuation": args.continuation,
        "repeats": args.repeats,
        "review_seconds": round(reviewed, 1), "play_out_seconds": round(played, 1),
        "folder": str(folder), "version": __version__,
    }  # fmt: skip
    if args.json:
        print(json.dumps({**facts, "groups": rows}, indent=2))
        return
    print(
        f"{args.rules}, {args.deals:,} deals of {args.bots} (seed {args.seed}) reviewed by "
        f"{facts['searcher']}: {facts['decisions_claimed']:,} of {facts['decisions_valued']:,} "
        f"decisions claimed to lose {args.min_loss:g} points or more; {len(frame):,} of them "
        f"(drawn at random) played out both ways on the actual deal by {args.continuation} at "
        f"every seat, {args.repeats} times each ({played:.0f} s; the review {reviewed:.0f} s)"
    )
    print()
    again = " claimed again on other worlds |" if args.fresh else ""
    print(f"| decisions | n | deals | claimed (95%) |{again} realised (95%) | realised ÷ claimed |")
    print("|---|---:|---:|---|---|---|" + ("---|" if args.fresh else ""))
    for r in rows:
        ratio = f"{r['ratio']:.2f} ({r['ratio_low']:.2f} to {r['ratio_high']:.2f})"
        fresh = f" {_cell(r['fresh'], r['fresh_low'], r['fresh_high'])} |" if args.fresh else ""
        print(
            f"| {r['group']} | {r['decisions']:,} | {r['deals']:,} | "
            f"{_cell(r['claimed'], r['claimed_low'], r['claimed_high'])} |{fresh} "
            f"{_cell(r['realised'], r['realised_low'], r['realised_high'])} | {ratio} |"
        )


if __name__ == "__main__":
    main()
