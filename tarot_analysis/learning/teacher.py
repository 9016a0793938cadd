"""Lessons from the search bot: deals played by ``pimc``, and what it measured at each decision.

A learned bot is trained to choose as the search bot does, and to know by how much one choice
beats another. :func:`teach` plays deals with ``pimc`` at every seat and stores one row per
decision it searched (bids, calls, poignées and cards with more than one legal action): what
the seat knew, as the encoding of :mod:`tarot_analysis.engine.encoding`; the legal actions; the
seat's mean score for each of them over the worlds the search drew; the action taken; and the
seat's score for the whole deal. The écart and the chelem are the heuristic's, as in ``pimc``
itself, and are not stored. With :class:`OwnPlay`, another bot plays the deals (the learned
bot, say, exploring, with other bots at one seat a deal) and the search values a share of its
decisions: lessons on the states that bot's own play reaches.

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

import hashlib
import os
from dataclasses import dataclass, replace
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from numba import njit

from tarot_analysis._jit import chunk_states, draw_below, draw_unit
from tarot_analysis.bots import (
    B_KIND,
    B_SHIFT_0,
    LEARNED,
    N_BID_SHIFTS,
    Bot,
    bot_rows,
    door,
    margin,
    pimc,
    play_outs_learned,
    seat_rows,
)
from tarot_analysis.bots.learned import read_model_arrays
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
from tarot_analysis.runs.progress import PLAYING
from tarot_analysis.runs.runner import RunResult, RunSpec, read_dataset, run

__all__ = [
    "COMPACT_COLUMNS",
    "DEFAULT_CHUNK_SIZE",
    "KIND",
    "LESSON_FORMAT",
    "OwnPlay",
    "compact_columns",
    "encode_decision",
    "lesson_counts",
    "model_digest",
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


#: Where a deal's seat is played by the search itself (:func:`_teach_deals`'s ``seating``).
SEARCH_PLAYS: Final = -1


@njit(cache=True, nogil=True)
def _teach_deals(
    masks: Any,
    seating: Any,
    table: Any,
    p: Any,
    half: Any,
    worlds: int,
    endgame: int,
    heuristic: Any,
    epsilon: float,
    label_share: float,
    seated: bool,
    rng: Any,
    play_rng: Any,
    explore_rng: Any,
    label_rng: Any,
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
    """Play every deal of ``masks``, seat ``k`` of deal ``d`` by ``table[seating[d, k]]`` (a
    learned or rule bot, its draws from ``play_rng``) or, where ``seating`` is
    :data:`SEARCH_PLAYS`, by the search itself (``ws.pimc``, its bot in ``ws.pimc.bot``, its
    draws from ``rng``), which then values and takes each of that seat's decisions. At the seats
    of ``table[0]``, each decision with several legal actions is valued by the search with
    probability ``label_share`` (:func:`_to_value`, draws from ``label_rng``) and taken at
    random among the legal actions with probability ``epsilon`` (draws from ``explore_rng``);
    the other bots' decisions are played and not valued; with ``seated``, the search's worlds
    are played out with the heuristic at the rule bots' seats (:func:`_seat_worlds`). One row
    per valued decision into ``encodings``, ``legal``, ``values`` (NaN for an illegal action),
    ``facts`` (deal, seat, step, decision, the action taken, worlds, the heuristic's action)
    and ``features`` (each legal action's features,
    :mod:`tarot_analysis.engine.action_features`, the heuristic's action as the hint, its draws
    from ``hint_rng``); each deal's raw outcome and poignées into ``outcomes`` and
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
        door.start_deal(m, s, masks[d], no_forced, np.int64(-1), p, half, ws)
        _seat_worlds(seating[d], table, seated, ws.pimc)
        step = 0
        while s[S.S_KIND] != S.OVER:
            kind = s[S.S_KIND]
            seat = s[S.S_ACTOR]
            who = seating[d, seat]
            searching = who == SEARCH_PLAYS
            valued = searching
            n_legal = 0
            if S.is_weighed(kind) and not searching:
                S.legal_mask(m, s, p, mask)
                for k in range(S.N_ACTIONS):
                    n_legal += mask[k]
                valued = _to_value(s, seat, who, n_legal, table[0], label_rng, label_share)
            if not S.is_weighed(kind) and searching:
                action = door.decide_rules(m, s, seat, heuristic[seat], p, rng, plan)
                S.apply(m, s, action, p, half)
                step += 1
                continue
            action = -1
            done = 0
            if valued:
                hint, _ = encode_decision(
                    m, s, p, half, seat, heuristic[seat], hint_rng, hint_plan, mask, actions,
                    scratch, encodings[row], features[row],
                )  # fmt: skip
                count, best, done = pimc.search_values(
                    m, s, worlds, endgame if kind == S.CARD else 0, p, half, rng, ws.pimc, means
                )
                if searching:
                    action = ws.pimc.candidates[best]
                if done > 0:
                    candidates = ws.pimc.candidates
                    pimc.spread_values(mask, count, candidates, means, legal[row], values[row])
                    facts[row, 5], facts[row, 6] = done, hint
            if not searching:
                action = door.decide_without_search(m, s, seat, table[who], p, half, play_rng, ws)
                if who == 0 and n_legal > 1 and draw_unit(explore_rng) < epsilon:
                    action = _legal_at(mask, draw_below(explore_rng, n_legal))
            if valued and done > 0:
                facts[row, 0], facts[row, 1], facts[row, 2] = d, seat, step
                facts[row, 3], facts[row, 4] = kind, action
                row += 1
            S.apply(m, s, action, p, half)
            step += 1
        store_outcome(s, d, p, outcomes, poignees)
    return row


@njit(cache=True, nogil=True)
def _to_value(
    s: Any, seat: int, who: int, n_legal: int, bot: Any, label_rng: Any, label_share: float
) -> bool:
    """Whether the search values the decision of ``seat``, played by bot ``who`` of the table
    (``bot``: the row of bot 0, the one the lessons teach): a decision of bot 0 with several
    legal actions, with probability ``label_share`` (a draw from ``label_rng`` each), and not
    one the heuristic takes for it whatever its network says (a defender's card under a
    defence margin that none passes, :func:`tarot_analysis.bots.margin.needed`), which would
    teach it nothing."""
    valued = who == 0 and n_legal > 1 and draw_unit(label_rng) < label_share
    return valued and margin.needed(s, seat, bot) < margin.NEVER


@njit(cache=True, nogil=True)
def _seat_worlds(seats: Any, table: Any, seated: bool, ws: Any) -> None:
    """Who plays each seat in the worlds of the search ``ws`` over a deal whose seats are
    ``table[seats[k]]`` (or the search's, :data:`SEARCH_PLAYS`): with ``seated``, the heuristic
    with its bid shifts where a rule bot sits, the search's own bot (its network, for learned
    play-outs) elsewhere; otherwise the search's own bot at every seat."""
    for k in range(seats.shape[0]):
        who = seats[k]
        ruled = seated and who != SEARCH_PLAYS and table[who, B_KIND] != LEARNED
        ws.ruled[k] = ruled
        for j in range(N_BID_SHIFTS):
            ws.shifts[k, j] = table[who, B_SHIFT_0 + j] if ruled else 0


@njit(cache=True, nogil=True)
def encode_decision(
    m: Any, s: Any, p: Any, half: Any, seat: int, heuristic: Any, rng: Any, plan: Any,
    mask: Any, actions: Any, scratch: Any, encoding_out: Any, features_out: Any,
) -> tuple[int, int]:  # fmt: skip
    """What ``seat``, the seat to act at ``(m, s)``, knows into ``encoding_out``
    (:mod:`tarot_analysis.engine.encoding`), and each legal action's features into the rows of
    ``features_out`` (as many as it holds; :mod:`tarot_analysis.engine.action_features`), the
    action of the heuristic ``heuristic`` (its row; its draws from ``rng`` and ``plan``) as
    their hint; the legal actions into ``mask`` and, in order, ``actions``, ``scratch`` the
    features of them all. Returns the hint and how many legal actions there are."""
    encoding.encode_into(m, s, p, half, seat, encoding_out)
    hint = door.decide_rules(m, s, seat, heuristic, p, rng, plan)
    count = action_features.action_features_into(m, s, p, half, seat, hint, mask, actions, scratch)
    for k in range(min(count, features_out.shape[0])):
        features_out[k] = scratch[k]
    return hint, count


@njit(cache=True, nogil=True)
def _legal_at(mask: Any, k: int) -> int:
    """The ``k``-th legal action of ``mask`` (from 0), in increasing order."""
    for action in range(mask.shape[0]):
        if mask[action]:
            if k == 0:
                return action
            k -= 1
    return -1


@njit(cache=True, nogil=True)
def store_outcome(s: Any, d: int, p: Any, outcomes: Any, poignees: Any) -> None:
    """The raw outcome and the poignées of the deal just played (state ``s``) into row ``d``
    of ``outcomes`` and ``poignees``, for :func:`~tarot_analysis.engine.scoring.score_outcomes`
    to score."""
    for column in range(N_OUTCOME):
        outcomes[d, column] = s[S.S_OUT + column]
    for k in range(p[R.PLAYERS]):
        poignees[d, k] = s[S.S_POIGNEES + k]


@dataclass(frozen=True)
class OwnPlay:
    """Lessons on the states a bot's own play reaches, rather than the search's: ``bot`` (a
    learned or rule bot) plays every seat but ``seats`` of them, which are played, deal after
    deal, by each of ``others`` in turn (the seats moving round the table each deal; ``bot``
    itself among them gives deals of its own play alone). At ``bot``'s seats, each decision with
    several legal actions is taken at random with probability ``epsilon`` and valued by the
    search with probability ``label_share``; the other bots' decisions are played, not valued.
    ``seats``: how many seats, from ``deal % players`` on, the other bot of a deal takes (from 1
    to the players less one). ``seated``: the search's worlds are played out by the bot at each
    seat, the heuristic where a rule bot sits (a learned bot's seat by the search's own
    network), not by the search's own bot everywhere.

    >>> OwnPlay("learned", ("heuristic:-4", "learned")).seating(3, first=0, n=4).tolist()
    [[1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0, 0]]
    >>> OwnPlay("learned", ("heuristic",), seats=2).seating(3, first=0, n=3).tolist()
    [[1, 1, 0], [0, 1, 1], [1, 0, 1]]
    """

    bot: str = "learned"
    others: tuple[str, ...] = ()
    epsilon: float = 0.0
    label_share: float = 1.0
    seats: int = 1
    seated: bool = True

    def check(self, players: int) -> None:
        """Refuse, in one line, a bot that cannot drive the play, shares out of range, or more
        seats for the other bots than a table of ``players`` has beside ``bot``."""
        for name in (self.bot, *self.others):
            if Bot.parse(name).kind == "pimc":
                raise TarotInputError(
                    f"{name}: lessons on a bot's own play are played by learned or rule bots; "
                    "the search's own play is teach's without them"
                )
        for what, share in (
            ("epsilon", self.epsilon),
            ("the share of decisions valued", self.label_share),
        ):
            if not 0 <= share <= 1:
                raise TarotInputError(f"{what} is a probability from 0 to 1, got {share}")
        if self.label_share == 0:
            raise TarotInputError("the share of decisions valued is 0: no lesson would be written")
        if not 1 <= self.seats < players:
            raise TarotInputError(
                f"the other bots take 1 to {players - 1} seats a deal at {players} players, "
                f"got {self.seats}"
            )

    @property
    def bots(self) -> tuple[str, ...]:
        """The table's bots, ``bot`` first, each once."""
        return tuple(dict.fromkeys((self.bot, *self.others)))

    def seating(self, players: int, first: int, n: int) -> npt.NDArray[np.int64]:
        """Which of :attr:`bots` plays each seat of deals ``first .. first + n``: ``bot``
        everywhere but the :attr:`seats` seats from ``deal % players`` on, which are
        ``others[(deal // players) % len(others)]``'s."""
        seating = np.zeros((n, players), dtype=np.int64)
        if self.others:
            index = {name: k for k, name in enumerate(self.bots)}
            deals = np.arange(first, first + n)
            other = np.array([index[name] for name in self.others])
            for j in range(self.seats):
                seating[np.arange(n), (deals + j) % players] = other[
                    (deals // players) % len(other)
                ]
        return seating


def lesson_chunk(
    rules: Rules,
    seed: int,
    worlds: int,
    chunk: int,
    first: int,
    n: int,
    learned: bool = False,
    own: OwnPlay | None = None,
    model: str = "",
    weighed: bool = False,
) -> pa.Table:
    """The rows of deals ``first .. first + n`` of a run (chunk ``chunk``),
    :data:`COMPACT_COLUMNS`: the deals are the toolkit's dealer's for ``(seed, chunk)``, the
    search's draws a stream apart (the heuristic's, for the hints, another). ``learned``: the
    search is ``pimc:learned``, its worlds read and played out by the learned bot in ``model``
    (the one shipped for the preset when empty); ``weighed``, also its worlds weighed by the
    cards the other seats played (``pimc:weighed``). ``own``: the deals are played by its bots
    (:class:`OwnPlay`), their draws, the exploration's and the sampling's three streams more;
    otherwise by the search at every seat."""
    engine = engine_rules(rules)
    root = np.random.SeedSequence(seed, spawn_key=(chunk,))
    masks = deal(rules, n, seed=root, threads=1).masks
    rng = chunk_states(np.random.SeedSequence(seed, spawn_key=(chunk, 1)), 0, 1)[0]
    hint_rng = chunk_states(np.random.SeedSequence(seed, spawn_key=(chunk, 3)), 0, 1)[0]
    play_rng, explore_rng, label_rng = (
        chunk_states(np.random.SeedSequence(seed, spawn_key=(chunk, k)), 0, 1)[0] for k in (4, 5, 6)
    )
    searcher = Bot(
        "pimc", worlds=worlds, learned=learned, weighed=learned and weighed,
        model=model if learned else "",
    )  # fmt: skip
    drivers = list(own.bots) if own else []
    table, nets = seat_rows([*drivers, searcher], rules)
    ws = door.workspace(engine.params, engine.scoring, table, nets)
    ws.pimc.bot[:] = table[-1]
    if own:
        seating = own.seating(rules.players, first, n)
    else:
        seating = np.full((n, rules.players), SEARCH_PLAYS, dtype=np.int64)
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
    epsilon, label_share, seated = (
        (own.epsilon, own.label_share, own.seated) if own else (0.0, 1.0, False)
    )
    rows = _teach_deals(
        masks, seating, table[:-1], engine.params, engine.half_points, worlds, endgame, heuristic,
        float(epsilon), float(label_share), seated, rng, play_rng, explore_rng, label_rng, ws,
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
    own: OwnPlay | None = None,
    model: str | os.PathLike[str] | None = None,
) -> RunResult:
    """Play ``deals`` deals of ``rules`` into ``folder`` (resuming what is there), one row per
    decision the search ``pimc:worlds`` valued: the columns of :data:`COMPACT_COLUMNS`, each
    legal action with its features. The search plays every seat, or, with ``own``, the bots of
    :class:`OwnPlay` play and the search values a share of its bot's decisions.
    ``play_outs="learned"``: the search's worlds read and played out by the learned bot
    (``pimc:worlds:learned``; ``"weighed"``, ``pimc:worlds:weighed``, the worlds also weighed
    by the cards the other seats played), so that each action is valued as worth it when the
    learned bot
    plays the rest; ``model``, that bot's network (the one shipped for the preset by default),
    also the network of ``learned`` among ``own``'s bots."""
    weighed = play_outs == "weighed"
    learned = weighed or play_outs_learned(play_outs)
    if rules.tarocco is not None:
        raise TarotInputError(
            f"{rules.name}: the search bot's lessons are for the French presets (Tarocco has "
            "no encoding)"
        )
    deals, chunk_size, threads = run_numbers(deals, chunk_size, threads)
    worlds = whole_number(worlds, "worlds", least=1)
    network = str(model) if model else ""
    if network and not learned:
        raise TarotInputError(
            "a model plays the search's worlds out only with the learned play-outs "
            "(--play-outs learned)"
        )
    if own is not None:
        own.check(rules.players)
        if network:  # "learned" among the table's bots is the same network
            own = replace(
                own, bot=_with_model(own.bot, network),
                others=tuple(_with_model(name, network) for name in own.others),
            )  # fmt: skip
    bot = f"pimc:{worlds}:{play_outs}" if learned else f"pimc:{worlds}"
    bot += f":{network}" if network else ""
    Bot.parse(bot)  # checks the worlds
    seat_rows([*(own.bots if own else ()), bot], rules)  # every network read and checked
    digests = {
        name: model_digest(Bot.parse(name).model)
        for name in {bot, *(own.bots if own else ())} if Bot.parse(name).model
    }  # fmt: skip
    played = {
        "own_play": {
            "bot": own.bot, "others": list(own.others), "epsilon": float(own.epsilon),
            "label_share": float(own.label_share),
            "seating": "the bot at every seat but seats deal % players on, the others' in "
            "turn", "seats": own.seats,
            "worlds_played_by": "the bot at each seat" if own.seated else "the search's bot",
        }
    } if own else {}  # fmt: skip
    spec = RunSpec(
        kind=KIND, rules=rules.name, bots=(*own.bots, bot) if own else (bot,) * rules.players,
        seed=seed, deals=deals, chunk_size=chunk_size,
        extra={
            "rules_definition": rules_to_dict(rules), "encoding_version": encoding.ENCODING_VERSION,
            "columns": list(COMPACT_COLUMNS), "stored": "bids, calls, poignées and cards with "
            "more than one legal action; the écart and the chelem are the heuristic's",
            "lesson_format": LESSON_FORMAT, "features_version": action_features.FEATURES_VERSION,
            "max_legal": MAX_LEGAL,
        } | ({"play_outs": play_outs} if learned else {}) | played
        | ({"models": digests} if digests else {}),
    )  # fmt: skip

    def work(chunk: int, first: int, n: int) -> pa.Table:
        return lesson_chunk(rules, seed, worlds, chunk, first, n, learned, own, network, weighed)

    detail = f"{rules.name} lessons from {bot}" + (f" on {own.bot}'s play" if own else "")
    return run(
        spec, folder, work, threads=threads, progress=progress, client=client, phase=PLAYING,
        detail=detail,
    )  # fmt: skip


def _with_model(name: str, model: str) -> str:
    """``name``, with ``model`` as its network when it is the shipped learned bot."""
    return f"learned:{model}" if name == "learned" else name


def model_digest(path: str | os.PathLike[str]) -> str:
    """The first 16 hex digits of the SHA-256 of a model file's weights (its arrays by name, its
    metadata left out): what a run's definition keeps of the network that played it, so that
    another network's run is not resumed in its folder, and the same weights written again are
    the same network."""
    digest = hashlib.sha256()
    _, arrays = read_model_arrays(path)
    for name in sorted(arrays):
        digest.update(name.encode())
        digest.update(np.ascontiguousarray(arrays[name]).tobytes())
    return digest.hexdigest()[:16]


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
