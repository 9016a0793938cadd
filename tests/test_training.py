"""Training a network on decisions: the data read, the split, the report, the command."""

from __future__ import annotations

import json
import signal
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest

from tarot_analysis.bots.learned import load_model
from tarot_analysis.cli.program import EXIT_USAGE, main
from tarot_analysis.engine.encoding import encode, encoding_size
from tarot_analysis.engine.game import GameState
from tarot_analysis.engine.state import N_ACTIONS
from tarot_analysis.errors import TarotInputError
from tarot_analysis.game.rules import load_rules
from tarot_analysis.learning.training import (
    NEEDS_EXTRA,
    VALUE_SCALE,
    Decisions,
    advantages,
    deal_interval,
    decisions_from_table,
    evaluate,
    read_decisions,
    split_by_deal,
    train,
)
from tarot_analysis.runs.runner import RunSpec, run

PRESET = "fft-4"


def _schema(players: int) -> pa.Schema:
    """The columns of a run of the search bot's decisions."""

    def fixed(kind: pa.DataType, size: int) -> pa.DataType:
        return pa.list_(pa.field("element", kind), size)

    return pa.schema(
        [
            ("deal", pa.int64()), ("seat", pa.int8()), ("step", pa.int16()),
            ("decision", pa.string()), ("encoding", fixed(pa.float32(), encoding_size(players))),
            ("legal", fixed(pa.bool_(), N_ACTIONS)), ("values", fixed(pa.float32(), N_ACTIONS)),
            ("chosen", pa.int16()), ("worlds", pa.int16()), ("score", pa.float32()),
        ]
    )  # fmt: skip


def _teacher(x: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """A teacher's values that depend on the seat's cards: each action is worth 40 points when
    the seat holds a card tied to it, plus a little by its number; NaN where not legal."""
    hand = x[7 + 6 + 1 + 4 : 7 + 6 + 1 + 4 + 78]  # players, decision, to act, actor (4 seats)
    actions = np.arange(N_ACTIONS)
    values = 40.0 * hand[(actions * 5 + 3) % 78] + (actions % 11)
    return np.where(legal, values, np.nan).astype(np.float32)


def _decisions_table(deals: int, first: int = 0) -> pa.Table:
    """Decisions of ``deals`` deals stepped through the game state (each action picked by a
    fixed rule), the teacher's values of each legal action, and its best action chosen."""
    rules = load_rules(PRESET)
    rows: dict[str, list[object]] = {name: [] for name in _schema(4).names}
    for deal in range(first, first + deals):
        state = GameState.deal(rules, seed=deal)
        step = 0
        while not state.is_over:
            legal = state.action_mask()
            actions = np.nonzero(legal)[0]
            if len(actions) > 1:
                x = encode(state, state.actor)
                values = _teacher(x, legal)
                chosen = int(np.nanargmax(values))
                for name, value in zip(
                    rows,
                    (deal, state.actor, step, state.decision, x, legal, values, chosen, 8, 0.0),
                    strict=True,
                ):
                    rows[name].append(value)
            state.apply(int(actions[(step * 7 + deal) % len(actions)]))
            step += 1
    return pa.table(rows, schema=_schema(4))


@pytest.fixture(scope="module")
def decisions() -> Decisions:
    """About 700 decisions of 10 deals."""
    return decisions_from_table(_decisions_table(10), PRESET)


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run folder of 8 deals' decisions, in chunks of 4 deals."""
    target = tmp_path_factory.mktemp("decisions")
    spec = RunSpec(kind="decisions", rules=PRESET, bots=("pimc:8",), seed=1, deals=8, chunk_size=4)
    run(spec, target, lambda chunk, first, n: _decisions_table(n, first), threads=1)
    return target


def test_decisions_read_back_from_a_run_folder(folder: Path) -> None:
    read = read_decisions(folder)
    assert read.rules == PRESET and read.players == 4
    assert read.encodings.shape == (read.rows, 1378) and read.encodings.dtype == np.float32
    assert read.legal.shape == read.values.shape == (read.rows, N_ACTIONS)
    assert sorted(set(read.deals.tolist())) == list(range(8))
    assert read.legal[np.arange(read.rows), read.chosen].all()
    assert np.isnan(read.values[~read.legal]).all() and np.isfinite(read.values[read.legal]).all()


def test_decisions_the_search_did_not_value_are_skipped() -> None:
    table = _decisions_table(2)
    values = table.column("values").to_pylist()
    legal = table.column("legal").to_pylist()
    values[3] = [float("nan")] * N_ACTIONS  # two alike cards: no world drawn
    table = table.set_column(
        table.column_names.index("values"),
        "values",
        pa.array(values, _schema(4).field("values").type),
    )
    read = decisions_from_table(table, PRESET)
    assert read.rows == table.num_rows - 1 and read.skipped == 1
    assert read.legal.tolist() == [row for k, row in enumerate(legal) if k != 3]


def test_a_folder_that_is_not_of_decisions_is_named(tmp_path: Path) -> None:
    with pytest.raises(TarotInputError, match="no such folder of decisions"):
        read_decisions(tmp_path / "absent")
    with pytest.raises(TarotInputError, match=r"no _run.json: not the folder of a run"):
        read_decisions(tmp_path)
    spec = RunSpec(kind="play", rules=PRESET, bots=("random",), seed=1, deals=2, chunk_size=2)
    run(
        spec, tmp_path / "play", lambda chunk, first, n: pa.table({"deal": range(first, first + n)})
    )
    with pytest.raises(
        TarotInputError, match=r"not a run of the search bot's decisions .*encoding"
    ):
        read_decisions(tmp_path / "play")
    with pytest.raises(TarotInputError, match="lists of 1117 numbers"):
        decisions_from_table(_decisions_table(1), "fft-3")


def test_the_held_out_deals_are_whole_and_drawn_from_the_seed(decisions: Decisions) -> None:
    kept, held = split_by_deal(decisions.deals, 0.3, seed=4)
    assert len(kept) + len(held) == decisions.rows
    assert not set(decisions.deals[kept]) & set(decisions.deals[held])
    assert len(set(decisions.deals[held])) == 3  # 30% of 10 deals
    again = split_by_deal(decisions.deals, 0.3, seed=4)
    assert np.array_equal(held, again[1])
    others = [split_by_deal(decisions.deals, 0.3, seed=s)[1] for s in range(5, 10)]
    assert any(not np.array_equal(held, other) for other in others)
    with pytest.raises(TarotInputError, match="from 0 to below 1"):
        split_by_deal(decisions.deals, 1.0, seed=4)


def test_the_interval_by_deal_is_students_on_deal_means_when_deals_are_alike() -> None:
    from scipy import stats as scipy_stats

    rng = np.random.default_rng(3)
    deals = np.repeat(np.arange(30), 5)  # equal counts: the ratio is the mean of deal means
    values = rng.normal(2.0, 1.0, 150) + np.repeat(rng.normal(0, 2, 30), 5)
    found = deal_interval(values, deals)
    means = values.reshape(30, 5).mean(axis=1)
    low, high = scipy_stats.t.interval(0.95, 29, loc=means.mean(), scale=scipy_stats.sem(means))
    assert found["mean"] == pytest.approx(values.mean())
    assert found["ci_low"] == pytest.approx(low) and found["ci_high"] == pytest.approx(high)
    assert found["deals"] == 30


@pytest.mark.slow
def test_the_same_seed_gives_the_same_weights(decisions: Decisions) -> None:
    first = train(decisions, hidden=(16,), epochs=2, seed=5)
    second = train(decisions, hidden=(16,), epochs=2, seed=5)
    other = train(decisions, hidden=(16,), epochs=2, seed=6)
    for a, b in zip(first.weights + first.biases, second.weights + second.biases, strict=True):
        assert np.array_equal(a, b)
    assert first.report == second.report
    assert not np.array_equal(first.weights[0], other.weights[0])


def test_the_report_is_in_range(decisions: Decisions) -> None:
    report = train(decisions, hidden=(16,), epochs=2, seed=1, holdout=0.2).report
    assert report["train"]["rows"] + report["held_out"]["rows"] == decisions.rows
    assert report["held_out"]["deals"] == 2 and report["train"]["deals"] == 8
    assert report["widths"] == [1378, 16, N_ACTIONS]
    for part in (report["train"], report["held_out"]):
        assert part["loss"] >= 0
        assert 0 <= part["match_rate"] <= 1
        assert part["matches"] == round(part["match_rate"] * part["rows"])
        regret = part["regret"]
        assert 0 <= regret["mean"] <= part["random_regret"]["mean"] + 50
        assert regret["ci_low"] <= regret["mean"] <= regret["ci_high"]
    json.dumps(report, allow_nan=False)  # the model file keeps it


@pytest.mark.slow
def test_a_trained_network_takes_the_teachers_action_more_than_an_untrained_one(
    decisions: Decisions,
) -> None:
    untrained = train(decisions, hidden=(64,), epochs=0, seed=2, holdout=0.0).report["train"]
    trained = train(decisions, hidden=(64,), epochs=40, seed=2, holdout=0.0).report["train"]
    assert trained["match_rate"] > untrained["match_rate"] + 0.3
    assert trained["regret"]["mean"] < untrained["regret"]["mean"] / 2
    assert trained["loss"] < untrained["loss"] / 2


def test_evaluate_measures_loss_and_regret_by_the_teachers_values(decisions: Decisions) -> None:
    # A network of zeros: its loss is the mean square of the advantages, and it takes the
    # lowest legal action, whose regret is the best value less that action's.
    rows = np.arange(decisions.rows)
    zeros = evaluate(
        [np.zeros((1378, N_ACTIONS), np.float32)], [np.zeros(N_ACTIONS, np.float32)], decisions
    )
    target = advantages(decisions.values, decisions.legal)
    assert VALUE_SCALE == 100.0 and np.abs(target).max() < 1  # the teacher's values, / 100
    squared = (target**2).sum(axis=1) / decisions.legal.sum(axis=1)
    assert zeros["loss"] == pytest.approx(float(squared.mean()), rel=1e-5)
    lowest = decisions.legal.argmax(axis=1)
    best = np.nanmax(decisions.values, axis=1)
    assert zeros["regret"]["mean"] == pytest.approx((best - decisions.values[rows, lowest]).mean())
    assert zeros["matches"] == int((lowest == decisions.chosen).sum())


def test_training_without_the_extra_says_how_to_install_it(
    decisions: Decisions, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "jax", None)
    with pytest.raises(TarotInputError, match=r"pip install 'tarot-analysis\[train\]'"):
        train(decisions, epochs=1)


@pytest.mark.slow
def test_the_train_command_writes_a_model_and_prints_its_report(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "model.npz"
    argv = [
        "train", str(folder), "--out", str(out), "--hidden", "8", "--epochs", "2",
        "--seed", "3", "--holdout", "0.25", "--no-progress",
    ]  # fmt: skip
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "fft-4:" in printed and "held out" in printed and "regret" in printed
    model = load_model(out, PRESET)
    assert model.widths == (1378, 8, N_ACTIONS)
    assert model.metadata["seed"] == 3 and model.metadata["report"]["held_out"]["deals"] == 2
    assert main([*argv, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (
        report["held_out"]["regret"]["mean"]
        == model.metadata["report"]["held_out"]["regret"]["mean"]
    )  # the same seed: the same network


def test_the_train_command_names_bad_input_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = str(tmp_path / "m.npz")
    assert main(["train", str(tmp_path / "absent"), "--out", out]) == EXIT_USAGE
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "absent: no such folder of decisions" in error
    assert main(["train", str(tmp_path), "--out", out, "--holdout", "1.5"]) == EXIT_USAGE
    assert "expected a fraction from 0 to below 1" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "optax", None)
    assert main(["train", str(tmp_path), "--out", out]) == EXIT_USAGE
    assert capsys.readouterr().err == f"tarot-analysis: error: {NEEDS_EXTRA}\n"


def test_runs_of_one_preset_train_together_their_deals_apart(folder: Path, tmp_path: Path) -> None:
    from tarot_analysis.learning.training import join_decisions

    one = read_decisions(folder)
    both = join_decisions([one, one])
    assert both.rows == 2 * one.rows
    assert len(np.unique(both.deals)) == 2 * len(np.unique(one.deals))
    other = Decisions(
        rules="fft-3", players=3, deals=one.deals, encodings=one.encodings, legal=one.legal,
        values=one.values, chosen=one.chosen,
    )  # fmt: skip
    with pytest.raises(TarotInputError, match="different presets"):
        join_decisions([one, other])


# --- What is checked before training --------------------------------------------------------


def test_a_folder_given_twice_or_copied_gives_each_deal_once(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same run twice (by two spellings of its path, or a copy of it) would put copies of
    its deals on both sides of the held-out split: each deal is read once. A longer run of
    the same seed adds only the deals the shorter one does not hold."""
    import shutil

    from tarot_analysis.learning import training

    seen: list[Decisions] = []

    def train(decisions: Decisions, **options: object) -> None:
        seen.append(decisions)
        raise TarotInputError("stop here")

    monkeypatch.setattr(training, "train", train)
    monkeypatch.setattr(training, "_jax", lambda: (None, None, None))
    copy = tmp_path / "copy"
    shutil.copytree(folder, copy)
    longer = tmp_path / "longer"
    spec = RunSpec(kind="decisions", rules=PRESET, bots=("pimc:8",), seed=1, deals=12, chunk_size=4)
    run(spec, longer, lambda chunk, first, n: _decisions_table(n, first), threads=1)
    one = read_decisions(folder)
    again = [folder, Path(str(folder) + "/."), copy, folder.parent / folder.name]
    for given in (again, [folder, longer]):
        with pytest.raises(TarotInputError, match="stop here"):
            training.train_folder(given, tmp_path / "m.npz")
    twice, extended = seen
    assert twice.rows == one.rows and sorted(twice.deals) == sorted(one.deals)
    assert len(np.unique(extended.deals)) == 12 and extended.rows == len(extended.chosen)
    assert len(np.unique(extended.deals)) == len(set(extended.deals.tolist()))
    assert extended.rows == read_decisions(longer).rows


@pytest.mark.parametrize(
    ("hidden", "message"),
    [
        (["4", "4", "4", "4", "4"], "at most 4, of 1 to 4,096 units each; got 4 4 4 4 4"),
        (["5000"], "of 1 to 4,096 units each; got 5000"),
    ],
)
def test_layers_a_table_cannot_seat_are_refused_before_anything_is_read(
    folder: Path, tmp_path: Path, hidden: list[str], message: str,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    from tarot_analysis.learning import training

    monkeypatch.setattr(training, "_jax", lambda: (None, None, None))
    monkeypatch.setattr(training, "read_decisions", None)  # not reached
    out = tmp_path / "m.npz"
    assert main(["train", str(folder), "--out", str(out), "--hidden", *hidden]) == EXIT_USAGE
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and message in error
    assert not out.exists()


def test_an_out_that_cannot_be_written_is_refused_before_training(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    from tarot_analysis.learning import training

    monkeypatch.setattr(training, "_jax", lambda: (None, None, None))
    monkeypatch.setattr(training, "train", None)  # not reached
    (tmp_path / "a folder").mkdir()
    (tmp_path / "a file").write_text("")
    for out in (tmp_path / "a folder", tmp_path / "a file" / "m.npz"):
        assert main(["train", str(folder), "--out", str(out)]) == EXIT_USAGE
        error = capsys.readouterr().err
        assert error.count("\n") == 1 and "cannot" in error and "Traceback" not in error


def test_a_training_too_large_for_the_memory_is_refused_in_one_line(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tarot_analysis.learning.training import check_training_memory

    check_training_memory([folder], (256, 128), available=1 << 30)
    with pytest.raises(TarotInputError, match=r"training on \d+ decisions with hidden lay") as e:
        check_training_memory([folder], (4096, 4096, 4096, 4096), available=100 << 20)
    assert "is available: train on fewer runs, or narrower --hidden layers" in str(e.value)


# --- Nothing wrong is kept, and Ctrl-C stops it ---------------------------------------------


@pytest.mark.slow
def test_a_training_that_diverges_stops_in_one_line_naming_its_step_and_writes_nothing(
    folder: Path, tmp_path: Path
) -> None:
    from tarot_analysis.learning.training import train_folder

    out = tmp_path / "m.npz"
    with pytest.raises(TarotInputError, match=r"diverged at epoch 1, batch 2 of \d+: ") as said:
        train_folder(folder, out, hidden=(8,), epochs=2, learning_rate=1e30)
    assert "\n" not in str(said.value) and "nothing was written" in str(said.value)
    assert not out.exists()
    with pytest.raises(TarotInputError, match=r"above 0 and at most 3\.4e\+38, got 1e\+300"):
        train_folder(folder, out, hidden=(8,), epochs=2, learning_rate=1e300)


def test_a_network_with_a_weight_not_finite_is_never_written() -> None:
    from tarot_analysis.learning.training import check_finite

    layers = {"trunk": [(np.ones((2, 2)), np.zeros(2))], "head": [(np.ones((2, 1)), np.ones(1))]}
    check_finite(layers)
    layers["head"][0][1][0] = np.inf
    with pytest.raises(TarotInputError, match="some weights are not finite numbers"):
        check_finite(layers)


@pytest.mark.slow
def test_a_ctrl_c_dropped_in_a_finaliser_stops_the_training_at_its_next_step(
    decisions: Decisions, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tarot_analysis.runs.interrupts import noted_interrupts
    from tests.interrupting import drop_a_ctrl_c

    monkeypatch.setattr(sys, "unraisablehook", lambda unraisable: None)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with noted_interrupts():
            drop_a_ctrl_c()
            with pytest.raises(KeyboardInterrupt):
                train(decisions, hidden=(8,), epochs=1)
    finally:
        signal.signal(signal.SIGINT, previous)


@pytest.mark.slow
def test_the_train_command_stopped_by_a_dropped_ctrl_c_says_so_and_writes_nothing(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    from tarot_analysis import EXIT_INTERRUPTED
    from tarot_analysis.cli import main as command
    from tarot_analysis.learning import training
    from tests.interrupting import drop_a_ctrl_c

    split = training.split_by_deal

    def split_then_drop(*arguments: Any) -> Any:
        drop_a_ctrl_c()  # while the deals are split, before the first step
        return split(*arguments)

    monkeypatch.setattr(training, "split_by_deal", split_then_drop)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    out = tmp_path / "m.npz"
    try:
        done = command(["train", str(folder), "--out", str(out), "--hidden", "8", "--no-progress"])
    finally:
        signal.signal(signal.SIGINT, previous)
    assert done == EXIT_INTERRUPTED
    said = capsys.readouterr()
    assert said.out == "" and not out.exists()
    assert said.err.startswith("tarot-analysis: interrupted: nothing was written to")
    assert said.err.count("\n") == 1
