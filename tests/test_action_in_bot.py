"""An action-in network as the learned bot: its model file (format 2) read through the learned
bot's checks, its compiled scores equal to the training's NumPy ones, seated at the table."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tarot_analysis._jit import chunk_states
from tarot_analysis.bots import B_DEFENCE_MARGIN, B_MARGIN_0, B_TRUNK, door, seat_rows
from tarot_analysis.bots.learned import (
    ACTION_IN_FORMAT,
    KEPT_UPDATES,
    decide_action_in,
    load_model,
    scratch_size,
)
from tarot_analysis.cli import main
from tarot_analysis.engine.action_features import (
    FEATURE_SCALE,
    N_ACTION_FEATURES,
    action_features,
)
from tarot_analysis.engine.encoding import ENCODING_VERSION, encode, encoding_size
from tarot_analysis.engine.game import GameState
from tarot_analysis.engine.params import engine_rules
from tarot_analysis.engine.state import DECISIONS, N_ACTIONS
from tarot_analysis.errors import TarotInputError
from tarot_analysis.game.rules import load_rules
from tarot_analysis.learning.streaming import init_params, load_action_in, save_action_in, scores
from tarot_analysis.runs.interrupts import held_interrupts
from tarot_analysis.table.play import play


def _params(trunk: tuple[int, ...], head: tuple[int, ...], seed: int = 1, players: int = 4) -> dict:
    params = init_params(encoding_size(players), trunk, head, seed)
    rng = np.random.default_rng(seed)
    for part in params.values():  # biases not zero, so that they are read
        for k, (w, b) in enumerate(part):
            part[k] = (w, rng.normal(0, 0.5, b.shape).astype(np.float32))
    return params


def _saved(
    path: Path, trunk: tuple[int, ...] = (16, 8), head: tuple[int, ...] = (8,), **meta: object
) -> Path:
    rules = str(meta.pop("rules", "fft-4"))
    players = load_rules(rules).players
    meta = {"rules": rules, "decides": ["bid", "call", "poignee", "card"]} | meta
    return save_action_in(path, _params(trunk, head, players=players), meta)


def _rewrite(path: Path, **changes: object) -> None:
    """Write the model file again with some metadata or arrays changed (``None``: removed)."""
    with np.load(path) as archive:
        arrays = {name: archive[name] for name in archive.files}
    metadata = json.loads(str(arrays["metadata"]))
    for key, value in changes.items():
        if key in arrays and key != "metadata":
            if value is None:
                del arrays[key]
            else:
                arrays[key] = value  # type: ignore[assignment]
        else:
            metadata[key] = value
    arrays["metadata"] = np.array(json.dumps(metadata))
    with open(path, "wb") as file:
        np.savez(file, **arrays)


def test_a_saved_action_in_network_loads_back_flat_for_compiled_code(tmp_path: Path) -> None:
    path = _saved(tmp_path / "net.npz", trunk=(16, 8), head=(8,))
    model = load_model(path, "fft-4")
    assert model.form == ACTION_IN_FORMAT and model.trunk == 2
    assert model.widths == (1378, 16, 8, 8, 1)
    assert model.decides == ("bid", "call", "poignee", "card") and model.margins["card"] == 0.0
    params, meta = load_action_in(path, "fft-4")
    layers = [a for part in ("trunk", "head") for pair in params[part] for a in pair]
    assert np.array_equal(model.weights, np.concatenate([a.ravel() for a in layers]))
    assert meta["format"] == ACTION_IN_FORMAT and meta["encoding_version"] == ENCODING_VERSION
    rows, nets = seat_rows([f"learned:{path}", "heuristic"] * 2, load_rules("fft-4"))
    assert rows[0, B_TRUNK] == 2 and rows[1, B_TRUNK] == 0 and len(nets) == len(model.weights)


def _decisions(seed: int) -> list[GameState]:
    """Every state of a deal played by the heuristic at every seat."""
    rules = load_rules("fft-4")
    state = GameState.deal(rules, seed=seed)
    found = []
    rows, nets = seat_rows(["heuristic"] * 4, rules)
    with held_interrupts():
        ws = door.workspace(state.engine.params, state.engine.scoring, rows, nets)
    rng = chunk_states(np.random.SeedSequence(seed), 0, 1)[0]
    while not state.is_over:
        found.append(state.copy())
        seat = state.actor
        state.apply(
            door.decide(
                state.m, state.s, seat, rows[seat], state.engine.params, state.engine.half_points,
                rng, ws,
            )
        )  # fmt: skip
    return found


@pytest.mark.parametrize("kept", [False, True], ids=["afresh", "kept"])
@pytest.mark.parametrize("layers", [((16, 8), (8,)), ((12,), ()), ((8,), (6, 4))])
def test_compiled_scores_are_the_training_networks(
    layers: tuple[tuple[int, ...], tuple[int, ...]], kept: bool, tmp_path: Path
) -> None:
    """The compiled scores are the training code's, with the first layer computed whole at
    each decision or kept per seat from its last decision and updated (the decisions of whole
    deals, one after another, each seat's updates past the bound that computes it whole)."""
    trunk, head = layers
    model = load_model(_saved(tmp_path / "net.npz", trunk, head), "fft-4")
    params, _ = load_action_in(tmp_path / "net.npz", "fft-4")
    scratch = np.zeros(scratch_size(model.layout), dtype=np.float32)
    x = np.zeros(encoding_size(4), dtype=np.float32)
    out = np.zeros(N_ACTIONS, dtype=np.float32)
    mask = np.zeros(N_ACTIONS, dtype=np.bool_)
    features = np.zeros((N_ACTIONS, N_ACTION_FEATURES), dtype=np.uint8)
    actions = np.zeros(N_ACTIONS, dtype=np.int64)
    first = trunk[0] if kept else 0
    layers_kept = np.zeros((4, first), dtype=np.float32)
    seen = np.zeros((4, x.shape[0] if kept else 0), dtype=np.float32)
    updates = np.zeros(4, dtype=np.int64)
    compared = 0
    states = [state for seed in range(4, 10) for state in _decisions(seed)]
    for state in states:
        legal = state.legal_actions()
        if len(legal) < 2 or state.decision == "ecart":
            continue
        seat, hint = state.actor, int(legal[-1])
        rows, listed = action_features(state, seat, hint)
        expected = scores(
            np, params, encode(state, seat)[None, :].astype(np.float32),
            (rows.astype(np.float32) * FEATURE_SCALE)[None],
        )[0]  # fmt: skip
        chosen = decide_action_in(
            state.m, state.s, seat, state.engine.params, state.engine.half_points, hint,
            model.weights, model.layout, model.trunk, x, out, scratch, mask, features, actions,
            layers_kept[seat], seen[seat], updates[seat : seat + 1],
        )  # fmt: skip
        np.testing.assert_allclose(out[listed], expected, rtol=1e-5, atol=1e-5)
        assert chosen == listed[int(np.argmax(expected))]
        compared += 1
    assert compared > 50
    assert (updates > 0).all() == kept and (not kept or len(states) > 4 * KEPT_UPDATES)


def test_the_seated_bot_takes_the_networks_best_action(tmp_path: Path) -> None:
    path = _saved(tmp_path / "net.npz", trunk=(16, 8), head=(8,))
    params, _ = load_action_in(path, "fft-4")
    rules = load_rules("fft-4")
    rows, nets = seat_rows([f"learned:{path}"] * 4, rules)
    states = [state for seed in range(4, 8) for state in _decisions(seed)]
    with held_interrupts():
        ws = door.workspace(states[0].engine.params, states[0].engine.scoring, rows, nets)
    rng = chunk_states(np.random.SeedSequence(1), 0, 1)[0]
    asked = 0
    for state in states:
        legal = state.legal_actions()
        if len(legal) < 2 or state.decision not in ("bid", "card"):
            continue
        seat = state.actor
        hint = door.decide_rules(
            state.m, state.s, seat, rows[seat], state.engine.params, rng, ws.plan
        )
        features, listed = action_features(state, seat, int(hint))
        expected = scores(
            np, params, encode(state, seat)[None, :].astype(np.float32),
            (features.astype(np.float32) * FEATURE_SCALE)[None],
        )[0]  # fmt: skip
        chosen = door.decide(
            state.m, state.s, seat, rows[seat], state.engine.params, state.engine.half_points,
            rng, ws,
        )  # fmt: skip
        assert chosen == listed[int(np.argmax(expected))]
        asked += 1
    assert asked > 50


def test_the_action_in_bot_plays_whole_deals_at_the_table(tmp_path: Path) -> None:
    path = _saved(tmp_path / "net.npz", trunk=(16,), head=(8,))
    seated = [f"learned:{path}", "heuristic"] * 2
    result = play(load_rules("fft-4"), 30, bots=seated, seed=2, threads=1)
    scores_ = result.scores()
    assert len(scores_) == 30
    assert np.allclose(scores_[[f"score_{k}" for k in range(4)]].sum(axis=1), 0)
    heuristic = play(load_rules("fft-4"), 30, bots="heuristic", seed=2, threads=1)
    assert not np.array_equal(result.outcomes, heuristic.outcomes)  # the network was asked


def test_bad_action_in_files_are_refused_in_one_line(tmp_path: Path) -> None:
    path = _saved(tmp_path / "net.npz")

    def refused(pattern: str, rules: str = "fft-4") -> None:
        with pytest.raises(TarotInputError, match=pattern) as caught:
            load_model(path, rules)
        assert str(path) in str(caught.value) and "\n" not in str(caught.value)

    refused("a model of 'fft-4', not of 'fft-5'", "fft-5")
    good = path.read_bytes()
    path.write_bytes(good[: len(good) // 2])
    refused("damaged or truncated")
    _saved(path)
    _rewrite(path, encoding_version=ENCODING_VERSION + 1)
    refused("trained on encoding version")
    _saved(path)
    _rewrite(path, features_version=0)
    refused("action features of version 0; this version computes version")
    _saved(path)
    _rewrite(path, trunk_1_w=np.zeros((9, 8), np.float32))
    refused("do not chain from the state to one score")
    _saved(path)
    _rewrite(path, head_1_b=None)
    refused(r"not a model of tarot-analysis \(no head_1_b\)")
    _saved(path)
    _rewrite(path, head_layers=7)
    refused("are not a network a table seats")
    _saved(path, trunk=(16,), head=(4100,))
    refused("are not a network a table seats")
    _saved(path)
    _rewrite(path, format=3)
    refused("of format 3; this version reads format 2")


def test_the_command_refuses_a_bad_action_in_file_before_any_deal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _saved(tmp_path / "net.npz", rules="fft-5")
    argv = ["play", "--rules", "fft-4", "--deals", "10", "--bots", f"learned:{path}"]
    assert main(argv) == 2
    said = capsys.readouterr().err.strip().splitlines()
    assert len(said) == 1 and "net.npz" in said[0] and "'fft-5'" in said[0]


def test_a_margin_is_written_into_an_action_in_model(tmp_path: Path) -> None:
    from benchmarks.learned_margin import with_margin

    source = _saved(tmp_path / "net.npz", decides=["card"])
    out = with_margin(str(source), "fft-4", ["bid"], 25.0, tmp_path / "with.npz", {"seed": 3})
    before, after = load_model(source, "fft-4"), load_model(out, "fft-4")
    assert np.array_equal(before.weights, after.weights)
    assert (after.trunk, after.widths) == (before.trunk, before.widths)
    assert after.decides == ("bid", "card")
    assert after.margins == {"bid": 25.0, "card": 0.0, "defence": 0.0}
    assert after.metadata["margin_choices"] == {"bid": {"seed": 3}}
    # A defender's margin is a margin of the cards, not a decision of its own.
    defends = with_margin(str(out), "fft-4", ["defence"], 10_000, tmp_path / "d.npz", {})
    assert load_model(defends, "fft-4").decides == ("bid", "card")
    assert load_model(defends, "fft-4").margins["defence"] == 10_000.0
    rows, _ = seat_rows([f"learned:{out}", "heuristic", "heuristic", "heuristic"], "fft-4")
    assert rows[0, B_TRUNK] == before.trunk and rows[0, B_MARGIN_0 + DECISIONS.index("bid")] == 2500
    rows, _ = seat_rows([f"learned:{defends}", "heuristic", "heuristic", "heuristic"], "fft-4")
    assert rows[0, B_DEFENCE_MARGIN] == 1_000_000 and rows[0, B_MARGIN_0 + 5] == 0


def test_a_deal_starts_with_every_first_layer_computed_whole() -> None:
    """Once told a deal starts, a table's seats score their first decision of it exactly as a
    new table does: the first layers kept from the deal before leave nothing behind, so a deal
    is played the same alone as within a run."""
    rules = load_rules("fft-4")
    rows, nets = seat_rows(["learned"] * 4, rules)
    rng = chunk_states(np.random.SeedSequence(1), 0, 1)[0]

    def table() -> door.Workspace:
        engine = engine_rules(rules)
        return door.workspace(engine.params, engine.scoring, rows, nets)

    def first_scores(ws: door.Workspace, state: GameState) -> np.ndarray:
        seat = state.actor
        legal = state.legal_actions()
        assert len(legal) > 1
        door.decide_without_search(
            state.m, state.s, seat, rows[seat], state.engine.params, state.engine.half_points,
            rng.copy(), ws,
        )  # fmt: skip
        return ws.out[legal].copy()

    played = table()
    state = GameState.deal(rules, seed=21)
    while not state.is_over:  # a whole deal, every seat's first layer kept and updated
        seat = state.actor
        state.apply(
            door.decide_without_search(
                state.m, state.s, seat, rows[seat], state.engine.params,
                state.engine.half_points, rng, played,
            )
        )  # fmt: skip
    assert (played.updates[:4] > 1).all()
    door.new_deal(played)
    following = GameState.deal(rules, seed=22)
    assert np.array_equal(first_scores(played, following), first_scores(table(), following))
