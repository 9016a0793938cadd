"""Training a network on the search bot's decisions: what a seat knew, and what each action
was worth.

A run of the search bot's decisions stores, per decision, the seat's encoding
(:mod:`tarot_analysis.engine.encoding`), its legal actions, the mean score the search measured
for each of them (``values``), and the action it chose. A multilayer perceptron (the encoding,
hidden layers with ReLU, one output per action) learns to predict each legal action's
*advantage*: its value less the mean value of the legal actions, in hundreds of points
(:data:`VALUE_SCALE`). The loss is the squared error on the legal actions, each decision
weighing the same, plus optionally :data:`choice_weight` times the cross-entropy of the
teacher's choice (the outputs as logits, one per :data:`CHOICE_TEMPERATURE` of advantage).
The bot then takes the legal action of highest output
(:func:`tarot_analysis.bots.learned.choose`).

Deals are held out whole (:func:`split_by_deal`): the decisions of one deal share its cards
and would otherwise be learned on one side and tested on the other. The report gives, on the
held-out decisions, the loss, how often the network takes the teacher's action, and its
*regret*: the teacher's best value less the teacher's value of the network's action, in points
per decision, with a 95% interval that counts deals, not decisions, as the independent units.

Training uses JAX and optax, the ``train`` extra (``pip install 'tarot-analysis[train]'``):
imported here only when a network is trained, so that the rest of the toolkit needs neither.
The same rows and seed give the same weights.
"""

from __future__ import annotations

import itertools
import json
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from tarot_analysis.bots import MAX_WIDTHS
from tarot_analysis.bots.learned import MAX_HIDDEN_WIDTH, MAX_WEIGHTS, save_model, weights_length
from tarot_analysis.engine.encoding import encoding_size
from tarot_analysis.engine.state import N_ACTIONS
from tarot_analysis.errors import TarotInputError, whole_number
from tarot_analysis.game.rules import load_rules
from tarot_analysis.learning.compact import batch_from_table, unpack_encodings
from tarot_analysis.runs.interrupts import raise_if_interrupted
from tarot_analysis.stats import deal_interval

__all__ = [
    "CHOICE_TEMPERATURE",
    "DECISION_COLUMNS",
    "VALUE_SCALE",
    "Decisions",
    "FiniteSteps",
    "Trained",
    "check_finite",
    "check_hidden",
    "check_learning_rate",
    "check_training_memory",
    "decisions_from_table",
    "evaluate",
    "read_decisions",
    "split_by_deal",
    "train",
    "train_folder",
]

#: The columns a run of the search bot's decisions holds, one row per decision.
DECISION_COLUMNS: Final = (
    "deal", "seat", "step", "decision", "encoding", "legal", "values", "chosen", "worlds",
    "score",
)  # fmt: skip
#: Points per unit of the network's outputs: a deal's scores are tens to hundreds of points.
VALUE_SCALE: Final = 100.0
#: Advantage (in outputs' units) per unit of logit in the cross-entropy of the teacher's choice:
#: 0.1 is 10 points, about what separates two cards the search tells apart.
CHOICE_TEMPERATURE: Final = 0.1
#: Decisions per step of the optimiser.
BATCH: Final = 256
NEEDS_EXTRA: Final = "training needs the train extra: pip install 'tarot-analysis[train]'"
#: The largest learning rate a step can take: the largest float32, the weights' own type (a
#: larger one is infinite in the step, and every weight with it).
MOST_LEARNING_RATE: Final = float(np.finfo(np.float32).max)
#: Steps of the optimiser between two looks at whether they kept the weights finite numbers:
#: a look waits for the steps before it to be computed, which a look at every step would keep
#: from running ahead of the batches being made.
LOOK_EVERY: Final = 32


@dataclass(frozen=True)
class Decisions:
    """The decisions of a run as arrays, one row per decision."""

    rules: str  # the preset's name
    players: int
    deals: npt.NDArray[np.int64]
    encodings: npt.NDArray[np.float32]  # (rows, encoding length)
    legal: npt.NDArray[np.bool_]  # (rows, N_ACTIONS)
    values: npt.NDArray[np.float32]  # (rows, N_ACTIONS), NaN where not legal
    chosen: npt.NDArray[np.int64]
    skipped: int = 0  # decisions of the run without a value for each legal action

    @property
    def rows(self) -> int:
        """How many decisions."""
        return len(self.chosen)


@dataclass(frozen=True)
class Trained:
    """A trained network: one matrix ``(inputs, outputs)`` and one bias vector per layer, and
    the report of its training."""

    weights: list[npt.NDArray[np.float32]]
    biases: list[npt.NDArray[np.float32]]
    report: dict[str, Any]


def _jax() -> tuple[Any, Any, Any]:
    """``jax``, ``jax.numpy`` and ``optax``, or one line saying how to install them."""
    try:
        import jax
        import jax.numpy as jnp
        import optax
    except ModuleNotFoundError:
        raise TarotInputError(NEEDS_EXTRA) from None
    return jax, jnp, optax


# --------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------


def read_decisions(folder: str | os.PathLike[str]) -> Decisions:
    """The decisions of the run in ``folder``, checked: every chunk whole, the columns of a
    run of decisions, the encoding of the run's rules."""
    # imported here: the runner brings pyarrow.parquet and tqdm, which training does not
    # need until it reads a run
    from tarot_analysis.runs.runner import read_dataset

    source = Path(folder)
    definition = _run_definition(source)
    return decisions_from_table(read_dataset(source), str(definition.get("rules")), str(source))


def _run_definition(source: Path) -> dict[str, Any]:
    """The definition of the run in ``source`` (its ``_run.json``), checked to be there."""
    # imported here: as in read_decisions
    from tarot_analysis.runs.runner import SPEC_FILE, _read_definition

    if not source.is_dir():
        raise TarotInputError(f"{source}: no such folder of decisions")
    if not (source / SPEC_FILE).exists():
        raise TarotInputError(f"{source}: no {SPEC_FILE}: not the folder of a run")
    return _read_definition(source / SPEC_FILE)


def _deal_numbering(source: Path) -> str:
    """What decides the cards of each deal number of the run in ``source``: its definition
    without its number of deals and its version. Two runs that share it deal the same cards
    under the same numbers (the shorter one's deals are the longer one's first)."""
    definition = dict(_run_definition(source))
    for key in ("deals", "version"):
        definition.pop(key, None)
    return json.dumps(definition, sort_keys=True, default=str)


#: Deal numbers of the n-th run joined are moved by n times this: deals of two runs stay apart.
_RUN_STRIDE: Final = 1 << 40


def join_decisions(
    parts: Sequence[Decisions], numberings: Sequence[str] | None = None
) -> Decisions:
    """The decisions of several runs of one preset as one, each run's deals kept apart.
    ``numberings``: what decides each run's deals (:func:`_deal_numbering`; by default every run
    its own): runs that share one share their deal numbers, and a deal already taken from an
    earlier run is left out of a later one, so that no deal is counted twice (nor lands on both
    sides of the held-out split)."""
    if len({part.rules for part in parts}) > 1:
        raise TarotInputError(
            "runs of different presets cannot train one network: "
            + ", ".join(sorted({part.rules for part in parts}))
        )
    if len(parts) == 1:
        return parts[0]
    keys = [str(k) for k in range(len(parts))] if numberings is None else list(numberings)
    offsets = {key: k * _RUN_STRIDE for k, key in enumerate(dict.fromkeys(keys))}
    taken: dict[str, npt.NDArray[np.int64]] = {}
    kept = []
    for part, key in zip(parts, keys, strict=True):
        deals = part.deals + offsets[key]
        fresh = ~np.isin(deals, taken.get(key, deals[:0]))
        taken[key] = np.union1d(taken.get(key, deals[:0]), deals[fresh])
        kept.append((part, fresh, deals))
    return Decisions(
        rules=parts[0].rules, players=parts[0].players,
        deals=np.concatenate([deals[fresh] for _, fresh, deals in kept]),
        encodings=np.concatenate([p.encodings[fresh] for p, fresh, _ in kept]),
        legal=np.concatenate([p.legal[fresh] for p, fresh, _ in kept]),
        values=np.concatenate([p.values[fresh] for p, fresh, _ in kept]),
        chosen=np.concatenate([p.chosen[fresh] for p, fresh, _ in kept]),
        skipped=sum(p.skipped for p in parts),
    )  # fmt: skip


def _column(table: pa.Table, name: str, width: int, kind: str, where: str) -> npt.NDArray[Any]:
    """A fixed-size list column as a ``(rows, width)`` array, checked."""
    column = table.column(name)
    if not pa.types.is_fixed_size_list(column.type) or column.type.list_size != width:
        raise TarotInputError(
            f"{where}: column {name} holds {column.type}; expected lists of {width} {kind}"
        )
    flat = column.combine_chunks().flatten() if table.num_rows else pa.array([], pa.float32())
    return np.asarray(flat.to_numpy(zero_copy_only=False)).reshape(table.num_rows, width)


def decisions_from_table(table: pa.Table, rules: str, where: str = "the decisions") -> Decisions:
    """The decisions of a table of :data:`DECISION_COLUMNS` for the preset ``rules``;
    ``where`` names them in errors."""
    preset = load_rules(rules)
    if "state" in table.column_names and "encoding" not in table.column_names:
        table = expanded(table, preset.players, where)
    missing = [name for name in DECISION_COLUMNS if name not in table.column_names]
    if missing:
        raise TarotInputError(
            f"{where}: not a run of the search bot's decisions (no column {', '.join(missing)})"
        )
    if table.num_rows == 0:
        raise TarotInputError(f"{where}: no decisions")
    size = encoding_size(preset.players)
    encodings = _column(table, "encoding", size, f"numbers (the encoding of {preset.name})", where)
    legal = _column(table, "legal", N_ACTIONS, "booleans", where).astype(np.bool_)
    values = _column(table, "values", N_ACTIONS, "numbers", where).astype(np.float32)
    chosen = table.column("chosen").to_numpy().astype(np.int64)
    if ((chosen < 0) | (chosen >= N_ACTIONS)).any() or not legal[
        np.arange(len(chosen)), np.clip(chosen, 0, N_ACTIONS - 1)
    ].all():
        raise TarotInputError(f"{where}: a chosen action is not a legal action of its row")
    # The search values no action where its legal actions are all alike (the 7 and 8 of a
    # suit): nothing to learn there.
    valued = ~(legal & ~np.isfinite(values)).any(axis=1) & (legal.sum(axis=1) > 1)
    if not valued.any():
        raise TarotInputError(f"{where}: no decision with a value for each legal action")
    return Decisions(
        rules=preset.name, players=preset.players,
        deals=table.column("deal").to_numpy().astype(np.int64)[valued],
        encodings=np.ascontiguousarray(encodings[valued], dtype=np.float32),
        legal=legal[valued], values=np.where(legal, values, np.nan).astype(np.float32)[valued],
        chosen=chosen[valued], skipped=int((~valued).sum()),
    )  # fmt: skip


def expanded(table: pa.Table, players: int, where: str = "the decisions") -> pa.Table:
    """A table of compact lessons (format 2, :mod:`tarot_analysis.learning.teacher`) with the
    columns of format 1 in place of its own: the encoding as numbers, the legal actions and
    their values by action."""
    batch = batch_from_table(table, players, where)
    rows = np.arange(batch.rows)[:, None]
    legal = np.zeros((batch.rows, N_ACTIONS), dtype=np.bool_)
    values = np.full((batch.rows, N_ACTIONS), np.nan, dtype=np.float32)
    present = batch.legal
    actions = np.where(present, batch.actions, 0).astype(np.int64)
    legal[np.broadcast_to(rows, actions.shape)[present], actions[present]] = True
    values[np.broadcast_to(rows, actions.shape)[present], actions[present]] = batch.values[present]
    encodings = unpack_encodings(batch.bits, batch.fractions, players)
    chosen = batch.actions[np.arange(batch.rows), batch.chosen].astype(np.int16)

    def fixed(a: npt.NDArray[Any]) -> pa.FixedSizeListArray:
        return pa.FixedSizeListArray.from_arrays(pa.array(a.reshape(-1)), a.shape[1])

    return pa.table(
        {
            "deal": pa.array(batch.deals), "seat": pa.array(np.zeros(batch.rows, np.int8)),
            "step": pa.array(np.zeros(batch.rows, np.int16)),
            "decision": pa.array(["?"] * batch.rows), "encoding": fixed(encodings),
            "legal": fixed(legal), "values": fixed(values), "chosen": pa.array(chosen),
            "worlds": pa.array(np.zeros(batch.rows, np.int16)),
            "score": pa.array(np.zeros(batch.rows, np.float32)),
        }
    )  # fmt: skip


def split_by_deal(
    deals: npt.NDArray[np.int64], holdout: float, seed: int
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The rows to train on and the rows held out: a fraction ``holdout`` of the deals, drawn
    from ``seed``, with all their decisions. Rows in their order in each part."""
    if not 0 <= holdout < 1:
        raise TarotInputError(f"the held-out fraction must be from 0 to below 1, got {holdout}")
    unique = np.unique(deals)
    held = round(holdout * len(unique))
    if holdout > 0:
        if len(unique) < 2:
            raise TarotInputError(
                f"holding out deals needs at least 2 deals, got {len(unique)}: use --holdout 0"
            )
        held = min(max(held, 1), len(unique) - 1)
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(0,)))
    out = np.zeros(len(unique), dtype=np.bool_)
    out[rng.choice(len(unique), size=held, replace=False)] = True
    is_held = np.isin(deals, unique[out])
    return np.nonzero(~is_held)[0], np.nonzero(is_held)[0]


# --------------------------------------------------------------------------------------------
# Measuring
# --------------------------------------------------------------------------------------------


def advantages(values: npt.NDArray[np.float32], legal: npt.NDArray[np.bool_]) -> Any:
    """Each legal action's value less the mean of the legal actions, / :data:`VALUE_SCALE`;
    0 where not legal."""
    filled = np.where(legal, values, 0.0)
    mean = filled.sum(axis=1, keepdims=True) / np.maximum(legal.sum(axis=1, keepdims=True), 1)
    return (np.where(legal, filled - mean, 0.0) / VALUE_SCALE).astype(np.float32)


def _outputs(
    weights: list[npt.NDArray[np.float32]], biases: list[npt.NDArray[np.float32]], x: Any
) -> npt.NDArray[np.float32]:
    """The network's outputs in NumPy (float32), layer by layer."""
    h = np.asarray(x, dtype=np.float32)
    for k, (w, b) in enumerate(zip(weights, biases, strict=True)):
        h = h @ w + b
        if k < len(weights) - 1:
            h = np.maximum(h, 0.0)
    return h.astype(np.float32)


def evaluate(
    weights: list[npt.NDArray[np.float32]],
    biases: list[npt.NDArray[np.float32]],
    decisions: Decisions,
    rows: npt.NDArray[np.int64] | None = None,
) -> dict[str, Any]:
    """How the network does on ``rows`` of ``decisions`` (all by default): the loss (squared
    error of the advantages on the legal actions), how often it takes the teacher's action,
    and its regret in points per decision with its interval by deal; beside it, the regret of
    a uniformly random legal action."""
    picked = np.arange(decisions.rows) if rows is None else np.asarray(rows)
    if len(picked) == 0:
        return {"rows": 0}
    legal = decisions.legal[picked]
    values = decisions.values[picked]
    outputs = np.concatenate(
        [
            _outputs(weights, biases, decisions.encodings[part])
            for part in np.array_split(picked, max(1, -(-len(picked) // 4096)))
        ]
    )
    target = advantages(values, legal)
    squared = np.where(legal, (outputs - target) ** 2, 0.0).sum(axis=1) / legal.sum(axis=1)
    choice = np.where(legal, outputs, -np.inf).argmax(axis=1)
    filled = np.where(legal, values, -np.inf)
    best = filled.max(axis=1)
    regret = (best - values[np.arange(len(picked)), choice]).astype(np.float64)
    uniform = best - np.where(legal, values, 0.0).sum(axis=1) / legal.sum(axis=1)
    deals = decisions.deals[picked]
    matches = int((choice == decisions.chosen[picked]).sum())
    return {
        "rows": len(picked),
        "deals": len(np.unique(deals)),
        "loss": float(squared.mean()),
        "matches": matches,
        "match_rate": matches / len(picked),
        "regret": deal_interval(regret, deals),
        "random_regret": deal_interval(uniform.astype(np.float64), deals),
    }


# --------------------------------------------------------------------------------------------
# Training
# --------------------------------------------------------------------------------------------


def all_finite(jax: Any, jnp: Any, params: Any) -> Any:
    """Whether every weight of ``params`` is a finite number, as one JAX boolean (computed
    inside a compiled step, beside the step's own work, which it leaves bit for bit as it
    was): a loss that diverges sends the weights to infinity, then NaN."""
    leaves = jax.tree_util.tree_leaves(params)
    return jnp.stack([jnp.isfinite(a).all() for a in leaves]).all()


class FiniteSteps:
    """The steps of a training, each looked at (every :data:`LOOK_EVERY`, and at the end) to
    have kept the weights finite numbers: a learning rate too high makes the loss diverge, the
    weights go to infinity, then NaN, and a network of NaN plays nothing. The first step that
    did not stops the training in one line naming it, before anything is written. A Ctrl-C
    that Python dropped in a finaliser stops it at the next step
    (:func:`~tarot_analysis.runs.interrupts.raise_if_interrupted`)."""

    def __init__(self) -> None:
        self._pending: list[tuple[str, Any]] = []

    def took(self, step: str, finite: Any) -> None:
        """Note ``step`` (as the error names it) and whether it kept the weights finite (a JAX
        boolean, perhaps still being computed)."""
        raise_if_interrupted()
        self._pending.append((step, finite))
        if len(self._pending) >= LOOK_EVERY:
            self.look()

    def look(self) -> None:
        """Raise ``TarotInputError`` naming the first step noted that did not keep the weights
        finite; forget the steps looked at."""
        for step, finite in self._pending:
            if not bool(finite):
                raise TarotInputError(
                    f"the training diverged at {step}: its weights are no longer finite numbers "
                    "(a learning rate too high?); nothing was written"
                )
        self._pending.clear()
        raise_if_interrupted()


def check_learning_rate(rate: object) -> float:
    """``rate`` as Adam's learning rate: a number above 0 and at most
    :data:`MOST_LEARNING_RATE` (3.4e+38); a ``TarotInputError`` otherwise.

    >>> check_learning_rate(1e-3)
    0.001
    """
    if isinstance(rate, bool) or not isinstance(rate, int | float | np.integer | np.floating):
        raise TarotInputError(f"the learning rate must be a number, got {rate!r}")
    if not 0 < float(rate) <= MOST_LEARNING_RATE:
        raise TarotInputError(
            f"the learning rate must be above 0 and at most {MOST_LEARNING_RATE:.1e}, got {rate}"
        )
    return float(rate)


def check_finite(layers: Any, what: str = "the trained network") -> None:
    """Refuse, in one line, ``layers`` (arrays, or lists, tuples and dicts of them) holding a
    weight that is not a finite number: a network is written only when it can play."""
    if isinstance(layers, dict):
        layers = list(layers.values())
    if isinstance(layers, list | tuple):
        for part in layers:
            check_finite(part, what)
    elif not np.isfinite(np.asarray(layers)).all():
        raise TarotInputError(f"{what}: some weights are not finite numbers; nothing was written")


def _initial(jax: Any, jnp: Any, widths: list[int], key: Any) -> list[tuple[Any, Any]]:
    """He-initialised layers: weights N(0, 2 / inputs), biases 0."""
    layers = []
    for n_in, n_out in itertools.pairwise(widths):
        key, sub = jax.random.split(key)
        w = jax.random.normal(sub, (n_in, n_out), dtype=jnp.float32) * math.sqrt(2.0 / n_in)
        layers.append((w, jnp.zeros(n_out, dtype=jnp.float32)))
    return layers


def check_hidden(hidden: Sequence[object]) -> tuple[int, ...]:
    """The widths of the hidden layers, checked to make a network a table can seat: at most
    ``MAX_WIDTHS - 2`` layers of 1 to :data:`~tarot_analysis.bots.learned.MAX_HIDDEN_WIDTH`
    units each."""
    widths = [whole_number(w, "a hidden layer's width") for w in hidden]
    if len(widths) > MAX_WIDTHS - 2 or any(not 1 <= w <= MAX_HIDDEN_WIDTH for w in widths):
        raise TarotInputError(
            f"the hidden layers of a learned bot are at most {MAX_WIDTHS - 2}, of 1 to "
            f"{MAX_HIDDEN_WIDTH:,} units each; got {' '.join(map(str, widths)) or 'none'}"
        )
    return tuple(widths)


def check_training_memory(
    folders: Sequence[Path], hidden: Sequence[int], available: int | None = None
) -> None:
    """Refuse, before anything is read, a training whose decisions and network would not fit
    in memory: each decision's rows as stored, read into arrays and into the targets (three
    copies), and the network four times over (its weights, their gradients, Adam's two
    moments). The rows are counted from the chunks' own metadata."""
    # imported here: as in read_decisions
    import pyarrow.parquet as pq

    from tarot_analysis.reader import RUN_CHUNK_BYTES, regular_file
    from tarot_analysis.runs.memory import check_room

    rows = 0
    size = 0
    for one in folders:
        players = load_rules(str(_run_definition(one).get("rules"))).players
        size = max(size, encoding_size(players))
        for chunk in sorted(one.glob("chunk-*.parquet")):
            try:
                checked = regular_file(chunk, "run chunk", limit=RUN_CHUNK_BYTES)
                rows += pq.ParquetFile(checked).metadata.num_rows
            except (OSError, ValueError):
                continue  # read again, and refused in one line, by read_decisions
    widths = [size, *(int(w) for w in hidden), N_ACTIONS]
    per_row = 4 * size + 9 * N_ACTIONS + 16
    check_room(
        f"training on {rows:,} decisions with hidden layers {' '.join(map(str, hidden))}",
        3 * rows * per_row + 16 * weights_length(widths), available,
        lambda usable: "train on fewer runs, or narrower --hidden layers",
    )  # fmt: skip


def train(
    decisions: Decisions,
    *,
    hidden: tuple[int, ...] = (256, 128),
    epochs: int = 20,
    seed: int = 0,
    holdout: float = 0.1,
    learning_rate: float = 1e-3,
    choice_weight: float = 0.0,
    progress: bool = False,
) -> Trained:
    """A network trained on ``decisions`` (minus the deals held out), with its report.

    ``hidden``: the widths of the hidden layers; ``epochs``: passes over the training rows, in
    batches of :data:`BATCH` (Adam, ``learning_rate``); ``choice_weight``: the weight of the
    cross-entropy of the teacher's choice beside the squared error (0: none). The same
    decisions and seed give the same weights."""
    jax, jnp, optax = _jax()
    seed = whole_number(seed, "the seed")
    if seed < 0:
        raise TarotInputError(f"the seed must be ≥ 0, got {seed}")
    check_hidden(hidden)
    check_learning_rate(learning_rate)
    if epochs < 0:
        raise TarotInputError(f"epochs must be ≥ 0, got {epochs}")
    train_rows, held_rows = split_by_deal(decisions.deals, holdout, seed)
    widths = [decisions.encodings.shape[1], *(int(w) for w in hidden), N_ACTIONS]
    if weights_length(widths) > MAX_WEIGHTS:
        raise TarotInputError(
            f"a network of {' → '.join(map(str, widths))} holds {weights_length(widths):,} "
            f"weights; a learned bot holds at most {MAX_WEIGHTS:,}"
        )
    params = _initial(jax, jnp, widths, jax.random.PRNGKey(seed))
    optimiser = optax.adam(learning_rate)
    state = optimiser.init(params)

    x_all = decisions.encodings
    legal_all = decisions.legal
    target_all = np.asarray(advantages(decisions.values, decisions.legal), dtype=np.float32)
    chosen_all = decisions.chosen

    def outputs(params: Any, x: Any) -> Any:
        for w, b in params[:-1]:
            x = jax.nn.relu(x @ w + b)
        w, b = params[-1]
        return x @ w + b

    def loss(params: Any, batch: tuple[Any, ...], weight: Any) -> Any:
        x, legal, target, chosen_rows = batch
        predicted = outputs(params, x)
        squared = jnp.where(legal, (predicted - target) ** 2, 0.0).sum(axis=1)
        per_row = squared / legal.sum(axis=1)
        if choice_weight:
            logits = jnp.where(legal, predicted / CHOICE_TEMPERATURE, -jnp.inf)
            log_p = jax.nn.log_softmax(logits, axis=1)
            chosen = jnp.take_along_axis(log_p, chosen_rows[:, None], axis=1)[:, 0]
            per_row = per_row - choice_weight * chosen
        return (per_row * weight).sum() / weight.sum()

    @jax.jit
    def step(params: Any, state: Any, batch: tuple[Any, ...], weight: Any) -> tuple[Any, Any, Any]:
        # The batch's rows are arguments, not constants of the compiled step: the data stays
        # in NumPy, a batch at a time goes to JAX.
        grads = jax.grad(loss)(params, batch, weight)
        updates, state = optimiser.update(grads, state, params)
        params = optax.apply_updates(params, updates)
        return params, state, all_finite(jax, jnp, params)

    # imported here: the progress bars bring tqdm, needed only once a network is trained
    from tarot_analysis.runs.progress import TRAINING, bar

    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(1,)))
    batches = -(-len(train_rows) // BATCH)
    detail = f"{decisions.rules}, {len(train_rows):,} decisions"
    steps = FiniteSteps()
    with bar(TRAINING, epochs, unit="epoch", enabled=progress, detail=detail) as shown:
        for epoch in range(epochs):
            order = rng.permutation(train_rows)
            padded = np.resize(order, batches * BATCH)  # the last batch filled, its fill unweighted
            weight = (np.arange(batches * BATCH) < len(order)).astype(np.float32)
            for k in range(batches):
                part = slice(k * BATCH, (k + 1) * BATCH)
                rows = padded[part]
                batch = (x_all[rows], legal_all[rows], target_all[rows], chosen_all[rows])
                params, state, finite = step(params, state, batch, weight[part])
                steps.took(f"epoch {epoch + 1}, batch {k + 1} of {batches}", finite)
            shown.update(1)
    steps.look()
    weights = [np.asarray(w, dtype=np.float32) for w, _ in params]
    biases = [np.asarray(b, dtype=np.float32) for _, b in params]
    report = {
        "rules": decisions.rules, "seed": seed, "rows": decisions.rows,
        "skipped": decisions.skipped, "deals": len(np.unique(decisions.deals)), "widths": widths,
        "epochs": epochs, "learning_rate": learning_rate, "choice_weight": choice_weight,
        "holdout": holdout, "train": evaluate(weights, biases, decisions, train_rows),
        "held_out": evaluate(weights, biases, decisions, held_rows),
    }  # fmt: skip
    return Trained(weights=weights, biases=biases, report=report)


def train_folder(
    folder: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    out: str | os.PathLike[str],
    **options: Any,
) -> dict[str, Any]:
    """Train on the decisions of the run in ``folder`` (or of several runs of one preset:
    their deals kept apart, each folder read once, and a deal two runs share counted once:
    :func:`join_decisions`), with :func:`train`'s ``options``; write the network to ``out``
    (:func:`tarot_analysis.bots.learned.save_model`) and return the report. The layers, the
    memory and ``out`` are checked before anything is read."""
    # imported here: the runs' files, needed only once a network is trained
    from tarot_analysis.runs.simulate import check_output_path

    _jax()  # before reading: a missing extra is said at once
    check_hidden(options.get("hidden", ()))
    given = [folder] if isinstance(folder, str | os.PathLike) else list(folder)
    if not given:
        raise TarotInputError("training needs at least one folder of lessons, got none")
    folders = list({Path(one).resolve(): Path(one) for one in given}.values())  # each once
    check_training_memory(folders, options.get("hidden", (256, 128)))
    check_output_path(Path(out))  # before the work: a model that cannot be written fails at once
    decisions = join_decisions(
        [read_decisions(one) for one in folders], [_deal_numbering(one) for one in folders]
    )
    folder = ", ".join(str(one) for one in folders)
    trained = train(decisions, **options)
    report = trained.report | {"data": str(folder), "out": str(out)}
    meta = {
        "rules": decisions.rules,
        "seed": report["seed"],
        "rows": decisions.rows,
        "data": str(folder),
        "report": report,
    }
    check_finite([trained.weights, trained.biases])
    raise_if_interrupted()  # a Ctrl-C dropped while the network was measured: nothing written
    save_model(out, trained.weights, trained.biases, meta)
    return report
