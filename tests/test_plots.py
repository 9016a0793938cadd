"""Charts drawn from small real runs: what each figure holds, not how it looks."""

from __future__ import annotations

import base64
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.collections import PathCollection, PolyCollection
from matplotlib.colors import same_color, to_rgb
from matplotlib.container import BarContainer, ErrorbarContainer
from matplotlib.image import AxesImage
from matplotlib.lines import Line2D

from tarot_analysis.analyses.counterfactual import ContractOutcomes, play_every_contract
from tarot_analysis.analyses.guidance import compare_evaluators, guidance_tables, run_guidance
from tarot_analysis.deals.hand_stats import HandStats, run_hands
from tarot_analysis.errors import TarotInputError
from tarot_analysis.game.rules import Rules, load_rules
from tarot_analysis.report import plots
from tarot_analysis.report.plots import CONTRACT_COLOURS

matplotlib.use("Agg")

PRESETS = ("fft-3", "fft-4", "fft-5")
CONTRACTS = ("prise", "garde", "garde_sans", "garde_contre")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


# --- Small real runs, shared by the module ---------------------------------------------------


@pytest.fixture(scope="module")
def rules() -> Rules:
    return load_rules("fft-4")


@pytest.fixture(scope="module")
def hands() -> dict[str, HandStats]:
    """Hand statistics of three presets, 20,000 deals each."""
    return {name: run_hands(load_rules(name), 20_000, seed=1) for name in PRESETS}


@pytest.fixture(scope="module")
def guidance(rules: Rules, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Guidance tables and evaluator comparison of 20,000 fft-4 deals played every way."""
    data = run_guidance(
        rules, 20_000, tmp_path_factory.mktemp("guidance"), seed=1, chunk_size=10_000
    )
    return guidance_tables(data) | {"compare": compare_evaluators(data, "garde", boot=20)}


@pytest.fixture(scope="module")
def outcomes(rules: Rules) -> ContractOutcomes:
    """2,000 fft-4 deals, each played under every contract."""
    return play_every_contract(rules, 2_000, seed=1)


@pytest.fixture(autouse=True)
def _close_figures() -> Iterator[None]:
    yield
    plt.close("all")


# --- Helpers ---------------------------------------------------------------------------------


def legend_labels(ax: Any) -> list[str]:
    legend = ax.get_legend()
    assert legend is not None, "the axes has no legend"
    return [text.get_text() for text in legend.get_texts()]


def errorbars(ax: Any) -> list[ErrorbarContainer]:
    return [c for c in ax.containers if isinstance(c, ErrorbarContainer)]


def xdata(line: Any) -> np.ndarray:
    return np.asarray(line.get_xdata(), dtype=float)


def ydata(line: Any) -> np.ndarray:
    return np.asarray(line.get_ydata(), dtype=float)


def label(artist: Any) -> str:
    return str(artist.get_label())


def lines_with_marker(ax: Any, marker: str) -> list[Line2D]:
    return [line for line in ax.get_lines() if line.get_marker() == marker]


#: The note on the Prise's line where the Garde's hides it.
UNDER_THE_GARDE = " (under the Garde: made on the same deals)"


def contract_lines(ax: Any) -> dict[str, Line2D]:
    """Lines labelled with a contract's name, by contract."""
    by_label = {plots.contract_label(name): name for name in CONTRACT_COLOURS}
    named = {line: label(line).removesuffix(UNDER_THE_GARDE) for line in ax.get_lines()}
    return {by_label[name]: line for line, name in named.items() if name in by_label}


# --- Colours ---------------------------------------------------------------------------------


def test_contract_colours_cover_every_contract_and_pass(rules: Rules) -> None:
    assert set(CONTRACT_COLOURS) == {c.name for c in rules.contracts} | {"pass"}
    rgb = [to_rgb(colour) for colour in CONTRACT_COLOURS.values()]
    assert len(set(rgb)) == len(rgb), "two contracts share a colour"
    assert plots.contract_colour("garde_sans") == CONTRACT_COLOURS["garde_sans"]
    assert plots.contract_label("garde_contre") == "Garde contre"
    # A contract of some other game still gets a colour, always the same one.
    assert plots.contract_colour("solo") == plots.contract_colour("solo")


# --- Hand statistics -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("feature", "xlabel"),
    [
        ("bouts", "Bouts in the hand"),
        ("trumps", "Trumps in the hand"),
        ("half_points", "Card points in the hand"),
    ],
)
def test_distribution_draws_bars_errors_and_exact_values(
    hands: dict[str, HandStats], feature: str, xlabel: str
) -> None:
    table = hands["fft-4"].table(feature)
    fig = plots.distribution(table, title=f"{feature} per hand", xlabel=xlabel)
    (ax,) = fig.axes
    assert ax.get_title() == f"{feature} per hand"
    assert ax.get_xlabel() == xlabel
    assert ax.get_ylabel() == "Share of hands"
    (bars,) = [c for c in ax.containers if isinstance(c, BarContainer)]
    assert len(bars.patches) == len(table)
    np.testing.assert_allclose([bar.get_height() for bar in bars], table["simulated"])
    assert bars.errorbar is not None
    (exact,) = [line for line in ax.get_lines() if label(line).startswith("Exact")]
    np.testing.assert_allclose(ydata(exact), table["exact"])
    labels = legend_labels(ax)
    assert "Simulated (95% Wilson interval)" in labels
    assert any(label.startswith("Exact (χ² test: p = ") for label in labels)
    plt.close(fig)


def test_distribution_of_the_dog_and_into_given_axes(hands: dict[str, HandStats]) -> None:
    table = hands["fft-4"].table("bouts", dog=True)
    fig, axes = plt.subplots(1, 2)
    returned = plots.distribution(
        table, title="Bouts in the dog", xlabel="Bouts in the dog", log=True, ax=axes[1]
    )
    assert returned is fig
    assert axes[1].get_ylabel() == "Share of dogs"
    assert axes[1].get_yscale() == "log"
    assert not axes[0].has_data()
    plt.close(fig)


def test_distribution_rejects_a_table_without_rates() -> None:
    with pytest.raises(TarotInputError, match="simulated"):
        plots.distribution(pd.DataFrame({"n": [1]}), title="t", xlabel="x")


def test_poignee_by_preset_one_panel_per_hand_and_per_deal(hands: dict[str, HandStats]) -> None:
    tables = {name: stats.poignee() for name, stats in hands.items()}
    fig = plots.poignee_by_preset(tables)
    assert len(fig.axes) == 2
    assert fig.get_suptitle() == "Poignées by preset"
    assert [ax.get_title() for ax in fig.axes] == ["Per hand", "Per deal"]
    for ax in fig.axes:
        assert ax.get_xlabel() == "Poignée (at least)"
        assert [t.get_text() for t in ax.get_xticklabels()] == ["Simple", "Double", "Triple"]
        # From a simple to a triple poignée the rates fall by orders of magnitude.
        assert ax.get_yscale() == "log"
        assert len(errorbars(ax)) == len(PRESETS)
        assert len(lines_with_marker(ax, "D")) == len(PRESETS)
    hand_axes = fig.axes[0]
    exact = sorted(y for line in lines_with_marker(hand_axes, "D") for y in ydata(line))
    per_hand = pd.concat(t[t["per"] == "hand"] for t in tables.values())
    np.testing.assert_allclose(exact, sorted(per_hand["exact"]))
    labels = legend_labels(fig.axes[-1])
    assert "fft-4 (10/13/15 trumps)" in labels
    assert "Exact" in labels
    # No triple poignée in 20,000 deals: its upper bound is drawn instead.
    assert "None seen: 95% upper bound" in labels
    assert len(lines_with_marker(hand_axes, "v")) == len(PRESETS)
    plt.close(fig)


def test_poignee_by_preset_single_panel_into_axes(hands: dict[str, HandStats]) -> None:
    tables = {name: stats.poignee() for name, stats in hands.items()}
    fig, ax = plt.subplots()
    assert plots.poignee_by_preset(tables, per="deal", log=False, ax=ax) is fig
    assert ax.get_title() == "Poignées per deal"
    assert ax.get_yscale() == "linear"
    assert ax.get_ylabel() == "Share of deals where a player holds it"
    with pytest.raises(TarotInputError, match="per="):
        plots.poignee_by_preset(tables, ax=ax)
    with pytest.raises(TarotInputError, match="per must be"):
        plots.poignee_by_preset(tables, per="table")
    with pytest.raises(TarotInputError):
        plots.poignee_by_preset({})
    plt.close(fig)


def test_petit_sec_by_preset(hands: dict[str, HandStats]) -> None:
    tables = {name: stats.petit_sec() for name, stats in hands.items()}
    fig = plots.petit_sec_by_preset(tables)
    (ax,) = fig.axes
    assert ax.get_title() == "Petit sec by preset"
    assert ax.get_yscale() == "log"  # from 4e-5 per hand at 3 players to 7e-3 per deal at 5
    bars = errorbars(ax)
    assert len(bars) == len(PRESETS)
    assert all(bar.has_yerr for bar in bars)
    exact = sorted(y for line in lines_with_marker(ax, "D") for y in ydata(line))
    np.testing.assert_allclose(exact, sorted(pd.concat(tables.values())["exact"]))
    labels = legend_labels(ax)
    assert labels[: len(PRESETS)] == list(PRESETS)
    assert "Exact" in labels
    linear = plots.petit_sec_by_preset(tables, log=False)
    assert linear.axes[0].get_yscale() == "linear"
    plt.close(fig)
    plt.close(linear)


# --- Bidding guidance ------------------------------------------------------------------------


@pytest.mark.slow
def test_success_by_score_one_line_and_band_per_contract(guidance: dict[str, Any]) -> None:
    table = guidance["by_chavey"]
    fig = plots.success_by_score(table, min_n=100)
    (ax,) = fig.axes
    assert ax.get_title() == "Contracts made by Chavey count"
    assert ax.get_xlabel() == "Chavey count of the hand"
    assert ax.get_ylabel() == "Share of contracts made"
    lines = contract_lines(ax)
    assert list(lines) == list(CONTRACTS)
    kept = table[table["n"] >= 100]
    for name, line in lines.items():
        assert same_color(line.get_color(), CONTRACT_COLOURS[name])
        np.testing.assert_allclose(xdata(line), kept.index.to_numpy(float))
        np.testing.assert_allclose(ydata(line), kept[f"{name}_rate"])
    bands = [c for c in ax.collections if isinstance(c, PolyCollection)]
    assert len(bands) == len(CONTRACTS)
    for band, name in zip(bands, CONTRACTS, strict=True):
        assert same_color(tuple(np.asarray(band.get_facecolor())[0, :3]), CONTRACT_COLOURS[name])
    # The Prise's line lies under the Garde's (made on the same deals), and its legend says so.
    assert legend_labels(ax) == ["Prise" + UNDER_THE_GARDE, "Garde", "Garde sans", "Garde contre"]
    assert ax.get_ylim() == (0.0, 1.0)
    plt.close(fig)


def test_success_by_score_chosen_contracts_and_errors(guidance: dict[str, Any]) -> None:
    table = guidance["by_chavey"]
    fig, ax = plt.subplots()
    assert plots.success_by_score(table, contracts=["garde_sans"], ax=ax) is fig
    assert list(contract_lines(ax)) == ["garde_sans"]
    with pytest.raises(TarotInputError, match="chelem_rate"):
        plots.success_by_score(table, contracts=["chelem"])
    empty = plots.success_by_score(table, min_n=10**9)
    assert "No score held by" in empty.axes[0].texts[0].get_text()
    plt.close(fig)
    plt.close(empty)


def test_expected_score_by_score_marks_the_best_contract(guidance: dict[str, Any]) -> None:
    table = guidance["by_chavey"]
    fig = plots.expected_score_by_score(table, min_n=30)
    (ax,) = fig.axes
    assert ax.get_title() == "Taker's mean score by Chavey count"
    assert ax.get_ylabel() == "Taker's score (mean per deal)"
    lines = contract_lines(ax)
    assert list(lines) == list(CONTRACTS)
    kept = table[table["n"] >= 30]
    for name, line in lines.items():
        assert same_color(line.get_color(), CONTRACT_COLOURS[name])
        np.testing.assert_allclose(ydata(line), kept[f"{name}_mean_score"])
    (zero,) = [line for line in ax.get_lines() if label(line) == "Pass (scores 0)"]
    assert list(ydata(zero)) == [0.0, 0.0]
    # Shading: one band per run of scores with the same best contract, in its colour.
    runs = int((kept["best"] != kept["best"].shift()).sum())
    bands = [patch for patch in ax.patches if patch.get_fill()]
    assert len(bands) == runs
    colours = [to_rgb(c) for c in CONTRACT_COLOURS.values()]
    assert all(to_rgb(patch.get_facecolor()) in colours for patch in bands)
    # Counts whose best is tied with the runner-up are hatched, one band each.
    hatched = [patch for patch in ax.patches if not patch.get_fill()]
    assert len(hatched) == int(kept["tie"].sum()) > 0
    assert all(patch.get_hatch() == "///" for patch in hatched)
    (stars,) = [c for c in ax.collections if isinstance(c, PathCollection)]
    taken = kept[kept["best"] != "pass"]
    assert len(taken) > 0, "20,000 deals should show a score where a contract pays"
    np.testing.assert_allclose(np.asarray(stars.get_offsets())[:, 1], taken["best_mean_score"])
    labels = legend_labels(ax)
    assert {"Pass (scores 0)", "Best contract's score", "Best: Pass", "Best: Garde"} <= set(labels)
    assert "Tie with the runner-up" in labels
    plt.close(fig)


def test_recommended_map_colours_each_cell_by_its_best_contract(guidance: dict[str, Any]) -> None:
    table = guidance["by_bouts_trumps"]
    fig = plots.recommended_map(table, min_n=50)
    (ax,) = fig.axes
    assert ax.get_title() == "Best contract by bouts and trumps"
    assert ax.get_xlabel() == "Trumps in the hand (Excuse not counted)"
    assert ax.get_ylabel() == "Bouts in the hand"
    (image,) = [artist for artist in ax.get_images() if isinstance(artist, AxesImage)]
    grid: Any = image.get_array()
    enough = table[table["n"] >= 50]
    # The trumps axis stops at the cells coloured, not at the longest hand dealt.
    drawn = enough.index.get_level_values("trumps")
    held = table.index.get_level_values("trumps")
    within = table[(held >= drawn.min()) & (held <= drawn.max())]
    bouts = within.index.get_level_values("bouts")
    trumps = within.index.get_level_values("trumps")
    assert grid.shape == (bouts.max() - bouts.min() + 1, trumps.max() - trumps.min() + 1)
    assert int((~grid.mask).sum()) == len(enough)
    for (b, t), row in enough.iterrows():
        value = grid[b - bouts.min(), t - trumps.min()]
        colour: Any = image.cmap(image.norm(value))
        assert same_color(colour, CONTRACT_COLOURS[row["best"]]), (b, t, row["best"])
    shown = [plots.contract_label(c) for c in CONTRACT_COLOURS if c in set(enough["best"])]
    ties = int(enough["tie"].sum())
    assert ties > 0
    assert legend_labels(ax) == [*shown, "Tie (≈)", "Fewer than 50 deals"]
    # One count per coloured cell, marked ≈ and hatched where the best is tied.
    assert len(ax.texts) == len(enough)
    assert sum(text.get_text().startswith("≈") for text in ax.texts) == ties
    assert sum(patch.get_hatch() == "///" for patch in ax.patches) == ties
    plt.close(fig)


def test_recommended_map_blank_when_too_few_deals(guidance: dict[str, Any]) -> None:
    table = guidance["by_bouts_trumps"]
    fig, ax = plt.subplots()
    assert plots.recommended_map(table, min_n=10**9, annotate=False, ax=ax) is fig
    blank: Any = ax.get_images()[0].get_array()
    assert np.ma.getmaskarray(blank).all()
    assert legend_labels(ax) == [f"Fewer than {10**9:,} deals"]
    with pytest.raises(TarotInputError, match="bouts, trumps"):
        plots.recommended_map(guidance["by_kings"])
    plt.close(fig)


# --- Played deals ----------------------------------------------------------------------------


def test_taker_points_one_histogram_per_contract(outcomes: ContractOutcomes, rules: Rules) -> None:
    fig = plots.taker_points(outcomes.frame, required=rules.bouts_required)
    (ax,) = fig.axes
    assert ax.get_title() == "Points won by the attack, by contract"
    assert ax.get_xlabel() == "Card points won by the attack"
    assert ax.get_ylabel() == "Share of deals (per 2-point bin)"
    assert len(ax.patches) == len(CONTRACTS)
    for patch, name in zip(ax.patches, CONTRACTS, strict=True):
        assert same_color(patch.get_edgecolor(), CONTRACT_COLOURS[name])
    needed = [line for line in ax.get_lines() if label(line).startswith("Needed")]
    assert [xdata(line)[0] for line in needed] == list(rules.bouts_required)
    played = outcomes.played()
    deals = int((played["contract"] == "garde").sum())
    labels = legend_labels(ax)
    assert f"Garde ({deals:,} deals)" in labels
    assert "Needed with 1 bout: 51" in labels
    plt.close(fig)


def test_taker_points_other_forms_of_required(outcomes: ContractOutcomes) -> None:
    fig, ax = plt.subplots()
    plots.taker_points(outcomes.frame, required=41, contracts=["garde_sans"], ax=ax)
    assert len(ax.patches) == 1
    assert legend_labels(ax)[-1] == "Needed: 41 points"
    mapped = plots.taker_points(outcomes.frame, required={"Two bouts": 41.0})
    assert legend_labels(mapped.axes[0])[-1] == "Two bouts: 41 points"
    assert len(plots.taker_points(outcomes.frame).axes[0].get_lines()) == 0
    with pytest.raises(TarotInputError, match="solo"):
        plots.taker_points(outcomes.frame, contracts=["solo"])
    with pytest.raises(TarotInputError, match="bin_width"):
        plots.taker_points(outcomes.frame, bin_width=0)
    plt.close(fig)
    plt.close(mapped)


# --- Evaluators and variants -----------------------------------------------------------------


def test_calibration_curves_with_wilson_bars_and_diagonal(guidance: dict[str, Any]) -> None:
    curves = guidance["compare"]["calibration"]
    fig = plots.calibration(curves, title="Calibration of the Garde")
    (ax,) = fig.axes
    assert ax.get_title() == "Calibration of the Garde"
    assert ax.get_xlabel() == "Predicted chance of making the contract"
    bars = errorbars(ax)
    assert len(bars) == len(curves) == 2
    for bar, table in zip(bars, curves.values(), strict=True):
        assert bar.has_yerr
        np.testing.assert_allclose(ydata(bar.lines[0]), table["observed"])
    (diagonal,) = [line for line in ax.get_lines() if label(line) == "Perfect calibration"]
    assert list(xdata(diagonal)) == list(ydata(diagonal)) == [0.0, 1.0]
    labels = legend_labels(ax)
    assert labels[0] == "Perfect calibration"
    assert labels[1].startswith("Fitted model (") and labels[2].startswith("Chavey count (")
    assert ax.get_xlim() == ax.get_ylim() == (0.0, 1.0)
    plt.close(fig)


def test_variant_differences_bars_intervals_and_zero_line(hands: dict[str, HandStats]) -> None:
    four, five = hands["fft-4"].table("bouts"), hands["fft-5"].table("bouts")
    difference = five["simulated"] - four["simulated"]
    half = 1.96 * np.sqrt(
        four["simulated"] * (1 - four["simulated"]) / four["n"]
        + five["simulated"] * (1 - five["simulated"]) / five["n"]
    )
    diffs = pd.DataFrame(
        {"difference": difference, "ci_low": difference - half, "ci_high": difference + half}
    )
    diffs.index = [f"{k} bouts in the hand" for k in diffs.index]
    fig = plots.variant_differences(diffs, xlabel="fft-5 − fft-4, share of hands")
    (ax,) = fig.axes
    assert ax.get_title() == "Differences between rule variants"
    assert ax.get_xlabel() == "fft-5 − fft-4, share of hands"
    (bars,) = [c for c in ax.containers if isinstance(c, BarContainer)]
    assert len(bars.patches) == len(diffs)
    np.testing.assert_allclose([bar.get_width() for bar in bars], diffs["difference"])
    assert bars.errorbar is not None
    significant = (diffs["ci_low"] > 0) | (diffs["ci_high"] < 0)
    for bar, is_significant in zip(bars, significant, strict=True):
        assert same_color(bar.get_facecolor(), "#0072B2" if is_significant else "#BBBBBB")
    assert any(list(xdata(line)) == [0.0, 0.0] for line in ax.get_lines())
    assert [t.get_text() for t in ax.get_yticklabels()] == list(diffs.index)
    assert legend_labels(ax) == ["95% interval leaves out 0", "95% interval holds 0"]
    plt.close(fig)


# --- Output ----------------------------------------------------------------------------------


def test_save_png_and_svg(hands: dict[str, HandStats], tmp_path: Path) -> None:
    fig = plots.distribution(hands["fft-4"].table("bouts"), title="Bouts", xlabel="Bouts")
    png = plots.save(fig, tmp_path / "charts" / "bouts.png")
    assert png.read_bytes().startswith(PNG_MAGIC)
    svg = plots.save(fig, tmp_path / "bouts.svg")
    assert b"<svg" in svg.read_bytes()[:1000]
    # No date in the SVG: the same figure gives the same file.
    again = plots.save(fig, tmp_path / "again.svg")
    assert again.read_bytes() == svg.read_bytes()
    with pytest.raises(TarotInputError, match=r"\.png or \.svg"):
        plots.save(fig, tmp_path / "bouts.jpg")
    plt.close(fig)


def test_to_base64_png(hands: dict[str, HandStats]) -> None:
    fig = plots.distribution(hands["fft-4"].table("bouts"), title="Bouts", xlabel="Bouts")
    encoded = plots.to_base64_png(fig)
    assert isinstance(encoded, str)
    assert base64.b64decode(encoded).startswith(PNG_MAGIC)
    plt.close(fig)


def test_module_imports_without_display_or_matplotlib() -> None:
    environment = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "MPLBACKEND")}
    code = (
        "import sys, tarot_analysis.report.plots as p; "
        "assert 'matplotlib' not in sys.modules, 'matplotlib imported too early'; "
        "print(sorted(p.CONTRACT_COLOURS))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        env=environment,
        cwd=Path(__file__).parents[1],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "garde_contre" in result.stdout


def test_rates_side_by_side_draws_a_bar_per_rate_and_group_at_its_value() -> None:
    table = pd.DataFrame(
        {"a": [0.2, 0.5], "a_low": [0.1, 0.4], "a_high": [0.3, 0.6],
         "b": [0.25, 0.7], "b_low": [0.2, 0.6], "b_high": [0.3, 0.8]},
        index=["under 40", "40–55"],
    )  # fmt: skip
    series = {"seen": ("a", "a_low", "a_high"), "bot": ("b", "b_low", "b_high")}
    fig = plots.rates_side_by_side(table, series, xlabel="count", ylabel="made")
    ax = fig.axes[0]
    heights = [patch.get_height() for patch in ax.patches]
    assert heights == pytest.approx([0.2, 0.5, 0.25, 0.7])
    assert [t.get_text() for t in ax.get_xticklabels()] == ["under 40", "40–55"]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["seen", "bot"]
    with pytest.raises(TarotInputError, match="lacks"):
        plots.rates_side_by_side(table, {"c": ("c", "a_low", "a_high")}, xlabel="", ylabel="")
