"""Duplicate match between two bots: the same deals replayed with the seats rotated.

Every deal is played ``players`` times from the same seed, so with the same cards. In rotation
``r`` bot A sits at seat ``r`` and bot B at every other seat; over the rotations A holds every
hand of the deal once, so the luck of the cards cancels. For each deal::

    difference = mean over r of (A's score at seat r − mean score of the B seats in rotation r)

Deals are the independent units: :func:`duplicate` gives the mean difference over deals, its
standard error and a 95% interval (Student t). A redealt deal (Petit sec, or everyone passed)
scores 0 for every seat. Beside it: A's and B's mean score per seat and deal, how often A took
and how often its contracts were made, and A's edge split by its side (taker, partner,
defender).

The bots' own random draws come from the seed too, so a match is reproducible.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import stats

from tarot_analysis.engine.scoring import score_outcomes
from tarot_analysis.game.rules import load_rules
from tarot_analysis.table.play import play
from tarot_analysis.table.python_bots import bot_name

__all__ = ["DuplicateResult", "bot_label", "duplicate", "mean_interval"]


@dataclass(frozen=True)
class DuplicateResult:
    """A duplicate match summarised: A's mean edge per deal over B, with its interval."""

    rules: str
    bots: tuple[str, str]
    deals: int
    seed: int
    mean_diff: float  # A's mean score per deal − B's mean score per seat and deal
    std_err: float
    ci_low: float
    ci_high: float
    n: int  # independent units: deals
    a_mean: float  # A's mean score per deal
    b_mean: float  # B's mean score per seat and deal
    a_take_rate: float  # share of A's deals where A was the taker
    a_made_rate: float  # share of A's contracts that were made
    redeal_rate: float  # share of deals redealt, over every rotation
    seconds: float
    # A's edge split by A's side in each rotation, each part less what B itself gets on that
    # side of the same deals: the parts add up to mean_diff, each with its 95% interval over
    # deals ([mean, low, high]).
    by_role: dict[str, list[float]]
    # A's edge on each deal (the mean over the rotations), kept when asked: two matches on the
    # same deals compare deal by deal.
    per_deal: list[float] = field(default_factory=list)


def duplicate(
    rules_name: str,
    deals: int,
    bot_a: Any,
    bot_b: Any,
    *,
    seed: int = 1,
    threads: int | None = None,
    keep_per_deal: bool = False,
) -> DuplicateResult:
    """Play the duplicate match of ``bot_a`` against ``bot_b`` on ``deals`` deals; each a
    compiled bot's name or a bot written in Python (:mod:`tarot_analysis.table.python_bots`)."""
    rules = load_rules(rules_name)
    players = rules.players
    started = time.perf_counter()
    edge = np.zeros((deals, players))
    a_score = np.zeros((deals, players))
    b_score = np.zeros((deals, players))
    took = np.zeros((deals, players), dtype=bool)
    made = np.zeros((deals, players), dtype=bool)
    redeal = np.zeros((deals, players), dtype=bool)
    role = np.zeros((deals, players), dtype=np.int8)
    # The same deals with B at every seat: what each seat's side is worth without A.
    base = _edges(play(rules, deals, bots=bot_b, seed=seed, threads=threads), rules)
    for r in range(players):
        seats = [bot_b] * players
        seats[r] = bot_a
        result = play(rules, deals, bots=seats, seed=seed, threads=threads)
        table = score_outcomes(result.outcomes, result.poignees, rules)
        scores = table[[f"score_{s}" for s in range(players)]].to_numpy(dtype=np.float64, copy=True)
        scores[table["redeal"].to_numpy()] = 0.0
        others = np.delete(scores, r, axis=1).mean(axis=1)
        a_score[:, r] = scores[:, r]
        b_score[:, r] = others
        edge[:, r] = scores[:, r] - others
        took[:, r] = table["taker"].to_numpy() == r
        made[:, r] = took[:, r] & table["made"].fillna(False).to_numpy(dtype=bool)
        redeal[:, r] = table["redeal"].to_numpy()
        partner = np.zeros(deals, dtype=bool)
        for column in ("partner_1", "partner_2"):
            if column in table:
                partner |= table[column].to_numpy() == r
        role[:, r] = np.select([took[:, r], partner, ~redeal[:, r]], [1, 2, 3], 0)
    per_deal = edge.mean(axis=1)
    mean, std_err, half_width = mean_interval(per_deal)
    by_role = {}
    for code, name in ((1, "taker"), (2, "partner"), (3, "defender")):
        part = np.where(role == code, edge - base, 0.0).sum(axis=1) / players
        if (role == code).any():
            m, _, h = mean_interval(part)
            by_role[name] = [m, m - h, m + h]
    return DuplicateResult(
        rules=rules.name,
        bots=(bot_label(bot_a), bot_label(bot_b)),
        deals=deals,
        seed=seed,
        mean_diff=mean,
        std_err=std_err,
        ci_low=mean - half_width,
        ci_high=mean + half_width,
        n=deals,
        a_mean=float(a_score.mean()),
        b_mean=float(b_score.mean()),
        a_take_rate=float(took.mean()),
        a_made_rate=float(made.sum() / max(1, took.sum())),
        redeal_rate=float(redeal.mean()),
        seconds=time.perf_counter() - started,
        by_role=by_role,
        per_deal=per_deal.tolist() if keep_per_deal else [],
    )


def _edges(result: Any, rules: Any) -> np.ndarray:
    """Each seat's score less the mean of the others', by deal (0 for a redeal)."""
    players = rules.players
    table = score_outcomes(result.outcomes, result.poignees, rules)
    scores = table[[f"score_{s}" for s in range(players)]].to_numpy(dtype=np.float64, copy=True)
    scores[table["redeal"].to_numpy()] = 0.0
    return scores - (scores.sum(axis=1, keepdims=True) - scores) / (players - 1)


def mean_interval(values: np.ndarray) -> tuple[float, float, float]:
    """Mean, standard error and half-width of the 95% interval (Student t) over deals."""
    n = len(values)
    mean = float(values.mean())
    if n < 2:
        return mean, float("nan"), float("nan")
    std_err = float(values.std(ddof=1) / np.sqrt(n))
    return mean, std_err, float(stats.t.ppf(0.975, n - 1)) * std_err


def bot_label(bot: Any) -> str:
    """A bot's name as a match records it: a compiled bot's name, or a Python bot's."""
    return bot if isinstance(bot, str) else bot_name(bot)
