"""Chunks on a Dask cluster: the same runs, beyond one machine.

A run's chunks are fixed by its definition and seeded by their number, so where a chunk runs
changes nothing in its result: a cluster gives the same numbers as local threads. Dask is an
optional extra (``pip install 'tarot-analysis[dask]'``), imported only when a cluster is asked
for. A chunk whose worker is lost is computed again elsewhere (``retries``).
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tarot_analysis.errors import TarotInputError

__all__ = ["add_cluster_options", "dask_client"]

#: How long to wait for a scheduler before saying it cannot be reached.
CONNECT_TIMEOUT = "10s"


@contextmanager
def dask_client(scheduler: str | None = None, workers: int | None = None) -> Iterator[Any]:
    """A Dask client for ``scheduler`` (an address), or for a local cluster of ``workers``
    processes; ``None`` when neither is asked for (the run stays on local threads)."""
    if scheduler is None and workers is None:
        yield None
        return
    if scheduler is not None and workers is not None:
        raise TarotInputError("give either --scheduler or --workers, not both")
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise TarotInputError(
            "running on a Dask cluster needs Dask: pip install 'tarot-analysis[dask]'"
        ) from None
    if scheduler is not None:
        try:
            client = Client(scheduler, timeout=CONNECT_TIMEOUT)
        except (OSError, TimeoutError) as error:
            raise TarotInputError(
                f"cannot reach the Dask scheduler at {scheduler}: {error}"
            ) from None
        with client:
            yield client
        return
    if workers is not None and workers < 1:
        raise TarotInputError(f"workers must be at least 1, got {workers}")
    cluster = LocalCluster(
        n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
        # no dashboard; the scheduler's small HTTP service on any free port, not on 8787
        scheduler_kwargs={"dashboard_address": ":0"},
    )  # fmt: skip
    with cluster, Client(cluster) as client:
        yield client


def add_cluster_options(parser: argparse.ArgumentParser) -> None:
    """The options every runner command shares: where its chunks run."""
    parser.add_argument(
        "--scheduler", metavar="ADDRESS",
        help="run the chunks on the Dask scheduler at this address (e.g. tcp://host:8786)",
    )  # fmt: skip
    parser.add_argument(
        "--workers", type=int, metavar="N",
        help="run the chunks on a local Dask cluster of N worker processes",
    )  # fmt: skip
