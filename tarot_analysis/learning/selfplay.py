"""Lessons from a bot's own play: deals played by a bot against itself, each decision labelled
with the seat's score for the whole deal (Deep Monte-Carlo).

A network that scores each legal action can improve on its own play without a search: it plays
whole deals against itself, now and then taking a legal action at random (``epsilon``, so that
it also sees what its other actions lead to), and each decision's target is the deciding seat's
final score. Trained on those targets, its score of an action becomes the mean score that
follows it under the bot's own play; playing the best of them again, and training again, is a
round of improvement (:mod:`tarot_analysis.learning.rounds`).

:func:`self_play` writes the lessons in the compact format of
:mod:`tarot_analysis.learning.teacher` (format 2): the seat's encoding as bits, its legal
actions with each one's features, the action taken. ``action_values`` holds the seat's score
for the action taken and is empty (NaN) for the others; the streaming trainer
(:mod:`tarot_analysis.learning.streaming`) fits the taken action's score alone on such rows.
Bids, calls, poignées and cards with more than one legal action are stored; the écart and the
chelem are the heuristic's, as the learned bot's own are.

The rows go to a run folder (:mod:`tarot_analysis.runs.runner`): chunks that a stopped run
resumes, the same rows for the same seed and model whoever computes a chunk.

>>> import tempfile
>>> from tarot_analysis.game.rules import load_rules
>>> folder = tempfile.mkdtemp()
>>> done = self_play(load_rules("fft-4"), 2, folder, bot="heuristic", seed=1, chunk_size=2)
>>> from tarot_analysis.learning.streaming import stream_decisions
>>> batch = next(stream_decisions(folder, 4))
>>> bool((batch.labelled.sum(axis=1) == 1).all())
True
"""

from __future__ import annotations

import os
from typing import Any, Final

import numpy as np
import pyarrow as pa
from numba import njit

from tarot_analysis._jit import chunk_states, draw_below, draw_unit
from tarot_analysis.bots import B_KIND, B_LEARNS, LEARNED, Bot, bot_rows, door, seat_rows
from tarot_analysis.deals.deal import deal
from tarot_analysis.engine import action_features, encoding
from tarot_analysis.engine import state as S
from tarot_analysis.engine.outcome import N_OUTCOME
from tarot_analysis.engine.params import engine_rules
from tarot_analysis.engine.scoring import score_outcomes
from tarot_analysis.errors import TarotInputError, run_numbers
from tarot_analysis.game.rules import Rules, rules_to_dict
from tarot_analysis.learning.compact import MAX_LEGAL
from tarot_analysis.learning.teacher import (
    COMPACT_COLUMNS,
    KIND,
    compact_columns,
    model_digest,
    rows_per_deal,
    store_outcome,
)
from tarot_analysis.runs.interrupts import held_interrupts
from tarot_analysis.runs.progress import PLAYING
from tarot_analysis.runs.runner import RunResult, RunSpec, run

__all__ = ["DEFAULT_EPSILON", "LABELS", "self_play", "self_play_chunk"]

#: How often a decision is taken at random among the legal actions, by default.
DEFAULT_EPSILON: Final = 0.02
#: Deals per chunk by default: a few seconds of one core for four players.
DEFAULT_CHUNK_SIZE: Final = 5000
#: What the values of a self-play run are, in its definition.
LABELS: Final = "self-play"


@njit(cache=True, nogil=True)
def _self_play_deals(
    masks: Any,
    p: Any,
    half: Any,
    bots: Any,
    heuristic: Any,
    epsilon: float,
    rng: Any,
    explore_rng: Any,
    hint_rng: Any,
    ws: Any,
    encodings: Any,
    legal: Any,
    facts: Any,
    outcomes: Any,
    poignees: Any,
    features: Any,
) -> int:
    """Play every deal of ``masks`` with ``bots`` (a row per seat, learned or rule bots;
    ``ws`` their workspace), each bid, call, poignée and card with several legal actions taken
    at random among them with probability ``epsilon`` (draws from ``explore_rng``); one row
    per such decision into ``encodings``, ``legal``, ``features`` (the heuristic's action as
    the hint, its draws from ``hint_rng``) and ``facts`` (deal, seat, step, decision, action
    taken, the heuristic's action); each deal's raw outcome and poignées into ``outcomes`` and
    ``poignees``. Returns the rows written."""
    m = np.zeros(S.N_M, dtype=np.uint64)
    s = np.zeros(S.N_S, dtype=np.int64)
    mask = np.zeros(S.N_ACTIONS, dtype=np.bool_)
    no_forced = np.full(4, -1, dtype=np.int64)
    hint_plan = np.zeros(2, dtype=np.uint64)
    scratch = np.zeros((S.N_ACTIONS, action_features.N_ACTION_FEATURES), dtype=np.uint8)
    actions = np.zeros(S.N_ACTIONS, dtype=np.int64)
    row = 0
    for d in range(masks.shape[0]):
        door.start_deal(m, s, masks[d], no_forced, np.int64(-1), p, half, ws)
        step = 0
        while s[S.S_KIND] != S.OVER:
            kind = s[S.S_KIND]
            seat = s[S.S_ACTOR]
            stored = S.is_weighed(kind)
            count = 0
            hint = -1
            if stored:
                hint = door.decide_rules(m, s, seat, heuristic[seat], p, hint_rng, hint_plan)
                count = action_features.action_features_into(
                    m, s, p, half, seat, hint, mask, actions, scratch
                )
            bot = bots[seat]
            if bot[B_KIND] == LEARNED and bot[B_LEARNS] >> kind & 1:
                action = door.network_action(m, s, seat, bot, p, half, rng, ws)
            else:  # a rule bot, or the heuristic where the network does not decide
                action = door.decide_rules(m, s, seat, bot, p, rng, ws.plan)
            if count > 1:
                if draw_unit(explore_rng) < epsilon:
                    action = actions[draw_below(explore_rng, count)]
                encoding.encode_into(m, s, p, half, seat, encodings[row])
                for k in range(S.N_ACTIONS):
                    legal[row, k] = mask[k]
                for k in range(min(count, features.shape[1])):
                    features[row, k] = scratch[k]
                facts[row, 0], facts[row, 1], facts[row, 2] = d, seat, step
                facts[row, 3], facts[row, 4], facts[row, 5] = kind, action, hint
                row += 1
            S.apply(m, s, action, p, half)
            step += 1
        store_outcome(s, d, p, outcomes, poignees)
    return row


def self_play_chunk(
    rules: Rules, seed: int, rows: Any, nets: Any, epsilon: float, chunk: int, first: int, n: int
) -> pa.Table:
    """The rows of deals ``first .. first + n`` of a self-play run (chunk ``chunk``) played by
    the table ``rows``, ``nets`` (:func:`tarot_analysis.bots.seat_rows`): the deals are the
    toolkit's dealer's for ``(seat, chunk)``; the bots', the exploration's and the hints' draws
    three streams apart."""
    engine = engine_rules(rules)
    root = np.random.SeedSequence(seed, spawn_key=(chunk,))
    masks = deal(rules, n, seed=root, threads=1).masks
    rng, explore_rng, hint_rng = (
        chunk_states(np.random.SeedSequence(seed, spawn_key=(chunk, k)), 0, 1)[0] for k in (1, 2, 3)
    )
    with held_interrupts():  # the workspace's arrays come back as a structure
        ws = door.workspace(engine.params, engine.scoring, rows, nets)
    heuristic = bot_rows(["heuristic"] * rules.players)
    most = n * rows_per_deal(rules)
    encodings = np.zeros((most, encoding.encoding_size(rules.players)), dtype=np.float32)
    legal = np.zeros((most, S.N_ACTIONS), dtype=np.bool_)
    facts = np.zeros((most, 6), dtype=np.int64)
    outcomes = np.zeros((n, N_OUTCOME), dtype=np.int64)
    poignees = np.zeros((n, rules.players), dtype=np.int64)
    features = np.zeros((most, MAX_LEGAL, action_features.N_ACTION_FEATURES), dtype=np.uint8)
    written = _self_play_deals(
        masks, engine.params, engine.half_points, rows, heuristic, float(epsilon), rng,
        explore_rng, hint_rng, ws, encodings, legal, facts, outcomes, poignees, features,
    )  # fmt: skip
    written = int(written)
    facts = facts[:written]
    scored = score_outcomes(outcomes, poignees, rules)
    scores = scored[[f"score_{k}" for k in range(rules.players)]].to_numpy(dtype=np.float32)
    redealt = scored["redeal"].to_numpy()
    score = np.where(redealt[facts[:, 0]], 0.0, scores[facts[:, 0], facts[:, 1]])
    values = np.full((written, S.N_ACTIONS), np.nan, dtype=np.float32)
    values[np.arange(written), facts[:, 4]] = score
    columns = {
        "deal": pa.array(first + facts[:, 0], pa.int64()),
        "seat": pa.array(facts[:, 1], pa.int8()),
        "step": pa.array(facts[:, 2], pa.int16()),
        "decision": pa.array(np.asarray(S.DECISIONS)[facts[:, 3]], pa.string()),
    } | compact_columns(rules, encodings[:written], legal[:written], values, features[:written]) | {
        "chosen": pa.array(facts[:, 4], pa.int16()),
        "worlds": pa.array(np.zeros(written, dtype=np.int16), pa.int16()),
        "score": pa.array(score, pa.float32()),
        "hint": pa.array(facts[:, 5], pa.int16()),
    }  # fmt: skip
    return pa.table({name: columns[name] for name in COMPACT_COLUMNS})


def self_play(
    rules: Rules,
    deals: int,
    folder: str | os.PathLike[str],
    *,
    bot: str = "learned",
    epsilon: float = DEFAULT_EPSILON,
    seed: int = 1,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    threads: int | None = None,
    progress: bool = False,
    client: Any = None,
) -> RunResult:
    """Play ``deals`` deals of ``rules`` with ``bot`` at every seat into ``folder`` (resuming
    what is there), exploring with probability ``epsilon``: one row per bid, call, poignée and
    card with more than one legal action, labelled with the seat's score for the deal."""
    if rules.tarocco is not None:
        raise TarotInputError(f"{rules.name}: self-play lessons are for the French presets")
    if not 0 <= epsilon <= 1:
        raise TarotInputError(f"epsilon is a probability from 0 to 1, got {epsilon}")
    deals, chunk_size, threads = run_numbers(deals, chunk_size, threads)
    parsed = Bot.parse(bot)
    if parsed.kind == "pimc" or parsed.learned:
        raise TarotInputError(
            f"self-play is played by the learned bot or a rule bot, not {bot}: the search's "
            "lessons are teach's"
        )
    rows, nets = seat_rows([parsed] * rules.players, rules)
    network = {"model": model_digest(parsed.model)} if parsed.model else {}
    spec = RunSpec(
        kind=KIND, rules=rules.name, bots=(bot,) * rules.players, seed=seed, deals=deals,
        chunk_size=chunk_size,
        extra={
            "rules_definition": rules_to_dict(rules), "encoding_version": encoding.ENCODING_VERSION,
            "columns": list(COMPACT_COLUMNS), "lesson_format": 2, "labels": LABELS,
            "epsilon": float(epsilon), "features_version": action_features.FEATURES_VERSION,
            "max_legal": MAX_LEGAL, "stored": "bids, calls, poignées and cards with more than "
            "one legal action, each valued by the seat's score for the deal",
        } | network,
    )  # fmt: skip

    def work(chunk: int, first: int, n: int) -> pa.Table:
        return self_play_chunk(rules, seed, rows, nets, epsilon, chunk, first, n)

    return run(
        spec, folder, work, threads=threads, progress=progress, client=client, phase=PLAYING,
        detail=f"{rules.name} self-play of {bot}",
    )  # fmt: skip
