"""The same runs on a Dask cluster: identical results, clear errors."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from distributed import Client

from tarot_analysis.cli import main
from tarot_analysis.deals.hand_stats import run_hands
from tarot_analysis.errors import TarotInputError
from tarot_analysis.game.rules import load_rules
from tarot_analysis.runs.cluster import ClusterLost, check_address, dask_client

# Every test starts a Dask cluster, or a command that does: seconds each.
pytestmark = pytest.mark.slow


def test_a_two_worker_cluster_gives_the_tables_of_local_threads() -> None:
    rules = load_rules("fft-5")
    local = run_hands(rules, 200_000, seed=9, chunk_size=25_000, threads=2)
    with dask_client(workers=2) as client:
        remote = run_hands(rules, 200_000, seed=9, chunk_size=25_000, client=client)
    assert np.array_equal(local.counts.by_group, remote.counts.by_group)
    assert np.array_equal(local.counts.table_poignee, remote.counts.table_poignee)
    assert local.to_json()["bouts"] == remote.to_json()["bouts"]


def test_the_command_line_runs_on_local_workers(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hands", "--deals", "50000", "--seed", "3", "--json"]) == 0
    threads = json.loads(capsys.readouterr().out)
    assert main(["hands", "--deals", "50000", "--seed", "3", "--json", "--workers", "2"]) == 0
    workers = json.loads(capsys.readouterr().out)
    for table in ("bouts", "poignee", "petit_sec", "trumps"):
        assert threads[table] == workers[table]


def test_an_unreachable_scheduler_or_both_options_are_one_clear_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["hands", "--deals", "1000", "--scheduler", "tcp://127.0.0.1:9", "--json"])
    err = capsys.readouterr().err
    assert code == 2 and "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in err
    assert len(err.strip().splitlines()) == 1
    with (
        pytest.raises(TarotInputError, match="either --scheduler or --workers"),
        dask_client("tcp://127.0.0.1:9", 2),
    ):
        pass


def test_a_worker_killed_mid_run_loses_only_its_chunk() -> None:
    import os
    import signal
    import threading

    rules = load_rules("fft-4")
    deals, chunk = 2_000_000, 20_000
    local = run_hands(rules, deals, seed=4, chunk_size=chunk, threads=2)
    killed: list[int] = []
    with dask_client(workers=2) as client:
        pids = list(client.run(os.getpid).values())

        def kill_one() -> None:
            os.kill(pids[0], signal.SIGKILL)
            killed.append(pids[0])

        seen = 0

        def on_chunk(_: int) -> None:
            nonlocal seen
            seen += 1
            if seen == 10:  # well inside the run: kill a worker while it is working
                threading.Thread(target=kill_one).start()

        remote = run_hands(rules, deals, seed=4, chunk_size=chunk, client=client, on_chunk=on_chunk)
    assert killed
    assert np.array_equal(local.counts.by_group, remote.counts.by_group)


def test_guidance_on_a_cluster_writes_the_dataset_of_local_threads(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from tarot_analysis.analyses.guidance import run_guidance
    from tarot_analysis.runs.runner import read_dataset

    rules = load_rules("fft-4")
    local = run_guidance(rules, 20_000, tmp_path / "local", seed=2, chunk_size=5_000)
    with dask_client(workers=2) as client:
        remote = run_guidance(rules, 20_000, tmp_path / "remote", seed=2, chunk_size=5_000,
                              client=client)  # fmt: skip
    assert read_dataset(tmp_path / "local").equals(read_dataset(tmp_path / "remote"))
    assert local.frame.equals(remote.frame)


# --- Every runner command on one cluster -----------------------------------------------------


@pytest.fixture(scope="module")
def client():  # type: ignore[no-untyped-def]
    """One local cluster of two worker processes, shared by the tests below."""
    with dask_client(workers=2) as running:
        yield running


def test_chunks_come_back_in_order_however_long_each_takes(client) -> None:  # type: ignore[no-untyped-def]
    import time

    from tarot_analysis.runs.simulate import map_chunks

    def work(chunk: int) -> int:
        time.sleep(0.03 * ((chunk * 7) % 5))  # later chunks often finish first
        return chunk

    assert list(map_chunks(work, range(40), client=client)) == list(range(40))


def test_play_on_a_cluster_plays_the_deals_of_local_threads(client) -> None:  # type: ignore[no-untyped-def]
    from tarot_analysis.table.play import play

    rules = load_rules("fft-5")
    kwargs = {"bots": "heuristic", "seed": 6, "chunk_size": 3_000, "keep_tricks": True}
    local = play(rules, 10_000, threads=2, **kwargs)
    remote = play(rules, 10_000, client=client, **kwargs)
    for name in ("masks", "outcomes", "poignees", "tricks", "leaders", "ecarts", "bids"):
        assert np.array_equal(getattr(local, name), getattr(remote, name)), name
    assert local.metadata == remote.metadata


def test_tarocco_on_a_cluster_plays_the_deals_of_local_threads(client) -> None:  # type: ignore[no-untyped-def]
    from tarot_analysis.table.play import play

    rules = load_rules("tarocco")
    local = play(rules, 5_000, seed=2, chunk_size=1_200, threads=2)
    remote = play(rules, 5_000, seed=2, chunk_size=1_200, client=client)
    for name in ("masks", "parts", "tricks_won", "events"):
        assert np.array_equal(getattr(local, name), getattr(remote, name)), name
    assert local.summary() == remote.summary()


def test_one_hand_and_compare_on_a_cluster_give_the_results_of_local_threads(client) -> None:  # type: ignore[no-untyped-def]
    from tarot_analysis.analyses.compare import compare_variants
    from tarot_analysis.analyses.one_hand import analyse_hand
    from tarot_analysis.deals.deal import deal

    rules = load_rules("fft-4")
    hand = "21 19 12 6 1 E KH CH 10H 8H 1H JD 8D QC CC 7C 6S 4S"
    local = analyse_hand(hand, rules, deals=3_000, seed=5, threads=2)
    remote = analyse_hand(hand, rules, deals=3_000, seed=5, client=client)
    assert local.to_json() == remote.to_json()

    variants = [rules, load_rules("legacy-4")]
    local_comparison = compare_variants(variants, 4_000, seed=3, threads=2)
    remote_comparison = compare_variants(variants, 4_000, seed=3, client=client)
    assert local_comparison.to_json() == remote_comparison.to_json()

    dealt = deal(rules, 50_000, seed=8, chunk_size=7_000, where={"bouts": 2}, threads=2)
    on_cluster = deal(rules, 50_000, seed=8, chunk_size=7_000, where={"bouts": 2}, client=client)
    assert np.array_equal(dealt.masks, on_cluster.masks)
    assert dealt.rejected == on_cluster.rejected


def test_guidance_counts_on_a_cluster_give_the_tables_of_rows_on_threads(client, tmp_path) -> None:  # type: ignore[no-untyped-def]
    import pandas as pd

    from tarot_analysis.analyses.guidance import guidance_tables, run_guidance

    rules = load_rules("fft-5")
    rows = run_guidance(rules, 12_000, tmp_path / "rows", seed=7, chunk_size=2_500, threads=2)
    counts = run_guidance(rules, 12_000, tmp_path / "counts", seed=7, chunk_size=2_500,
                          client=client, rows=False)  # fmt: skip
    assert counts.frame is None and counts.deals == 12_000
    assert counts.played_deals == len(rows.played())
    expected, found = guidance_tables(rows), guidance_tables(counts)
    for name, table in expected.items():
        pd.testing.assert_frame_equal(table, found[name], check_exact=True)


def test_every_runner_command_takes_the_cluster_options(
    tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:  # type: ignore[no-untyped-def]
    hand = "21 19 12 6 1 E KH CH 10H 8H 1H JD 8D QC CC 7C 6S 4S"
    heuristic = ["--bots", "heuristic"]  # the rule-based bot: quick to compile on the workers
    commands = {
        "play": ["play", "--deals", "6000", "--chunk-size", "2000", "--json", *heuristic],
        "hand": ["hand", hand, "--deals", "2000", "--json", *heuristic],
        "compare": ["compare", "fft-4", "legacy-4", "--deals", "3000", "--json"],
    }
    for name, argv in commands.items():
        assert main(argv) == 0, name
        threads = json.loads(capsys.readouterr().out)
        assert main([*argv, "--workers", "2"]) == 0, name
        workers = json.loads(capsys.readouterr().out)
        for result in (threads, workers):
            result.pop("seconds", None)
            result.get("metadata", {}).pop("seconds", None)
        assert threads == workers, name

    for where in ("threads", "workers"):
        folder = tmp_path / where
        argv = ["report", "--deals", "4000", "--bots", "random", "--no-progress",
                "--data", str(folder / "data"), "--out", str(folder)]  # fmt: skip
        assert main([*argv, "--workers", "2"] if where == "workers" else argv) == 0
        capsys.readouterr()
    for stored in sorted((tmp_path / "threads" / "data").glob("*.json")):
        twin = tmp_path / "workers" / "data" / stored.name
        assert json.loads(stored.read_text())["tables"] == json.loads(twin.read_text())["tables"]


# --- A cluster that loses workers, or its scheduler ------------------------------------------

ROOT = Path(__file__).resolve().parents[1]
#: Seconds a test waits for a scheduler or workers it starts, at most.
START_TIMEOUT = 120


@pytest.mark.parametrize(
    "address", ["notaurl", "tcp://127.0.0.1", "http://x:1", "127.0.0.1:99999", "tcp://:8786"]
)
def test_a_scheduler_address_is_checked_before_connecting(
    capsys: pytest.CaptureFixture[str], address: str
) -> None:
    code = main(["hands", "--deals", "1000", "--scheduler", address, "--json"])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1 and f"--scheduler {address}:" in err
    assert check_address("tcp://127.0.0.1:8786") == "tcp://127.0.0.1:8786"
    assert check_address("[::1]:8786") == "[::1]:8786"


class _KillOnSubmit:
    """A Dask client that kills a worker process right after its ``n``-th ``submit``: the
    first sends the run's work, the next ones its tasks, and one after the first width of
    tasks is sent only once a result has come back."""

    def __init__(self, client: Any, pids: list[int], n: int) -> None:
        self._client, self._pids, self._n = client, pids, n
        self.submitted = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def submit(self, *args: Any, **kwargs: Any) -> Any:
        future = self._client.submit(*args, **kwargs)
        self.submitted += 1
        if self.submitted == self._n:
            for pid in self._pids:
                os.kill(pid, signal.SIGKILL)
        return future


@pytest.mark.parametrize(
    "when", [1, 2, 7], ids=["as-the-work-is-sent", "at-the-first-task", "mid-run"]
)
def test_a_worker_killed_at_any_point_changes_no_number(when: int) -> None:
    from tarot_analysis.table.play import play_counts

    rules = load_rules("fft-4")
    options = {"bots": "random", "seed": 11, "chunk_size": 1_000}
    local, _ = play_counts(rules, 40_000, threads=2, **options)  # 40 chunks, 10 tasks
    with dask_client(workers=2) as client:
        pids = sorted(client.run(os.getpid).values())
        killing = _KillOnSubmit(client, pids[:1], when)
        remote, _ = play_counts(rules, 40_000, client=killing, **options)
        assert killing.submitted == 11  # the work, then every task once
        assert pids[0] not in client.run(os.getpid).values()  # the worker was replaced
    pd.testing.assert_frame_equal(local.sums, remote.sums)
    assert local.redeals == remote.redeals and local.deals == remote.deals == 40_000


@contextmanager
def _external_cluster(folder: Path, *, nanny: bool) -> Iterator[tuple[str, list[Any]]]:
    """A scheduler and two workers of one thread, started here on 127.0.0.1 (as ``dask
    scheduler`` and ``dask worker`` would be), each in its own process group: their address
    and processes (the scheduler's first), all killed at the end."""
    env = os.environ | {
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    }
    started: list[subprocess.Popen[bytes]] = []

    def start(*argv: str) -> subprocess.Popen[bytes]:
        process = subprocess.Popen(
            [sys.executable, "-m", *argv], cwd=ROOT, env=env, start_new_session=True,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        started.append(process)
        return process

    file = folder / "scheduler.json"
    file.unlink(missing_ok=True)  # the address of a scheduler started before, if any
    try:
        start("distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0",
              "--no-dashboard", "--scheduler-file", str(file))  # fmt: skip
        deadline = time.monotonic() + START_TIMEOUT
        while not file.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        address = json.loads(file.read_text())["address"]
        for _ in range(2):
            start("distributed.cli.dask_worker", address, "--nworkers", "1", "--nthreads", "1",
                  "--host", "127.0.0.1", "--no-dashboard", "--death-timeout", "60",
                  "--nanny" if nanny else "--no-nanny")  # fmt: skip
        with Client(address, timeout=START_TIMEOUT) as client:
            client.wait_for_workers(2, timeout=START_TIMEOUT)
        yield address, started
    finally:
        for process in started:
            with suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=START_TIMEOUT)


def test_a_run_with_no_worker_left_says_so_in_one_line(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from tarot_analysis.runs import simulate
    from tarot_analysis.table.play import play_counts

    monkeypatch.setattr(simulate, "NO_WORKER_SECONDS", 2.0)
    rules = load_rules("fft-4")
    with (
        _external_cluster(tmp_path, nanny=False) as (address, processes),
        dask_client(address) as client,
    ):
        workers = [process.pid for process in processes[1:]]  # no nanny starts them again
        killing = _KillOnSubmit(client, workers, 2)  # every worker, as the first task is sent
        with pytest.raises(ClusterLost, match=f"no Dask worker is left at {address}"):
            play_counts(rules, 8_000, bots="random", chunk_size=1_000, client=killing)


def test_a_scheduler_stopped_mid_run_ends_in_one_line_and_keeps_the_finished_chunks(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    from tarot_analysis.runs import runner, simulate

    argv = ["guidance", "--deals", "8000", "--chunk-size", "200", "--bots", "random",
            "--no-rows", "--seed", "5", "--no-progress", "--json"]  # fmt: skip
    data, tables = tmp_path / "data", tmp_path / "tables"
    with _external_cluster(tmp_path, nanny=True) as (address, processes):
        scheduler = processes[0]

        def stop_after_the_first(*args: Any, **kwargs: Any) -> Iterator[Any]:
            for chunk in simulate.map_chunks(*args, **kwargs):
                yield chunk  # the run writes it before it asks for the next
                if scheduler.poll() is None:
                    os.killpg(scheduler.pid, signal.SIGKILL)
                    scheduler.wait(timeout=START_TIMEOUT)

        monkeypatch.setattr(runner, "map_chunks", stop_after_the_first)
        capfd.readouterr()
        code = main([*argv, "--data", str(data), "--tables", str(tables), "--scheduler", address])
        out, err = capfd.readouterr()
    monkeypatch.undo()
    assert code == 2 and out == "" and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    assert f"the Dask scheduler at {address}" in err and f"kept in {data}" in err
    kept = len(list(data.glob("chunk-*.parquet")))
    assert 1 <= kept < 40

    # Run again, here on threads: it resumes, and its tables are those of a run from scratch.
    assert main([*argv, "--data", str(data), "--tables", str(tables)]) == 0
    resumed = json.loads(capfd.readouterr().out)
    fresh_data, fresh_tables = tmp_path / "fresh-data", tmp_path / "fresh-tables"
    assert main([*argv, "--data", str(fresh_data), "--tables", str(fresh_tables)]) == 0
    fresh = json.loads(capfd.readouterr().out)
    for result in (resumed, fresh):
        for key in ("seconds", "data", "tables"):
            result.pop(key, None)
    assert resumed == fresh


def test_a_lost_cluster_says_whether_the_finished_chunks_are_kept() -> None:
    """A run folder keeps the chunks finished before the cluster was lost, and says where; a
    command that holds its chunks in memory says that it keeps none."""
    lost = ClusterLost("no Dask worker is left at tcp://127.0.0.1:1 (3 chunks finished)")
    assert lost.line().endswith("so none is kept: run it again")
    kept = lost.kept("the finished chunks are kept in data/run: run the same command again")
    assert kept.line() == str(kept) and str(kept).startswith(str(lost))
    assert "none is kept" not in kept.line()


def test_lessons_and_the_learned_bot_on_a_cluster_are_those_of_local_threads(
    client, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    from tarot_analysis.learning.teacher import read_lessons, teach
    from tarot_analysis.table.play import play

    rules = load_rules("fft-4")
    folders = {"threads": tmp_path / "threads", "cluster": tmp_path / "cluster"}
    teach(rules, 6, folders["threads"], worlds=2, seed=3, chunk_size=2, threads=2)
    teach(rules, 6, folders["cluster"], worlds=2, seed=3, chunk_size=2, client=client)
    on_threads, on_cluster = (read_lessons(f) for f in folders.values())
    assert on_threads.num_rows == on_cluster.num_rows > 0
    for name in on_threads.column_names:
        a, b = (t.column(name).combine_chunks() for t in (on_threads, on_cluster))
        if hasattr(a, "flatten"):
            a, b = a.flatten(), b.flatten()
        assert np.array_equal(
            a.to_numpy(zero_copy_only=False), b.to_numpy(zero_copy_only=False),
            equal_nan=name == "values",
        ), name  # fmt: skip
    local = play(rules, 3000, bots="learned", seed=3, chunk_size=1000, threads=2)
    remote = play(rules, 3000, bots="learned", seed=3, chunk_size=1000, client=client)
    assert np.array_equal(local.outcomes, remote.outcomes)


def test_the_double_dummy_bound_on_a_cluster_is_that_of_local_threads(client, tmp_path) -> None:  # type: ignore[no-untyped-def]
    import pandas as pd

    from tarot_analysis.analyses.dd_bound import run_bound

    rules = load_rules("fft-4")
    on_threads = run_bound(rules, 8, tmp_path / "threads", after_tricks=14, chunk_size=3)
    on_cluster = run_bound(
        rules, 8, tmp_path / "cluster", after_tricks=14, chunk_size=3, client=client
    )
    pd.testing.assert_frame_equal(on_threads, on_cluster)
