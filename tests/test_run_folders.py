"""Run folders and output files that can be trusted: chunks checked against their run, folders
claimed by one run, temporary files of live processes left alone, outputs written whole."""

from __future__ import annotations

import errno
import json
import os
import shutil
import socket
import subprocess
import sys
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tarot_analysis.errors import TarotInputError
from tarot_analysis.runs.runner import RunSpec, chunk_path, read_dataset, run

SPEC = RunSpec(kind="test", rules="fft-4", bots=("heuristic",), seed=3, deals=10, chunk_size=4)
Work = Callable[[int, int, int], pa.Table]


def work_of(spec: RunSpec) -> Work:
    """Rows that depend on everything in the run's definition, as real runs' rows do."""
    salt = zlib.crc32(json.dumps([spec.bots, spec.rules, spec.extra]).encode())

    def work(chunk: int, first: int, n: int) -> pa.Table:
        rng = np.random.default_rng([spec.seed, salt, chunk])
        return pa.table({"deal": np.arange(first, first + n), "score": rng.integers(-500, 500, n)})

    return work


def clean(spec: RunSpec, tmp_path: Path) -> pa.Table:
    """The rows of ``spec`` computed in a fresh folder."""
    folder = tmp_path / f"clean-{spec.seed}-{spec.deals}-{'-'.join(spec.bots)}"
    run(spec, folder, work_of(spec))
    return read_dataset(folder)


def notices(text: str) -> list[str]:
    return [line for line in text.splitlines() if "chunk-" in line]


# --- Chunks checked against their run -------------------------------------------------------


@pytest.mark.parametrize(
    "other",
    [
        RunSpec(kind="test", rules="fft-4", bots=("heuristic",), seed=3, deals=12, chunk_size=4),
        RunSpec(kind="test", rules="fft-4", bots=("random",), seed=3, deals=10, chunk_size=4),
        RunSpec(kind="test", rules="fft-4", bots=("heuristic",), seed=4, deals=10, chunk_size=4),
    ],
    ids=["deals", "bots", "seed"],
)
def test_a_chunk_of_another_run_is_named_and_recomputed(
    tmp_path: Path, other: RunSpec, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, elsewhere = tmp_path / "run", tmp_path / "other"
    run(SPEC, folder, work_of(SPEC))
    run(other, elsewhere, work_of(other))
    shutil.copyfile(chunk_path(elsewhere, 2), chunk_path(folder, 2))
    capsys.readouterr()
    again = run(SPEC, folder, work_of(SPEC))
    lines = notices(capsys.readouterr().err)
    assert len(lines) == 1 and str(chunk_path(folder, 2)) in lines[0]
    assert (again.computed, again.resumed) == (1, 2)
    assert read_dataset(folder).equals(clean(SPEC, tmp_path))


def _flip_in_body(path: Path) -> None:
    """Flip one bit inside the data of the first column's first page."""
    column = pq.ParquetFile(path).metadata.row_group(0).column(1)
    start = column.dictionary_page_offset if column.has_dictionary_page else column.data_page_offset
    size = column.total_compressed_size
    data = bytearray(path.read_bytes())
    data[start + size - 3] ^= 0x10  # in the page's data, after its header
    path.write_bytes(bytes(data))


def test_a_flipped_bit_in_a_chunk_is_detected_and_recomputed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = RunSpec(kind="test", rules="fft-4", bots=("heuristic",), seed=3, deals=3000,
                   chunk_size=1000)  # fmt: skip
    folder = tmp_path / "run"
    run(spec, folder, work_of(spec))
    _flip_in_body(chunk_path(folder, 1))
    capsys.readouterr()
    again = run(spec, folder, work_of(spec))
    lines = notices(capsys.readouterr().err)
    assert len(lines) == 1 and str(chunk_path(folder, 1)) in lines[0]
    assert again.computed == 1
    assert read_dataset(folder).equals(clean(spec, tmp_path))


def test_a_flipped_bit_is_named_when_the_folder_is_read(tmp_path: Path) -> None:
    spec = RunSpec(kind="test", rules="fft-4", bots=("heuristic",), seed=3, deals=3000,
                   chunk_size=1000)  # fmt: skip
    run(spec, tmp_path, work_of(spec))
    _flip_in_body(chunk_path(tmp_path, 2))
    with pytest.raises(TarotInputError) as caught:
        read_dataset(tmp_path)
    message = str(caught.value)
    assert str(chunk_path(tmp_path, 2)) in message and "\n" not in message


def test_chunks_of_other_bots_are_not_reused_when_the_definition_is_gone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(SPEC, tmp_path, work_of(SPEC))
    (tmp_path / "_run.json").unlink()
    other = RunSpec(kind="test", rules="fft-4", bots=("random",), seed=3, deals=10, chunk_size=4)
    capsys.readouterr()
    again = run(other, tmp_path, work_of(other))
    lines = notices(capsys.readouterr().err)
    assert (again.computed, again.resumed) == (3, 0)
    assert len(lines) == 3 and all("bots" in line for line in lines)
    assert read_dataset(tmp_path).equals(clean(other, tmp_path))
    assert json.loads((tmp_path / "_run.json").read_text())["bots"] == ["random"]


def test_a_chunk_with_the_right_metadata_but_other_columns_is_recomputed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(SPEC, tmp_path, work_of(SPEC))
    path = chunk_path(tmp_path, 1)
    metadata = pq.read_schema(path).metadata
    crafted = pa.table({"deal": np.arange(4, 8), "score": np.arange(4, 8) * 0.5})
    pq.write_table(crafted.replace_schema_metadata(metadata), path, write_page_checksum=True)
    capsys.readouterr()
    again = run(SPEC, tmp_path, work_of(SPEC))
    lines = notices(capsys.readouterr().err)
    assert len(lines) == 1 and str(path) in lines[0]
    assert again.computed == 1
    assert read_dataset(tmp_path).equals(clean(SPEC, tmp_path))


def test_many_bad_chunks_are_named_in_a_few_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = RunSpec(kind="test", rules="fft-4", bots=("heuristic",), seed=3, deals=40, chunk_size=2)
    run(spec, tmp_path, work_of(spec))
    for chunk in range(spec.chunks):
        chunk_path(tmp_path, chunk).write_bytes(b"not parquet")
    capsys.readouterr()
    assert run(spec, tmp_path, work_of(spec)).computed == spec.chunks
    err = capsys.readouterr().err
    assert len(err.splitlines()) <= 6 and "15 more" in err


# --- One folder, several processes ----------------------------------------------------------


def _temporary(folder: Path, chunk: int, pid: int) -> Path:
    return folder / f".{chunk_path(folder, chunk).name}.{pid}@{socket.gethostname()}.tmp"


def test_a_live_process_temporary_file_survives_a_run_on_the_same_folder(tmp_path: Path) -> None:
    run(SPEC, tmp_path, work_of(SPEC))
    live = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"],
                            stdin=subprocess.PIPE)  # fmt: skip
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait(timeout=60)
    try:
        writing = _temporary(tmp_path, 1, live.pid)
        left = _temporary(tmp_path, 2, gone.pid)
        writing.write_bytes(b"half a chunk")
        left.write_bytes(b"half a chunk")
        run(SPEC, tmp_path, work_of(SPEC))
        assert writing.read_bytes() == b"half a chunk"  # its process still writes it
        assert not left.exists()  # its process is gone
    finally:
        live.kill()
        live.wait(timeout=60)


def test_a_run_of_another_definition_started_together_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both runs looked at the folder before either claimed it: the second to claim it is
    refused, whatever it saw before."""
    first = run(SPEC, tmp_path, work_of(SPEC))
    assert first.computed == SPEC.chunks
    seen = Path.exists

    def before_the_claim(path: Path) -> bool:
        return False if path.name == "_run.json" else seen(path)

    monkeypatch.setattr(Path, "exists", before_the_claim)
    other = RunSpec(kind="test", rules="fft-4", bots=("random",), seed=3, deals=10, chunk_size=4)
    with pytest.raises(TarotInputError, match="holds a different run") as caught:
        run(other, tmp_path, work_of(other))
    assert "\n" not in str(caught.value)
    monkeypatch.undo()
    assert json.loads((tmp_path / "_run.json").read_text())["bots"] == ["heuristic"]
    assert read_dataset(tmp_path).equals(clean(SPEC, tmp_path))


def test_a_run_started_while_another_runs_is_refused(tmp_path: Path) -> None:
    other = RunSpec(kind="test", rules="fft-4", bots=("random",), seed=3, deals=10, chunk_size=4)
    refused: list[str] = []

    def work(chunk: int, first: int, n: int) -> pa.Table:
        if chunk == 0:
            try:
                run(other, tmp_path, work_of(other))
            except TarotInputError as error:
                refused.append(str(error))
        return work_of(SPEC)(chunk, first, n)

    run(SPEC, tmp_path, work, threads=1)
    assert len(refused) == 1 and "holds a different run (bots differ" in refused[0]
    assert read_dataset(tmp_path).equals(clean(SPEC, tmp_path))


def test_a_damaged_definition_is_named(tmp_path: Path) -> None:
    run(SPEC, tmp_path, work_of(SPEC))
    (tmp_path / "_run.json").write_text('{"kind": "te')
    with pytest.raises(TarotInputError, match=r"_run\.json") as caught:
        run(SPEC, tmp_path, work_of(SPEC))
    assert "\n" not in str(caught.value)


def test_a_folder_keeps_reading_as_a_parquet_dataset(tmp_path: Path) -> None:
    run(SPEC, tmp_path, work_of(SPEC))
    frame = pd.read_parquet(tmp_path)
    assert frame["deal"].tolist() == list(range(10))
    assert list(frame.columns) == ["deal", "score"]


# --- Outputs written whole ------------------------------------------------------------------


def _tables() -> dict[str, pd.DataFrame]:
    return {
        "by_chavey": pd.DataFrame({"n": [1, 2]}),
        "model_coefficients": pd.DataFrame({"x": [1]}),
    }


def test_tables_are_left_whole_when_a_write_fails_midway(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tarot_analysis.analyses.guidance import save_tables

    save_tables(_tables(), tmp_path)
    before = (tmp_path / "by_chavey.csv").read_bytes()
    write = pd.DataFrame.to_csv

    def half(frame: pd.DataFrame, path: object = None, **options: object) -> None:
        write(frame.iloc[:1], path, **options)  # type: ignore[arg-type]
        raise KeyboardInterrupt

    monkeypatch.setattr(pd.DataFrame, "to_csv", half)
    changed = {"by_chavey": pd.DataFrame({"n": [3, 4, 5]})}
    with pytest.raises(KeyboardInterrupt):
        save_tables(changed, tmp_path)
    assert (tmp_path / "by_chavey.csv").read_bytes() == before
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_a_full_disk_names_the_table_it_was_writing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tarot_analysis.analyses.guidance import save_tables

    save_tables(_tables(), tmp_path)
    before = (tmp_path / "by_chavey.csv").read_bytes()
    write = pd.DataFrame.to_csv

    def full(frame: pd.DataFrame, path: object = None, **options: object) -> None:
        write(frame.iloc[:0], path, **options)  # type: ignore[arg-type]
        raise OSError(errno.ENOSPC, "Error writing bytes to file")

    monkeypatch.setattr(pd.DataFrame, "to_csv", full)
    with pytest.raises(OSError) as caught:
        save_tables({"by_chavey": pd.DataFrame({"n": [3]})}, tmp_path)
    assert caught.value.filename == str(tmp_path / "by_chavey.csv")
    assert caught.value.strerror == os.strerror(errno.ENOSPC)
    assert (tmp_path / "by_chavey.csv").read_bytes() == before


def test_the_command_line_names_the_file_on_a_full_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tarot_analysis.cli import main

    out = tmp_path / "hands.parquet"
    out.write_bytes(b"an earlier file")

    def full(self: object, table: pa.Table, *args: object, **options: object) -> None:
        raise OSError(errno.ENOSPC, "Error writing bytes to file. Detail: [errno 28] No space")

    monkeypatch.setattr(pq.ParquetWriter, "write_table", full)
    status = main(["hands", "--deals", "1000", "--out", str(out), "--no-progress"])
    err = capsys.readouterr().err.strip()
    assert status == 2
    assert err == f"tarot-analysis: error: {out}: No space left on device"
    assert out.read_bytes() == b"an earlier file"
    assert [p.name for p in tmp_path.iterdir()] == ["hands.parquet"]


def test_a_tables_folder_names_its_run_and_drops_tables_of_an_earlier_one(tmp_path: Path) -> None:
    from tarot_analysis.analyses.guidance import save_tables

    rows = RunSpec(kind="guidance", rules="fft-4", bots=("random",), seed=1, deals=10,
                   chunk_size=5)  # fmt: skip
    save_tables(_tables(), tmp_path, runs=[rows])
    manifest = json.loads((tmp_path / "_tables.json").read_text())
    assert manifest["runs"][0]["bots"] == ["random"] and manifest["runs"][0]["deals"] == 10
    assert sorted(manifest["tables"]) == ["by_chavey.csv", "model_coefficients.csv"]
    counts = RunSpec(kind="guidance", rules="fft-4", bots=("random",), seed=1, deals=10,
                     chunk_size=5, extra={"rows": False})  # fmt: skip
    save_tables({"by_chavey": pd.DataFrame({"n": [9]})}, tmp_path, runs=[counts])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["_tables.json", "by_chavey.csv"]
    manifest = json.loads((tmp_path / "_tables.json").read_text())
    assert manifest["runs"][0]["extra"] == {"rows": False}
    assert list(manifest["tables"]) == ["by_chavey.csv"]


def test_a_browser_that_fails_midway_leaves_the_old_pdf(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tarot_analysis.report import pdf

    browser = tmp_path / "chromium"
    browser.write_text(
        "#!/bin/sh\n"
        'for option in "$@"; do case "$option" in --print-to-pdf=*) '
        'printf "%%PDF-1.4 half" > "${option#--print-to-pdf=}";; esac; done\n'
        "echo 'killed' >&2; exit 1\n"
    )
    browser.chmod(0o755)
    monkeypatch.setattr(pdf, "find_chromium", lambda: str(browser))
    page = tmp_path / "report.html"
    page.write_text("<html></html>")
    printed = tmp_path / "report.pdf"
    printed.write_bytes(b"%PDF-1.4 an earlier, whole report")
    with pytest.raises(TarotInputError, match="exited with 1 \\(killed\\)"):
        pdf.render_pdf(page, printed)
    assert printed.read_bytes() == b"%PDF-1.4 an earlier, whole report"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chromium", "report.html", "report.pdf"]


def test_a_full_disk_names_the_chunk_and_keeps_the_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tarot_analysis.runs.runner as runner

    write = pq.write_table

    def full_at_chunk_2(table: pa.Table, where: object, **options: object) -> None:
        if json.loads(table.schema.metadata[b"tarot_analysis"])["chunk"] == 2:
            raise OSError(errno.ENOSPC, "Error writing bytes to file")
        write(table, where, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(runner.pq, "write_table", full_at_chunk_2)
    with pytest.raises(OSError) as caught:
        run(SPEC, tmp_path, work_of(SPEC), threads=1)
    assert caught.value.filename == str(chunk_path(tmp_path, 2))
    assert caught.value.strerror == "No space left on device"
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "_run.json", "chunk-000000.parquet", "chunk-000001.parquet",
    ]  # fmt: skip
    monkeypatch.undo()
    assert run(SPEC, tmp_path, work_of(SPEC)).computed == 1
    assert read_dataset(tmp_path).equals(clean(SPEC, tmp_path))


def test_an_output_s_stale_temporary_file_is_removed(tmp_path: Path) -> None:
    from tarot_analysis.runs.simulate import check_output_path

    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait(timeout=60)
    host = socket.gethostname()
    left = tmp_path / f".hands.parquet.{gone.pid}@{host}.tmp"
    mine = tmp_path / f".hands.parquet.{os.getpid()}@{host}.tmp"
    other = tmp_path / f".other.parquet.{gone.pid}@{host}.tmp"
    for path in (left, mine, other):
        path.write_bytes(b"half")
    check_output_path(tmp_path / "hands.parquet")
    assert not left.exists() and mine.exists() and other.exists()
