"""Files written whole or not at all.

Every file the toolkit writes (run chunks, tables, Parquet rows, HTML pages, charts, the PDF)
is first written to a temporary file in the target's own folder, then renamed over the target
(:func:`os.replace`, atomic on one file system): a process killed midway, or a disk that fills
up, leaves the old file or the new one, never a truncated one.

A temporary file is named after its target, hidden (a leading dot, which Parquet readers skip),
with the process and the machine that write it: ``.tables.csv.4242@host.tmp``. A folder shared
by several processes keeps the temporary files of the live ones; :func:`remove_stale` removes
only those whose process is gone (on this machine).

>>> import tempfile
>>> folder = Path(tempfile.mkdtemp())
>>> with replacing(folder / "a.txt") as temporary:
...     _ = temporary.write_text("whole")
>>> (folder / "a.txt").read_text(), sorted(p.name for p in folder.iterdir())
('whole', ['a.txt'])

A write that fails leaves the old file as it was, and no temporary file:

>>> with replacing(folder / "a.txt") as temporary:
...     _ = temporary.write_text("half")
...     raise RuntimeError("killed")
Traceback (most recent call last):
RuntimeError: killed
>>> (folder / "a.txt").read_text(), sorted(p.name for p in folder.iterdir())
('whole', ['a.txt'])

A file that belongs to whoever creates it first (a run folder's definition) is created whole,
and only if it is not there:

>>> create_text(folder / "b.json", "first"), create_text(folder / "b.json", "second")
(True, False)
>>> (folder / "b.json").read_text()
'first'
"""

from __future__ import annotations

import errno
import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

from tarot_analysis.errors import is_digits

__all__ = [
    "TEMPORARY_SUFFIX",
    "create_text",
    "is_stale",
    "remove_stale",
    "replacing",
    "temporary_path",
    "write_text",
]

#: How every temporary file's name ends.
TEMPORARY_SUFFIX: Final = ".tmp"


def _host() -> str:
    """This machine's name, as it goes in a temporary file's name."""
    return socket.gethostname().replace("@", "_").replace("/", "_") or "localhost"


def temporary_path(target: str | os.PathLike[str]) -> Path:
    """The temporary file this process writes ``target`` through: same folder, hidden."""
    path = Path(target)
    return path.with_name(f".{path.name}.{os.getpid()}@{_host()}{TEMPORARY_SUFFIX}")


def _owner(temporary: Path) -> tuple[int, str] | None:
    """The process id and machine that write ``temporary``, or ``None`` if its name says none.

    Names without a machine (``.name.4242.tmp``, as earlier versions wrote them) are this
    machine's."""
    name = temporary.name
    if not (name.startswith(".") and name.endswith(TEMPORARY_SUFFIX)):
        return None
    stem = name[1 : -len(TEMPORARY_SUFFIX)]
    rest, at, host = stem.rpartition("@")
    if not at:
        rest, host = stem, _host()
    pid = rest.rpartition(".")[2]
    return (int(pid), host) if is_digits(pid) else None


def _alive(pid: int) -> bool:
    """Whether a process ``pid`` runs on this machine."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process, or in doubt: leave the file alone
        return True
    return True


def is_stale(temporary: str | os.PathLike[str]) -> bool:
    """Whether ``temporary`` was left by a process of this machine that is gone."""
    owner = _owner(Path(temporary))
    return owner is not None and owner[1] == _host() and not _alive(owner[0])


def remove_stale(folder: str | os.PathLike[str], pattern: str = f".*{TEMPORARY_SUFFIX}") -> int:
    """Remove the temporary files in ``folder`` matching ``pattern`` whose writer is gone (on
    this machine); leave those of live processes, and of other machines. Returns how many."""
    removed = 0
    for path in Path(folder).glob(pattern):
        if is_stale(path):
            path.unlink(missing_ok=True)
            removed += 1
    return removed


def _named(error: OSError, target: Path) -> OSError:
    """``error`` saying which file it is about (the target, not its temporary file)."""
    reason = error.strerror or str(error) or type(error).__name__
    if error.errno == errno.ENOSPC:
        reason = os.strerror(errno.ENOSPC)  # "No space left on device", whoever raised it
    return OSError(error.errno, reason, str(target))


@contextmanager
def replacing(target: str | os.PathLike[str]) -> Iterator[Path]:
    """A temporary path to write ``target`` to; renamed over ``target`` when the block ends
    without error, removed otherwise.

    An :class:`OSError` raised in the block (a full disk, a folder gone) comes out naming
    ``target`` (its ``filename``), with the reason alone: the command line prints it in one
    line. Any other error is raised as it is.
    """
    path = Path(target)
    temporary = temporary_path(path)
    try:
        yield temporary
        os.replace(temporary, path)
    except OSError as error:
        temporary.unlink(missing_ok=True)
        raise _named(error, path) from error
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def create_text(target: str | os.PathLike[str], text: str) -> bool:
    """Create ``target`` holding ``text`` (UTF-8), whole, only if no file is there: ``True``
    if this call created it, ``False`` if it was there already (left as it is).

    The file is written under a temporary name and hard-linked into place, which fails if the
    target exists: of two processes creating one file at once, one wins and the other sees a
    complete file. Where the file system has no hard links, it is created exclusively.
    """
    path = Path(target)
    temporary = temporary_path(path)
    try:
        temporary.write_text(text, encoding="utf-8")
        try:
            os.link(temporary, path)
        except FileExistsError:
            return False
        except OSError:  # no hard links here
            try:
                with open(path, "x", encoding="utf-8") as created:
                    created.write(text)
            except FileExistsError:
                return False
        return True
    except OSError as error:
        raise _named(error, path) from error
    finally:
        temporary.unlink(missing_ok=True)


def write_text(target: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` (UTF-8) to ``target`` whole or not at all; return the target."""
    path = Path(target)
    with replacing(path) as temporary:
        temporary.write_text(text, encoding="utf-8")
    return path
