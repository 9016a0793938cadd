"""The search bot's lessons: one row per searched decision, stored compactly, resumable, the same
for a seed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from tarot_analysis._jit import chunk_states
from tarot_analysis.bots import door
from tarot_analysis.bots.learned import shipped_model
from tarot_analysis.cli import main
from tarot_analysis.deals.deal import deal
from tarot_analysis.engine import state as S
from tarot_analysis.engine.action_features import N_ACTION_FEATURES
from tarot_analysis.engine.encoding import block, encoding_size, layout
from tarot_analysis.engine.game import GameState
from tarot_analysis.engine.params import engine_rules
from tarot_analysis.errors import TarotInputError
from tarot_analysis.game.rules import load_rules
from tarot_analysis.learning.compact import MAX_LEGAL, batch_from_table, unpack_encodings
from tarot_analysis.learning.streaming import load_action_in, save_action_in
from tarot_analysis.learning.teacher import (
    COMPACT_COLUMNS,
    OwnPlay,
    lesson_counts,
    read_lessons,
    teach,
)
from tarot_analysis.runs.runner import chunk_path
from tarot_analysis.table.compiled import advance
from tarot_analysis.table.play import seat_bots

WORLDS = 4


@pytest.fixture(scope="module")
def lessons(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Small runs of three presets, made once."""
    folders = {}
    for name, deals in (("fft-3", 6), ("fft-4", 8), ("fft-5", 6)):
        folder = tmp_path_factory.mktemp(name)
        teach(load_rules(name), deals, folder, worlds=WORLDS, seed=5, chunk_size=3, threads=2)
        folders[name] = folder
    return folders


def _frame(folder: Path) -> pd.DataFrame:
    return read_lessons(folder).to_pandas()


def _same(a: pa.Table, b: pa.Table) -> bool:
    """Equal rows, NaN equal to NaN (an action the search did not value)."""
    if a.column_names != b.column_names or a.num_rows != b.num_rows:
        return False
    return all(
        np.array_equal(x, y, equal_nan=x.dtype.kind == "f")
        for name in a.column_names
        for x, y in zip(_flat(a, name), _flat(b, name), strict=True)
    )


def _flat(table: pa.Table, name: str) -> list[np.ndarray]:
    """A column's values one after another, and the lengths of its lists."""
    column = table.column(name).combine_chunks()
    lengths = []
    while pa.types.is_list(column.type) or pa.types.is_fixed_size_list(column.type):
        lengths.append(pc.list_value_length(column).to_numpy(zero_copy_only=False))
        column = column.flatten()
    if pa.types.is_fixed_size_binary(column.type):
        return [np.frombuffer(b"".join(column.to_pylist()), dtype=np.uint8), *lengths]
    return [column.to_numpy(zero_copy_only=False), *lengths]


@pytest.mark.parametrize("name", ["fft-3", "fft-4", "fft-5"])
def test_every_row_is_a_searched_decision_with_a_value_for_each_legal_action(
    lessons: dict[str, Path], name: str
) -> None:
    rules = load_rules(name)
    table = read_lessons(lessons[name])
    frame = table.to_pandas()
    assert tuple(frame.columns) == COMPACT_COLUMNS
    assert set(frame["decision"]) <= {"bid", "call", "poignee", "card"}
    assert "card" in set(frame["decision"])
    counts = frame["actions"].map(len).to_numpy()
    assert (counts >= 2).all() and (counts <= MAX_LEGAL).all()  # one legal action: no lesson
    assert (frame["action_values"].map(len).to_numpy() == counts).all()
    assert (frame["features"].map(len).to_numpy() == counts * N_ACTION_FEATURES).all()
    # Every row read back, every legal action valued, the actions in order.
    batch = batch_from_table(table, rules.players)
    assert batch.rows == len(frame) and batch.complete.all()
    legal = batch.legal
    for row, mask in zip(batch.actions, legal, strict=True):
        assert (np.diff(row[mask]) > 0).all()
    # The search takes the action of highest mean, and the hint is a legal action.
    rows = np.arange(batch.rows)
    taken = batch.values[rows, batch.chosen]
    best = np.where(legal, batch.values, -np.inf).max(axis=1)
    assert (taken >= best - 1e-3).all()
    assert (batch.actions[rows, batch.chosen] == frame["chosen"].to_numpy()).all()
    hints = frame["hint"].to_numpy()
    assert ((batch.actions == hints[:, None]) & legal).any(axis=1).all()
    assert (frame["worlds"] >= WORLDS).all()
    # A card played was in the seat's hand, as its encoding says.
    encodings = unpack_encodings(batch.bits, batch.fractions, rules.players)
    assert encodings.shape == (len(frame), encoding_size(rules.players))
    cards = frame["decision"].to_numpy() == "card"
    hand = block(layout(rules.players), "hand")
    played = frame["chosen"].to_numpy()[cards]
    assert (encodings[cards][:, hand][np.arange(cards.sum()), played] == 1).all()


def test_the_seats_scores_of_a_deal_sum_to_zero(lessons: dict[str, Path]) -> None:
    frame = _frame(lessons["fft-4"])
    by_seat = frame.groupby(["deal", "seat"])["score"].first().unstack()
    whole = by_seat.dropna()
    assert len(whole) > 0
    assert np.allclose(whole.sum(axis=1), 0)
    assert (whole.abs().sum(axis=1) > 0).any()  # some deal was played and scored


def test_same_seed_same_rows_on_one_thread_or_two(lessons: dict[str, Path], tmp_path: Path) -> None:
    teach(load_rules("fft-4"), 8, tmp_path, worlds=WORLDS, seed=5, chunk_size=3, threads=1)
    assert _same(read_lessons(tmp_path), read_lessons(lessons["fft-4"]))
    other = tmp_path / "other"
    teach(load_rules("fft-4"), 8, other, worlds=WORLDS, seed=6, chunk_size=3, threads=1)
    assert not _same(read_lessons(other), read_lessons(tmp_path))


def test_a_stopped_run_resumes_to_the_same_rows(lessons: dict[str, Path], tmp_path: Path) -> None:
    folder = tmp_path / "run"
    shutil.copytree(lessons["fft-4"], folder)
    chunk_path(folder, 1).unlink()
    done = teach(load_rules("fft-4"), 8, folder, worlds=WORLDS, seed=5, chunk_size=3)
    assert (done.computed, done.resumed) == (1, 2)
    assert _same(read_lessons(folder), read_lessons(lessons["fft-4"]))


def test_a_folder_of_another_run_is_refused(lessons: dict[str, Path], tmp_path: Path) -> None:
    folder = tmp_path / "run"
    shutil.copytree(lessons["fft-4"], folder)
    with pytest.raises(TarotInputError, match=r"holds a different run .*seed"):
        teach(load_rules("fft-4"), 8, folder, worlds=WORLDS, seed=7, chunk_size=3)
    with pytest.raises(TarotInputError, match=r"holds a different run .*bots"):
        teach(load_rules("fft-4"), 8, folder, worlds=8, seed=5, chunk_size=3)


def test_rows_of_another_kind_are_no_lessons(tmp_path: Path) -> None:
    from tarot_analysis.runs.runner import RunSpec, run

    spec = RunSpec(kind="example", rules="fft-4", bots=("random",), seed=1, deals=4, chunk_size=4)
    run(spec, tmp_path, lambda chunk, first, n: pa.table({"deal": range(first, first + n)}))
    with pytest.raises(TarotInputError, match="holds no lessons"):
        read_lessons(tmp_path)


def test_tarocco_and_impossible_worlds_are_refused(tmp_path: Path) -> None:
    with pytest.raises(TarotInputError, match="Tarocco"):
        teach(load_rules("tarocco"), 2, tmp_path / "a", worlds=WORLDS)
    with pytest.raises(TarotInputError, match="worlds"):
        teach(load_rules("fft-4"), 2, tmp_path / "b", worlds=5000)


def test_the_command_stores_and_counts_its_lessons(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "lessons"
    argv = ["teach", "--rules", "fft-5", "--deals", "3", "--worlds", "2", "--data", str(folder)]
    assert main([*argv, "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["rows"] == len(read_lessons(folder)) > 0
    assert found["by_decision"] == lesson_counts(folder)
    assert found["bot"] == "pimc:2" and found["computed"] == found["chunks"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "0 chunks computed, 1 kept" in text
    assert main(["teach", "--worlds", "9999", "--data", str(tmp_path / "x")]) == 2
    said = capsys.readouterr().err.strip().splitlines()
    assert len(said) == 1 and "worlds" in said[0]


def test_lessons_of_format_1_are_named_when_read(tmp_path: Path) -> None:
    from tarot_analysis.runs.runner import RunSpec, run

    spec = RunSpec(
        kind="lessons", rules="fft-4", bots=("pimc:2",) * 4, seed=1, deals=2, chunk_size=2
    )
    rows = {"deal": [0, 1], "encoding": [[0.0], [1.0]]}  # as format 1 stored them
    run(spec, tmp_path, lambda chunk, first, n: pa.table(rows))
    with pytest.raises(TarotInputError, match="lessons of format 1, for the flat network"):
        read_lessons(tmp_path)


@pytest.mark.slow
def test_a_network_trained_on_lessons_takes_a_seat(
    lessons: dict[str, Path], tmp_path: Path
) -> None:
    from tarot_analysis.bots.learned import load_model
    from tarot_analysis.learning.streaming import (
        StreamingOptions,
        stream_decisions,
        train_streaming,
    )
    from tarot_analysis.table.play import play

    out = tmp_path / "model.npz"
    options = StreamingOptions(trunk=(8,), head=(4,), epochs=1, holdout=0.0, buffer=64)
    report = train_streaming(lessons["fft-4"], "fft-4", options, out=out)
    decisions = sum(block.rows for block in stream_decisions(lessons["fft-4"], 4))
    assert report["decisions_seen"] == decisions == len(read_lessons(lessons["fft-4"]))
    assert load_model(out, "fft-4").widths == (1378, 8, 4, 1)
    result = play(load_rules("fft-4"), 20, bots=f"learned:{out}", seed=2, threads=1)
    assert len(result.scores()) == 20


def test_lessons_valued_by_the_learned_bots_play_outs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["teach", "--rules", "fft-4", "--deals", "2", "--worlds", "2", "--json"]
    found = {}
    for play_outs in ("heuristic", "learned"):
        folder = tmp_path / play_outs
        assert main([*argv, "--play-outs", play_outs, "--data", str(folder)]) == 0
        found[play_outs] = json.loads(capsys.readouterr().out)
    assert found["learned"]["bot"] == "pimc:2:learned" and found["heuristic"]["bot"] == "pimc:2"
    plain, learned = _frame(tmp_path / "heuristic"), _frame(tmp_path / "learned")
    # The first decision of each deal is the same seat's, with the same hand; its actions are
    # valued otherwise when the learned bot plays the worlds out.
    firsts = [frame.groupby("deal").head(1).reset_index(drop=True) for frame in (plain, learned)]
    assert all(a == b for a, b in zip(firsts[0]["state"], firsts[1]["state"], strict=True))
    pairs = list(zip(firsts[0]["action_values"], firsts[1]["action_values"], strict=True))
    assert all(len(a) == len(b) for a, b in pairs)
    assert any(not np.allclose(a, b) for a, b in pairs)
    with pytest.raises(TarotInputError, match=r"holds a different run .*bots"):
        teach(load_rules("fft-4"), 2, tmp_path / "heuristic", worlds=2, play_outs="learned")
    assert main([*argv[:-1], "--play-outs", "network", "--data", str(tmp_path / "x")]) == 2


def test_lessons_on_a_bots_own_play_are_its_tables_game(tmp_path: Path) -> None:
    """With no exploration and every decision valued, each row of lessons on the learned bot's
    own play (one seat a deal played by a bolder heuristic, in turn) is a decision of the table
    of those bots playing the same deal: replayed decision by decision, the table reaches each
    row's step at the row's seat and takes the row's action there; the other bot's seats have
    no rows."""
    rules = load_rules("fft-4")
    own = OwnPlay("learned", ("heuristic:-4", "learned"), epsilon=0.0, label_share=1.0)
    teach(rules, 5, tmp_path, worlds=1, seed=3, chunk_size=5, threads=1, own=own)
    frame = _frame(tmp_path)
    masks = deal(rules, 5, seed=np.random.SeedSequence(3, spawn_key=(0,)), threads=1).masks
    seating = own.seating(rules.players, 0, 5)
    engine = engine_rules(rules)
    p, half = engine.params, engine.half_points
    rng = chunk_states(np.random.SeedSequence(3, spawn_key=(0, 4)), 0, 1)[0]
    checked = 0
    for d in range(5):
        rows = frame[frame["deal"] == d].set_index("step")
        table = [own.bots[k] for k in seating[d]]
        assert set(rows["seat"]) <= {k for k in range(rules.players) if seating[d, k] == 0}
        seated = seat_bots(table, rules)
        ws = door.workspace(p, engine.scoring, seated.rows, seated.nets)
        state = GameState(rules, masks[d])
        python = np.zeros(rules.players, dtype=np.bool_)
        step = 0
        while not state.is_over:
            before = state.copy()
            advance(state.m, state.s, seated.rows, python, 1, p, half, rng, ws)
            if step in rows.index:
                assert rows.loc[step, "seat"] == before.actor
                before.apply(int(rows.loc[step, "chosen"]))
                assert np.array_equal(before.m, state.m) and np.array_equal(before.s, state.s)
                checked += 1
            step += 1
        assert rows.empty or step > rows.index.max()
    assert checked == len(frame) >= 60


def test_lessons_on_a_bots_own_play_explore_and_value_a_share(tmp_path: Path) -> None:
    """A share of the learned bot's decisions is valued, the same rows for the same seed on
    one thread or two; exploring takes other actions than the bot's."""
    rules = load_rules("fft-3")
    runs = {}
    for name, share, epsilon, threads in (
        ("all", 1.0, 0.0, 1), ("some", 0.25, 0.0, 2), ("again", 0.25, 0.0, 1),
        ("explored", 1.0, 0.5, 1),
    ):  # fmt: skip
        own = OwnPlay("learned", epsilon=epsilon, label_share=share)
        teach(rules, 6, tmp_path / name, worlds=2, seed=4, chunk_size=3, threads=threads, own=own)
        runs[name] = _frame(tmp_path / name)
    assert _same(*(read_lessons(tmp_path / name) for name in ("some", "again")))
    share = len(runs["some"]) / len(runs["all"])
    assert 0.15 < share < 0.35, share
    valued = runs["all"].set_index(["deal", "step"])
    assert set(runs["some"].set_index(["deal", "step"]).index) <= set(valued.index)
    explored = runs["explored"]
    assert (explored["chosen"] != explored["hint"]).mean() > (
        runs["all"]["chosen"] != runs["all"]["hint"]
    ).mean()


def test_the_search_plays_its_worlds_out_with_the_bots_at_the_table(tmp_path: Path) -> None:
    """Lessons on the learned bot's play with a bolder heuristic at two seats a deal: the
    search's worlds are played out by the bot at each seat, or by the network everywhere;
    the deals are played alike, and the values are the same on the deals of the bot's own
    play alone (the first four) and differ on those with the heuristic at the table."""
    rules = load_rules("fft-4")
    frames = {}
    for seated in (True, False):
        own = OwnPlay("learned", ("learned", "heuristic:-4"), seats=2, seated=seated)
        folder = tmp_path / str(seated)
        teach(
            rules, 8, folder, worlds=2, seed=2, chunk_size=8, threads=1, own=own,
            play_outs="learned",
        )  # fmt: skip
        frames[seated] = _frame(folder)
        definition = json.loads((folder / "_run.json").read_text(encoding="utf-8"))
        assert definition["extra"]["own_play"]["seats"] == 2
    seated, everywhere = frames[True], frames[False]
    for column in ("deal", "seat", "step", "chosen", "hint"):
        assert seated[column].equals(everywhere[column])
    seating = OwnPlay("learned", ("learned", "heuristic:-4"), seats=2).seating(4, 0, 8)
    assert (seating[4:] > 0).sum(axis=1).tolist() == [2] * 4
    assert (seating[seated["deal"], seated["seat"]] == 0).all()
    same = [
        np.allclose(a, b, equal_nan=True)
        for a, b in zip(seated["action_values"], everywhere["action_values"], strict=True)
    ]
    alone = (seated["deal"] < 4).to_numpy()
    assert all(np.asarray(same)[alone]) and alone.sum() >= 20
    assert (~np.asarray(same)[~alone]).sum() >= 3


def _sides_of_rows(rules_name: str, frame: pd.DataFrame, bot: str, seed: int) -> np.ndarray:
    """The side (attack or defence) of the seat of each row of lessons on ``bot``'s play at
    every seat, replayed deal by deal at the table of that bot (no exploration)."""
    rules = load_rules(rules_name)
    deals = int(frame["deal"].max()) + 1
    masks = deal(rules, deals, seed=np.random.SeedSequence(seed, spawn_key=(0,)), threads=1).masks
    engine = engine_rules(rules)
    p, half = engine.params, engine.half_points
    rng = chunk_states(np.random.SeedSequence(seed, spawn_key=(0, 4)), 0, 1)[0]
    seated = seat_bots([bot] * rules.players, rules)
    ws = door.workspace(p, engine.scoring, seated.rows, seated.nets)
    python = np.zeros(rules.players, dtype=np.bool_)
    sides = {}
    for d in range(deals):
        state = GameState(rules, masks[d])
        step = 0
        while not state.is_over:
            sides[d, step] = int(state.s[S.S_SIDE + state.actor])
            advance(state.m, state.s, seated.rows, python, 1, p, half, rng, ws)
            step += 1
    return np.array([sides[d, k] for d, k in zip(frame["deal"], frame["step"], strict=True)])


def test_a_defenders_cards_that_the_heuristic_plays_are_not_valued(tmp_path: Path) -> None:
    """Under a defence margin no prediction passes, the heuristic plays the bot's cards where
    its side did not take, whatever its network says: the search values none of them, and
    values its bids and its cards in attack as before."""
    rules = load_rules("fft-4")
    params, meta = load_action_in(shipped_model(rules), "fft-4")
    kept = {k: v for k, v in meta.items() if k in ("rules", "decides")}
    frames = {}
    for name, margins in (("trusted", {}), ("attacks", {"defence": 10_000})):
        model = save_action_in(tmp_path / f"{name}.npz", params, kept | {"margins": margins})
        folder = tmp_path / name
        teach(
            rules, 6, folder, worlds=1, seed=5, chunk_size=6, threads=1, own=OwnPlay("learned"),
            play_outs="learned", model=str(model),
        )  # fmt: skip
        frame = _frame(folder)
        frame["side"] = _sides_of_rows("fft-4", frame, f"learned:{model}", 5)
        frames[name] = frame
    for name, frame in frames.items():
        cards = frame[frame["decision"] == "card"]
        assert (cards["side"] == S.ATTACK).sum() >= 20, name
        defended = (cards["side"] == S.DEFENCE).sum()
        assert defended == 0 if name == "attacks" else defended >= 40, (name, defended)
        assert (frame["decision"] == "bid").sum() >= 12, name


def test_lessons_valued_on_weighed_worlds(tmp_path: Path) -> None:
    """``play_outs="weighed"``: the search that values the lessons is ``pimc:N:weighed``, its
    worlds weighed by the cards the other seats played; on the same deals played alike, its
    values are not those of the worlds drawn alike."""
    rules = load_rules("fft-3")
    own = OwnPlay("learned", ("heuristic",))
    frames = {}
    for play_outs in ("learned", "weighed"):
        folder = tmp_path / play_outs
        teach(
            rules, 3, folder, worlds=2, seed=5, chunk_size=3, threads=1, own=own,
            play_outs=play_outs,
        )  # fmt: skip
        definition = json.loads((folder / "_run.json").read_text(encoding="utf-8"))
        assert definition["bots"][-1] == f"pimc:2:{play_outs}"
        assert definition["extra"]["play_outs"] == play_outs
        frames[play_outs] = _frame(folder)
    learned, weighed = frames["learned"], frames["weighed"]
    assert learned["chosen"].equals(weighed["chosen"]) and len(learned) >= 20
    cards = (learned["decision"] == "card").to_numpy()
    differ = [
        not np.allclose(a, b, equal_nan=True)
        for a, b in zip(learned["action_values"], weighed["action_values"], strict=True)
    ]
    assert np.asarray(differ)[cards].sum() >= 3


def test_lessons_on_a_bots_own_play_refuse_what_makes_none(tmp_path: Path) -> None:
    rules = load_rules("fft-4")
    with pytest.raises(TarotInputError, match="learned or rule bots"):
        teach(rules, 2, tmp_path / "a", own=OwnPlay("pimc:4"))
    with pytest.raises(TarotInputError, match="share of decisions valued is 0"):
        teach(rules, 2, tmp_path / "b", own=OwnPlay("learned", label_share=0.0))
    with pytest.raises(TarotInputError, match="1 to 3 seats a deal at 4 players, got 4"):
        teach(rules, 2, tmp_path / "b", own=OwnPlay("learned", ("heuristic",), seats=4))
    with pytest.raises(TarotInputError, match="only with the learned play-outs"):
        teach(rules, 2, tmp_path / "c", model="x.npz")
    argv = ["teach", "--rules", "fft-4", "--deals", "2", "--data", str(tmp_path / "d")]
    assert main([*argv, "--others", "heuristic"]) == 2
    assert main([*argv, "--other-seats", "2"]) == 2
    assert main([*argv, "--network-at-every-seat"]) == 2
    assert main([*argv, "--own-play", "heuristic", "--label-share", "0"]) == 2
    assert not (tmp_path / "d").exists()
