"""Long runs that survive interruption: chunks streamed to a Parquet dataset, resumable.

A run is defined by what it computes (its ``kind``), its rules, bots, seed, number of deals and
chunk size. Chunks are fixed by that definition, so chunk *k* holds the same rows whoever
computes it, whenever. Each finished chunk is written to its own Parquet file in the run's
folder (to a temporary name, then renamed: a file that exists is complete), with the run's
whole definition in the file and a checksum on each of its pages. Run the same command again
after an interruption and the chunks on disk are kept; only the missing ones are computed.
Memory stays bounded: a chunk is written and forgotten before more than a few are in flight.

A chunk on disk is kept only if it reads back whole (every page's checksum verified) and says
it is this chunk of this run: the same definition (kind, rules, bots, seed, deals, chunk size,
``extra``), the same layout (:data:`CHUNK_LAYOUT`), the rows and columns it was written with.
Any other (copied from another run, damaged, written by an older version) is named in one line
on standard error and computed again.

The folder belongs to one run: its definition, ``_run.json``, is created at once whole or not
at all (linked into place; a run that finds another's there is refused), so two runs of
different definitions never share a folder, even started together. Several processes may run
the same definition on one folder: each writes through temporary files of its own, and a run
removes only the temporary files of processes that are gone.

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

import contextlib
import hashlib
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final

import pyarrow as pa
import pyarrow.parquet as pq

from tarot_analysis import __version__
from tarot_analysis.errors import TarotInputError, one_line
from tarot_analysis.reader import DEFINITION_BYTES, RUN_CHUNK_BYTES, read_json, regular_file
from tarot_analysis.runs.cluster import ClusterLost
from tarot_analysis.runs.files import create_text, remove_stale, replacing
from tarot_analysis.runs.progress import CHECKING
from tarot_analysis.runs.progress import bar as progress_bar
from tarot_analysis.runs.simulate import check_writable_folder, map_chunks

__all__ = [
    "CHUNK_LAYOUT",
    "RunResult",
    "RunSpec",
    "chunk_path",
    "finished_run",
    "read_dataset",
    "run",
]

#: The run's definition beside its chunks. Its name starts with an underscore, which Parquet
#: readers skip (as they skip the dot of a chunk being written): ``pandas.read_parquet(folder)``
#: reads the chunks alone.
SPEC_FILE: Final = "_run.json"
#: Where folders written before kept it; read, and renamed, when found.
OLD_SPEC_FILE: Final = "run.json"
METADATA_KEY: Final = b"tarot_analysis"
#: The layout of a chunk file: 2 has page checksums and the run's whole definition, its rows
#: and the fingerprint of its columns in its metadata. Chunks of another layout are recomputed.
CHUNK_LAYOUT: Final = 2
#: Chunks named one by one when they cannot be kept; more are counted in one line.
_NAMED_CHUNKS: Final = 5


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

    def identity(self) -> dict[str, Any]:
        """What two runs must share to share a folder or a chunk: the spec as it reads back
        from JSON, without the version that wrote it."""
        data = json.loads(json.dumps(self.to_json()))
        del data["version"]
        return data


@dataclass(frozen=True)
class RunResult:
    """What a call to :func:`run` did."""

    folder: Path
    chunks: int  # chunks of the run, all on disk now
    computed: int  # chunks computed by this call
    resumed: int  # chunks found on disk from an earlier call
    spec: RunSpec | None = None  # the run's definition


def chunk_path(folder: str | os.PathLike[str], chunk: int) -> Path:
    """Where chunk ``chunk`` of the run in ``folder`` is stored."""
    return Path(folder) / f"chunk-{chunk:06d}.parquet"


def _differing(found: dict[str, Any], wanted: dict[str, Any]) -> list[str]:
    """The parts of a definition in which ``found`` is not ``wanted``."""
    return sorted(key for key in wanted if found.get(key) != wanted[key])


def _read_definition(path: Path) -> dict[str, Any]:
    """A folder's ``_run.json``, or one line saying it cannot be read."""
    try:
        found = read_json(path, "run definition", limit=DEFINITION_BYTES)
    except TarotInputError as error:
        raise TarotInputError(f"{error}: delete the folder to start again") from None
    if not isinstance(found, dict):
        raise TarotInputError(f"{path} is not a run's definition: delete the folder to start again")
    return found


def _claim(folder: Path, spec: RunSpec) -> None:
    """Make ``folder`` this run's, or refuse it if it is another's.

    The definition appears whole or not at all, and only if none is there
    (:func:`tarot_analysis.runs.files.create_text`): of two runs that claim a folder together, one
    wins and the other reads its definition and is refused if it is another."""
    path = folder / SPEC_FILE
    old = folder / OLD_SPEC_FILE
    if old.exists():
        with contextlib.suppress(FileExistsError):
            os.link(old, path)
        old.unlink(missing_ok=True)
    create_text(path, json.dumps(spec.to_json(), indent=2))  # unless a run is there
    differing = _differing(_read_definition(path), spec.identity())
    if differing:
        raise TarotInputError(
            f"{folder} holds a different run ({', '.join(differing)} differ): "
            "use another folder, or delete it to start again"
        )


def _columns(schema: pa.Schema) -> str:
    """A fingerprint of a table's columns: names, types and nullability."""
    described = [[f.name, str(f.type), f.nullable] for f in schema.remove_metadata()]
    return hashlib.sha256(json.dumps(described).encode()).hexdigest()[:16]


def _as_read_back(table: pa.Table) -> pa.Table:
    """``table`` with the columns Parquet reads back: the items of a list named ``element``
    (a list built in memory names them ``item``; a table sent from a Dask worker may too)."""
    fields = []
    renamed = False  # list types compare equal whatever their items' names
    for column in table.schema:
        kind = column.type
        if pa.types.is_fixed_size_list(kind) and kind.value_field.name != "element":
            kind = pa.list_(kind.value_field.with_name("element"), kind.list_size)
            renamed = True
        elif pa.types.is_list(kind) and kind.value_field.name != "element":
            kind = pa.list_(kind.value_field.with_name("element"))
            renamed = True
        fields.append(column.with_type(kind))
    if not renamed:
        return table
    return table.cast(pa.schema(fields, metadata=table.schema.metadata))


def _stamp(path: Path) -> dict[str, Any]:
    """The run's metadata stored in a chunk file (its footer alone is read)."""
    metadata = pq.read_schema(regular_file(path, "run chunk", limit=RUN_CHUNK_BYTES)).metadata or {}
    stamp = json.loads(metadata[METADATA_KEY])
    if not isinstance(stamp, dict):
        raise ValueError("not a chunk's metadata")
    return stamp


class _Unfit(Exception):
    """A file that is not the chunk it should be; its message says why."""


def _read_verified(path: Path) -> pa.Table:
    """Every row of ``path``, each page's checksum verified, or :class:`_Unfit`."""
    try:
        chunk = regular_file(path, "run chunk", limit=RUN_CHUNK_BYTES)
        return pq.read_table(chunk, page_checksum_verification=True)
    except Exception as error:  # a damaged page raises what it happens to
        raise _Unfit(f"damaged ({one_line(error)})") from None


def _checked(path: Path, spec: RunSpec, chunk: int) -> pa.Table:
    """The rows of chunk ``chunk`` of ``spec`` in ``path``, or :class:`_Unfit` saying why the
    file is not that chunk. Reads the whole file, verifying every page's checksum."""
    try:
        stamp = _stamp(path)
    except Exception:  # whatever a damaged file raises, it is not a chunk
        raise _Unfit("not a readable chunk") from None
    if stamp.get("layout") != CHUNK_LAYOUT:
        raise _Unfit("written by another version, without checksums")
    differing = _differing(stamp, spec.identity())
    if differing:
        raise _Unfit(f"a chunk of another run ({', '.join(differing)} differ)")
    first, n = spec.chunk_bounds(chunk)
    if (stamp.get("chunk"), stamp.get("first_deal"), stamp.get("deals_in_chunk")) != (
        chunk, first, n,
    ):  # fmt: skip
        raise _Unfit(f"another chunk (its number {stamp.get('chunk')})")
    table = _read_verified(path)
    if table.num_rows != stamp.get("rows") or _columns(table.schema) != stamp.get("columns"):
        raise _Unfit("its rows or columns are not those it was written with")
    return table


def _say_recomputed(faults: list[tuple[Path, str]]) -> None:
    """Name the chunks that cannot be kept, one line each (the first few, then a count)."""
    for path, reason in faults[:_NAMED_CHUNKS]:
        print(f"tarot-analysis: {path}: {reason}; computing it again", file=sys.stderr)
    if len(faults) > _NAMED_CHUNKS:
        print(
            f"tarot-analysis: and {len(faults) - _NAMED_CHUNKS} more chunks in "
            f"{faults[0][0].parent} that cannot be kept; computing them again",
            file=sys.stderr,
        )


def _missing(target: Path, spec: RunSpec, *, progress: bool = False, detail: str = "") -> list[int]:
    """The chunks to compute: absent, or on disk but not this run's whole chunk (named, once
    the ``checking`` bar shown while they are read is closed)."""
    on_disk = [c for c in range(spec.chunks) if chunk_path(target, c).exists()]
    faults = []
    with progress_bar(
        CHECKING, len(on_disk), unit="chunk", enabled=progress and bool(on_disk), detail=detail
    ) as shown:
        for chunk in on_disk:
            try:
                _checked(chunk_path(target, chunk), spec, chunk)
            except _Unfit as unfit:
                faults.append((chunk, str(unfit)))
            shown.update(1)
    _say_recomputed([(chunk_path(target, chunk), reason) for chunk, reason in faults])
    kept = set(on_disk) - {chunk for chunk, _ in faults}
    return [c for c in range(spec.chunks) if c not in kept]


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

    ``work`` returns the chunk's rows as an Arrow table. Chunks already on disk are kept when they
    are whole chunks of this run; an interrupted call (Ctrl-C, a killed process) leaves only
    complete chunk files behind. ``metadata`` is stored in every chunk file beside the spec.
    ``client``: a Dask client (:mod:`tarot_analysis.runs.cluster`) to compute the chunks on; they
    are written here. ``phase`` and ``detail`` name the progress bar
    (:func:`tarot_analysis.runs.progress.bar`); ``detail`` defaults to the kind of run and its
    rules.
    """
    target = Path(folder)
    if target.exists() and not target.is_dir():
        raise TarotInputError(f"cannot use {target} for a run: it is a file, not a folder")
    check_writable_folder(target, " for the run's chunks")
    _claim(target, spec)
    remove_stale(target)  # left by processes killed while writing; live ones' are kept
    detail = f"{spec.kind} {spec.rules}" if detail is None else detail
    missing = _missing(target, spec, progress=progress, detail=detail)
    resumed = spec.chunks - len(missing)
    base = (metadata or {}) | spec.to_json() | {"layout": CHUNK_LAYOUT}

    def rows(chunk: int) -> tuple[int, pa.Table]:
        first, n = spec.chunk_bounds(chunk)
        return chunk, work(chunk, first, n)

    def write(chunk: int, table: pa.Table) -> int:
        first, n = spec.chunk_bounds(chunk)
        table = _as_read_back(table)
        stamp = base | {
            "chunk": chunk, "first_deal": first, "deals_in_chunk": n, "rows": table.num_rows,
            "columns": _columns(table.schema),
        }  # fmt: skip
        table = table.replace_schema_metadata({METADATA_KEY: json.dumps(stamp).encode()})
        with replacing(chunk_path(target, chunk)) as temporary:
            pq.write_table(table, temporary, compression="zstd", write_page_checksum=True)
        return n

    bar = progress_bar(
        phase, spec.deals, enabled=progress,
        detail=detail,
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
    return RunResult(
        folder=target, chunks=spec.chunks, computed=len(missing), resumed=resumed, spec=spec
    )


def _expected(folder: Path, spec: RunSpec | None) -> RunSpec | None:
    """The run a folder's chunks must belong to: ``spec``, or the folder's definition."""
    if spec is not None:
        return spec
    path = folder / SPEC_FILE
    if not path.exists():
        return None
    try:
        return _spec_from(_read_definition(path))
    except (KeyError, TypeError):
        raise TarotInputError(
            f"{path} is not a run's definition: delete the folder to start again"
        ) from None


def _spec_from(found: dict[str, Any]) -> RunSpec:
    """The run a definition read from ``_run.json`` describes (``KeyError`` or ``TypeError``
    when it is not one)."""
    return RunSpec(
        kind=found["kind"], rules=found["rules"], bots=tuple(found["bots"]),
        seed=found["seed"], deals=found["deals"], chunk_size=found["chunk_size"],
        extra=found.get("extra", {}),
    )  # fmt: skip


def finished_run(folder: str | os.PathLike[str]) -> RunSpec | None:
    """The run in ``folder`` when every one of its chunks is on disk, else ``None`` (not a
    run's folder, a definition that cannot be read, or a run not finished). Only the definition
    and the chunks' names are read: the chunks themselves are checked when they are read."""
    try:
        spec = _spec_from(
            read_json(Path(folder) / SPEC_FILE, "run definition", limit=DEFINITION_BYTES)
        )
        chunks = range(spec.chunks)
    except (ValueError, KeyError, TypeError, ZeroDivisionError):
        return None
    return spec if all(chunk_path(folder, c).exists() for c in chunks) else None


def iter_chunks(
    folder: str | os.PathLike[str],
    spec: RunSpec | None = None,
    *,
    order: Sequence[int] | None = None,
) -> Iterator[pa.Table]:
    """The chunk tables of a run folder, in chunk order or in ``order`` (chunk numbers; one
    chunk in memory at a time).

    Each is checked as it is read: every page's checksum, and, when the run is known
    (``spec``, or the folder's ``_run.json``), that it is this run's chunk and that none is
    missing. A chunk that fails raises :class:`~tarot_analysis.errors.TarotInputError`
    naming it: running the command again computes it anew."""
    target = Path(folder)
    expected = _expected(target, spec)
    if expected is None:
        paths = sorted(target.glob("chunk-*.parquet"))
    else:
        paths = [chunk_path(target, chunk) for chunk in range(expected.chunks)]
    for chunk in range(len(paths)) if order is None else order:
        path = paths[chunk]
        if not path.exists():
            raise TarotInputError(f"{path} is missing: run the command again to compute it")
        try:
            yield _read_verified(path) if expected is None else _checked(path, expected, chunk)
        except _Unfit as unfit:
            raise TarotInputError(
                f"{path}: {unfit}: run the command again to recompute it"
            ) from None


def read_dataset(folder: str | os.PathLike[str], spec: RunSpec | None = None) -> pa.Table:
    """Every row of a run folder, in deal order, each chunk checked (:func:`iter_chunks`)."""
    tables = list(iter_chunks(folder, spec))
    if not tables:
        raise TarotInputError(f"{folder} holds no finished chunk")
    return pa.concat_tables([t.replace_schema_metadata(None) for t in tables])
