"""Bidding guidance from played deals: which contract pays, for which hands.

A guidance run deals many hands to seat 0 (or to the last seat) and plays each deal under every
contract (:mod:`tarot_analysis.counterfactual`), and once more with that seat made to pass and
the others bidding on, streaming one row per deal to a resumable Parquet dataset
(:mod:`tarot_analysis.runner`): the hand's features, its evaluator scores, for each contract
whether it made and the seat's score, and the seat's score when it passed. The tables are built
from sums kept per value (:func:`rows_counts`): success and mean score per contract by
evaluator value, by bouts × trumps and by kings; the best option of each value with its
runner-up and their paired difference; how often a bootstrap replicate of the deals
(:mod:`tarot_analysis.bootstrap`) names another best; thresholds fitted to the deals, with
bootstrap intervals; what each rule loses against the best option, in and out of sample; and a
success model fitted on the rows. docs/guidance.md gives every formula.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np
import pandas as pd
import pyarrow as pa

from tarot_analysis import evaluators
from tarot_analysis.bootstrap import REPLICATES, replicate_sums
from tarot_analysis.counterfactual import play_every_contract, play_passing
from tarot_analysis.engine.scoring import SCORE_UNIT, whole_units
from tarot_analysis.errors import TarotInputError
from tarot_analysis.features import FEATURES, hand_features
from tarot_analysis.files import remove_stale, replacing, write_text
from tarot_analysis.play import Bots, python_threads, seat_bots
from tarot_analysis.progress import FITTING, PLAYING_EVERY_CONTRACT, SCORING, step
from tarot_analysis.rules import Rules
from tarot_analysis.runner import RunResult, RunSpec, iter_chunks, read_dataset, run
from tarot_analysis.stats import Z_95, wilson_interval

__all__ = [
    "MIN_FIT_DEALS",
    "GuidanceData",
    "best_choices",
    "best_ranges",
    "can_fit",
    "guidance_tables",
    "merge_counts",
    "rows_counts",
    "run_guidance",
    "seat_comparison",
    "table_by",
    "threshold_loss",
    "thresholds",
]

#: The fewest deals played for the fitted parts of the guidance: the thresholds fitted to the
#: deals with their bootstrap intervals, what each rule loses (out of sample on two folds of
#: the deals) and the success model (fitted on four fifths of them, tested on the rest). On
#: fewer deals they would read noise (a model of ten deals separates them perfectly): the run
#: gives its tables by count alone and says so. docs/guidance.md states it.
MIN_FIT_DEALS: Final = 1_000

KEPT_FEATURES = (
    "trumps",
    "excuse",
    "petit",
    "twenty_one",
    "bouts",
    "kings",
    "queens",
    "knights",
    "jacks",
    "voids",
    "singletons",
    "longest_suit",
    "half_points",
    "poignee",
)


def _chunk_seed(seed: int, chunk: int) -> np.random.SeedSequence:
    return np.random.SeedSequence(seed, spawn_key=(chunk,))


def _chunk_rows(
    rules: Rules, bots: Sequence[Any], seed: int, chunk: int, first: int, n: int, seat: int
) -> pa.Table:
    """Deals ``first .. first + n`` of a guidance run: the seat's hand, every contract with the
    seat taking, and the seat's score when it passes and the table goes on."""
    outcomes = play_every_contract(
        rules, n, seat=seat, bots=list(bots), seed=_chunk_seed(seed, chunk), chunk_size=n,
        threads=1,
    )  # fmt: skip
    passed = play_passing(
        rules, n, seat=seat, bots=list(bots), seed=_chunk_seed(seed, chunk), chunk_size=n,
        threads=1,
    )  # fmt: skip
    from tarot_analysis.deal import DealStream, deal_chunk, make_plan

    plan = make_plan(rules)
    masks, _ = deal_chunk(plan, DealStream.open(plan, _chunk_seed(seed, chunk), 0), n)
    hands = masks[:, seat]
    features = hand_features(hands, rules)
    columns: dict[str, Any] = {"deal": np.arange(first, first + n)}
    for name in KEPT_FEATURES:
        columns[name] = features[:, FEATURES.index(name)]
    lo, hi = hands[:, 0], hands[:, 1]
    columns["chavey"] = evaluators.chavey(lo, hi)
    columns["chavey_distribution"] = evaluators.chavey(lo, hi, with_distribution=True)
    columns["bouts_and_trumps"] = evaluators.bouts_and_trumps(lo, hi)
    frame = outcomes.frame
    columns["redeal"] = frame[frame["contract"] == rules.contracts[0].name]["redeal"].to_numpy()
    for contract in rules.contracts:
        part = frame[frame["contract"] == contract.name]
        columns[f"made_{contract.name}"] = part["made"].fillna(False).to_numpy(dtype=bool)
        columns[f"score_{contract.name}"] = part["taker_score"].to_numpy(dtype=float)
    # Passing, measured: the seat passes and the others bid; all passing is a redeal, worth 0.
    columns["score_pass"] = passed["seat_score"].to_numpy(dtype=float)
    taker = passed["taker"].to_numpy()
    columns["taken"] = taker >= 0
    # What was bid before the seat spoke (seat 0 speaks first, the last seat last: there the
    # taker, if any, spoke before it), −1 when nothing.
    before = (taker >= 0) & (taker < seat)
    columns["bid_before"] = np.where(before, passed["contract"].to_numpy(), -1)
    return pa.table(columns)


#: The groupings kept as counts: every guidance table is made from these. Chavey's count is
#: kept with its distribution version, which its bids need; ``by_chavey`` adds them up.
GROUPINGS: Final = {
    "chavey": ("chavey", "chavey_distribution"),
    "bouts_trumps": ("bouts", "trumps"),
    "kings": ("kings",),
    "bouts_and_trumps": ("bouts_and_trumps",),
}

#: The evaluators whose values get bootstrap sums (grouping ``replicates_<name>``, ``key_2``
#: the replicate): their thresholds and the stability of their best contract come from these.
BOOTSTRAPPED: Final = ("chavey", "bouts_and_trumps")

#: Deals are split in two folds by the parity of their number: thresholds chosen on one fold
#: are scored on the other (out of sample).
FOLDS: Final = 2

_KEYS: Final = ("grouping", "fold", "key_1", "key_2")
#: Deals per call of the compiled bootstrap sums. A call holds the interpreter, so a progress
#: display can redraw only between two calls: 250,000 deals take about 1.3 s on one core.
_BOOTSTRAP_BLOCK: Final = 250_000


def rows_counts(rows: pd.DataFrame, contracts: Sequence[str], *, seed: int) -> pd.DataFrame:
    """The sufficient statistics of guidance rows: per grouping, fold and key, over played
    deals, ``n``, and per contract the deals made and the sum and sum of squares of the taker's
    score in twelfths of a point (whole numbers), and the sums of the products of two
    contracts' scores. Plus grouping ``deals``, keyed by the redeal flag, and for each
    evaluator of :data:`BOOTSTRAPPED` the Poisson-bootstrap sums of ``n`` and of each contract's
    score per value and replicate (:mod:`tarot_analysis.bootstrap`, weights from ``seed``).

    The deals counted are those played (no Petit-sec redeal) on which the seat chooses freely:
    nothing was bid before it spoke (always so for seat 0). The ``deals`` grouping counts every
    deal by ``key_1`` the redeal flag and ``key_2`` one more than the contract bid before.

    Counts of disjoint sets of deals add up (:func:`merge_counts`): a run of any size is
    summarised in memory proportional to the tables.
    """
    redeal = rows["redeal"].to_numpy(dtype=bool)
    bid_before = rows["bid_before"].to_numpy(dtype=np.int64)
    played = rows[~redeal & (bid_before < 0)]
    values = _summands(played, contracts)
    fold = played["deal"].to_numpy(dtype=np.int64) % FOLDS
    parts = []
    for grouping, keys in GROUPINGS.items():
        frame = pd.DataFrame(values)
        frame["fold"] = fold
        frame["key_1"] = played[keys[0]].to_numpy(dtype=np.int64)
        frame["key_2"] = played[keys[1]].to_numpy(dtype=np.int64) if len(keys) > 1 else 0
        summed = frame.groupby(["fold", "key_1", "key_2"], sort=True).sum().reset_index()
        summed.insert(0, "grouping", grouping)
        parts.append(summed)
    scores = np.column_stack([values[f"twelfths_{name}"] for name in contracts])
    numbers = played["deal"].to_numpy(dtype=np.int64)
    blocks = [slice(start, start + _BOOTSTRAP_BLOCK)
              for start in range(0, len(numbers), _BOOTSTRAP_BLOCK)]  # fmt: skip
    for name in BOOTSTRAPPED:
        values_seen, groups = np.unique(played[name].to_numpy(dtype=np.int64), return_inverse=True)
        # The sums of disjoint blocks of deals add up to those of all of them.
        sums = np.zeros((REPLICATES, len(values_seen), 1 + len(contracts)), dtype=np.int64)
        for block in blocks:
            sums += replicate_sums(
                seed, numbers[block], groups[block], scores[block],
                groups_count=len(values_seen), replicates=REPLICATES,
            )  # fmt: skip
        replicate, key = np.meshgrid(np.arange(REPLICATES), values_seen, indexing="ij")
        weighted = {"n": sums[..., 0].ravel()}
        for k, contract in enumerate(contracts):
            weighted[f"twelfths_{contract}"] = sums[..., k + 1].ravel()
        part = pd.DataFrame(weighted)
        part.insert(0, "key_2", replicate.ravel())
        part.insert(0, "key_1", key.ravel())
        part.insert(0, "fold", 0)
        part.insert(0, "grouping", f"replicates_{name}")
        parts.append(part)
    deals = pd.DataFrame({"key_1": redeal.astype(np.int64), "key_2": bid_before + 1, "n": 1})
    deals = deals.groupby(["key_1", "key_2"], sort=True)["n"].sum().reset_index()
    parts.append(deals.assign(grouping="deals", fold=0))
    counts = pd.concat(parts, ignore_index=True).fillna(0)
    columns = [*_KEYS, *values]
    counts = counts[columns].astype({c: np.int64 for c in columns if c != "grouping"})
    return counts.sort_values(list(_KEYS), ignore_index=True)  # the order merge_counts gives


def merge_counts(parts: Iterable[pd.DataFrame]) -> pd.DataFrame:
    """Add up the counts of disjoint sets of deals (chunks), in any order: whole numbers, so
    the result is exact. Parts are folded in one at a time, so memory stays that of a table."""
    total: pd.DataFrame | None = None
    for part in parts:
        both = part if total is None else pd.concat([total, part], ignore_index=True)
        total = both.groupby(list(_KEYS), sort=True).sum().reset_index()
    if total is None:
        raise TarotInputError("no counts to merge: the run holds no finished chunk")
    return total


@dataclass
class GuidanceData:
    """What a guidance run produced: its counts and, unless it kept none, its rows."""

    rules: Rules
    bots: tuple[str, ...]
    seed: int
    counts: pd.DataFrame  # the sufficient statistics of every table (see rows_counts)
    frame: pd.DataFrame | None = None  # one row per deal: features, evaluators, made_*, score_*
    run: RunResult | None = None
    seat: int = 0  # the seat advised: 0 speaks first

    @property
    def contracts(self) -> list[str]:
        return [c.name for c in self.rules.contracts]

    @property
    def deals(self) -> int:
        """Deals dealt, redeals included."""
        return int(self._grouping("deals")["n"].sum())

    @property
    def played_deals(self) -> int:
        """Deals the tables count: played (redeals for a Petit sec left out), with nothing bid
        before the seat spoke."""
        deals = self._grouping("deals")
        return int(deals.loc[(deals["key_1"] == 0) & (deals["key_2"] == 0), "n"].sum())

    @property
    def bid_before_deals(self) -> int:
        """Deals played on which another seat bid before this one spoke (left out)."""
        deals = self._grouping("deals")
        return int(deals.loc[(deals["key_1"] == 0) & (deals["key_2"] > 0), "n"].sum())

    def played(self) -> pd.DataFrame:
        """The rows the tables count (see :attr:`played_deals`)."""
        if self.frame is None:
            raise TarotInputError(
                "this guidance run kept counts, not rows (--no-rows): run it without "
                "--no-rows for per-deal rows and the fitted model"
            )
        return self.frame[~self.frame["redeal"] & (self.frame["bid_before"] < 0)]

    def _grouping(self, name: str) -> pd.DataFrame:
        return self.counts[self.counts["grouping"] == name]


def run_guidance(
    rules: Rules,
    deals: int,
    folder: str | os.PathLike[str],
    *,
    bots: Bots = "random",
    seed: int = 1,
    chunk_size: int = 50_000,
    threads: int | None = None,
    progress: bool = False,
    client: Any = None,
    rows: bool = True,
    seat: int = 0,
) -> GuidanceData:
    """Play ``deals`` deals under every contract into ``folder`` (resuming what is there), with
    ``seat`` taking: 0, who speaks first, or the last seat, who speaks last (its tables count
    the deals on which every other seat passed). Each deal is also played with the seat
    passing and the others bidding on, for what passing is worth. ``progress`` shows a bar
    while the deals are played and a step while their rows are counted.

    ``rows=False`` stores each chunk's counts (:func:`rows_counts`) instead of its rows: the
    tables come out the same, in memory and disk proportional to the tables, but there are no
    per-deal rows to fit a model on.
    """
    if seat not in (0, rules.players - 1):
        raise TarotInputError(
            f"guidance advises seat 0 (speaks first) or seat {rules.players - 1} (speaks last), "
            f"not seat {seat}"
        )
    seating = seat_bots(bots, rules)
    names = seating.names
    threads = python_threads(seating, threads, client)
    seated = (bots,) * rules.players if isinstance(bots, str) else tuple(bots)
    # What a chunk holds: folders written with fewer features or counts are another run.
    extra: dict[str, Any] = {
        "seat": seat, "mode": "counterfactual", "features": list(KEPT_FEATURES),
        "pass": "played",
    }  # fmt: skip
    if not rows:
        extra["rows"] = False
        extra["counts"] = (
            f"sums, squares and products by fold, the pass measured; {REPLICATES} bootstrap sums"
        )
    spec = RunSpec(
        kind="guidance", rules=rules.name, bots=names, seed=seed, deals=deals,
        chunk_size=chunk_size, extra=extra,
    )  # fmt: skip
    contracts = [c.name for c in rules.contracts]

    def work(chunk: int, first: int, n: int) -> pa.Table:
        table = _chunk_rows(rules, seated, seed, chunk, first, n, seat)
        if rows:
            return table
        counts = rows_counts(table.to_pandas(), contracts, seed=seed)
        return pa.Table.from_pandas(counts, preserve_index=False)

    where = f"{rules.name} seat {seat}"
    result = run(
        spec, folder, work, threads=threads, progress=progress, client=client,
        phase=PLAYING_EVERY_CONTRACT, detail=where,
    )  # fmt: skip
    with step(SCORING, progress, detail=f"{where}, the run's rows"):
        if not rows:
            counts = merge_counts(table.to_pandas() for table in iter_chunks(folder, spec))
            return GuidanceData(
                rules=rules, bots=names, seed=seed, counts=counts, run=result, seat=seat
            )
        frame = read_dataset(folder, spec).to_pandas()
        counts = rows_counts(frame, contracts, seed=seed)
    return GuidanceData(
        rules=rules, bots=names, seed=seed, counts=counts, frame=frame, run=result, seat=seat
    )


def _rate_rows(group: pd.DataFrame, contracts: list[str], reading: str = "zero") -> pd.DataFrame:
    """Rates, intervals and mean scores from summed counts, one row per key; the measured
    pass (its mean score, and how often another seat takes); the best choice (the pass read
    as ``reading``), the runner-up and their paired difference."""
    n = group["n"].to_numpy()
    table = pd.DataFrame({"n": n}, index=group.index)
    sums = group["twelfths_pass"].to_numpy(dtype=float)
    squares = group["twelfths_sq_pass"].to_numpy(dtype=float)
    table["pass_played_mean_score"] = sums / SCORE_UNIT / n
    table["pass_played_score_half_width"] = _half_width(sums, squares, n)
    table["pass_taken_share"] = group["taken"].to_numpy() / n
    for name in contracts:
        made = group[f"made_{name}"].to_numpy()
        low, high = wilson_interval(made, n)
        sums = group[f"twelfths_{name}"].to_numpy(dtype=float)
        squares = group[f"twelfths_sq_{name}"].to_numpy(dtype=float)
        table[f"{name}_rate"] = made / n
        table[f"{name}_ci_low"] = low
        table[f"{name}_ci_high"] = high
        table[f"{name}_mean_score"] = sums / SCORE_UNIT / n
        table[f"{name}_score_half_width"] = _half_width(sums, squares, n)
    options = np.array(["pass", *contracts], dtype=object)
    means = _option_sums(group, contracts, reading) / np.maximum(n, 1)[:, None] / SCORE_UNIT
    # Highest mean first; among equal means the earlier option (pass, then the lower contract).
    order = np.argsort(-means, axis=1, kind="stable")
    best, runner_up = options[order[:, 0]], options[order[:, 1]]
    total, squares = _paired_sums(group, contracts, best, runner_up, reading)
    difference = total / SCORE_UNIT / n
    half = _half_width(total, squares, n)
    table["best"] = best
    table["best_mean_score"] = np.take_along_axis(means, order[:, :1], axis=1)[:, 0]
    table["runner_up"] = runner_up
    table["difference"] = difference
    table["difference_ci_low"] = difference - half
    table["difference_ci_high"] = difference + half
    # A tie exactly when the interval of the difference reaches 0 (or cannot be estimated).
    table["tie"] = ~(difference - half > 0)
    return table


def _half_width(sums: np.ndarray, squares: np.ndarray, n: np.ndarray) -> np.ndarray:
    """The 95% half-width of a mean over deals, in points, from the sum and the sum of squares
    of its per-deal values in twelfths of a point; NaN below two deals."""
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        variance = (squares - sums**2 / n) / (n - 1) / SCORE_UNIT**2
        half = Z_95 * np.sqrt(np.clip(variance, 0, None) / n)
    return np.where(n > 1, half, np.nan)


#: The two readings of a pass: it scores 0 (the table redeals), or what it is worth measured
#: (the others bid on; the seat defends when one of them takes).
READINGS: Final = ("zero", "played")


def _check_reading(reading: str) -> None:
    if reading not in READINGS:
        raise TarotInputError(f"the pass is read as one of {', '.join(READINGS)}, not {reading!r}")


def _option_sums(
    groups: pd.DataFrame, contracts: Sequence[str], reading: str = "zero"
) -> np.ndarray:
    """Per group, the sum of the seat's score under each option, ``pass`` first (0, or with
    ``reading="played"`` its measured score)."""
    _check_reading(reading)
    columns = [groups[f"twelfths_{name}"].to_numpy(dtype=float) for name in contracts]
    if reading == "zero":
        return np.column_stack([np.zeros(len(groups)), *columns])
    return np.column_stack([groups["twelfths_pass"].to_numpy(dtype=float), *columns])


def _grouping(data: GuidanceData, grouping: str, *, fold: int | None = None) -> pd.DataFrame:
    """The counts of a grouping, keys named ``key_1, key_2``, summed over the folds (or of one)."""
    rows = data.counts[data.counts["grouping"] == grouping]
    if fold is not None:
        rows = rows[rows["fold"] == fold]
    values = [c for c in rows.columns if c not in _KEYS]
    return rows.groupby(["key_1", "key_2"])[values].sum()


def table_by(
    data: GuidanceData, keys: str | list[str], *, min_n: int = 1, reading: str = "zero"
) -> pd.DataFrame:
    """Per value of ``keys`` (e.g. ``"chavey"``, ``["bouts", "trumps"]``): n, and for every
    contract its success rate with a Wilson interval, the taker's mean score and the half-width
    of its 95% interval; the pass measured (``pass_played_mean_score`` with its half-width, and
    ``pass_taken_share``, how often another seat then takes); ``best`` is the option of highest mean
    score (``pass`` scoring 0, or with ``reading="played"`` its measured score), ``runner_up``
    the next, ``difference`` theirs, deal by deal on the same deals, with its 95% interval,
    and ``tie`` when that interval reaches 0.

    The keys of :data:`GROUPINGS` come from the run's counts; any other column of the rows
    needs a run that kept them.
    """
    names = [keys] if isinstance(keys, str) else list(keys)
    # A grouping kept as counts serves any leading part of its keys: Chavey's count alone adds
    # up the counts by distribution count. Other keys need the rows.
    grouping = next(
        (g for g, columns in GROUPINGS.items() if list(columns[: len(names)]) == names), None
    )
    if grouping is None:
        counts = _counts_by(data.played(), names, data.contracts)
    else:
        rows = _grouping(data, grouping).reset_index()
        named = rows.rename(columns=dict(zip(_KEYS[2:], GROUPINGS[grouping], strict=False)))
        counts = named.groupby(names)[[c for c in rows.columns if c not in _KEYS]].sum()
    table = _rate_rows(counts, data.contracts, reading)
    return table[table["n"] >= min_n]


def best_choices(table: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """A table's best choice per key, as JSON: ``{key: {"best", "runner_up", "difference",
    "ci_low", "ci_high", "tie", "n"}}`` (keys of two columns written ``"1,8"``)."""
    out = {}
    for key, row in table.iterrows():
        label = ",".join(map(str, key)) if isinstance(key, tuple) else str(key)
        out[label] = {
            "best": str(row["best"]),
            "runner_up": str(row["runner_up"]),
            "difference": _number(row["difference"]),
            "ci_low": _number(row["difference_ci_low"]),
            "ci_high": _number(row["difference_ci_high"]),
            "tie": bool(row["tie"]),
            "n": int(row["n"]),
        }
    return out


def best_ranges(table: pd.DataFrame, *, min_n: int = 1, reading: str = "zero") -> pd.DataFrame:
    """Runs of consecutive values of a one-key table (:func:`table_by`) that share their
    reading, among values held by at least ``min_n`` deals: ``low``, ``high``, ``best`` (the
    best option, or for a tie both options, ``"prise ≈ garde"``, lowest first), ``tie``, ``n``
    (deals in the run), and the mean score of the best option of each value over the run's
    deals with the half-width of its 95% interval (``mean_best_score``, ``half_width``; a pass
    scores 0, or with ``reading="played"``, as the table was made, its measured score).

    >>> table = pd.DataFrame(
    ...     {"n": [300, 300, 300, 300], "best": ["pass", "prise", "garde", "garde"],
    ...      "runner_up": ["prise", "garde", "prise", "prise"], "tie": [False, True, True, False],
    ...      "best_mean_score": [0.0, 1.0, 2.0, 20.0], "prise_mean_score": [-9.0, 1.0, 1.0, 9.0],
    ...      "prise_score_half_width": [1.0] * 4, "garde_mean_score": [-19.0, 0.0, 2.0, 20.0],
    ...      "garde_score_half_width": [2.0] * 4},
    ...     index=pd.Index([40, 41, 42, 43], name="chavey"),
    ... )
    >>> best_ranges(table)[["low", "high", "best", "n"]].values.tolist()
    [[40, 40, 'pass', 300], [41, 42, 'prise ≈ garde', 600], [43, 43, 'garde', 300]]
    """
    steady = table[table["n"] >= min_n].sort_index()
    suffix = "_score_half_width"
    names = [str(c) for c in steady.columns]
    contracts = [c[: -len(suffix)] for c in names if c.endswith(suffix)]
    options = ["pass", *(c for c in contracts if not c.startswith("pass"))]
    rank = {name: k for k, name in enumerate(options)}

    def label(row: pd.Series) -> str:
        if not row["tie"]:
            return str(row["best"])
        pair = sorted((str(row["best"]), str(row["runner_up"])), key=rank.__getitem__)
        return " ≈ ".join(pair)

    labels = steady.apply(label, axis=1) if len(steady) else pd.Series(dtype=object)
    n = steady["n"].to_numpy(dtype=float)
    # Each value's sum and sum of squares of its best option's score, from its mean and the
    # half-width of its interval: the run's mean and interval are over its deals.
    _check_reading(reading)
    mean = np.zeros(len(steady))
    half = np.zeros(len(steady))
    if reading == "played":
        mean = steady["pass_played_mean_score"].to_numpy(dtype=float)
        half = steady["pass_played_score_half_width"].to_numpy(dtype=float)
    for name in options[1:]:
        here = (steady["best"] == name).to_numpy()
        mean = np.where(here, steady[f"{name}_mean_score"], mean)
        half = np.where(here, steady[f"{name}_score_half_width"], half)
    variance = (np.nan_to_num(half) / Z_95) ** 2 * n
    sums, squares = mean * n, variance * (n - 1) + n * mean**2
    rows = []
    runs = (labels != labels.shift()).cumsum()
    for _, part in steady.groupby(runs.to_numpy()):
        at = steady.index.get_indexer(part.index)
        total = float(n[at].sum())
        run_mean = float(sums[at].sum() / total)
        run_variance = (float(squares[at].sum()) - total * run_mean**2) / max(total - 1, 1)
        rows.append(
            {
                "low": part.index.min(),
                "high": part.index.max(),
                "best": labels.iloc[at[0]],
                "tie": bool(part["tie"].iloc[0]),
                "n": int(total),
                "mean_best_score": run_mean,
                "half_width": Z_95 * float(np.sqrt(max(run_variance, 0.0) / total)),
            }
        )
    columns = ["low", "high", "best", "tie", "n", "mean_best_score", "half_width"]
    return pd.DataFrame(rows, columns=columns)


def _number(value: Any) -> float | None:
    return None if pd.isna(value) else round(float(value), 4)


def _summands(played: pd.DataFrame, contracts: Sequence[str]) -> dict[str, Any]:
    """Per played row, what the counts add up: 1, whether another seat took when this one
    passed, per contract whether it made, and per option (the measured pass, then every
    contract) the seat's score and its square in
    :data:`~tarot_analysis.engine.scoring.SCORE_UNIT` ths of a point."""
    values: dict[str, Any] = {"n": np.ones(len(played), dtype=np.int64)}
    values["taken"] = played["taken"].to_numpy(dtype=np.int64)
    scores = {}
    for name in contracts:
        values[f"made_{name}"] = played[f"made_{name}"].to_numpy(dtype=np.int64)
    for name in ["pass", *contracts]:
        score = whole_units(played[f"score_{name}"], SCORE_UNIT, f"{name} score")
        scores[name] = score
        values[f"twelfths_{name}"] = score
        values[f"twelfths_sq_{name}"] = score**2
    # The products of two options' scores on the same deal: with the squares, the spread of
    # their difference deal by deal (a paired interval) comes from the counts alone.
    options = ["pass", *contracts]
    for k, first in enumerate(options):
        for second in options[k + 1 :]:
            values[f"twelfths_x_{first}_{second}"] = scores[first] * scores[second]
    return values


def _counts_by(played: pd.DataFrame, keys: list[str], contracts: Sequence[str]) -> pd.DataFrame:
    """Counts of played rows by any columns, as :func:`rows_counts` counts its groupings."""
    frame = pd.DataFrame(_summands(played, contracts), index=pd.MultiIndex.from_frame(played[keys]))
    return frame.groupby(level=keys).sum()


def _paired_sums(
    groups: pd.DataFrame,
    contracts: Sequence[str],
    first: np.ndarray,
    second: np.ndarray,
    reading: str = "zero",
) -> tuple[np.ndarray, np.ndarray]:
    """Per group, the sum and the sum of squares over its deals of the score of option
    ``first`` less that of ``second`` (names per group; ``"pass"`` scoring 0, or with
    ``reading="played"`` its measured score), in twelfths of a point: from the counts' sums,
    squares and products."""
    _check_reading(reading)
    order = {name: k for k, name in enumerate(["pass", *contracts])}
    zero = reading == "zero"
    total = np.zeros(len(groups))
    squares = np.zeros(len(groups))

    def column(*names: str) -> np.ndarray:
        """A column of the counts; zeros where a name is a pass that scores 0."""
        if zero and "pass" in names:
            return np.zeros(len(groups))
        if len(names) == 2:
            low, high = sorted(names, key=order.__getitem__)
            return groups[f"twelfths_x_{low}_{high}"].to_numpy(dtype=float)
        return groups[f"twelfths_{names[0]}"].to_numpy(dtype=float)

    def square(name: str) -> np.ndarray:
        if zero and name == "pass":
            return np.zeros(len(groups))
        return groups[f"twelfths_sq_{name}"].to_numpy(dtype=float)

    for a in [*contracts, "pass"]:
        for b in [*contracts, "pass"]:
            here = (first == a) & (second == b)
            if a == b or not here.any():
                continue
            total = np.where(here, column(a) - column(b), total)
            squares = np.where(here, square(a) + square(b) - 2 * column(a, b), squares)
    return total, squares


# --- Thresholds: a monotone rule fitted to the deals, with bootstrap intervals --------------


def monotone_choice(sums: np.ndarray) -> np.ndarray:
    """The option per value of a count that maximises the total score under a rule that never
    steps down as the count grows: ``sums[..., value, option]`` the total score of each option
    (options ordered pass, then the contracts lowest first) at each value of the count, in
    increasing order. Returns the option index per value, non-decreasing (dynamic programming;
    among rules of equal total, the one that steps up latest).

    Value by value the best options are pass, Prise, Garde, Prise, Garde; a rule that never
    steps down keeps the Garde at the fourth value (total 15, against 14 for staying at the
    Prise until the last value):

    >>> sums = [[0, -5, -9], [0, 2, -1], [0, -1, 3], [0, 4, 1], [0, 2, 9]]
    >>> monotone_choice(np.array(sums)).tolist()
    [0, 1, 2, 2, 2]
    """
    values = np.asarray(sums, dtype=float)
    count, options = values.shape[-2], values.shape[-1]
    lead = values.shape[:-2]
    best = np.zeros((*lead, options))
    came_from = np.zeros((*lead, count, options), dtype=np.int64)
    for c in range(count):
        # The best total ending at option o at this value: the best over options ≤ o before.
        prefix = np.maximum.accumulate(best, axis=-1)
        where = np.zeros((*lead, options), dtype=np.int64)
        for o in range(1, options):
            higher = best[..., o] > prefix[..., o - 1]
            where[..., o] = np.where(higher, o, where[..., o - 1])
        came_from[..., c, :] = where
        best = prefix + values[..., c, :]
    choice = np.zeros((*lead, count), dtype=np.int64)
    # Among equal totals, the lowest option last: the rule that steps up latest.
    last = np.argmax(best, axis=-1)
    choice[..., count - 1] = last
    for c in range(count - 1, 0, -1):
        here = choice[..., c][..., None]
        choice[..., c - 1] = np.take_along_axis(came_from[..., c, :], here, axis=-1)[..., 0]
    return choice


def _starts(choice: np.ndarray, values: np.ndarray, options: int) -> np.ndarray:
    """Per option after pass, the least value from which the rule names it or a higher one
    (``inf`` when it never does): ``choice[..., value]``."""
    out = np.full((*choice.shape[:-1], options - 1), np.inf)
    for o in range(1, options):
        reached = choice >= o
        first = np.argmax(reached, axis=-1)
        out[..., o - 1] = np.where(reached.any(axis=-1), values[first], np.inf)
    return out


#: Above any value of either evaluator (Chavey's count of 24 cards stays under 200).
_HIGHEST_VALUE: Final = 400


def _published_starts(evaluator: str, values: np.ndarray, size: int, options: int) -> np.ndarray:
    """The least value of the evaluator from which its published thresholds bid each contract
    or a higher one (Chavey's Garde sans and Garde contre read on the count without its
    distribution part, the one the fitted rule uses); ``inf`` when they never do."""
    del values
    grid = np.arange(0, _HIGHEST_VALUE + 1)
    if evaluator == "chavey":
        bids = evaluators.chavey_bid(grid, grid, hand_size=size)
    else:
        bids = evaluators.bouts_and_trumps_bid(grid, hand_size=size)
    return _starts(np.asarray(bids, dtype=np.int64) + 1, grid, options)


def _replicate_sums(data: GuidanceData, evaluator: str) -> tuple[np.ndarray, np.ndarray]:
    """The values of an evaluator and its bootstrap sums: ``(replicates, value, option)``."""
    rows = _grouping(data, f"replicates_{evaluator}").reset_index()
    values = np.sort(rows["key_1"].unique())
    replicates = int(rows["key_2"].max()) + 1
    sums = np.zeros((replicates, len(values), len(data.contracts) + 1))
    at = np.searchsorted(values, rows["key_1"].to_numpy())
    sums[rows["key_2"].to_numpy(), at] = _option_sums(rows, data.contracts)
    return values, sums


def thresholds(data: GuidanceData) -> pd.DataFrame:
    """Per evaluator of :data:`BOOTSTRAPPED` and contract: the value from which the monotone
    rule fitted to the run's deals (:func:`monotone_choice`) bids the contract or a higher one,
    its 95% percentile interval over the bootstrap replicates (``inf``: beyond every value
    seen), the share of replicates in which it is never bid alone, and the published
    threshold beside it. At least :data:`MIN_FIT_DEALS` deals played."""
    _check_can_fit(data)
    rows = []
    options = len(data.contracts) + 1
    for evaluator in BOOTSTRAPPED:
        groups = _grouping(data, evaluator).groupby(level="key_1").sum()
        values = groups.index.to_numpy()
        point = _starts(monotone_choice(_option_sums(groups, data.contracts)), values, options)
        replicate_values, sums = _replicate_sums(data, evaluator)
        boot = _starts(monotone_choice(sums), replicate_values, options)
        published = _published_starts(evaluator, values, data.rules.hand_size, options)
        for k, contract in enumerate(data.contracts):
            low, high = np.quantile(boot[:, k], [0.025, 0.975], method="inverted_cdf")
            # Bid alone: the rule names this contract at some value (not only a higher one).
            skipped = boot[:, k] == (boot[:, k + 1] if k + 1 < len(data.contracts) else np.inf)
            rows.append(
                {
                    "evaluator": evaluator,
                    "contract": contract,
                    "fitted": float(point[k]),
                    "ci_low": float(low),
                    "ci_high": float(high),
                    "never_alone": float(skipped.mean()),
                    "published": float(published[k]),
                    "replicates": len(boot),
                }
            )
    return pd.DataFrame(rows).set_index(["evaluator", "contract"])


def best_stability(data: GuidanceData, evaluator: str = "chavey") -> pd.Series:
    """Per value of the evaluator, the share of bootstrap replicates whose best option differs
    from the run's: how often another run of the same size would name another best."""
    groups = _grouping(data, evaluator).groupby(level="key_1").sum()
    best = np.argmax(_option_sums(groups, data.contracts), axis=1)
    values, sums = _replicate_sums(data, evaluator)
    at = np.searchsorted(values, groups.index.to_numpy())
    changed = np.argmax(sums[:, at, :], axis=-1) != best[None, :]
    index = groups.index.rename(evaluator)
    return pd.Series(changed.mean(axis=0), index=index, name="best_changes")


# --- What each rule loses against the best contract of each value -----------------------------


def _rule_choices(
    data: GuidanceData, rule: str, groups: pd.DataFrame, choosing: pd.DataFrame
) -> tuple[np.ndarray, np.ndarray]:
    """For the groups scored (index ``key_1, key_2``), the best option of their evaluator value
    and the rule's option, both chosen on the ``choosing`` counts (same evaluator)."""
    options = np.array(["pass", *data.contracts], dtype=object)
    by_value = choosing.groupby(level="key_1").sum()
    chosen_values = by_value.index.to_numpy()
    sums = _option_sums(by_value, data.contracts)
    value = groups.index.get_level_values("key_1").to_numpy()
    seen = np.isin(value, chosen_values)
    at = np.clip(np.searchsorted(chosen_values, value), 0, len(chosen_values) - 1)
    best = np.where(seen, options[np.argmax(sums, axis=1)][at], "pass")
    size = data.rules.hand_size
    if rule == "chavey":
        bids = evaluators.chavey_bid(
            value, groups.index.get_level_values("key_2").to_numpy(), hand_size=size
        )
        return best, np.asarray(evaluators.bid_names(bids), dtype=object)
    if rule == "bouts_and_trumps":
        bids = evaluators.bouts_and_trumps_bid(value, hand_size=size)
        return best, np.asarray(evaluators.bid_names(bids), dtype=object)
    # A fitted rule: the monotone choice, a step function that holds between values seen.
    choice = monotone_choice(sums)
    below = np.clip(np.searchsorted(chosen_values, value, side="right") - 1, 0, None)
    return best, np.where(value < chosen_values[0], "pass", options[choice][below])


#: The rules whose loss is measured: each evaluator's published thresholds, and the monotone
#: thresholds fitted to the deals on each evaluator.
RULES: Final = {
    "chavey": "chavey",
    "chavey_fitted": "chavey",
    "bouts_and_trumps": "bouts_and_trumps",
    "bouts_and_trumps_fitted": "bouts_and_trumps",
}


def threshold_loss(data: GuidanceData) -> pd.DataFrame:
    """What each rule of :data:`RULES` loses per deal against the best contract of each value.

    For every deal, the rule's contract is compared, on that deal, with the option of best mean
    score at the deal's evaluator value: the loss is the difference of the two scores on the
    deal (pass scores 0). Its mean and 95% interval are over deals, from the per-deal losses;
    the counts give their sum and sum of squares exactly (each group of equal evaluator value,
    and for Chavey's bids equal distribution count, has one pair of options).

    In sample, the best options and the fitted thresholds are chosen on every deal and scored
    on the same deals: the loss of the fitted rules is then optimistic. Out of sample, they are
    chosen on one fold of the deals (even deal numbers, or odd) and scored on the other, then
    the other way round; the losses of both folds are pooled, deal by deal. At least
    :data:`MIN_FIT_DEALS` deals played.
    """
    _check_can_fit(data)
    rows = []
    for rule, evaluator in RULES.items():
        measured = {}
        for scheme, pairs in (("in", [(None, None)]), ("out", [(0, 1), (1, 0)])):
            n = total = squares = scored_sum = 0.0
            for scoring, choosing in pairs:
                groups = _grouping(data, evaluator, fold=scoring)
                chooser = _grouping(data, evaluator, fold=choosing)
                best, chosen = _rule_choices(data, rule, groups, chooser)
                part, part_squares = _paired_sums(groups, data.contracts, best, chosen)
                passing = np.full(len(groups), "pass", dtype=object)
                scored, _ = _paired_sums(groups, data.contracts, chosen, passing)
                n += float(groups["n"].sum())
                total += float(part.sum())
                squares += float(part_squares.sum())
                scored_sum += float(scored.sum())
            half = float(_half_width(np.array(total), np.array(squares), np.array(n)))
            measured[scheme] = (n, total / n / SCORE_UNIT, half, scored_sum / n / SCORE_UNIT)
        n, mean, half, score = measured["in"]
        _, out_mean, out_half, out_score = measured["out"]
        rows.append(
            {
                "rule": rule,
                "evaluator": evaluator,
                "n": int(n),
                "mean_expected_score": score,
                "best_expected_score": score + mean,
                "mean_loss": mean,
                "loss_ci_half_width": half,
                "out_of_sample_expected_score": out_score,
                "out_of_sample_loss": out_mean,
                "out_of_sample_ci_half_width": out_half,
            }
        )
    return pd.DataFrame(rows).set_index("rule")


def can_fit(data: GuidanceData) -> bool:
    """Whether the run played enough deals (:data:`MIN_FIT_DEALS`) for the thresholds, their
    losses and the success model to be fitted."""
    return data.played_deals >= MIN_FIT_DEALS


def not_fitted(data: GuidanceData) -> str:
    """Why the fitted parts are left out of a run of too few deals, in one sentence."""
    played = data.played_deals
    return (
        f"thresholds and success model not fitted: {played:,} deal{'' if played == 1 else 's'} "
        f"played, fewer than the {MIN_FIT_DEALS:,} they need"
    )


def _check_can_fit(data: GuidanceData) -> None:
    if not can_fit(data):
        raise TarotInputError(not_fitted(data))


def guidance_tables(data: GuidanceData, *, progress: bool = False) -> dict[str, pd.DataFrame]:
    """Every guidance table of a run: by Chavey count with the pass read both ways (scoring 0,
    and measured: ``by_chavey_pass_played``), by bouts and trumps, by kings, the thresholds
    and what each rule loses. ``progress`` shows the step (:func:`tarot_analysis.progress.step`).
    A run of fewer than :data:`MIN_FIT_DEALS` deals played has no thresholds and no losses
    (:func:`can_fit`).
    """
    with step(SCORING, progress, detail=f"{data.rules.name} seat {data.seat}, tables") as shown:
        by_chavey = table_by(data, "chavey")
        by_chavey["best_changes"] = best_stability(data, "chavey").reindex(by_chavey.index)
        tables = {
            "by_chavey": by_chavey,
            "by_chavey_pass_played": table_by(data, "chavey", reading="played"),
            "by_bouts_trumps": table_by(data, ["bouts", "trumps"]),
            "by_kings": table_by(data, "kings"),
        }
        if not can_fit(data):
            return tables
        shown.set_postfix_str("thresholds with their bootstrap intervals")
        tables["thresholds"] = thresholds(data)
        shown.set_postfix_str("what each rule loses")
        tables["threshold_loss"] = threshold_loss(data)
    return tables


def seat_comparison(first: GuidanceData, last: GuidanceData, *, min_n: int = 1) -> pd.DataFrame:
    """The best option by Chavey count for the seat that speaks first and the one that speaks
    last, side by side: for seat 0 with the pass scoring 0 and measured; for the last seat on
    the deals every other seat passed (its pass then ends the deal: it scores 0 either way).
    Each with its deals, runner-up, paired difference and tie flag."""
    if first.rules.name != last.rules.name or first.seat != 0 or last.seat == 0:
        raise TarotInputError("compare a seat-0 run with a last-seat run of the same rules")
    parts = {
        "first": table_by(first, "chavey", min_n=min_n),
        "first_pass_played": table_by(first, "chavey", min_n=min_n, reading="played"),
        "last": table_by(last, "chavey", min_n=min_n),
    }
    columns = ["n", "best", "runner_up", "difference", "difference_ci_low",
               "difference_ci_high", "tie"]  # fmt: skip
    joined = pd.concat(
        {name: table[columns] for name, table in parts.items()}, axis=1, join="outer"
    )
    joined.columns = ["_".join(map(str, pair)) for pair in joined.columns.to_flat_index()]
    return joined.sort_index()


#: The file of a tables folder that names the runs its tables come from, and its tables.
TABLES_MANIFEST: Final = "_tables.json"
#: Tables that some runs write and others do not (the fitted model needs rows; the seats'
#: comparison needs both seats): an earlier run's, in a folder without a manifest, are removed.
_SOMETIMES_WRITTEN: Final = ("model_coefficients.csv", "by_model.csv", "by_seat.csv",
                             "calibration_*.csv")  # fmt: skip


def _earlier_tables(folder: Path) -> set[str]:
    """The tables an earlier run wrote in ``folder``: those its manifest names, or, without
    one, those only some runs write."""
    manifest = folder / TABLES_MANIFEST
    try:
        named = json.loads(manifest.read_text(encoding="utf-8"))["tables"]
        return {str(name) for name in named if Path(str(name)).name == str(name)}
    except (OSError, ValueError, KeyError, TypeError):
        return {path.name for pattern in _SOMETIMES_WRITTEN for path in folder.glob(pattern)}


def save_tables(
    tables: dict[str, pd.DataFrame], folder: str | os.PathLike[str],
    *, runs: Sequence[RunSpec] = (),
) -> list[Path]:  # fmt: skip
    """Write every table as CSV into ``folder``; return the paths.

    Each table is written whole or not at all (:func:`tarot_analysis.files.replacing`). The
    folder's manifest, ``_tables.json``, names the runs the tables come from (``runs``, their
    whole definitions) and each table with its SHA-256; tables of an earlier run that this one
    does not write (the fitted model's, after a run without rows) are removed. While the
    tables are being written the folder has no manifest: a folder left by a killed process
    names no run."""
    target = Path(folder)
    target.mkdir(parents=True, exist_ok=True)
    remove_stale(target)  # left by a process killed while writing
    manifest = target / TABLES_MANIFEST
    earlier = _earlier_tables(target)
    manifest.unlink(missing_ok=True)
    paths, digests = [], {}
    for name, table in tables.items():
        path = target / f"{name}.csv"
        with replacing(path) as temporary:
            with open(temporary, "w", encoding="utf-8", newline="") as handle:
                table.to_csv(handle)
            digests[path.name] = hashlib.sha256(temporary.read_bytes()).hexdigest()
        paths.append(path)
    for stale in sorted(earlier - set(digests)):
        (target / stale).unlink(missing_ok=True)
    described = {"format": 1, "runs": [spec.to_json() for spec in runs], "tables": digests}
    write_text(manifest, json.dumps(described, indent=2) + "\n")
    return paths


# --- A success model fitted on simulated outcomes, against Chavey's count -------------------

#: The features the model is fitted on, none inside another: the plain trumps (2 to 20) apart
#: from the three bouts, each bout on its own, the honours by rank, and the shape. (The bouts
#: count the Excuse, and the trumps the Petit and the 21: on those, a coefficient would be
#: read against another that already holds part of it.) Card points are left out: they add up
#: the bouts and honours already there.
MODEL_FEATURES = (
    "plain_trumps",
    "petit",
    "twenty_one",
    "excuse",
    "kings",
    "queens",
    "knights",
    "jacks",
    "voids",
    "singletons",
    "longest_suit",
)


def model_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows with the model's derived features (``plain_trumps``) added."""
    missing = {"petit", "twenty_one", "knights", "jacks"} - set(frame.columns)
    if missing:
        raise TarotInputError(
            f"these guidance rows lack {', '.join(sorted(missing))}: they were written by an "
            "older version; run the guidance again into a new folder"
        )
    return frame.assign(plain_trumps=frame["trumps"] - frame["petit"] - frame["twenty_one"])


@dataclass(frozen=True)
class SuccessModel:
    """Logistic regression of a contract's success on hand features: a binomial GLM with its
    coefficients per unit of each feature, their standard errors and 95% intervals."""

    contract: str
    features: tuple[str, ...]
    coefficients: np.ndarray  # intercept first, then one per feature, log-odds per unit
    standard_errors: np.ndarray
    scale: np.ndarray  # each feature's standard deviation on the deals fitted
    n: int

    def predict(self, frame: pd.DataFrame) -> np.ndarray:
        """Probability of success of each row."""
        x = frame[list(self.features)].to_numpy(dtype=float)
        return _sigmoid(self.coefficients[0] + x @ self.coefficients[1:])

    def table(self) -> pd.DataFrame:
        """Per feature: the log-odds per unit with its standard error and 95% interval, the
        odds ratio per unit, and the log-odds per standard deviation of the feature."""
        per_unit = self.coefficients[1:]
        error = self.standard_errors[1:]
        return pd.DataFrame(
            {
                "per_unit": per_unit,
                "std_error": error,
                "ci_low": per_unit - Z_95 * error,
                "ci_high": per_unit + Z_95 * error,
                "odds_ratio": np.exp(per_unit),
                "per_sd": per_unit * self.scale,
            },
            index=pd.Index(self.features, name="feature"),
        )


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(z, -40, 40)))


def fit_logistic(
    frame: pd.DataFrame, target: str, features: Sequence[str], contract: str
) -> SuccessModel:
    """Maximum-likelihood logistic regression (statsmodels' binomial GLM, fitted by iteratively
    reweighted least squares), with the standard errors of its coefficients."""
    import statsmodels.api as sm

    x = frame[list(features)].to_numpy(dtype=float)
    y = frame[target].to_numpy(dtype=float)
    design = np.column_stack([np.ones(len(x)), x])
    fit = sm.GLM(y, design, family=sm.families.Binomial()).fit()
    return SuccessModel(
        contract=contract,
        features=tuple(features),
        coefficients=np.asarray(fit.params, dtype=float),
        standard_errors=np.asarray(fit.bse, dtype=float),
        scale=x.std(axis=0),
        n=len(y),
    )


def auc(y: np.ndarray, p: np.ndarray) -> float:
    """Area under the ROC curve (Mann–Whitney), ties counted half."""
    from scipy.stats import rankdata

    positives = y.astype(bool)
    n1, n0 = positives.sum(), (~positives).sum()
    if n1 == 0 or n0 == 0:
        return float("nan")
    ranks = rankdata(p)
    return float((ranks[positives].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


def _losses(y: np.ndarray, p: np.ndarray) -> dict[str, np.ndarray]:
    """Per-deal Brier and log-loss terms: their means are the scores."""
    eps = 1e-12
    return {
        "brier": (p - y) ** 2,
        "log_loss": -(y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps)),
    }


def _mean_interval(values: np.ndarray) -> dict[str, float]:
    mean = float(values.mean())
    half = Z_95 * float(values.std(ddof=1)) / np.sqrt(len(values))
    return {"value": mean, "ci_low": mean - half, "ci_high": mean + half}


def compare_evaluators(
    data: GuidanceData,
    contract: str = "garde",
    *,
    held_out: float = 0.2,
    boot: int = 100,
    seed: int = 0,
    progress: bool = False,
) -> dict[str, Any]:
    """Fit the success model on the first deals, then compare it with Chavey's count (as a
    one-feature logistic, so that both give probabilities) on the held-out last deals.

    Brier score and log loss are means of per-deal terms: their 95% intervals, and those of
    the paired differences, come from the central limit theorem. AUC and its difference get
    a bootstrap 95% interval over held-out deals. Also each predictor's calibration by tenths
    of predicted probability, the best contract by tenth of the fitted model's probability on
    the held-out deals (``by_model``, as :func:`table_by`), and the caveats of reading it, one
    sentence each. ``progress`` shows the step (:func:`tarot_analysis.progress.step`).
    At least :data:`MIN_FIT_DEALS` deals played.
    """
    _check_can_fit(data)
    where = f"{data.rules.name} seat {data.seat}, the success model of {contract}"
    with step(FITTING, progress, detail=where) as shown:
        played = model_frame(data.played().sort_values("deal"))
        cut = int(len(played) * (1 - held_out))
        train, test = played.iloc[:cut], played.iloc[cut:]
        target = f"made_{contract}"
        model = fit_logistic(train, target, MODEL_FEATURES, contract)
        chavey = fit_logistic(train, target, ("chavey",), contract)
        y = test[target].to_numpy(dtype=float)
        predictions = {"fitted": model.predict(test), "chavey": chavey.predict(test)}
        losses = {name: _losses(y, p) for name, p in predictions.items()}
        shown.set_postfix_str("bootstrap intervals of the AUC")
        rng = np.random.default_rng(seed)
        samples = rng.integers(0, len(y), size=(boot, len(y)))
        boot_auc = {
            name: np.array([auc(y[s], p[s]) for s in samples]) for name, p in predictions.items()
        }
    result: dict[str, Any] = {"contract": contract, "n_train": len(train), "n_test": len(test)}
    for name, p in predictions.items():
        result[name] = {metric: _mean_interval(values) for metric, values in losses[name].items()}
        result[name]["auc"] = {
            "value": auc(y, p),
            "ci_low": float(np.percentile(boot_auc[name], 2.5)),
            "ci_high": float(np.percentile(boot_auc[name], 97.5)),
        }
    difference = {
        metric: _mean_interval(losses["fitted"][metric] - losses["chavey"][metric])
        for metric in ("brier", "log_loss")
    }
    gap = boot_auc["fitted"] - boot_auc["chavey"]
    difference["auc"] = {
        "value": result["fitted"]["auc"]["value"] - result["chavey"]["auc"]["value"],
        "ci_low": float(np.percentile(gap, 2.5)),
        "ci_high": float(np.percentile(gap, 97.5)),
    }
    result["fitted_minus_chavey"] = difference
    result["coefficients"] = model.table()
    result["calibration"] = {name: calibration(y, p) for name, p in predictions.items()}
    band = np.clip((predictions["fitted"] * PROBABILITY_BANDS).astype(np.int64), 0, 9)
    by_band = _counts_by(test.assign(band=band), ["band"], data.contracts)
    by_model = _rate_rows(by_band, data.contracts)
    by_model.index = pd.Index(
        [f"{b / PROBABILITY_BANDS:.1f}-{(b + 1) / PROBABILITY_BANDS:.1f}" for b in by_model.index],
        name=f"{contract}_probability",
    )
    result["by_model"] = by_model
    result["caveats"] = model_caveats(result, data.bots)
    return result


#: The fitted model's probability is read in tenths.
PROBABILITY_BANDS: Final = 10


def model_caveats(comparison: dict[str, Any], bots: Sequence[str]) -> list[str]:
    """What a reader of the fitted model should keep in mind, one sentence each: the ones that
    hold for every run, and those its calibration shows."""
    contract = str(comparison["contract"]).replace("_", " ")
    who = bots[0] if len(set(bots)) == 1 else ", ".join(bots)
    caveats = [
        f"The model predicts whether a {contract} makes with {who} bots at every seat; other "
        "players make and break other contracts.",
        "Each coefficient is the change in log-odds for one more of that feature with every "
        "other feature held fixed; in real hands the features move together (more trumps "
        "leave fewer suit cards), so a coefficient alone is not what one more card is worth.",
        "The intervals are those of the coefficients given the model's form: a logistic on "
        "counts, with no interaction (a king is worth the same in a long suit as in a short "
        "one).",
    ]
    table = comparison["calibration"]["fitted"]
    for low, high, word in ((0.0, 0.3, "low"), (0.3, 0.7, "middle"), (0.7, 1.0, "high")):
        rows = table[(table["predicted"] >= low) & (table["predicted"] < high + 1e-12)]
        under = rows[rows["ci_low"] > rows["predicted"]]
        over = rows[rows["ci_high"] < rows["predicted"]]
        for kind, found in (("under", under), ("over", over)):
            if len(found) == 0:
                continue
            worst = found.iloc[int(np.argmax(np.abs(found["observed"] - found["predicted"])))]
            caveats.append(
                f"At {word} predicted chances the model {kind}-predicts: where it predicts "
                f"{worst['predicted']:.1%}, {worst['observed']:.1%} of the held-out deals made "
                f"(95% interval {worst['ci_low']:.1%} to {worst['ci_high']:.1%}, "
                f"{int(worst['n']):,} deals)."
            )
    return caveats


def calibration(y: np.ndarray, p: np.ndarray, bins: int = 10) -> pd.DataFrame:
    """Mean predicted probability and observed rate (with Wilson interval) per tenth of p."""
    edges = np.linspace(0, 1, bins + 1)
    which = np.clip(np.digitize(p, edges) - 1, 0, bins - 1)
    rows = []
    for b in range(bins):
        chosen = which == b
        n = int(chosen.sum())
        if n == 0:
            continue
        made = int(y[chosen].sum())
        low, high = wilson_interval(made, n)
        rows.append({"bin": b, "n": n, "predicted": float(p[chosen].mean()), "observed": made / n,
                     "ci_low": float(low), "ci_high": float(high)})  # fmt: skip
    return pd.DataFrame(rows).set_index("bin")
