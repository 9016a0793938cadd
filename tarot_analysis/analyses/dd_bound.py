"""A bound no bot's skill enters: how often a Garde is made with every card seen.

:func:`run_bound` makes seat 0 take a contract (a Garde by default) on many deals, the
heuristic bots at every seat choosing the call and the écart and playing the first
``after_tricks`` tricks; the rest of each deal is solved double dummy
(:mod:`tarot_analysis.analyses.double_dummy`) within a node budget. One row per deal: the taker's
hand as dealt (Chavey's count, bouts, trumps), the attack's double-dummy points (the interval
proved when the budget stops the solve), the contract made, lost or undecided by double
dummy, and the heuristic's own points and result on the same deal, played on from the same
position, so that the two stand side by side, deal by deal. Other bots (``bots``: ``pimc``,
``learned``...) may play on from the same position too: the heuristic's écart, call and first
tricks are replayed as a script, and the bot at every seat plays the rest (the search bots, slow,
on every ``every``-th deal only); their points and results are columns ``points:<bot>`` and
``made:<bot>`` (missing where the bot did not play the deal).

The rows go to a run folder (:mod:`tarot_analysis.runs.runner`): Parquet chunks that a stopped run
resumes, the same rows for the same seed (a node budget, not a time limit, so that they do
not depend on the machine), on local threads or a Dask cluster.

:func:`bound_rates` gives the make rates by band of Chavey's count (or by bouts, by trumps,
by bouts and trumps), every bot's beside the double-dummy rate. A deal left undecided
counts as not made in ``dd_rate`` and as made in ``dd_rate_undecided_made``: the double-dummy
rate lies between the two. Void deals (a Petit sec) are left out.

>>> import tempfile
>>> from tarot_analysis.game.rules import load_rules
>>> folder = tempfile.mkdtemp()
>>> data = run_bound(load_rules("fft-4"), 4, folder, after_tricks=15, chunk_size=2)
>>> len(data), sorted(set(data["dd_outcome"]) - {"made", "lost", "undecided", "redealt"})
(4, [])
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Sequence
from typing import Any, Final

import numpy as np
import pandas as pd
import pyarrow as pa

from tarot_analysis.analyses.double_dummy import (
    DEFAULT_CONTRACT,
    LOST,
    MADE,
    REDEALT,
    UNDECIDED,
    contract_index,
    requirement,
    solve_start,
    start_after,
    verdict,
)
from tarot_analysis.bots import Bot
from tarot_analysis.deals import evaluators
from tarot_analysis.engine import state as S
from tarot_analysis.errors import TarotInputError, is_whole_number, run_numbers
from tarot_analysis.game import cards
from tarot_analysis.game.rules import Rules, rules_to_dict
from tarot_analysis.runs.progress import PLAYING
from tarot_analysis.runs.runner import RunSpec, read_dataset, run
from tarot_analysis.stats import Z_95, wilson_interval
from tarot_analysis.table.play import PlayResult, ScriptRefused, play, play_given, seat_bots

__all__ = [
    "BAND_EDGES",
    "DEFAULT_CHUNK_SIZE",
    "DEFAULT_MAX_NODES",
    "GROUPINGS",
    "KIND",
    "bound_bots",
    "bound_chunk",
    "bound_rates",
    "check_bound",
    "read_bound",
    "run_bound",
]

#: The kind of run in a folder's definition.
KIND: Final = "dd-bound"
#: Deals per chunk: a few seconds to a few minutes of solving, by the tricks left.
DEFAULT_CHUNK_SIZE: Final = 100
#: Positions each deal's solve may search before it stops with an interval.
DEFAULT_MAX_NODES: Final = 5_000_000
#: Chavey's least counts for a Prise, a Garde, a Garde sans and a Garde contre: the bands'
#: edges, on the 18-card scale (:func:`tarot_analysis.deals.evaluators.scale_to_18`).
BAND_EDGES: Final = evaluators.CHAVEY_THRESHOLDS
#: The columns of a row, one row per deal.
BOUND_COLUMNS: Final = (
    "deal", "chavey", "bouts", "trumps", "points_before", "dd_low", "dd_high", "dd_bouts",
    "dd_required", "dd_outcome", "nodes", "heuristic_points", "heuristic_made",
)  # fmt: skip
#: The heuristic: it plays the first tricks and, on every deal, the rest too.
HEURISTIC: Final = "heuristic"
#: The groupings of the rates: by band of Chavey's count, by bouts, by trumps, by both.
GROUPINGS: Final = ("chavey", "bouts", "trumps", "bouts_trumps")


def _chunk_seed(seed: int, chunk: int) -> np.random.SeedSequence:
    return np.random.SeedSequence(seed, spawn_key=(chunk,))


def _hand_columns(rules: Rules, masks: np.ndarray) -> dict[str, Any]:
    """Chavey's count, bouts and trumps of seat 0's hand as dealt."""
    lo, hi = masks[:, 0, 0], masks[:, 0, 1]
    return {
        "chavey": evaluators.chavey(lo, hi),
        "bouts": np.bitwise_count(hi & np.uint64(cards.BOUTS_MASK_HI)).astype(np.int8),
        "trumps": np.bitwise_count(hi & np.uint64(cards.TRUMPS_MASK_HI)).astype(np.int8),
    }


def _solved_row(
    rules: Rules, result: Any, row: int, after_tricks: int, max_nodes: int
) -> dict[str, Any]:
    """The double-dummy columns of deal ``row`` of the heuristic's ``result``."""
    start = start_after(rules, result, row, after_tricks)
    if start is None:
        nan = float("nan")
        return {
            "points_before": nan, "dd_low": nan, "dd_high": nan, "dd_bouts": -1,
            "dd_required": nan, "dd_outcome": REDEALT, "nodes": 0,
        }  # fmt: skip
    solved = solve_start(rules, start, max_nodes=max_nodes)
    before = start.half_before / 2
    required = requirement(rules, start.bouts)
    low, high = before + solved.low, before + solved.high
    return {
        "points_before": before, "dd_low": low, "dd_high": high, "dd_bouts": start.bouts,
        "dd_required": required, "dd_outcome": verdict(low, high, required),
        "nodes": solved.nodes,
    }  # fmt: skip


def _is_search(name: str) -> bool:
    """Whether the bot ``name`` searches (slow: played on a sample of the deals)."""
    return Bot.parse(name).kind == "pimc"


def _script(rules: Rules, result: PlayResult, row: int, tricks: int) -> list[list[str]]:
    """The first ``tricks`` tricks of deal ``row`` of ``result``, card by seat, as a script
    for :func:`tarot_analysis.table.play.play_given` (the rest left to the bots)."""
    assert result.tricks is not None and result.leaders is not None
    players = rules.players
    script = []
    for t in range(tricks):
        by_seat = [""] * players
        leader = int(result.leaders[row, t])
        for k in range(players):
            by_seat[(leader + k) % players] = cards.card_name(int(result.tricks[row, t, k]))
        script.append(by_seat)
    return script


def _played_on(
    rules: Rules, result: PlayResult, rows: list[int], bot: str, tricks: int, seed: Any
) -> tuple[np.ndarray, np.ndarray]:
    """The attack's points and the contract made when ``bot`` at every seat plays deals
    ``rows`` of ``result`` on from trick ``tricks``, the heuristic's écart, call and first
    tricks replayed; NaN where the replay cannot be taken (the bot announced otherwise)."""
    assert result.ecarts is not None
    hands = [[cards.format_cards(cards.from_mask(int(a), int(b))) for a, b in result.masks[row]]
             for row in rows]  # fmt: skip
    outcomes = result.outcomes[rows]
    forced = np.stack(
        [outcomes[:, S.O_TAKER], outcomes[:, S.O_CONTRACT], outcomes[:, S.O_CALLED_1],
         outcomes[:, S.O_CALLED_2]], axis=1,
    ).astype(np.int64)  # fmt: skip
    ecarts = [cards.format_cards(cards.from_mask(int(a), int(b))) for a, b in result.ecarts[rows]]
    script = [_script(rules, result, row, tricks) for row in rows]
    try:
        played = play_given(
            rules, hands, bots=bot, seed=seed, forced=forced, script=script, ecart=ecarts
        )
    except ScriptRefused:  # a deal the bot takes elsewhere (a chelem): each one alone
        if len(rows) == 1:
            return np.array([np.nan]), np.array([np.nan])
        parts = [_played_on(rules, result, [row], bot, tricks, seed) for row in rows]
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
    scored = played.scores()
    made = scored["made"].astype(float).to_numpy()
    return scored["attack_points"].to_numpy(dtype=float), made


def _bot_columns(
    rules: Rules, result: PlayResult, spec: dict[str, Any], seed: int, chunk: int, first: int
) -> dict[str, Any]:
    """The points and results of each of ``spec``'s other bots playing on from the start of
    the solve, NaN where it did not play (a void deal; a search bot's deal off the sample)."""
    n = len(result.outcomes)
    played = [row for row in range(n) if result.outcomes[row, S.O_REDEAL] == S.REDEAL_NONE]
    columns: dict[str, Any] = {}
    for k, bot in enumerate(spec.get("bots", ())):
        every = spec["every"] if _is_search(bot) else 1
        rows = [row for row in played if (first + row) % every == 0]
        points, made = np.full(n, np.nan), np.full(n, np.nan)
        if rows:
            child = np.random.SeedSequence(seed, spawn_key=(chunk, 1 + k))
            points[rows], made[rows] = _played_on(
                rules, result, rows, bot, spec["after_tricks"], child
            )
        columns[f"points:{bot}"], columns[f"made:{bot}"] = points, made
    return columns


def bound_chunk(
    rules: Rules, seed: int, spec: dict[str, Any], chunk: int, first: int, n: int
) -> pa.Table:
    """The rows of deals ``first .. first + n`` of a run (chunk ``chunk``): the toolkit's
    deals for ``(seed, chunk)``, played by the heuristic with seat 0 taking ``spec``'s
    contract, then solved from ``spec["after_tricks"]`` on, and played on by ``spec``'s
    other bots."""
    contract = contract_index(rules, spec["contract"])
    result = play(
        rules, n, bots=HEURISTIC, seed=_chunk_seed(seed, chunk), forced=[0, contract, -1, -1],
        chunk_size=n, threads=1, keep_tricks=True,
    )  # fmt: skip
    scored = result.scores()
    solved = [
        _solved_row(rules, result, row, spec["after_tricks"], spec["max_nodes"]) for row in range(n)
    ]
    columns: dict[str, Any] = {"deal": np.arange(first, first + n, dtype=np.int64)}
    columns |= _hand_columns(rules, result.masks)
    for name in ("points_before", "dd_low", "dd_high", "dd_bouts", "dd_required", "nodes"):
        columns[name] = np.array([row[name] for row in solved])
    columns["dd_outcome"] = pa.array([row["dd_outcome"] for row in solved], pa.string())
    columns["heuristic_points"] = scored["attack_points"].to_numpy(dtype=float)
    columns["heuristic_made"] = scored["made"].fillna(False).to_numpy(dtype=bool)
    names = list(BOUND_COLUMNS)
    if spec.get("bots"):
        more = _bot_columns(rules, result, spec, seed, chunk, first)
        columns |= more
        names += list(more)
    return pa.table({name: columns[name] for name in names})


def check_bound(
    rules: Rules,
    *,
    after_tricks: object = 10,
    max_nodes: object = DEFAULT_MAX_NODES,
    contract: str = DEFAULT_CONTRACT,
    bots: Sequence[str] | str = (HEURISTIC,),
    every: object = 1,
) -> list[str]:
    """Every setting of a bound checked before its folder is made: the rules, the contract, the
    tricks, the budget, and each bot seated once (a learned bot's model read and checked
    against ``rules``), so that no run stores a bot that cannot play. The bots other than the
    heuristic, in order, once each."""
    if rules.tarocco is not None:
        raise TarotInputError(f"the double-dummy bound is for French Tarot, not {rules.name}")
    contract_index(rules, contract)
    if not is_whole_number(after_tricks) or not 0 <= int(after_tricks) < rules.hand_size:
        raise TarotInputError(
            f"after_tricks must be from 0 to {rules.hand_size - 1}, got {after_tricks!r}"
        )
    if not is_whole_number(max_nodes) or int(max_nodes) < 1:
        raise TarotInputError(f"max_nodes must be a whole number of 1 or more, got {max_nodes!r}")
    names = [bots] if isinstance(bots, str) else list(bots)
    for name in names:
        if not isinstance(name, str):
            raise TarotInputError(f"a bot of the bound is named, got {name!r}")
    if not is_whole_number(every) or int(every) < 1:
        raise TarotInputError(f"every must be a whole number of 1 or more, got {every!r}")
    others = [name for name in dict.fromkeys(names) if name != HEURISTIC]
    for name in others:
        seat_bots(name, rules)
    return others


def run_bound(
    rules: Rules,
    deals: int,
    folder: str | os.PathLike[str],
    *,
    after_tricks: int = 10,
    max_nodes: int = DEFAULT_MAX_NODES,
    contract: str = DEFAULT_CONTRACT,
    seed: int = 1,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    threads: int | None = None,
    progress: bool = False,
    client: Any = None,
    bots: Sequence[str] | str = (HEURISTIC,),
    every: int = 1,
) -> pd.DataFrame:
    """Solve ``deals`` deals with seat 0 taking ``contract`` into ``folder`` (resuming what
    is there), the first ``after_tricks`` tricks the heuristic's; every row of the run.
    ``bots``: those that play on from the solve's start beside the heuristic (which always
    does), the search bots on every ``every``-th deal only (deal numbers divisible by it)."""
    deals, chunk_size, threads = run_numbers(deals, chunk_size, threads)
    others = check_bound(
        rules, after_tricks=after_tricks, max_nodes=max_nodes, contract=contract, bots=bots,
        every=every,
    )  # fmt: skip
    extra: dict[str, Any] = {
        "after_tricks": int(after_tricks), "max_nodes": int(max_nodes), "contract": contract,
        "taker": 0, "rules_definition": rules_to_dict(rules), "columns": list(BOUND_COLUMNS),
    }  # fmt: skip
    if others:  # a run of the heuristic alone keeps the definition it always had
        extra |= {"bots": others, "every": int(every)}
    spec = RunSpec(
        kind=KIND, rules=rules.name, bots=("heuristic",) * rules.players, seed=seed,
        deals=deals, chunk_size=chunk_size, extra=extra,
    )  # fmt: skip

    def work(chunk: int, first: int, n: int) -> pa.Table:
        return bound_chunk(rules, seed, extra, chunk, first, n)

    beside = f", played on by {', '.join(others)}" if others else ""
    run(
        spec, folder, work, threads=threads, progress=progress, client=client, phase=PLAYING,
        detail=f"{rules.name} double dummy after {after_tricks} tricks{beside}",
    )  # fmt: skip
    return read_bound(folder)


def read_bound(folder: str | os.PathLike[str]) -> pd.DataFrame:
    """Every row of a bound run's folder, each chunk checked; another kind is refused."""
    frame = read_dataset(folder).to_pandas()
    missing = [name for name in BOUND_COLUMNS if name not in frame.columns]
    if missing:
        raise TarotInputError(
            f"{folder} holds no double-dummy bound (no column {', '.join(missing)})"
        )
    return frame


def band_labels() -> list[str]:
    """The bands of Chavey's count, cut at :data:`BAND_EDGES`."""
    edges = list(BAND_EDGES)
    inner = [f"{low}–{high - 1}" for low, high in itertools.pairwise(edges)]
    return [f"under {edges[0]}", *inner, f"{edges[-1]} and over"]


def _bands(chavey: pd.Series, hand_size: int) -> pd.Categorical:
    """Each count's band, on the 18-card scale."""
    scaled = evaluators.scale_to_18(chavey.to_numpy(), hand_size)
    bins = [-np.inf, *BAND_EDGES, np.inf]
    return pd.cut(scaled, bins=bins, right=False, labels=band_labels())


def _paired(made: np.ndarray, other: np.ndarray) -> tuple[float, float, float]:
    """The mean of ``made − other`` (booleans, one per deal) and its normal 95% interval."""
    differences = made.astype(float) - other.astype(float)
    n = len(differences)
    mean = float(differences.mean()) if n else float("nan")
    half = Z_95 * float(differences.std(ddof=1)) / np.sqrt(n) if n > 1 else float("nan")
    return mean, mean - half, mean + half


def bound_bots(frame: pd.DataFrame) -> list[str]:
    """The bots of a run's rows beside the heuristic, in the run's order."""
    return [name.partition(":")[2] for name in frame.columns if name.startswith("made:")]


def _bot_rates(part: pd.DataFrame, made: np.ndarray, upper: np.ndarray, bot: str) -> dict[str, Any]:
    """One bot's rate on the deals of ``part`` it played, and the paired difference double
    dummy − bot on those deals (low end: undecided not made; high end: made)."""
    results = part[f"made:{bot}"].to_numpy(dtype=float)
    kept = ~np.isnan(results)
    mine = results[kept] > 0.5
    n = int(kept.sum())
    low, high = wilson_interval(mine.sum(), n)
    difference, d_low, _ = _paired(made[kept], mine)
    _, _, d_high = _paired(upper[kept], mine)
    return {
        f"{bot}_n": n, f"{bot}_made": int(mine.sum()),
        f"{bot}_rate": float(mine.mean()) if n else float("nan"),
        f"{bot}_ci_low": float(low), f"{bot}_ci_high": float(high),
        f"{bot}_dd_rate": float(made[kept].mean()) if n else float("nan"),
        f"{bot}_difference": difference, f"{bot}_difference_ci_low": d_low,
        f"{bot}_difference_ci_high": d_high,
    }  # fmt: skip


def _band_row(part: pd.DataFrame, bots: Sequence[str] = ()) -> dict[str, Any]:
    """Rates of one band: double dummy (undecided as not made, and as made), the heuristic,
    and the paired difference, its interval widened over both readings of the undecided;
    then each of ``bots`` on the deals it played."""
    n = len(part)
    made = (part["dd_outcome"] == MADE).to_numpy()
    undecided = (part["dd_outcome"] == UNDECIDED).to_numpy()
    heuristic = part["heuristic_made"].to_numpy(dtype=bool)
    dd_low, dd_high = wilson_interval(made.sum(), n)
    _, upper_high = wilson_interval((made | undecided).sum(), n)
    h_low, h_high = wilson_interval(heuristic.sum(), n)
    difference, low, _ = _paired(made, heuristic)
    _, _, high = _paired(made | undecided, heuristic)
    rate = float(made.mean()) if n else float("nan")
    row = {
        "n": n, "dd_made": int(made.sum()), "dd_lost": int((part["dd_outcome"] == LOST).sum()),
        "undecided": int(undecided.sum()), "dd_rate": rate, "dd_ci_low": float(dd_low),
        "dd_ci_high": float(dd_high),
        "dd_rate_undecided_made": float((made | undecided).mean()) if n else float("nan"),
        "dd_undecided_made_ci_high": float(upper_high), "heuristic_made": int(heuristic.sum()),
        "heuristic_rate": float(heuristic.mean()) if n else float("nan"),
        "heuristic_ci_low": float(h_low), "heuristic_ci_high": float(h_high),
        "difference": difference, "difference_ci_low": low, "difference_ci_high": high,
    }  # fmt: skip
    for bot in bots:
        row |= _bot_rates(part, made, made | undecided, bot)
    return row


def _groups(played: pd.DataFrame, by: str, hand_size: int) -> dict[str, np.ndarray]:
    """The rows of each group of ``by`` (:data:`GROUPINGS`), in order: every band of
    Chavey's count; the bouts and trumps held, those seen."""
    if by == "chavey":
        bands = _bands(played["chavey"], hand_size)
        return {str(label): np.asarray(bands == label) for label in band_labels()}
    if by == "bouts_trumps":
        keys = sorted(set(zip(played["bouts"], played["trumps"], strict=True)))
        return {
            f"{_held(b, 'bout')}, {_held(t, 'trump')}": (
                (played["bouts"] == b) & (played["trumps"] == t)
            ).to_numpy()
            for b, t in keys
        }
    noun = by.removesuffix("s")
    return {_held(v, noun): (played[by] == v).to_numpy() for v in sorted(set(played[by]))}


def _held(number: int, noun: str) -> str:
    """``1 bout``, ``2 bouts``."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


def bound_rates(frame: pd.DataFrame, hand_size: int, by: str = "chavey") -> pd.DataFrame:
    """Make rates by band of Chavey's count (``by``: or by ``bouts``, ``trumps``,
    ``bouts_trumps`` held, the groups seen), and ``all``, void deals left out: double dummy
    (``dd_rate``: undecided as not made; ``dd_rate_undecided_made``: as made), the
    heuristic's, each with its Wilson 95% interval, and the paired difference double dummy −
    heuristic with its normal 95% interval (low end with the undecided not made, high end
    with them made). Each other bot of the run (:func:`bound_bots`) ``B`` beside them, on the
    deals it played: ``B_n``, ``B_rate`` with ``B_ci_low`` and ``B_ci_high``, the double-dummy
    rate on the same deals ``B_dd_rate`` and ``B_difference`` with its interval."""
    if by not in GROUPINGS:
        raise TarotInputError(f"the rates go by {', '.join(GROUPINGS)}, not {by!r}")
    played = frame[frame["dd_outcome"] != REDEALT]
    bots = bound_bots(frame)
    groups = _groups(played, by, hand_size)
    rows = {label: _band_row(played[rows], bots) for label, rows in groups.items()}
    rows["all"] = _band_row(played, bots)
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = by
    return table
