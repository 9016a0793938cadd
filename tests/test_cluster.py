"""The same runs on a Dask cluster: identical results, clear errors."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tarot_analysis.cli import main
from tarot_analysis.cluster import dask_client
from tarot_analysis.errors import TarotInputError
from tarot_analysis.hand_stats import run_hands
from tarot_analysis.rules import load_rules


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
    from tarot_analysis.guidance import run_guidance
    from tarot_analysis.runner import read_dataset

    rules = load_rules("fft-4")
    local = run_guidance(rules, 20_000, tmp_path / "local", seed=2, chunk_size=5_000)
    with dask_client(workers=2) as client:
        remote = run_guidance(rules, 20_000, tmp_path / "remote", seed=2, chunk_size=5_000,
                              client=client)  # fmt: skip
    assert read_dataset(tmp_path / "local").equals(read_dataset(tmp_path / "remote"))
    assert local.frame.equals(remote.frame)
