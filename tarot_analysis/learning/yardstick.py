"""A yardstick of decisions: states of deals played at the table, each valued by a long search.

A bot's choices are cheap to measure against a fixed set of decisions before a duplicate match:
:func:`build_yardstick` plays deals with the table's bots (the heuristic at every seat by
default) and, at every bid, call, poignée and card with more than one legal action, asks the
search bot (``pimc`` with ``worlds`` worlds, 64 by default) what each legal action is worth to
the seat (:func:`tarot_analysis.bots.pimc.search_values`, as the lessons do). The table's own
action is then played, so the states are those the table reaches, not the search's.

Each row keeps what rebuilds its state exactly: the deal's cards and every action from the deal's
start to the decision (``history``). :func:`yardstick_choices` replays the rows and asks any
compiled bot what it would do there; :func:`points_lost` gives, by kind of decision, the points a
decision that bot's choices lose against the search's best action, with a 95% interval in which
deals are the independent units (the decisions of one deal share its cards).

The rows go to a run folder (:mod:`tarot_analysis.runs.runner`): chunks that a stopped run
resumes, the same rows for the same seed whoever computes a chunk.

>>> import tempfile
>>> from tarot_analysis.game.rules import load_rules
>>> folder = tempfile.mkdtemp()
>>> done = build_yardstick(load_rules("fft-4"), 2, folder, worlds=4, seed=5, chunk_size=2)
>>> stick = read_yardstick(folder)
>>> lost = points_lost(stick, yardstick_choices(stick, "heuristic"))
>>> lost["card"]["rows"] > 0 and lost["card"]["mean"] >= 0
True
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import pyarrow as pa
from numba import njit

from tarot_analysis._jit import chunk_states
from tarot_analysis.bots import Bot, bot_rows, door, pimc, seat_rows
from tarot_analysis.deals.deal import deal
from tarot_analysis.engine import action_features, encoding
from tarot_analysis.engine import state as S
from tarot_analysis.engine.params import engine_rules
from tarot_analysis.errors import TarotInputError
from tarot_analysis.game.rules import Rules, load_rules, rules_to_dict
from tarot_analysis.learning.teacher import encode_decision
from tarot_analysis.runs.interrupts import held_interrupts
from tarot_analysis.runs.progress import PLAYING
from tarot_analysis.runs.runner import RunResult, RunSpec, read_dataset, run
from tarot_analysis.stats import deal_interval

__all__ = [
    "DEFAULT_WORLDS",
    "YARDSTICK_COLUMNS",
    "Yardstick",
    "build_yardstick",
    "points_lost",
    "read_yardstick",
    "replay_state",
    "yardstick_choices",
    "yardstick_inputs",
]

#: The kind of run in a folder's definition.
KIND: Final = "yardstick"
#: Worlds the search draws for each decision (more while its two best actions are close).
DEFAULT_WORLDS: Final = 64
#: Deals per chunk: a few minutes of one core's search at 64 worlds for four players.
DEFAULT_CHUNK_SIZE: Final = 25
#: The columns of a row, one row per valued decision.
YARDSTICK_COLUMNS: Final = (
    "deal", "seat", "step", "decision", "legal", "values", "played", "searched", "worlds",
    "cards", "history",
)  # fmt: skip


def _steps_per_deal(rules: Rules) -> int:
    """The most decisions a deal can hold: every card, a bid, a poignée and a chelem per seat,
    the calls and the écart."""
    return rules.players * rules.hand_size + 3 * rules.players + 2 + max(rules.dog_size, 0) + 1


@njit(cache=True, nogil=True)
def _value_deals(
    masks: Any, bots: Any, p: Any, half: Any, worlds: int, endgame: int, table_rng: Any,
    search_rng: Any, table_ws: Any, search_ws: Any, legal: Any, values: Any, facts: Any,
    log: Any,
) -> int:  # fmt: skip
    """Play every deal of ``masks`` with ``bots`` (a row per seat); before each searched
    decision with several legal actions, the search's values into ``legal``, ``values`` (NaN
    for an action not valued) and ``facts`` (deal, seat, step, decision, played, searched,
    worlds); every action of deal ``d`` into ``log[d]``. Returns the rows written."""
    m = np.zeros(S.N_M, dtype=np.uint64)
    s = np.zeros(S.N_S, dtype=np.int64)
    means = np.zeros(S.N_ACTIONS, dtype=np.float64)
    mask = np.zeros(S.N_ACTIONS, dtype=np.bool_)
    no_forced = np.full(4, -1, dtype=np.int64)
    row = 0
    for d in range(masks.shape[0]):
        door.start_deal(m, s, masks[d], no_forced, np.int64(-1), p, half, table_ws)
        step = 0
        while s[S.S_KIND] != S.OVER:
            kind = s[S.S_KIND]
            seat = s[S.S_ACTOR]
            searched = S.is_weighed(kind)
            S.legal_mask(m, s, p, mask)
            count, best, done = 0, 0, 0
            if searched and mask.sum() > 1:
                count, best, done = pimc.search_values(
                    m, s, worlds, endgame if kind == S.CARD else 0, p, half, search_rng,
                    search_ws, means,
                )  # fmt: skip
            action = door.decide(m, s, seat, bots[seat], p, half, table_rng, table_ws)
            if done > 0:
                candidates = search_ws.candidates
                pimc.spread_values(mask, count, candidates, means, legal[row], values[row])
                facts[row, 0] = d
                facts[row, 1] = seat
                facts[row, 2] = step
                facts[row, 3] = kind
                facts[row, 4] = action
                facts[row, 5] = search_ws.candidates[best]
                facts[row, 6] = done
                row += 1
            log[d, step] = action
            S.apply(m, s, action, p, half)
            step += 1
    return row


def yardstick_chunk(
    rules: Rules, bots: tuple[str, ...], seed: int, worlds: int, chunk: int, first: int, n: int
) -> pa.Table:
    """The rows of deals ``first .. first + n`` of a yardstick (chunk ``chunk``): the deals are
    the toolkit's dealer's for ``(seed, chunk)``, the search's draws and the table's a stream
    apart each."""
    engine = engine_rules(rules)
    p, half = engine.params, engine.half_points
    root = np.random.SeedSequence(seed, spawn_key=(chunk,))
    masks = deal(rules, n, seed=root, threads=1).masks
    search_rng = chunk_states(np.random.SeedSequence(seed, spawn_key=(chunk, 1)), 0, 1)[0]
    table_rng = chunk_states(np.random.SeedSequence(seed, spawn_key=(chunk, 2)), 0, 1)[0]
    searcher = bot_rows([Bot("pimc", worlds=worlds)])
    rows, nets = seat_rows(list(bots), rules)
    with held_interrupts():  # the workspaces' arrays come back as structures
        search_ws = pimc.workspace(p, engine.scoring, searcher, np.zeros(0, dtype=np.float32))
        table_ws = door.workspace(p, engine.scoring, rows, nets)
    search_ws.bot[:] = searcher[0]
    steps = _steps_per_deal(rules)
    most = n * steps
    legal = np.zeros((most, S.N_ACTIONS), dtype=np.bool_)
    values = np.zeros((most, S.N_ACTIONS), dtype=np.float32)
    facts = np.zeros((most, 7), dtype=np.int64)
    log = np.full((n, steps), -1, dtype=np.int16)
    endgame = pimc.ENDGAME_CARDS // rules.players
    found = _value_deals(
        masks, rows, p, half, worlds, endgame, table_rng, search_rng, table_ws, search_ws,
        legal, values, facts, log,
    )  # fmt: skip
    count = int(found)
    facts = facts[:count]
    cards = masks.reshape(n, -1)[facts[:, 0]]
    history = [log[d, :step] for d, step in zip(facts[:, 0], facts[:, 2], strict=True)]
    return pa.table(
        {
            "deal": pa.array(first + facts[:, 0], pa.int64()),
            "seat": pa.array(facts[:, 1], pa.int8()),
            "step": pa.array(facts[:, 2], pa.int16()),
            "decision": pa.array(np.asarray(S.DECISIONS)[facts[:, 3]], pa.string()),
            "legal": _fixed(legal[:count]),
            "values": _fixed(values[:count]),
            "played": pa.array(facts[:, 4], pa.int16()),
            "searched": pa.array(facts[:, 5], pa.int16()),
            "worlds": pa.array(facts[:, 6], pa.int16()),
            "cards": _fixed(cards),
            "history": pa.array(history, pa.list_(pa.int16())),
        }
    )


def _fixed(rows: npt.NDArray[Any]) -> pa.FixedSizeListArray:
    """A 2-d array as a column of fixed-size lists."""
    return pa.FixedSizeListArray.from_arrays(pa.array(rows.reshape(-1)), rows.shape[1])


def build_yardstick(
    rules: Rules,
    deals: int,
    folder: str | os.PathLike[str],
    *,
    bots: tuple[str, ...] | None = None,
    worlds: int = DEFAULT_WORLDS,
    seed: int = 1,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    threads: int | None = None,
    progress: bool = False,
    client: Any = None,
) -> RunResult:
    """Play ``deals`` deals of ``rules`` with ``bots`` (one name per seat; the heuristic at
    every seat by default) into ``folder`` (resuming what is there), one row per decision the
    search ``pimc:worlds`` valued (:data:`YARDSTICK_COLUMNS`)."""
    if rules.tarocco is not None:
        raise TarotInputError(f"{rules.name}: a yardstick is for the French presets")
    table = tuple(bots) if bots is not None else ("heuristic",) * rules.players
    if len(table) != rules.players:
        raise TarotInputError(
            f"{rules.name} seats {rules.players} bots, got {len(table)}: {', '.join(table)}"
        )
    names = tuple(Bot.parse(bot).name for bot in table)
    Bot.parse(f"pimc:{worlds}")  # checks the worlds
    spec = RunSpec(
        kind=KIND, rules=rules.name, bots=names, seed=seed, deals=deals, chunk_size=chunk_size,
        extra={
            "rules_definition": rules_to_dict(rules), "searcher": f"pimc:{worlds}",
            "columns": list(YARDSTICK_COLUMNS), "stored": "bids, calls, poignées and cards "
            "with more than one legal action, valued by the search before the table's bot "
            "played",
        },
    )  # fmt: skip

    def work(chunk: int, first: int, n: int) -> pa.Table:
        return yardstick_chunk(rules, names, seed, worlds, chunk, first, n)

    return run(
        spec, folder, work, threads=threads, progress=progress, client=client, phase=PLAYING,
        detail=f"{rules.name} yardstick valued by pimc:{worlds}",
    )  # fmt: skip


@dataclass(frozen=True)
class Yardstick:
    """The decisions of a yardstick as arrays, one row per decision whose legal actions were
    all valued."""

    rules: str  # the preset's name
    players: int
    deals: npt.NDArray[np.int64]
    seats: npt.NDArray[np.int64]
    kinds: npt.NDArray[np.int64]  # the decision, an index of ``state.DECISIONS``
    legal: npt.NDArray[np.bool_]  # (rows, N_ACTIONS)
    values: npt.NDArray[np.float32]  # (rows, N_ACTIONS), NaN where not legal
    played: npt.NDArray[np.int64]  # the table's action
    cards: npt.NDArray[np.uint64]  # (rows, players + 1, 2): the deal
    history: npt.NDArray[np.int16]  # every row's actions, one after another
    history_at: npt.NDArray[np.int64]  # (rows + 1,): where each row's actions start
    bots: tuple[str, ...] = ()  # the table's bots that played the deals
    searcher: str = ""
    skipped: int = 0  # decisions without a value for each legal action

    @property
    def rows(self) -> int:
        """How many decisions."""
        return len(self.kinds)


def read_yardstick(folder: str | os.PathLike[str]) -> Yardstick:
    """The decisions of the yardstick in ``folder``, every chunk checked; a folder of another
    kind of run is refused in one line."""
    # imported here: the runner's definition reader, needed only once a folder is read
    from pathlib import Path

    from tarot_analysis.runs.runner import SPEC_FILE, _read_definition

    source = Path(folder)
    if not (source / SPEC_FILE).exists():
        raise TarotInputError(f"{source}: no {SPEC_FILE}: not the folder of a yardstick")
    definition = _read_definition(source / SPEC_FILE)
    if definition.get("kind") != KIND:
        raise TarotInputError(
            f"{source}: a run of {definition.get('kind')!r}, not a yardstick of decisions"
        )
    table = read_dataset(source)
    extra = definition.get("extra", {})
    return yardstick_from_table(
        table, str(definition.get("rules")), tuple(definition.get("bots", ())),
        str(extra.get("searcher", "")),
    )  # fmt: skip


def _list_column(table: pa.Table, name: str, width: int) -> npt.NDArray[Any]:
    """A fixed-size list column as a ``(rows, width)`` array."""
    flat = table.column(name).combine_chunks().flatten()
    return np.asarray(flat.to_numpy(zero_copy_only=False)).reshape(table.num_rows, width)


def yardstick_from_table(
    table: pa.Table, rules: str, bots: tuple[str, ...] = (), searcher: str = ""
) -> Yardstick:
    """The decisions of a table of :data:`YARDSTICK_COLUMNS` for the preset ``rules``."""
    preset = load_rules(rules)
    legal = _list_column(table, "legal", S.N_ACTIONS).astype(np.bool_)
    values = _list_column(table, "values", S.N_ACTIONS).astype(np.float32)
    valued = ~(legal & ~np.isfinite(values)).any(axis=1) & (legal.sum(axis=1) > 1)
    kinds = np.array([S.DECISIONS.index(name) for name in table.column("decision").to_pylist()])
    history = table.column("history").combine_chunks()
    offsets = np.asarray(history.offsets.to_numpy(), dtype=np.int64)
    flat = np.asarray(history.values.to_numpy(zero_copy_only=False), dtype=np.int16)
    rows = np.nonzero(valued)[0]
    lengths = (offsets[1:] - offsets[:-1])[rows]
    at = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    kept = (
        np.concatenate([flat[offsets[r] : offsets[r + 1]] for r in rows]) if len(rows) else flat[:0]
    )
    cards = _list_column(table, "cards", 2 * (preset.players + 1)).astype(np.uint64)
    return Yardstick(
        rules=preset.name, players=preset.players,
        deals=table.column("deal").to_numpy().astype(np.int64)[rows],
        seats=table.column("seat").to_numpy().astype(np.int64)[rows],
        kinds=kinds[rows].astype(np.int64),
        legal=legal[rows], values=np.where(legal, values, np.nan).astype(np.float32)[rows],
        played=table.column("played").to_numpy().astype(np.int64)[rows],
        cards=np.ascontiguousarray(cards[rows].reshape(len(rows), preset.players + 1, 2)),
        history=np.ascontiguousarray(kept, dtype=np.int16), history_at=at, bots=bots,
        searcher=searcher, skipped=int((~valued).sum()),
    )  # fmt: skip


# --------------------------------------------------------------------------------------------
# A bot's choices on the yardstick
# --------------------------------------------------------------------------------------------


@njit(cache=True)
def replay_into(m: Any, s: Any, cards: Any, history: Any, p: Any, half: Any) -> None:
    """Set ``(m, s)`` to the state after ``history`` (actions from the start of the deal
    ``cards``)."""
    no_forced = np.full(4, -1, dtype=np.int64)
    S.start(m, s, cards, no_forced, np.int64(-1), p, half)
    for k in range(history.shape[0]):
        S.apply(m, s, np.int64(history[k]), p, half)


@njit(cache=True, nogil=True)
def _choices(
    cards: Any, history: Any, history_at: Any, bots: Any, p: Any, half: Any, rng: Any, ws: Any,
    out: Any,
) -> None:  # fmt: skip
    """The action the bot of the seat to act (``bots``, a row per seat) takes at each row's
    state, into ``out``."""
    m = np.zeros(S.N_M, dtype=np.uint64)
    s = np.zeros(S.N_S, dtype=np.int64)
    for row in range(out.shape[0]):
        replay_into(m, s, cards[row], history[history_at[row] : history_at[row + 1]], p, half)
        seat = s[S.S_ACTOR]
        out[row] = door.decide(m, s, seat, bots[seat], p, half, rng, ws)


def replay_state(stick: Yardstick, row: int) -> Any:
    """The game state of decision ``row`` of ``stick`` (a :class:`GameState`)."""
    # imported here: the Python game state, needed only to look at one decision
    from tarot_analysis.engine.game import GameState

    state = GameState.deal(load_rules(stick.rules), seed=0)
    replay_into(
        state.m, state.s, stick.cards[row],
        stick.history[stick.history_at[row] : stick.history_at[row + 1]],
        state.engine.params, state.engine.half_points,
    )  # fmt: skip
    return state


def yardstick_choices(stick: Yardstick, bot: Bot | str, *, seed: int = 0) -> npt.NDArray[np.int64]:
    """The action ``bot`` takes at each decision of ``stick`` (its own random draws from
    ``seed``)."""
    rules = load_rules(stick.rules)
    engine = engine_rules(rules)
    rows, nets = seat_rows([bot] * rules.players, rules)
    with held_interrupts():  # the workspace's arrays come back as a structure
        ws = door.workspace(engine.params, engine.scoring, rows, nets)
    rng = chunk_states(np.random.SeedSequence(seed), 0, 1)[0]
    out = np.zeros(stick.rows, dtype=np.int64)
    _choices(
        stick.cards, stick.history, stick.history_at, rows, engine.params, engine.half_points,
        rng, ws, out,
    )  # fmt: skip
    return out


def points_lost(stick: Yardstick, choices: npt.NDArray[np.int64]) -> dict[str, dict[str, Any]]:
    """By kind of decision (and ``"all"``), the points a decision ``choices`` lose against the
    search's best action, by the search's values: ``rows``, ``deals``, ``mean``, ``ci_low``,
    ``ci_high`` (95%, deals as the independent units) and ``best_rate`` (how often the choice
    is worth the best value)."""
    choices = np.asarray(choices, dtype=np.int64)
    if choices.shape != (stick.rows,):
        raise TarotInputError(f"{len(choices)} choices for a yardstick of {stick.rows} decisions")
    if not stick.legal[np.arange(stick.rows), choices].all():
        raise TarotInputError("a choice is not a legal action of its decision")
    best = np.where(stick.legal, stick.values, -np.inf).max(axis=1)
    lost = (best - stick.values[np.arange(stick.rows), choices]).astype(np.float64)
    result = {}
    for name in (*S.DECISIONS, "all"):
        rows = np.nonzero(stick.kinds == S.DECISIONS.index(name))[0] if name != "all" else None
        if rows is None:
            rows = np.arange(stick.rows)
        if len(rows) == 0:
            continue
        part = deal_interval(lost[rows], stick.deals[rows])
        part = {k: (float(v) if isinstance(v, np.floating) else v) for k, v in part.items()}
        result[name] = {"rows": len(rows), **part, "best_rate": float((lost[rows] <= 1e-9).mean())}
    return result


@njit(cache=True, nogil=True)
def _inputs(
    cards: Any, history: Any, history_at: Any, heuristic: Any, p: Any, half: Any, rng: Any,
    encodings: Any, features: Any, actions: Any,
) -> None:  # fmt: skip
    """Each row's encoding for the seat to act into ``encodings``, its legal actions' features
    (the heuristic's action as the hint) into ``features`` and those actions into ``actions``
    (−1 past them)."""
    m = np.zeros(S.N_M, dtype=np.uint64)
    s = np.zeros(S.N_S, dtype=np.int64)
    plan = np.zeros(2, dtype=np.uint64)
    mask = np.zeros(S.N_ACTIONS, dtype=np.bool_)
    scratch = np.zeros((S.N_ACTIONS, action_features.N_ACTION_FEATURES), dtype=np.uint8)
    legal = np.zeros(S.N_ACTIONS, dtype=np.int64)
    for row in range(encodings.shape[0]):
        replay_into(m, s, cards[row], history[history_at[row] : history_at[row + 1]], p, half)
        seat = s[S.S_ACTOR]
        _, count = encode_decision(
            m, s, p, half, seat, heuristic[seat], rng, plan, mask, legal, scratch,
            encodings[row], features[row],
        )  # fmt: skip
        for k in range(min(count, features.shape[1])):
            actions[row, k] = legal[k]


def yardstick_inputs(
    stick: Yardstick, max_legal: int = 24
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.uint8], npt.NDArray[np.int64]]:
    """What a network reads at each decision of ``stick``: the encodings ``(rows, length)``,
    the legal actions' features ``(rows, max_legal, N_ACTION_FEATURES)`` and the actions
    ``(rows, max_legal)``, −1 past the legal ones."""
    rules = load_rules(stick.rules)
    engine = engine_rules(rules)
    heuristic = bot_rows(["heuristic"] * rules.players)
    rng = chunk_states(np.random.SeedSequence(0), 0, 1)[0]
    encodings = np.zeros((stick.rows, encoding.encoding_size(rules.players)), dtype=np.float32)
    features = np.zeros((stick.rows, max_legal, action_features.N_ACTION_FEATURES), np.uint8)
    actions = np.full((stick.rows, max_legal), -1, dtype=np.int64)
    _inputs(
        stick.cards, stick.history, stick.history_at, heuristic, engine.params,
        engine.half_points, rng, encodings, features, actions,
    )  # fmt: skip
    return encodings, features, actions
