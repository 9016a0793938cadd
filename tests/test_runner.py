"""Long runs: chunk files, resuming after a kill, and refusing to mix runs."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from tarot_analysis.errors import TarotInputError
from tarot_analysis.runs.runner import RunSpec, chunk_path, finished_run, read_dataset, run

SPEC = RunSpec(kind="hands", rules="fft-4", bots=(), seed=7, deals=50_000, chunk_size=2_000)

# A worker that deals each chunk from its own seed and keeps the seat-0 masks. Given a chunk
# number it dies there, as a power cut would: the first thread asked for that chunk or a later
# one waits until every chunk before it is on disk, then kills the process. No clock decides
# how far it got.
WORKER = textwrap.dedent(
    """
    import os, signal, sys, time
    from pathlib import Path
    import numpy as np, pyarrow as pa
    from tarot_analysis.deals.deal import DealStream, deal_chunk, make_plan
    from tarot_analysis._jit import normalise_seed
    from tarot_analysis.game.rules import load_rules
    from tarot_analysis.runs.runner import RunSpec, run

    spec = RunSpec(kind="hands", rules="fft-4", bots=(), seed=7, deals=50_000, chunk_size=2_000)
    plan = make_plan(load_rules("fft-4"))
    root = normalise_seed(spec.seed)
    folder, dies_at = Path(sys.argv[1]), int(sys.argv[2])

    def work(chunk, first, n):
        if 0 <= dies_at <= chunk:
            while len(list(folder.glob("chunk-*.parquet"))) < dies_at:
                time.sleep(0.01)
            os.kill(os.getpid(), signal.SIGKILL)
        masks, _ = deal_chunk(plan, DealStream.open(plan, root, chunk), n)
        deal = np.arange(first, first + n)
        return pa.table({"deal": deal, "lo": masks[:, 0, 0], "hi": masks[:, 0, 1]})

    run(spec, folder, work, threads=2)
    """
)
#: The worker runs to the end.
NEVER = -1


def run_worker(folder: Path, dies_at: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", WORKER, str(folder), str(dies_at)])


@pytest.mark.slow
def test_a_killed_run_keeps_its_chunks_and_resumes_to_the_same_result(tmp_path: Path) -> None:
    whole = tmp_path / "whole"
    assert run_worker(whole, NEVER).wait() == 0

    broken = tmp_path / "broken"
    assert run_worker(broken, 5).wait() == -signal.SIGKILL
    finished = sorted(broken.glob("chunk-*.parquet"))
    assert [path.name for path in finished] == [chunk_path(broken, c).name for c in range(5)]
    assert all(path.stat().st_size > 0 for path in finished)

    assert run_worker(broken, NEVER).wait() == 0
    assert read_dataset(broken).equals(read_dataset(whole))
    assert not list(broken.glob(".chunk-*.tmp"))


def test_resuming_computes_only_missing_chunks(tmp_path: Path) -> None:
    calls: list[int] = []

    def work(chunk: int, first: int, n: int) -> pa.Table:
        calls.append(chunk)
        return pa.table({"deal": np.arange(first, first + n)})

    spec = RunSpec(kind="test", rules="fft-4", bots=("random",), seed=1, deals=10, chunk_size=3)
    first = run(spec, tmp_path, work)
    assert (first.computed, first.resumed, sorted(calls)) == (4, 0, [0, 1, 2, 3])
    chunk_path(tmp_path, 2).unlink()
    (tmp_path / "chunk-000001.parquet").write_bytes(b"not parquet")  # a damaged chunk
    calls.clear()
    again = run(spec, tmp_path, work)
    assert (again.computed, again.resumed, sorted(calls)) == (2, 2, [1, 2])
    assert read_dataset(tmp_path).column("deal").to_pylist() == list(range(10))


def test_a_run_is_finished_when_every_chunk_is_on_disk(tmp_path: Path) -> None:
    spec = RunSpec(kind="test", rules="fft-4", bots=("random",), seed=1, deals=10, chunk_size=3,
                   extra={"seat": 0})  # fmt: skip
    assert finished_run(tmp_path) is None  # no run's folder
    run(spec, tmp_path, lambda chunk, first, n: pa.table({"deal": np.arange(first, first + n)}))
    assert finished_run(tmp_path) == spec
    chunk_path(tmp_path, 3).unlink()
    assert finished_run(tmp_path) is None  # a chunk missing
    (tmp_path / "_run.json").write_text("[]")
    assert finished_run(tmp_path) is None  # not a run's definition


def test_a_folder_of_another_run_is_refused(tmp_path: Path) -> None:
    spec = RunSpec(kind="test", rules="fft-4", bots=("random",), seed=1, deals=10, chunk_size=3)
    run(spec, tmp_path, lambda c, f, n: pa.table({"deal": np.arange(f, f + n)}))
    other = RunSpec(kind="test", rules="fft-4", bots=("random",), seed=2, deals=10, chunk_size=3)
    with pytest.raises(TarotInputError, match="holds a different run \\(seed differ"):
        run(other, tmp_path, lambda c, f, n: pa.table({"deal": np.arange(f, f + n)}))
    (tmp_path / "file").write_text("x")
    with pytest.raises(TarotInputError, match="is a file, not a folder"):
        run(spec, tmp_path / "file", lambda c, f, n: pa.table({"deal": np.arange(f, f + n)}))
    # A folder written when the definition was run.json keeps being checked against it.
    (tmp_path / "_run.json").rename(tmp_path / "run.json")
    with pytest.raises(TarotInputError, match="holds a different run \\(seed differ"):
        run(other, tmp_path, lambda c, f, n: pa.table({"deal": np.arange(f, f + n)}))
    assert (tmp_path / "_run.json").exists() and not (tmp_path / "run.json").exists()
    # Any Parquet reader takes the folder for a dataset of its chunks.
    import pandas as pd

    (tmp_path / "file").unlink()
    assert pd.read_parquet(tmp_path)["deal"].tolist() == list(range(10))


def test_a_chunk_of_list_columns_reads_back_as_it_was_written(tmp_path: Path) -> None:
    # A list built in memory names its items "item", Parquet reads them back as "element";
    # a table sent back by a Dask worker may come either way.
    def work(chunk: int, first: int, n: int) -> pa.Table:
        values = pa.array(np.arange(3 * first, 3 * (first + n), dtype=np.float32))
        return pa.table({
            "deal": range(first, first + n),
            "fixed": pa.FixedSizeListArray.from_arrays(values, 3),
            "ragged": pa.array([[k] * (k % 3) for k in range(n)], pa.list_(pa.int16())),
        })  # fmt: skip

    spec = RunSpec(kind="lists", rules="fft-4", bots=("random",), seed=1, deals=5, chunk_size=2)
    run(spec, tmp_path, work)
    table = read_dataset(tmp_path, spec)
    assert table.column("fixed").combine_chunks().flatten().to_pylist() == list(range(15))
    assert run(spec, tmp_path, work).resumed == 3
