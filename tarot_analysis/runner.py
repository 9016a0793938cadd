"""Long runs that survive interruption: chunks streamed to a Parquet dataset, resumable.

A run is defined by what it computes (its ``kind``), its rules, bots, seed, number of deals and
chunk size. Chunks are fixed by that definition, so chunk *k* holds the same rows whoever
computes it, whenever. Each finished chunk is written to its own Parquet file in the run's
folder (to a temporary name, then renamed: a file that exists is complete), with the run's
metadata in the file. Run the same command again after an interruption and the chunks on disk
are kept; only the missing ones are computed. Memory stays bounded: a chunk is written and
forgotten before more than a few are in flight.

>>> import tempfile
>>> import pyarrow as pa
>>> spec = RunSpec(kind="example", rules="fft-4", bots=("random",), seed=1, deals=10, chunk_size=4)
>>> folder = tempfile.mkdtemp()
>>> done = run(spec, folder, lambda chunk, first, n: pa.table({"deal": range(first, first + n)}))
>>> done.chunks, len(read_dataset(folder))
(3, 10)

A run folder is a Parquet dataset, as any reader sees it:

>>> import pandas as pd
>>> pd.read_parquet(folder)["deal"].tolist() == list(range(10))
True
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final

import pyarrow as pa
import pyarrow.parquet as pq

from tarot_analysis import __version__
from tarot_analysis.errors import TarotInputError
from tarot_analysis.progress import bar as progress_bar
from tarot_analysis.simulate import check_writable_folder, map_chunks

__all__ = ["RunResult", "RunSpec", "chunk_path", "read_dataset", "run"]

#: The run's definition beside its chunks. Its name starts with an underscore, which Parquet
#: readers skip (as they skip the dot of a chunk being written): ``pandas.read_parquet(folder)``
#: reads the chunks alone.
SPEC_FILE: Final = "_run.json"
#: Where folders written before kept it; read, and renamed, when found.
OLD_SPEC_FILE: Final = "run.json"
METADATA_KEY: Final = b"tarot_analysis"


@dataclass(frozen=True)
class RunSpec:
    """Everything that decides a run's rows. Two runs with equal specs write equal files."""

    kind: str  # what is computed: "hands", "play", "contracts", ...
    rules: str  # the preset's name (the full definition goes in ``extra``)
    bots: tuple[str, ...]
    seed: int
    deals: int
    chunk_size: int
    extra: dict[str, Any] = field(default_factory=dict)  # anything else that changes the rows

    @property
    def chunks(self) -> int:
        """How many chunks the run has."""
        return -(-self.deals // self.chunk_size)

    def chunk_bounds(self, chunk: int) -> tuple[int, int]:
        """First deal and number of deals of chunk ``chunk``."""
        first = chunk * self.chunk_size
        return first, min(self.chunk_size, self.deals - first)

    def to_json(self) -> dict[str, Any]:
        """The spec as JSON-able data, with the package version that wrote it."""
        data = asdict(self)
        data["bots"] = list(self.bots)
        data["version"] = __version__
        return data


@dataclass(frozen=True)
class RunResult:
    """What a call to :func:`run` did."""

    folder: Path
    chunks: int  # chunks of the run, all on disk now
    computed: int  # chunks computed by this call
    resumed: int  # chunks found on disk from an earlier call


def chunk_path(folder: str | os.PathLike[str], chunk: int) -> Path:
    """Where chunk ``chunk`` of the run in ``folder`` is stored."""
    return Path(folder) / f"chunk-{chunk:06d}.parquet"


def _check_spec(folder: Path, spec: RunSpec) -> None:
    """Refuse to mix chunks of different runs in one folder."""
    path = folder / SPEC_FILE
    old = folder / OLD_SPEC_FILE
    if old.exists() and not path.exists():
        old.replace(path)
    wanted = spec.to_json()
    if path.exists():
        found = json.loads(path.read_text(encoding="utf-8"))
        differing = sorted(
            key for key in wanted if key != "version" and found.get(key) != wanted[key]
        )
        if differing:
            raise TarotInputError(
                f"{folder} holds a different run ({', '.join(differing)} differ): "
                "use another folder, or delete it to start again"
            )
    else:
        folder.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(".json.tmp")
        temporary.write_text(json.dumps(wanted, indent=2), encoding="utf-8")
        temporary.replace(path)


def _is_complete(path: Path, spec: RunSpec, chunk: int) -> bool:
    """A chunk file counts only if it is readable and says it is this chunk of this run."""
    if not path.exists():
        return False
    try:
        metadata = pq.read_schema(path).metadata or {}
        written = json.loads(metadata[METADATA_KEY])
    except (OSError, KeyError, ValueError, pa.ArrowInvalid):
        return False
    return bool(written.get("chunk") == chunk and written.get("seed") == spec.seed)


def run(
    spec: RunSpec,
    folder: str | os.PathLike[str],
    work: Callable[[int, int, int], pa.Table],
    *,
    threads: int | None = None,
    progress: bool = False,
    metadata: dict[str, Any] | None = None,
    client: Any = None,
    phase: str = "computing",
    detail: str | None = None,
) -> RunResult:
    """Compute every chunk of ``spec`` missing from ``folder`` with ``work(chunk, first, n)``.

    ``work`` returns the chunk's rows as an Arrow table. Chunks already on disk are kept;
    an interrupted call (Ctrl-C, a killed process) leaves only complete chunk files behind.
    ``metadata`` is stored in every chunk file beside the spec. ``client``: a Dask client
    (:mod:`tarot_analysis.cluster`) to compute the chunks on; they are written here.
    ``phase`` and ``detail`` name the progress bar (:func:`tarot_analysis.progress.bar`);
    ``detail`` defaults to the kind of run and its rules.
    """
    target = Path(folder)
    if target.exists() and not target.is_dir():
        raise TarotInputError(f"cannot use {target} for a run: it is a file, not a folder")
    check_writable_folder(target, " for the run's chunks")
    _check_spec(target, spec)
    for stale in target.glob(".chunk-*.tmp"):  # left by a process killed while writing
        stale.unlink(missing_ok=True)
    missing = [c for c in range(spec.chunks) if not _is_complete(chunk_path(target, c), spec, c)]
    resumed = spec.chunks - len(missing)
    base = spec.to_json() | (metadata or {})

    def rows(chunk: int) -> tuple[int, pa.Table]:
        first, n = spec.chunk_bounds(chunk)
        return chunk, work(chunk, first, n)

    def write(chunk: int, table: pa.Table) -> int:
        first, n = spec.chunk_bounds(chunk)
        stamp = base | {"chunk": chunk, "first_deal": first, "deals_in_chunk": n}
        table = table.replace_schema_metadata({METADATA_KEY: json.dumps(stamp).encode()})
        path = chunk_path(target, chunk)
        temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        pq.write_table(table, temporary, compression="zstd")
        temporary.replace(path)  # atomic: the file appears complete or not at all
        return n

    bar = progress_bar(
        phase, spec.deals, enabled=progress,
        detail=f"{spec.kind} {spec.rules}" if detail is None else detail,
        initial=spec.deals - sum(spec.chunk_bounds(c)[1] for c in missing),
    )  # fmt: skip
    with bar:
        if client is None:
            # Local threads compute and write their own chunks.
            for _ in map_chunks(
                lambda chunk: write(*rows(chunk)), missing, threads=threads, progress=bar,
                progress_step=int,
            ):  # fmt: skip
                pass
        else:
            # Workers compute; this process writes, so the folder need only be seen from here.
            from tarot_analysis.cluster import ClusterLost

            try:
                for chunk, table in map_chunks(
                    rows, missing, client=client, progress=bar,
                    progress_step=lambda result: spec.chunk_bounds(result[0])[1],
                ):  # fmt: skip
                    write(chunk, table)
            except ClusterLost as lost:
                raise lost.kept(
                    f"the finished chunks are kept in {target}: run the same command again to "
                    "resume"
                ) from None
    return RunResult(folder=target, chunks=spec.chunks, computed=len(missing), resumed=resumed)


def iter_chunks(folder: str | os.PathLike[str]) -> Iterator[pa.Table]:
    """The chunk tables of a run folder, in chunk order (one in memory at a time)."""
    for path in sorted(Path(folder).glob("chunk-*.parquet")):
        yield pq.read_table(path)


def read_dataset(folder: str | os.PathLike[str]) -> pa.Table:
    """Every row of a run folder, in deal order."""
    tables = list(iter_chunks(folder))
    if not tables:
        raise TarotInputError(f"{folder} holds no finished chunk")
    return pa.concat_tables([t.replace_schema_metadata(None) for t in tables])
