"""Self-play lessons (Deep Monte-Carlo) and rounds of improvement: each decision valued by the
deciding seat's final score, a network trained on them from its own weights, rounds that resume
and measure themselves in duplicate."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from tarot_analysis.cli import main
from tarot_analysis.engine.encoding import encoding_size
from tarot_analysis.errors import TarotInputError
from tarot_analysis.game.rules import load_rules
from tarot_analysis.learning.rounds import RoundOptions, improve, round_folder
from tarot_analysis.learning.selfplay import self_play
from tarot_analysis.learning.streaming import (
    StreamingOptions,
    init_params,
    is_held_out,
    load_action_in,
    save_action_in,
    stream_decisions,
    targets_of,
    train_streaming,
)
from tarot_analysis.learning.teacher import teach

pytest.importorskip("jax")

FFT4 = load_rules("fft-4")


def _network(path: Path, seed: int = 1, margins: dict[str, float] | None = None) -> Path:
    params = init_params(encoding_size(4), (16,), (8,), seed)
    meta = {"rules": "fft-4", "decides": ["bid", "call", "card"]}
    return save_action_in(path, params, meta | ({"margins": margins} if margins else {}))


def _rows(folder: Path) -> dict[str, np.ndarray]:
    table = pq.ParquetDataset(folder).read()
    return {name: table.column(name).to_numpy(zero_copy_only=False) for name in
            ("deal", "seat", "decision", "chosen", "hint", "score")}  # fmt: skip


def test_every_decision_is_valued_by_its_seats_final_score(tmp_path: Path) -> None:
    self_play(FFT4, 30, tmp_path / "calm", bot="heuristic", epsilon=0.0, seed=3, chunk_size=15)
    rows = _rows(tmp_path / "calm")
    # Without exploration the heuristic takes its own action: the hint, at every decision.
    assert (rows["chosen"] == rows["hint"]).all()
    assert set(rows["decision"]) >= {"bid", "card"}
    # One score per seat and deal, the seats' scores of a deal adding up to 0.
    for deal in np.unique(rows["deal"]):
        here = rows["deal"] == deal
        by_seat = {int(s): set(rows["score"][here & (rows["seat"] == s)]) for s in range(4)}
        assert all(len(scores) == 1 for scores in by_seat.values())
        assert sum(next(iter(scores)) for scores in by_seat.values()) == pytest.approx(0, abs=1e-3)
    batches = list(stream_decisions(tmp_path / "calm", 4))
    for batch in batches:
        # The action taken alone is valued, by the score: the others are not labelled.
        assert (batch.labelled.sum(axis=1) == 1).all()
        assert (batch.labelled[np.arange(batch.rows), batch.chosen]).all()
    scores = np.concatenate([b.values[np.arange(b.rows), b.chosen] for b in batches])
    assert sorted(scores) == sorted(
        rows["score"][np.isin(rows["decision"], ["bid", "card", "call", "poignee"])]
    )


def test_exploration_takes_other_actions_and_the_seed_fixes_every_row(tmp_path: Path) -> None:
    self_play(FFT4, 20, tmp_path / "a", bot="heuristic", epsilon=1.0, seed=3, chunk_size=10)
    wild = _rows(tmp_path / "a")
    assert 0.3 < (wild["chosen"] != wild["hint"]).mean() < 1.0
    self_play(FFT4, 20, tmp_path / "b", bot="heuristic", epsilon=1.0, seed=3, chunk_size=10,
              threads=2)  # fmt: skip
    for k in range(2):
        name = f"chunk-{k:06d}.parquet"
        one, two = (pq.read_table(tmp_path / run / name) for run in ("a", "b"))
        assert one.drop(["action_values"]).equals(two.drop(["action_values"]))
        values = [
            table.column("action_values").combine_chunks().flatten().to_numpy()
            for table in (one, two)
        ]
        assert np.array_equal(*values, equal_nan=True)


@pytest.mark.slow
def test_a_network_trained_on_self_play_fits_the_scores_from_its_own_weights(
    tmp_path: Path,
) -> None:
    start = _network(tmp_path / "start.npz")
    self_play(FFT4, 40, tmp_path / "lessons", bot=f"learned:{start}", seed=2, chunk_size=20)
    options = StreamingOptions(start=str(start), steps=6, buffer=300, seed=4, holdout=0.2)
    first = train_streaming(tmp_path / "lessons", "fft-4", options, out=tmp_path / "one.npz")
    assert first["self_play"] and first["steps"] == 6
    assert first["trunk"] == [16] and first["head"] == [8]  # the start's layers, not the default
    held = first["held_out"]
    assert held["rows"] > 0 and "regret" not in held and held["loss"] > 0
    again = train_streaming(tmp_path / "lessons", "fft-4", options, out=tmp_path / "two.npz")
    one, _ = load_action_in(tmp_path / "one.npz", "fft-4")
    two, _ = load_action_in(tmp_path / "two.npz", "fft-4")
    began, _ = load_action_in(start, "fft-4")
    assert again["held_out"] == held
    assert all(np.array_equal(a[0], b[0]) for a, b in zip(one["trunk"], two["trunk"], strict=True))
    assert not np.array_equal(one["trunk"][0][0], began["trunk"][0][0])


@pytest.mark.slow
def test_rounds_resume_and_say_whether_they_gained(tmp_path: Path) -> None:
    margins = {"bid": 0.5, "defence": 10_000.0}
    start = _network(tmp_path / "start.npz", margins=margins)
    options = RoundOptions(deals=30, chunk_size=15, buffer=500, measure_deals=12, holdout=0.2)
    folder = tmp_path / "rounds"
    summaries = improve(FFT4, start, folder, 2, options, threads=1)
    assert [s["round"] for s in summaries] == [1, 2]
    # Each round's network is the bot it improves: its start's margins kept.
    assert all(load_action_in(s["model"], "fft-4")[1]["margins"] == margins for s in summaries)
    assert summaries[1]["started_from"] == str((round_folder(folder, 1) / "model.npz").resolve())
    for summary in summaries:
        measured = summary["measured"]
        edge = measured["against_previous"]
        assert edge["low"] <= edge["mean"] <= edge["high"]
        assert measured["gained"] == (edge["low"] > 0)
        assert measured["seed"] == options.seed + 1000
    written = json.loads((folder / "rounds.json").read_text())
    assert written["rounds"] == json.loads(json.dumps(summaries))
    # Stopped before round 2's network was written: the same call trains it again to the
    # same weights, and keeps round 1's measures as they were.
    model = round_folder(folder, 2) / "model.npz"
    weights, _ = load_action_in(model, "fft-4")
    kept = (round_folder(folder, 1) / "duplicate.json").stat().st_mtime_ns
    model.unlink()
    (round_folder(folder, 1) / "training.json").unlink()  # stopped as its network was written
    (round_folder(folder, 2) / "duplicate.json").unlink()
    again = improve(FFT4, start, folder, 2, options, threads=1)
    for summary in (*again, *summaries):
        summary["training"].pop("resident")  # the memory held: the machine's, not the round's
        for edge in summary["measured"].values():  # and the time the measures took
            if isinstance(edge, dict):
                edge.pop("seconds")
    assert again == summaries
    retrained, _ = load_action_in(model, "fft-4")
    for part in ("trunk", "head"):
        for (w, b), (w2, b2) in zip(weights[part], retrained[part], strict=True):
            assert np.array_equal(w, w2) and np.array_equal(b, b2)
    assert (round_folder(folder, 1) / "duplicate.json").stat().st_mtime_ns == kept
    # A network cut short on disk is not named as the round's result: it is trained again.
    model.write_bytes(model.read_bytes()[:200])
    improve(FFT4, start, folder, 2, options, threads=1)
    again_weights, _ = load_action_in(model, "fft-4")
    for (w, b), (w2, b2) in zip(weights["trunk"], again_weights["trunk"], strict=True):
        assert np.array_equal(w, w2) and np.array_equal(b, b2)
    with pytest.raises(TarotInputError, match=r"other settings .*options"):
        improve(FFT4, start, folder, 2, RoundOptions(deals=31, chunk_size=15), threads=1)
    other = _network(tmp_path / "other.npz", seed=2)
    with pytest.raises(TarotInputError, match="start"):
        improve(FFT4, other, folder, 2, options, threads=1)


@pytest.mark.slow
def test_the_command_refuses_a_missing_network_in_one_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tarot_analysis.cli", "selfplay", "--from", str(tmp_path / "no.npz"),
         "--out", str(tmp_path / "r")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "no.npz" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "r").exists()


@pytest.mark.slow
def test_train_starts_from_a_network_and_refuses_a_missing_one(tmp_path: Path) -> None:
    start = _network(tmp_path / "start.npz")
    self_play(FFT4, 10, tmp_path / "lessons", bot="heuristic", seed=5, chunk_size=10)

    def train(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "tarot_analysis.cli", "train", str(tmp_path / "lessons"),
             "--out", str(tmp_path / "net.npz"), "--steps", "2", "--no-progress", "--json",
             *extra],
            capture_output=True, text=True, check=False,
        )  # fmt: skip

    missing = train("--start", str(tmp_path / "none.npz"))
    assert missing.returncode == 2 and "none.npz: no such file" in missing.stderr
    assert "Traceback" not in missing.stderr and not (tmp_path / "net.npz").exists()
    done = train("--start", str(start))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["start"] == str(start) and report["trunk"] == [16] and report["self_play"]


def test_self_play_is_not_the_searchs(tmp_path: Path) -> None:
    with pytest.raises(TarotInputError, match=r"not pimc:4.*teach"):
        self_play(FFT4, 10, tmp_path / "s", bot="pimc:4")
    assert not (tmp_path / "s").exists()


def test_a_search_s_lessons_anchor_the_training_on_self_play(tmp_path: Path) -> None:
    start = _network(tmp_path / "start.npz")
    self_play(FFT4, 20, tmp_path / "own", bot=f"learned:{start}", seed=2, chunk_size=10)
    teach(FFT4, 4, tmp_path / "search", worlds=1, seed=3, chunk_size=2)
    alone = StreamingOptions(start=str(start), epochs=1, buffer=200, seed=4, holdout=0.5)
    anchored = replace(alone, anchor=str(tmp_path / "search"))
    plain = train_streaming(tmp_path / "own", "fft-4", alone)
    both = train_streaming(tmp_path / "own", "fft-4", anchored)
    search_rows = sum(
        int((~is_held_out(b.deals, 0.5, 4)).sum()) for b in stream_decisions(tmp_path / "search", 4)
    )
    # Each of the two self-play chunks is followed by one of the search's two.
    assert both["decisions_seen"] == plain["decisions_seen"] + search_rows
    assert both["anchor_chunks"] == 2 and "regret" in both["anchor_held_out"]
    assert both["targets"] == "scores"
    with pytest.raises(TarotInputError, match=r"own: lessons of self-play; an anchor"):
        train_streaming(tmp_path / "own", "fft-4", replace(alone, anchor=str(tmp_path / "own")))
    # Beside a search's lessons, as a round of policy iteration's are, the anchor's values are
    # advantages too: the targets of both are each action's value less their mean.
    searched = replace(alone, anchor=str(tmp_path / "search"))
    again = train_streaming(tmp_path / "search", "fft-4", searched)
    assert again["targets"] == "advantages"
    assert again["held_out"]["loss"] == pytest.approx(again["anchor_held_out"]["loss"])


def test_targets_are_advantages_of_a_search_and_scores_of_self_play(tmp_path: Path) -> None:
    teach(FFT4, 2, tmp_path / "search", worlds=1, seed=3, chunk_size=2)
    self_play(FFT4, 4, tmp_path / "own", bot="heuristic", seed=2, chunk_size=4)
    search = next(stream_decisions(tmp_path / "search", 4))
    own = next(stream_decisions(tmp_path / "own", 4))
    legal = search.legal
    centred = targets_of(search)
    # Advantages: each decision's legal targets add up to 0, and differ as the values do.
    assert np.allclose(np.where(legal, centred, 0).sum(axis=1), 0, atol=1e-4)
    assert np.allclose(np.where(legal, targets_of(search, centred=False), 0), search.values / 100)
    assert not np.allclose(centred, search.values / 100)
    taken = np.arange(own.rows), own.chosen
    for flag in (True, False):  # a self-play score is its own target either way
        assert np.allclose(targets_of(own, flag)[taken], own.values[taken] / 100)
        assert (targets_of(own, flag)[~own.labelled] == 0).all()


def test_a_rounds_network_that_does_not_read_back_whole_is_trained_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tarot_analysis.learning.rounds import _trained

    model = _network(tmp_path / "model.npz")
    assert _trained(model, FFT4) and not _trained(tmp_path / "absent.npz", FFT4)
    model.write_bytes(model.read_bytes()[:200])
    assert not _trained(model, FFT4)
    said = capsys.readouterr().err
    assert said.count("\n") == 1 and "model.npz" in said and said.endswith("training it again\n")


def test_rounds_refuse_another_runs_folder_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import pyarrow as pa

    from tarot_analysis.cli.program import main
    from tarot_analysis.runs.runner import RunSpec, run

    start = _network(tmp_path / "start.npz")
    other = tmp_path / "lessons"
    spec = RunSpec(
        kind="lessons", rules="fft-4", bots=("heuristic",), seed=1, deals=2, chunk_size=2
    )
    run(spec, other, lambda chunk, first, n: pa.table({"deal": range(first, first + n)}))
    held = sorted(path.name for path in other.iterdir())
    said = r"lessons holds _run\.json, chunk-000000\.parquet and no _rounds\.json: not a folder of"
    with pytest.raises(TarotInputError, match=said):
        improve(FFT4, start, other, 1, RoundOptions(deals=10, chunk_size=10))
    assert main(["selfplay", "--from", str(start), "--out", str(other), "--no-progress"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "not a folder of self-play rounds; use a new or empty" in lines[0]
    assert sorted(path.name for path in other.iterdir()) == held  # nothing written in it


def test_rounds_refuse_a_buffer_larger_than_the_memory_before_any_deal(tmp_path: Path) -> None:
    start = _network(tmp_path / "start.npz")
    with pytest.raises(TarotInputError, match="shuffle buffer of 1,000,000,000,000 decisions"):
        improve(FFT4, start, tmp_path / "rounds", 1, RoundOptions(buffer=10**12))
    assert not (tmp_path / "rounds").exists()


@pytest.mark.slow
def test_rounds_of_the_search_over_the_networks_own_play_outs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A round of approximate policy iteration: lessons on the network's own play (two seats
    a deal by a bolder heuristic), valued by the search whose worlds that network plays out
    (and the heuristic at its seats);
    the next round's by the network the first trained; each measured by role against the
    network before and the heuristic."""
    from tarot_analysis.learning.teacher import model_digest, read_lessons
    from tarot_analysis.runs.runner import finished_run

    start = _network(tmp_path / "start.npz")
    folder = tmp_path / "rounds"
    argv = [
        "rounds", "--from", str(start), "--out", str(folder), "--rounds", "2", "--deals", "4",
        "--chunk-size", "4", "--worlds", "1", "--label-share", "0.5", "--others", "heuristic:-4",
        "--other-seats", "2", "--buffer", "200", "--measure-deals", "3", "--against",
        "heuristic", "pimc:1", "--search-measure-deals", "2", "--threads", "1", "--json",
    ]  # fmt: skip
    assert main(argv) == 0
    summaries = json.loads(capsys.readouterr().out)["rounds"]
    for number, summary in enumerate(summaries, start=1):
        lessons = round_folder(folder, number) / "lessons"
        spec = finished_run(lessons)
        assert spec is not None
        played_by = summary["started_from"]
        assert spec.extra["own_play"]["bot"] == f"learned:{played_by}"
        assert spec.extra["own_play"]["others"] == ["heuristic:-4"]
        assert spec.extra["own_play"]["seats"] == 2
        assert spec.extra["own_play"]["worlds_played_by"] == "the bot at each seat"
        assert spec.extra["models"] == {
            name: model_digest(played_by) for name in (f"learned:{played_by}",
                                                      f"pimc:1:learned:{played_by}")
        }  # fmt: skip
        rows = read_lessons(lessons).to_pandas()
        outsider = rows["deal"] % 4  # the seats the heuristic played
        assert len(rows) > 0 and (rows["seat"] != outsider).all()
        assert (rows["seat"] != (outsider + 1) % 4).all()
        assert all(len(values) > 1 for values in rows["action_values"])
        measured = summary["measured"]
        assert set(measured["against_heuristic"]["by_role"]) >= {"taker", "defender"}
        assert measured["against_heuristic"]["deals"] == 3
        assert measured["against_pimc:1"]["deals"] == 2
        assert measured["gained"] == (measured["against_previous"]["low"] > 0)
    assert summaries[1]["started_from"] == str((round_folder(folder, 1) / "model.npz").resolve())
    assert main(argv[:-1]) == 0
    table = capsys.readouterr().out
    assert "the round before" in table and "heuristic" in table and "2 against pimc:1" in table
    with pytest.raises(TarotInputError, match="search's"):
        RoundOptions(others=("heuristic",)).check(4)
    with pytest.raises(TarotInputError, match="learned or rule bots"):
        RoundOptions(lessons="search", others=("pimc",)).check(4)
    with pytest.raises(TarotInputError, match="unknown bot"):
        RoundOptions(against=("nobody",)).check(4)
    with pytest.raises(TarotInputError, match="weighed worlds are for rounds"):
        RoundOptions(weighed=True).check(4)
    with pytest.raises(TarotInputError, match="1 to 2 seats a deal at 3 players"):
        RoundOptions(lessons="search", others=("heuristic",), other_seats=3).check(3)


def test_rounds_made_before_an_option_resume_as_they_were_made(tmp_path: Path) -> None:
    """Settings of rounds that name none of the options added since (the other bots' seats,
    the play-outs by the bot at each seat, the weighed worlds) are those of rounds made
    without them: they resume with the network playing every seat out, and not otherwise."""
    from tarot_analysis.bots.learned import shipped_model
    from tarot_analysis.learning.rounds import SETTINGS_FILE, _claim, _settings

    rules = load_rules("fft-4")
    start = Path(shipped_model(rules)).resolve()
    before = RoundOptions(lessons="search", others=("heuristic",), seated=False)
    settings = _settings(rules, start, before)
    old = json.loads(json.dumps(settings))
    for added in ("other_seats", "seated", "weighed"):
        del old["options"][added]
    (tmp_path / SETTINGS_FILE).write_text(json.dumps(old), encoding="utf-8")
    _claim(tmp_path, settings)
    for changed in (replace(before, seated=True), replace(before, weighed=True)):
        with pytest.raises(TarotInputError, match="other settings"):
            _claim(tmp_path, _settings(rules, start, changed))
    own = _settings(rules, start, RoundOptions())  # self-play takes none of them
    old = json.loads(json.dumps(own))
    for added in ("other_seats", "seated", "weighed"):
        del old["options"][added]
    (tmp_path / "own").mkdir()
    (tmp_path / "own" / SETTINGS_FILE).write_text(json.dumps(old), encoding="utf-8")
    _claim(tmp_path / "own", own)
