"""The counts of a guidance run: the deals played, one row per deal, and their sums.

:func:`run_guidance` deals many hands to seat 0 (or to the last seat) and plays each deal under
every contract (:mod:`tarot_analysis.analyses.counterfactual`), and once more with that seat made to
pass and the others bidding on, streaming one row per deal to a resumable Parquet dataset
(:mod:`tarot_analysis.runs.runner`): the hand's features, its evaluator scores, for each contract
whether it made and the seat's score, and the seat's score when it passed. :func:`rows_counts` sums
the rows per value of each grouping, the sufficient statistics every table is made from (with the
bootstrap sums of :mod:`tarot_analysis.bootstrap`); :func:`merge_counts` adds up those of disjoint
chunks; :class:`GuidanceData` holds what a run produced.

Also what the tables, the thresholds and the model read from the counts: a grouping's counts,
each option's sums under either reading of the pass, the paired sums of two options, the
half-width of a mean, and whether a run played enough deals (:data:`MIN_FIT_DEALS`) for the
fitted parts.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import pandas as pd
import pyarrow as pa

from tarot_analysis.analyses.counterfactual import play_every_contract, play_passing
from tarot_analysis.bootstrap import REPLICATES, replicate_sums
from tarot_analysis.deals import evaluators
from tarot_analysis.deals.deal import DealStream, deal_chunk, make_plan
from tarot_analysis.deals.features import FEATURES, hand_features
from tarot_analysis.engine.scoring import SCORE_UNIT, whole_units
from tarot_analysis.errors import TarotInputError, run_numbers
from tarot_analysis.game.rules import Rules
from tarot_analysis.runs.progress import PLAYING_EVERY_CONTRACT, SCORING, step
from tarot_analysis.runs.runner import RunResult, RunSpec, iter_chunks, read_dataset, run
from tarot_analysis.stats import Z_95
from tarot_analysis.table.play import Bots, python_threads, seat_bots

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
    deals, chunk_size, threads = run_numbers(deals, chunk_size, threads)
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


def first_seat_plays(rules: Rules, deals: int, seed: int, chunk_size: int, *, enough: int) -> int:
    """How many deals of the guidance run of ``deals`` deals of ``seed`` (chunks of
    ``chunk_size``) seat 0's tables count (:attr:`GuidanceData.played_deals`): every deal but
    those dealt again for a Petit sec, found from the dealer alone, no deal played. Counted
    chunk by chunk, the count stops once it reaches ``enough``."""
    plan = make_plan(rules)
    petit_sec = FEATURES.index("petit_sec")
    played = 0
    for chunk in range(-(-deals // chunk_size)):
        n = min(chunk_size, deals - chunk * chunk_size)
        masks, _ = deal_chunk(plan, DealStream.open(plan, _chunk_seed(seed, chunk), 0), n)
        redealt = np.zeros(n, dtype=bool)
        if rules.petit_sec_redeal:
            for seat in range(rules.players):
                redealt |= hand_features(masks[:, seat], rules)[:, petit_sec].astype(bool)
        played += n - int(redealt.sum())
        if played >= enough:
            break
    return played


def check_enough_to_fit(rules: Rules, deals: int, seed: int, chunk_size: int) -> None:
    """Refuse, before any deal is played, a guidance run of seat 0 whose tables would count
    fewer than :data:`MIN_FIT_DEALS` deals once the Petit sec redeals are left out: its
    thresholds and model could not be fitted. The line names the fewest deals that do."""
    played = first_seat_plays(rules, deals, seed, chunk_size, enough=MIN_FIT_DEALS)
    if played >= MIN_FIT_DEALS:
        return
    redealt = deals - played  # every chunk was counted
    enough, more = deals, played
    while more < MIN_FIT_DEALS:
        enough += MIN_FIT_DEALS - more
        more = first_seat_plays(rules, enough, seed, chunk_size, enough=MIN_FIT_DEALS)
    raise TarotInputError(
        f"a report needs at least {MIN_FIT_DEALS:,} deals played, to fit its thresholds and its "
        f"model: {played:,} of {deals:,} deals of seed {seed} are played, {redealt:,} dealt "
        f"again for a Petit sec; ask for {enough:,} deals or more"
    )


def _check_can_fit(data: GuidanceData) -> None:
    if not can_fit(data):
        raise TarotInputError(not_fitted(data))
