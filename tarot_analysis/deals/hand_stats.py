"""Hand statistics of a preset: what the deal alone decides, simulated beside its exact value.

A run deals chunk after chunk, counts every feature value of every hand and dog into small
histograms (a few kilobytes, whatever the number of deals), and turns them into tables: each
row has ``n``, ``count``, the simulated rate, its Wilson interval and the exact value, and each
table a chi-square goodness-of-fit test against the exact distribution.

Hands of one deal are dealt from one pack, so they are not independent of each other. Rates
pool every seat (n = deals × players) and their intervals treat hands as independent, which
is slightly conservative for the features here; the goodness-of-fit tests use seat 0 alone,
whose hands are independent from deal to deal.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Callable, Mapping
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import pandas as pd
from numba import njit

from tarot_analysis import __version__
from tarot_analysis._jit import normalise_seed
from tarot_analysis.deals import exact
from tarot_analysis.deals.deal import DEFAULT_CHUNK_SIZE, DealStream, deal_chunk_features, make_plan
from tarot_analysis.deals.features import FEATURES, N_FEATURES, features_frame
from tarot_analysis.errors import run_numbers
from tarot_analysis.game.rules import Rules
from tarot_analysis.runs.files import replacing
from tarot_analysis.runs.progress import DEALING
from tarot_analysis.runs.progress import bar as progress_bar
from tarot_analysis.runs.simulate import check_output_path, map_chunks, run_metadata, seed_label
from tarot_analysis.stats import chi_square_gof, rate_table

__all__ = ["HandCounts", "HandStats", "run_hands"]

#: Largest value a feature can take (half points of a whole pack), plus one.
N_VALUES: Final = 256
POIGNEE_LEVELS: Final = ("simple", "double", "triple")
#: Deals dealt, counted and forgotten at a time inside a chunk.
_BLOCK: Final = 4096
_POIGNEE: Final = FEATURES.index("poignee")
_PETIT_SEC: Final = FEATURES.index("petit_sec")
#: Tables shown by default, per hand (and the dog where it says so).
HAND_TABLES: Final = ("bouts", "trumps", "kings", "voids", "singletons", "longest_suit")


@njit(cache=True, nogil=True)
def _count(
    features: Any, players: int, by_group: Any, table_poignee: Any, table_petit_sec: Any
) -> None:
    """Add a chunk's features, shape ``(n, groups, F)``, to the histograms (in place)."""
    n, groups, n_features = features.shape
    flat = features.reshape(n, groups * n_features)
    histogram = by_group.reshape(groups * n_features * N_VALUES)
    poignee = _POIGNEE
    petit_sec = _PETIT_SEC
    # One feature at a time over all deals, so that its counters stay in the nearest cache,
    # spread over four copies so that runs of equal values do not queue on one counter.
    lanes = np.zeros((4, N_VALUES), dtype=np.int64)
    for k in range(groups * n_features):
        lanes[:] = 0
        d = 0
        while d + 4 <= n:
            lanes[0, flat[d, k]] += 1
            lanes[1, flat[d + 1, k]] += 1
            lanes[2, flat[d + 2, k]] += 1
            lanes[3, flat[d + 3, k]] += 1
            d += 4
        while d < n:
            lanes[0, flat[d, k]] += 1
            d += 1
        base = k * N_VALUES
        for v in range(N_VALUES):
            histogram[base + v] += lanes[0, v] + lanes[1, v] + lanes[2, v] + lanes[3, v]
    for d in range(n):
        best_poignee = 0
        any_petit_sec = 0
        for g in range(players):
            best_poignee = max(best_poignee, flat[d, g * n_features + poignee])
            any_petit_sec |= flat[d, g * n_features + petit_sec]
        table_poignee[best_poignee] += 1
        table_petit_sec[any_petit_sec] += 1


@dataclass
class HandCounts:
    """Sufficient statistics of a hand-statistics run: histograms that merge by addition."""

    groups: int
    deals: int = 0
    by_group: npt.NDArray[np.int64] = field(init=False)  # (groups, features, values)
    table_poignee: npt.NDArray[np.int64] = field(init=False)  # best level at the table
    table_petit_sec: npt.NDArray[np.int64] = field(init=False)  # deals with / without

    def __post_init__(self) -> None:
        self.by_group = np.zeros((self.groups, N_FEATURES, N_VALUES), dtype=np.int64)
        self.table_poignee = np.zeros(4, dtype=np.int64)
        self.table_petit_sec = np.zeros(2, dtype=np.int64)

    def add_features(self, features: npt.NDArray[np.uint8], players: int) -> None:
        """Count the features of a chunk of deals, shape ``(n, groups, F)``."""
        _count(features, players, self.by_group, self.table_poignee, self.table_petit_sec)
        self.deals += features.shape[0]

    def merge(self, other: HandCounts) -> None:
        """Add another run's counts to these."""
        self.by_group += other.by_group
        self.table_poignee += other.table_poignee
        self.table_petit_sec += other.table_petit_sec
        self.deals += other.deals


@dataclass
class HandStats:
    """The result of :func:`run_hands`: counts, and tables built from them on demand."""

    rules: Rules
    counts: HandCounts
    seed: np.random.SeedSequence
    chunk_size: int
    metadata: dict[str, Any]

    @property
    def deals(self) -> int:
        """Number of deals counted."""
        return self.counts.deals

    def _histogram(self, feature: str, *, dog: bool = False, seat: int | None = None) -> pd.Series:
        f = FEATURES.index(feature)
        players = self.rules.players
        if dog:
            counts = self.counts.by_group[players, f]
        elif seat is not None:
            counts = self.counts.by_group[seat, f]
        else:
            counts = self.counts.by_group[:players, f].sum(axis=0)
        size = self.rules.dog_size if dog else self.rules.hand_size
        top = size if feature != "half_points" else N_VALUES - 1
        return pd.Series(counts[: top + 1], index=pd.RangeIndex(top + 1, name=feature))

    def _exact(self, feature: str, size: int) -> pd.Series:
        rules = self.rules
        points = rules.card_points
        class_points = {
            "bout": points.bout, "king": points.king, "queen": points.queen,
            "knight": points.knight, "jack": points.jack, "other": points.other,
        }  # fmt: skip
        name = "points" if feature == "half_points" else feature
        distribution = exact.hand_distribution(
            name, size, thresholds=rules.poignee.thresholds, class_points=class_points
        )
        if feature == "half_points":
            distribution.index = (distribution.index.to_numpy() * 2).round().astype(int)
        return distribution

    def table(self, feature: str, *, dog: bool = False) -> pd.DataFrame:
        """Distribution of ``feature`` per hand (or in the dog), simulated beside exact.

        ``attrs["gof"]`` holds the chi-square test of seat 0 (or the dog) against the exact law.
        """
        size = self.rules.dog_size if dog else self.rules.hand_size
        observed = self._histogram(feature, dog=dog)
        expected = self._exact(feature, size)
        observed = observed.reindex(
            expected.index.union(observed[observed > 0].index), fill_value=0
        )
        n = int(observed.sum())
        table = rate_table(observed, n, expected.reindex(observed.index, fill_value=0.0))
        one_seat = self._histogram(feature, dog=dog, seat=None if dog else 0)
        one_seat = one_seat.reindex(observed.index, fill_value=0)
        table.attrs["gof"] = chi_square_gof(
            one_seat, expected.reindex(observed.index, fill_value=0.0)
        )
        table.attrs["who"] = "dog" if dog else "hand"
        table = table[(table["count"] > 0) | (table["exact"] > 1e-12)]
        if feature == "half_points":
            table.index = table.index / 2
            table.index.name = "points"
        return table

    def poignee(self) -> pd.DataFrame:
        """Poignée frequencies: per hand (at least each level) and per deal (someone holds it)."""
        rules = self.rules
        thresholds = rules.poignee.thresholds
        hand = self._histogram("poignee")
        at_least_hand = pd.Series(
            [int(hand.iloc[level:].sum()) for level in (1, 2, 3)], index=list(POIGNEE_LEVELS)
        )
        at_least_deal = pd.Series(
            [int(self.counts.table_poignee[level:].sum()) for level in (1, 2, 3)],
            index=list(POIGNEE_LEVELS),
        )
        per_hand = rate_table(
            at_least_hand, int(hand.sum()), exact.poignee_at_least(rules.hand_size, thresholds)
        )
        per_deal = rate_table(
            at_least_deal,
            self.deals,
            exact.poignee_per_deal(rules.players, rules.hand_size, rules.dog_size, thresholds),
        )
        per_hand = per_hand.reindex(list(POIGNEE_LEVELS))
        per_deal = per_deal.reindex(list(POIGNEE_LEVELS))
        per_hand.insert(0, "per", "hand")
        per_deal.insert(0, "per", "deal")
        table = pd.concat([per_hand, per_deal])
        table.index.name = "poignee"
        table.insert(1, "trumps_with_excuse", [*thresholds, *thresholds])
        return table

    def petit_sec(self) -> pd.DataFrame:
        """How often a hand holds the Petit sec, and how often a deal has one (and is redealt)."""
        rules = self.rules
        hand = self._histogram("petit_sec")
        counts = pd.Series(
            [int(hand.iloc[1]), int(self.counts.table_petit_sec[1])], index=["per_hand", "per_deal"]
        )
        exact_values = pd.Series(
            [
                exact.petit_sec_per_hand(rules.hand_size),
                exact.petit_sec_per_deal(rules.players, rules.hand_size),
            ],
            index=counts.index,
        )
        table = rate_table(counts.iloc[:1], int(hand.sum()), exact_values.iloc[:1])
        table = pd.concat([table, rate_table(counts.iloc[1:], self.deals, exact_values.iloc[1:])])
        table.index.name = "petit_sec"
        return table

    def tables(self) -> dict[str, pd.DataFrame]:
        """Every table: the hand distributions, poignée, petit sec, and the dog's bouts."""
        out = {name: self.table(name) for name in HAND_TABLES}
        out["poignee"] = self.poignee()
        out["petit_sec"] = self.petit_sec()
        out["points"] = self.table("half_points")
        if self.rules.dog_size > 0:
            out["dog_bouts"] = self.table("bouts", dog=True)
        return out

    def to_json(self) -> dict[str, Any]:
        """A JSON-able summary: rules, deals, seed, and every table's rates and intervals."""

        def rows(table: pd.DataFrame) -> dict[str, dict[str, float | int | None]]:
            out: dict[str, dict[str, float | int | None]] = {}
            for key, row in table.iterrows():
                label = str(int(key)) if isinstance(key, (int, np.integer)) else str(key)
                if isinstance(key, float) and key.is_integer():
                    label = str(int(key))
                out[label] = {
                    "n": int(row["n"]),
                    "count": int(row["count"]),
                    "simulated": float(row["simulated"]),
                    "ci_low": float(row["ci_low"]),
                    "ci_high": float(row["ci_high"]),
                    "exact": None if math.isnan(row["exact"]) else float(row["exact"]),
                }
            return out

        tables = self.tables()
        poignee = tables.pop("poignee")
        result: dict[str, Any] = {
            "rules": self.rules.name,
            "deals": self.deals,
            "seed": seed_label(self.seed),
            "chunk_size": self.chunk_size,
            "version": __version__,
            "poignee": rows(poignee[poignee["per"] == "hand"]),
            "poignee_per_deal": rows(poignee[poignee["per"] == "deal"]),
        }
        for name, table in tables.items():
            result[name] = rows(table)
            if "gof" in table.attrs:
                gof = table.attrs["gof"]
                result.setdefault("goodness_of_fit", {})[name] = {
                    "statistic": float(gof.statistic),
                    "dof": int(gof.dof),
                    "p_value": float(gof.p_value),
                }
        result["metadata"] = self.metadata
        return result


def run_hands(
    rules: Rules,
    deals: int,
    seed: int | np.random.SeedSequence | None = None,
    *,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    threads: int | None = None,
    progress: bool = False,
    out: str | Path | None = None,
    on_chunk: Callable[[int], None] | None = None,
    client: Any = None,
) -> HandStats:
    """Deal ``deals`` deals of ``rules`` and count their hand features.

    ``client``: a Dask client to run the chunks on
    (:func:`tarot_analysis.runs.cluster.dask_client`); the result is the same as on local threads.

    ``out`` (a ``.parquet`` path) also saves every hand's features, one row per seat and dog,
    with the run's metadata. Memory stays bounded: chunks are counted and written as they come.
    """
    deals, chunk_size, threads = run_numbers(deals, chunk_size, threads)
    root = normalise_seed(seed)
    plan = make_plan(rules)
    n_chunks = -(-deals // chunk_size)
    metadata = run_metadata(rules, root, chunk_size, deals)
    total = HandCounts(plan.groups)

    def work(chunk: int) -> tuple[int, HandCounts, npt.NDArray[np.uint8] | None]:
        size = min(chunk_size, deals - chunk * chunk_size)
        stream = DealStream.open(plan, root, chunk)
        features = _scratch(plan.groups)
        counts = HandCounts(plan.groups)
        kept = []
        # Blocks small enough for the core's cache, in buffers each thread reuses; the stream
        # carries over, so the deals are those of one call over the whole chunk.
        for start in range(0, size, _BLOCK):
            block = min(_BLOCK, size - start)
            deal_chunk_features(plan, stream, block, features[:block])
            counts.add_features(features[:block], rules.players)
            if out is not None:
                kept.append(features[:block].copy())
        return chunk, counts, (np.concatenate(kept) if kept else None)

    if out is not None:
        check_output_path(out)
    with ExitStack() as stack:
        writer = None
        if out is not None:  # written whole under a temporary name, renamed at the end
            writer = stack.enter_context(
                _FeatureWriter(stack.enter_context(replacing(out)), rules, metadata)
            )
        bar = stack.enter_context(progress_bar(DEALING, deals, enabled=progress, detail=rules.name))
        for chunk, counts, features in map_chunks(
            work, range(n_chunks), threads=threads, progress=bar,
            progress_step=lambda result: result[1].deals, client=client,
        ):  # fmt: skip
            total.merge(counts)
            if writer is not None and features is not None:
                writer.write(features, first_deal=chunk * chunk_size)
            if on_chunk is not None:
                on_chunk(chunk)
    return HandStats(rules=rules, counts=total, seed=root, chunk_size=chunk_size, metadata=metadata)


_SCRATCH = threading.local()


def _scratch(groups: int) -> npt.NDArray[np.uint8]:
    """This thread's reusable block buffer of features."""
    store = _SCRATCH
    features: npt.NDArray[np.uint8] | None = getattr(store, "features", None)
    if features is None or features.shape[1] != groups:
        features = np.empty((_BLOCK, groups, N_FEATURES), dtype=np.uint8)
        store.features = features
    return features


class _FeatureWriter:
    """Streams per-hand features to one Parquet file, metadata in its schema, a checksum on
    each page; closed at the end of its ``with`` block."""

    def __init__(self, path: str | Path, rules: Rules, metadata: Mapping[str, Any]) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        self._pa = pa
        self._rules = rules
        self._path = Path(path)
        self._metadata = {b"tarot_analysis": json.dumps(dict(metadata)).encode()}
        self._writer: Any = None
        self._pq = pq

    def write(self, features: npt.NDArray[np.uint8], *, first_deal: int) -> None:
        frame = features_frame(features, self._rules, first_deal=first_deal)
        table = self._pa.Table.from_pandas(frame, preserve_index=False)
        if self._writer is None:
            schema = table.schema.with_metadata(self._metadata)
            self._writer = self._pq.ParquetWriter(
                self._path, schema, compression="zstd", write_page_checksum=True
            )
        self._writer.write_table(table.replace_schema_metadata(self._metadata))

    def __enter__(self) -> _FeatureWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None
