"""Playing deals to the end from Python: the engine's kernel run chunk by chunk.

>>> from tarot_analysis.rules import load_rules
>>> result = play(load_rules("fft-4"), 200, seed=1)
>>> len(result.outcomes)
200
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from tarot_analysis._jit import chunk_states, normalise_seed
from tarot_analysis.bots import bot_id
from tarot_analysis.deal import DEFAULT_CHUNK_SIZE, DealStream, deal_chunk, make_plan
from tarot_analysis.engine.core import play_deals
from tarot_analysis.engine.outcome import N_OUTCOME, OUTCOME_COLUMNS
from tarot_analysis.engine.params import EngineRules, engine_rules
from tarot_analysis.errors import TarotInputError
from tarot_analysis.rules import Rules
from tarot_analysis.simulate import map_chunks

__all__ = ["PlayResult", "play"]


@dataclass
class PlayResult:
    """Deals played to the end: the deals, their raw outcomes and, if kept, every trick."""

    rules: Rules
    bots: tuple[str, ...]
    seed: np.random.SeedSequence
    chunk_size: int
    masks: npt.NDArray[np.uint64]  # (n, players + 1, 2): the deals as dealt
    outcomes: npt.NDArray[np.int32]  # (n, N_OUTCOME), columns OUTCOME_COLUMNS
    poignees: npt.NDArray[np.int8]  # (n, players): level shown by each seat
    tricks: npt.NDArray[np.int8] | None = None  # (n, tricks, players): cards in play order
    leaders: npt.NDArray[np.int8] | None = None  # (n, tricks): seat leading each trick
    ecarts: npt.NDArray[np.uint64] | None = None  # (n, 2)
    metadata: dict[str, Any] = field(default_factory=dict)

    def raw(self) -> pd.DataFrame:
        """The raw outcome, one row per deal, columns named as in ``OUTCOME_COLUMNS``."""
        frame = pd.DataFrame(self.outcomes, columns=list(OUTCOME_COLUMNS))
        for seat in range(self.rules.players):
            frame[f"poignee_{seat}"] = self.poignees[:, seat]
        return frame


def _bot_ids(
    bots: str | Sequence[str], players: int
) -> tuple[tuple[str, ...], npt.NDArray[np.int64]]:
    names = (bots,) * players if isinstance(bots, str) else tuple(bots)
    if len(names) != players:
        raise TarotInputError(f"{players} bots were expected (one per seat), got {len(names)}")
    return names, np.array([bot_id(name) for name in names], dtype=np.int64)


def play(
    rules: Rules,
    deals: int,
    *,
    bots: str | Sequence[str] = "random",
    seed: int | np.random.SeedSequence | None = None,
    forced: npt.ArrayLike | None = None,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    threads: int | None = None,
    keep_tricks: bool = False,
) -> PlayResult:
    """Deal ``deals`` deals of ``rules`` from ``seed`` and play each one to the end.

    ``bots``: one name for every seat, or one per seat. ``forced``: an array (deals, 4) of
    taker, contract index, called card 1 and 2 for each deal (−1: decided at the table), or
    one row for every deal. ``keep_tricks`` records every trick for replay.
    """
    if rules.tarocco is not None:
        raise TarotInputError(f"{rules.name}: Tarocco deals are not played by this engine yet")
    if deals < 1:
        raise TarotInputError(f"the number of deals must be at least 1, got {deals}")
    names, ids = _bot_ids(bots, rules.players)
    engine = engine_rules(rules)
    forced_rows = _forced(forced, deals, rules)
    plan = make_plan(rules)
    root = normalise_seed(seed)
    n_chunks = -(-deals // chunk_size)
    masks = np.empty((deals, plan.groups, 2), dtype=np.uint64)
    outcomes = np.empty((deals, N_OUTCOME), dtype=np.int32)
    poignees = np.empty((deals, rules.players), dtype=np.int8)
    tricks = np.empty((deals if keep_tricks else 0, rules.hand_size, rules.players), dtype=np.int8)
    leaders = np.empty((deals if keep_tricks else 0, rules.hand_size), dtype=np.int8)
    ecarts = np.zeros((deals if keep_tricks else 0, 2), dtype=np.uint64)

    def work(chunk: int) -> int:
        start = chunk * chunk_size
        stop = min(deals, start + chunk_size)
        deal_chunk(plan, DealStream.open(plan, root, chunk), stop - start, masks[start:stop])
        _play_chunk(engine, masks[start:stop], ids, forced_rows[start:stop], _bot_rng(root, chunk),
                    outcomes[start:stop], poignees[start:stop],
                    tricks[start:stop], leaders[start:stop], ecarts[start:stop])  # fmt: skip
        return chunk

    for _ in map_chunks(work, range(n_chunks), threads=threads):
        pass
    return PlayResult(
        rules=rules, bots=names, seed=root, chunk_size=chunk_size, masks=masks,
        outcomes=outcomes, poignees=poignees,
        tricks=tricks if keep_tricks else None, leaders=leaders if keep_tricks else None,
        ecarts=ecarts if keep_tricks else None,
    )  # fmt: skip


def _bot_rng(root: np.random.SeedSequence, chunk: int) -> npt.NDArray[np.uint64]:
    """The bots' generator for a chunk: a stream apart from the dealer's."""
    child = np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, chunk, 1))
    return chunk_states(child, 0, 1)[0]


def _play_chunk(
    engine: EngineRules, masks: Any, ids: Any, forced: Any, rng: Any,
    outcomes: Any, poignees: Any, tricks: Any, leaders: Any, ecarts: Any,
) -> None:  # fmt: skip
    wide = np.empty((outcomes.shape[0], N_OUTCOME), dtype=np.int64)
    wide_poignees = np.empty(poignees.shape, dtype=np.int64)
    wide_tricks = np.empty(tricks.shape, dtype=np.int64)
    wide_leaders = np.empty(leaders.shape, dtype=np.int64)
    play_deals(masks, ids, forced, engine.params, engine.contract_dog, engine.half_points, rng,
               wide, wide_poignees, wide_tricks, wide_leaders, ecarts)  # fmt: skip
    outcomes[:] = wide
    poignees[:] = wide_poignees
    tricks[:] = wide_tricks
    leaders[:] = wide_leaders


def _forced(forced: npt.ArrayLike | None, deals: int, rules: Rules) -> npt.NDArray[np.int64]:
    if forced is None:
        return np.full((deals, 4), -1, dtype=np.int64)
    rows = np.asarray(forced, dtype=np.int64)
    if rows.ndim == 1:
        rows = np.broadcast_to(rows, (deals, rows.shape[0]))
    if rows.shape != (deals, 4):
        raise TarotInputError(f"forced contracts must have shape ({deals}, 4), got {rows.shape}")
    takers, contracts = rows[:, 0], rows[:, 1]
    if np.any(takers >= rules.players) or np.any(
        (takers >= 0) & ((contracts < 0) | (contracts >= len(rules.contracts)))
    ):
        raise TarotInputError("a forced taker needs a seat and a contract of the rules")
    return np.ascontiguousarray(rows)
