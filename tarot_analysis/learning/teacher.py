"""Lessons from the search bot: deals played by ``pimc``, and what it measured at each decision.

A learned bot is trained to choose as the search bot does, and to know by how much one choice
beats another. :func:`teach` plays deals with ``pimc`` at every seat and stores one row per
decision it searched (bids, calls, poignées and cards with more than one legal action): what
the seat knew, as the encoding of :mod:`tarot_analysis.engine.encoding`; the legal actions; the
seat's mean score for each of them over the worlds the search drew; the action taken; and the
seat's score for the whole deal. The écart and the chelem are the heuristic's, as in ``pimc``
itself, and are not stored.

A decision takes a few hundred bytes (lessons of format 2,
:data:`~tarot_analysis.learning.compact.LESSON_FORMAT`): the encoding's zeros and ones as bits
and its few fractions as numbers (:mod:`tarot_analysis.learning.compact`), the legal actions
alone with their values, and each legal action's features
(:mod:`tarot_analysis.engine.action_features`) with the heuristic's action as their hint; a
trainer streams them through a shuffle buffer (:mod:`tarot_analysis.learning.streaming`).

The rows go to a run folder (:mod:`tarot_analysis.runs.runner`): Parquet chunks that a stopped run
resumes, the same rows for the same seed whoever computes a chunk, on local threads or a Dask
cluster.

>>> import tempfile
>>> from tarot_analysis.game.rules import load_rules
>>> folder = tempfile.mkdtemp()
>>> done = teach(load_rules("fft-4"), 2, folder, worlds=4, seed=1, chunk_size=2)
>>> lessons = read_lessons(folder)
>>> lessons.num_rows > 0, lessons.column("state").type.byte_width
(True, 173)
"""

from __future__ import annotations

import os
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from numba import njit

from tarot_analysis._jit import chunk_states
from tarot_analysis.bots import Bot, bot_rows, door, pimc, play_outs_learned, seat_rows
from tarot_analysis.deals.deal import deal
from tarot_analysis.engine import action_features, encoding
from tarot_analysis.engine import params as R
from tarot_analysis.engine import state as S
from tarot_analysis.engine.outcome import N_OUTCOME
from tarot_analysis.engine.params import engine_rules
from tarot_analysis.engine.scoring import score_outcomes
from tarot_analysis.errors import TarotInputError, run_numbers, whole_number
from tarot_analysis.game.rules import Rules, rules_to_dict
from tarot_analysis.learning.compact import LESSON_FORMAT, MAX_LEGAL, flat_lessons, pack_encodings
from tarot_analysis.runs.interrupts import held_interrupts
from tarot_analysis.runs.progress import PLAYING
from tarot_analysis.runs.runner import RunResult, RunSpec, read_dataset, run

__all__ = [
    "COMPACT_COLUMNS",
    "DEFAULT_CHUNK_SIZE",
    "KIND",
    "LESSON_FORMAT",
    "compact_columns",
    "lesson_counts",
    "read_lessons",
    "rows_per_deal",
    "store_outcome",
    "teach",
]

#: Deals per chunk: about a minute of one core's search for four players.
DEFAULT_CHUNK_SIZE: Final = 200
#: The kind of run in a folder's definition.
KIND: Final = "lessons"
#: The columns of a row, one row per searched decision: the encoding as bits and fractions
#: (:mod:`tarot_analysis.learning.compact`), the legal actions in order with the search's value
#: and the features of each (:mod:`tarot_analysis.engine.action_features`, a row of
#: ``N_ACTION_FEATURES`` small numbers per action), the heuristic's action.
COMPACT_COLUMNS: Final = (
    "deal", "seat", "step", "decision", "state", "fractions", "actions", "action_values",
    "features", "chosen", "worlds", "score", "hint",
)  # fmt: skip


def rows_per_deal(rules: Rules) -> int:
    """The most searched decisions a deal can hold: every card, a bid and a poignée per seat,
    the calls."""
    return rules.players * rules.hand_size + 2 * rules.players + 2


@njit(cache=True, nogil=True)
def _teach_deals(
    masks: Any,
    p: Any,
    half: Any,
    worlds: int,
    endgame: int,
    heuristic: Any,
    rng: Any,
    ws: Any,
    encodings: Any,
    legal: Any,
    values: Any,
    facts: Any,
    outcomes: Any,
    poignees: Any,
    features: Any,
    hint_rng: Any,
) -> int:
    """Play every deal of ``masks`` with the search at every seat; one row per searched
    decision with several legal actions into ``encodings``, ``legal``, ``values`` (NaN for an
    illegal action), ``facts`` (deal, seat, step, decision, chosen, worlds, the heuristic's
    action) and ``features`` (each legal action's features,
    :mod:`tarot_analysis.engine.action_features`, the heuristic's action as the hint, its
    draws from ``hint_rng``); each deal's raw outcome and poignées into ``outcomes`` and
    ``poignees``. Returns the rows written."""
    m = np.zeros(S.N_M, dtype=np.uint64)
    s = np.zeros(S.N_S, dtype=np.int64)
    plan = np.zeros(2, dtype=np.uint64)
    means = np.zeros(S.N_ACTIONS, dtype=np.float64)
    mask = np.zeros(S.N_ACTIONS, dtype=np.bool_)
    no_forced = np.full(4, -1, dtype=np.int64)
    hint_plan = np.zeros(2, dtype=np.uint64)
    scratch = np.zeros((S.N_ACTIONS, action_features.N_ACTION_FEATURES), dtype=np.uint8)
    actions = np.zeros(S.N_ACTIONS, dtype=np.int64)
    row = 0
    for d in range(masks.shape[0]):
        S.start(m, s, masks[d], no_forced, np.int64(-1), p, half)
        step = 0
        while s[S.S_KIND] != S.OVER:
            kind = s[S.S_KIND]
            searched = S.is_weighed(kind)
            if not searched:
                seat = s[S.S_ACTOR]
                action = door.decide_rules(m, s, seat, heuristic[seat], p, rng, plan)
                S.apply(m, s, action, p, half)
                step += 1
                continue
            S.legal_mask(m, s, p, mask)
            seat = s[S.S_ACTOR]
            encoding.encode_into(m, s, p, half, seat, encodings[row])
            hint = door.decide_rules(m, s, seat, heuristic[seat], p, hint_rng, hint_plan)
            n_legal = action_features.action_features_into(
                m, s, p, half, seat, hint, mask, actions, scratch
            )
            for k in range(min(n_legal, features.shape[1])):
                features[row, k] = scratch[k]
            count, best, done = pimc.search_values(
                m, s, worlds, endgame if kind == S.CARD else 0, p, half, rng, ws, means
            )
            action = ws.candidates[best]
            if done > 0:
                pimc.spread_values(mask, count, ws.candidates, means, legal[row], values[row])
                facts[row, 0] = d
                facts[row, 1] = seat
                facts[row, 2] = step
                facts[row, 3] = kind
                facts[row, 4] = action
                facts[row, 5] = done
                facts[row, 6] = hint
                row += 1
            S.apply(m, s, action, p, half)
            step += 1
        store_outcome(s, d, p, outcomes, poignees)
    return row


@njit(cache=True, nogil=True)
def store_outcome(s: Any, d: int, p: Any, outcomes: Any, poignees: Any) -> None:
    """The raw outcome and the poignées of the deal just played (state ``s``) into row ``d``
    of ``outcomes`` and ``poignees``, for :func:`~tarot_analysis.engine.scoring.score_outcomes`
    to score."""
    for column in range(N_OUTCOME):
        outcomes[d, column] = s[S.S_OUT + column]
    for k in range(p[R.PLAYERS]):
        poignees[d, k] = s[S.S_POIGNEES + k]


def lesson_chunk(
    rules: Rules, seed: int, worlds: int, chunk: int, first: int, n: int, learned: bool = False
) -> pa.Table:
    """The rows of deals ``first .. first + n`` of a run (chunk ``chunk``),
    :data:`COMPACT_COLUMNS`: the deals are the toolkit's dealer's for ``(seed, chunk)``, the
    search's draws a stream apart (the heuristic's, for the hints, another). ``learned``: the
    search is ``pimc:learned``, its worlds read and played out by the learned bot shipped for
    the preset."""
    engine = engine_rules(rules)
    root = np.random.SeedSequence(seed, spawn_key=(chunk,))
    masks = deal(rules, n, seed=root, threads=1).masks
    rng = chunk_states(np.random.SeedSequence(seed, spawn_key=(chunk, 1)), 0, 1)[0]
    hint_rng = chunk_states(np.random.SeedSequence(seed, spawn_key=(chunk, 3)), 0, 1)[0]
    searcher, nets = seat_rows([Bot("pimc", worlds=worlds, learned=learned)], rules)
    with held_interrupts():  # the workspace's arrays come back as a structure
        ws = pimc.workspace(engine.params, engine.scoring, searcher, nets)
    ws.bot[:] = searcher[0]
    heuristic = bot_rows(["heuristic"] * rules.players)
    most = n * rows_per_deal(rules)
    size = encoding.encoding_size(rules.players)
    encodings = np.zeros((most, size), dtype=np.float32)
    legal = np.zeros((most, S.N_ACTIONS), dtype=np.bool_)
    values = np.zeros((most, S.N_ACTIONS), dtype=np.float32)
    facts = np.zeros((most, 7), dtype=np.int64)
    outcomes = np.zeros((n, N_OUTCOME), dtype=np.int64)
    poignees = np.zeros((n, rules.players), dtype=np.int64)
    features = np.zeros((most, MAX_LEGAL, action_features.N_ACTION_FEATURES), dtype=np.uint8)
    endgame = pimc.ENDGAME_CARDS // rules.players
    rows = _teach_deals(
        masks, engine.params, engine.half_points, worlds, endgame, heuristic, rng, ws,
        encodings, legal, values, facts, outcomes, poignees, features, hint_rng,
    )  # fmt: skip
    scored = score_outcomes(outcomes, poignees, rules)
    scores = scored[[f"score_{k}" for k in range(rules.players)]].to_numpy(dtype=np.float32)
    rows = int(rows)
    facts = facts[:rows]
    common = {
        "deal": pa.array(first + facts[:, 0], pa.int64()),
        "seat": pa.array(facts[:, 1], pa.int8()),
        "step": pa.array(facts[:, 2], pa.int16()),
        "decision": pa.array(np.asarray(S.DECISIONS)[facts[:, 3]], pa.string()),
    }
    tail = {
        "chosen": pa.array(facts[:, 4], pa.int16()),
        "worlds": pa.array(facts[:, 5], pa.int16()),
        "score": pa.array(scores[facts[:, 0], facts[:, 1]], pa.float32()),
    }
    return pa.table(
        common
        | compact_columns(rules, encodings[:rows], legal[:rows], values[:rows], features[:rows])
        | tail | {"hint": pa.array(facts[:, 6], pa.int16())}
    )  # fmt: skip


def compact_columns(
    rules: Rules,
    encodings: npt.NDArray[np.float32],
    legal: npt.NDArray[np.bool_],
    values: npt.NDArray[np.float32],
    features: npt.NDArray[np.uint8],
) -> dict[str, pa.Array]:
    """The columns of a lesson that say what the seat knew and what each legal action was
    worth, from the encodings and the searched values by action: the encoding's bits and
    fractions (:mod:`tarot_analysis.learning.compact`), the legal actions
    in order, the search's value of each, and their features, a row of
    :data:`~tarot_analysis.engine.action_features.N_ACTION_FEATURES` per legal action."""
    bits, fractions = pack_encodings(encodings, rules.players)
    counts = legal.sum(axis=1)
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    rows, actions = np.nonzero(legal)
    width = action_features.N_ACTION_FEATURES
    slots = np.arange(len(rows)) - offsets[rows]
    flat = features[rows, np.minimum(slots, MAX_LEGAL - 1)].reshape(-1)
    return {
        "state": pa.FixedSizeBinaryArray.from_buffers(
            pa.binary(bits.shape[1]), len(bits), [None, pa.py_buffer(bits.tobytes())]
        ),
        "fractions": _fixed(fractions),
        "actions": pa.ListArray.from_arrays(pa.array(offsets), pa.array(actions, pa.int16())),
        "action_values": pa.ListArray.from_arrays(
            pa.array(offsets), pa.array(values[rows, actions], pa.float32())
        ),
        "features": pa.ListArray.from_arrays(pa.array(offsets * width), pa.array(flat, pa.uint8())),
    }


def _fixed(rows: npt.NDArray[Any]) -> pa.FixedSizeListArray:
    """A 2-d array as a column of fixed-size lists."""
    return pa.FixedSizeListArray.from_arrays(pa.array(rows.reshape(-1)), rows.shape[1])


def teach(
    rules: Rules,
    deals: int,
    folder: str | os.PathLike[str],
    *,
    worlds: int = pimc.DEFAULT_WORLDS,
    seed: int = 1,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    threads: int | None = None,
    progress: bool = False,
    client: Any = None,
    play_outs: str = "heuristic",
) -> RunResult:
    """Play ``deals`` deals of ``rules`` with ``pimc:worlds`` at every seat into ``folder``
    (resuming what is there), one row per searched decision: the columns of
    :data:`COMPACT_COLUMNS`, each legal action with its features. ``play_outs="learned"``:
    the search's worlds read and played out by the learned bot (``pimc:worlds:learned``), so
    that each action is valued as worth it when the learned bot plays the rest."""
    learned = play_outs_learned(play_outs)
    if rules.tarocco is not None:
        raise TarotInputError(
            f"{rules.name}: the search bot's lessons are for the French presets (Tarocco has "
            "no encoding)"
        )
    deals, chunk_size, threads = run_numbers(deals, chunk_size, threads)
    worlds = whole_number(worlds, "worlds", least=1)
    bot = f"pimc:{worlds}:learned" if learned else f"pimc:{worlds}"
    Bot.parse(bot)  # checks the worlds
    spec = RunSpec(
        kind=KIND, rules=rules.name, bots=(bot,) * rules.players, seed=seed, deals=deals,
        chunk_size=chunk_size,
        extra={
            "rules_definition": rules_to_dict(rules), "encoding_version": encoding.ENCODING_VERSION,
            "columns": list(COMPACT_COLUMNS), "stored": "bids, calls, poignées and cards with "
            "more than one legal action; the écart and the chelem are the heuristic's",
            "lesson_format": LESSON_FORMAT, "features_version": action_features.FEATURES_VERSION,
            "max_legal": MAX_LEGAL,
        } | ({"play_outs": "learned"} if learned else {}),
    )  # fmt: skip

    def work(chunk: int, first: int, n: int) -> pa.Table:
        return lesson_chunk(rules, seed, worlds, chunk, first, n, learned)

    return run(
        spec, folder, work, threads=threads, progress=progress, client=client, phase=PLAYING,
        detail=f"{rules.name} lessons from {bot}",
    )  # fmt: skip


def lesson_counts(folder: str | os.PathLike[str]) -> dict[str, int]:
    """The rows of a lessons folder by decision (bid, call, poignee, card), from that column
    alone."""
    decisions = pq.ParquetDataset(folder).read(columns=["decision"]).column("decision")
    counts = pc.value_counts(decisions).to_pylist()
    found = {item["values"]: int(item["counts"]) for item in counts}
    return {name: found[name] for name in S.DECISIONS if name in found}


def read_lessons(folder: str | os.PathLike[str]) -> pa.Table:
    """Every row of a lessons folder, each chunk checked; a folder of another kind of run, or
    of lessons of format 1, is refused in one line."""
    table = read_dataset(folder)
    missing = [name for name in COMPACT_COLUMNS if name not in table.column_names]
    if missing and "encoding" in table.column_names:
        raise flat_lessons(str(folder))
    if missing:
        raise TarotInputError(
            f"{folder} holds no lessons of the search bot (no column {', '.join(missing)})"
        )
    return table
