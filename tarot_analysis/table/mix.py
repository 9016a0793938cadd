"""A bot's contracts at its own table and against other defenders: the contract mix, side by side.

A table of one bot bids its own contracts and defends against them itself. Whether its big
contracts are the game's or the bots' shows when the same bot takes against stronger
defenders: :func:`contract_mix` plays the same deals twice over, once with ``bot`` at every
seat (its own table), then ``players`` times with ``bot`` at one seat and ``against`` at the
others, the seat rotated as in a duplicate match (:mod:`tarot_analysis.table.duplicate`), so
that ``bot`` holds every hand of every deal once. At the mixed tables only the contracts ``bot``
takes count: its share of each contract, how often each is made, how often it takes, and the
deals passed out.

Beside the two mixes, the make rates paired on the same deal: where ``bot`` took the same
contract from the same seat at its own table and at the mixed one, whether it was made at each,
so the difference is the defence's (and, in five, the partner's), not the hand's. Every
interval treats the deals as the independent units (:func:`tarot_analysis.stats.deal_interval`):
the rotations of one deal share its cards.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from tarot_analysis.engine.scoring import score_outcomes
from tarot_analysis.game.rules import load_rules
from tarot_analysis.stats import deal_interval
from tarot_analysis.table.duplicate import bot_label
from tarot_analysis.table.play import play

__all__ = ["ContractMix", "contract_mix"]

#: The two tables of a mix: the bot's own, and the bot's seat among the others'.
TABLES = ("own", "mixed")


@dataclass(frozen=True)
class ContractMix:
    """The contracts ``bots[0]`` takes at its own table and against ``bots[1]``."""

    rules: str
    bots: tuple[str, str]  # the taker's bot, the bot at the other seats of the mixed tables
    deals: int
    seed: int
    seconds: float
    # One row per table and contract: contracts (how many the bot took), share (of the bot's
    # contracts at that table), made (the share of them made), each with its 95% interval over
    # deals (share_low, share_high, made_low, made_high).
    contracts: pd.DataFrame
    # One row per table: seat_deals (a deal at one seat of the bot), took (the share of them
    # where the bot took), passed (the share of the tables passed out), with their intervals.
    tables: pd.DataFrame
    # One row per contract and one for all: pairs (a deal and seat where the bot took the same
    # contract at both tables), own and mixed (the share made at each), difference (mixed −
    # own) with its interval.
    paired: pd.DataFrame


def contract_mix(
    rules_name: str,
    deals: int,
    bot: Any,
    against: Any,
    *,
    seed: int = 1,
    threads: int | None = None,
) -> ContractMix:
    """The contract mix of ``bot`` at its own table beside the one it takes against
    ``against`` at every other seat, on the same ``deals`` deals from ``seed``."""
    rules = load_rules(rules_name)
    players = rules.players
    started = time.perf_counter()
    own = score_outcomes(*_played(rules, deals, bot, seed, threads))
    own_takers = own["taker"].to_numpy()
    rows = [_rows("own", own, own_takers >= 0)]
    passed = [("own", own_takers < 0, np.arange(deals))]
    took = [("own", np.repeat(own_takers[:, None], players, axis=1) == np.arange(players))]
    pairs = []
    mixed_took = np.zeros((deals, players), dtype=bool)
    for seat in range(players):
        seats = [against] * players
        seats[seat] = bot
        table = score_outcomes(*_played(rules, deals, seats, seed, threads))
        taker = table["taker"].to_numpy()
        mine = taker == seat
        mixed_took[:, seat] = mine
        rows.append(_rows("mixed", table, mine))
        passed.append(("mixed", taker < 0, np.arange(deals)))
        same = mine & (own_takers == seat)
        same &= (own["contract"] == table["contract"]).fillna(False).to_numpy(dtype=bool)
        pairs.append(
            pd.DataFrame({
                "deal": np.flatnonzero(same),
                "contract": table["contract"].to_numpy()[same],
                "own": _made(own)[same],
                "mixed": _made(table)[same],
            })
        )  # fmt: skip
    took.append(("mixed", mixed_took))
    return ContractMix(
        rules=rules.name,
        bots=(bot_label(bot), bot_label(against)),
        deals=deals,
        seed=seed,
        seconds=time.perf_counter() - started,
        contracts=_contracts(pd.concat(rows, ignore_index=True), [c.name for c in rules.contracts]),
        tables=_tables(passed, took),
        paired=_paired(pd.concat(pairs, ignore_index=True), [c.name for c in rules.contracts]),
    )


def _played(rules: Any, deals: int, bots: Any, seed: int, threads: int | None) -> tuple[Any, ...]:
    result = play(rules, deals, bots=bots, seed=seed, threads=threads)
    return result.outcomes, result.poignees, rules


def _made(table: pd.DataFrame) -> np.ndarray:
    return table["made"].fillna(False).to_numpy(dtype=np.float64)


def _rows(name: str, table: pd.DataFrame, taken: np.ndarray) -> pd.DataFrame:
    """The contracts the bot took at one table: its deal, contract and whether it was made."""
    return pd.DataFrame({
        "table": name,
        "deal": np.flatnonzero(taken),
        "contract": table["contract"].to_numpy()[taken],
        "made": _made(table)[taken],
    })  # fmt: skip


def _rate(values: np.ndarray, deals: np.ndarray) -> dict[str, Any]:
    """A rate's :func:`~tarot_analysis.stats.deal_interval`, its interval kept within [0, 1]
    (a rate of a few contracts has one as wide as that)."""
    if len(values) == 0:
        return {}
    rate = deal_interval(values.astype(np.float64), deals)
    for end in ("ci_low", "ci_high"):
        if rate[end] is not None:
            rate[end] = min(max(rate[end], 0.0), 1.0)
    return rate


def _contracts(rows: pd.DataFrame, names: list[str]) -> pd.DataFrame:
    out = []
    for name in TABLES:
        mine = rows[rows["table"] == name]
        deal = mine["deal"].to_numpy()
        for contract in names:
            this = (mine["contract"] == contract).to_numpy()
            share = _rate(this, deal)
            made = _rate(mine["made"].to_numpy()[this], deal[this])
            out.append({
                "table": name, "contract": contract, "contracts": int(this.sum()),
                "share": share.get("mean"), "share_low": share.get("ci_low"),
                "share_high": share.get("ci_high"), "made": made.get("mean"),
                "made_low": made.get("ci_low"), "made_high": made.get("ci_high"),
            })  # fmt: skip
    return pd.DataFrame(out)


def _tables(passed: list[tuple[str, np.ndarray, np.ndarray]], took: list[Any]) -> pd.DataFrame:
    out = []
    for name in TABLES:
        flags = np.concatenate([p for t, p, _ in passed if t == name]).astype(np.float64)
        deals = np.concatenate([d for t, _, d in passed if t == name])
        seat_deals = next(t for n, t in took if n == name)
        deal = np.repeat(np.arange(seat_deals.shape[0]), seat_deals.shape[1])
        out_passed = _rate(flags, deals)
        out_took = _rate(seat_deals.ravel(), deal)
        out.append({
            "table": name, "seat_deals": seat_deals.size, "took": out_took["mean"],
            "took_low": out_took["ci_low"], "took_high": out_took["ci_high"],
            "passed": out_passed["mean"], "passed_low": out_passed["ci_low"],
            "passed_high": out_passed["ci_high"],
        })  # fmt: skip
    return pd.DataFrame(out)


def _paired(pairs: pd.DataFrame, names: list[str]) -> pd.DataFrame:
    out = []
    for contract in [*names, "all"]:
        rows = pairs if contract == "all" else pairs[pairs["contract"] == contract]
        if rows.empty:
            continue
        deal = rows["deal"].to_numpy()
        difference = deal_interval((rows["mixed"] - rows["own"]).to_numpy(), deal)
        out.append({
            "contract": contract, "pairs": len(rows), "deals": difference["deals"],
            "own": float(rows["own"].mean()), "mixed": float(rows["mixed"].mean()),
            "difference": difference["mean"], "low": difference["ci_low"],
            "high": difference["ci_high"],
        })  # fmt: skip
    return pd.DataFrame(out)
