"""Rule variants compared on the same deals: pairing, intervals, and the ``compare`` command."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from tarot_analysis import __version__
from tarot_analysis.analyses.compare import (
    DIFFERENCE_COLUMNS,
    MEASURES,
    SUMMARY_COLUMNS,
    Comparison,
    compare_variants,
    format_report,
)
from tarot_analysis.cli.commands.compare import add_parser
from tarot_analysis.cli.commands.compare import run as run_command
from tarot_analysis.deals import exact
from tarot_analysis.deals.deal import deal
from tarot_analysis.errors import RulesError, TarotInputError
from tarot_analysis.game.rules import load_rules
from tarot_analysis.table.play import play

DEALS = 2_000


@pytest.fixture(scope="module")
def four_and_five() -> Comparison:
    """fft-4 against two 4-player variants (paired) and fft-5 (side by side)."""
    rules = [load_rules(name) for name in ("fft-4", "legacy-4", "trumps-broken-4", "fft-5")]
    return compare_variants(rules, DEALS, seed=1)


def rows_by_measure(frame: pd.DataFrame) -> dict[tuple[str, str], dict[str, Any]]:
    """One variant's rows of a tidy frame, by measure and contract."""
    records = [{str(key): value for key, value in r.items()} for r in frame.to_dict("records")]
    return {(r["measure"], r["contract"]): r for r in records}


def parse(*argv: str) -> argparse.Namespace:
    """The command line of ``compare`` as the ``tarot-analysis`` parser reads it."""
    from tarot_analysis.cli.arguments import Parser

    parser = Parser(prog="tarot-analysis")
    add_parser(parser.add_subparsers(dest="command", required=True, parser_class=Parser))
    extra = [] if "--bots" in argv else ["--bots", "random"]
    return parser.parse_args(["compare", *argv, *extra])


def test_variants_of_one_layout_share_their_deals() -> None:
    masks = deal(load_rules("fft-4"), 100, seed=1).masks
    for name in ("legacy-4", "trumps-broken-4"):
        assert np.array_equal(deal(load_rules(name), 100, seed=1).masks, masks)
    assert np.array_equal(deal(load_rules("tarocco"), 100, seed=1).masks,
                          deal(load_rules("fft-3"), 100, seed=1).masks)  # fmt: skip


def test_same_layout_is_paired_and_another_layout_side_by_side(
    four_and_five: Comparison,
) -> None:
    variants = four_and_five.variants
    assert [v.label for v in variants] == ["fft-4", "legacy-4", "trumps-broken-4", "fft-5"]
    assert [v.paired for v in variants] == [True, True, True, False]
    assert "5 players" in variants[3].note and variants[1].note == ""
    differences = four_and_five.differences()
    assert list(differences.columns) == list(DIFFERENCE_COLUMNS)
    assert set(differences["variant"]) == {"legacy-4", "trumps-broken-4", "fft-5"}
    assert (differences["paired"] == (differences["variant"] != "fft-5")).all()
    # Paired: both sides over the same deals; side by side: each over its own.
    paired = differences[differences["paired"]]
    assert (paired["n"] == paired["n_baseline"]).all()
    assert set(differences["measure"]) == set(MEASURES)
    contracts = {c.name for c in load_rules("fft-4").contracts}
    success = differences[differences["measure"] == "success"]
    assert set(success["contract"]) == contracts
    assert set(differences.loc[differences["measure"] == "petit_au_bout", "contract"]) == {""}
    finite = differences.dropna(subset=["ci_low", "ci_high"])
    assert np.allclose(finite["difference"], finite["value"] - finite["baseline"])
    assert (finite["ci_low"] <= finite["difference"] + 1e-12).all()
    assert (finite["difference"] <= finite["ci_high"] + 1e-12).all()
    assert finite["excludes_zero"].equals((finite["ci_low"] > 0) | (finite["ci_high"] < 0))
    # Five players: a smaller dog and more defenders make contracts easier for random bots.
    fft5_garde = success[(success["variant"] == "fft-5") & (success["contract"] == "garde")]
    assert bool(fft5_garde["excludes_zero"].iloc[0])


def test_summary_gives_every_rate_with_its_interval_and_exact_value(
    four_and_five: Comparison,
) -> None:
    summary = four_and_five.summary()
    assert list(summary.columns) == list(SUMMARY_COLUMNS)
    fft4 = rows_by_measure(four_and_five.summary("fft-4"))
    assert len(fft4) == len(four_and_five.summary()) // 4
    hand = fft4["poignee_per_hand", ""]
    assert hand["n"] == DEALS * 4
    assert hand["exact"] == pytest.approx(exact.poignee_at_least(18, (10, 13, 15))["simple"])
    assert hand["ci_low"] <= hand["value"] <= hand["ci_high"]
    assert fft4["redeal_petit_sec", ""]["n"] == DEALS
    assert fft4["success", "garde"]["source"] == "counterfactual"
    assert fft4["poignee_shown", ""]["source"] == "auction"
    with pytest.raises(TarotInputError, match="no variant 'fft-6'"):
        four_and_five.summary("fft-6")


def test_a_variant_against_itself_differs_by_exactly_zero() -> None:
    fft4 = load_rules("fft-4")
    comparison = compare_variants([fft4, fft4], 1_000, seed=3, mode="auction")
    assert [v.label for v in comparison.variants] == ["fft-4", "fft-4 (2)"]
    differences = comparison.differences()
    assert differences["paired"].all()
    measured = differences.dropna(subset=["difference"])
    assert len(measured) >= 10
    assert (measured["difference"] == 0).all()
    # A paired rate's interval (Newcombe's) keeps a width with no discordant deal; it holds 0.
    assert (measured["ci_low"] <= 0).all() and (measured["ci_high"] >= 0).all()
    assert (measured["ci_low"] >= -1).all() and (measured["ci_high"] <= 1).all()
    assert (measured["value"] == measured["baseline"]).all()
    assert not measured["excludes_zero"].any()
    assert set(measured["measure"]) >= {"success", "taker_score", "poignee_per_hand"}


def test_a_lower_poignee_threshold_shows_more_poignees(tmp_path: Path) -> None:
    path = tmp_path / "low-poignee.toml"
    path.write_text('extends = "fft-4"\n\n[poignee]\nthresholds = [8, 13, 15]\n')
    comparison = compare_variants([load_rules("fft-4"), load_rules(str(path))], 3_000, seed=2)
    assert comparison.variants[1].paired
    rows = rows_by_measure(comparison.differences())
    for measure in ("poignee_per_hand", "poignee_shown"):
        assert rows[measure, ""]["ci_low"] > 0, measure
        assert rows[measure, ""]["excludes_zero"]
    hand = rows_by_measure(comparison.summary(comparison.variants[1].label))["poignee_per_hand", ""]
    low_exact = exact.poignee_at_least(18, (8, 13, 15))["simple"]
    assert hand["exact"] == pytest.approx(low_exact)
    assert hand["ci_low"] < low_exact < hand["ci_high"]


def test_trumps_broken_plays_the_same_deals_differently(four_and_five: Comparison) -> None:
    fft4, broken = load_rules("fft-4"), load_rules("trumps-broken-4")
    first = play(fft4, 500, seed=1)
    second = play(broken, 500, seed=1)
    assert np.array_equal(first.masks, second.masks)
    assert np.array_equal(deal(fft4, 500, seed=1).masks, deal(broken, 500, seed=1).masks)
    assert (first.outcomes != second.outcomes).any(axis=1).sum() > 0
    # In the comparison: some deals are made under one rule and not the other.
    differences = four_and_five.differences()
    success = differences[
        (differences["variant"] == "trumps-broken-4") & (differences["measure"] == "success")
    ]
    assert (success["ci_high"] > success["ci_low"]).all()


def test_tarocco_gives_hand_statistics_only() -> None:
    comparison = compare_variants([load_rules("fft-3"), load_rules("tarocco")], 500, seed=1)
    tarocco = comparison.variants[1]
    assert tarocco.paired and not tarocco.plays and "hand statistics only" in tarocco.note
    assert list(comparison.differences()["measure"]) == ["poignee_per_hand"]
    assert set(comparison.summary("tarocco")["measure"]) == {"poignee_per_hand"}
    # A Tarocco baseline: the French variant is still summarised, compared on hands only.
    reverse = compare_variants([load_rules("tarocco"), load_rules("fft-4")], 500, seed=1)
    assert list(reverse.differences()["measure"]) == ["poignee_per_hand"]
    assert not reverse.variants[1].paired
    assert "success" in set(reverse.summary("fft-4")["measure"])
    assert "only hand statistics are compared" in format_report(reverse)


def test_compare_json_has_the_run_the_differences_and_the_summary(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = parse("fft-4", "legacy-4", "fft-5", "--deals", "400", "--seed", "5", "--json")
    assert run_command(args) == 0
    result = json.loads(capsys.readouterr().out)
    assert {"variants", "deals", "seed", "bots", "mode", "differences", "summary"} <= set(result)
    assert [v["name"] for v in result["variants"]] == ["fft-4", "legacy-4", "fft-5"]
    assert [v["paired"] for v in result["variants"]] == [True, True, False]
    assert (result["deals"], result["seed"], result["bots"]) == (400, 5, ["random"])
    assert result["mode"] == "counterfactual" and result["version"] == __version__
    record = result["differences"][0]
    assert set(record) == set(DIFFERENCE_COLUMNS)
    assert set(result["summary"]) == {"fft-4", "legacy-4", "fft-5"}
    hand = next(r for r in result["summary"]["fft-5"] if r["measure"] == "poignee_per_hand")
    assert hand["n"] == 400 * 5 and hand["exact"] > 0
    assert all(
        value is None or not (isinstance(value, float) and math.isnan(value))
        for record in result["differences"]
        for value in record.values()
    )


def test_compare_report_names_the_run_and_marks_what_differs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = parse("fft-4", "fft-5", "--deals", "1000", "--mode", "auction", "--no-progress")
    assert run_command(args) == 0
    out = capsys.readouterr().out
    header = out.splitlines()[0]
    for words in ("baseline fft-4", "fft-5", "random at every seat", "mode: auction",
                  "1,000 deals", "seed 1", __version__):  # fmt: skip
        assert words in header, words
    assert "not paired" in out and "other layout: 5 players" in out
    fft5_rows = [line for line in out.splitlines() if line.split()[:1] == ["fft-5"]]
    assert fft5_rows and any(" * " in line for line in fft5_rows)
    assert "redeal_all_passed" in out


def test_user_mistakes_raise_one_clear_error() -> None:
    fft4 = load_rules("fft-4")
    with pytest.raises(TarotInputError, match="at least two variants"):
        run_command(parse("fft-4", "--deals", "10"))
    with pytest.raises(TarotInputError, match="at least two variants"):
        compare_variants([fft4], 10)
    with pytest.raises(RulesError):
        run_command(parse("fft-4", "fft-44", "--deals", "10"))
    with pytest.raises(TarotInputError, match=r"fft-5: 5 bots were expected"):
        compare_variants([fft4, load_rules("fft-5")], 10, bots=["random"] * 4)
    with pytest.raises(TarotInputError, match="unknown mode"):
        compare_variants([fft4, fft4], 10, mode="bidding")  # type: ignore[arg-type]
    with pytest.raises(TarotInputError, match="deals must be from 1 to"):
        compare_variants([fft4, fft4], 0)
    with pytest.raises(SystemExit):
        parse("fft-4", "legacy-4", "--mode", "bidding")


def test_report_of_a_comparison_is_a_table_of_every_difference(
    four_and_five: Comparison,
) -> None:
    report = format_report(four_and_five, elapsed=1.0)
    lines = report.splitlines()
    assert lines[0].startswith("Variants — baseline fft-4")
    assert any(line.startswith("Paired with fft-4") for line in lines)
    table = lines[lines.index(next(x for x in lines if x.startswith("Differences"))) + 1 :]
    assert len(table) == 1 + len(four_and_five.differences())
    assert isinstance(four_and_five.differences(), pd.DataFrame)


def test_the_report_says_which_mode_it_ran_and_what_the_other_would_show(
    four_and_five: Comparison,
) -> None:
    report = " ".join(format_report(four_and_five).split())
    assert "Mode counterfactual (the default): seat 0 takes every contract on every deal" in report
    assert "nobody bids" in report and "what a rule does to the play alone" in report
    assert "With --mode auction the bots bid under each variant's rules" in report
    rules = [load_rules(name) for name in ("fft-4", "legacy-4")]
    auction = " ".join(format_report(compare_variants(rules, 300, seed=1, mode="auction")).split())
    assert "Mode auction: the bots bid under each variant's rules" in auction
    assert "Mode counterfactual" not in auction and "--mode auction" not in auction


def test_bots_compared_on_the_same_deals() -> None:
    rules = load_rules("fft-4")
    comparison = compare_variants(
        [rules], 1_500, compare_bots=["random", "heuristic"], seed=3, mode="auction", threads=1
    )
    assert [v.label for v in comparison.variants] == ["random", "heuristic"]
    assert all(v.paired for v in comparison.variants)
    differences = comparison.differences().set_index(["measure", "contract"])
    # The random bot passes half the time, so all four pass far more rarely than the heuristic.
    passed = differences.loc[("redeal_all_passed", "")]
    assert passed["difference"] > 0.1 and passed["ci_low"] > 0
    # Dealing does not depend on the bots: hand statistics differ by exactly nothing.
    assert differences.loc[("poignee_per_hand", ""), "difference"] == 0
    alone = play(rules, 1_500, bots="heuristic", seed=3)
    rate = np.mean(alone.scores()["redeal_reason"] == "all_passed")
    summary = comparison.summary("heuristic").set_index("measure")
    assert summary.loc["redeal_all_passed", "value"] == pytest.approx(rate)


def test_bots_are_compared_on_one_preset_between_known_bots() -> None:
    fft4, fft5 = load_rules("fft-4"), load_rules("fft-5")
    for rules_list, bots in (
        ([fft4, fft5], ["random", "heuristic"]),
        ([fft4], ["heuristic"]),
        ([fft4], ["heuristic", "nobody"]),
        ([fft4], ["heuristic", "heuristic"]),
        ([load_rules("tarocco")], ["random", "heuristic"]),
    ):
        with pytest.raises(TarotInputError):
            compare_variants(rules_list, 10, compare_bots=bots)


def test_newcombes_intervals_match_their_published_examples() -> None:
    """Paired: Fagerland, Lydersen and Laake, *Statistical Analysis of Contingency Tables*
    (2017), chapter 8, 59/6/16/80 pairs: −0.0621 (−0.1186 to −0.0046)."""
    from tarot_analysis.analyses.compare import paired_rate_interval

    low, high = paired_rate_interval(59, 6, 16, 80)
    assert (round(low, 4), round(high, 4)) == (-0.1186, -0.0046)
    # Every pair of the same side: the interval of no difference is symmetric and narrow.
    low, high = paired_rate_interval(40, 0, 0, 60)
    assert low == pytest.approx(-high) and 0 < high < 0.05
    # Every table of a few pairs stays within what a difference of rates can be.
    for cells in np.ndindex(4, 4, 4, 4):
        if sum(cells):
            low, high = paired_rate_interval(*cells)
            assert -1 <= low <= high <= 1


def test_a_paired_rate_difference_lies_within_a_hundred_points() -> None:
    """Two deals that differ by one success: the normal interval of the mean difference ran to
    −148 points; a difference of two rates lies within ±100 and Newcombe's interval for
    paired rates says so (and agrees with the function on the same pairs)."""
    from tarot_analysis.analyses import compare
    from tarot_analysis.analyses.compare import paired_rate_interval

    rules = load_rules("fft-4")
    variant = compare.Variant(label="fft-4", rules=rules, paired=True, plays=True)
    nan = math.nan

    def success(*values: float) -> Any:
        return compare._PerDeal("success", "garde", "auction", np.array(values))

    baseline = {("success", "garde"): success(1, 1, nan, 0)}
    measured = {("success", "garde"): success(0, 1, 1, nan)}
    (row,) = compare._difference_rows(variant, measured, baseline, 1.959963984540054, 0.95)
    assert (row["n"], row["baseline"], row["value"], row["difference"]) == (2, 1.0, 0.5, -0.5)
    assert -1 <= row["ci_low"] < row["difference"] < row["ci_high"] <= 1
    assert (row["ci_low"], row["ci_high"]) == paired_rate_interval(1, 0, 1, 0)
    # A rate of hands a deal (its shares averaged) is clipped to the same bounds.
    shares = {("poignee_per_hand", ""): compare._PerDeal(
        "poignee_per_hand", "", "hands", np.array([1.0, 0.0]), hands=4)}  # fmt: skip
    other = {("poignee_per_hand", ""): compare._PerDeal(
        "poignee_per_hand", "", "hands", np.array([0.0, 0.0]), hands=4)}  # fmt: skip
    (row,) = compare._difference_rows(variant, other, shares, 1.959963984540054, 0.95)
    assert row["difference"] == -0.5 and row["ci_low"] == -1.0
