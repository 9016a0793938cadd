"""Section "A bound no bot's skill enters": read from a small double-dummy bound run found in
the data folder, the table's numbers those of the run's rates; without a run, how to make one."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tarot_analysis.analyses.dd_bound import bound_rates, run_bound
from tarot_analysis.game.rules import load_rules
from tarot_analysis.report.bound import bound_command, find_bound, section
from tarot_analysis.report.build import render_page
from tarot_analysis.report.html import Context, percent, percent_interval
from tarot_analysis.runs.runner import chunk_path

DEALS = 10
AFTER = 16  # two tricks left: quick solves, quick searches


def _context() -> Context:
    rules = load_rules("fft-4")
    return Context(rules, "fft-4", ("heuristic",) * 4, 1, 1000, 1000)


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("data")
    rules = load_rules("fft-4")
    run_bound(rules, DEALS, folder / "dd-bound-small", after_tricks=AFTER, chunk_size=5,
              bots=["heuristic", "random", "pimc:2"], every=2)  # fmt: skip
    run_bound(rules, DEALS + 2, folder / "dd-bound-heuristic", after_tricks=AFTER, chunk_size=6)
    return folder


def test_without_a_run_the_section_says_how_to_make_one(tmp_path: Path) -> None:
    made = section(_context(), tmp_path)
    assert made.title == "A bound no bot's skill enters" and made.values["run"] is None
    page = render_page("t", "l", [made])
    text = re.sub(r"<[^>]+>", "", page)  # the command's pieces are printed each whole
    assert "tarot-analysis dd-bound --rules fft-4" in text
    assert "--bots heuristic learned pimc" in text
    assert "table-bound-chavey" not in page
    # Five players: the hand has 15 cards, 5 left after the heuristic's 10 tricks.
    five = Context(load_rules("fft-5"), "fft-5", ("heuristic",) * 5, 1, 1000, 1000)
    five_page = render_page("t", "l", [section(five, tmp_path)])
    assert "the last 5 tricks" in re.sub(r"<[^>]+>", "", five_page)


def _make_variables(makefile: str) -> dict[str, str]:
    """The Makefile's defaults, ``NAME ?= value``."""
    return dict(re.findall(r"^(\w+) \?= (.+)$", makefile, flags=re.MULTILINE))


@pytest.mark.parametrize("data_dir", ["data", "data/"])
def test_the_section_suggests_the_command_of_make_bound(data_dir: str) -> None:
    makefile = (Path(__file__).resolve().parents[1] / "Makefile").read_text(encoding="utf-8")
    recipe = makefile.split("\nbound:")[1].split("\n\n")[0]
    command = " ".join(" ".join(recipe.replace("\\\n", " ").splitlines()[1:]).split())
    command = command.replace("$(BIN)/", "")
    for name, value in _make_variables(makefile).items():
        command = command.replace(f"$({name})", value)
    assert command == " ".join(bound_command(_context(), data_dir))
    # The section writes that command, in pieces a printed line may wrap between.
    page = render_page("t", "l", [section(_context(), data_dir)])
    assert command in " ".join(re.sub(r"<[^>]+>", "", page).split())
    assert "make bound" in page


def test_the_run_with_the_most_bots_is_read_and_an_unfinished_one_is_not(
    data: Path, tmp_path: Path
) -> None:
    found = find_bound(data, "fft-4")
    assert found is not None and found.bots == ["heuristic", "random", "pimc:2"]
    assert find_bound(data, "fft-5") is None
    copy = tmp_path / "data"
    shutil.copytree(data, copy)
    chunk_path(copy / "dd-bound-small", 1).unlink()  # stopped before its last chunk
    other = find_bound(copy, "fft-4")
    assert other is not None and other.bots == ["heuristic"]


def test_the_tables_show_the_runs_rates(data: Path) -> None:
    made = section(_context(), data)
    run = made.values["run"]
    assert run is not None
    rates = bound_rates(run.frame, 18).to_dict(orient="index")
    table = made.values["chavey"]
    assert table.header[:4] == ["Chavey count", "deals", "undecided", "every card seen (95%)"]
    assert table.header[4:7] == [
        "heuristic: deals",
        "heuristic (95%)",
        "every card seen − heuristic",
    ]
    assert "pimc:2 (95%)" in table.header
    last = table.rows[-1]
    row = rates["all"]
    assert last[0] == "all" and last[1] == f"{row['n']:,}"
    seen = f"{percent(row['dd_rate'])} ({percent_interval(row['dd_ci_low'], row['dd_ci_high'])})"
    assert str(getattr(last[3], "text", last[3])).startswith(seen)
    at = table.header.index("pimc:2: deals")
    assert last[at] == f"{row['pimc:2_n']:,}" and row["pimc:2_n"] < row["n"]
    assert last[at + 1] == (
        f"{percent(row['pimc:2_rate'])} "
        f"({percent_interval(row['pimc:2_ci_low'], row['pimc:2_ci_high'])})"
    )
    assert [r[0] for r in made.values["bouts"].rows][-1] == "all"
    assert made.values["map"].header[0] == "trumps \\ bouts"
    page = render_page("t", "l", [made])
    for key in ("table-bound-chavey", "table-bound-bouts", "table-bound-bouts-trumps",
                "chart-bound-chavey"):  # fmt: skip
        assert f'id="{key}"' in page
    assert "data:image/png;base64," in page
