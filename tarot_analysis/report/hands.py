"""Section "Hand statistics": what the deal alone decides, each rate beside its exact value."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import pandas as pd

from tarot_analysis.report.html import (
    Chart,
    Context,
    Section,
    Table,
    chart,
    count,
    probability,
)
from tarot_analysis.report.runs import Stored

__all__ = ["HAND_TITLES", "section"]

#: What each hand table holds, and how its chart's x axis is labelled.
HAND_TITLES: Final[dict[str, tuple[str, str]]] = {
    "bouts": ("Bouts per hand", "Bouts in the hand"),
    "trumps": ("Trumps per hand (Excuse not counted)", "Trumps in the hand"),
    "kings": ("Kings per hand", "Kings in the hand"),
    "voids": ("Voids per hand", "Suits the hand lacks"),
    "singletons": ("Singletons per hand", "Suits held as a single card"),
    "longest_suit": ("Longest suit per hand", "Cards in the longest suit"),
    "points": ("Card points per hand", "Card points in the hand"),
    "dog_bouts": ("Bouts in the dog", "Bouts in the dog"),
}
_NO_BOTS: Final = "none (the deal alone decides it)"
_BESIDE_EXACT: Final = "simulated rate with its Wilson 95% interval, beside the exact value"


def _rate_table(key: str, table: pd.DataFrame, title: str, context: Context) -> Table:
    who = table.attrs.get("who", "hand")
    n = int(table["n"].iloc[0])
    players = context.rules.players
    counted = (
        f"{n:,} dogs (one per deal)"
        if who == "dog"
        else f"{n:,} hands ({n // players:,} deals × {players} seats)"
    )
    caption = context.caption(
        title, bots=_NO_BOTS, mode="deal only", n=counted, interval=_BESIDE_EXACT
    )
    name = str(table.index.name or key)
    rows = [
        [
            f"{value:g}" if isinstance(value, float) else str(value),
            count(row["count"]),
            probability(row["simulated"]),
            f"{probability(row['ci_low'])} – {probability(row['ci_high'])}",
            probability(row["exact"]),
        ]
        for value, row in table.iterrows()
    ]
    header = [name.replace("_", " "), "count", "simulated", "95% Wilson interval", "exact"]
    return Table(key, caption, header, rows)


def _poignee_table(table: pd.DataFrame, context: Context) -> Table:
    deals = context.deals
    caption = context.caption(
        "Poignée: a hand holding at least each level, and a deal where someone does",
        bots=_NO_BOTS, mode="deal only",
        n=f"{deals * context.rules.players:,} hands per hand row, {deals:,} deals per deal row",
        interval=_BESIDE_EXACT,
    )  # fmt: skip
    rows = [
        [
            f"{level} (at least)",
            f"per {row['per']}",
            str(int(row["trumps_with_excuse"])),
            count(row["count"]),
            probability(row["simulated"]),
            f"{probability(row['ci_low'])} – {probability(row['ci_high'])}",
            probability(row["exact"]),
        ]
        for level, row in table.iterrows()
    ]
    header = [
        "poignée", "per", "trumps (Excuse counted)", "count", "simulated",
        "95% Wilson interval", "exact",
    ]  # fmt: skip
    return Table("poignee", caption, header, rows)


def _petit_sec_table(table: pd.DataFrame, context: Context) -> Table:
    deals = context.deals
    caption = context.caption(
        "Petit sec: a hand whose only trump is the Petit (no Excuse), and a deal holding one",
        bots=_NO_BOTS, mode="deal only",
        n=f"{deals * context.rules.players:,} hands, {deals:,} deals", interval=_BESIDE_EXACT,
    )  # fmt: skip
    labels = {"per_hand": "a given hand", "per_deal": "any hand of the deal"}
    rows = [
        [
            labels.get(str(name), str(name)),
            count(row["n"]),
            count(row["count"]),
            probability(row["simulated"]),
            f"{probability(row['ci_low'])} – {probability(row['ci_high'])}",
            probability(row["exact"]),
        ]
        for name, row in table.iterrows()
    ]
    header = ["who holds it", "n", "count", "simulated", "95% Wilson interval", "exact"]
    return Table("petit-sec", caption, header, rows)


def _checks_table(tables: Mapping[str, pd.DataFrame], context: Context) -> Table:
    caption = context.caption(
        "Exact-vs-simulated checks: chi-square goodness of fit of each distribution",
        bots=_NO_BOTS, mode="deal only",
        n=f"{context.deals:,} hands of seat 0 (or dogs), independent from deal to deal",
        interval="p-value of the chi-square test against the exact law",
    )  # fmt: skip
    rows = []
    for name, table in tables.items():
        gof = table.attrs.get("gof")
        if gof is None:
            continue
        who = "the dog" if table.attrs.get("who") == "dog" else "seat 0's hand"
        rows.append(
            [
                HAND_TITLES.get(name, (name, ""))[0],
                who,
                f"{gof.statistic:.2f}",
                str(gof.dof),
                str(gof.pooled_cells),
                f"{gof.p_value:.3g}",
            ]
        )
    note = (
        "Sparse cells are pooled with their neighbours before the test. A p-value is uniform "
        "between 0 and 1 when the dealer is right: among ten tests, one below 0.1 is expected; "
        "a p-value below 0.001, or several below 0.01, would point at the dealer."
    )
    header = ["distribution", "whose", "chi-square", "df", "cells", "p-value"]
    return Table("checks", caption, header, rows, note=note)


def section(stored: Stored, context: Context) -> Section:
    from tarot_analysis.report import plots

    tables = stored.tables
    distributions: list[tuple[str, Table, Chart]] = []
    for key, (title, xlabel) in HAND_TITLES.items():
        if key not in tables:  # the dog's table exists only when the preset has a dog
            continue
        figure = plots.distribution(tables[key], title=title, xlabel=xlabel)
        drawn = chart(
            figure, key, f"{title}: simulated shares with exact values",
            f"{title}, {context.rules.name}, deal only (no bots), {context.deals:,} deals: "
            "simulated (bars, Wilson 95% error bars) and exact (black dashes).",
        )  # fmt: skip
        distributions.append(
            (key.replace("_", "-"), _rate_table(key, tables[key], title, context), drawn)
        )
    poignee = chart(
        plots.poignee_by_preset({context.rules.name: tables["poignee"]}), "poignee",
        "Poignée frequencies per hand and per deal, simulated and exact",
        f"Poignées, {context.rules.name}, deal only, {context.deals:,} deals: simulated rates "
        "(points, Wilson 95% error bars) and exact values (hollow diamonds); a level never seen "
        "shows its interval's upper bound.",
    )  # fmt: skip
    petit_sec = chart(
        plots.petit_sec_by_preset({context.rules.name: tables["petit_sec"]}), "petit-sec",
        "Petit sec per hand and per deal, simulated and exact",
        f"Petit sec, {context.rules.name}, deal only, {context.deals:,} deals: simulated rates "
        "(Wilson 95% error bars) and exact values (hollow diamonds). A deal with a Petit sec is "
        "redealt.",
    )  # fmt: skip
    subsections = {anchor: table.caption.title for anchor, table, _ in distributions}
    subsections |= {
        "poignee": "Poignée",
        "petit-sec": "Petit sec",
        "checks": "Exact-vs-simulated checks",
    }
    return Section(
        "hands", "Hand statistics", "hands.html.j2",
        {
            "distributions": distributions,
            "poignee": (_poignee_table(tables["poignee"], context), poignee),
            "petit_sec": (_petit_sec_table(tables["petit_sec"], context), petit_sec),
            "checks": _checks_table(tables, context),
        },
        subsections,
    )  # fmt: skip
