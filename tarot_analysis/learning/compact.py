"""A seat's encoding stored small: its zeros and ones as bits, its few fractions as numbers.

The encoding of :mod:`tarot_analysis.engine.encoding` is mostly zeros (a hand of 18 cards
among 78 places, the cards played by seat, ...), and every value is 0 or 1 but those of a
handful of count blocks (:data:`FRACTION_BLOCKS`: the poignées' counts, the tricks finished,
the points and tricks each seat won). :func:`pack_encodings` keeps one bit per value (whether
it is not zero) and the values of the count blocks as float32; :func:`unpack_encodings` gives
back the very same float32 vectors. For four players: 173 bytes of bits and 13 fractions, 225
bytes a decision instead of 5,512.

>>> import numpy as np
>>> from tarot_analysis.engine.encoding import encoding_size
>>> x = np.zeros((2, encoding_size(4)), dtype=np.float32)
>>> x[0, 5], x[1, -1] = 1.0, 0.25
>>> bits, fractions = pack_encodings(x, 4)
>>> bits.shape, fractions.shape
((2, 173), (2, 13))
>>> bool((unpack_encodings(bits, fractions, 4) == x).all())
True
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from tarot_analysis.engine.action_features import N_ACTION_FEATURES
from tarot_analysis.engine.encoding import encoding_size, layout
from tarot_analysis.errors import TarotInputError

__all__ = [
    "FRACTION_BLOCKS",
    "LESSON_FORMAT",
    "MAX_LEGAL",
    "Batch",
    "batch_from_table",
    "flat_lessons",
    "fraction_positions",
    "pack_encodings",
    "unpack_encodings",
]

#: The lessons' format, in a run's definition: the encoding's bits and fractions, the legal
#: actions alone with their values and features. (Format 1, the encoding as numbers for a
#: network with one output per action, is neither written nor read: :func:`flat_lessons`.)
LESSON_FORMAT: Final = 2
#: The most legal actions a decision of the French presets has (24 cards in a hand of three).
MAX_LEGAL: Final = 24
#: The blocks of the encoding whose values are fractions, not 0 or 1.
FRACTION_BLOCKS: Final = ("poignee_count", "trick_number", "points", "tricks_won")


@cache
def fraction_positions(players: int) -> npt.NDArray[np.int64]:
    """Where the fractions stand in the encoding of ``players``."""
    spans = [(start, length) for name, start, length in layout(players) if name in FRACTION_BLOCKS]
    return np.concatenate([np.arange(start, start + length) for start, length in spans])


def pack_encodings(
    encodings: npt.NDArray[np.float32], players: int
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.float32]]:
    """The bits (``(rows, ⌈length / 8⌉)`` uint8: 1 where a value is not 0) and the fractions
    (``(rows, F)`` float32) of encodings of ``players``."""
    size = encoding_size(players)
    x = np.asarray(encodings, dtype=np.float32)
    if x.ndim != 2 or x.shape[1] != size:
        raise TarotInputError(f"encodings of {players} players are rows of {size}, got {x.shape}")
    bits = np.packbits(x != 0, axis=1)
    return bits, np.ascontiguousarray(x[:, fraction_positions(players)])


def unpack_encodings(
    bits: npt.NDArray[np.uint8], fractions: npt.NDArray[np.float32], players: int
) -> npt.NDArray[np.float32]:
    """The encodings that :func:`pack_encodings` stored, as float32 ``(rows, length)``."""
    size = encoding_size(players)
    x = np.unpackbits(np.asarray(bits, dtype=np.uint8), axis=1, count=size).astype(np.float32)
    x[:, fraction_positions(players)] = fractions
    return x


# --------------------------------------------------------------------------------------------
# Lessons read back
# --------------------------------------------------------------------------------------------


def flat_lessons(where: str) -> TarotInputError:
    """The one line that refuses lessons of format 1 (the encoding as numbers, for the flat
    network with one output per action, which is no longer trained) found in ``where``."""
    return TarotInputError(
        f"{where}: lessons of format 1, for the flat network, which this version no longer "
        "trains: teach them again (tarot-analysis teach writes lessons of format 2)"
    )


@dataclass
class Batch:
    """Decisions as fixed-shape arrays: ``count`` legal actions each, padded to ``MAX_LEGAL``."""

    deals: npt.NDArray[np.int64]  # (rows,)
    bits: npt.NDArray[np.uint8]  # (rows, encoding bytes)
    fractions: npt.NDArray[np.float32]  # (rows, fractions)
    actions: npt.NDArray[np.int16]  # (rows, MAX_LEGAL), −1 past the legal ones
    values: npt.NDArray[np.float32]  # (rows, MAX_LEGAL), 0 past the legal ones
    features: npt.NDArray[np.uint8]  # (rows, MAX_LEGAL, N_ACTION_FEATURES)
    chosen: npt.NDArray[np.int64]  # (rows,): the slot of the teacher's choice
    # (rows, MAX_LEGAL): the actions with a value (every legal one of a search's lessons; the
    # one taken in self-play, valued by the seat's final score)
    labelled: npt.NDArray[np.bool_]

    @property
    def rows(self) -> int:
        return len(self.deals)

    @property
    def legal(self) -> npt.NDArray[np.bool_]:
        return self.actions >= 0

    @property
    def complete(self) -> npt.NDArray[np.bool_]:
        """Whether each decision has a value for every legal action."""
        return (self.labelled == self.legal).all(axis=1)

    def take(self, rows: npt.NDArray[np.int64]) -> Batch:
        """The decisions ``rows`` (copies)."""
        return Batch(*(getattr(self, f)[rows] for f in _FIELDS))


_FIELDS: Final = (
    "deals", "bits", "fractions", "actions", "values", "features", "chosen", "labelled",
)  # fmt: skip


def batch_from_table(
    table: pa.Table, players: int, where: str = "the lessons", *, taken_only: bool = False
) -> Batch:
    """The decisions of a chunk of compact lessons whose legal actions all have a value, or
    (``taken_only``: lessons of self-play) whose action taken alone has one."""
    needed = ("deal", "state", "fractions", "actions", "action_values", "features", "chosen")
    missing = [name for name in needed if name not in table.column_names]
    if missing and "encoding" in table.column_names:
        raise flat_lessons(where)
    if missing:
        raise TarotInputError(f"{where}: not lessons (no column {', '.join(missing)})")
    nbytes = -(-encoding_size(players) // 8)
    state = table.column("state").combine_chunks()
    if state.type != pa.binary(nbytes):
        raise TarotInputError(
            f"{where}: its states are {state.type}, not the encoding of {players}"
        )
    bits = np.frombuffer(state.buffers()[1], dtype=np.uint8)[
        state.offset * nbytes : (state.offset + len(state)) * nbytes
    ].reshape(len(state), nbytes)
    width = len(fraction_positions(players))
    fractions = _flat(table, "fractions", np.float32).reshape(len(state), width)
    actions_list = table.column("actions").combine_chunks()
    offsets = np.asarray(actions_list.offsets.to_numpy(), dtype=np.int64)
    actions = _flat(table, "actions", np.int16)
    values = _flat(table, "action_values", np.float32)
    features = _flat(table, "features", np.uint8).reshape(-1, N_ACTION_FEATURES)
    counts = np.diff(offsets)
    finite = np.add.reduceat(np.isfinite(values), offsets[:-1]) if len(values) else counts
    keep = (counts > 1) & (counts <= MAX_LEGAL) & (finite == (1 if taken_only else counts))
    return _padded(table, bits, fractions, offsets, actions, values, features, keep)


def _flat(table: pa.Table, name: str, dtype: Any) -> npt.NDArray[Any]:
    """The values of a list column, one after another."""
    column = table.column(name).combine_chunks()
    return np.asarray(column.flatten().to_numpy(zero_copy_only=False), dtype=dtype)


def _padded(
    table: pa.Table, bits: Any, fractions: Any, offsets: Any, actions: Any, values: Any,
    features: Any, keep: Any,
) -> Batch:  # fmt: skip
    """The kept rows with their legal actions padded to :data:`MAX_LEGAL`."""
    rows = np.nonzero(keep)[0]
    counts = np.diff(offsets)[rows]
    slot = np.arange(MAX_LEGAL)[None, :]
    present = slot < counts[:, None]
    source = (offsets[rows][:, None] + slot)[present]
    padded_actions = np.full((len(rows), MAX_LEGAL), -1, dtype=np.int16)
    padded_actions[present] = actions[source]
    padded_values = np.zeros((len(rows), MAX_LEGAL), dtype=np.float32)
    padded_values[present] = values[source]
    labelled = np.isfinite(padded_values)
    padded_values[~labelled] = 0.0
    labelled &= present
    padded_features = np.zeros((len(rows), MAX_LEGAL, N_ACTION_FEATURES), dtype=np.uint8)
    padded_features[present] = features[source]
    chosen_action = table.column("chosen").to_numpy().astype(np.int64)[rows]
    chosen = np.argmax(padded_actions == chosen_action[:, None], axis=1)
    return Batch(
        deals=table.column("deal").to_numpy().astype(np.int64)[rows], bits=bits[rows],
        fractions=fractions[rows], actions=padded_actions, values=padded_values,
        features=padded_features, chosen=chosen, labelled=labelled,
    )  # fmt: skip
