"""The review of a play run's deals: the run's very deals, every decision valued by the search,
losses never negative, a resumed run's rows those of an uninterrupted one, the tables of where
the points are lost, the command and the report's section."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from tarot_analysis.analyses.review.many import (
    COLUMNS,
    find_review_runs,
    loss_table,
    loss_tables,
    read_review_run,
    review_deals,
)
from tarot_analysis.bots import door, seat_rows
from tarot_analysis.cli.program import main
from tarot_analysis.engine.game import GameState
from tarot_analysis.errors import TarotInputError
from tarot_analysis.game.rules import Rules, load_rules
from tarot_analysis.runs.interrupts import held_interrupts
from tarot_analysis.runs.runner import chunk_path
from tarot_analysis.table.compiled import advance
from tarot_analysis.table.play import chunk_start, play

FFT4 = load_rules("fft-4")
FFT5 = load_rules("fft-5")
#: A table whose random bots draw from the table's generator: a deal played from the wrong
#: point of the play run's stream plays other cards.
MIXED = ("heuristic", "random", "heuristic", "random")


def _reviewed(
    folder: Path, deals: int = 6, rules: Rules = FFT4, bots: tuple[str, ...] = MIXED
) -> pd.DataFrame:
    review_deals(rules, deals, folder, bots=bots, worlds=4, seed=7, chunk_size=4, threads=1)
    return read_review_run(folder).frame


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory: pytest.TempPathFactory) -> pd.DataFrame:
    """Six deals of fft-4 seed 7 at a mixed table, in chunks of 4: the second chunk starts
    within the play run's first chunk."""
    return _reviewed(tmp_path_factory.mktemp("review") / "run")


def test_the_rows_are_the_play_runs_deals(reviewed: pd.DataFrame) -> None:
    played = play(FFT4, 6, bots=list(MIXED), seed=7, keep_tricks=True)
    assert played.tricks is not None and played.leaders is not None
    cards = reviewed[reviewed["kind"] == "card"]
    assert len(cards) > 50
    for row in cards.itertuples():
        t = int(row.trick) - 1
        place = (int(row.seat) - int(played.leaders[row.deal, t])) % FFT4.players
        assert played.tricks[row.deal, t, place] == row.played_action, row
    scores = played.scores()
    for row in reviewed.drop_duplicates("deal").itertuples():
        contract = scores.loc[row.deal, "contract"]
        assert row.contract == ("none" if pd.isna(contract) else contract)
    takers = reviewed[reviewed["side"] == "taker"]
    assert (takers["seat"].to_numpy() == scores.loc[takers["deal"], "taker"].to_numpy()).all()


def test_losses_are_never_negative_and_every_best_is_legal(reviewed: pd.DataFrame) -> None:
    assert list(reviewed.columns) == list(COLUMNS)
    assert (reviewed["loss"] >= 0).all() and reviewed["loss"].max() > 0
    assert set(reviewed["kind"]) <= {"bid", "call", "poignee", "card"}
    same = reviewed["best_action"] == reviewed["played_action"]
    assert (reviewed.loc[same, "loss"] == 0).all()
    assert np.allclose(
        reviewed.loc[~same, "loss"],
        reviewed.loc[~same, "best_mean"] - reviewed.loc[~same, "played_mean"],
    )
    # Step through each deal as the table plays it: the played and the best actions are legal
    # at the row's step, and the table's bot plays the row's action there.
    masks, rng = chunk_start(FFT4, 7, 0, 6)
    rows, nets = seat_rows(list(MIXED), FFT4)
    state = GameState(FFT4, masks[0])
    p, half = state.engine.params, state.engine.half_points
    with held_interrupts():  # the workspace's arrays come back as a structure
        ws = door.workspace(p, state.engine.scoring, rows, nets)
    never = np.zeros(4, dtype=np.bool_)
    checked = 0
    for d in range(6):
        state = GameState(FFT4, masks[d])
        decisions = reviewed[reviewed["deal"] == d].set_index("step")
        step = 0
        while not state.is_over:
            legal = {int(a) for a in state.legal_actions()}
            before = state.copy()
            advance(state.m, state.s, rows, never, 1, p, half, rng, ws)
            if step in decisions.index:
                row = decisions.loc[step]
                assert {int(row["played_action"]), int(row["best_action"])} <= legal
                assert int(row["seat"]) == before.actor and len(legal) == int(row["legal"])
                assert row["kind"] == before.decision
                checked += 1
            step += 1
    assert checked == len(reviewed)


def test_a_resumed_run_gives_the_rows_of_an_uninterrupted_one(
    tmp_path: Path, reviewed: pd.DataFrame
) -> None:
    folder = tmp_path / "stopped"
    _reviewed(folder)
    # A run stopped partway: a chunk never written, another's temporary file left behind.
    chunk_path(folder, 1).unlink()
    (folder / ".chunk-000000.parquet.tmp-999999").write_bytes(b"half a chunk")
    result = review_deals(FFT4, 6, folder, bots=MIXED, worlds=4, seed=7, chunk_size=4, threads=1)
    assert (result.computed, result.resumed) == (1, 1)
    pd.testing.assert_frame_equal(read_review_run(folder).frame, reviewed)


def test_the_tables_have_counts_and_intervals_clustered_by_deal(tmp_path: Path) -> None:
    run = read_review_run(_folder_of(tmp_path))
    tables = loss_tables(run)
    assert list(tables) == ["kind", "trick", "side", "contract", "all"]
    for by, table in tables.items():
        for column in ("decisions", "per_decision", "ci_low", "ci_high", "per_deal",
                       "deal_ci_low", "deal_ci_high", "share", "best_rate"):  # fmt: skip
            assert column in table.columns, (by, column)
        cards = run.frame["kind"] == "card"
        assert table["decisions"].sum() == (cards.sum() if by == "trick" else len(run.frame))
        within = table.dropna(subset=["ci_low"])
        assert (within["ci_low"] <= within["per_decision"]).all()
        assert (within["per_decision"] <= within["ci_high"]).all()
        assert (table["deal_ci_low"] <= table["per_deal"]).all()
        assert (table["per_deal"] <= table["deal_ci_high"]).all()
        # a deal's losses summed by group add up to the deal's whole loss
        lost = run.frame.loc[cards, "loss"] if by == "trick" else run.frame["loss"]
        assert table["per_deal"].sum() == pytest.approx(lost.sum() / run.deals)
    # every trick but the last, where each seat holds one card
    assert list(tables["trick"].index) == list(range(1, FFT5.hand_size))
    assert set(tables["side"].index) == {"taker", "partner", "defence"}
    overall = tables["all"].iloc[0]
    assert overall["per_decision"] == pytest.approx(run.frame["loss"].mean())
    # deals are the units: one deal's decisions weigh as one
    frame = pd.DataFrame({"deal": [0, 0, 0, 1], "loss": [1.0, 1.0, 1.0, 5.0], "kind": "card"})
    row = loss_table(frame, "kind", 2).loc["card"]
    assert row["per_decision"] == pytest.approx(2.0) and row["per_deal"] == pytest.approx(4.0)
    assert row["deal_ci_low"] < 4.0 < row["deal_ci_high"]


def _folder_of(tmp_path: Path) -> Path:
    """Six deals of fft-5 (every one played, seed 7) in a data folder."""
    folder = tmp_path / "data" / "review-fft-5-heuristic-seed7-6-w4"
    if not folder.exists():
        _reviewed(folder, rules=FFT5, bots=("heuristic",) * 5)
    return folder


def test_the_command_tables_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "run"
    argv = ["review", "--deals", "3", "--seed", "7", "--worlds", "2", "--data", str(folder),
            "--chunk-size", "2", "--threads", "1"]  # fmt: skip
    assert main([*argv, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert (shown["rules"], shown["deals"], shown["worlds"], shown["computed"]) == (
        "fft-4",
        3,
        2,
        2,
    )
    assert set(shown["tables"]) == {"kind", "trick", "side", "contract", "all"}
    assert {"kind", "decisions", "per_decision", "ci_low", "ci_high", "per_deal"} <= set(
        shown["tables"]["kind"][0]
    )
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "Points lost by kind of decision" in text and "Points lost by contract" in text
    assert "0 chunks computed, 2 kept" in text


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["review", "game.toml", "--deals", "5"], "not both"),
        (["review"], "--deals N"),
        (["review", "--deals", "5", "--bots", "nobody"], "unknown bot 'nobody'"),
        (["review", "--deals", "0"], "at least 1"),
        (["review", "--deals", "5", "--seat", "1"], "--seat: for a game record"),
        (["review", "game.toml", "--rules", "fft-5"], "--rules: with --deals"),
        (["review", "--deals", "5", "--bots", "heuristic", "random"], "seats 4 bots, got 2"),
        (["review", "--deals", "5", "--worlds", "99999"], "worlds must be a whole number from 1"),
        (["review", "--deals", "5", "--rules", "tarocco"], "for the French presets"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    argv: list[str], says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and says in lines[0], captured.err
    assert not (tmp_path / "data").exists()


def test_the_report_reads_a_review_run(tmp_path: Path) -> None:
    from tarot_analysis.report.html import Context
    from tarot_analysis.report.losses import section

    context = Context(rules=FFT5, rules_argument="fft-5", bots=("heuristic",) * 5, seed=1,
                      deals=1000, auction_deals=1000)  # fmt: skip
    empty = tmp_path / "empty"
    empty.mkdir()
    none = section(context, empty)
    assert none.values["run"] is None
    assert "tarot-analysis review --rules fft-5" in " ".join(none.values["example"])
    folder = _folder_of(tmp_path)
    assert [r.folder for r in find_review_runs(folder.parent, "fft-5")] == [folder]
    assert find_review_runs(folder.parent, "fft-4") == []
    found = section(context, folder.parent)
    assert found.values["run"].folder == folder
    tables = [found.values[key] for key in ("kind", "trick", "side", "contract")]
    assert all(table.rows for table in tables)
    caption = tables[0].caption
    assert "6 deals" in caption.n and "4 worlds" in caption.mode and "heuristic" in caption.bots
    # Rendered: the tables with their counts and intervals, the run named; without a run, the
    # command that makes one.
    from tarot_analysis.report.build import render_page

    page = render_page("t", "l", [found])
    for key in ("kind", "trick", "side", "contract"):
        assert f'id="table-losses-{key}"' in page
    assert "fft-5, heuristic at every seat, 6 deals of play seed 7" in page
    assert "review-fft-5-heuristic-seed7-6-w4" in page
    assert "partner" in page and "–" in page  # an interval
    empty_page = render_page("t", "l", [none])
    assert "No review of these rules" in empty_page and "table-losses" not in empty_page
    assert "--deals 200" in empty_page and "--bots heuristic" in empty_page


@pytest.mark.slow
def test_a_killed_command_resumes_to_the_rows_of_an_uninterrupted_run(tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys
    import time

    folder = tmp_path / "killed"
    argv = [sys.executable, "-m", "tarot_analysis.cli", "review", "--deals", "6", "--seed", "7",
            "--bots", *MIXED, "--worlds", "4", "--chunk-size", "1", "--threads", "1",
            "--no-progress", "--data", str(folder)]  # fmt: skip
    root = Path(__file__).resolve().parent.parent
    child = subprocess.Popen(argv, cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        while len(list(folder.glob("chunk-*.parquet"))) < 2:
            assert child.poll() is None, child.communicate()
            time.sleep(0.001)
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=60)
    finally:
        child.kill()
        child.wait()
    kept = len(list(folder.glob("chunk-*.parquet")))
    assert 2 <= kept < 6
    done = subprocess.run(argv, cwd=root, capture_output=True, text=True, check=True)
    assert f"{6 - kept} chunks computed, {kept} kept" in done.stdout, done.stdout
    whole = tmp_path / "whole"
    review_deals(FFT4, 6, whole, bots=MIXED, worlds=4, seed=7, chunk_size=1, threads=1)
    pd.testing.assert_frame_equal(read_review_run(folder).frame, read_review_run(whole).frame)


def test_the_default_folder_names_a_model_by_its_label_never_by_its_path() -> None:
    from tarot_analysis.analyses.review.many import review_folder

    climbing = ("learned:../../elsewhere/net.npz",) * 4
    folder = review_folder(FFT4, climbing, 1, 10, 8)
    name = folder.removeprefix("data/")
    assert name.startswith("review-fft-4-learned:net-") and "/" not in name and ".." not in name
    assert (
        review_folder(FFT4, ("heuristic",) * 4, 1, 10, 8)
        == "data/review-fft-4-heuristic-seed1-10-w8"
    )


def test_a_ctrl_c_dropped_as_the_last_chunk_is_written_is_said_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import signal

    from tarot_analysis import EXIT_INTERRUPTED
    from tarot_analysis.analyses.review import many
    from tarot_analysis.cli import main as command
    from tests.interrupting import drop_a_ctrl_c

    reviewed = many.review_deals

    def then_dropped(*arguments: Any, **options: Any) -> Any:
        result = reviewed(*arguments, **options)
        drop_a_ctrl_c()  # just after the last chunk is written
        return result

    monkeypatch.setattr(many, "review_deals", then_dropped)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    folder = tmp_path / "run"
    argv = ["review", "--deals", "2", "--worlds", "2", "--chunk-size", "1", "--threads", "1",
            "--no-progress", "--data", str(folder)]  # fmt: skip
    try:
        done = command(argv)
    finally:
        signal.signal(signal.SIGINT, previous)
    said = capsys.readouterr()
    assert done == EXIT_INTERRUPTED and said.out == ""
    assert said.err == (
        f"tarot-analysis: interrupted: the chunks finished so far are kept in {folder}; the same "
        "command goes on\n"
    )


def test_worlds_played_out_by_the_learned_bot_value_the_same_decisions_otherwise(
    tmp_path: Path,
) -> None:
    """The learned bot in the play-outs changes the values, never the deals or the decisions
    valued; the run says which bot played the worlds out."""
    by = {}
    for play_outs in ("heuristic", "learned"):
        folder = tmp_path / play_outs
        review_deals(
            FFT4, 3, folder, bots="heuristic", worlds=4, seed=7, threads=1, play_outs=play_outs
        )
        by[play_outs] = read_review_run(folder)
    heuristic, learned = by["heuristic"], by["learned"]
    facts = ["deal", "seat", "step", "kind", "played"]
    pd.testing.assert_frame_equal(heuristic.frame[facts], learned.frame[facts])
    assert not np.allclose(heuristic.frame["played_mean"], learned.frame["played_mean"])
    assert learned.spec.extra["searcher"] == "pimc:4:learned"
    assert learned.describe().endswith("played out by the learned bot")
    assert "learned" not in heuristic.describe()
    with pytest.raises(TarotInputError, match="played out by heuristic or learned"):
        review_deals(FFT4, 1, tmp_path / "other", worlds=4, play_outs="random")
