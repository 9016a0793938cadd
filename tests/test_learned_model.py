"""The learned bot's model files and its compiled forward pass."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from tarot_analysis.bots.learned import (
    MODEL_FORMAT,
    choose,
    decide_learned,
    flatten,
    forward,
    load_model,
    save_model,
    scratch_size,
    unflatten,
)
from tarot_analysis.engine.encoding import ENCODING_VERSION, encode, encoding_size
from tarot_analysis.engine.game import GameState
from tarot_analysis.engine.state import N_ACTIONS
from tarot_analysis.errors import TarotInputError
from tarot_analysis.game.rules import load_rules


def _layers(widths: list[int], seed: int = 0) -> tuple[list[np.ndarray], list[np.ndarray]]:
    rng = np.random.default_rng(seed)
    weights = [
        rng.normal(0, 1 / np.sqrt(a), (a, b)).astype(np.float32)
        for a, b in itertools.pairwise(widths)
    ]
    biases = [rng.normal(0, 0.1, b).astype(np.float32) for b in widths[1:]]
    return weights, biases


def _numpy_forward(
    weights: list[np.ndarray], biases: list[np.ndarray], x: np.ndarray
) -> np.ndarray:
    h = x.astype(np.float64)
    for k, (w, b) in enumerate(zip(weights, biases, strict=True)):
        h = h @ w + b
        if k < len(weights) - 1:
            h = np.maximum(h, 0)
    return h


def _saved(tmp_path: Path, preset: str = "fft-4", hidden: tuple[int, ...] = (16, 8)) -> Path:
    players = load_rules(preset).players
    weights, biases = _layers([encoding_size(players), *hidden, N_ACTIONS])
    path = tmp_path / "model.npz"
    save_model(path, weights, biases, {"rules": preset, "seed": 3, "rows": 10, "report": {}})
    return path


def _rewrite(path: Path, **changes: object) -> None:
    """Write the model file again with some metadata or arrays changed."""
    with np.load(path) as archive:
        arrays = {name: archive[name] for name in archive.files}
    metadata = json.loads(str(arrays["metadata"]))
    for key, value in changes.items():
        if key in ("weights", "widths"):
            arrays[key] = value  # type: ignore[assignment]
        else:
            metadata[key] = value
    arrays["metadata"] = np.array(json.dumps(metadata))
    with open(path, "wb") as file:
        np.savez(file, **arrays)


# --------------------------------------------------------------------------------------------
# Files
# --------------------------------------------------------------------------------------------


def test_a_saved_model_loads_back_with_its_weights_and_metadata(tmp_path: Path) -> None:
    players = 4
    weights, biases = _layers([encoding_size(players), 16, 8, N_ACTIONS])
    path = tmp_path / "model.npz"
    save_model(path, weights, biases, {"rules": "fft-4", "seed": 3, "rows": 10, "report": {"a": 1}})
    model = load_model(path, load_rules("fft-4"))
    assert model.rules == "fft-4" and model.players == 4
    assert model.encoding_version == ENCODING_VERSION
    assert model.encoding_size == encoding_size(4) == 1378
    assert model.widths == (1378, 16, 8, N_ACTIONS)
    assert model.weights.dtype == np.float32 and model.layout.dtype == np.int64
    assert model.metadata["seed"] == 3 and model.metadata["rows"] == 10
    assert model.metadata["report"] == {"a": 1} and model.metadata["format"] == MODEL_FORMAT
    back_w, back_b = unflatten(model.weights, model.layout)
    for a, b in zip(back_w + back_b, weights + biases, strict=True):
        assert np.array_equal(a, b)
    assert load_model(path, "fft-4").widths == model.widths  # a preset's name works too


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
    with pytest.raises(TarotInputError, match="not a model of tarot-analysis"):
        load_model(path, "fft-4")
    path = _saved(tmp_path)
    _rewrite(path, kind="something else")
    with pytest.raises(TarotInputError, match="not a model of tarot-analysis"):
        load_model(path, "fft-4")
    _rewrite(path, kind="tarot-analysis learned bot", format=MODEL_FORMAT + 2)
    with pytest.raises(TarotInputError, match="of format 3; this version reads formats 1 and 2"):
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
        weights, widths = archive["weights"], archive["widths"]
    _rewrite(path, weights=weights[:-1])
    with pytest.raises(TarotInputError, match=r"weights of type float32; layers .* need"):
        load_model(path, "fft-4")
    _rewrite(path, weights=weights, widths=np.array([1378, 17, 8, 93]))
    with pytest.raises(TarotInputError, match=r"widths .* are not those of its metadata"):
        load_model(path, "fft-4")
    _rewrite(path, widths=widths, encoding_size=1000)
    with pytest.raises(TarotInputError, match="reads 1000 inputs; the encoding of 4 players"):
        load_model(path, "fft-4")
    bad = weights.copy()
    bad[5] = np.nan
    _rewrite(path, weights=bad, encoding_size=1378)
    with pytest.raises(TarotInputError, match="not finite"):
        load_model(path, "fft-4")


def test_save_refuses_layers_that_do_not_chain_or_fit_the_preset(tmp_path: Path) -> None:
    weights, biases = _layers([1378, 16, N_ACTIONS])
    with pytest.raises(TarotInputError, match="layer 1"):
        save_model(tmp_path / "m.npz", [weights[0], weights[0]], biases, {"rules": "fft-4"})
    with pytest.raises(TarotInputError, match="reads 1117 inputs"):
        save_model(tmp_path / "m.npz", weights, biases, {"rules": "fft-3"})
    assert not (tmp_path / "m.npz").exists()


# --------------------------------------------------------------------------------------------
# Inference
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("hidden", [(), (32,), (64, 32), (7, 5, 3)])
def test_the_compiled_forward_pass_is_the_networks(hidden: tuple[int, ...]) -> None:
    widths = [1378, *hidden, N_ACTIONS]
    weights, biases = _layers(widths, seed=len(hidden))
    flat, layout = flatten(weights, biases)
    rng = np.random.default_rng(5)
    out = np.zeros(N_ACTIONS, dtype=np.float32)
    scratch = np.full(scratch_size(layout), np.nan, dtype=np.float32)  # nothing read unwritten
    for _ in range(20):
        x = (rng.random(1378) < 0.05).astype(np.float32)
        x[rng.integers(0, 1378, 10)] = rng.random(10).astype(np.float32)  # fractions too
        forward(flat, layout, x, out, scratch)
        np.testing.assert_allclose(out, _numpy_forward(weights, biases, x), rtol=1e-4, atol=1e-4)


def test_choose_takes_the_legal_action_of_highest_output() -> None:
    weights = [np.zeros((4, N_ACTIONS), np.float32)]
    outputs = np.arange(N_ACTIONS, dtype=np.float32)[::-1].copy()  # action 0 highest
    flat, layout = flatten(weights, [outputs])
    x = np.zeros(4, np.float32)
    out = np.zeros(N_ACTIONS, np.float32)
    scratch = np.zeros(scratch_size(layout), np.float32)
    legal = np.zeros(N_ACTIONS, np.bool_)
    assert choose(flat, layout, x, legal, out, scratch) == -1
    legal[[10, 40, 92]] = True
    assert choose(flat, layout, x, legal, out, scratch) == 10
    flat[-N_ACTIONS:] = 1.0  # all equal: the lowest legal
    assert choose(flat, layout, x, legal, out, scratch) == 10
    flat[-N_ACTIONS + 92] = 2.0
    assert choose(flat, layout, x, legal, out, scratch) == 92


@pytest.mark.parametrize("preset", ["fft-3", "fft-4", "fft-5"])
def test_the_learned_bot_always_answers_a_legal_action(preset: str) -> None:
    rules = load_rules(preset)
    weights, biases = _layers([encoding_size(rules.players), 24, N_ACTIONS], seed=7)
    flat, layout = flatten(weights, biases)
    x = np.zeros(encoding_size(rules.players), np.float32)
    out = np.zeros(N_ACTIONS, np.float32)
    scratch = np.zeros(scratch_size(layout), np.float32)
    mask = np.zeros(N_ACTIONS, np.bool_)
    decisions = weighed = 0
    for seed in range(12):
        state = GameState.deal(rules, seed=seed)
        while not state.is_over:
            seat = state.actor
            action = decide_learned(
                state.m, state.s, seat, state.engine.params, state.engine.half_points, flat,
                layout, x, out, scratch, mask,
            )  # fmt: skip
            legal = state.legal_actions()
            assert action in legal
            if len(legal) > 1:  # a single legal action is taken without the network
                assert np.array_equal(x, encode(state, seat))
                expected = _numpy_forward(weights, biases, x)
                expected[~state.action_mask()] = -np.inf
                assert expected[action] >= expected.max() - 1e-4
                weighed += 1
            state.apply(action)  # the bot plays every seat, to the end
            decisions += 1
    assert decisions > 12 * 20 and weighed > 12 * 10


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
        ({"widths": "wide"}, "its widths"),
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


def test_a_network_too_deep_for_a_table_is_refused_as_it_loads(tmp_path: Path) -> None:
    path = _saved(tmp_path, hidden=(4, 4, 4, 4, 4))
    with pytest.raises(TarotInputError, match="at most 4 hidden layers"):
        load_model(path, "fft-4")


def test_the_decisions_and_margins_named_are_the_bots(tmp_path: Path) -> None:
    path = _saved(tmp_path)
    _rewrite(path, decides=["card", "bid"], margins={"card": 25, "bid": 2.5, "call": 1})
    model = load_model(path, "fft-4")
    assert model.decides == ("bid", "card") and model.margins == {"bid": 2.5, "card": 25.0}


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
    _write_member(path, "weights", header, b"\x00" * 64)
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
