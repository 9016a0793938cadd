"""Chunks on a Dask cluster: the same runs, beyond one machine.

A run's chunks are fixed by its definition and seeded by their number, so where a chunk runs
changes nothing in its result: a cluster gives the same numbers as local threads. Dask is an
optional extra (``pip install 'tarot-analysis[dask]'``), imported only when a cluster is asked
for. A chunk whose worker is lost is computed again elsewhere; a run that can no longer go on
(no worker left for a while, the scheduler gone) ends in :class:`ClusterLost`, one line.
"""

from __future__ import annotations

import argparse
import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Final

from tarot_analysis.errors import TarotInputError

__all__ = ["ClusterLost", "add_cluster_options", "check_address", "dask_client"]

#: How long to wait for a scheduler before saying it cannot be reached.
CONNECT_TIMEOUT = "10s"
#: How a Dask scheduler is reached (``tcp://`` when an address names no protocol).
SCHEMES: Final = ("tcp", "tls", "ws", "wss", "ucx")
_ADDRESS: Final = re.compile(
    r"""
    (?:(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://)?  # tcp://, tls://, ... (none: tcp://)
    (?P<host>\[[0-9A-Fa-f:.]+\]|[^\s:/\[\]@]+)  # a name, an IPv4 address or an [IPv6] one
    :(?P<port>[0-9]+)
    """,
    re.VERBOSE,
)


class ClusterLost(TarotInputError):
    """A run on a Dask cluster that cannot go on: its scheduler has gone, or no worker is left.

    The message says what happened; the chunks finished before are kept where the run keeps
    them (:meth:`kept` adds where, and sets :attr:`is_kept`), so that the same command run
    again resumes. A command that holds its chunks in memory keeps none (:meth:`line` says so).
    """

    is_kept = False

    def kept(self, where: str) -> ClusterLost:
        """The same error, its message saying ``where`` the finished chunks are."""
        lost = ClusterLost(f"{self}; {where}")
        lost.is_kept = True
        return lost

    def line(self) -> str:
        """The message, saying that nothing is kept when no run folder keeps the chunks."""
        if self.is_kept:
            return str(self)
        return f"{self}; this command keeps its chunks in memory, so none is kept: run it again"


def check_address(address: str) -> str:
    """``address`` if it can be a Dask scheduler's (``[tcp://]HOST:PORT``), else a one-line
    :class:`TarotInputError` saying why, before anything tries to connect.

    >>> check_address("tcp://10.0.0.5:8786")
    'tcp://10.0.0.5:8786'
    """
    match = _ADDRESS.fullmatch(address.strip())
    if match is None:
        raise TarotInputError(
            f"--scheduler {address}: not a scheduler address; give its host and port, "
            "e.g. tcp://10.0.0.5:8786"
        )
    scheme = match["scheme"]
    if scheme is not None and scheme.lower() not in SCHEMES:
        raise TarotInputError(
            f"--scheduler {address}: a Dask scheduler is reached by "
            f"{', '.join(s + '://' for s in SCHEMES[:-1])} or {SCHEMES[-1]}://, not {scheme}://"
        )
    if not 0 < int(match["port"]) < 2**16:
        raise TarotInputError(
            f"--scheduler {address}: the port must be 1 to 65535, got {match['port']}"
        )
    return address.strip()


@contextmanager
def _quiet_dask() -> Iterator[None]:
    """Dask's own log lines held back while a run uses the cluster: a worker lost and replaced
    is no news to the user, and a run that cannot go on says so in one line."""
    names = ["distributed"] + [
        name for name in logging.root.manager.loggerDict if name.startswith("distributed.")
    ]  # those with a level of their own (Dask's configuration gives some one) too
    loggers = [logging.getLogger(name) for name in names]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


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
        check_address(scheduler)
        with _quiet_dask():
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
    with _quiet_dask():
        cluster = LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
            # no dashboard; the scheduler's small HTTP service on any free port, not on 8787
            scheduler_kwargs={"dashboard_address": ":0"}, silence_logs=logging.CRITICAL,
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
