"""Every contract, for the same deals: what a hand would make as Prise, Garde, Garde sans or
Garde contre.

Instead of waiting for the auction to produce each contract, the same deal is played once per
use of the dog with the taker forced: Prise and Garde share their play (the dog is taken and an
écart made) and differ only by the multiplier; Garde sans and Garde contre are each played
once. In 5 and 6 players the call made for the first play is kept for the others, so every
contract of a deal faces the same partner. A number produced this way says ``mode:
counterfactual``; the auction (``tarot_analysis.table.play.play`` without ``forced``) stays
available.

>>> from tarot_analysis.game.rules import load_rules
>>> outcomes = play_every_contract(load_rules("fft-4"), 500, seed=1)
>>> list(outcomes.summary().index)
['prise', 'garde', 'garde_sans', 'garde_contre']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from tarot_analysis.deals.deal import DEFAULT_CHUNK_SIZE
from tarot_analysis.engine.forced import passing
from tarot_analysis.engine.outcome import (
    OUTCOME_COLUMNS,
    REDEAL_ALL_PASSED,
    REDEAL_NONE,
    REDEAL_PETIT_SEC,
)
from tarot_analysis.engine.scoring import score_outcomes
from tarot_analysis.errors import TarotInputError, run_numbers, seat_number
from tarot_analysis.game import cards
from tarot_analysis.game.rules import Rules
from tarot_analysis.stats import normal_quantile, wilson_interval
from tarot_analysis.table.play import Bots, PlayResult, play

__all__ = ["ContractOutcomes", "paired_choice", "play_every_contract", "play_passing"]

_CONTRACT = OUTCOME_COLUMNS.index("contract")
_CALLED = (OUTCOME_COLUMNS.index("called_1"), OUTCOME_COLUMNS.index("called_2"))


@dataclass
class ContractOutcomes:
    """One row per deal and contract: the same deals played under every contract."""

    rules: Rules
    bots: tuple[str, ...]
    seat: int
    deals: int
    frame: pd.DataFrame  # deal, contract, redeal, made, margin, attack_points, taker_score, ...
    metadata: dict[str, Any] = field(default_factory=dict)

    def played(self) -> pd.DataFrame:
        """The rows of deals that were played (a Petit sec voids a deal under every contract)."""
        return self.frame[~self.frame["redeal"]]

    def summary(self, confidence: float = 0.95) -> pd.DataFrame:
        """Per contract: n, made, success rate with its Wilson interval, the taker's mean score
        with a normal interval, and quartiles of the attack's points."""
        z = normal_quantile(confidence)
        rows = []
        for contract in self.rules.contracts:
            chosen = self.played()[self.played()["contract"] == contract.name]
            n = len(chosen)
            made = int(chosen["made"].sum())
            low, high = wilson_interval(made, n, confidence)
            score = chosen["taker_score"].to_numpy(dtype=float)
            mean = float(score.mean()) if n else float("nan")
            half = z * float(score.std(ddof=1)) / np.sqrt(n) if n > 1 else float("nan")
            points = chosen["attack_points"]
            rows.append(
                {
                    "contract": contract.name,
                    "n": n,
                    "made": made,
                    "rate": made / n if n else float("nan"),
                    "ci_low": float(low),
                    "ci_high": float(high),
                    "mean_score": mean,
                    "score_ci_low": mean - half,
                    "score_ci_high": mean + half,
                    "points_q1": float(points.quantile(0.25)) if n else float("nan"),
                    "points_median": float(points.median()) if n else float("nan"),
                    "points_q3": float(points.quantile(0.75)) if n else float("nan"),
                }
            )
        return pd.DataFrame(rows).set_index("contract")

    def recommended(self) -> str:
        """The contract of highest mean score for the taker, or ``pass`` if none beats 0."""
        return str(self.choice()["best"])

    def scores(self) -> pd.DataFrame:
        """The taker's score per played deal (rows) and option (columns): ``pass`` (0), then
        every contract."""
        played = self.played()
        table = played.pivot(index="deal", columns="contract", values="taker_score")
        table = table[[c.name for c in self.rules.contracts]].astype(float)
        table.insert(0, "pass", 0.0)
        return table

    def choice(self, confidence: float = 0.95) -> dict[str, Any]:
        """The best option (highest mean score, ``pass`` scoring 0; the lower option among equal
        means), the runner-up, and their difference deal by deal on the same deals with its
        normal interval; ``tie`` when that interval reaches 0."""
        return paired_choice(self.scores(), confidence)


def paired_choice(scores: pd.DataFrame, confidence: float = 0.95) -> dict[str, Any]:
    """The best column of ``scores`` (one row per deal) by mean, the runner-up, and their
    paired difference: ``{"best", "runner_up", "difference", "ci_low", "ci_high", "tie", "n"}``.

    >>> table = pd.DataFrame({"pass": [0.0] * 4, "prise": [30.0, -30.0, 40.0, 30.0]})
    >>> choice = paired_choice(table)
    >>> choice["best"], choice["runner_up"], choice["difference"], choice["tie"]
    ('prise', 'pass', 17.5, True)
    """
    from scipy.stats import norm

    means = scores.mean(axis=0).to_numpy()
    order = np.argsort(-means, kind="stable")
    best, runner = scores.columns[order[0]], scores.columns[order[1]]
    differences = (scores[best] - scores[runner]).to_numpy(dtype=float)
    n = len(differences)
    mean = float(differences.mean()) if n else float("nan")
    z = float(norm.ppf(0.5 + confidence / 2))
    half = z * float(differences.std(ddof=1)) / np.sqrt(n) if n > 1 else float("nan")
    return {
        "best": str(best),
        "runner_up": str(runner),
        "difference": mean,
        "ci_low": mean - half,
        "ci_high": mean + half,
        "tie": not mean - half > 0,
        "n": n,
    }


def play_passing(
    rules: Rules,
    deals: int,
    *,
    seat: int = 0,
    bots: Bots = "random",
    seed: int | np.random.SeedSequence | None = None,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    threads: int | None = None,
    client: Any = None,
) -> pd.DataFrame:
    """The same deals as :func:`play_every_contract` (same seed and chunking), with ``seat``
    made to pass and the auction going on with the bots: what passing is worth to ``seat``.

    One row per deal: ``redeal_reason`` (``""``, ``"petit_sec"`` or ``"all_passed"``: a redeal
    scores 0), ``taker`` (−1 when redealt), ``contract`` (its index, −1 when redealt), and
    ``seat_score``, ``seat``'s score on the deal (as a defender, or a partner called).
    """
    deals, chunk_size, threads = run_numbers(deals, chunk_size, threads)
    seat = seat_number(seat, rules.players)
    forced = np.full((deals, 4), -1, dtype=np.int64)
    forced[:, 0] = passing(seat)
    result = play(
        rules, deals, bots=bots, seed=seed, forced=forced, chunk_size=chunk_size,
        threads=threads, client=client,
    )  # fmt: skip
    raw = result.raw()
    scores = score_outcomes(result.outcomes, result.poignees, rules)
    reasons = {REDEAL_NONE: "", REDEAL_PETIT_SEC: "petit_sec", REDEAL_ALL_PASSED: "all_passed"}
    redealt = raw["redeal"].to_numpy() != REDEAL_NONE
    return pd.DataFrame(
        {
            "deal": np.arange(deals),
            "redeal_reason": raw["redeal"].map(reasons).to_numpy(),
            "taker": np.where(redealt, -1, raw["taker"].to_numpy()),
            "contract": np.where(redealt, -1, raw["contract"].to_numpy()),
            "seat_score": scores[f"score_{seat}"].to_numpy(dtype=float),
        }
    )


def _dog_groups(rules: Rules) -> list[list[int]]:
    """Contracts that share their play: the same use of the dog, lowest contract first."""
    groups: dict[str, list[int]] = {}
    for index, contract in enumerate(rules.contracts):
        groups.setdefault(contract.dog, []).append(index)
    return list(groups.values())


def play_every_contract(
    rules: Rules,
    deals: int,
    *,
    seat: int = 0,
    bots: Bots = "random",
    seed: int | np.random.SeedSequence | None = None,
    hand: cards.Hand | str | None = None,
    call: Sequence[int] | None = None,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    threads: int | None = None,
    client: Any = None,
) -> ContractOutcomes:
    """Play ``deals`` deals with ``seat`` taking, once per use of the dog, and score every
    contract. ``hand`` fixes the taker's cards (the rest is dealt around it); ``call`` forces
    the called card(s) (card ids), else the taker's bot calls in the first play and that call is
    kept for the others. ``client``: a Dask client whose workers play the chunks."""
    if not rules.contracts:
        raise TarotInputError(f"{rules.name} has no contracts to compare")
    deals, chunk_size, threads = run_numbers(deals, chunk_size, threads)
    seat = seat_number(seat, rules.players)
    forced = np.full((deals, 4), -1, dtype=np.int64)
    forced[:, 0] = seat
    if call is not None:
        forced[:, 2 : 2 + len(call)] = list(call)
    frames = []
    last: PlayResult | None = None
    for group in _dog_groups(rules):
        forced[:, 1] = group[-1]  # the highest contract of the group is the one played
        last = play(
            rules, deals, bots=bots, seed=seed, forced=forced, chunk_size=chunk_size,
            threads=threads, hand=hand, seat=seat, client=client,
        )  # fmt: skip
        if call is None and rules.call != "none":
            for k, column in enumerate(_CALLED):
                forced[:, 2 + k] = last.outcomes[:, column]
        for contract in group:
            outcomes = last.outcomes.copy()
            outcomes[:, _CONTRACT] = np.where(outcomes[:, 0] == 0, contract, -1)
            scores = score_outcomes(outcomes, last.poignees, rules)
            taker = np.clip(scores["taker"].to_numpy(), 0, None)
            seat_scores = scores[[f"score_{s}" for s in range(rules.players)]].to_numpy()
            part = pd.DataFrame(
                {
                    "deal": np.arange(deals),
                    "contract": rules.contracts[contract].name,
                    "redeal": scores["redeal"].to_numpy(),
                    "made": scores["made"].to_numpy(dtype=object),
                    "margin": scores["margin"].to_numpy(),
                    "attack_points": scores["attack_points"].to_numpy(),
                    "attack_bouts": scores["attack_bouts"].to_numpy(),
                    "taker_score": seat_scores[np.arange(deals), taker],
                    "per_defender": scores["per_defender"].to_numpy(),
                    "alone": scores["alone"].to_numpy(dtype=object),
                    "called_1": last.outcomes[:, _CALLED[0]],
                    "called_2": last.outcomes[:, _CALLED[1]],
                }
            )
            frames.append(part)
    assert last is not None
    frame = pd.concat(frames, ignore_index=True)
    order = {c.name: i for i, c in enumerate(rules.contracts)}
    frame = frame.sort_values(
        ["deal", "contract"], key=lambda s: s.map(order) if s.name == "contract" else s
    )
    frame = frame.reset_index(drop=True)
    frame["made"] = frame["made"].astype("boolean")
    metadata = last.metadata | {
        "mode": "counterfactual",
        "seat": seat,
        "hand": str(hand) if hand else None,
    }
    return ContractOutcomes(
        rules=rules, bots=last.bots, seat=seat, deals=deals, frame=frame, metadata=metadata
    )
