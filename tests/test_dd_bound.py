"""The double-dummy bound: a resumable run whose rows repeat from the seed, its rates counted
again from those rows, and its command."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from tarot_analysis.analyses.dd_bound import (
    band_labels,
    bound_bots,
    bound_rates,
    read_bound,
    run_bound,
)
from tarot_analysis.analyses.double_dummy import dd_table
from tarot_analysis.cli.program import main
from tarot_analysis.deals import evaluators
from tarot_analysis.errors import TarotInputError
from tarot_analysis.game import cards
from tarot_analysis.game.rules import load_rules
from tarot_analysis.runs.runner import chunk_path
from tarot_analysis.stats import wilson_interval
from tarot_analysis.table.play import ScriptRefused, play

DEALS = 20
AFTER = 14  # four tricks left: quick solves


@pytest.fixture(scope="module")
def bound(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, pd.DataFrame]:
    folder = tmp_path_factory.mktemp("bound")
    frame = run_bound(load_rules("fft-4"), DEALS, folder, after_tricks=AFTER, chunk_size=8)
    return folder, frame


def test_same_seed_same_rows_and_a_stopped_run_resumes(
    bound: tuple[Path, pd.DataFrame], tmp_path: Path
) -> None:
    _, frame = bound
    rules = load_rules("fft-4")
    again = run_bound(rules, DEALS, tmp_path / "again", after_tricks=AFTER, chunk_size=8)
    pd.testing.assert_frame_equal(frame, again)
    chunk_path(tmp_path / "again", 1).unlink()  # as if stopped before its second chunk
    kept = chunk_path(tmp_path / "again", 0).stat().st_mtime_ns
    resumed = run_bound(rules, DEALS, tmp_path / "again", after_tricks=AFTER, chunk_size=8)
    pd.testing.assert_frame_equal(frame, resumed)
    assert chunk_path(tmp_path / "again", 0).stat().st_mtime_ns == kept
    other = run_bound(rules, DEALS, tmp_path / "other", after_tricks=AFTER, chunk_size=8, seed=2)
    assert not frame["chavey"].equals(other["chavey"])


def test_another_run_is_refused_in_the_same_folder(bound: tuple[Path, pd.DataFrame]) -> None:
    folder, _ = bound
    with pytest.raises(TarotInputError, match="different run"):
        run_bound(load_rules("fft-4"), DEALS, folder, after_tricks=AFTER - 1, chunk_size=8)


def test_the_rows_are_the_heuristics_deals_and_the_tables_values(
    bound: tuple[Path, pd.DataFrame],
) -> None:
    """Each row's deal is the run's chunk's deal, its heuristic result that deal's, and its
    double-dummy points those of the table of the same deal with seat 0 taking."""
    _, frame = bound
    rules = load_rules("fft-4")
    seed = np.random.SeedSequence(1, spawn_key=(0,))
    first = play(rules, 8, bots="heuristic", seed=seed, forced=[0, 1, -1, -1], chunk_size=8)
    scores = first.scores()
    lo, hi = first.masks[:, 0, 0], first.masks[:, 0, 1]
    assert frame["chavey"].iloc[:8].tolist() == evaluators.chavey(lo, hi).tolist()
    assert frame["heuristic_points"].iloc[:8].tolist() == scores["attack_points"].tolist()
    for row in range(3):
        hands = [cards.format_cards(cards.from_mask(int(a), int(b))) for a, b in first.masks[row]]
        table = dd_table(rules, hands, takers=[0], after_tricks=AFTER)[0]
        assert frame["dd_low"].iloc[row] == table.points_low
        assert frame["dd_outcome"].iloc[row] == table.outcome


def test_the_rates_counted_again_from_the_rows(bound: tuple[Path, pd.DataFrame]) -> None:
    folder, frame = bound
    table = bound_rates(read_bound(folder), 18)
    played = frame[frame["dd_outcome"] != "redealt"]
    assert table.loc["all", "n"] == len(played)
    assert table["n"].iloc[:-1].sum() == len(played)
    for label, low, high in zip(
        band_labels(), [0, 40, 56, 71, 81], [40, 56, 71, 81, 999], strict=True
    ):
        part = played[(played["chavey"] >= low) & (played["chavey"] < high)]
        row = table.loc[label]
        made = int((part["dd_outcome"] == "made").sum())
        assert (row["n"], row["dd_made"]) == (len(part), made)
        assert row["heuristic_made"] == int(part["heuristic_made"].sum())
        if len(part):
            assert row["dd_rate"] == made / len(part)
            assert row["dd_ci_low"] == pytest.approx(float(wilson_interval(made, len(part))[0]))
            paired = (part["dd_outcome"] == "made").astype(float) - part["heuristic_made"]
            assert row["difference"] == pytest.approx(paired.mean())


def test_undecided_deals_bound_the_rate_from_both_sides() -> None:
    frame = pd.DataFrame(
        {
            "chavey": [60] * 4,
            "dd_outcome": ["made", "undecided", "lost", "undecided"],
            "heuristic_made": [True, False, False, True],
        }
    )
    row = bound_rates(frame, 18).loc["56–70"]
    assert (row["n"], row["undecided"], row["dd_rate"]) == (4, 2, 0.25)
    assert row["dd_rate_undecided_made"] == 0.75
    assert row["difference"] == -0.25
    assert row["difference_ci_high"] > 0.25  # the upper end reads the undecided as made


def test_the_command_prints_the_rates(
    bound: tuple[Path, pd.DataFrame], capsys: pytest.CaptureFixture[str]
) -> None:
    folder, frame = bound
    argv = ["dd-bound", "--deals", str(DEALS), "--after-tricks", str(AFTER), "--chunk-size", "8"]
    assert main([*argv, "--data", str(folder), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["bands"]["all"]["n"] == int((frame["dd_outcome"] != "redealt").sum())
    assert main([*argv, "--data", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "count as not made" in out and "81 and over" in out
    assert main([*argv, "--data", str(folder), "--after-tricks", "18"]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


# --- Other bots playing on beside the solve ----------------------------------------------------

BOTS_DEALS = 12
LATE = 15  # three tricks left: the search bot's worlds are short


@pytest.fixture(scope="module")
def beside(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, pd.DataFrame]:
    folder = tmp_path_factory.mktemp("beside")
    frame = run_bound(
        load_rules("fft-4"), BOTS_DEALS, folder, after_tricks=LATE, chunk_size=5,
        bots=["heuristic", "heuristic:0", "random", "pimc:2"], every=3,
    )  # fmt: skip
    return folder, frame


def test_a_bot_plays_on_from_the_heuristics_position(beside: tuple[Path, pd.DataFrame]) -> None:
    """The heuristic replayed as another bot (``heuristic:0`` plays as it does) from the
    script of the first tricks ends each deal as the heuristic's own play did."""
    _, frame = beside
    played = frame[frame["dd_outcome"] != "redealt"]
    assert bound_bots(frame) == ["heuristic:0", "random", "pimc:2"]
    assert played["points:heuristic:0"].tolist() == played["heuristic_points"].tolist()
    assert played["made:heuristic:0"].tolist() == played["heuristic_made"].astype(float).tolist()
    assert played["made:random"].notna().all()
    # The random bot's last three tricks are its own: not the heuristic's on every deal.
    assert not played["points:random"].equals(played["heuristic_points"])
    # Every card counted: the attack's points lie between those won before and the whole pack.
    assert (played["points:random"] >= played["points_before"]).all()
    assert (played["points:random"] <= 91).all()


def test_the_search_bot_plays_one_deal_in_every(beside: tuple[Path, pd.DataFrame]) -> None:
    _, frame = beside
    sampled = (frame["deal"] % 3 == 0) & (frame["dd_outcome"] != "redealt")
    assert frame.loc[sampled, "made:pimc:2"].notna().all()
    assert frame.loc[~sampled, "made:pimc:2"].isna().all()
    assert frame.loc[~sampled & (frame["dd_outcome"] != "redealt"), "made:random"].notna().all()


def test_the_bots_rows_repeat_from_the_seed_and_resume(
    beside: tuple[Path, pd.DataFrame], tmp_path: Path
) -> None:
    _, frame = beside
    options: dict[str, Any] = {
        "after_tricks": LATE, "chunk_size": 5, "bots": ["heuristic:0", "random", "pimc:2"],
        "every": 3,
    }  # fmt: skip
    again = run_bound(load_rules("fft-4"), BOTS_DEALS, tmp_path / "again", **options)
    pd.testing.assert_frame_equal(frame, again)
    chunk_path(tmp_path / "again", 2).unlink()
    resumed = run_bound(load_rules("fft-4"), BOTS_DEALS, tmp_path / "again", **options)
    pd.testing.assert_frame_equal(frame, resumed)
    spec = json.loads((tmp_path / "again" / "_run.json").read_text())
    assert spec["extra"]["bots"] == ["heuristic:0", "random", "pimc:2"]
    assert (spec["seed"], spec["chunk_size"], spec["rules"]) == (1, 5, "fft-4")
    assert spec["version"]
    with pytest.raises(TarotInputError, match="different run"):
        run_bound(load_rules("fft-4"), BOTS_DEALS, tmp_path / "again", **(options | {"every": 2}))


def test_each_bots_rate_counted_again_from_the_rows(beside: tuple[Path, pd.DataFrame]) -> None:
    _, frame = beside
    played = frame[frame["dd_outcome"] != "redealt"]
    for by in ("chavey", "bouts", "trumps", "bouts_trumps"):
        table = bound_rates(frame, 18, by)
        assert table.index.name == by
        assert table["n"].drop("all").sum() == table.loc["all", "n"] == len(played)
    row = bound_rates(frame, 18, "bouts").loc["all"]
    sample = played[played["made:pimc:2"].notna()]
    made = (sample["dd_outcome"] == "made").astype(float)
    assert row["pimc:2_n"] == len(sample) < len(played)
    assert row["pimc:2_rate"] == pytest.approx(sample["made:pimc:2"].mean())
    assert row["pimc:2_dd_rate"] == pytest.approx(made.mean())
    assert row["pimc:2_difference"] == pytest.approx((made - sample["made:pimc:2"]).mean())
    low, high = wilson_interval(int(sample["made:pimc:2"].sum()), len(sample))
    assert (row["pimc:2_ci_low"], row["pimc:2_ci_high"]) == pytest.approx((float(low), float(high)))
    assert row["random_n"] == len(played)
    by_bouts = bound_rates(frame, 18, "bouts")
    for bouts in range(4):
        label = "1 bout" if bouts == 1 else f"{bouts} bouts"
        if label in by_bouts.index:
            assert by_bouts.loc[label, "n"] == int((played["bouts"] == bouts).sum())
    with pytest.raises(TarotInputError, match="by"):
        bound_rates(frame, 18, "kings")


def test_a_wrong_bot_or_sample_is_refused(tmp_path: Path) -> None:
    rules = load_rules("fft-4")
    with pytest.raises(TarotInputError, match="unknown bot"):
        run_bound(rules, 2, tmp_path / "a", after_tricks=LATE, bots=["heuristic", "nobody"])
    with pytest.raises(TarotInputError, match="every"):
        run_bound(rules, 2, tmp_path / "b", after_tricks=LATE, bots=["pimc"], every=0)


def test_the_command_prints_every_bot_beside(
    beside: tuple[Path, pd.DataFrame], capsys: pytest.CaptureFixture[str]
) -> None:
    folder, frame = beside
    argv = [
        "dd-bound", "--deals", str(BOTS_DEALS), "--after-tricks", str(LATE), "--chunk-size", "5",
        "--bots", "heuristic", "heuristic:0", "random", "pimc:2", "--every", "3",
        "--data", str(folder),
    ]  # fmt: skip
    assert main([*argv, "--by", "chavey", "bouts", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["bots"] == ["heuristic", "heuristic:0", "random", "pimc:2"]
    assert (shown["every"], shown["chunk_size"], shown["seed"]) == (3, 5, 1)
    assert shown["version"]
    assert shown["by_bouts"]["all"]["pimc:2_n"] == int(frame["made:pimc:2"].notna().sum())
    assert main([*argv, "--by", "chavey", "bouts"]) == 0
    out = capsys.readouterr().out
    assert "pimc:2 % (95%)" in out and "dd − random" in out
    assert any(line.startswith("bouts ") for line in out.splitlines())  # the second table
    assert "on one deal in 3" in out
    assert main([*argv, "--bots", "nobody"]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_a_deal_the_bot_cannot_replay_is_left_out_alone(
    beside: tuple[Path, pd.DataFrame], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A replay the bot breaks (a chelem announced where the heuristic announced none moves the
    first lead) leaves that deal's columns missing, the chunk's other deals played as before."""
    from tarot_analysis.analyses import dd_bound

    _, frame = beside
    real = dd_bound.play_given
    broken = frame.loc[frame["dd_outcome"] != "redealt", "deal"].iloc[1]
    hands_of_broken: list[str] = []

    def play_given(rules: Any, hands: Any, **options: Any) -> Any:
        if any(list(h) == hands_of_broken for h in hands):
            raise ScriptRefused("a scripted card is not legal at that point")
        return real(rules, hands, **options)

    rules = load_rules("fft-4")
    first = play(rules, 5, bots="heuristic", seed=np.random.SeedSequence(1, spawn_key=(0,)),
                 forced=[0, 1, -1, -1], chunk_size=5)  # fmt: skip
    hands_of_broken[:] = [
        cards.format_cards(cards.from_mask(int(a), int(b))) for a, b in first.masks[broken]
    ]
    monkeypatch.setattr(dd_bound, "play_given", play_given)
    again = run_bound(rules, BOTS_DEALS, tmp_path / "broken", after_tricks=LATE, chunk_size=5,
                      bots=["heuristic:0", "random", "pimc:2"], every=3)  # fmt: skip
    assert np.isnan(again.loc[again["deal"] == broken, "made:heuristic:0"]).all()
    others = again["deal"] != broken
    assert again.loc[others, "points:heuristic:0"].equals(frame.loc[others, "points:heuristic:0"])


# --- What is checked before a run folder is made ---------------------------------------------


def _files_under(root: Path) -> list[Path]:
    return sorted(path for path in root.rglob("*"))


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--bots", "learned:absent.npz"], r"model file .*absent\.npz: no such file"),
        (["--bots", "heuristic", "learned:{fft3}"], r"a model of 'fft-3', not of 'fft-4'"),
        (["--bots", "pimc:learned:{fft3}"], r"a model of 'fft-3', not of 'fft-4'"),
        (["--contract", "guard"], "fft-4 has no contract 'guard'"),
        (["--bots", "pimc:²"], "pimc:N takes a number of worlds"),
    ],
)
def test_a_bot_that_cannot_play_or_a_wrong_contract_is_refused_before_any_folder(
    extra: list[str], message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """No run folder is made, and no empty columns of a bot are stored that a later run with
    the model put right would keep."""
    from tarot_analysis.bots.learned import SHIPPED

    monkeypatch.chdir(tmp_path)
    extra = [e.format(fft3=SHIPPED / "fft-3.npz") for e in extra]  # a model of another preset
    argv = ["dd-bound", "--deals", "2", "--after-tricks", "16", "--chunk-size", "2", *extra]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert re.search(message, err), err
    assert _files_under(tmp_path) == []


def test_only_a_refused_script_leaves_a_deal_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Any other error of a bot playing on is the run's error, not a deal left out."""
    from tarot_analysis.analyses import dd_bound

    def play_given(rules: Any, hands: Any, **options: Any) -> Any:
        raise TarotInputError("something else went wrong")

    monkeypatch.setattr(dd_bound, "play_given", play_given)
    with pytest.raises(TarotInputError, match="something else went wrong"):
        run_bound(load_rules("fft-4"), 2, tmp_path / "run", after_tricks=16, chunk_size=2,
                  bots=["random"])  # fmt: skip
    assert not list((tmp_path / "run").glob("chunk-*"))


def test_a_model_path_names_the_folder_by_its_stem_not_its_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tarot_analysis.bots.learned import SHIPPED

    monkeypatch.chdir(tmp_path)
    model = SHIPPED / "fft-4.npz"
    argv = ["dd-bound", "--deals", "2", "--after-tricks", "16", "--chunk-size", "2",
            "--bots", f"learned:{model}", "--json"]  # fmt: skip
    assert main(argv) == 0, capsys.readouterr().err
    shown = json.loads(capsys.readouterr().out)
    folder = tmp_path / shown["data"]
    assert folder.parent == tmp_path / "data" and (folder / "_run.json").exists()
    assert "/" not in folder.name and "learned_fft-4-" in folder.name
    assert all(path.is_relative_to(folder) for path in _files_under(tmp_path / "data") if
               path != folder)  # fmt: skip
    assert shown["bots"] == ["heuristic", f"learned:{model}"]
