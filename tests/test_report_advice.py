"""The best contract by Chavey count read one way everywhere, the count and its scaling told as
the code counts, the ladder's measured moves as docs/bots.md states them, and the printed
layout that keeps every figure whole: each checked on small made-up runs or pages, without a
report built."""

from __future__ import annotations

import argparse
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tarot_analysis.analyses.guidance import (
    COUNT_MIN_DEALS,
    ChaveyAdvice,
    GuidanceData,
    chavey_advice,
    chavey_bands,
    published_thresholds,
    rows_counts,
    table_by,
)
from tarot_analysis.analyses.guidance.advice import count_pools
from tarot_analysis.deals import evaluators as ev
from tarot_analysis.game.cards import Hand
from tarot_analysis.game.rules import load_rules
from tarot_analysis.report import plots
from tarot_analysis.report.bidding import band_cell, by_count_parts
from tarot_analysis.report.html import Cell, Context, Table, environment, pieces
from tarot_analysis.report.prise import PriseReading
from tarot_analysis.report.summary import (
    LADDER_BOTS,
    LADDERS,
    how_to_count,
    ladder_moves,
    scaled_thresholds,
)

ROOT = Path(__file__).resolve().parents[1]


def _rows(deals: int, seed: int) -> pd.DataFrame:
    """Guidance rows of made-up deals: counts from a bell with thin tails, each contract worth
    more as the count grows (a Garde pays from about 50, the pass 0)."""
    rng = np.random.default_rng(seed)
    chavey = np.clip(np.round(rng.normal(45, 10, deals)), 5, 95).astype(np.int64)
    noise = rng.normal(0, 40, (4, deals))
    garde = 10.0 * (chavey - 50) + noise[0]
    scores = {
        "prise": np.round(garde / 2 + noise[1] / 4),
        "garde": np.round(garde),
        "garde_sans": np.round(2 * garde - 200 + noise[2]),
        "garde_contre": np.round(3 * garde - 500 + noise[3]),
    }
    frame = pd.DataFrame(
        {
            "deal": np.arange(deals), "redeal": np.zeros(deals, bool),
            "bid_before": -np.ones(deals, np.int64), "chavey": chavey,
            "chavey_distribution": chavey + rng.integers(0, 4, deals), "bouts": chavey // 30,
            "trumps": chavey // 8, "kings": chavey // 25, "bouts_and_trumps": chavey // 3,
            "taken": np.zeros(deals, bool), "score_pass": np.zeros(deals),
        }
    )  # fmt: skip
    for name, score in scores.items():
        frame[f"score_{name}"] = score
        frame[f"made_{name}"] = score > 0
    return frame


@pytest.fixture(scope="module")
def made_up() -> GuidanceData:
    rules = load_rules("fft-4")
    rows = _rows(3_000, seed=5)
    counts = rows_counts(rows, [c.name for c in rules.contracts], seed=1)
    return GuidanceData(rules=rules, bots=("heuristic",) * 4, seed=1, counts=counts)


def _expand(parts: list[str]) -> dict[int, str]:
    """``["5–44: Pass", "45: Pass ≈ Prise"]`` → the best written at each count."""
    out = {}
    for part in parts:
        counts, best = part.replace("\u00a0", " ").split(": ")
        low, _, high = counts.partition("–")
        for value in range(int(low), int(high or low) + 1):
            out[value] = best
    return out


def test_the_pools_hold_enough_deals_and_follow_one_another() -> None:
    n = pd.Series([1, 3, 250, 400, 90, 80, 40, 5], index=[3, 4, 5, 6, 7, 8, 9, 12])
    pools = count_pools(n, 200)
    assert pools == [(3, 5), (6, 6), (7, 12)]  # the thin top joins the pool below it
    assert count_pools(pd.Series([10, 20], index=[1, 2]), 200) == [(1, 2)]


def test_the_line_by_count_covers_every_count_held(made_up: GuidanceData) -> None:
    advice = chavey_advice(made_up)
    held = table_by(made_up, "chavey")
    best = _expand(by_count_parts(advice))
    # Every count the run holds is answered, the strongest hands too, once each.
    assert sorted(best) == list(range(int(held.index.min()), int(held.index.max()) + 1))
    assert max(best) > 75 and held.loc[held.index > 75, "n"].max() < COUNT_MIN_DEALS
    # A count held by enough deals on its own gets its own best, as the table by count says.
    alone = {v for low, high in advice.pools for v in range(low, high + 1)}
    for value, row in held.iterrows():
        if value not in alone:
            tie = sorted((str(row["best"]), str(row["runner_up"])),
                         key=["pass", *made_up.contracts].index)  # fmt: skip
            expected = " ≈ ".join(tie) if row["tie"] else str(row["best"])
            assert advice.best_at(int(value)) == expected, value
    # Each pool of thin counts holds enough deals.
    for low, high in advice.pools:
        assert held.loc[low:high, "n"].sum() >= COUNT_MIN_DEALS


def test_the_bands_pool_the_deals_of_the_published_thresholds(made_up: GuidanceData) -> None:
    advice = chavey_advice(made_up)
    frame = _rows(3_000, seed=5)
    bands = ["below 40", "40–55", "56–70", "71–80", "81 and more"]
    assert list(advice.by_band.index) == bands[: len(advice.by_band)] and len(advice.by_band) >= 4
    for band, row in advice.by_band.iterrows():
        here = frame[(frame["chavey"] >= row["low"]) & (frame["chavey"] <= row["high"])]
        assert row["n"] == len(here), band
        means = {c: here[f"score_{c}"].mean() for c in made_up.contracts} | {"pass": 0.0}
        assert row["best"] == max(means, key=means.__getitem__), band
    cell = band_cell(advice.by_band.iloc[0])
    assert isinstance(cell, Cell) and cell.parts[-1].endswith(" deals")


@pytest.mark.parametrize(("size", "expected"), [(18, [40, 56, 71, 81]),
                                                (15, [34, 47, 60, 68]),
                                                (24, [54, 75, 95, 108]),
                                                (12, [27, 38, 48, 54])])  # fmt: skip
def test_the_published_thresholds_are_scaled_to_the_hand_as_the_bids_are(
    size: int, expected: list[int]
) -> None:
    assert published_thresholds(size) == expected
    for level, least in enumerate(expected):
        assert ev.chavey_bid(least, least, hand_size=size) >= level
        assert ev.chavey_bid(least - 1, least - 1, hand_size=size) < level
    assert [text for _, _, text in chavey_bands(expected)][1] == f"{expected[0]}–{expected[1] - 1}"


def _context(rules: str) -> Context:
    return Context(load_rules(rules), rules, ("heuristic",) * 5, 1, 1_000, 1_000)


def test_five_players_read_the_thresholds_scaled_once_and_the_count_as_it_is() -> None:
    text = how_to_count(_context("fft-5"))["rules"]
    assert "scaled by 18/15" not in text and "the count is not scaled" in text
    assert "a Prise from 34, a Garde from 47, a Garde sans from 60, a Garde contre from 68" in text
    assert scaled_thresholds(18) == ""
    for path in ("README.md", "docs/guidance.md"):
        doc = " ".join((ROOT / path).read_text(encoding="utf-8").split())
        assert "the count is scaled to 18 cards" not in doc, path
        assert "the count stays as it is and the thresholds are scaled" in doc, path
        assert "34, 47, 60 and 68" in doc and "54, 75, 95 and 108" in doc, path


def test_the_counting_box_says_what_the_code_counts_for_the_petit() -> None:
    text = how_to_count(_context("fft-4"))["rules"]
    assert "the Excuse counted as one" in text and "nothing with fewer than 5" in text
    # The Excuse makes the fifth trump of the Petit: 5; without it, four trumps: nothing.
    five = ev.chavey_parts(*Hand.parse("1 2 3 4 E KS QS JS 10S 9S KH QH JH KD QD JD KC QC").mask)
    four = ev.chavey_parts(*Hand.parse("1 2 3 4 8S KS QS JS 10S 9S KH QH JH KD QD JD KC QC").mask)
    assert int(five["petit"]) == 5 and int(five["trump_length"]) == 10
    assert int(four["petit"]) == 0 and int(four["trump_length"]) == 0


@pytest.mark.parametrize("rules", sorted(LADDERS))
def test_the_moves_up_the_ladder_are_those_docs_bots_measured(rules: str) -> None:
    doc = (ROOT / "docs/bots.md").read_text(encoding="utf-8")
    section = doc.split("## How the answers move up the ladder")[1].split("\n## ")[0]
    blocks = section.split(f"### `{rules}`")[1].split("\n\n")
    table = next(block for block in blocks if block.startswith("| measure"))
    rows = {line.split(" | ")[0].strip("| "): line.split(" | ")[1:] for line in
            table.splitlines()[2:]}  # fmt: skip
    ladder = LADDERS[rules]
    measured = {
        "deals passed out": f"deals passed out, of {ladder.auction_deals:,}",
        "Garde sans, of the contracts": "garde_sans: share of the deals played, deals",
        "a Garde bid made": "a Garde bid made",
    }
    assert len(LADDER_BOTS) == 3
    for row in ladder.rates:
        cells = rows[measured[row.what]]
        for (value, low, high), cell in zip(row.values, cells, strict=True):
            assert cell.startswith(f"{value:.1f}% ({low:.1f}%–{high:.1f}%)"), (row.what, cell)
    cells = rows["Chavey count from which a garde is bid (bootstrap 95%)"]
    for (value, low, high), cell in zip(ladder.garde.values, cells, strict=True):
        assert cell.strip(" |") == f"{value} ({low}–{high})"
    line = ladder_moves(_context(rules))
    passed = " / ".join(f"{value:.1f}%" for value, _, _ in ladder.rates[0].values)
    assert line.startswith(f"({rules}, seed 1") and passed in line and "docs/bots.md" in line
    pimc = Context(load_rules(rules), rules, ("pimc",) * load_rules(rules).players, 1, 1, 1)
    assert ladder_moves(pimc) == ""  # a report under the search bot speaks for itself


@pytest.mark.parametrize("rules", sorted(LADDERS))
def test_the_learned_takers_against_the_search_are_those_docs_bots_measured(rules: str) -> None:
    doc = (ROOT / "docs/bots.md").read_text(encoding="utf-8")
    section = doc.split("### Learned takers against searching defenders")[1].split("\n## ")[0]
    table = section.split(f"**`{rules}`**")[1].split("\n\n")[2]
    row = next(line for line in table.splitlines() if line.startswith("| all |"))
    own, mixed, change, low, high, pairs = LADDERS[rules].defence
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert cells[3:5] == [f"{own:.1f}%", f"{mixed:.1f}%"], row
    shown = f"{change:+.1f} pp ({low:+.1f} to {high:+.1f})".replace("-", "\u2212")
    assert shown in row and row.endswith(f"({pairs}) |"), row
    learned = Context(load_rules(rules), rules, ("learned",) * load_rules(rules).players, 1, 1, 1)
    line = ladder_moves(learned)
    assert f"make {mixed:.1f}% of the time, {own:.1f}% at its own table" in line
    assert ("a tie" in line) == (low <= 0 <= high)
    heuristic = Context(load_rules(rules), rules, ("heuristic",) * 4, 1, 1, 1)
    assert "searching defenders" not in ladder_moves(heuristic)


def test_a_printed_figure_never_wraps_inside_itself() -> None:
    assert pieces("74.8% (73.9–75.7)").parts == ("74.8%", "(73.9–75.7)")
    rows = [[str(k), f"{k}.5% ({k}.1–{k}.9)", "+12.3\u00a0±\u00a01.4", "Garde ≈ Prise"]
            for k in range(30)]  # fmt: skip
    caption = _context("fft-4").caption("t", mode="m", n="n", interval="i")
    table = Table("long", caption, ["a", "rate (95%)", "score", "best"], rows)
    macro = '{% from "macros.html.j2" import table %}{{ table(t) }}'
    page = environment().from_string(macro).render(t=table)
    assert '<td class="parts"><span class="keep">3.5%</span> <span class="keep">(3.1–3.9)' in page
    assert "<td>+12.3\u00a0±\u00a01.4</td>" in page and '<td class="words">Garde ≈ Prise' in page
    # The first rows are printed with the header, which repeats on every page, and the last
    # rows together: no row is left alone at the head of a page.
    assert page.count("<tbody") == 3 and '<tbody class="first-rows">' in page
    last = page.split('<tbody class="last-rows">')[1].split("</tbody>")[0]
    assert last.count("<tr>") == 3 and ">29</th>" in last
    css = (ROOT / "tarot_analysis/report/templates/style.css").read_text(encoding="utf-8")
    printed = css.split("@media print")[1]
    assert "thead { display: table-header-group" in printed
    assert re.search(r"tr, tbody\.first-rows, tbody\.last-rows \{ break-inside: avoid", printed)
    assert "p.note { break-before: avoid; }" in printed
    assert "td { white-space: nowrap; }" in printed and "break-word" not in printed
    assert ".keep { white-space: nowrap; }" in css
    # The run's details break between entries, never inside one.
    assert "dl.metadata div { break-inside: avoid; }" in printed


def test_only_a_short_table_is_kept_whole_when_printed() -> None:
    caption = _context("fft-4").caption("t", mode="m", n="n", interval="i")
    macro = '{% from "macros.html.j2" import table %}{{ table(t) }}'
    for rows, whole in ((12, True), (13, False), (24, False)):
        table = Table("t", caption, ["a", "b"], [[str(k), "x"] for k in range(rows)])
        page = environment().from_string(macro).render(t=table)
        assert ('class="table-wrap short"' in page) == whole, rows
        assert (page.count("<tbody") == 1) == whole, rows
    css = (ROOT / "tarot_analysis/report/templates/style.css").read_text(encoding="utf-8")
    assert ".table-wrap.short, figure { break-inside: avoid; }" in css.split("@media print")[1]


def test_the_score_axis_fits_the_choice_and_the_map_the_cells_drawn() -> None:
    counts = np.arange(10, 60)
    best = np.where(counts < 45, 0.0, 8.0 * (counts - 45))
    table = pd.DataFrame(
        {
            "n": 500, "best": np.where(counts < 45, "pass", "garde"), "best_mean_score": best,
            "difference": 20.0, "tie": False, "prise_mean_score": best - 20,
            "garde_mean_score": np.where(counts < 45, -40.0, best),
            "garde_contre_mean_score": -1500.0 + 10 * counts,
        }
        | {f"{name}_rate": 0.5 for name in ("prise", "garde", "garde_contre")},
        index=pd.Index(counts, name="chavey"),
    )  # fmt: skip
    axes = plots.expected_score_by_score(table).axes[0]
    low, high = axes.get_ylim()
    assert -40 < low < -20 and 120 < high < 150  # not down to the Garde contre's −1,400
    cells = pd.DataFrame(
        {"n": [300, 300, 60, 1], "best": ["pass", "garde", "garde", "garde"]},
        index=pd.MultiIndex.from_tuples([(0, 3), (1, 6), (2, 11), (2, 14)],
                                        names=["bouts", "trumps"]),
    )  # fmt: skip
    grid = plots.recommended_map(cells, min_n=50).axes[0]
    assert [t.get_text() for t in grid.get_xticklabels()][-1] == "11"
    legend = [t.get_text() for t in plots.success_by_score(table_by_rates()).axes[0]
              .get_legend().get_texts()]  # fmt: skip
    assert any("under the Garde" in text for text in legend)


def table_by_rates() -> pd.DataFrame:
    """A success table of two contracts made on the same deals, as Prise and Garde are."""
    counts = np.arange(30, 60)
    rate = (counts - 30) / 30
    columns = {"n": 500}
    for name in ("prise", "garde"):
        columns |= {f"{name}_rate": rate, f"{name}_ci_low": rate * 0.9,
                    f"{name}_ci_high": np.minimum(rate * 1.1, 1)}  # fmt: skip
    return pd.DataFrame(columns, index=pd.Index(counts, name="chavey"))


# --- The Prise read once ------------------------------------------------------------------------


def _advice(
    by_count: list[tuple[int, int, str]], bands: list[tuple[str, str, str]]
) -> ChaveyAdvice:
    """A run's best contract by count (``low, high, best``) and by band (``band, best,
    runner-up``), as :func:`chavey_advice` writes them."""
    counts = pd.DataFrame(
        [{"low": lo, "high": hi, "best": best, "tie": "≈" in best, "n": 300,
          "mean_best_score": 1.0, "half_width": 1.0} for lo, hi, best in by_count]
    )  # fmt: skip
    by_band = pd.DataFrame(
        [{"low": 40, "high": 55, "n": 5_000, "best": best, "runner_up": runner,
          "difference": 1.7, "difference_ci_low": -0.4, "difference_ci_high": 3.8, "tie": True}
         for _, best, runner in bands],
        index=pd.Index([band for band, _, _ in bands], name="band"),
    )  # fmt: skip
    return ChaveyAdvice(by_count=counts, pools=[], by_band=by_band, min_n=200, played=20_000)


def _fitted(prise: float, garde: float) -> dict[str, dict[str, float]]:
    return {
        "prise": {"fitted": prise, "ci_low": prise - 1, "ci_high": prise + 3, "never_alone": 0.9},
        "garde": {"fitted": garde, "ci_low": garde - 1, "ci_high": garde + 3, "never_alone": 0.0},
        "garde_sans": {"fitted": 67, "ci_low": 58, "ci_high": math.inf, "never_alone": 0.5},
        "garde_contre": {"fitted": 67, "ci_low": 61, "ci_high": math.inf, "never_alone": 0.5},
    }


def _summary_row(reading: PriseReading | None, fitted: dict[str, dict[str, float]]) -> list[Cell]:
    """The Prise's row of page 1's table of thresholds, as the summary writes it."""
    from tarot_analysis.report.runs import Guidance
    from tarot_analysis.report.summary import _thresholds

    table = pd.DataFrame(
        [{"evaluator": "chavey", "contract": c, **row, "published": 40.0, "replicates": 200}
         for c, row in fitted.items()]
    ).set_index(["evaluator", "contract"])  # fmt: skip
    data = argparse.Namespace(played_deals=20_000)
    guidance = Guidance(data, Path("x"), {"thresholds": table}, {}, 0, 0, data)
    made = _thresholds(guidance, _context("fft-4"), reading)
    return next(row for row in made.cells() if row[0].text == "Prise")


def test_the_prise_never_bid_alone_reads_so_on_every_page() -> None:
    from tarot_analysis.report.prise import POOLED_ONLY, prise_reading

    contracts = ["prise", "garde", "garde_sans", "garde_contre"]
    advice = _advice(
        [(3, 44, "pass"), (45, 45, "pass ≈ prise"), (46, 60, "garde"), (61, 90, "garde_sans")],
        [("40–55", "prise", "garde"), ("56–70", "garde", "prise")],
    )
    fitted = _fitted(46, 46)
    reading = prise_reading(advice, fitted, contracts)
    assert reading is not None and not reading.bid_alone
    # Page 1's table row: not "bid from 46", but the Garde bid instead.
    row = _summary_row(reading, fitted)
    assert row[1].text == "never alone: a Garde from 46" == reading.bid_from()
    # The sentence said once on page 1: the tie with passing at 45, the row, the band.
    sentence = reading.sentence()
    assert sentence.startswith("The Prise is never better than the alternatives on its own")
    assert "it ties with passing at 45" in sentence and "a Garde from 46" in sentence
    assert "band 40–55" in sentence and POOLED_ONLY in sentence
    # Section 7's band cell of the same run: marked pooled only, the Garde's band not.
    cells = [band_cell(row, reading) for _, row in advice.by_band.iterrows()]
    assert cells[0].parts[-1] == POOLED_ONLY and POOLED_ONLY not in cells[1].text
    assert POOLED_ONLY not in band_cell(advice.by_band.iloc[0]).text


def test_a_prise_bid_alone_reads_its_threshold_on_every_page() -> None:
    from tarot_analysis.report.prise import POOLED_ONLY, prise_reading

    contracts = ["prise", "garde", "garde_sans", "garde_contre"]
    advice = _advice(
        [(3, 41, "pass"), (42, 44, "prise"), (45, 45, "prise ≈ garde"), (46, 60, "garde")],
        [("40–55", "prise", "garde")],
    )
    fitted = _fitted(42, 46)
    reading = prise_reading(advice, fitted, contracts)
    assert reading is not None and reading.bid_alone
    assert _summary_row(reading, fitted)[1].text == "42"
    assert reading.sentence() == (
        "The Prise scores best on its own at 42–44: bid it from 42, a Garde from 46."
    )
    assert POOLED_ONLY not in band_cell(advice.by_band.iloc[0], reading).text
    # Best at a count, but the rule fitted over every count goes straight to the Garde: the
    # reading is one, never alone, and says both.
    skipped = prise_reading(advice, _fitted(46, 46), contracts)
    assert skipped is not None and not skipped.bid_alone
    assert "it is best at 42–44 count by count, but the rule fitted" in skipped.sentence()
    assert prise_reading(advice, None, ["garde"]) is None


def test_the_prise_reads_the_same_in_the_summary_and_up_the_ladder(
    made_up: GuidanceData,
) -> None:
    from tarot_analysis.analyses.guidance import thresholds
    from tarot_analysis.report.ladder import Ladder, _bands_table, guidance_rung
    from tarot_analysis.report.prise import POOLED_ONLY, prise_reading

    fitted = thresholds(made_up)
    rung = guidance_rung("heuristic", Path("x"), made_up, fitted)
    reading = rung.prise
    assert reading == prise_reading(rung.advice, rung.thresholds, made_up.contracts)
    assert reading is not None
    bands = _bands_table([rung], _context("fft-4"))
    rows = {row[0].text: row[1].text for row in (r for r in bands.cells())}
    for band, row in rung.advice.by_band.iterrows():
        marked = POOLED_ONLY in rows[str(band)]
        assert marked == (row["best"] == "prise" and not reading.bid_alone), band
    chavey = {c: r for (e, c), r in fitted.to_dict("index").items() if e == "chavey"}
    assert _summary_row(reading, chavey)[1].text == reading.bid_from()
    assert Ladder(rung, [rung], []).ours.prise is reading


@pytest.mark.parametrize("rules", ["fft-3", "fft-5", "legacy-4", "six-king-queen"])
def test_page_one_quotes_its_own_presets_ladder_and_no_other(rules: str) -> None:
    line = ladder_moves(_context(rules))
    for other in LADDERS:
        if other != rules:
            assert f"({other}, seed 1" not in line, (rules, other)
    if rules in LADDERS:
        assert line.startswith(f"({rules}, seed 1"), line
    else:
        assert line.startswith(f"nothing was measured for {rules}:"), line


def test_a_prise_the_fitted_rule_bids_but_no_count_reads_never_alone() -> None:
    from tarot_analysis.report.prise import prise_reading

    contracts = ["prise", "garde", "garde_sans", "garde_contre"]
    advice = _advice([(3, 44, "pass ≈ prise"), (45, 60, "prise ≈ garde")], [])
    reading = prise_reading(advice, _fitted(44, 46), contracts)
    assert reading is not None and not reading.bid_alone
    assert reading.bid_from() == "never alone: a Garde from 46"
    assert "the rule fitted over every count bids it from 44, but no count" in reading.sentence()
