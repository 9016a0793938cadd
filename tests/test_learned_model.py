"""The learned bot's model files: what is read, what is refused, and the network's action."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from tarot_analysis._jit import chunk_states
from tarot_analysis.bots import door, seat_rows
from tarot_analysis.bots.learned import (
    ACTION_IN_FORMAT,
    decide_action_in,
    load_model,
    read_model_arrays,
    scratch_size,
    shipped_model,
)
from tarot_analysis.cli import main
from tarot_analysis.engine.action_features import FEATURE_SCALE, N_ACTION_FEATURES, action_features
from tarot_analysis.engine.encoding import ENCODING_VERSION, encode, encoding_size
from tarot_analysis.engine.game import GameState
from tarot_analysis.engine.params import engine_rules
from tarot_analysis.engine.state import N_ACTIONS
from tarot_analysis.errors import TarotInputError
from tarot_analysis.game.rules import load_rules
from tarot_analysis.learning.streaming import init_params, load_action_in, save_action_in, scores
from tarot_analysis.runs.interrupts import held_interrupts


def _params(players: int, trunk: tuple[int, ...], head: tuple[int, ...], seed: int) -> dict:
    """Random layers of an action-in network, its biases not zero so that they are read."""
    params = init_params(encoding_size(players), trunk, head, seed)
    rng = np.random.default_rng(seed)
    for part in params.values():
        for k, (w, b) in enumerate(part):
            part[k] = (w, rng.normal(0, 0.1, b.shape).astype(np.float32))
    return params


def _saved(
    tmp_path: Path,
    preset: str = "fft-4",
    trunk: tuple[int, ...] = (16, 8),
    head: tuple[int, ...] = (8,),
) -> Path:
    params = _params(load_rules(preset).players, trunk, head, seed=3)
    meta = {"rules": preset, "seed": 3, "rows": 10, "report": {}}
    return save_action_in(tmp_path / "model.npz", params, meta)


def _rewrite(path: Path, **changes: object) -> None:
    """Write the model file again with some metadata or arrays changed."""
    with np.load(path) as archive:
        arrays = {name: archive[name] for name in archive.files}
    metadata = json.loads(str(arrays["metadata"]))
    for key, value in changes.items():
        if key in arrays and key != "metadata":
            arrays[key] = value  # type: ignore[assignment]
        else:
            metadata[key] = value
    arrays["metadata"] = np.array(json.dumps(metadata))
    with open(path, "wb") as file:
        np.savez(file, **arrays)


def _flat_file(path: Path, preset: str = "fft-4") -> Path:
    """A flat network's model file as earlier versions wrote it (format 1): its layers flat in
    ``weights``, their sizes in ``widths``, from the encoding to one output per action."""
    rules = load_rules(preset)
    widths = np.array([encoding_size(rules.players), 16, N_ACTIONS], dtype=np.int64)
    weights = np.zeros(sum(a * b + b for a, b in itertools.pairwise(widths)), np.float32)
    metadata = {
        "rules": preset, "seed": 1, "rows": 10, "report": {},
        "kind": "tarot-analysis learned bot", "format": 1, "players": rules.players,
        "encoding_version": ENCODING_VERSION, "encoding_size": int(widths[0]),
        "widths": widths.tolist(),
    }  # fmt: skip
    with open(path, "wb") as file:
        np.savez(file, weights=weights, widths=widths, metadata=np.array(json.dumps(metadata)))
    return path


# --------------------------------------------------------------------------------------------
# Files
# --------------------------------------------------------------------------------------------


def test_a_saved_model_loads_back_with_its_weights_and_metadata(tmp_path: Path) -> None:
    params = _params(4, (16, 8), (8,), seed=1)
    path = tmp_path / "model.npz"
    save_action_in(path, params, {"rules": "fft-4", "seed": 3, "rows": 10, "report": {"a": 1}})
    model = load_model(path, load_rules("fft-4"))
    assert model.rules == "fft-4" and model.players == 4 and model.trunk == 2
    assert model.encoding_version == ENCODING_VERSION
    assert model.encoding_size == encoding_size(4) == 1378
    assert model.widths == (1378, 16, 8, 8, 1)
    assert model.weights.dtype == np.float32 and model.layout.dtype == np.int64
    assert model.metadata["seed"] == 3 and model.metadata["rows"] == 10
    assert model.metadata["report"] == {"a": 1} and model.form == ACTION_IN_FORMAT
    layers = [a for part in ("trunk", "head") for pair in params[part] for a in pair]
    assert np.array_equal(model.weights, np.concatenate([a.ravel() for a in layers]))
    assert load_model(path, "fft-4").widths == model.widths  # a preset's name works too


def test_a_flat_network_is_refused_in_one_line_naming_the_file(tmp_path: Path) -> None:
    path = _flat_file(tmp_path / "flat.npz")
    said = (
        f"{path}: a flat network (format 1), which this version no longer plays: train an "
        f"action-in network (tarot-analysis teach, then tarot-analysis train)"
    )
    for read in (lambda: load_model(path, "fft-4"), lambda: read_model_arrays(path)):
        with pytest.raises(TarotInputError) as refused:
            read()
        assert str(refused.value) == said
    # Before its rules are looked at: a flat file of another preset says the same.
    with pytest.raises(TarotInputError, match="a flat network"):
        load_model(path, "fft-3")


def test_the_command_refuses_a_flat_network_before_any_deal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _flat_file(tmp_path / "flat.npz")
    folder = tmp_path / "run"
    argv = ["play", "--rules", "fft-4", "--deals", "10", "--bots", f"learned:{path}"]
    assert main([*argv, "--out", str(folder)]) == 2
    said = capsys.readouterr().err.strip().splitlines()
    assert len(said) == 1 and f"{path}: a flat network (format 1)" in said[0], said
    assert "Traceback" not in said[0] and not folder.exists()


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(TarotInputError, match=r"model file .*absent\.npz: no such file"):
        load_model(tmp_path / "absent.npz", "fft-4")


def test_a_truncated_file_is_refused_in_one_line(tmp_path: Path) -> None:
    path = _saved(tmp_path)
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    with pytest.raises(TarotInputError, match="damaged or truncated") as caught:
        load_model(path, "fft-4")
    assert str(path) in str(caught.value) and "\n" not in str(caught.value)


def test_a_file_of_other_bytes_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "noise.npz"
    path.write_bytes(np.random.default_rng(1).bytes(5000))
    with pytest.raises(TarotInputError, match=r"noise.npz: not a readable model file"):
        load_model(path, "fft-4")


def test_an_archive_of_other_arrays_is_not_a_model(tmp_path: Path) -> None:
    path = tmp_path / "other.npz"
    np.savez(path, x=np.zeros(3))
    with pytest.raises(TarotInputError, match=r"not a model of tarot-analysis \(no metadata\)"):
        load_model(path, "fft-4")
    path = _saved(tmp_path)
    _rewrite(path, kind="something else")
    with pytest.raises(TarotInputError, match="not a model of tarot-analysis"):
        load_model(path, "fft-4")
    for form in (3, 0, "2", True):
        _rewrite(path, kind="tarot-analysis learned bot", format=form)
        with pytest.raises(TarotInputError, match=r"; this version reads format 2$"):
            load_model(path, "fft-4")


def test_a_model_of_another_preset_is_refused(tmp_path: Path) -> None:
    path = _saved(tmp_path, "fft-4")
    with pytest.raises(TarotInputError, match="a model of 'fft-4', not of 'legacy-4'"):
        load_model(path, "legacy-4")
    with pytest.raises(TarotInputError, match="a model of 'fft-4', not of 'fft-3'"):
        load_model(path, "fft-3")


def test_a_model_for_another_number_of_players_is_refused(tmp_path: Path) -> None:
    path = _saved(tmp_path)
    _rewrite(path, players=5)
    with pytest.raises(TarotInputError, match="a model for 5 players; fft-4 has 4"):
        load_model(path, "fft-4")


def test_a_model_of_another_encoding_version_is_refused(tmp_path: Path) -> None:
    path = _saved(tmp_path)
    _rewrite(path, encoding_version=ENCODING_VERSION - 1)
    with pytest.raises(TarotInputError, match=r"trained on encoding version 0.*train it again"):
        load_model(path, "fft-4")


def test_weights_that_do_not_match_the_layers_are_refused(tmp_path: Path) -> None:
    path = _saved(tmp_path)
    with np.load(path) as archive:
        first, bias = archive["trunk_0_w"], archive["trunk_0_b"]
    _rewrite(path, trunk_0_b=bias[:-1])
    with pytest.raises(TarotInputError, match="are not matrices with a bias for each column"):
        load_model(path, "fft-4")
    _rewrite(path, trunk_0_b=bias, widths=[1378, 17, 8, 8, 1])
    with pytest.raises(TarotInputError, match=r"widths .* are not those of its metadata"):
        load_model(path, "fft-4")
    _rewrite(path, widths=[1378, 16, 8, 8, 1], encoding_size=1000)
    with pytest.raises(TarotInputError, match="reads 1000 inputs; the encoding of 4 players"):
        load_model(path, "fft-4")
    _rewrite(path, encoding_size=1378, trunk_0_w=first.astype(np.float64))
    with pytest.raises(TarotInputError, match="its layers are not float32"):
        load_model(path, "fft-4")
    bad = first.copy()
    bad[5, 3] = np.nan
    _rewrite(path, trunk_0_w=bad)
    with pytest.raises(TarotInputError, match="not finite"):
        load_model(path, "fft-4")


# --------------------------------------------------------------------------------------------
# The network's action
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("preset", ["fft-3", "fft-4", "fft-5"])
def test_the_learned_bot_always_answers_a_legal_action(preset: str) -> None:
    """The shipped network at every seat, to the end of each deal, the heuristic's action as
    its hint, as the table asks it: it bids, so the cards are played (a network of random
    weights passes whole deals)."""
    rules = load_rules(preset)
    model = load_model(shipped_model(rules), rules)
    params, _ = load_action_in(shipped_model(rules), preset)
    rows, nets = seat_rows(["heuristic"] * rules.players, rules)
    engine = engine_rules(rules)
    with held_interrupts():
        ws = door.workspace(engine.params, engine.scoring, rows, nets)
    rng = chunk_states(np.random.SeedSequence(1), 0, 1)[0]
    x = np.zeros(encoding_size(rules.players), np.float32)
    out = np.zeros(N_ACTIONS, np.float32)
    scratch = np.zeros(scratch_size(model.layout), np.float32)
    mask = np.zeros(N_ACTIONS, np.bool_)
    features = np.zeros((N_ACTIONS, N_ACTION_FEATURES), np.uint8)
    actions = np.zeros(N_ACTIONS, np.int64)
    none, updates = np.zeros(0, np.float32), np.zeros(1, np.int64)  # the first layer afresh
    decisions = weighed = cards = 0
    for seed in range(12):
        state = GameState.deal(rules, seed=seed)
        while not state.is_over:
            seat = state.actor
            legal = state.legal_actions()
            hint = int(
                door.decide_rules(state.m, state.s, seat, rows[seat], engine.params, rng, ws.plan)
            )
            action = decide_action_in(
                state.m, state.s, seat, state.engine.params, state.engine.half_points, hint,
                model.weights, model.layout, model.trunk, x, out, scratch, mask, features,
                actions, none, none, updates,
            )  # fmt: skip
            assert action in legal
            if len(legal) > 1:  # a single legal action is taken without the network
                assert np.array_equal(x, encode(state, seat))
                found, listed = action_features(state, seat, hint)
                expected = scores(
                    np, params, x[None, :], (found.astype(np.float32) * FEATURE_SCALE)[None]
                )[0]
                assert expected[list(listed).index(action)] >= expected.max() - 1e-4
                weighed += 1
                cards += state.decision == "card"
            state.apply(action)  # the bot plays every seat, to the end
            decisions += 1
    assert decisions > 12 * 20 and weighed > 12 * 10 and cards > 12 * 5


# --------------------------------------------------------------------------------------------
# Metadata and sizes, checked as the file is read
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"decides": 5}, "its decides 5 is not a list of the decisions bid, call"),
        ({"decides": ["card", "dance"]}, "its decides .* is not a list of the decisions"),
        ({"decides": []}, "its decides .* is not a list"),
        ({"decides": "card"}, "its decides .* is not a list"),
        ({"margins": [1, 2]}, "its margins .* are not points from 0 to 10000"),
        ({"margins": {"card": "x"}}, "its margins"),
        ({"margins": {"card": -1}}, "its margins"),
        ({"margins": {"card": 1e300}}, "its margins"),
        ({"margins": {"card": True}}, "its margins"),
        ({"margins": {"dance": 1}}, "its margins"),
        ({"trunk_layers": "two"}, "are not a network a table seats"),
        ({"head_layers": 0}, "are not a network a table seats"),
    ],
)
def test_odd_metadata_is_refused_in_one_line_naming_the_file(
    tmp_path: Path, changes: dict[str, object], message: str
) -> None:
    path = _saved(tmp_path)
    _rewrite(path, **changes)
    with pytest.raises(TarotInputError, match=message) as refused:
        load_model(path, "fft-4")
    assert str(refused.value).startswith(str(path)) and "\n" not in str(refused.value)


def test_a_network_too_deep_or_too_wide_for_a_table_is_refused_as_it_loads(
    tmp_path: Path,
) -> None:
    path = _saved(tmp_path, trunk=(4, 4, 4), head=(4, 4))
    with pytest.raises(TarotInputError, match="at least one of each, 5 in all"):
        load_model(path, "fft-4")
    path = _saved(tmp_path, trunk=(4097,), head=(4,))
    with pytest.raises(TarotInputError, match="at most 4 hidden layers of 1 to 4096 units"):
        load_model(path, "fft-4")


def test_the_decisions_and_margins_named_are_the_bots(tmp_path: Path) -> None:
    path = _saved(tmp_path)
    _rewrite(path, decides=["card", "bid"], margins={"card": 25, "bid": 2.5, "call": 1})
    model = load_model(path, "fft-4")
    assert model.decides == ("bid", "card")
    assert model.margins == {"bid": 2.5, "card": 25.0, "defence": 25.0}
    _rewrite(path, decides=["card"], margins={"card": 25, "defence": 10_000})
    assert load_model(path, "fft-4").margins == {"card": 25.0, "defence": 10_000.0}


def _write_member(path: Path, name: str, header: dict[str, object], data: bytes) -> None:
    """Add to the model file at ``path`` the array ``name`` as a .npy of ``header`` (its
    dtype, order and shape) followed by ``data``, deflated."""
    import zipfile

    with np.load(path) as archive:
        arrays = {key: archive[key] for key in archive.files if key != name}
    text = repr(header).encode("latin1")
    text += b" " * (-(len(text) + 11) % 64) + b"\n"
    npy = b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text + data
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for key, array in arrays.items():
            with archive.open(f"{key}.npy", "w") as member:
                np.lib.format.write_array(member, array)
        archive.writestr(f"{name}.npy", npy)


def test_an_array_that_claims_more_than_its_file_is_refused_before_it_is_allocated(
    tmp_path: Path,
) -> None:
    path = _saved(tmp_path)
    header = {"descr": "<f4", "fortran_order": False, "shape": (1 << 40,)}  # 4 TiB
    _write_member(path, "trunk_0_w", header, b"\x00" * 64)
    with pytest.raises(TarotInputError, match="damaged or truncated"):
        load_model(path, "fft-4")


def test_a_small_file_that_would_inflate_past_the_bound_is_refused_before_it_is_read(
    tmp_path: Path,
) -> None:
    """A few kilobytes that unpack to 17 MiB of metadata: refused from the archive's own
    sizes, before anything is unpacked."""
    path = _saved(tmp_path)
    size = 17 << 20
    header = {"descr": "|S1", "fortran_order": False, "shape": (size,)}
    _write_member(path, "metadata", header, b" " * size)
    assert path.stat().st_size < 2 << 20
    with pytest.raises(TarotInputError, match=r"its metadata take 17\.0 MiB unpacked; a model"):
        load_model(path, "fft-4")


def test_the_bounds_of_a_model_are_those_of_a_bots_row() -> None:
    from tarot_analysis import bots
    from tarot_analysis.bots import learned

    assert learned.MAX_WIDTHS == bots.MAX_WIDTHS
    assert learned.LEARNABLE == bots.learned.DECISIONS[: bots.N_DECISION_KINDS]
