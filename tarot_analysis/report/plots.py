"""Charts of the toolkit's tables: every rate with its interval, every exact value beside it.

Each function takes a table the toolkit already produced (it never deals or plays itself) and
returns a :class:`matplotlib.figure.Figure`:

* :func:`distribution`: a hand distribution of :meth:`HandStats.table
  <tarot_analysis.deals.hand_stats.HandStats.table>` (bouts, trumps, points), simulated bars with
  Wilson error bars and the exact law marked on them;
* :func:`poignee_by_preset`, :func:`petit_sec_by_preset`: those frequencies across presets;
* :func:`success_by_score`, :func:`expected_score_by_score`, :func:`recommended_map`: the
  guidance tables of :func:`tarot_analysis.analyses.guidance.guidance_tables`;
* :func:`taker_points`: the attack's points per contract of
  :func:`tarot_analysis.analyses.counterfactual.play_every_contract`;
* :func:`calibration`: predicted against observed success
  (:func:`tarot_analysis.analyses.guidance.compare_evaluators`);
* :func:`variant_differences`: differences between rule variants with their intervals;
* :func:`rates_side_by_side`: several rates of the same groups side by side (the double-dummy
  bound beside the bots, :func:`tarot_analysis.analyses.dd_bound.bound_rates`).

A contract has the same colour in every chart (:data:`CONTRACT_COLOURS`). Functions that draw a
single panel take ``ax=`` to draw into an existing axes, and then return that axes' figure.

Figures are built without :mod:`matplotlib.pyplot`: they never open a window, need no display
and no closing, and are saved with :func:`save` or embedded in HTML with
:func:`to_base64_png`. In a notebook, show one as a cell's value or with ``display(fig)``.
matplotlib itself is imported when a chart is drawn, so this module imports without it
(``pip install 'tarot-analysis[plots]'``).

>>> from tarot_analysis.deals.hand_stats import run_hands
>>> from tarot_analysis.game.rules import load_rules
>>> stats = run_hands(load_rules("fft-4"), 2_000, seed=1)
>>> fig = distribution(stats.table("bouts"), title="Bouts per hand", xlabel="Bouts in the hand")
>>> fig.axes[0].get_xlabel()
'Bouts in the hand'
"""

from __future__ import annotations

import base64
import io
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import numpy as np
import numpy.typing as npt
import pandas as pd

from tarot_analysis.errors import TarotInputError
from tarot_analysis.runs.files import replacing

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "CONTRACT_COLOURS",
    "CONTRACT_LABELS",
    "EVALUATOR_LABELS",
    "calibration",
    "contract_colour",
    "contract_label",
    "distribution",
    "expected_score_by_score",
    "petit_sec_by_preset",
    "poignee_by_preset",
    "rates_side_by_side",
    "recommended_map",
    "save",
    "seat_values",
    "success_by_score",
    "taker_points",
    "to_base64_png",
    "variant_differences",
]

#: One colour per contract, and one for passing, in every chart (Okabe–Ito colours, told apart
#: by colour-blind readers): blues for the contracts that take the dog, warm colours for those
#: that leave it, deeper as the stake grows.
CONTRACT_COLOURS: Final[dict[str, str]] = {
    "prise": "#56B4E9",
    "garde": "#0072B2",
    "garde_sans": "#E69F00",
    "garde_contre": "#D55E00",
    "pass": "#999999",
}
#: How a contract is written in titles and legends.
CONTRACT_LABELS: Final[dict[str, str]] = {
    "prise": "Prise",
    "garde": "Garde",
    "garde_sans": "Garde sans",
    "garde_contre": "Garde contre",
    "pass": "Pass",
}
# Prise and Garde are played alike (same dog, same écart), so their success curves coincide:
# the Garde is dashed so that the Prise beneath it still shows.
_CONTRACT_LINESTYLES: Final[dict[str, Any]] = {"garde": (0, (5, 3))}
#: How an evaluator's score is written on an axis.
EVALUATOR_LABELS: Final[dict[str, str]] = {
    "chavey": "Chavey count of the hand",
    "chavey_distribution": "Chavey count of the hand, distribution included",
    "bouts_and_trumps": "Bouts-and-trumps score of the hand",
    "kings": "Kings in the hand",
    "fitted": "Fitted model",
}
# Colours of series that are not contracts (presets, evaluators): matplotlib's tab10 less its
# blues and oranges, which stand for contracts.
_SERIES_COLOURS: Final = (
    "#2CA02C",
    "#9467BD",
    "#8C564B",
    "#E377C2",
    "#17BECF",
    "#BCBD22",
    "#7F7F7F",
    "#D62728",
    "#1F77B4",
    "#FF7F0E",
)
_SIMULATED_COLOUR: Final = "#0072B2"
_EXACT_COLOUR: Final = "black"
# Above this ratio between the largest and smallest rate drawn, an automatic axis turns log.
_LOG_SPAN: Final = 100.0
_RATE_COLUMNS: Final = ("n", "count", "simulated", "ci_low", "ci_high", "exact")
_SAVE_FORMATS: Final = (".png", ".svg")
_SIMULATED_LABEL: Final = "Simulated (95% Wilson interval)"
_UNSEEN_LABEL: Final = "None seen: 95% upper bound"


# --- Hand statistics -------------------------------------------------------------------------


def distribution(
    table: pd.DataFrame,
    *,
    title: str,
    xlabel: str,
    ylabel: str | None = None,
    log: bool = False,
    ax: Axes | None = None,
) -> Figure:
    """Bars of a simulated distribution with Wilson error bars, the exact law marked on them.

    ``table`` is a rate table of :meth:`HandStats.table
    <tarot_analysis.deals.hand_stats.HandStats.table>` (``bouts``, ``trumps``, ``half_points``...):
    one row per value, columns ``n, count, simulated, ci_low, ci_high, exact``. When it carries
    its goodness-of-fit test (``attrs["gof"]``) the legend gives its p-value. ``ylabel``
    defaults to "Share of hands" (or "Share of dogs" for a table of the dog).
    """
    _check_columns(table, _RATE_COLUMNS, "distribution")
    from matplotlib.ticker import MaxNLocator, PercentFormatter

    fig, ax = _figure_and_axes(ax, (7.0, 4.0))
    x, ticks = _positions(table.index)
    width = 0.8 * _step(x)
    simulated = table["simulated"].to_numpy(dtype=float)
    ax.bar(
        x, simulated, width, yerr=_errors(table, "simulated"), color=_SIMULATED_COLOUR,
        alpha=0.8, ecolor="#333333", capsize=min(3.0, 60.0 / max(len(x), 1)),
        error_kw={"elinewidth": 1.0}, label=_SIMULATED_LABEL,
    )  # fmt: skip
    exact = table["exact"].to_numpy(dtype=float)
    known = np.isfinite(exact)
    if known.any():
        ax.plot(
            x[known], exact[known], linestyle="none", marker="_", color=_EXACT_COLOUR,
            markersize=_bar_marker_size(ax, len(x)), markeredgewidth=2.0,
            label=_exact_label(table),
        )  # fmt: skip
    if ticks is not None:
        ax.set_xticks(x, labels=ticks)
    elif pd.api.types.is_integer_dtype(table.index):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    if log:
        ax.set_yscale("log")
    else:
        ax.yaxis.set_major_formatter(PercentFormatter(1.0))
        ax.set_ylim(bottom=0.0)
    who = table.attrs.get("who", "hand")
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel if ylabel is not None else f"Share of {who}s")
    ax.legend()
    return fig


def poignee_by_preset(
    tables: Mapping[str, pd.DataFrame],
    *,
    per: str | None = None,
    log: bool | None = None,
    ax: Axes | None = None,
) -> Figure:
    """How often a hand holds at least each poignée, and a deal has one, for several presets.

    ``tables`` maps a preset's name to its :meth:`HandStats.poignee
    <tarot_analysis.deals.hand_stats.HandStats.poignee>` table. One panel per hand and one per deal
    (someone at the table holds it), or only ``per="hand"`` / ``per="deal"`` (the form that can
    be drawn into ``ax``). Points are simulated rates with Wilson error bars, hollow diamonds the
    exact values; a level never seen shows its interval's upper bound as a down triangle on a
    log axis. ``log=None`` turns the axis log when the rates span orders of magnitude.
    """
    if not tables:
        raise TarotInputError("poignee_by_preset needs at least one preset's table")
    for table in tables.values():
        _check_columns(table, ("per", "trumps_with_excuse", *_RATE_COLUMNS), "poignee_by_preset")
    panels = ("hand", "deal") if per is None else (per,)
    if any(which not in ("hand", "deal") for which in panels):
        raise TarotInputError(f"per must be 'hand', 'deal' or None, got {per!r}")
    if ax is not None and len(panels) > 1:
        raise TarotInputError("to draw into one axes, choose per='hand' or per='deal'")
    if ax is None:
        fig = _new_figure((3.2 + 4.6 * len(panels), 4.5))
        axes = list(np.atleast_1d(fig.subplots(1, len(panels))))
        if len(panels) > 1:
            fig.suptitle("Poignées by preset")
    else:
        fig, axes = _root_figure(ax), [ax]
    levels = _levels(tables)
    ylabels = {
        "hand": "Share of hands with at least this poignée",
        "deal": "Share of deals where a player holds it",
    }
    for panel, which in zip(axes, panels, strict=True):
        rows = {
            _poignee_label(name, table): _select(table, table["per"] == which)
            for name, table in tables.items()
        }
        _rates_by_preset(
            panel, rows, levels, [level.capitalize() for level in levels], log=log,
            legend=panel is axes[-1],
        )  # fmt: skip
        panel.set_title(f"Poignées per {which}" if len(panels) == 1 else f"Per {which}")
        panel.set_xlabel("Poignée (at least)")
        panel.set_ylabel(ylabels[which])
    return fig


def petit_sec_by_preset(
    tables: Mapping[str, pd.DataFrame], *, log: bool | None = None, ax: Axes | None = None
) -> Figure:
    """How often a hand holds the Petit sec, and a deal has one (and is redealt), per preset.

    ``tables`` maps a preset's name to its :meth:`HandStats.petit_sec
    <tarot_analysis.deals.hand_stats.HandStats.petit_sec>` table (rows ``per_hand``, ``per_deal``).
    Drawn like :func:`poignee_by_preset`: simulated rates with Wilson error bars, exact values
    as hollow diamonds, a log axis when the rates span orders of magnitude (``log=None``).
    """
    if not tables:
        raise TarotInputError("petit_sec_by_preset needs at least one preset's table")
    for table in tables.values():
        _check_columns(table, _RATE_COLUMNS, "petit_sec_by_preset")
    fig, ax = _figure_and_axes(ax, (7.5, 4.5))
    categories = ["per_hand", "per_deal"]
    _rates_by_preset(ax, tables, categories, ["A given hand", "Any hand of the deal"], log=log)
    ax.set_title("Petit sec by preset")
    ax.set_xlabel("Who holds the Petit sec (a deal with one is redealt)")
    ax.set_ylabel("Share of hands or deals")
    return fig


# --- Bidding guidance ------------------------------------------------------------------------


def success_by_score(
    by_chavey: pd.DataFrame,
    *,
    contracts: Sequence[str] | None = None,
    min_n: int = 100,
    xlabel: str | None = None,
    ax: Axes | None = None,
) -> Figure:
    """Success rate of each contract against a hand's evaluator score, with Wilson bands.

    ``by_chavey`` is a guidance table indexed by an evaluator score (``by_chavey`` of
    :func:`~tarot_analysis.analyses.guidance.guidance_tables`, or any ``table_by`` of one key) with
    ``n`` and ``<contract>_rate / _ci_low / _ci_high`` columns. Scores held by fewer than
    ``min_n`` deals are left out. ``contracts`` defaults to every contract of the table. Prise
    and Garde are played alike, so their curves coincide: the Garde is dashed over the Prise,
    and the legend says so.
    """
    names = _contracts_of(by_chavey, contracts, ("rate", "ci_low", "ci_high"))
    from matplotlib.ticker import PercentFormatter

    fig, ax = _figure_and_axes(ax, (7.0, 4.5))
    table = _enough(by_chavey, min_n, ax)
    x = table.index.to_numpy(dtype=float)
    alike = {"prise", "garde"} <= set(names)
    for name in names:
        colour = contract_colour(name)
        text = contract_label(name)
        if alike and name == "prise":
            text += " (under the Garde: made on the same deals)"
        ax.fill_between(
            x, table[f"{name}_ci_low"].to_numpy(dtype=float),
            table[f"{name}_ci_high"].to_numpy(dtype=float), color=colour, alpha=0.18,
            linewidth=0,
        )  # fmt: skip
        ax.plot(
            x, table[f"{name}_rate"].to_numpy(dtype=float), color=colour, marker="o",
            markersize=3, linestyle=_CONTRACT_LINESTYLES.get(name, "-"), label=text,
        )  # fmt: skip
    ax.set_ylim(0.0, 1.0)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_title(f"Contracts made by {_score_name(by_chavey)}")
    ax.set_xlabel(xlabel if xlabel is not None else _evaluator_label(by_chavey))
    ax.set_ylabel("Share of contracts made")
    ax.legend(title="Contract (95% Wilson band)", loc="upper left")
    return fig


def expected_score_by_score(
    by_chavey: pd.DataFrame,
    *,
    contracts: Sequence[str] | None = None,
    min_n: int = 100,
    xlabel: str | None = None,
    ax: Axes | None = None,
) -> Figure:
    """The taker's mean score per contract against a hand's evaluator score, best one shaded.

    ``by_chavey`` is a guidance table as for :func:`success_by_score`, with
    ``<contract>_mean_score``, ``best`` and ``best_mean_score`` columns. Each score's band is
    shaded in the colour of its best contract (grey where passing, worth 0, is best), and the
    best mean score is starred; a line at zero marks the pass. Where the table has a ``tie``
    column, the bands of counts whose best is tied with the runner-up (the interval of their
    paired difference reaches 0) are hatched.
    """
    names = _contracts_of(by_chavey, contracts, ("mean_score",))
    _check_columns(by_chavey, ("n", "best", "best_mean_score"), "expected_score_by_score")
    from matplotlib.patches import Patch

    fig, ax = _figure_and_axes(ax, (7.0, 4.5))
    table = _enough(by_chavey, min_n, ax)
    x = table.index.to_numpy(dtype=float)
    best = table["best"].astype(str).to_numpy()
    if len(x):
        edges = np.concatenate(
            [[x[0] - _step(x) / 2], (x[1:] + x[:-1]) / 2, [x[-1] + _step(x) / 2]]
        )
        start = 0
        for end in range(1, len(x) + 1):
            if end == len(x) or best[end] != best[start]:
                ax.axvspan(
                    edges[start], edges[end], color=contract_colour(best[start]), alpha=0.13,
                    linewidth=0,
                )  # fmt: skip
                start = end
        tied = table["tie"].to_numpy(dtype=bool) if "tie" in table else np.zeros(len(x), bool)
        for k in np.flatnonzero(tied):
            ax.axvspan(
                edges[k], edges[k + 1], fill=False, hatch="///", edgecolor="#8c959f",
                linewidth=0,
            )  # fmt: skip
    for name in names:
        ax.plot(
            x, table[f"{name}_mean_score"].to_numpy(dtype=float), color=contract_colour(name),
            linestyle=_CONTRACT_LINESTYLES.get(name, "-"), label=contract_label(name),
        )  # fmt: skip
    ax.axhline(0.0, color="black", linewidth=0.9, label="Pass (scores 0)")
    # Where passing is best the shading says so; stars mark the contracts worth taking.
    taken = best != "pass"
    ax.scatter(
        x[taken], table["best_mean_score"].to_numpy(dtype=float)[taken], marker="*", s=70,
        zorder=3, c=[contract_colour(name) for name in best[taken]], edgecolors="black",
        linewidths=0.5, label="Best contract's score",
    )  # fmt: skip
    handles, labels = ax.get_legend_handles_labels()
    for name in dict.fromkeys(best):
        handles.append(Patch(color=contract_colour(name), alpha=0.3))
        labels.append(f"Best: {contract_label(name)}")
    if "tie" in table and table["tie"].any():
        handles.append(Patch(fill=False, hatch="///", edgecolor="#8c959f"))
        labels.append("Tie with the runner-up")
    low, high = _close_range(table)
    if low is not None and high is not None:
        ax.set_ylim(low, high)
        handles.append(Patch(color="none"))
        labels.append("Lines below: cut off\n(far from the best)")
    ax.legend(
        handles, labels, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small"
    )  # fmt: skip
    ax.set_title(f"Taker's mean score by {_score_name(by_chavey)}")
    ax.set_xlabel(xlabel if xlabel is not None else _evaluator_label(by_chavey))
    ax.set_ylabel("Taker's score (mean per deal)")
    return fig


def _close_range(table: pd.DataFrame) -> tuple[float | None, float | None]:
    """The score axis of :func:`expected_score_by_score`: the pass, each count's best and its
    runner-up, with a margin, when some contract's line reaches far beyond them (the Garde
    contre of a weak hand loses ten times what the choice is about); else ``None`` for both."""
    if not len(table) or "difference" not in table:
        return None, None
    best = table["best_mean_score"].to_numpy(dtype=float)
    runner = best - table["difference"].to_numpy(dtype=float)
    close = np.concatenate([[0.0], best, runner])
    close = close[np.isfinite(close)]
    columns = [
        c for c in table.columns if str(c).endswith("_mean_score") and c != "best_mean_score"
    ]
    every = table[columns].to_numpy(dtype=float)
    every = every[np.isfinite(every)]
    low, high = float(close.min()), float(close.max())
    margin = 0.08 * max(high - low, 1.0)
    if not len(every) or (every.min() >= low - margin and every.max() <= high + margin):
        return None, None
    return low - margin, high + margin


def recommended_map(
    by_bouts_trumps: pd.DataFrame,
    *,
    min_n: int = 50,
    annotate: bool = True,
    ax: Axes | None = None,
) -> Figure:
    """The contract of best mean score on a bouts × trumps grid.

    ``by_bouts_trumps`` is the ``by_bouts_trumps`` guidance table: indexed by ``bouts`` and
    ``trumps``, with ``n`` and ``best``. A cell held by fewer than ``min_n`` deals (or none) is
    left blank; with ``annotate`` each coloured cell shows its number of deals. Where the table
    has a ``tie`` column, tied cells (the best and the runner-up within each other's interval)
    are hatched and their count marked ``≈``.
    """
    _check_columns(by_bouts_trumps, ("n", "best"), "recommended_map")
    if by_bouts_trumps.empty:
        raise TarotInputError("recommended_map needs a table with at least one row")
    if list(by_bouts_trumps.index.names) != ["bouts", "trumps"]:
        raise TarotInputError(
            "recommended_map needs a table indexed by (bouts, trumps), got "
            f"{list(by_bouts_trumps.index.names)}"
        )
    from matplotlib.colors import BoundaryNorm, ListedColormap
    from matplotlib.patches import Patch

    fig, ax = _figure_and_axes(ax, (8.0, 3.8))
    # The trumps axis reaches the cells drawn (those of min_n deals or more), not every hand
    # dealt: a hand of 14 trumps, dealt once, would stretch it past the colours.
    drawn = by_bouts_trumps[by_bouts_trumps["n"] >= min_n].index.get_level_values("trumps")
    if len(drawn):
        held = by_bouts_trumps.index.get_level_values("trumps")
        by_bouts_trumps = by_bouts_trumps[(held >= drawn.min()) & (held <= drawn.max())]
    bouts_held = by_bouts_trumps.index.get_level_values("bouts").to_numpy(dtype=np.int64)
    trumps_held = by_bouts_trumps.index.get_level_values("trumps").to_numpy(dtype=np.int64)
    bouts = np.arange(bouts_held.min(), bouts_held.max() + 1)
    trumps = np.arange(trumps_held.min(), trumps_held.max() + 1)
    columns = [str(column) for column in by_bouts_trumps.columns]
    best = by_bouts_trumps["best"].astype(str).to_numpy()
    order = _ordered({*best, *_contract_names(columns)})
    # One cell per (bouts, trumps): NaN is blank, else the best contract's rank in ``order``.
    grid = np.full((len(bouts), len(trumps)), np.nan)
    counts = np.zeros((len(bouts), len(trumps)), dtype=np.int64)
    rows, cols = bouts_held - bouts[0], trumps_held - trumps[0]
    counts[rows, cols] = by_bouts_trumps["n"].to_numpy(dtype=np.int64)
    enough = counts[rows, cols] >= min_n
    grid[rows[enough], cols[enough]] = [order.index(name) for name in best[enough]]
    cmap = ListedColormap([contract_colour(name) for name in order]).with_extremes(bad="white")
    norm = BoundaryNorm(np.arange(len(order) + 1) - 0.5, len(order))
    ax.imshow(
        np.ma.masked_invalid(grid), cmap=cmap, norm=norm, origin="lower", aspect="auto",
        interpolation="nearest",
    )  # fmt: skip
    ax.set_xticks(np.arange(len(trumps)), labels=[str(t) for t in trumps])
    ax.set_yticks(np.arange(len(bouts)), labels=[str(b) for b in bouts])
    # Thin white lines between cells, so that neighbours of one colour still read as cells.
    ax.set_xticks(np.arange(len(trumps) + 1) - 0.5, minor=True)
    ax.set_yticks(np.arange(len(bouts) + 1) - 0.5, minor=True)
    ax.grid(which="minor", color="white", linewidth=1.5)
    ax.tick_params(which="minor", length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    from matplotlib.patches import Rectangle

    tied = np.zeros((len(bouts), len(trumps)), dtype=bool)
    if "tie" in by_bouts_trumps:
        tied[rows, cols] = by_bouts_trumps["tie"].to_numpy(dtype=bool) & enough
    for i, j in zip(*np.nonzero(tied), strict=True):
        ax.add_patch(
            Rectangle(
                (j - 0.5, i - 0.5), 1, 1, fill=False, hatch="///", linewidth=0,
                edgecolor=_text_colour(contract_colour(order[int(grid[i, j])])),
            )
        )  # fmt: skip
    if annotate:
        for i, j in zip(*np.nonzero(np.isfinite(grid)), strict=True):
            mark = "≈" if tied[i, j] else ""
            colour = contract_colour(order[int(grid[i, j])])
            # On a hatched cell the count sits on a patch of the cell's colour, to stay legible.
            box = {"facecolor": colour, "edgecolor": "none", "pad": 1.0} if tied[i, j] else None
            ax.text(
                j, i, f"{mark}{counts[i, j]:,}", ha="center", va="center", fontsize=6.5,
                color=_text_colour(colour), bbox=box,
            )  # fmt: skip
    shown = [order[int(code)] for code in np.unique(grid[np.isfinite(grid)])]
    handles = [Patch(color=contract_colour(name), label=contract_label(name)) for name in shown]
    if tied.any():
        handles.append(Patch(facecolor="white", edgecolor="#59636e", hatch="///", label="Tie (≈)"))
    if np.isnan(grid).any():
        handles.append(
            Patch(facecolor="white", edgecolor="#999999", label=f"Fewer than {min_n:,} deals")
        )
    ax.legend(
        handles=handles, title="Best contract", loc="upper left", bbox_to_anchor=(1.01, 1.0),
        fontsize="small",
    )  # fmt: skip
    ax.set_title("Best contract by bouts and trumps")
    ax.set_xlabel("Trumps in the hand (Excuse not counted)")
    ax.set_ylabel("Bouts in the hand")
    return fig


# --- Played deals ----------------------------------------------------------------------------


def taker_points(
    frame: pd.DataFrame,
    *,
    required: float | Sequence[float] | Mapping[str, float] | None = None,
    contracts: Sequence[str] | None = None,
    bin_width: float = 2.0,
    ax: Axes | None = None,
) -> Figure:
    """Histogram of the card points the attack won, one outline per contract.

    ``frame`` has one row per deal and contract (``ContractOutcomes.frame`` of
    :func:`~tarot_analysis.analyses.counterfactual.play_every_contract`, or the scores of a played
    run) with ``contract`` and ``attack_points``; redealt deals are left out. ``required`` draws the
    points the taker needs as vertical lines: one number, a sequence indexed by the taker's bouts
    (``rules.bouts_required``) or a mapping of label to points. Prise and Garde are played alike, so
    their histograms coincide (the Garde is dashed).
    """
    _check_columns(frame, ("contract", "attack_points"), "taker_points")
    if not (math.isfinite(bin_width) and bin_width > 0):
        raise TarotInputError(f"bin_width must be a positive number of points, got {bin_width}")
    fig, ax = _figure_and_axes(ax, (7.0, 4.2))
    played = frame[~frame["redeal"].astype(bool)] if "redeal" in frame.columns else frame
    present = _ordered(set(played["contract"].astype(str)))
    names = present if contracts is None else list(contracts)
    missing = [name for name in names if name not in present]
    if missing:
        raise TarotInputError(f"no deals played as {missing}; the frame has {present}")
    points = played["attack_points"].to_numpy(dtype=float)
    top = max(91.0, float(np.nanmax(points))) if len(points) else 91.0
    bins = list(np.arange(0.0, top + bin_width, bin_width))
    for name in names:
        chosen = played.loc[played["contract"] == name, "attack_points"].to_numpy(dtype=float)
        ax.hist(
            chosen, bins=bins, weights=np.full(len(chosen), 1.0 / max(len(chosen), 1)),
            histtype="step", linewidth=1.8, color=contract_colour(name),
            linestyle=_CONTRACT_LINESTYLES.get(name, "-"),
            label=f"{contract_label(name)} ({len(chosen):,} deals)",
        )  # fmt: skip
    for (label, value), style in zip(
        _required_lines(required), ["-", "--", "-.", ":"] * 4, strict=False
    ):
        ax.axvline(value, color="black", linewidth=1.0, linestyle=style, label=label)
    from matplotlib.ticker import PercentFormatter

    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_xlim(0.0, top)
    ax.set_title("Points won by the attack, by contract")
    ax.set_xlabel("Card points won by the attack")
    ax.set_ylabel(f"Share of deals (per {bin_width:g}-point bin)")
    ax.legend(fontsize="small")
    return fig


def seat_values(frame: pd.DataFrame, *, ax: Axes | None = None) -> Figure:
    """Each seat's value through a reviewed deal: at each of its decisions (``index``, the
    decision's number), the mean score the search gives the action it took (``value``), one
    line a ``seat``; the decisions marked ``costly`` drawn as crosses."""
    _check_columns(frame, ("index", "seat", "value", "costly"), "seat_values")
    fig, ax = _figure_and_axes(ax, (7.5, 3.6))
    for seat, rows in frame.groupby("seat", sort=True):
        line = ax.plot(
            rows["index"], rows["value"], marker="o", markersize=3, linewidth=1.4,
            label=f"seat {seat}",
        )  # fmt: skip
        costly = rows[rows["costly"].astype(bool)]
        ax.scatter(
            costly["index"], costly["value"], marker="x", s=60, color=line[0].get_color(),
            linewidths=2,
        )  # fmt: skip
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.set_title("Each seat's value through the deal (crosses: the costly decisions)")
    ax.set_xlabel("Decision (its number in the deal)")
    ax.set_ylabel("Mean score of the action taken")
    ax.legend(fontsize="small", ncol=3)
    return fig


# --- Evaluators and variants -----------------------------------------------------------------


def calibration(
    curves: Mapping[str, pd.DataFrame],
    *,
    title: str = "Calibration of predicted success",
    ax: Axes | None = None,
) -> Figure:
    """Predicted chance of making a contract against the observed share, per predictor.

    ``curves`` maps a predictor's name to its calibration table (``calibration`` of
    :func:`~tarot_analysis.analyses.guidance.compare_evaluators`: ``n, predicted, observed, ci_low,
    ci_high`` per bin of predicted probability). Observed shares carry Wilson error bars; the
    diagonal is perfect calibration.
    """
    if not curves:
        raise TarotInputError("calibration needs at least one predictor's table")
    from matplotlib.ticker import PercentFormatter

    fig, ax = _figure_and_axes(ax, (5.5, 5.5))
    ax.plot([0.0, 1.0], [0.0, 1.0], linestyle="--", color="#777777", label="Perfect calibration")
    for k, (name, table) in enumerate(curves.items()):
        _check_columns(table, ("n", "predicted", "observed", "ci_low", "ci_high"), "calibration")
        colour = CONTRACT_COLOURS.get(name, _SERIES_COLOURS[k % len(_SERIES_COLOURS)])
        ax.errorbar(
            table["predicted"].to_numpy(dtype=float), table["observed"].to_numpy(dtype=float),
            yerr=_errors(table, "observed"), fmt="o-", color=colour, markersize=4, capsize=3,
            linewidth=1.2, label=f"{_predictor_label(name)} ({int(table['n'].sum()):,} deals)",
        )  # fmt: skip
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.0)
    ax.set_aspect("equal")
    ax.xaxis.set_major_formatter(PercentFormatter(1.0))
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_title(title)
    ax.set_xlabel("Predicted chance of making the contract")
    ax.set_ylabel("Share of contracts made (95% Wilson interval)")
    ax.legend(loc="upper left", fontsize="small")
    return fig


def variant_differences(
    diffs: pd.DataFrame,
    *,
    title: str = "Differences between rule variants",
    xlabel: str = "Difference (second variant − first)",
    ax: Axes | None = None,
) -> Figure:
    """Horizontal bars of differences between rule variants, with their 95% intervals.

    ``diffs`` has one row per thing compared (its index, which labels the bars) and columns
    ``difference``, ``ci_low`` and ``ci_high``. A bar whose interval leaves out zero is drawn
    in colour, one whose interval holds zero in grey.
    """
    _check_columns(diffs, ("difference", "ci_low", "ci_high"), "variant_differences")
    from matplotlib.patches import Patch

    height = 1.4 + 0.38 * len(diffs)
    fig, ax = _figure_and_axes(ax, (7.0, height))
    y = np.arange(len(diffs))
    low = diffs["ci_low"].to_numpy(dtype=float)
    high = diffs["ci_high"].to_numpy(dtype=float)
    significant = (low > 0) | (high < 0)
    colours = np.where(significant, _SIMULATED_COLOUR, "#BBBBBB")
    ax.barh(
        y, diffs["difference"].to_numpy(dtype=float), height=0.6, color=list(colours),
        xerr=_errors(diffs, "difference"), ecolor="#333333", capsize=3,
    )  # fmt: skip
    ax.axvline(0.0, color="black", linewidth=0.9)
    ax.set_yticks(y, labels=[_index_label(key) for key in diffs.index])
    ax.invert_yaxis()
    ax.legend(
        handles=[
            Patch(color=_SIMULATED_COLOUR, label="95% interval leaves out 0"),
            Patch(color="#BBBBBB", label="95% interval holds 0"),
        ],
        fontsize="small",
    )
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    return fig


# --- Output ----------------------------------------------------------------------------------


def rates_side_by_side(
    table: pd.DataFrame,
    series: Mapping[str, tuple[str, str, str]],
    *,
    xlabel: str,
    ylabel: str,
    ax: Axes | None = None,
) -> Figure:
    """Bars of several rates for each row of ``table``, side by side, with error bars.

    ``series`` maps a legend label to the table's columns of its rate, its interval's low and
    high ends; the rows are the groups along the x axis, in order, named by the index.
    """
    from matplotlib.ticker import PercentFormatter

    for columns in series.values():
        _check_columns(table, columns, "rates_side_by_side")
    fig, ax = _figure_and_axes(ax, (7.0, 4.0))
    x = np.arange(len(table), dtype=float)
    width = 0.8 / max(len(series), 1)
    for k, (label, (rate, low, high)) in enumerate(series.items()):
        value = table[rate].to_numpy(dtype=float)
        errors = np.clip(
            np.vstack([value - table[low].to_numpy(dtype=float),
                       table[high].to_numpy(dtype=float) - value]), 0.0, None,
        )  # fmt: skip
        ax.bar(x + (k - (len(series) - 1) / 2) * width, value, width, yerr=errors, capsize=2,
               label=label)  # fmt: skip
    ax.set_xticks(x, [str(key) for key in table.index])
    ax.set_ylim(0.0, 1.0)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend(loc="upper left")
    return fig


def save(fig: Figure, path: str | Path, *, dpi: int = 150) -> Path:
    """Write ``fig`` to ``path`` as PNG or SVG (by its suffix), cropped to what is drawn.

    The folder is created if needed; the SVG carries no date and fixed ids, so that the same
    figure gives the same file. Returns the path written.
    """
    from matplotlib import rc_context

    # imported here, like matplotlib: the runners' module brings tqdm, which drawing does not need
    from tarot_analysis.runs.simulate import check_output_path

    suffix = Path(path).suffix.lower()
    if suffix not in _SAVE_FORMATS:
        raise TarotInputError(
            f"cannot save a chart as {suffix or 'a file without suffix'}: use .png or .svg"
        )
    target = check_output_path(path)
    metadata = {"Date": None} if suffix == ".svg" else None
    with rc_context({"svg.hashsalt": "tarot"}), replacing(target) as temporary:
        fig.savefig(temporary, format=suffix[1:], dpi=dpi, bbox_inches="tight", metadata=metadata)
    return target


def to_base64_png(fig: Figure, *, dpi: int = 100) -> str:
    """The figure as a base64 PNG, for ``<img src="data:image/png;base64,...">`` in HTML."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight")
    return base64.b64encode(buffer.getvalue()).decode("ascii")


# --- Colours and labels ----------------------------------------------------------------------


def contract_colour(name: str) -> str:
    """The colour of a contract (or ``pass``) in every chart; other names get a series colour."""
    if name in CONTRACT_COLOURS:
        return CONTRACT_COLOURS[name]
    return _SERIES_COLOURS[sum(map(ord, name)) % len(_SERIES_COLOURS)]


def contract_label(name: str) -> str:
    """A contract's name as written in a legend: ``garde_sans`` → ``Garde sans``."""
    return CONTRACT_LABELS.get(name, name.replace("_", " ").capitalize())


# --- Helpers ---------------------------------------------------------------------------------


def _new_figure(figsize: tuple[float, float]) -> Figure:
    try:
        from matplotlib.figure import Figure
    except ImportError:  # pragma: no cover - depends on the installation
        raise ImportError("charts need matplotlib: pip install 'tarot-analysis[plots]'") from None
    return Figure(figsize=figsize, layout="constrained")


def _figure_and_axes(ax: Axes | None, figsize: tuple[float, float]) -> tuple[Figure, Axes]:
    """A new figure with one axes, or the figure of the axes given."""
    if ax is not None:
        return _root_figure(ax), ax
    fig = _new_figure(figsize)
    return fig, fig.add_subplot()


def _root_figure(ax: Axes) -> Figure:
    from matplotlib.figure import Figure

    figure: Any = ax.figure
    # An axes of a subfigure belongs to the subfigure, whose own ``figure`` is the root one.
    while not isinstance(figure, Figure):
        figure = figure.figure
    return figure


def _check_columns(table: pd.DataFrame, columns: Sequence[str], who: str) -> None:
    missing = [column for column in columns if column not in table.columns]
    if missing:
        raise TarotInputError(
            f"{who} needs the columns {list(columns)}; the table lacks {missing} "
            f"(it has {list(table.columns)})"
        )


def _select(table: pd.DataFrame, mask: pd.Series) -> pd.DataFrame:
    return table.loc[mask.to_numpy(dtype=bool)]


def _positions(index: pd.Index) -> tuple[npt.NDArray[np.float64], list[str] | None]:
    """Where each row goes on the x axis: its value if numeric, else its rank (with labels)."""
    if pd.api.types.is_numeric_dtype(index):
        return index.to_numpy(dtype=float), None
    return np.arange(len(index), dtype=float), [str(key) for key in index]


def _step(x: npt.NDArray[np.float64]) -> float:
    """The smallest gap between neighbouring values (1 when there is a single value)."""
    gaps = np.diff(np.unique(x))
    return float(gaps.min()) if len(gaps) else 1.0


def _errors(table: pd.DataFrame, centre: str) -> npt.NDArray[np.float64]:
    """Error bar lengths below and above ``centre``, shape ``(2, n)``, never negative."""
    value = table[centre].to_numpy(dtype=float)
    below = value - table["ci_low"].to_numpy(dtype=float)
    above = table["ci_high"].to_numpy(dtype=float) - value
    # Rounding can put a rate a hair outside its own interval; matplotlib refuses negatives.
    return np.clip(np.vstack([below, above]), 0.0, None)


def _bar_marker_size(ax: Axes, bars: int) -> float:
    """A marker about as wide as a bar, in points (exact values drawn as a dash on each bar)."""
    figure = _root_figure(ax)
    width_points = figure.get_figwidth() * 72.0 * ax.get_position().width
    return float(np.clip(0.8 * width_points / max(bars, 1), 4.0, 18.0))


def _exact_label(table: pd.DataFrame) -> str:
    gof = table.attrs.get("gof")
    p_value = getattr(gof, "p_value", None)
    if p_value is None:
        return "Exact"
    return f"Exact (χ² test: p = {float(p_value):.2g})"


def _levels(tables: Mapping[str, pd.DataFrame]) -> list[str]:
    """Poignée levels in the order of the first table (simple, double, triple)."""
    first = next(iter(tables.values()))
    return [str(level) for level in dict.fromkeys(first.index)]


def _poignee_label(preset: str, table: pd.DataFrame) -> str:
    """A preset with its thresholds: ``fft-4 (10/13/15 trumps)``."""
    thresholds = dict.fromkeys(int(t) for t in table["trumps_with_excuse"])
    return f"{preset} ({'/'.join(map(str, thresholds))} trumps)"


def _rates_by_preset(
    ax: Axes,
    tables: Mapping[str, pd.DataFrame],
    categories: Sequence[str],
    labels: Sequence[str],
    *,
    log: bool | None,
    legend: bool = True,
) -> None:
    """Rates of a few categories, one colour per preset side by side, exact values beside."""
    from matplotlib.lines import Line2D

    rows = {name: table.reindex(list(categories)) for name, table in tables.items()}
    values = np.concatenate(
        [
            table[column].to_numpy(dtype=float)
            for table in rows.values()
            for column in ("simulated", "ci_high", "exact")
        ]
    )
    positive = values[np.isfinite(values) & (values > 0)]
    if log is None:
        log = len(positive) > 0 and float(positive.max() / positive.min()) > _LOG_SPAN
    spread = min(0.6, 0.15 * len(rows))
    offsets = np.linspace(-spread / 2, spread / 2, len(rows)) if len(rows) > 1 else [0.0]
    base = np.arange(len(categories), dtype=float)
    any_unseen = False
    for k, ((name, table), offset) in enumerate(zip(rows.items(), offsets, strict=True)):
        colour = _SERIES_COLOURS[k % len(_SERIES_COLOURS)]
        x = base + offset
        simulated = table["simulated"].to_numpy(dtype=float)
        # On a log axis a rate of 0 cannot be drawn: what is known is its interval's top.
        seen = np.isfinite(simulated) & ((table["count"].to_numpy() > 0) | (not log))
        errors = _errors(table, "simulated")
        ax.errorbar(
            x[seen], simulated[seen], yerr=errors[:, seen], fmt="o", color=colour,
            markersize=5, capsize=3, label=name,
        )  # fmt: skip
        unseen = np.isfinite(simulated) & ~seen
        if unseen.any():
            any_unseen = True
            ax.plot(
                x[unseen], table["ci_high"].to_numpy(dtype=float)[unseen], linestyle="none",
                marker="v", color=colour, markersize=6, label="_unseen",
            )  # fmt: skip
        exact = table["exact"].to_numpy(dtype=float)
        known = np.isfinite(exact) & ((exact > 0) | (not log))
        ax.plot(
            x[known] + 0.06, exact[known], linestyle="none", marker="D", markersize=5,
            markerfacecolor="none", markeredgecolor=colour, markeredgewidth=1.3, label="_exact",
        )  # fmt: skip
    if log:
        ax.set_yscale("log")
    else:
        from matplotlib.ticker import PercentFormatter

        ax.yaxis.set_major_formatter(PercentFormatter(1.0))
        ax.set_ylim(bottom=0.0)
    ax.set_xticks(base, labels=list(labels))
    ax.set_xlim(-0.6, len(categories) - 0.4)
    handles, _ = ax.get_legend_handles_labels()
    handles.append(
        Line2D([], [], linestyle="none", marker="o", color="#555555", label=_SIMULATED_LABEL)
    )
    exact_handle = Line2D(
        [], [], linestyle="none", marker="D", markerfacecolor="none", markeredgecolor="#555555",
        label="Exact",
    )  # fmt: skip
    handles.append(exact_handle)
    if any_unseen:
        handles.append(
            Line2D([], [], linestyle="none", marker="v", color="#555555", label=_UNSEEN_LABEL)
        )
    if legend:
        ax.legend(
            handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small"
        )  # fmt: skip


def _contract_names(columns: Sequence[str]) -> list[str]:
    """Contracts named by the guidance columns ``<contract>_rate``."""
    return [column.removesuffix("_rate") for column in columns if column.endswith("_rate")]


def _ordered(names: set[str] | Sequence[str]) -> list[str]:
    """Contracts lowest first (as in :data:`CONTRACT_COLOURS`), other names after, sorted."""
    known = [name for name in CONTRACT_COLOURS if name in names]
    return known + sorted(name for name in set(names) if name not in CONTRACT_COLOURS)


def _contracts_of(
    table: pd.DataFrame, contracts: Sequence[str] | None, parts: Sequence[str]
) -> list[str]:
    """The contracts to draw from a guidance table, checking their columns are there."""
    names = (
        _ordered(_contract_names([str(c) for c in table.columns]))
        if contracts is None
        else list(contracts)
    )
    if not names:
        raise TarotInputError("the table has no <contract>_rate columns to draw")
    _check_columns(
        table, ["n", *(f"{name}_{part}" for name in names for part in parts)], "this chart"
    )
    return names


def _enough(table: pd.DataFrame, min_n: int, ax: Axes) -> pd.DataFrame:
    """Rows held by at least ``min_n`` deals, in score order; says so on the axes if none."""
    kept = table[table["n"] >= min_n].sort_index()
    if kept.empty:
        ax.text(
            0.5, 0.5, f"No score held by {min_n:,} deals or more", transform=ax.transAxes,
            ha="center", va="center", color="#555555",
        )  # fmt: skip
    return kept


def _score_name(table: pd.DataFrame) -> str:
    name = str(table.index.name or "score")
    if name == "kings":
        return "kings held"
    return EVALUATOR_LABELS.get(name, name.replace("_", " ")).removesuffix(" of the hand")


def _evaluator_label(table: pd.DataFrame) -> str:
    name = str(table.index.name or "score")
    return EVALUATOR_LABELS.get(name, name.replace("_", " ").capitalize())


def _predictor_label(name: str) -> str:
    if name == "chavey":
        return "Chavey count"
    return EVALUATOR_LABELS.get(name, name.replace("_", " ").capitalize())


def _index_label(key: Any) -> str:
    if isinstance(key, tuple):
        return " · ".join(str(part) for part in key)
    return str(key)


def _text_colour(background: str) -> str:
    """Black or white, whichever reads better on ``background``."""
    from matplotlib.colors import to_rgb

    red, green, blue = to_rgb(background)
    return "black" if 0.299 * red + 0.587 * green + 0.114 * blue > 0.55 else "white"


def _required_lines(
    required: float | Sequence[float] | Mapping[str, float] | None,
) -> list[tuple[str, float]]:
    """Labelled vertical lines for the points the taker needs."""
    if required is None:
        return []
    if isinstance(required, Mapping):
        return [
            (f"{label}: {float(value):g} points", float(value)) for label, value in required.items()
        ]
    if isinstance(required, (int, float, np.integer, np.floating)):
        return [(f"Needed: {float(required):g} points", float(required))]
    lines = []
    for bouts, value in enumerate(required):
        bouts_text = f"{bouts} bout" if bouts == 1 else f"{bouts} bouts"
        lines.append((f"Needed with {bouts_text}: {float(value):g}", float(value)))
    return lines
