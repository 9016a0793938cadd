"""Section "Contracts in auction mode": what the bots bid, and how often it makes."""

from __future__ import annotations

import pandas as pd

from tarot_analysis.report.html import (
    Context,
    Section,
    Table,
    count,
    label,
    mean_with_interval,
    percent,
    percent_interval,
)
from tarot_analysis.report.runs import Stored

__all__ = ["contracts_table", "section"]


def contracts_table(stored: Stored, context: Context) -> Table:
    """Each contract the bots bid: its share of the deals played, success and mean score."""
    table = stored.tables["contracts"]
    played = int(stored.extra["played"])
    caption = context.caption(
        "Contracts bid and made at the table",
        mode="auction (the bots bid in turn; the highest bid is played)",
        n=f"{played:,} deals played of {context.auction_deals:,} dealt",
        interval="Wilson 95% intervals on shares and success, normal 95% on mean scores",
    )
    rows = [
        [
            label(str(name)),
            count(row["n"]),
            percent(row["share"]),
            percent_interval(row["share_ci_low"], row["share_ci_high"]),
            count(row["made"]),
            percent(row["rate"]),
            percent_interval(row["ci_low"], row["ci_high"]),
            mean_with_interval(
                row["mean_taker_score"], (row["score_ci_high"] - row["score_ci_low"]) / 2
            ),
            "—" if pd.isna(row["mean_attack_points"]) else f"{row['mean_attack_points']:.1f}",
        ]
        for name, row in table.iterrows()
    ]
    header = [
        "contract", "deals played", "share", "95% interval", "made", "success",
        "95% interval", "taker's mean score (95%)", "attack's mean points",
    ]  # fmt: skip
    return Table("contracts", caption, header, rows)


def section(stored: Stored, context: Context) -> Section:
    n = context.auction_deals
    smaller = (
        f" The auction is played on the first {n:,} deals of seed {context.seed} (fewer than "
        f"the {context.deals:,} of the other sections: its shares settle sooner)."
        if n < context.deals
        else ""
    )
    return Section(
        "contracts", "Contracts in auction mode", "contracts.html.j2",
        {"contracts": contracts_table(stored, context), "redeals": stored.extra["redeals"],
         "smaller": smaller},
    )  # fmt: skip
