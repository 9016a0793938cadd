"""A learned bot's network: its file, and its scores in compiled code.

The network is an *action-in* network trained on the search bot's decisions
(:mod:`tarot_analysis.learning.streaming`): it scores each legal action from the state and
that action's features (:mod:`tarot_analysis.engine.action_features`). A trunk of layers with
ReLU reads what the seat knows (:func:`tarot_analysis.engine.encoding.encode_into`,
``widths[0]`` numbers) into the state's vector; a head, the same weights for every action,
reads that vector beside the action's features to one score, the action's predicted value for
the seat (its advantage over the mean of the legal actions, in hundreds of points). The bot
takes the legal action of highest score (:func:`decide_action_in`).

A model file (format 2, :data:`ACTION_IN_FORMAT`, written by
:func:`tarot_analysis.learning.streaming.save_action_in`) is one ``.npz`` (NumPy's zip of
arrays) holding each layer as ``trunk_K_w``, ``trunk_K_b``, ``head_K_w``, ``head_K_b`` (its
matrix ``(inputs, outputs)``, its biases) and ``metadata``, a JSON text: the format, the
preset and its number of players, the encoding's and the features' versions and lengths, the
layers of the trunk and of the head, and what the training kept. :func:`load_model` refuses,
in one line naming the file, a model of another preset, another number of players, another
encoding or features version: its inputs would mean something else. A file of format 1, the
flat network of earlier versions (one output per action), is refused so too.

Compiled code reads the network as two arrays: ``widths`` (int64: the inputs, the trunk's
layers, the head's, 1) and ``weights`` (float32, flat): for each layer its matrix stored
``(inputs, outputs)`` row-major, then its biases; :attr:`Model.trunk` counts the trunk's
layers, and the head's first matrix reads the trunk's last width plus the features. A row per
input lets a layer add the rows of the inputs that are not zero only: a seat's encoding is
mostly zeros (a hand of 18 cards among 78 places, ...), and so are the values after ReLU; and
the state's part of the head's first layer is computed once a decision, not once an action
(:func:`action_scores`).

>>> import numpy as np
>>> widths = np.array([3, 2, 2, 1], dtype=np.int64)  # a trunk of 2 units, a head of 2 then 1
>>> weights = np.ones(weights_length(widths, 1), np.float32)
>>> features = np.zeros((2, N_ACTION_FEATURES), np.uint8)
>>> features[1, :2] = 1  # the second action: a card that wins the trick as it stands
>>> scores, scratch = np.zeros(2, np.float32), np.zeros(scratch_size(widths), np.float32)
>>> none, updates = np.zeros(0, np.float32), np.zeros(1, np.int64)  # no first layer kept
>>> x = np.array([1, 0, 2], np.float32)
>>> action_scores(weights, widths, 1, x, features, 2, scores, scratch, none, none, updates)
>>> scores.tolist()
[19.0, 23.0]
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt
from numba import njit

from tarot_analysis._jit import KERNEL, trailing_zeros
from tarot_analysis.engine.action_features import (
    FEATURE_SCALE,
    FEATURES_VERSION,
    N_ACTION_FEATURES,
    action_features_into,
)
from tarot_analysis.engine.encoding import ENCODING_VERSION, encode_into, encoding_size
from tarot_analysis.engine.state import DECISIONS, MAX_SEATS
from tarot_analysis.errors import TarotInputError
from tarot_analysis.game.rules import Rules, load_rules
from tarot_analysis.reader import MODEL_BYTES, open_archive, parse_json

__all__ = [
    "ACTION_IN_FORMAT",
    "KEPT_UPDATES",
    "LEARNABLE",
    "MAX_ENCODING",
    "MAX_HIDDEN_WIDTH",
    "MAX_MARGIN",
    "MAX_WEIGHTS",
    "Model",
    "action_scores",
    "decide_action_in",
    "kept_first_layer",
    "load_model",
    "read_model_arrays",
    "scratch_size",
    "shipped_model",
]

#: The longest encoding, of six players: a seat's encoding fits in this many numbers.
MAX_ENCODING: Final = encoding_size(MAX_SEATS)
#: The layout of an action-in network's model file
#: (:func:`tarot_analysis.learning.streaming.save_action_in`): the one format this version
#: reads.
ACTION_IN_FORMAT: Final = 2
#: The format of the flat networks of earlier versions (the encoding, hidden layers, one
#: output per action), refused in one line: :func:`read_model_arrays`.
_FLAT_FORMAT: Final = 1
#: What the metadata of a model file names itself.
MODEL_KIND: Final = "tarot-analysis learned bot"
#: The decisions a network may take (the metadata's ``decides``), in the engine's order: every
#: kind but the end of the deal.
LEARNABLE: Final = DECISIONS[: DECISIONS.index("over")]
#: What a model's ``margins`` may name: each learnable decision, and ``defence`` for the cards
#: of a seat whose side did not take.
MARGINS: Final = (*LEARNABLE, "defence")
#: The most widths a network may have, inputs and outputs with them: the columns a bot's row
#: keeps for them (:data:`tarot_analysis.bots.MAX_WIDTHS`, which the bots' tests check).
MAX_WIDTHS: Final = 6
#: The widest hidden layer a network may have.
MAX_HIDDEN_WIDTH: Final = 4096
#: The most weights a network may hold: 2**26 float32, 256 MiB (four hidden layers of
#: :data:`MAX_HIDDEN_WIDTH` hold about 55 million).
MAX_WEIGHTS: Final = 1 << 26
#: How many times a seat's first layer is updated from its last decision's
#: (:func:`kept_first_layer`) before it is computed whole again.
KEPT_UPDATES: Final = 32
ONE: Final = np.uint64(1)
# The head finds an action's features not zero as the bits of one word.
assert N_ACTION_FEATURES <= 64
#: The largest margin of a decision, in points: far beyond any deal's score.
MAX_MARGIN: Final = 10_000.0
#: The most bytes each array of a model file may take once unpacked, its header with it, and
#: its layers together: the file is refused before anything larger is read.
_MAX_BYTES: Final = {"weights": 4 * MAX_WEIGHTS + 4096, "metadata": 1 << 24}


@dataclass(frozen=True)
class Model:
    """A network read from its file, checked against the rules it plays."""

    rules: str  # the preset's name
    players: int
    encoding_version: int
    encoding_size: int
    widths: tuple[int, ...]  # inputs, the trunk's layers, the head's, 1
    weights: npt.NDArray[np.float32]  # flat, for compiled code
    layout: npt.NDArray[np.int64]  # ``widths`` as an array, for compiled code
    trunk: int  # the trunk's layers, at least 1
    metadata: dict[str, Any] = field(default_factory=dict)  # the training's seed, rows, report

    @property
    def form(self) -> int:
        """The format of the model's file: :data:`ACTION_IN_FORMAT`, the one this version
        reads."""
        return ACTION_IN_FORMAT

    @property
    def decides(self) -> tuple[str, ...]:
        """The decisions the bot takes with this network (the metadata's ``decides``; cards
        when it names none); the heuristic takes the others."""
        named = self.metadata.get("decides", ["card"])
        return tuple(name for name in DECISIONS if name in named)

    @property
    def margins(self) -> dict[str, float]:
        """By decision, the points the network must predict an action to gain over the
        heuristic's to take it instead (the metadata's ``margins``; a decision it does not
        name: 0, the network's best action, the heuristic's among equals). ``defence``, where
        the network plays cards: the margin of its cards at a seat of the side that did not
        take (the card's where the metadata names none; :data:`MAX_MARGIN`: the heuristic
        defends)."""
        found = self.metadata.get("margins", {})
        margins = {name: float(found.get(name, 0.0)) for name in self.decides}
        if "card" in margins:
            margins["defence"] = float(found.get("defence", margins["card"]))
        return margins

    @property
    def learns(self) -> int:
        """:attr:`decides` for compiled code: bit ``k`` for decision kind ``k``."""
        return sum(1 << DECISIONS.index(name) for name in self.decides)

    def scratch(self) -> npt.NDArray[np.float32]:
        """A scratch buffer for :func:`action_scores` with this network."""
        return np.zeros(scratch_size(self.layout), dtype=np.float32)


def weights_length(widths: Sequence[int] | npt.NDArray[np.int64], trunk: int) -> int:
    """The length of the flat weights of a network of ``widths`` with ``trunk`` layers in its
    trunk: its head's first layer also reads the action's
    :data:`~tarot_analysis.engine.action_features.N_ACTION_FEATURES` features."""
    sizes = [int(w) for w in widths]
    extra = N_ACTION_FEATURES * sizes[trunk + 1]
    return sum(a * b + b for a, b in itertools.pairwise(sizes)) + extra


def scratch_size(widths: Sequence[int] | npt.NDArray[np.int64]) -> int:
    """The scratch :func:`action_scores` needs: five times the widest layer between the
    inputs and the score (its trunk's two, the head's part of the state, the head's two)."""
    hidden = [int(w) for w in widths[1:-1]]
    return 5 * max(hidden, default=1)


def load_model(path: str | os.PathLike[str], rules: Rules | str) -> Model:
    """The action-in network in ``path`` (format 2), checked to play ``rules`` (a preset or its
    name): a ``TarotInputError`` naming the file and what is wrong otherwise, a flat network's
    file (format 1) among them."""
    if not isinstance(rules, Rules):
        rules = load_rules(rules)
    source = Path(path)
    metadata, arrays = read_model_arrays(source)
    _check_fits(source, metadata, rules)
    _check_decisions(source, metadata)
    return _action_in_model(source, metadata, arrays, rules)


def _action_in_model(
    source: Path, metadata: dict[str, Any], arrays: dict[str, npt.NDArray[Any]], rules: Rules
) -> Model:
    """The network of a file of format 2: its layers, trunk then head, checked to
    chain from the encoding to one score, its head's first layer reading the trunk's last
    layer and the action's features; flat as compiled code reads it."""
    if metadata.get("features_version") != FEATURES_VERSION:
        raise TarotInputError(
            f"{source}: trained on action features of version "
            f"{metadata.get('features_version')}; this version computes version "
            f"{FEATURES_VERSION}: train it again"
        )
    if metadata.get("n_features") != N_ACTION_FEATURES:
        raise TarotInputError(
            f"{source}: reads {metadata.get('n_features')} features of an action; this version "
            f"computes {N_ACTION_FEATURES}"
        )
    trunk = int(metadata["trunk_layers"])
    names = _layer_names(metadata)
    matrices = [arrays[f"{name}_w"] for name in names]
    vectors = [arrays[f"{name}_b"] for name in names]
    shapes = [list(m.shape) for m in matrices]
    if any(m.ndim != 2 or v.ndim != 1 or v.shape[0] != m.shape[-1] for m, v in
           zip(matrices, vectors, strict=True)):  # fmt: skip
        raise TarotInputError(
            f"{source}: its layers {_shown(shapes)} are not matrices with a bias for each column"
        )
    widths = [int(matrices[0].shape[0]), *(int(m.shape[1]) for m in matrices)]
    reads = [*widths[:trunk], widths[trunk] + N_ACTION_FEATURES, *widths[trunk + 1 : -1]]
    if [int(m.shape[0]) for m in matrices] != reads or widths[-1] != 1:
        raise TarotInputError(
            f"{source}: its layers {_shown(shapes)} do not chain from the state to one score "
            f"(the head's first layer reads the trunk's last and {N_ACTION_FEATURES} features)"
        )
    if widths[0] != metadata["encoding_size"]:
        raise TarotInputError(
            f"{source}: its layers read {widths[0]} inputs; the encoding has "
            f"{metadata['encoding_size']}"
        )
    _check_widths(source, widths, trunk)
    if "widths" in metadata and metadata["widths"] != widths:
        raise TarotInputError(
            f"{source}: its widths {widths} are not those of its metadata "
            f"{_shown(metadata['widths'])}"
        )
    if any(a.dtype != np.float32 for a in (*matrices, *vectors)):
        raise TarotInputError(f"{source}: its layers are not float32")
    flat = np.concatenate([a.ravel() for pair in zip(matrices, vectors, strict=True) for a in pair])
    if not np.isfinite(flat).all():
        raise TarotInputError(f"{source}: some weights are not finite numbers")
    return Model(
        rules=rules.name, players=rules.players, encoding_version=ENCODING_VERSION,
        encoding_size=widths[0], widths=tuple(widths), weights=np.ascontiguousarray(flat),
        layout=np.array(widths, dtype=np.int64), trunk=trunk, metadata=metadata,
    )  # fmt: skip


def _layer_names(metadata: dict[str, Any]) -> list[str]:
    """The layers of an action-in network's file, trunk then head: ``trunk_0``, ...
    (its arrays ``NAME_w`` and ``NAME_b``)."""
    return [
        f"{part}_{k}" for part in ("trunk", "head") for k in range(int(metadata[f"{part}_layers"]))
    ]


#: Where the package's own models are, one per preset: ``NAME.npz``.
SHIPPED: Final = Path(__file__).resolve().parent / "models"


def shipped_model(rules: Rules) -> Path:
    """The model file the package ships for ``rules``'s preset, or a ``TarotInputError``
    naming the presets that have one."""
    path = SHIPPED / f"{rules.name}.npz"
    if not path.exists():
        have = ", ".join(sorted(found.stem for found in SHIPPED.glob("*.npz"))) or "none"
        raise TarotInputError(
            f"no learned model ships for {rules.name} (presets with one: {have}); train one "
            f"and seat it as learned:PATH"
        )
    return path


def read_model_arrays(
    path: str | os.PathLike[str],
) -> tuple[dict[str, Any], dict[str, npt.NDArray[Any]]]:
    """The metadata of a model file, checked to be an action-in network's (format 2), and the
    arrays of its layers; or one line saying why they cannot be read (a flat network's file,
    format 1, among them: this version no longer plays it). The file goes
    through the guarded reader (:func:`tarot_analysis.reader.open_archive`): a regular file,
    each array's size, as the archive and its header declare it, checked before it is read.
    Every reader of a model file starts here; :func:`load_model` then fits it to a preset."""
    source = Path(path)
    with open_archive(source, "model file", limit=MODEL_BYTES) as archive:
        members = archive.members
        if "metadata" not in members:
            raise TarotInputError(f"{source}: not a model of tarot-analysis (no metadata)")
        metadata = _metadata(source, archive.array("metadata", _MAX_BYTES["metadata"]))
        _check_layer_counts(source, metadata)
        names = [f"{n}_{a}" for n in _layer_names(metadata) for a in ("w", "b")]
        missing = [name for name in names if name not in members]
        if missing:
            raise TarotInputError(
                f"{source}: not a model of tarot-analysis (no {', '.join(missing)})"
            )
        unpacked = sum(archive.unpacked(name) for name in names)
        if unpacked > _MAX_BYTES["weights"]:
            raise TarotInputError(
                f"{source}: its layers take {unpacked / 2**20:.1f} MiB unpacked; a model's "
                f"take at most {_MAX_BYTES['weights'] / 2**20:.1f} MiB"
            )
        arrays = {name: archive.array(name, _MAX_BYTES["weights"]) for name in names}
        return metadata, arrays


def _metadata(source: Path, array: npt.NDArray[Any]) -> dict[str, Any]:
    """The JSON metadata of a model file, checked to be a model's of the format this version
    reads."""
    try:
        metadata = parse_json(str(array.item()), str(source)) if array.shape == () else None
    except TarotInputError:
        metadata = None
    if not isinstance(metadata, dict) or metadata.get("kind") != MODEL_KIND:
        raise TarotInputError(f"{source}: not a model of tarot-analysis (its metadata)")
    form = metadata.get("format")
    if form == _FLAT_FORMAT and not isinstance(form, bool):
        # One output per action, blind to what each action does: the action-in networks beat
        # it in every preset, and nothing trains one any more.
        raise TarotInputError(
            f"{source}: a flat network (format {_FLAT_FORMAT}), which this version no longer "
            f"plays: train an action-in network (tarot-analysis teach, then tarot-analysis "
            f"train)"
        )
    if form != ACTION_IN_FORMAT or isinstance(form, bool):
        raise TarotInputError(
            f"{source}: a model file of format {form!r}; this version reads format "
            f"{ACTION_IN_FORMAT}"
        )
    return metadata


def _check_layer_counts(source: Path, metadata: dict[str, Any]) -> None:
    """Refuse an action-in network's layers that a table does not seat: at least one in its
    trunk and one in its head, :data:`MAX_WIDTHS` widths in all."""
    trunk, head = metadata.get("trunk_layers", 0), metadata.get("head_layers", 0)
    if not (_is_count(trunk) and _is_count(head)) or trunk + head + 1 > MAX_WIDTHS:
        raise TarotInputError(
            f"{source}: its layers ({_shown(trunk)} in the trunk, {_shown(head)} in the head) "
            f"are not a network a table seats: at least one of each, {MAX_WIDTHS - 1} in all"
        )


def _check_fits(source: Path, metadata: dict[str, Any], rules: Rules) -> None:
    """Refuse a model trained for other rules, players or encoding."""
    if metadata.get("rules") != rules.name:
        raise TarotInputError(
            f"{source}: a model of {metadata.get('rules')!r}, not of {rules.name!r}"
        )
    if metadata.get("players") != rules.players:
        raise TarotInputError(
            f"{source}: a model for {metadata.get('players')} players; {rules.name} has "
            f"{rules.players}"
        )
    if metadata.get("encoding_version") != ENCODING_VERSION:
        raise TarotInputError(
            f"{source}: trained on encoding version {metadata.get('encoding_version')}; this "
            f"version encodes with version {ENCODING_VERSION}: train it again"
        )
    if metadata.get("encoding_size") != encoding_size(rules.players):
        raise TarotInputError(
            f"{source}: reads {metadata.get('encoding_size')} inputs; the encoding of "
            f"{rules.players} players has {encoding_size(rules.players)}"
        )


def _check_decisions(source: Path, metadata: dict[str, Any]) -> None:
    """Refuse a ``decides`` that is not a list of :data:`LEARNABLE` decisions and ``margins``
    that are not points from 0 to :data:`MAX_MARGIN` for the names of :data:`MARGINS`."""
    decides = metadata.get("decides", ["card"])
    if (
        not isinstance(decides, list)
        or not decides
        or any(name not in LEARNABLE for name in decides)
    ):
        raise TarotInputError(
            f"{source}: its decides {_shown(decides)} is not a list of the decisions "
            f"{', '.join(LEARNABLE)}"
        )
    margins = metadata.get("margins", {})
    if not isinstance(margins, dict) or any(
        name not in MARGINS or not _is_margin(value) for name, value in margins.items()
    ):
        raise TarotInputError(
            f"{source}: its margins {_shown(margins)} are not points from 0 to "
            f"{MAX_MARGIN:g} by decision ({', '.join(MARGINS)})"
        )


def _check_widths(source: Path, widths: object, trunk: int) -> None:
    """Refuse a network of more layers or wider ones than a table seats."""
    if (
        not isinstance(widths, list) or not 2 <= len(widths) <= MAX_WIDTHS
        or any(not _is_count(w) for w in widths)
        or any(w > MAX_HIDDEN_WIDTH for w in widths[1:-1])
        or weights_length(widths, trunk) > MAX_WEIGHTS
    ):  # fmt: skip
        raise TarotInputError(
            f"{source}: its widths {_shown(widths)} are not a network a table seats: at "
            f"most {MAX_WIDTHS - 2} hidden layers of 1 to {MAX_HIDDEN_WIDTH} units, "
            f"{MAX_WEIGHTS:,} weights in all"
        )


def _shown(value: object) -> str:
    """A value of the metadata as JSON, cut to 60 characters for a one-line message."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def _is_margin(value: object) -> bool:
    return (
        isinstance(value, int | float) and not isinstance(value, bool)
        and 0 <= value <= MAX_MARGIN
    )  # fmt: skip


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


# --------------------------------------------------------------------------------------------
# Compiled
# --------------------------------------------------------------------------------------------


@njit(**KERNEL)
def _affine(
    weights: Any, at: int, n_in: int, n_out: int, bias: int, src: Any, src_at: int, values: Any
) -> None:
    """``values[:n_out] = src[src_at:][:n_in] @ W + b``, the rows of ``W`` at ``weights[at:]``
    and ``b`` at ``weights[bias:]``; the rows of the inputs that are zero are skipped."""
    # Slices (views, not copies) index from 0 in the inner loops, which LLVM then vectorises:
    # five times as fast as offsets added to each index.
    biases = weights[bias : bias + n_out]
    for j in range(n_out):
        values[j] = biases[j]
    # The inputs not zero found 64 at a time as the bits of a word, then visited bit by bit,
    # in the same order: a branch per input, taken at random a few times in ten, cost three
    # times the rows' sums in a layer of 512 inputs with 28 not zero.
    q, o0, c0, o1, c1, o2, c2 = 0, 0, np.float32(0), 0, np.float32(0), 0, np.float32(0)
    for block in range(0, n_in, 64):
        bits = _not_zero_bits(src, src_at + block, min(64, n_in - block))
        while bits:
            i = block + trailing_zeros(bits)
            bits &= bits - ONE
            q, o0, c0, o1, c1, o2, c2 = _row_queued(
                weights, n_out, values, q, o0, c0, o1, c1, o2, c2, at + i * n_out,
                src[src_at + i],
            )  # fmt: skip
    _rows_flushed(weights, n_out, values, q, o0, c0, o1, c1, o2, c2)


@njit(**KERNEL, inline="always")
def _row_queued(
    weights: Any, n_out: int, values: Any, q: int, o0: int, c0: Any, o1: int, c1: Any,
    o2: int, c2: Any, at: int, c: Any,
) -> tuple[int, int, Any, int, Any, int, Any]:  # fmt: skip
    """The row ``weights[at:][:n_out]`` times ``c`` queued to be added to ``values[:n_out]``,
    behind the ``q`` rows queued (at ``o0``, ``o1``, ``o2``, times ``c0``, ``c1``, ``c2``):
    four rows are added at once, each output read and written once for the four, and each sum
    made in the order the rows came, as one row at a time makes it. Returns the queue."""
    if q == 3:
        r0 = weights[o0 : o0 + n_out]
        r1 = weights[o1 : o1 + n_out]
        r2 = weights[o2 : o2 + n_out]
        r3 = weights[at : at + n_out]
        for j in range(n_out):
            values[j] = (((values[j] + c0 * r0[j]) + c1 * r1[j]) + c2 * r2[j]) + c * r3[j]
        return 0, o0, c0, o1, c1, o2, c2
    if q == 0:
        return 1, at, c, o1, c1, o2, c2
    if q == 1:
        return 2, o0, c0, at, c, o2, c2
    return 3, o0, c0, o1, c1, at, c


@njit(**KERNEL, inline="always")
def _rows_flushed(
    weights: Any, n_out: int, values: Any, q: int, o0: int, c0: Any, o1: int, c1: Any,
    o2: int, c2: Any,
) -> None:  # fmt: skip
    """The ``q`` rows still queued (:func:`_row_queued`) added to ``values[:n_out]``, in order."""
    for k in range(q):
        at, c = (o0, c0) if k == 0 else ((o1, c1) if k == 1 else (o2, c2))
        row = weights[at : at + n_out]
        for j in range(n_out):
            values[j] += c * row[j]


@njit(**KERNEL)
def _not_zero_bits(values: Any, start: int, count: int) -> np.uint64:
    """A word whose bit ``b`` says ``values[start + b]`` is not zero, for ``b < count``
    (``count`` at most 64). Without a branch."""
    bits = np.uint64(0)
    for b in range(count):
        bits |= np.uint64(values[start + b] != 0) << np.uint64(b)
    return bits


@njit(**KERNEL)
def _layer(
    weights: Any, at: int, n_in: int, n_out: int, src: Any, src_at: int, dst: Any, dst_at: int,
    relu: bool,
) -> int:  # fmt: skip
    """One layer: ``dst[dst_at:][:n_out] = src[src_at:][:n_in] @ W + b`` (then ReLU), ``W``
    and ``b`` at ``weights[at:]``; the rows of the inputs that are zero are skipped. Returns
    where the next layer's weights start."""
    bias = at + n_in * n_out
    values = dst[dst_at : dst_at + n_out]
    _affine(weights, at, n_in, n_out, bias, src, src_at, values)
    if relu:
        for j in range(n_out):
            values[j] = max(values[j], 0.0)
    return bias + n_out


@njit(**KERNEL)
def action_scores(
    weights: Any, widths: Any, trunk: int, x: Any, features: Any, count: int, scores: Any,
    scratch: Any, kept: Any, seen: Any, updates: Any,
) -> None:  # fmt: skip
    """An action-in network's score of each of ``count`` actions into ``scores[:count]``: its
    ``trunk`` layers (ReLU each) read the state ``x`` into the state's vector; the head's
    first layer reads that vector and the action's features (``features[k]``, whole numbers
    that :data:`~tarot_analysis.engine.action_features.FEATURE_SCALE` scales), ReLU between
    the head's layers, its last gives the score. The state's part of the head's first layer is
    computed once, not once per action. ``scratch``: float32, :func:`scratch_size` long.
    ``kept``, ``seen`` and ``updates``: the seat's first layer kept from its last decision
    (:func:`kept_first_layer`), or arrays shorter than the layer to compute it afresh.
    Allocates nothing."""
    depth = widths.shape[0]
    widest = 1
    for k in range(1, depth - 1):
        widest = max(widest, widths[k])
    at = 0
    src_at = 0
    for k in range(trunk):
        dst_at = (k % 2) * widest
        if k == 0 and kept.shape[0] >= widths[1] and seen.shape[0] >= widths[0]:
            at = kept_first_layer(
                weights, widths[0], widths[1], x, kept, seen, updates, scratch[dst_at:]
            )
        elif k == 0:
            at = _layer(weights, at, widths[0], widths[1], x, 0, scratch, dst_at, True)
        else:
            at = _layer(
                weights, at, widths[k], widths[k + 1], scratch, src_at, scratch, dst_at, True
            )
        src_at = dst_at
    # The head's first layer: the state's rows once (into ``base``), the features' per action.
    width = widths[trunk]
    n_out = widths[trunk + 1]
    base_at = 2 * widest
    _state_part(weights, at, width, n_out, scratch, src_at, scratch, base_at)
    feature_rows = at + width * n_out
    after = at + (width + N_ACTION_FEATURES) * n_out + n_out
    head_layers = depth - 1 - trunk
    base = scratch[base_at : base_at + n_out]
    for a in range(count):
        z_at = 3 * widest
        z = scratch[z_at : z_at + n_out]
        for j in range(n_out):
            z[j] = base[j]
        q, o0, c0, o1, c1, o2, c2 = 0, 0, np.float32(0), 0, np.float32(0), 0, np.float32(0)
        bits = _not_zero_bits(features[a], 0, N_ACTION_FEATURES)
        while bits:
            f = trailing_zeros(bits)
            bits &= bits - ONE
            q, o0, c0, o1, c1, o2, c2 = _row_queued(
                weights, n_out, z, q, o0, c0, o1, c1, o2, c2, feature_rows + f * n_out,
                np.float32(features[a, f]) * FEATURE_SCALE[f],
            )  # fmt: skip
        _rows_flushed(weights, n_out, z, q, o0, c0, o1, c1, o2, c2)
        next_at = after
        for k in range(1, head_layers - 1):
            for j in range(widths[trunk + k]):
                scratch[z_at + j] = max(scratch[z_at + j], 0.0)
            dst_at = 3 * widest + (k % 2) * widest
            next_at = _layer(
                weights, next_at, widths[trunk + k], widths[trunk + k + 1], scratch, z_at,
                scratch, dst_at, False,
            )  # fmt: skip
            z_at = dst_at
        if head_layers == 1:  # a head of one layer: the score is its output, no ReLU
            scores[a] = scratch[z_at]
        else:
            scores[a] = _relu_dot(weights, next_at, widths[depth - 2], scratch, z_at)


@njit(**KERNEL)
def _relu_dot(weights: Any, at: int, n_in: int, src: Any, src_at: int) -> Any:
    """The score of the head's last layer, one output: its bias (``weights[at + n_in]``) plus
    ``src[src_at:][:n_in]``, ReLU applied, times its weights (``weights[at:][:n_in]``). The
    products summed in eight lanes (input ``i`` in lane ``i % 8``), the lanes added last, in a
    fixed order: the same sum on every machine, four times as fast as one sum along the
    inputs, whose every addition waits for the one before."""
    a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = np.float32(0)
    zero = np.float32(0)
    row = weights[at : at + n_in]
    x = src[src_at : src_at + n_in]
    eights = n_in - n_in % 8
    for i in range(0, eights, 8):
        a0 += max(x[i], zero) * row[i]
        a1 += max(x[i + 1], zero) * row[i + 1]
        a2 += max(x[i + 2], zero) * row[i + 2]
        a3 += max(x[i + 3], zero) * row[i + 3]
        a4 += max(x[i + 4], zero) * row[i + 4]
        a5 += max(x[i + 5], zero) * row[i + 5]
        a6 += max(x[i + 6], zero) * row[i + 6]
        a7 += max(x[i + 7], zero) * row[i + 7]
    for i in range(eights, n_in):
        a0 += max(x[i], zero) * row[i]
    return weights[at + n_in] + (((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7)))


@njit(**KERNEL)
def kept_first_layer(
    weights: Any, n_in: int, n_out: int, x: Any, kept: Any, seen: Any, updates: Any, dst: Any
) -> int:
    """A network's first layer for the inputs ``x``, ReLU applied, into ``dst[:n_out]``, from
    the same layer kept for the seat's last inputs: ``kept[:n_out]`` holds the layer before
    ReLU for the inputs ``seen[:n_in]``, and only the rows of the inputs that changed since are
    added, each times its change, as chess engines keep theirs (NNUE). Between two decisions
    of a seat a few of its inputs change (a trick's cards, a void), where dozens are not zero.
    ``updates[0]``: the updates since the layer was last computed whole (0: never); it is
    computed whole again after :data:`KEPT_UPDATES`, which bounds float32's rounding in the
    sums. ``kept`` and ``seen`` then hold ``x``'s layer. Returns where the next layer's weights
    start. Allocates nothing."""
    bias = n_in * n_out
    layer = kept[:n_out]
    if updates[0] == 0 or updates[0] > KEPT_UPDATES:
        _affine(weights, 0, n_in, n_out, bias, x, 0, layer)
        for i in range(n_in):
            seen[i] = x[i]
        updates[0] = 1
    else:
        # Two inputs compared at a time, as one 64-bit word: most words are the same. The
        # words that differ are found 64 at a time, as bits, without a branch (:func:`_affine`).
        words = n_in // 2
        now = x[: 2 * words].view(np.uint64)
        before = seen[: 2 * words].view(np.uint64)
        q, o0, c0, o1, c1, o2, c2 = 0, 0, np.float32(0), 0, np.float32(0), 0, np.float32(0)
        for block in range(0, words + 1, 64):
            bits = np.uint64(0)
            for b in range(min(64, words - block)):
                bits |= np.uint64(now[block + b] != before[block + b]) << np.uint64(b)
            if block + 64 > words and n_in % 2:
                bits |= ONE << np.uint64(words - block)  # the odd last input, alone
            while bits:
                w = block + trailing_zeros(bits)
                bits &= bits - ONE
                for i in range(2 * w, min(2 * w + 2, n_in)):
                    change = x[i] - seen[i]
                    if change != 0.0:
                        seen[i] = x[i]
                        q, o0, c0, o1, c1, o2, c2 = _row_queued(
                            weights, n_out, layer, q, o0, c0, o1, c1, o2, c2, i * n_out, change
                        )  # fmt: skip
        _rows_flushed(weights, n_out, layer, q, o0, c0, o1, c1, o2, c2)
        updates[0] += 1
    for j in range(n_out):
        dst[j] = max(layer[j], 0.0)
    return bias + n_out


@njit(**KERNEL)
def _state_part(
    weights: Any, at: int, n_in: int, n_out: int, src: Any, src_at: int, dst: Any, dst_at: int
) -> None:
    """The head's first layer (at ``weights[at:]``, ``n_in`` rows of the state's vector then
    the features' rows, then its biases) applied to the state's vector ``src[src_at:]`` alone,
    its biases added, into ``dst[dst_at:]``."""
    bias = at + (n_in + N_ACTION_FEATURES) * n_out
    _affine(weights, at, n_in, n_out, bias, src, src_at, dst[dst_at : dst_at + n_out])


@njit(**KERNEL)
def decide_action_in(
    m: Any, s: Any, seat: int, p: Any, half: Any, hint: int, weights: Any, widths: Any,
    trunk: int, x: Any, out: Any, scratch: Any, mask: Any, features: Any, actions: Any,
    kept: Any, seen: Any, updates: Any,
) -> int:  # fmt: skip
    """The action-in bot's action for ``seat`` at the state ``(m, s)``: each legal action's
    features (``hint``: the heuristic's action) into ``features`` and ``actions``, its view
    encoded into ``x``, each legal action's score into ``out[action]`` (the others' left
    undefined; none when a single action is legal: it is taken without them). The legal
    action of highest score, the lowest of equal ones. ``kept``, ``seen``, ``updates``: the
    seat's first layer kept between its decisions (:func:`action_scores`). Allocates
    nothing."""
    count = action_features_into(m, s, p, half, seat, hint, mask, actions, features)
    if count <= 1:
        return actions[0] if count == 1 else -1
    encode_into(m, s, p, half, seat, x)
    action_scores(weights, widths, trunk, x, features, count, out, scratch, kept, seen, updates)
    best = 0
    for k in range(1, count):
        if out[k] > out[best]:
            best = k
    chosen = actions[best]
    # Each slot's score to its action's place, from the last: an action's number is at least
    # its slot's, so no score is overwritten before it is moved.
    for k in range(count - 1, -1, -1):
        out[actions[k]] = out[k]
    return chosen
