"""Training on lessons by the million: compact decisions streamed through a shuffle buffer, and a
network that scores each legal action from the state and that action's own features.

Lessons (:func:`tarot_analysis.learning.teacher.teach`, format 2) store each decision in a few
hundred bytes. :func:`stream_decisions` reads a run folder one chunk at a time
(:func:`tarot_analysis.runs.runner.iter_chunks`) and :class:`ShuffleBuffer` keeps a fixed
number of decisions, giving batches drawn at random from it and refilling their places
from the stream: what training holds in memory is the buffer and one chunk, whatever the number
of decisions. Deals are held out whole by a hash of their number (:func:`is_held_out`), so the
split needs no list of deals either.

The network (:func:`init_params`, :func:`scores`) is an *action-in* network: a trunk reads the
seat's encoding (:mod:`tarot_analysis.engine.encoding`) into a state vector; a head reads that
vector beside one legal action's features (:mod:`tarot_analysis.engine.action_features`, scaled
by their units) and gives that action's score; the same head weights judge every action, so
what it learns of one card carries to the others. The loss is the squared error of each legal
action's advantage, its value less the mean of the legal actions, in hundreds of points
(:data:`~tarot_analysis.learning.training.VALUE_SCALE`), plus optionally a cross-entropy of
the teacher's choice (:data:`~tarot_analysis.learning.training.CHOICE_TEMPERATURE`). On
lessons of self-play (:mod:`tarot_analysis.learning.selfplay`), where the action taken alone
has a value, it is the squared error of that action's score against the seat's score for the
deal.

Training uses JAX and optax (the ``train`` extra), imported only when a network is trained. The
same folder, options and seed give the same weights.
"""

from __future__ import annotations

import itertools
import json
import math
import os
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from tarot_analysis.bots.learned import (
    ACTION_IN_FORMAT,
    MODEL_KIND,
    load_model,
    read_model_arrays,
)
from tarot_analysis.engine.action_features import FEATURE_SCALE, FEATURES_VERSION, N_ACTION_FEATURES
from tarot_analysis.engine.encoding import ENCODING_VERSION, encoding_size
from tarot_analysis.errors import TarotInputError, whole_number
from tarot_analysis.game.rules import load_rules
from tarot_analysis.learning.compact import (
    _FIELDS,
    LESSON_FORMAT,
    MAX_LEGAL,
    Batch,
    batch_from_table,
    flat_lessons,
    fraction_positions,
    unpack_encodings,
)
from tarot_analysis.learning.training import (
    CHOICE_TEMPERATURE,
    NEEDS_EXTRA,
    VALUE_SCALE,
    FiniteSteps,
    all_finite,
    check_finite,
    check_learning_rate,
)
from tarot_analysis.runs.files import replacing
from tarot_analysis.runs.interrupts import raise_if_interrupted

__all__ = [
    "ACTION_IN_FORMAT",
    "Batch",
    "ShuffleBuffer",
    "StreamingOptions",
    "buffer_bytes",
    "check_anchor",
    "check_buffer_memory",
    "check_options",
    "init_params",
    "is_held_out",
    "lesson_chunks",
    "load_action_in",
    "save_action_in",
    "scores",
    "stream_decisions",
    "train_streaming",
]

#: Decisions per step of the optimiser.
BATCH: Final = 256


def is_held_out(deals: npt.NDArray[np.int64], holdout: float, seed: int) -> npt.NDArray[np.bool_]:
    """Whether each deal is held out: a hash of its number and ``seed`` below ``holdout``."""
    if not 0 <= holdout < 1:
        raise TarotInputError(f"the held-out fraction must be from 0 to below 1, got {holdout}")
    salt = np.uint64(int(seed) * 0x9E3779B97F4A7C15 % 2**64)  # Python's ints: no overflow
    mixed = np.asarray(deals, dtype=np.uint64) + salt
    mixed ^= mixed >> np.uint64(31)
    mixed *= np.uint64(0xBF58476D1CE4E5B9)
    mixed ^= mixed >> np.uint64(29)
    return (mixed % np.uint64(1_000_000)).astype(np.float64) < holdout * 1_000_000


def lesson_chunks(folder: str | os.PathLike[str], chunks: int | None = None) -> tuple[Any, int]:
    """The run of lessons in ``folder`` and how many of its chunks to read: all of a finished
    run, or its first ``chunks``, which must be on disk (a run still going on): a
    ``TarotInputError`` naming the folder otherwise, lessons of format 1 among them."""
    # imported here: the runner brings pyarrow.parquet and tqdm
    from tarot_analysis.runs.runner import (
        SPEC_FILE,
        _read_definition,
        _spec_from,
        chunk_path,
        finished_run,
    )

    source = Path(folder)
    if not (source / SPEC_FILE).exists():
        raise TarotInputError(f"{source}: no {SPEC_FILE}: not the folder of a run")
    definition = _read_definition(source / SPEC_FILE)
    extra = definition.get("extra", {})
    if definition.get("kind") != "lessons" or not isinstance(extra, dict):
        raise TarotInputError(f"{source}: a run of {definition.get('kind')!r}, not of lessons")
    if extra.get("lesson_format", 1) == 1:
        raise flat_lessons(str(source))
    if extra.get("lesson_format") != LESSON_FORMAT:
        raise TarotInputError(
            f"{source}: lessons of format {extra.get('lesson_format')!r}; this version reads "
            f"format {LESSON_FORMAT}"
        )
    if extra.get("features_version") != FEATURES_VERSION:
        raise TarotInputError(
            f"{source}: action features of version {extra.get('features_version')}; this "
            f"version computes version {FEATURES_VERSION}: teach them again"
        )
    if chunks is None:
        spec = finished_run(source)
        if spec is None:
            raise TarotInputError(
                f"{source}: the run is not finished: run its command again, or train on its "
                "first chunks"
            )
        return spec, spec.chunks
    try:
        spec = _spec_from(definition)
    except (KeyError, TypeError):
        raise TarotInputError(f"{source}: {SPEC_FILE} is not a run's definition") from None
    used = whole_number(chunks, "the chunks to train on", least=1)
    if used > spec.chunks:
        raise TarotInputError(f"{source}: the run has {spec.chunks} chunks, not {used}")
    on_disk = next((k for k in range(used) if not chunk_path(source, k).exists()), used)
    if on_disk < used:
        raise TarotInputError(
            f"{source}: its first {on_disk} chunks are on disk, not {used}: train on fewer"
        )
    return spec, used


def stream_decisions(
    folder: str | os.PathLike[str],
    players: int,
    *,
    order_seed: int | None = None,
    chunks: int | None = None,
) -> Iterator[Batch]:
    """The decisions of a run folder of compact lessons, a chunk at a time (in a random order of
    chunks drawn from ``order_seed``, else in order): every chunk of a finished run, or its
    first ``chunks`` (:func:`lesson_chunks`)."""
    from tarot_analysis.runs.runner import iter_chunks

    spec, used = lesson_chunks(folder, chunks)
    order = list(range(used))
    if order_seed is not None:
        order = [int(k) for k in np.random.default_rng(order_seed).permutation(used)]
    taken_only = is_self_play(spec)
    for table in iter_chunks(folder, spec, order=order):
        yield batch_from_table(table, players, str(folder), taken_only=taken_only)


def is_self_play(spec: Any) -> bool:
    """Whether a run of lessons is of self-play (its action taken alone valued, by the final
    score), not of a search (every legal action valued)."""
    from tarot_analysis.learning.selfplay import LABELS

    return isinstance(spec.extra, dict) and spec.extra.get("labels") == LABELS


def buffer_bytes(players: int) -> int:
    """The bytes one decision of ``players`` takes in a :class:`ShuffleBuffer`: the arrays of a
    :class:`~tarot_analysis.learning.compact.Batch` row."""
    return (
        8 + -(-encoding_size(players) // 8) + 4 * len(fraction_positions(players))
        + MAX_LEGAL * (2 + 4 + N_ACTION_FEATURES + 1) + 8
    )  # fmt: skip


def check_buffer_memory(buffer: int, players: int, available: int | None = None) -> None:
    """Refuse, in one line and before anything is read, a shuffle buffer of ``buffer``
    decisions of ``players`` that would not fit in the memory available
    (:func:`tarot_analysis.runs.memory.check_room`)."""
    # imported here: the memory's checks, needed only once a network is trained
    from tarot_analysis.runs.memory import check_room

    per_decision = buffer_bytes(players)
    check_room(
        f"a shuffle buffer of {buffer:,} decisions", buffer * per_decision, available,
        lambda usable: f"at most {int(usable // per_decision):,} decisions fit (--buffer)",
    )  # fmt: skip


class ShuffleBuffer:
    """A fixed number of decisions from which batches are drawn at random, their places
    refilled from the stream: the order of training mixes chunks and deals while memory holds
    ``capacity`` decisions, whatever the stream's length."""

    def __init__(self, capacity: int, rng: np.random.Generator) -> None:
        if capacity < 1:
            raise TarotInputError(f"a shuffle buffer holds at least 1 decision, got {capacity}")
        self.capacity = int(capacity)
        self.rng = rng
        self.store: Batch | None = None
        self.size = 0

    def _put(self, slots: npt.NDArray[np.int64], block: Batch, rows: slice) -> None:
        if self.store is None:
            self.store = Batch(
                *(np.zeros((self.capacity, *getattr(block, f).shape[1:]), getattr(block, f).dtype)
                  for f in _FIELDS)
            )  # fmt: skip
        for name in _FIELDS:
            getattr(self.store, name)[slots] = getattr(block, name)[rows]

    def batches(self, stream: Iterator[Batch], size: int) -> Iterator[Batch]:
        """Batches of ``size`` decisions (the last ones fewer) drawn from the buffer as the
        stream fills it, then the buffer emptied in a random order."""
        for block in stream:
            at = 0
            if self.size < self.capacity:
                take = min(self.capacity - self.size, block.rows)
                self._put(np.arange(self.size, self.size + take), block, slice(0, take))
                self.size += take
                at = take
            while at < block.rows:
                n = min(size, block.rows - at, self.size)
                slots = self.rng.choice(self.size, size=n, replace=False)
                assert self.store is not None
                yield self.store.take(slots)
                self._put(slots, block, slice(at, at + n))
                at += n
        if self.store is not None:
            order = self.rng.permutation(self.size)
            for k in range(0, self.size, size):
                yield self.store.take(order[k : k + size])
        self.size = 0


# --------------------------------------------------------------------------------------------
# The network
# --------------------------------------------------------------------------------------------


def init_params(
    inputs: int, trunk: tuple[int, ...], head: tuple[int, ...], seed: int
) -> dict[str, list[tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]]]:
    """He-initialised layers of an action-in network: the trunk from ``inputs`` through
    ``trunk``; the head from the trunk's last width plus the action's features through ``head``
    to one score."""
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(2,)))

    def layers(widths: list[int]) -> list[tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]]:
        return [
            (
                (rng.standard_normal((a, b)) * math.sqrt(2.0 / a)).astype(np.float32),
                np.zeros(b, dtype=np.float32),
            )
            for a, b in itertools.pairwise(widths)
        ]

    return {
        "trunk": layers([inputs, *trunk]),
        "head": layers([trunk[-1] + N_ACTION_FEATURES, *head, 1]),
    }


def scores(np_or_jnp: Any, params: Any, x: Any, features: Any) -> Any:
    """Each action's score, ``(rows, actions)``, for states ``x`` ``(rows, inputs)`` and
    scaled features ``(rows, actions, N_ACTION_FEATURES)``; ``np_or_jnp`` is NumPy or
    ``jax.numpy``. The head's first layer reads the state and the features apart: the state's
    part once per decision, not once per action."""
    h = x
    for w, b in params["trunk"]:
        h = np_or_jnp.maximum(h @ w + b, 0.0)
    width = h.shape[1]
    (w, b), *rest = params["head"]
    z = (h @ w[:width])[:, None, :] + features @ w[width:] + b
    for w, b in rest:
        z = np_or_jnp.maximum(z, 0.0) @ w + b
    return z[..., 0]


def inputs_of(
    batch: Batch, players: int
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """A batch's states as float32 encodings and its features scaled by their units."""
    x = unpack_encodings(batch.bits, batch.fractions, players)
    return x, batch.features.astype(np.float32) * FEATURE_SCALE


def targets_of(batch: Batch, centred: bool = True) -> npt.NDArray[np.float32]:
    """The targets of each decision's valued actions, in hundreds of points, 0 elsewhere: where
    every legal action has a value, each one's advantage (its value less the mean of the legal
    ones), or its value itself when not ``centred`` (the seat's mean score, as a self-play
    score is: a search's lessons anchoring a training on self-play); in self-play, the score
    that followed the action taken."""
    legal = batch.legal
    mean = np.where(legal, batch.values, 0.0).sum(axis=1, keepdims=True) / legal.sum(
        axis=1, keepdims=True
    )
    shifted = np.where(batch.complete[:, None] & centred, batch.values - mean, batch.values)
    return (np.where(batch.labelled, shifted, 0.0) / VALUE_SCALE).astype(np.float32)


def _jax() -> tuple[Any, Any, Any]:
    """``jax``, ``jax.numpy`` and ``optax``, or one line saying how to install them."""
    try:
        import jax
        import jax.numpy as jnp
        import optax
    except ModuleNotFoundError:
        raise TarotInputError(NEEDS_EXTRA) from None
    return jax, jnp, optax


def _step_function(jax: Any, jnp: Any, optimiser: Any, choice_weight: float) -> Any:
    """The compiled step of the optimiser on one padded batch."""

    def loss(
        params: Any, x: Any, f: Any, legal: Any, labelled: Any, target: Any, chosen: Any,
        weight: Any,
    ) -> Any:  # fmt: skip
        predicted = scores(jnp, params, x, f)
        squared = jnp.where(labelled, (predicted - target) ** 2, 0.0).sum(axis=1)
        per_row = squared / jnp.maximum(labelled.sum(axis=1), 1)
        if choice_weight:
            logits = jnp.where(legal, predicted / CHOICE_TEMPERATURE, -1e9)
            log_p = jax.nn.log_softmax(logits, axis=1)
            per_row = per_row - choice_weight * jnp.take_along_axis(log_p, chosen[:, None], 1)[:, 0]
        return (per_row * weight).sum() / jnp.maximum(weight.sum(), 1.0)

    @jax.jit
    def step(params: Any, state: Any, *batch: Any) -> tuple[Any, Any, Any]:
        grads = jax.grad(loss)(params, *batch)
        updates, state = optimiser.update(grads, state, params)
        params = jax.tree_util.tree_map(lambda p, u: p + u, params, updates)
        return params, state, all_finite(jax, jnp, params)

    return step


def _pad(batch: Batch, players: int, centred: bool) -> tuple[Any, ...]:
    """A batch as the step's arrays, padded to :data:`BATCH` rows of weight 0."""
    x, f = inputs_of(batch, players)
    target = targets_of(batch, centred)
    legal = batch.legal
    n = batch.rows
    extra = BATCH - n
    weight = np.concatenate([np.ones(n, np.float32), np.zeros(extra, np.float32)])

    def pad(a: npt.NDArray[Any]) -> npt.NDArray[Any]:
        return np.concatenate([a, np.zeros((extra, *a.shape[1:]), a.dtype)]) if extra else a

    arrays = (x, f, legal, batch.labelled, target, batch.chosen)
    return (*(pad(a) for a in arrays), weight)


def _training_rows(stream: Iterator[Batch], holdout: float, seed: int) -> Iterator[Batch]:
    """The decisions of the deals not held out."""
    for block in stream:
        kept = np.nonzero(~is_held_out(block.deals, holdout, seed))[0]
        if len(kept):
            yield block.take(kept)


@dataclass
class StreamingOptions:
    """How an action-in network is trained (:func:`train_streaming`): its layers, the passes
    over the lessons (``epochs``; ``steps``, when given, stops after that many steps of the
    optimiser), the lessons' first ``chunks`` only (a run still going on), the shuffle
    buffer's decisions, and the decisions the bot takes with it (``decides``, written in the
    model file). ``start``: the file of an action-in network to start from (its layers replace
    ``trunk`` and ``head``), as a round of self-play starts from the network that played it.
    ``anchor``: a folder of a search's lessons (its first ``anchor_chunks``) whose chunks are
    streamed between those of ``folder``, cycled, so that every legal action keeps a target
    while lessons of self-play value the action taken alone."""

    trunk: tuple[int, ...] = (256, 128)
    head: tuple[int, ...] = (64,)
    epochs: int = 2
    seed: int = 0
    holdout: float = 0.1
    learning_rate: float = 1e-3
    choice_weight: float = 0.0
    buffer: int = 50_000
    chunks: int | None = None
    steps: int | None = None
    decides: tuple[str, ...] = ("bid", "call", "poignee", "card")
    extra: dict[str, Any] = field(default_factory=dict)
    start: str | None = None
    anchor: str | None = None
    anchor_chunks: int | None = None


def check_options(options: StreamingOptions) -> None:
    """Refuse, in one line, options that train no network a table seats."""
    # imported here: the learned bot's module compiles its forward pass
    from tarot_analysis.bots import MAX_WIDTHS
    from tarot_analysis.bots.learned import LEARNABLE, MAX_HIDDEN_WIDTH

    widths = [*options.trunk, *options.head]
    if not options.trunk or len(widths) > MAX_WIDTHS - 2:
        raise TarotInputError(
            f"an action-in network has 1 to {MAX_WIDTHS - 2} hidden layers in all, its trunk "
            f"at least one; got trunk {list(options.trunk)} and head {list(options.head)}"
        )
    if any(not 1 <= w <= MAX_HIDDEN_WIDTH for w in widths):
        raise TarotInputError(f"hidden layers are 1 to {MAX_HIDDEN_WIDTH} wide, got {widths}")
    whole_number(options.epochs, "the epochs", least=1)
    whole_number(options.buffer, "the shuffle buffer's decisions", least=1)
    if options.steps is not None:
        whole_number(options.steps, "the steps", least=1)
    if not options.decides or any(name not in LEARNABLE for name in options.decides):
        raise TarotInputError(
            f"the decisions a network takes are among {', '.join(LEARNABLE)}, got "
            f"{', '.join(options.decides) or 'none'}"
        )
    check_learning_rate(options.learning_rate)


def train_streaming(
    folder: str | os.PathLike[str],
    rules: str,
    options: StreamingOptions | None = None,
    *,
    out: str | os.PathLike[str] | None = None,
    progress: bool = False,
) -> dict[str, Any]:
    """Train an action-in network on the compact lessons of ``folder`` (preset ``rules``),
    streamed through a shuffle buffer; write it to ``out`` when given; return the report (the
    decisions seen, the held-out loss and points lost a decision)."""
    options = options or StreamingOptions()
    preset = load_rules(rules)
    start = None
    if options.start is not None:
        start, _ = load_action_in(options.start, preset.name)
        options = replace(
            options, trunk=tuple(int(w.shape[1]) for w, _ in start["trunk"]),
            head=tuple(int(w.shape[1]) for w, _ in start["head"][:-1]),
        )  # fmt: skip
    check_options(options)
    players = preset.players
    check_buffer_memory(options.buffer, players)
    spec, used = lesson_chunks(folder, options.chunks)
    if spec.rules != preset.name:
        raise TarotInputError(f"{folder}: lessons of {spec.rules}, not of {preset.name}")
    anchor_used = check_anchor(options, preset.name)
    # Self-play's targets are scores, not advantages: an anchor's values are scores beside them.
    # Beside a search's lessons (a round of policy iteration's) both are advantages.
    centred = options.anchor is None or not is_self_play(spec)
    jax, jnp, optax = _jax()
    params = start or init_params(encoding_size(players), options.trunk, options.head, options.seed)
    params = jax.tree_util.tree_map(jnp.asarray, params)
    optimiser = optax.adam(options.learning_rate)
    state = optimiser.init(params)
    step = _step_function(jax, jnp, optimiser, options.choice_weight)
    rng = np.random.default_rng(np.random.SeedSequence(options.seed, spawn_key=(1,)))
    seen = steps = 0
    resident: list[int] = []
    finite_steps = FiniteSteps()
    # imported here: the progress bars bring tqdm
    from tarot_analysis.runs.progress import TRAINING, bar

    with bar(
        TRAINING, options.epochs * used, unit="chunk", enabled=progress, detail=preset.name
    ) as shown:
        for epoch in range(options.epochs):
            stream = stream_decisions(
                folder, players, order_seed=options.seed * 1009 + epoch, chunks=used
            )
            buffer = ShuffleBuffer(options.buffer, rng)
            counted = _counted(stream, shown, resident)
            if options.anchor is not None:
                counted = _anchored(counted, options.anchor, players, anchor_used, options.seed)
            rows = _training_rows(counted, options.holdout, options.seed)
            for batch in buffer.batches(rows, BATCH):
                params, state, finite = step(params, state, *_pad(batch, players, centred))
                seen += batch.rows
                steps += 1
                finite_steps.took(f"step {steps:,} (epoch {epoch + 1})", finite)
                if steps == options.steps:
                    break
            if steps == options.steps:
                break
    finite_steps.look()
    weights = jax.tree_util.tree_map(lambda a: np.asarray(a, dtype=np.float32), params)
    report = {
        "rules": preset.name, "seed": options.seed, "epochs": options.epochs, "steps": steps,
        "trunk": list(options.trunk), "head": list(options.head), "buffer": options.buffer,
        "learning_rate": options.learning_rate, "choice_weight": options.choice_weight,
        "holdout": options.holdout, "decisions_seen": seen, "data": str(folder),
        "chunks": used, "start": options.start, "self_play": is_self_play(spec),
        "resident": _resident_report(resident),
        "targets": "advantages" if centred else "scores",
        "held_out": evaluate_streaming(
            weights, folder, players, options.holdout, options.seed, chunks=used,
            centred=centred,
        ),
    }  # fmt: skip
    if options.anchor is not None:
        report["anchor"] = str(options.anchor)
        report["anchor_chunks"] = anchor_used
        report["anchor_held_out"] = evaluate_streaming(
            weights,
            options.anchor,
            players,
            options.holdout,
            options.seed,
            chunks=anchor_used,
            centred=centred,
        )
    if out is not None:
        meta = {"rules": preset.name, "decides": list(options.decides), "report": report}
        check_finite(weights)
        raise_if_interrupted()  # a Ctrl-C dropped while the network was measured: not written
        save_action_in(out, weights, meta | options.extra)
    return report


def check_anchor(options: StreamingOptions, rules: str) -> int:
    """The chunks of the anchor's lessons to stream (0 without an anchor), checked to be a
    search's lessons of ``rules``."""
    if options.anchor is None:
        return 0
    spec, used = lesson_chunks(options.anchor, options.anchor_chunks)
    if spec.rules != rules:
        raise TarotInputError(f"{options.anchor}: lessons of {spec.rules}, not of {rules}")
    if is_self_play(spec):
        raise TarotInputError(
            f"{options.anchor}: lessons of self-play; an anchor is a search's lessons, every "
            "legal action valued"
        )
    return used


def _anchored(
    stream: Iterator[Batch], anchor: str, players: int, chunks: int, seed: int
) -> Iterator[Batch]:
    """Each chunk of ``stream`` followed by one of the anchor's, its chunks cycled in a new
    random order each time round."""

    def cycled() -> Iterator[Batch]:
        for turn in itertools.count():
            yield from stream_decisions(
                anchor, players, order_seed=seed * 7919 + turn, chunks=chunks
            )

    extra = cycled()
    for block in stream:
        yield block
        yield next(extra)


def _counted(stream: Iterator[Batch], shown: Any, resident: list[int]) -> Iterator[Batch]:
    """The stream, each chunk counted on the progress bar as it is read and the memory the
    process holds then appended to ``resident`` (bytes; nothing where the system does not
    say)."""
    from tarot_analysis.runs.memory import resident_bytes

    for block in stream:
        shown.update(1)
        held = resident_bytes()
        if held is not None:
            resident.append(held)
        yield block


def _resident_report(resident: list[int]) -> dict[str, float] | None:
    """The memory held as the training read its first chunk, at its most, and at its last, in
    MiB: flat when the buffer, not the decisions, sets it."""
    if not resident:
        return None
    mib = [round(size / 2**20, 1) for size in resident]
    return {"first_chunk_mib": mib[0], "peak_mib": max(mib), "last_chunk_mib": mib[-1]}


def choose_slots(params: Any, x: Any, features: Any, legal: Any) -> npt.NDArray[np.int64]:
    """The slot of each decision's legal action of highest score (NumPy)."""
    return np.where(legal, scores(np, params, x, features), -np.inf).argmax(axis=1)


def evaluate_streaming(
    params: Any,
    folder: str | os.PathLike[str],
    players: int,
    holdout: float,
    seed: int,
    *,
    chunks: int | None = None,
    centred: bool = True,
) -> dict[str, Any]:
    """On the held-out decisions of ``folder``: rows, the loss (against the targets of
    :func:`targets_of`, ``centred`` or not), how often the network takes the
    action taken in the lessons, and, where every legal action has a value (a search's
    lessons), its points lost a decision with a 95% interval by deal."""
    from tarot_analysis.stats import deal_interval

    lost, deals, squared, rows, matches = [], [], [], 0, 0
    for block in stream_decisions(folder, players, chunks=chunks):
        held = np.nonzero(is_held_out(block.deals, holdout, seed))[0]
        if not len(held):
            continue
        part = block.take(held)
        x, f = inputs_of(part, players)
        labelled = part.labelled
        predicted = scores(np, params, x, f)
        target = targets_of(part, centred)
        squared.append(
            np.where(labelled, (predicted - target) ** 2, 0).sum(axis=1) / labelled.sum(axis=1)
        )
        slots = np.where(part.legal, predicted, -np.inf).argmax(axis=1)
        complete = part.complete
        best = np.where(part.legal, part.values, -np.inf).max(axis=1)
        lost.append((best - part.values[np.arange(part.rows), slots])[complete])
        deals.append(part.deals[complete])
        rows += part.rows
        matches += int((slots == part.chosen).sum())
    if not rows:
        return {"rows": 0}
    every = np.concatenate(lost).astype(np.float64)
    loss = float(np.concatenate(squared).mean())
    found: dict[str, Any] = {"rows": rows, "loss": loss, "match_rate": matches / rows}
    if len(every):
        found["regret"] = deal_interval(every, np.concatenate(deals))
    return found


# --------------------------------------------------------------------------------------------
# The model file
# --------------------------------------------------------------------------------------------


def save_action_in(path: str | os.PathLike[str], params: Any, meta: dict[str, Any]) -> Path:
    """Write an action-in network to ``path`` (one ``.npz``, written whole or not at all): its
    layers as ``trunk_K_w``, ``trunk_K_b``, ``head_K_w``, ``head_K_b`` and a JSON ``metadata``
    naming the format, the preset, the encoding's and the features' versions."""
    rules = load_rules(str(meta["rules"]))
    arrays: dict[str, Any] = {
        f"{part}_{k}_{name}": np.asarray(a, dtype=np.float32)
        for part in ("trunk", "head")
        for k, layer in enumerate(params[part])
        for name, a in zip(("w", "b"), layer, strict=True)
    }
    metadata = dict(meta) | {
        "kind": MODEL_KIND, "format": ACTION_IN_FORMAT, "rules": rules.name,
        "players": rules.players, "encoding_version": ENCODING_VERSION,
        "encoding_size": encoding_size(rules.players), "features_version": FEATURES_VERSION,
        "n_features": N_ACTION_FEATURES, "trunk_layers": len(params["trunk"]),
        "head_layers": len(params["head"]),
    }  # fmt: skip
    target = Path(path)
    with replacing(target) as temporary, open(temporary, "wb") as file:
        np.savez(file, metadata=np.array(json.dumps(metadata, allow_nan=False)), **arrays)
    return target


def load_action_in(path: str | os.PathLike[str], rules: str) -> tuple[Any, dict[str, Any]]:
    """The layers and metadata of the action-in network in ``path``, with every check of a
    model a table seats (:func:`tarot_analysis.bots.learned.load_model`: the guarded reader, the
    preset, the encoding and features, the shapes, finite weights; a flat network's file
    refused): a ``TarotInputError`` naming the file otherwise."""
    source = Path(path)
    load_model(source, load_rules(rules))
    meta, arrays = read_model_arrays(source)
    params = {
        part: [
            (arrays[f"{part}_{k}_w"], arrays[f"{part}_{k}_b"])
            for k in range(meta[f"{part}_layers"])
        ]
        for part in ("trunk", "head")
    }
    return params, meta
