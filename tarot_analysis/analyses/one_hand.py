"""The analysis of one hand someone held: its chances in every contract, and what to bid.

The rest of the pack is dealt around the hand many times; each deal is played under every
contract (:mod:`tarot_analysis.analyses.counterfactual`) with the given bots, and in 5 and 6 players
under every card the taker could call. What the dog brings is exact (hypergeometric); a dog
given (seen) is told as it is instead. The contracts are played with the hand as dealt, the dog
unknown: the bid is made before the dog is seen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from tarot_analysis.analyses.counterfactual import (
    ContractOutcomes,
    paired_choice,
    play_every_contract,
)
from tarot_analysis.deals import evaluators
from tarot_analysis.deals.deal import DEFAULT_CHUNK_SIZE
from tarot_analysis.deals.odds import dog_content, dog_laws, seen_cards
from tarot_analysis.engine.core import call_candidates, second_call_candidates
from tarot_analysis.errors import TarotInputError, run_numbers
from tarot_analysis.game import cards
from tarot_analysis.game.rules import Rules
from tarot_analysis.stats import Z_95
from tarot_analysis.table.play import Bots

__all__ = ["HandAnalysis", "analyse_hand"]


@dataclass
class HandAnalysis:
    """Everything :func:`analyse_hand` found about one hand."""

    rules: Rules
    hand: cards.Hand
    seat: int
    deals: int
    bots: tuple[str, ...]
    outcomes: ContractOutcomes  # under the best call, in 5 and 6 players
    calls: pd.DataFrame  # per candidate call: the best contract and its mean score
    dog: dict[str, pd.Series]  # exact distributions of what the dog holds; empty when seen
    evaluations: dict[str, int]
    #: The best call against the runner-up, each with its best contract, deal by deal on the
    #: same deals (``None`` without a call).
    call_choice: dict[str, Any] | None = None
    #: The dog given, seen: what it holds (:func:`tarot_analysis.deals.odds.dog_content`).
    dog_brings: dict[str, Any] | None = None

    @property
    def recommended(self) -> str:
        """The contract of highest expected score (``pass`` if none beats passing)."""
        return self.outcomes.recommended()

    @property
    def choice(self) -> dict[str, Any]:
        """The recommended bid, the runner-up and their paired difference with its interval."""
        return self.outcomes.choice()

    @property
    def published_bids(self) -> dict[str, str]:
        """The bid of each published count at its published thresholds (``pass``, ``prise``,
        ``garde``...): Chavey's count (:func:`~tarot_analysis.deals.evaluators.chavey_bid`) and
        the rule of thumb of bouts and trumps; told apart from the bid these deals recommend."""
        ev, size = self.evaluations, self.rules.hand_size
        chavey = evaluators.chavey_bid(ev["chavey"], ev["chavey_with_distribution"], hand_size=size)
        thumb = evaluators.bouts_and_trumps_bid(ev["bouts_and_trumps"], hand_size=size)
        return {
            "chavey": str(evaluators.bid_names(chavey)),
            "bouts_and_trumps": str(evaluators.bid_names(thumb)),
        }

    @property
    def chavey_sum(self) -> str:
        """Chavey's count added up part by part, as a player adds it up
        (:func:`~tarot_analysis.deals.evaluators.chavey_sum`)."""
        return evaluators.chavey_sum(self.hand)

    @property
    def call(self) -> str | None:
        """The card(s) to call (5 and 6 players), in the hand notation: those of the best play."""
        if self.calls.empty:
            return None
        played = self.outcomes.frame.iloc[0]
        called = [int(played[column]) for column in ("called_1", "called_2")]
        return " ".join(cards.card_name(card) for card in called if card >= 0)

    def to_json(self) -> dict[str, Any]:
        """A JSON-able summary."""
        summary = self.outcomes.summary()
        return {
            "hand": str(self.hand),
            "rules": self.rules.name,
            "seat": self.seat,
            "deals": self.deals,
            "bots": list(self.bots),
            "mode": "counterfactual",
            "recommended": self.recommended,
            "choice": self.choice,
            "call": self.call,
            "call_choice": self.call_choice,
            "evaluations": self.evaluations,
            "published_bids": self.published_bids,
            "chavey_sum": self.chavey_sum,
            "contracts": {
                name: {
                    "n": int(row["n"]),
                    "rate": float(row["rate"]),
                    "ci_low": float(row["ci_low"]),
                    "ci_high": float(row["ci_high"]),
                    "mean_score": float(row["mean_score"]),
                    "score_ci_low": float(row["score_ci_low"]),
                    "score_ci_high": float(row["score_ci_high"]),
                    "points_quartiles": [
                        float(row["points_q1"]),
                        float(row["points_median"]),
                        float(row["points_q3"]),
                    ],
                }
                for name, row in summary.iterrows()
            },
            "calls": {
                str(name): {
                    "best_contract": row["best_contract"],
                    "mean_score": row["mean_score"],
                    "score_ci_low": row["score_ci_low"],
                    "score_ci_high": row["score_ci_high"],
                    "rank": int(row["rank"]),
                    "difference": row["difference"],
                    "difference_ci_low": row["difference_ci_low"],
                    "difference_ci_high": row["difference_ci_high"],
                    "tie": bool(row["tie"]),
                }
                for name, row in self.calls.iterrows()
            },
            "dog": {
                name: {str(k): float(v) for k, v in law.items()} for name, law in self.dog.items()
            },
            "dog_brings": self.dog_brings,
        }


def _ranked_calls(calls: pd.DataFrame, by_call: dict[str, pd.Series]) -> pd.DataFrame:
    """The calls, best first, each with its difference from the best call, deal by deal on the
    same deals, its 95% interval, and whether the two are a tie (the interval reaches 0)."""
    ranked = calls.sort_values("mean_score", ascending=False)
    best = by_call[str(ranked.index[0])]
    differences = []
    for name in ranked.index:
        paired = (by_call[str(name)] - best).to_numpy(dtype=float)
        mean = float(paired.mean())
        half = Z_95 * float(paired.std(ddof=1)) / np.sqrt(len(paired)) if len(paired) > 1 else 0.0
        differences.append((mean, mean - half, mean + half))
    ranked["rank"] = np.arange(1, len(ranked) + 1)
    ranked["difference"] = [d[0] for d in differences]
    ranked["difference_ci_low"] = [d[1] for d in differences]
    ranked["difference_ci_high"] = [d[2] for d in differences]
    ranked["tie"] = [
        rank > 1 and d[2] >= 0 for rank, d in zip(ranked["rank"], differences, strict=True)
    ]
    return ranked


def analyse_hand(
    hand: cards.Hand | str,
    rules: Rules,
    *,
    seat: int = 0,
    deals: int = 20_000,
    bots: Bots = "random",
    seed: int | None = 1,
    threads: int | None = None,
    client: Any = None,
    dog: cards.Hand | str | None = None,
) -> HandAnalysis:
    """Deal the rest of the pack around ``hand`` ``deals`` times and play every contract.

    ``client``: a Dask client whose workers play the chunks (the same result as threads).
    ``dog``: the dog's cards, once seen: what it brings is then told as it is, not as a law
    (the contracts are still played on deals whose dog is unknown, as when bidding).
    """
    deals, _, threads = run_numbers(deals, DEFAULT_CHUNK_SIZE, threads)
    held = hand if isinstance(hand, cards.Hand) else cards.Hand.parse(hand, size=rules.hand_size)
    if len(held) != rules.hand_size:
        raise TarotInputError(f"a hand of {rules.hand_size} cards was expected, got {len(held)}")
    seen_dog = None if dog is None else seen_cards(held, dog, rules)[1]
    if rules.tarocco is not None:
        raise TarotInputError(f"{rules.name} has no contracts: there is no bid to advise")
    lo, hi = held.mask
    evaluations = {
        "chavey": int(evaluators.chavey(lo, hi)),
        "chavey_with_distribution": int(evaluators.chavey(lo, hi, with_distribution=True)),
        "bouts_and_trumps": int(evaluators.bouts_and_trumps(lo, hi)),
    }
    rows = []
    best: ContractOutcomes | None = None
    best_score = -np.inf
    by_call: dict[str, pd.Series] = {}  # each call's best contract's score, deal by deal
    if rules.call == "none":
        best = play_every_contract(rules, deals, seat=seat, bots=bots, seed=seed, hand=held,
                                   threads=threads, client=client)  # fmt: skip
    else:
        # The king first (the queen left to the taker's bot), then, with six players, the
        # second call beside the best king.
        # Where a taker holding all four kings may call any suit card (older 5-player rules),
        # the queens are tried: the usual call.
        kings = cards.from_mask(int(call_candidates(np.uint64(lo), 0)), 0)
        steps: list[list[list[int]]] = [[[king] for king in kings]]
        for step in range(2 if rules.call == "king_queen" else 1):
            if step == 1:
                assert best is not None
                king = int(best.frame["called_1"].iloc[0])
                queens = int(second_call_candidates(np.uint64(lo), king))
                steps.append([[king, queen] for queen in cards.from_mask(queens, 0)])
            for call in steps[step]:
                outcomes = play_every_contract(
                    rules, deals, seat=seat, bots=bots, seed=seed, hand=held, call=call,
                    threads=threads, client=client,
                )  # fmt: skip
                summary = outcomes.summary()
                means = summary["mean_score"]
                name = " ".join(cards.card_name(c) for c in call)
                top = str(means.idxmax())
                by_call[name] = outcomes.scores()[top]
                rows.append(
                    {"call": name, "best_contract": top, "mean_score": float(means.max()),
                     "score_ci_low": float(summary["score_ci_low"][top]),
                     "score_ci_high": float(summary["score_ci_high"][top])}
                )  # fmt: skip
                if float(means.max()) > best_score:
                    best, best_score = outcomes, float(means.max())
    assert best is not None
    calls = _ranked_calls(pd.DataFrame(rows).set_index("call"), by_call) if rows else pd.DataFrame()
    # The calls are played on the same deals (one seed): compared deal by deal. With six
    # players, the kings tried first and the queens beside the best king all compete.
    call_choice = paired_choice(pd.DataFrame(by_call)) if len(by_call) > 1 else None
    return HandAnalysis(
        rules=rules, hand=held, seat=seat, deals=deals, bots=best.bots, outcomes=best,
        calls=calls, dog=dog_laws(held, rules) if seen_dog is None else {},
        evaluations=evaluations, call_choice=call_choice,
        dog_brings=None if seen_dog is None else dog_content(seen_dog, rules),
    )  # fmt: skip
