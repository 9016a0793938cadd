"""Running long simulations: chunks on every core, in order, with a progress bar.

A run is cut into chunks fixed by the run definition. Chunks run on a pool of threads (the
compiled kernels release the GIL); results come back in chunk order, with at most a few chunks
in flight, so memory stays bounded whatever the number of deals.
"""

from __future__ import annotations

import itertools
import math
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
from tqdm.auto import tqdm

from tarot_analysis import __version__
from tarot_analysis.errors import TarotInputError, one_line, thread_count
from tarot_analysis.game.rules import Rules, rules_to_dict
from tarot_analysis.runs.cluster import ClusterLost
from tarot_analysis.runs.files import remove_stale
from tarot_analysis.runs.interrupts import raise_if_interrupted

__all__ = [
    "check_output_path",
    "check_writable_folder",
    "default_threads",
    "json_value",
    "map_chunks",
    "run_metadata",
    "seed_label",
]

T = TypeVar("T")


def json_value(value: Any) -> Any:
    """A value as JSON writes it: numpy scalars as Python numbers, NaN as null.

    >>> json_value(np.int64(3)), json_value(float("nan")), json_value("garde")
    (3, None, 'garde')
    """
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def default_threads() -> int:
    """Threads to use when a run does not say: one per core this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not every platform has sched_getaffinity
        return max(1, os.cpu_count() or 1)


def map_chunks(
    work: Callable[[int], T],
    chunks: Iterable[int],
    *,
    threads: int | None = None,
    progress: tqdm | None = None,
    progress_step: Callable[[T], int] | None = None,
    client: Any = None,
) -> Iterator[T]:
    """Run ``work(chunk)`` for every chunk and yield the results in chunk order.

    ``threads=1`` runs in the calling thread. ``progress``, if given, is advanced by
    ``progress_step(result)`` (default 1) as each result is yielded. ``client``, a Dask
    client (:mod:`tarot_analysis.runs.cluster`), runs the chunks on its workers instead, a chunk
    whose worker is lost being computed again. ``threads`` is checked at the call
    (:func:`~tarot_analysis.errors.thread_count`), before any chunk.
    """
    if client is not None:
        return _map_on_cluster(work, chunks, client, progress, progress_step)
    threads = thread_count(threads)
    return _map_on_threads(
        work, chunks, default_threads() if threads is None else threads, progress, progress_step
    )


def _map_on_threads(
    work: Callable[[int], T],
    chunks: Iterable[int],
    threads: int,
    progress: tqdm | None,
    progress_step: Callable[[T], int] | None,
) -> Iterator[T]:
    """``map_chunks`` on ``threads`` local threads (1: the calling thread)."""

    def advance(result: T) -> None:
        raise_if_interrupted()  # a Ctrl-C that Python dropped in a finaliser stops here
        if progress is not None:
            progress.update(progress_step(result) if progress_step else 1)

    if threads == 1:
        for chunk in chunks:
            result = work(chunk)
            advance(result)
            yield result
        return

    pending: deque[Future[T]] = deque()
    pool = ThreadPoolExecutor(max_workers=threads)
    interrupted = False
    try:
        for chunk in chunks:
            pending.append(pool.submit(work, chunk))
            if len(pending) >= 2 * threads:
                result = pending.popleft().result()
                advance(result)
                yield result
        while pending:
            result = pending.popleft().result()
            advance(result)
            yield result
    except KeyboardInterrupt:
        interrupted = True
        raise
    finally:
        for future in pending:
            future.cancel()
        # On Ctrl-C the chunks under way are not waited for: compiled code cannot be stopped,
        # and the command ends the process once it has said what it kept.
        pool.shutdown(wait=not interrupted, cancel_futures=True)


def seed_label(seed: np.random.SeedSequence) -> int | list[int] | None:
    """The seed as a user typed it (an int), or the entropy drawn when none was given."""
    entropy = seed.entropy
    if isinstance(entropy, (int, np.integer)):
        return int(entropy)
    return None if entropy is None else [int(e) for e in entropy]


def run_metadata(
    rules: Rules, seed: np.random.SeedSequence, chunk_size: int, deals: int
) -> dict[str, Any]:
    """What every output file records, so that any deal in it can be dealt again."""
    return {
        "rules": rules.name,
        "rules_definition": rules_to_dict(rules),
        "seed": seed_label(seed),
        "spawn_key": list(seed.spawn_key),
        "chunk_size": chunk_size,
        "deals": deals,
        "chunk_seeding": "SeedSequence(seed, spawn_key=(chunk,)) -> xoshiro256**",
        "bots": None,
        "version": __version__,
    }


def check_output_path(path: str | Path) -> Path:
    """Make sure an output file can be written at ``path`` (creating its folder), or say why.

    Called before a run starts, so that a bad path fails at once rather than after the work.
    Temporary files of ``path`` left by a process that is gone are removed.
    """
    target = Path(path)
    if target.is_dir():
        raise TarotInputError(f"cannot write {target}: it is a folder, not a file")
    check_writable_folder(target.parent, f" for {target}")
    remove_stale(target.parent, f".{target.name}.*.tmp")
    return target


def check_writable_folder(folder: str | os.PathLike[str], purpose: str = "") -> Path:
    """Create ``folder`` if needed and make sure a file can be written in it, or say why in one
    line naming it (``purpose`` is added after the folder's name). Called before any deal is
    dealt: a folder that cannot take the results fails before the work, not after it."""
    import tempfile

    target = Path(folder)
    try:
        target.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=target, prefix=".tarot-analysis-probe-"):
            pass
    except (FileExistsError, NotADirectoryError):
        raise TarotInputError(
            f"cannot create the folder {target}{purpose}: a file is in the way"
        ) from None
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise TarotInputError(f"cannot write in the folder {target}{purpose}: {reason}") from None
    return target


#: Chunks a cluster task computes one after the other: fewer, longer tasks spend less of the
#: machines' time on scheduling and messages (with one chunk per task, a 2-worker cluster on
#: 2 cores ran hands 30% slower than threads; with four, as fast).
CHUNKS_PER_TASK = 4
#: Tasks in flight per worker thread: enough that a worker always has the next task at hand
#: while the result of its last one travels back.
TASKS_PER_WORKER_THREAD = 2
#: Seconds between two looks at the cluster while no task finishes.
CLUSTER_POLL_SECONDS = 1.0
#: Seconds a cluster may stay without any worker (while one that died is started again, or
#: others join) before the run says that none is left.
NO_WORKER_SECONDS = 30.0


def _map_on_cluster(
    work: Callable[[int], T],
    chunks: Iterable[int],
    client: Any,
    progress: tqdm | None,
    progress_step: Callable[[T], int] | None,
) -> Iterator[T]:
    """``map_chunks`` on a Dask cluster: results yielded in chunk order, taken as they finish.

    Tasks of a few consecutive chunks each, a few per worker thread in flight; results that
    finish ahead of an earlier task wait here, and no more tasks are sent while too many wait,
    so memory stays bounded. The work travels once, as the result of a task of its own that
    the scheduler computes again if every worker holding it is lost; a task whose worker is
    lost is computed again on another. When the run cannot go on (the scheduler gone, no
    worker left for :data:`NO_WORKER_SECONDS`), :class:`~tarot_analysis.runs.cluster.ClusterLost`.
    """
    import uuid
    import warnings

    run = uuid.uuid4().hex[:8]
    address = getattr(client.scheduler, "address", "?")
    order = iter(chunks)
    expected: deque[int] = deque()  # tasks sent, in the order their results are due
    finished: dict[int, list[T]] = {}
    pending: dict[Any, int] = {}  # future -> task number
    sent = done = 0
    shipped = None
    try:
        threads = sum(_call_cluster(client.nthreads, address).values())
        width = TASKS_PER_WORKER_THREAD * max(1, threads)
        with warnings.catch_warnings():  # a large work is sent once, on purpose
            warnings.simplefilter("ignore")
            shipped = _call_cluster(
                lambda: client.submit(_identity, work, key=f"tarot-work-{run}", pure=False),
                address,
            )

        def send() -> bool:
            nonlocal sent
            batch = list(itertools.islice(order, CHUNKS_PER_TASK))
            if not batch:
                return False
            key = f"tarot-chunks-{run}-{batch[0]}-{batch[-1]}"
            future = _call_cluster(
                lambda: client.submit(_call, shipped, batch, key=key, pure=False, retries=3),
                address,
            )
            pending[future] = sent
            expected.append(sent)
            sent += 1
            return True

        while len(expected) < width and send():
            pass
        while expected:
            for future in _first_finished(client, list(pending), address):
                finished[pending.pop(future)] = _task_result(future, client, address)
                future.release()
            while expected and expected[0] in finished:
                for result in finished.pop(expected.popleft()):
                    done += 1
                    if progress is not None:
                        progress.update(progress_step(result) if progress_step else 1)
                    yield result
            while len(expected) < width and send():
                pass
    except ClusterLost as lost:
        raise ClusterLost(f"{lost} ({done:,} chunks finished)") from None
    finally:
        for future in pending:  # tasks still running when the run stops
            future.cancel()
        if shipped is not None:
            shipped.release()


def _identity(value: T) -> T:
    """``value``: a task whose result is the work, held by the workers that need it."""
    return value


def _call(work: Callable[[int], T], chunks: list[int]) -> list[T]:
    """``work`` of each chunk, on a worker: the work arrives as the result of a task."""
    return [work(chunk) for chunk in chunks]


def _call_cluster(call: Callable[[], T], address: str) -> T:
    """``call()``, a request to the scheduler at ``address``, or ClusterLost when it has gone."""
    try:
        return call()
    except (OSError, TimeoutError, RuntimeError) as error:  # comm closed, client closed
        raise ClusterLost(
            f"the Dask scheduler at {address} cannot be reached any more ({one_line(error)})"
        ) from None


def _first_finished(client: Any, futures: list[Any], address: str) -> set[Any]:
    """The futures among ``futures`` that have finished (with a result, an error or
    cancelled), waiting for one; ClusterLost when the scheduler has gone or no worker has been
    left for :data:`NO_WORKER_SECONDS`."""
    import asyncio
    import time
    from concurrent.futures import CancelledError

    from distributed import wait

    alone_since: float | None = None
    while True:
        try:
            return set(
                wait(futures, timeout=CLUSTER_POLL_SECONDS, return_when="FIRST_COMPLETED").done
            )
        except TimeoutError:
            pass
        except (CancelledError, asyncio.CancelledError):  # cancelled: their status says why
            return {future for future in futures if future.status != "pending"}
        if client.status != "running":
            raise ClusterLost(f"the connection to the Dask scheduler at {address} was lost")
        workers = _call_cluster(client.nthreads, address)
        if workers:
            alone_since = None
        elif alone_since is None:
            alone_since = time.monotonic()
        elif time.monotonic() - alone_since > NO_WORKER_SECONDS:
            raise ClusterLost(
                f"no Dask worker is left at {address} (none for {NO_WORKER_SECONDS:g} s)"
            )


def _task_result(future: Any, client: Any, address: str) -> Any:
    """The result of a finished task; its own error as it was raised (a chunk's mistake), or
    ClusterLost when the cluster could not compute it."""
    from distributed import KilledWorker

    if future.status == "cancelled":
        if client.status != "running":
            raise ClusterLost(f"the connection to the Dask scheduler at {address} was lost")
        raise ClusterLost(
            f"the Dask scheduler at {address} cancelled the run's tasks (was it restarted?)"
        )
    try:
        return future.result()
    except KilledWorker:
        raise ClusterLost(
            f"the Dask workers at {address} died while computing the same chunks, again and "
            "again (out of memory?)"
        ) from None
