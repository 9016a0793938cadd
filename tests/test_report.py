"""The strategy report, built from small real runs: what the file holds, that it stands alone,
that a second build reuses the stored runs, and that a real browser renders every chart."""

from __future__ import annotations

import argparse
import base64
import html
import json
import os
import re
import shutil
import subprocess
import unicodedata
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from tarot_analysis import __version__, report
from tarot_analysis.cli.commands.report import add_parser
from tarot_analysis.cli.commands.report import run as run_command
from tarot_analysis.errors import TarotInputError
from tarot_analysis.report import build_report
from tarot_analysis.report.html import threshold

# The report is built and printed once per module, then read by each test: tens of seconds.
pytestmark = pytest.mark.slow

DEALS = 20_000
SEED = 1
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
DATA_URI = "data:image/png;base64,"
KEY_TABLES = ("bouts", "contracts", "guidance-chavey-success", "guidance-chavey-score")
# An old time stamp given to the stored files before a second build: one rewritten would lose it.
OLD_NS = 1_000_000_000 * 1_000_000_000


# --- Reading a report back ---------------------------------------------------------------------


@dataclass
class Table:
    """A table of the report as text: its caption, header cells and body rows."""

    caption: str
    header: list[str]
    rows: list[list[str]]


class _ReportReader(HTMLParser):
    """Collects the tables (by id), the images' sources, every link and the body's attributes."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: dict[str, Table] = {}
        self.images: list[str] = []
        self.links: list[tuple[str, str, str]] = []  # (tag, attribute, value)
        self.body: dict[str, str] = {}
        self.metadata = ""
        self._table: Table | None = None
        self._row: list[str] | None = None
        self._cell: list[str] | None = None
        self._in: str | None = None  # "caption" or "head"
        self._in_metadata = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = {key: value or "" for key, value in attrs}
        for key in ("src", "href", "action", "poster", "data"):
            if key in named:
                self.links.append((tag, key, named[key]))
        if tag == "body":
            self.body = named
        elif tag == "img":
            self.images.append(named.get("src", ""))
        elif tag == "dl" and named.get("id") == "metadata":
            self._in_metadata = True
        elif tag == "table":
            self._table = Table("", [], [])
            self.tables[named.get("id", f"unnamed-{len(self.tables)}")] = self._table
        elif tag == "caption":
            self._in = "caption"
        elif tag == "thead":
            self._in = "head"
        elif tag == "tbody":
            self._in = None
        elif tag == "tr" and self._table is not None:
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "dl":
            self._in_metadata = False
        elif tag == "caption":
            self._in = None
        elif tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "tr" and self._row is not None and self._table is not None:
            if self._in == "head":
                self._table.header = self._row  # the last header row names the columns
            else:
                self._table.rows.append(self._row)
            self._row = None
        elif tag == "table":
            self._table = None

    def handle_data(self, data: str) -> None:
        if self._in_metadata:
            self.metadata += data + " "
        if self._in == "caption" and self._table is not None:
            self._table.caption += data
        elif self._cell is not None:
            self._cell.append(data)


def read_report(text: str) -> _ReportReader:
    reader = _ReportReader()
    reader.feed(text)
    reader.close()
    return reader


# --- One report of 20,000 deals, built once ------------------------------------------------------


@dataclass
class Built:
    path: Path
    data: Path
    out: Path
    text: str


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """The report of fft-4 with random bots, 20,000 deals, seed 1, in a fresh folder."""
    root = tmp_path_factory.mktemp("report")
    data, out = root / "data", root / "reports"
    path = build_report("fft-4", DEALS, bots="random", seed=SEED, data_dir=data, out_dir=out)
    return Built(path=path, data=data, out=out, text=path.read_text(encoding="utf-8"))


def stored_files(data: Path) -> list[Path]:
    """Every file the report's runs keep: guidance chunks and _run.json, JSON tables."""
    return sorted(p for p in data.rglob("*") if p.is_file())


def test_report_is_written_where_it_says() -> None:
    path = report.report_path("fft-4", ("random",) * 4, DEALS, "reports")
    assert path == Path("reports/strategy-fft-4-random-20000.html")
    mixed = report.report_path("fft-4", ("random", "random", "heuristic", "random"), 10, "out")
    assert mixed.name == "strategy-fft-4-random-random-heuristic-random-10.html"
    # The guidance command's folder for the same run: `guidance --rules fft-4 --seed 1
    # --deals 20000` writes to data/guidance-fft-4-random-seed1-20000.
    assert report.guidance_folder("fft-4", ("random",) * 4, 1, DEALS) == Path(
        "data/guidance-fft-4-random-seed1-20000"
    )


def test_report_stands_alone(built: Built) -> None:
    assert built.path == built.out / "strategy-fft-4-random-20000.html"
    page = read_report(built.text)
    external = [
        (tag, key, value)
        for tag, key, value in page.links
        if re.match(r"\s*(https?:)?//", value, re.IGNORECASE)
    ]
    assert external == []
    assert "<link" not in built.text and "@import" not in built.text
    assert not re.search(r"url\(\s*['\"]?(https?:)?//", built.text)
    assert not re.search(r"<script[^>]*\bsrc=", built.text)
    assert len(page.images) >= 12  # hand distributions, poignée, petit sec, guidance charts
    for source in page.images:
        assert source.startswith(DATA_URI)
        assert base64.b64decode(source[len(DATA_URI) :]).startswith(PNG_MAGIC)
    # Internal links only point within the page.
    assert all(value.startswith("#") for _, key, value in page.links if key == "href")


def test_report_holds_the_key_tables(built: Built) -> None:
    tables = read_report(built.text).tables
    for key in KEY_TABLES:
        assert f"table-{key}" in tables, sorted(tables)
    bouts = tables["table-bouts"]
    assert bouts.header == ["bouts", "count", "simulated", "95% Wilson interval", "exact"]
    assert [row[0] for row in bouts.rows] == ["0", "1", "2", "3"]
    # 0 bouts: the exact value is C(75, 18) / C(78, 18), 0.449813.
    assert bouts.rows[0][-1] == "0.449813"
    assert sum(int(row[1].replace(",", "")) for row in bouts.rows) == DEALS * 4
    contracts = tables["table-contracts"]
    assert [row[0] for row in contracts.rows] == ["Prise", "Garde", "Garde sans", "Garde contre"]
    guidance = tables["table-guidance-chavey-success"]
    assert guidance.header[:2] == ["Chavey count", "deals"] and "Garde" in guidance.header
    for key in ("checks", "poignee", "petit-sec", "threshold-loss", "model-comparison"):
        assert f"table-{key}" in tables
    # The best contract comes with its runner-up and their paired difference; ties marked.
    scores = tables["table-guidance-chavey-score"]
    assert scores.header[-3:] == ["best (≈ tie)", "best − runner-up (95%)", "best changes"]
    ties = [row for row in scores.rows if "≈" in row[-3] and int(row[1].replace(",", "")) >= 30]
    assert ties and all(re.search(r"\(-\d", row[-2]) for row in ties)  # their intervals reach 0
    loss = tables["table-threshold-loss"]
    assert "loss per deal, out of sample (95%)" in loss.header
    assert [row[0] for row in loss.rows][:2] == [
        "Chavey's published thresholds", "Thresholds fitted on Chavey's count",
    ]  # fmt: skip
    thresholds = tables["table-thresholds"]
    assert ["Chavey's count", "Garde"] == thresholds.rows[1][:2] and thresholds.rows[1][-1] == "56"
    passing = tables["table-passing"]
    assert passing.header[-1] == "best, seat 3" and "best, pass measured" in passing.header
    assert "interval" in tables["table-model-coefficients"].caption
    assert "table-best-by-model" in tables
    # Every caption names the rules, the bots, the mode, n and the interval.
    for name, table in tables.items():
        caption = table.caption
        assert "Rules fft-4" in caption, name
        assert "bots:" in caption and "mode:" in caption and "n = " in caption, name
        assert re.search(r"interval|estimate|p-value", caption), name
    assert "mode: auction" in tables["table-contracts"].caption
    assert "random at every seat" in tables["table-contracts"].caption
    assert "mode: counterfactual" in guidance.caption
    assert "mode: deal only" in bouts.caption


def test_report_states_its_metadata(built: Built) -> None:
    metadata = read_report(built.text).metadata
    for expected in ("fft-4", "random at every seat", f"{DEALS:,}", "65,536", __version__):
        assert expected in metadata
    assert re.search(r"Seed\s+1\b", metadata)
    assert "SeedSequence(seed, spawn_key=(i,))" in metadata
    assert "docs/rules.md#fft-4" in metadata  # where the preset's rules come from
    assert "Exact-vs-simulated checks" in built.text
    assert "How to read this report" in built.text


def test_second_build_reuses_the_stored_runs(built: Built) -> None:
    files = stored_files(built.data)
    names = {p.name for p in files}
    assert "chunk-000000.parquet" in names and "_run.json" in names
    assert f"hands-fft-4-seed{SEED}-{DEALS}.json" in names
    assert f"contracts-fft-4-random-seed{SEED}-{DEALS}.json" in names
    for path in files:
        os.utime(path, ns=(OLD_NS, OLD_NS))
    again = build_report(
        "fft-4", DEALS, bots="random", seed=SEED, data_dir=built.data, out_dir=built.out
    )
    assert again == built.path
    assert stored_files(built.data) == files
    assert all(path.stat().st_mtime_ns == OLD_NS for path in files)
    text = again.read_text(encoding="utf-8")
    assert read_report(text).tables == read_report(built.text).tables
    assert "1 chunk reused, 0 computed now" in text


def test_a_stored_table_of_another_run_is_computed_again(
    built: Built, capsys: pytest.CaptureFixture[str]
) -> None:
    hands = built.data / f"hands-fft-4-seed{SEED}-{DEALS}.json"
    stored = json.loads(hands.read_text(encoding="utf-8"))
    stored["metadata"]["chunk_size"] = 1000  # as if another run had written it
    hands.write_text(json.dumps(stored), encoding="utf-8")
    parser = argparse.ArgumentParser(prog="tarot-analysis")
    add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(
        ["report", "--rules", "fft-4", "--deals", str(DEALS), "--seed", str(SEED), "--out",
         str(built.out), "--data", str(built.data), "--no-progress", "--bots", "random"]
    )  # fmt: skip
    assert run_command(args) == 0
    printed = capsys.readouterr().out
    assert re.fullmatch(rf"Report: {re.escape(str(built.path))} \(\d+\.\d s\)\n", printed)
    assert json.loads(hands.read_text(encoding="utf-8"))["metadata"]["chunk_size"] == 65_536
    text = built.path.read_text(encoding="utf-8")
    assert read_report(text).tables == read_report(built.text).tables


def test_bad_options_fail_before_any_run(tmp_path: Path) -> None:
    with pytest.raises(TarotInputError, match="one bot for every seat"):
        build_report("fft-4", 10, bots=["random", "random"], data_dir=tmp_path, out_dir=tmp_path)
    with pytest.raises(TarotInputError, match="unknown bot"):
        build_report("fft-4", 10, bots="nobody", data_dir=tmp_path, out_dir=tmp_path)
    with pytest.raises(TarotInputError, match="no contracts"):
        build_report("tarocco", 10, data_dir=tmp_path, out_dir=tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_no_browser_means_no_pdf(
    built: Built, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(report.pdf, "find_chromium", lambda: None)
    with pytest.raises(TarotInputError, match="no headless Chromium found"):
        report.render_pdf(built.path, tmp_path / "report.pdf")
    assert not (tmp_path / "report.pdf").exists()


def test_a_report_without_a_browser_is_html_and_one_line_on_how_to_get_the_pdf(
    built: Built, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(report.pdf, "find_chromium", lambda: None)
    os.utime(built.path, ns=(OLD_NS, OLD_NS))
    parser = argparse.ArgumentParser(prog="tarot-analysis")
    add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(
        ["report", "--rules", "fft-4", "--deals", str(DEALS), "--seed", str(SEED), "--out",
         str(built.out), "--data", str(built.data), "--no-progress", "--bots", "random", "--pdf"]
    )  # fmt: skip
    assert run_command(args) == 0
    captured = capsys.readouterr()
    assert built.path.stat().st_mtime_ns != OLD_NS  # written again
    assert not built.path.with_suffix(".pdf").exists()
    assert captured.out.startswith(f"Report: {built.path} ")
    lines = captured.err.splitlines()
    assert len(lines) == 1, lines
    assert "no headless Chromium found" in lines[0]
    assert "print it to PDF from a browser" in lines[0] and "make browser" in lines[0]


# --- In a real browser ---------------------------------------------------------------------------


@pytest.fixture(scope="session")
def chromium() -> str:
    """A headless Chromium: the one installed, else the one `make browser` installs once (only
    as root, and only when the install upgrades or removes nothing already installed)."""
    found = report.find_chromium()
    if found:
        return found
    if shutil.which("apt-get") is None or os.geteuid() != 0:
        pytest.skip("no Chromium installed, and apt-get is missing or needs root to install one")
    script = Path(__file__).resolve().parent.parent / "scripts" / "install_chromium.sh"
    try:
        done = subprocess.run(
            ["sh", str(script)], capture_output=True, text=True, timeout=900, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        pytest.skip(f"no Chromium installed, and installing one failed: {error}")
    found = report.find_chromium()
    if not found:
        said = (done.stdout.strip().splitlines() or ["no message"])[-1]
        pytest.skip(f"no Chromium installed: {said}")
    return found


def run_chromium(browser: str, profile: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    command = [browser, *report.CHROMIUM_FLAGS, f"--user-data-dir={profile}", *arguments]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def test_every_chart_renders_in_a_headless_browser(
    built: Built, chromium: str, tmp_path: Path
) -> None:
    done = run_chromium(
        chromium, tmp_path / "profile", "--virtual-time-budget=5000", "--dump-dom",
        built.path.resolve().as_uri(),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    dom = read_report(done.stdout)
    images = len(read_report(built.text).images)
    # Set by the report's own script once the page has loaded: the images that decoded.
    assert dom.body.get("data-images-total") == str(images)
    assert dom.body.get("data-images") == str(images)
    for key in KEY_TABLES:
        assert f"table-{key}" in dom.tables
    assert dom.tables["table-bouts"].header[-1] == "exact"


@dataclass
class PrintedPage:
    """A page of the PDF: its size in points, its text, where its text lies, its images."""

    width: float
    height: float
    text: str
    right_edges: list[float]  # the x of every piece of text, in points from the left
    images: int
    lowest: float  # the y of its lowest piece of text, in points from the foot of the page


def read_pdf(path: Path) -> list[PrintedPage]:
    from pypdf import PdfReader

    pages = []
    for page in PdfReader(path).pages:
        xs: list[float] = []
        ys: list[float] = []

        def visit(
            text: str, cm: Any, tm: Any, font: Any, size: Any, xs: list[float] = xs,
            ys: list[float] = ys,
        ) -> None:  # fmt: skip
            if text.strip():
                xs.append(tm[4] * cm[0] + tm[5] * cm[2] + cm[4])
                ys.append(tm[4] * cm[1] + tm[5] * cm[3] + cm[5])

        text = page.extract_text(visitor_text=visit)
        box = page.mediabox
        height = float(box.height)
        pages.append(
            PrintedPage(
                float(box.width), height, text, xs, len(page.images), min(ys, default=height)
            )
        )
    return pages


@pytest.fixture(scope="module")
def printed(built: Built, chromium: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    del chromium  # render_pdf finds the browser itself
    return report.render_pdf(built.path, tmp_path_factory.mktemp("pdf") / "report.pdf")


def _squeezed(text: str) -> str:
    """Text without its white space (a header wrapped onto two lines reads as one) and its
    ligatures written out (the PDF's "ﬁ" is "fi")."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text))


def test_report_prints_on_a4_and_loses_no_column(built: Built, printed: Path) -> None:
    content: Any = printed.read_bytes()
    assert content.startswith(b"%PDF") and len(content) > 50_000
    pages = read_pdf(printed)
    for page in pages:  # A4: 210 × 297 mm, 595.3 × 841.9 points
        assert abs(page.width - 595.3) < 2 and abs(page.height - 841.9) < 2, page
        assert all(0 <= x < page.width for x in page.right_edges)
    text = _squeezed("".join(page.text for page in pages))
    tables = read_report(built.text).tables
    assert len(tables) > 20
    for key, table in tables.items():
        for header in table.header:
            assert _squeezed(header) in text, (key, header)
    # The summary fills the first page; the contents follow, numbered as the headings.
    first, second = (unicodedata.normalize("NFKC", page.text) for page in pages[:2])
    assert "1 Summary" in first and "Contents" not in first
    assert "Contents" in second and "2 How to read this report" in second


def test_printed_report_has_no_near_empty_page(printed: Path) -> None:
    pages = read_pdf(printed)
    assert len(pages) >= 8
    for number, page in enumerate(pages[:-1], start=1):
        # A page of text holds thousands of characters; a chart and its caption, one image.
        assert len(page.text) > 600 or page.images, (number, len(page.text))
    # Between the summary (a page of its own) and the last page, none is left half empty: a
    # table splits rather than move whole, and no heading waits alone at the foot of a page.
    for number, page in enumerate(pages[1:-1], start=2):
        assert page.lowest < page.height / 2, (number, page.lowest)


def _sections(text: str) -> list[str]:
    return re.findall(r'<section id="([^"]+)">', text)


def _heading_texts(text: str) -> dict[str, str]:
    """Every numbered heading of the page by the id a link points to."""
    found = {
        key: title for key, title in re.findall(r'<section id="([^"]+)">\s*<h2>([^<]+)</h2>', text)
    }
    found.update(re.findall(r'<h3 id="([^"]+)">([^<]+)</h3>', text))
    return found


def test_the_summary_opens_and_what_it_does_not_say_closes(built: Built) -> None:
    sections = _sections(built.text)
    assert sections[0] == "summary" and sections[-1] == "limits", sections
    headings = _heading_texts(built.text)
    assert headings["summary"] == "1 Summary"
    assert headings["limits"] == f"{len(sections)} What this does not say"
    tables = read_report(built.text).tables
    summary = tables["table-summary-thresholds"]
    assert summary.header == ["contract", "bid from", "likely between", "a count of its own",
                              "Chavey"]  # fmt: skip
    # The summary's thresholds are the detailed table's rows for Chavey's count.
    detailed = [row for row in tables["table-thresholds"].rows if row[0] == "Chavey's count"]
    assert [row[0] for row in summary.rows] == [row[1] for row in detailed]
    # A Prise never bid alone reads as the contract above it, from that contract's threshold.
    for i, (row, full) in enumerate(zip(summary.rows, detailed, strict=True)):
        assert row[2] == full[3]
        if row[1].startswith("never alone"):
            above = detailed[i + 1]
            assert row[1] == f"never alone: a {above[1]} from {above[2]}", (row, above)
        else:
            assert row[1] == full[2]
    assert [row[-1] for row in summary.rows] == ["40", "56", "71", "81"]
    contracts = tables["table-summary-contracts"]
    assert [row[0] for row in contracts.rows] == [r[0] for r in tables["table-contracts"].rows]
    summary_html = built.text.split('<section id="summary">')[1].split("</section>")[0]
    assert "random at every seat" in summary_html and "random legal card" in summary_html
    # Page 1 says how strong the bots that played were measured: nothing measures random.
    strength = summary_html.split('<span id="bot-strength">')[1].split("</span>")[0]
    assert strength.startswith("Nothing measures these bots against the heuristic in duplicate")
    # Page 1's best contract count by count is section 3's, word for word.
    finding = re.search(r"count by count on this report's deals: (.*?)\. <span", summary_html)
    guidance = built.text.split('<section id="guidance">')[1].split("</section>")[0]
    assert finding and _plain(finding[1]) in _plain(guidance)
    # And section 7's, for the same bots: one reading of the best contract count by count.
    ours = next(row for row in tables["table-ladder-counts"].rows if row[0] == "random")
    assert " ".join(ours[2].split()) == " ".join(_plain(finding[1]).split())
    assert "chosen on half of the deals" in summary_html  # the loss out of sample
    # No run of other bots beside it: the summary says which command makes one.
    assert "table-stronger-play" not in tables
    assert "--bots heuristic" in summary_html
    # Links to every other section, by their numbered headings.
    for key in sections[1:]:
        assert f'<a href="#{key}">{headings[key]}</a>' in summary_html


def test_the_summary_says_how_to_count_a_hand_with_one_counted_by_the_code(built: Built) -> None:
    from tarot_analysis.deals.evaluators import CHAVEY_THRESHOLDS, chavey_sum
    from tarot_analysis.engine.game import GameState
    from tarot_analysis.game.cards import Hand
    from tarot_analysis.game.rules import load_rules

    summary_html = built.text.split('<section id="summary">')[1].split("</section>")[0]
    assert "Every count here is Chavey's count of the hand as dealt" in summary_html
    assert "king with queen 10, king 6, queen 3, knight 2, jack 1" in summary_html
    # Chavey's thresholds stand in the table beside the fitted ones.
    published = read_report(built.text).tables["table-summary-thresholds"]
    assert [row[-1] for row in published.rows] == [str(t) for t in CHAVEY_THRESHOLDS]
    # The worked hand: dealt under the report's rules and seed, counted part by part.
    hand = Hand(GameState.deal(load_rules("fft-4"), seed=SEED).hand(0))
    assert f"{hand}</span>: {chavey_sum(hand)}, a" in summary_html.replace("&#34;", '"')
    assert "<code>tarot-analysis hand" in summary_html


def test_the_summary_speaks_a_players_words(built: Built) -> None:
    summary_html = built.text.split('<section id="summary">')[1].split("</section>")[0]
    for jargon in ("skipped", "bootstrap", "replicate", "±", "0.00", "fitted)"):
        assert jargon not in summary_html, jargon
    assert "points a deal (" in summary_html or "a loss too small to measure" in summary_html


def test_a_loss_too_small_to_measure_is_said_so() -> None:
    from tarot_analysis.report.summary import _loss

    assert _loss(0.001, 0.002) == "a loss too small to measure"
    assert _loss(-0.001, 0.0) == "a loss too small to measure"
    assert _loss(6.35, 0.11) == "6.3 points a deal (6.2 to 6.5)"
    assert _loss(-0.5, 0.3) == "a gain of 0.5 points a deal (0.2 to 0.8)"
    assert _loss(-0.3, 0.3) == "a loss too small to measure (-0.6 to 0.0 points a deal)"


def test_the_summary_sets_other_bots_beside_when_their_run_is_there(
    built: Built, tmp_path: Path
) -> None:
    from tarot_analysis.analyses.guidance import run_guidance, thresholds
    from tarot_analysis.game.rules import load_rules
    from tarot_analysis.runs.runner import read_dataset

    data = tmp_path / "data"
    shutil.copytree(built.data, data)
    rules = load_rules("fft-4")
    # Dealt otherwise (chunks of 500, not the report's 50,000): not the same hands, not shown.
    run_guidance(rules, 1_000, data / "guidance-fft-4-heuristic-seed1-1000", bots="heuristic",
                 seed=SEED, chunk_size=500)  # fmt: skip
    path = build_report("fft-4", DEALS, bots="random", seed=SEED, data_dir=data, out_dir=tmp_path)
    # Shown beside, but with no Garde's change: the two runs did not play the same hands.
    otherwise = read_report(path.read_text(encoding="utf-8")).tables["table-stronger-play"]
    assert otherwise.rows and all(row[-1] == "—" for row in otherwise.rows)
    other = data / "guidance-fft-4-heuristic-seed1-2000"
    stronger = run_guidance(rules, 2_000, other, bots="heuristic", seed=SEED, chunk_size=50_000)
    path = build_report("fft-4", DEALS, bots="random", seed=SEED, data_dir=data, out_dir=tmp_path)
    table = read_report(path.read_text(encoding="utf-8")).tables["table-stronger-play"]
    assert table.header[-1] == "Garde, heuristic − random"
    assert [row[0] for row in table.rows][:2] == ["below 40", "40–55"]
    # The Garde's change below 40, recomputed deal by deal from the two runs' rows.
    ours = read_dataset(built.data / f"guidance-fft-4-random-seed{SEED}-{DEALS}").to_pandas()
    theirs = read_dataset(other).to_pandas()
    both = ours.merge(theirs, on="deal", suffixes=("", "_other"))
    both = both[~both["redeal"] & ~both["redeal_other"] & (both["chavey"] < 40)]
    change = (both["score_garde_other"] - both["score_garde"]).mean()
    assert table.rows[0][-1].startswith(f"{change:+.1f} (")
    assert table.rows[0][-1].endswith(f", {len(both):,} deals")
    # Up the ladder: both runs, the weaker bots first, the larger heuristic run.
    tables = read_report(path.read_text(encoding="utf-8")).tables
    ladder = tables["table-ladder-thresholds"]
    assert [row[0] for row in ladder.rows] == ["random", "heuristic"]
    played = theirs[~theirs["redeal"] & (theirs["bid_before"] < 0)]
    assert ladder.rows[1][1] == f"{len(played):,}"
    garde = thresholds(stronger).loc[("chavey", "garde")]
    fitted = [threshold(garde[k]) for k in ("fitted", "ci_low", "ci_high")]
    assert ladder.rows[1][3] == f"{fitted[0]} ({fitted[1]}–{fitted[2]})"
    bands = tables["table-ladder-bands"]
    assert bands.header == ["Chavey's band (pooled)", "random", "heuristic"]
    assert [row[0] for row in bands.rows][:2] == ["below 40", "40–55"]


def test_without_a_bound_run_its_section_says_how_to_make_one(built: Built) -> None:
    sections = _sections(built.text)
    assert sections.index("bound") == sections.index("ladder") + 1
    part = built.text.split('<section id="bound">')[1].split("</section>")[0]
    assert "tarot-analysis dd-bound --rules fft-4" in _plain(part) and "table-bound" not in part


def test_the_ladder_reads_the_auctions_stored_beside(built: Built, tmp_path: Path) -> None:
    from tarot_analysis.report.ladder import auction_rungs, rung

    assert [rung(b) for b in ("random", "heuristic", "learned", "pimc:8", "pimc:learned")] == [
        0, 1, 2, 3, 4,
    ]  # fmt: skip
    assert rung("heuristic-pimc") == 5  # a mixed table: past the ladder
    ours = built.data / f"contracts-fft-4-random-seed{SEED}-{DEALS}.json"
    shutil.copy(ours, tmp_path / f"contracts-fft-4-pimc-seed{SEED}-3000.json")
    shutil.copy(ours, tmp_path / f"contracts-fft-4-random-seed{SEED}-{DEALS}.json")
    shutil.copy(ours, tmp_path / f"contracts-fft-4-random-seed{SEED + 1}-{DEALS}.json")
    found = auction_rungs(tmp_path, "fft-4", SEED)
    assert [(r.bots, r.dealt) for r in found] == [("random", DEALS), ("pimc", 3000)]
    stored = json.loads(ours.read_text())
    assert found[0].passed_out == stored["extra"]["redeals"]["all_passed"]


def test_contents_are_numbered_as_the_headings(built: Built) -> None:
    ids = re.findall(r'\bid="([^"]+)"', built.text)
    assert len(ids) == len(set(ids))  # every link leads to one place
    headings = _heading_texts(built.text)
    nav = built.text.split('<nav aria-label="Contents">')[1].split("</nav>")[0]
    links = re.findall(r'<a href="#([^"]+)">([^<]+)</a>', nav)
    assert len(links) >= 25
    for key, text in links:
        assert headings[key] == text, key
    tops = [text.split(" ")[0] for key, text in links if key in _sections(built.text)]
    assert tops == [str(n) for n in range(1, len(tops) + 1)]
    for _key, text in links:
        number = text.split(" ")[0]
        assert re.fullmatch(r"\d+(\.\d+)?", number), text


def test_the_map_table_runs_down_the_page(built: Built) -> None:
    table = read_report(built.text).tables["table-recommended-map"]
    assert table.header == ["trumps \\ bouts", "0 bouts", "1 bout", "2 bouts", "3 bouts"]
    assert table.rows[0][0] == "0 trumps"


def _plain(page: str) -> str:
    """A piece of the page as its reader sees it: the tags gone (a command kept on one line
    is cut into spans)."""
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def _review() -> Any:
    """A reviewed deal of 78 decisions with the widest cells a review writes: every seat's
    bids, an écart, a poignée, and every card with its search and double-dummy measures."""
    import numpy as np

    from tarot_analysis.analyses.review.deal import Decision, Review
    from tarot_analysis.analyses.review.record import GameRecord, Step
    from tarot_analysis.analyses.review.values import DoubleDummyValue, SearchValue
    from tarot_analysis.game.rules import load_rules

    rules = load_rules("fft-4")
    record = GameRecord(rules, np.zeros(5, np.uint64), None, (), "", "records/a-long-name.toml")
    steps = [Step("bid", seat, 0) for seat in range(4)] + [Step("ecart", 3, 0)] * 6
    steps += [Step("poignee", 3, 0)]
    steps += [Step("card", k % 4, 0, trick=k // 4 + 1, place=k % 4) for k in range(72)]
    decisions = []
    for index, step in enumerate(steps):
        search = SearchValue((), 0, 150.1 * (index % 2), 113.9, 150.1, 128, -288.5, 0.0, None)
        dd = DoubleDummyValue(0, 91, 0, 91, ("KH",), None, 12.5, 82.5, "undecided", 56, 0.1)
        played = "poignée double" if step.kind == "poignee" else "10H"
        decisions.append(Decision(index, step, played, search, "Excuse", dd, "attack"))
    return Review(record, 128, 1, 1.0, (0, 1, 2, 3), decisions, (-86.0, -86.0, -86.0, 258.0))


def test_the_review_page_fits_a_window_1280_pixels_wide(chromium: str, tmp_path: Path) -> None:
    from tarot_analysis.report.review_page import write_review_page

    page = write_review_page(tmp_path / "review.html", _review())
    # The page, and the widest right edge of anything on it, as the browser lays it out.
    probe = (
        '<script>window.addEventListener("load", function () { var widest = 0;'
        ' document.querySelectorAll("*").forEach(function (e) {'
        " widest = Math.max(widest, e.getBoundingClientRect().right); });"
        " document.body.dataset.widest = String(Math.ceil(widest));"
        " document.body.dataset.window = String(document.documentElement.clientWidth); });"
        "</script></body>"
    )
    probed = tmp_path / "probed.html"
    probed.write_text(page.read_text(encoding="utf-8").replace("</body>", probe))
    done = run_chromium(
        chromium, tmp_path / "profile", "--window-size=1280,900", "--virtual-time-budget=5000",
        "--dump-dom", probed.resolve().as_uri(),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    body = read_report(done.stdout).body
    assert int(body["data-widest"]) <= int(body["data-window"]), body
