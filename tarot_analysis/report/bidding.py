"""Section "Bidding guidance": the best contract by Chavey count, by range, by bouts and trumps
and by kings, each with its runner-up and ties marked.

Also how every page writes the best contract by Chavey count of
:func:`~tarot_analysis.analyses.guidance.chavey_advice`: count by count (:func:`by_count_cell`,
the summary's line, this section's ranges and the ladder's rows) and by band of the published
thresholds, pooled (:func:`band_cell`), each saying which it is.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Final

import pandas as pd

from tarot_analysis.report.html import (
    Cell,
    Context,
    Section,
    Table,
    best_text,
    chart,
    count,
    difference_text,
    label,
    mean_with_interval,
    percent,
    rate_with_interval,
)
from tarot_analysis.report.runs import Guidance

if TYPE_CHECKING:
    from tarot_analysis.analyses.guidance import ChaveyAdvice
    from tarot_analysis.report.prise import PriseReading

__all__ = [
    "BAND_NOTE",
    "CHART_MIN_DEALS",
    "COUNTERFACTUAL",
    "MAP_MIN_DEALS",
    "RANGE_MIN_DEALS",
    "band_cell",
    "by_count_cell",
    "by_count_parts",
    "by_count_pooled",
    "ranges_table",
    "section",
]

#: Fewest deals at a Chavey count for it to be read on its own deals (thinner counts are pooled
#: with their neighbours: :data:`~tarot_analysis.analyses.guidance.COUNT_MIN_DEALS`).
RANGE_MIN_DEALS: Final = 200
#: What a band's best is, said wherever one is shown.
BAND_NOTE: Final = (
    "By band: the deals of each band of Chavey's published thresholds pooled, the band's best "
    "taken as a whole; it need not be the best at each of its counts (in the band of the Prise, "
    "the pass at the lower counts and the Garde at the higher ones can pool into a Prise). The "
    "best count by count is the line of the summary and the table of section 3. Pooled only: "
    "the band's best is a Prise, though no count bids a Prise alone (the summary says where it "
    "ties)."
)
#: Fewest deals at a score for it to be drawn on the guidance charts.
CHART_MIN_DEALS: Final = 100
#: Fewest deals in a bouts × trumps cell for the map to name its best contract.
MAP_MIN_DEALS: Final = 50
#: The mode of every guidance table.
COUNTERFACTUAL: Final = "counterfactual (seat 0 takes; each deal played under every contract)"


def _tables_by(
    key: str, table: pd.DataFrame, what: str, key_name: str, guidance: Guidance, context: Context
) -> tuple[Table, Table]:
    """Two tables by ``key_name``: each contract's success, and each contract's mean score."""
    contracts = guidance.data.contracts
    played = guidance.data.played_deals
    success_caption = context.caption(
        f"Contracts made by {what}", mode=COUNTERFACTUAL,
        n=f"{played:,} deals played, split by {key_name}",
        interval="success rate with its Wilson 95% interval, in percent",
    )  # fmt: skip
    score_caption = context.caption(
        f"Taker's mean score by {what} (Pass scores 0)", mode=COUNTERFACTUAL,
        n=f"{played:,} deals played, split by {key_name}",
        interval="mean score ± the half-width of its normal 95% interval over deals; the best "
        "less the runner-up, deal by deal on the same deals, with its 95% interval",
    )  # fmt: skip
    header = [key_name, "deals", *(label(name) for name in contracts)]
    stability = "best_changes" in table
    success_rows = []
    score_rows = []
    for value, row in table.iterrows():
        first = [", ".join(map(str, value)) if isinstance(value, tuple) else str(value)]
        first.append(count(row["n"]))
        success_rows.append(
            first
            + [
                rate_with_interval(
                    row[f"{name}_rate"], row[f"{name}_ci_low"], row[f"{name}_ci_high"]
                )
                for name in contracts
            ]
        )
        score_rows.append(
            first
            + [
                mean_with_interval(
                    row[f"{name}_mean_score"], row.get(f"{name}_score_half_width", math.nan)
                )
                for name in contracts
            ]
            + [best_text(row), difference_text(row)]
            + ([percent(row["best_changes"], 0)] if stability else [])
        )
    prise_note = (
        "Prise and Garde are played alike (same dog, same écart): they make on the same deals."
        if {"prise", "garde"} <= set(contracts)
        else ""
    )
    score_header = [*header, "best (≈ tie)", "best − runner-up (95%)"]
    score_note = (
        "A tie (≈) when the interval of the best less the runner-up reaches 0: on these deals "
        "the two cannot be told apart."
    )
    if stability:
        from tarot_analysis.bootstrap import REPLICATES

        score_header.append("best changes")
        score_note += (
            f" Best changes: the share of {REPLICATES} bootstrap replicates of the deals (the "
            "run drawn again) that name another best: near 0, another run of this size would "
            "give the same advice."
        )
    return (
        Table(f"{key}-success", success_caption, header, success_rows, note=prise_note),
        Table(f"{key}-score", score_caption, score_header, score_rows, note=score_note),
    )


def by_count_parts(advice: ChaveyAdvice) -> list[str]:
    """``["3–45: Pass", "46–60: Garde", …]``: the best contract count by count, every count the
    run holds, each range kept whole (no break inside) when printed."""
    return [
        (f"{r['low']}" if r["low"] == r["high"] else f"{r['low']}–{r['high']}")
        + f":\u00a0{label(str(r['best']))}".replace(" ≈ ", "\u00a0≈\u00a0")
        for _, r in advice.by_count.iterrows()
    ]


def by_count_cell(advice: ChaveyAdvice) -> Cell:
    """The best contract count by count as one table cell, wrapping only between ranges."""
    parts = by_count_parts(advice)
    return Cell("; ".join(parts), parts=tuple(parts), separator="; ")


def _spans(pools: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Pools that follow one another joined: ``[(1, 9), (10, 14), (51, 74)]`` → ``[(1, 14),
    (51, 74)]``."""
    spans: list[tuple[int, int]] = []
    for low, high in pools:
        if spans and spans[-1][1] + 1 == low:
            spans[-1] = (spans[-1][0], high)
        else:
            spans.append((low, high))
    return spans


def by_count_pooled(advice: ChaveyAdvice) -> str:
    """Which counts were read in pools, each too thin alone: ``1–14, 51–74`` (or ``none``)."""
    spans = [f"{low}–{high}" for low, high in _spans(advice.pools)]
    return ", ".join(spans) if spans else "none"


def pooled_sentence(advice: ChaveyAdvice) -> str:
    """The counts read in pools said in a few words, or nothing."""
    if not advice.pools:
        return ""
    return (
        f"counts {by_count_pooled(advice)}, each held by fewer than {advice.min_n} deals, read "
        f"with their neighbours in pools of {advice.min_n} or more"
    )


def band_cell(row: pd.Series, reading: PriseReading | None = None) -> Cell:
    """A band's best (pooled) with its lead on the runner-up and its deals: ``Prise over
    Garde: +1.7 (+1.2 to +2.1), 5,000 deals``, each number kept whole when printed; ``pooled
    only`` after them where the run's ``reading`` of the Prise says the band's Prise is not
    one to bid alone (:mod:`~tarot_analysis.report.prise`)."""
    best, runner = label(str(row["best"])), label(str(row["runner_up"]))
    lead = difference_text(row)
    tie = " (a tie)" if bool(row["tie"]) else ""
    parts: tuple[str, ...] = (f"{best} over {runner}:", f"{lead}{tie},", f"{count(row['n'])} deals")
    suffix = reading.band_suffix(str(row.name)) if reading is not None else ""
    if suffix:
        parts = (*parts[:-1], f"{parts[-1]},", suffix)
    return Cell(" ".join(parts), parts=parts)


def ranges_table(advice: ChaveyAdvice, context: Context) -> Table:
    """The best contract by range of Chavey count, each range's mean score with its interval."""
    ranges = advice.by_count
    pooled = pooled_sentence(advice) or f"every count held by {advice.min_n} deals or more"
    caption = context.caption(
        "Best contract by range of Chavey count, count by count", mode=COUNTERFACTUAL,
        n=f"{int(ranges['n'].sum()) if len(ranges) else 0:,} deals, every count held; {pooled}",
        interval="mean score of each count's best over the range's deals ± the half-width of "
        "its 95% interval; A ≈ B: tied, the interval of their paired difference reaches 0",
    )  # fmt: skip
    rows = [
        [
            f"{row['low']}" if row["low"] == row["high"] else f"{row['low']}–{row['high']}",
            label(str(row["best"])),
            count(row["n"]),
            mean_with_interval(row["mean_best_score"], row["half_width"]),
        ]
        for _, row in ranges.iterrows()
    ]
    header = ["Chavey count", "best contract", "deals", "its mean score (95%)"]
    return Table("best-by-range", caption, header, rows)


def _map_table(guidance: Guidance, context: Context) -> Table:
    """The recommended-contract map as a table: trumps down, bouts across, cells coloured.

    Trumps run down the rows so that the table is as narrow as the bouts are few: it fits a
    printed page whatever the hand size.
    """
    from matplotlib.colors import to_rgb

    from tarot_analysis.report.plots import contract_colour

    table = guidance.tables["by_bouts_trumps"]
    cells = {
        (int(b), int(t)): (int(n), str(best), bool(tie), str(runner))
        for (b, t), n, best, tie, runner in zip(
            table.index, table["n"], table["best"], table["tie"], table["runner_up"], strict=True
        )
    }
    bouts = sorted({b for b, _ in cells})
    trumps = sorted({t for _, t in cells})
    caption = context.caption(
        "Best contract by bouts and trumps (the taker's highest mean score; Pass scores 0)",
        mode=COUNTERFACTUAL,
        n=f"{guidance.data.played_deals:,} deals played; each cell gives its deals",
        interval=f"best of the mean scores, tied with the runner-up when the 95% interval of "
        f"their paired difference reaches 0; cells with fewer than {MAP_MIN_DEALS} deals left "
        "blank",
    )  # fmt: skip
    rows: list[list[str | Cell]] = []
    for t in trumps:
        row: list[str | Cell] = [f"{t} trump{'s' if t != 1 else ''}"]
        for b in bouts:
            n, best, tie, runner = cells.get((b, t), (0, "pass", False, "pass"))
            if n < MAP_MIN_DEALS:
                row.append(Cell(f"({n:,})" if n else "", "color:#59636e"))
                continue
            colour = contract_colour(best)
            red, green, blue = to_rgb(colour)
            # Black or white ink, whichever reads better on the contract's colour.
            ink = "black" if 0.299 * red + 0.587 * green + 0.114 * blue > 0.55 else "white"
            name = f"{label(best)} ≈ {label(runner)}" if tie else label(best)
            row.append(Cell(f"{name}\n{n:,}", f"background:{colour};color:{ink}"))
        rows.append(row)
    header = ["trumps \\ bouts", *(f"{b} bout{'s' if b != 1 else ''}" for b in bouts)]
    note = (
        "Each cell: the best contract and its number of deals (in brackets: too few deals); "
        "A ≈ B: a tie, the 95% interval of A less B, deal by deal, reaches 0."
    )
    return Table("recommended-map", caption, header, rows, note=note)


def section(guidance: Guidance, context: Context, advice: ChaveyAdvice) -> Section:
    """The section, the best contract by count read from ``advice`` (the summary's too)."""
    from tarot_analysis.report import plots

    tables = guidance.tables
    by_chavey = tables["by_chavey"]
    played = guidance.data.played_deals
    who = f"{context.rules.name}, {context.bots_text}, counterfactual mode, {played:,} deals"
    charts = [
        chart(
            plots.success_by_score(by_chavey, min_n=CHART_MIN_DEALS), "success-by-chavey",
            "Share of each contract made by Chavey count, with Wilson bands",
            f"Contracts made by Chavey count ({who}); bands are Wilson 95% intervals; counts "
            f"held by fewer than {CHART_MIN_DEALS} deals left out. The Prise is made on the same "
            "deals as the Garde (the same play): its line lies under the Garde's dashed one.",
        ),
        chart(
            plots.expected_score_by_score(by_chavey, min_n=CHART_MIN_DEALS),
            "expected-score-by-chavey",
            "Taker's mean score per contract by Chavey count, best contract shaded",
            f"Taker's mean score by Chavey count ({who}); the band of each count is shaded in "
            "its best contract's colour, hatched where the best is tied with the runner-up. The "
            "axis spans the pass, each count's best and its runner-up: a line that runs below "
            "it (a Garde contre on a weak hand) is far from the best there, and the tables "
            "below give its scores.",
        ),
    ]  # fmt: skip
    map_chart = chart(
        plots.recommended_map(tables["by_bouts_trumps"], min_n=MAP_MIN_DEALS),
        "recommended-map", "Best contract on a grid of bouts and trumps",
        f"Best contract by bouts and trumps ({who}); each cell gives its deals, hatched and "
        f"marked ≈ where the best is tied with the runner-up; cells with fewer than "
        f"{MAP_MIN_DEALS} deals are blank.",
    )  # fmt: skip
    return Section(
        "guidance", "Bidding guidance", "bidding.html.j2",
        {
            "contracts": ", ".join(label(c) for c in guidance.data.contracts),
            "redealt": guidance.data.deals - played, "dealt": guidance.data.deals,
            "by_count": by_count_parts(advice), "pooled": pooled_sentence(advice),
            "charts": charts,
            "by_chavey": _tables_by(
                "guidance-chavey", by_chavey, "Chavey count", "Chavey count", guidance, context
            ),
            "ranges": ranges_table(advice, context),
            "map": (map_chart, _map_table(guidance, context)),
            "by_kings": _tables_by(
                "guidance-kings", tables["by_kings"], "kings held", "kings", guidance, context
            ),
        },
        {
            "guidance-ranges": "Best contract by range of Chavey count",
            "guidance-by-chavey": "Success and expected score by Chavey count",
            "guidance-map": "Recommended contract by bouts and trumps",
            "guidance-kings": "By kings held",
        },
    )  # fmt: skip
