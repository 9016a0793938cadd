"""One guarded reader for every file the toolkit reads.

Rules files, game records, model files, lessons and the files of a run folder all come in
through here, so that a file a user names gets the same checks whichever command reads it:

- **a regular file only.** A folder, a pipe, a device (``/dev/zero``) or a socket is refused
  before it is opened: opening a pipe waits for a writer, and a device can be read forever;
- **a size bound** by what such a file can hold (a game record is a few kilobytes, a model a
  few megabytes), checked before a byte is read, and again while reading;
- **text is UTF-8**, and JSON or TOML that cannot be read as such (binary bytes, a hundred
  thousand nested brackets, a number of 5,000 digits, ``NaN``) is "not valid JSON" or "not valid
  TOML", in one line;
- **an** ``.npz`` **archive is read member by member**, each bounded as it is unpacked: the
  size its archive declares, and the shape its header declares against that size, checked
  before the array is allocated. A compressed bomb is refused without inflating it, and a
  member that inflates past its declared size fails its archive's own check.

Every refusal is one line naming the file and the fault, a
:class:`~tarot_analysis.errors.TarotInputError` (or the subclass a caller gives, such as
:class:`~tarot_analysis.errors.RulesError`):

>>> import tempfile
>>> folder = Path(tempfile.mkdtemp())
>>> _ = (folder / "record.json").write_bytes(b'{"hands": [' + b"[" * 100_000)
>>> read_json(folder / "record.json", "game record", limit=RECORD_BYTES)
Traceback (most recent call last):
...
tarot_analysis.errors.TarotInputError: game record ...json: not valid JSON: nested too deeply
>>> read_text("/dev/zero", "game record", limit=RECORD_BYTES)
Traceback (most recent call last):
...
tarot_analysis.errors.TarotInputError: game record /dev/zero: not a regular file (a device, ...)
"""

from __future__ import annotations

import json
import math
import os
import stat
import sys
import tomllib
import zipfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, Final

import numpy as np
import numpy.typing as npt

from tarot_analysis.errors import TarotInputError

__all__ = [
    "DEFINITION_BYTES",
    "MODEL_BYTES",
    "RECORD_BYTES",
    "RULES_BYTES",
    "RUN_CHUNK_BYTES",
    "TABLES_BYTES",
    "Archive",
    "open_archive",
    "parse_json",
    "parse_toml",
    "read_bytes",
    "read_json",
    "read_text",
    "read_toml",
    "regular_file",
    "size_text",
]

#: The largest rules file read: a preset is a few kilobytes.
RULES_BYTES: Final = 1 << 20
#: The largest game record read: a whole deal with its notes is a few kilobytes.
RECORD_BYTES: Final = 1 << 20
#: The largest JSON file of a run folder read (a definition, a manifest, a report of training).
DEFINITION_BYTES: Final = 16 << 20
#: The largest tables a report keeps of a run, read back (JSON).
TABLES_BYTES: Final = 256 << 20
#: The largest model file read: the weights of the widest network a table seats, 256 MiB
#: unpacked, and its metadata.
MODEL_BYTES: Final = 300 << 20
#: The largest chunk of a run read (a Parquet file): a chunk of lessons is tens of megabytes.
RUN_CHUNK_BYTES: Final = 4 << 30


def size_text(size: int) -> str:
    """A size in bytes as people read it.

    >>> size_text(1 << 20), size_text(300 << 20), size_text(2048)
    ('1 MiB', '300 MiB', '2 KiB')
    """
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if size >= 1 << shift:
            return f"{size / (1 << shift):.3g} {unit}"
    return f"{size} bytes"


def regular_file(
    path: str | os.PathLike[str],
    what: str,
    *,
    limit: int,
    error: type[TarotInputError] = TarotInputError,
) -> Path:
    """``path``, checked without opening it to be a regular file of at most ``limit`` bytes:
    what a reader that opens the file itself (Parquet) is given. ``what`` names the file in
    the one line of an ``error`` ("rules file", "game record", "model file")."""
    where = Path(path)
    try:
        mode = where.stat()
    except FileNotFoundError:
        raise error(f"{what} {where}: no such file") from None
    except OSError as failure:
        raise error(_unreadable(what, where, failure)) from None
    if stat.S_ISDIR(mode.st_mode):
        raise error(f"{what} {where}: is a folder, not a {what}")
    if not stat.S_ISREG(mode.st_mode):
        raise error(_not_regular(what, where))
    if mode.st_size > limit:
        raise error(_too_large(what, where, limit))
    return where


def _unreadable(what: str, where: Path, failure: OSError) -> str:
    return f"{what} {where}: cannot be read ({failure.strerror or failure})"


def _not_regular(what: str, where: Path) -> str:
    return f"{what} {where}: not a regular file (a device, a pipe or a socket)"


def _too_large(what: str, where: Path, limit: int) -> str:
    return f"{what} {where}: larger than {size_text(limit)}, too large for a {what}"


def read_bytes(
    path: str | os.PathLike[str],
    what: str,
    *,
    limit: int,
    error: type[TarotInputError] = TarotInputError,
) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them (:func:`regular_file`;
    a file that grows past the bound while it is read is refused too)."""
    where = regular_file(path, what, limit=limit, error=error)
    try:
        # Not blocking: a pipe put in the file's place since it was looked at opens at once.
        descriptor = os.open(where, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(descriptor, "rb") as file:
            if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
                raise error(_not_regular(what, where))
            data = file.read(limit + 1)
    except OSError as failure:
        raise error(_unreadable(what, where, failure)) from None
    if len(data) > limit:
        raise error(_too_large(what, where, limit))
    return data


def read_text(
    path: str | os.PathLike[str],
    what: str,
    *,
    limit: int,
    error: type[TarotInputError] = TarotInputError,
) -> str:
    """The text of the regular file ``path`` (:func:`read_bytes`), decoded as UTF-8."""
    data = read_bytes(path, what, limit=limit, error=error)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as failure:
        raise error(f"{what} {path}: not UTF-8 text (byte {failure.start})") from None


def read_json(
    path: str | os.PathLike[str],
    what: str,
    *,
    limit: int,
    error: type[TarotInputError] = TarotInputError,
) -> Any:
    """The JSON value in the regular file ``path`` (:func:`read_text`, :func:`parse_json`)."""
    return parse_json(read_text(path, what, limit=limit, error=error), f"{what} {path}", error)


def read_toml(
    path: str | os.PathLike[str],
    what: str,
    *,
    limit: int,
    error: type[TarotInputError] = TarotInputError,
) -> dict[str, Any]:
    """The TOML table in the regular file ``path`` (:func:`read_text`, :func:`parse_toml`)."""
    return parse_toml(read_text(path, what, limit=limit, error=error), f"{what} {path}", error)


def _refuse_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON holds")


def _finite(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise ValueError(f"{text[:20]}... is too large a number")
    return number


def parse_json(text: str, where: str, error: type[TarotInputError] = TarotInputError) -> Any:
    """The JSON value ``text``, or one line naming ``where``: standard JSON only (no ``NaN``
    or ``Infinity``, no number too large for a float or of more digits than Python converts).

    >>> parse_json('{"seed": ' + "9" * 5000 + "}", "game record r.json")
    Traceback (most recent call last):
    ...
    tarot_analysis.errors.TarotInputError: game record r.json: not valid JSON: a number of ...
    """
    try:
        return json.loads(text, parse_constant=_refuse_constant, parse_float=_finite)
    except json.JSONDecodeError as failure:
        raise error(f"{where}: not valid JSON: {failure}") from None
    except RecursionError:
        raise error(f"{where}: not valid JSON: nested too deeply") from None
    except ValueError as failure:
        raise error(f"{where}: not valid JSON: {_number_fault(failure)}") from None


def parse_toml(
    text: str, where: str, error: type[TarotInputError] = TarotInputError
) -> dict[str, Any]:
    """The TOML table ``text``, or one line naming ``where``.

    >>> parse_toml("a = " + "[" * 100_000, "rules file r.toml")
    Traceback (most recent call last):
    ...
    tarot_analysis.errors.TarotInputError: rules file r.toml: not valid TOML: nested too deeply
    """
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as failure:
        raise error(f"{where}: not valid TOML: {failure}") from None
    except RecursionError:
        raise error(f"{where}: not valid TOML: nested too deeply") from None
    except ValueError as failure:
        raise error(f"{where}: not valid TOML: {_number_fault(failure)}") from None


def _number_fault(failure: ValueError) -> str:
    """What is wrong with a number a parser could not convert, in a few words."""
    text = str(failure)
    if "digits" in text:
        return f"a number of more than {_digits_limit()} digits"
    return " ".join(text.split())[:200] or "a value it cannot hold"


def _digits_limit() -> int:
    return sys.get_int_max_str_digits() or 4300


class Archive:
    """An open ``.npz`` archive whose members are read one at a time, each bounded as it is
    unpacked (:func:`open_archive`)."""

    def __init__(
        self, archive: zipfile.ZipFile, where: str, what: str, error: type[TarotInputError]
    ) -> None:
        self._archive = archive
        self._where = where
        self._what = what
        self._error = error
        self.members = {info.filename.removesuffix(".npy"): info for info in archive.infolist()}

    @property
    def names(self) -> list[str]:
        """The names of the arrays the archive holds, in its order."""
        return list(self.members)

    def unpacked(self, name: str) -> int:
        """The size of member ``name`` unpacked, as its archive declares it."""
        return self.members[name].file_size

    def array(self, name: str, limit: int) -> npt.NDArray[Any]:
        """The array ``name``, refused in one line when its archive declares more than
        ``limit`` bytes unpacked, when its header declares more than its member holds, or
        when it holds Python objects."""
        info = self.members[name]
        if info.file_size > limit:
            raise self._error(
                f"{self._where}: its {name} take {info.file_size / 2**20:.1f} MiB unpacked; a "
                f"{self._what}'s take at most {limit / 2**20:.1f} MiB"
            )
        with self._archive.open(info) as member:
            shape, dtype = _header(member)
            declared = math.prod(shape) * dtype.itemsize
            if dtype.hasobject or declared > info.file_size - member.tell():
                raise ValueError("an array larger than its file")
        with self._archive.open(info) as member:
            return np.asarray(np.lib.format.read_array(member, allow_pickle=False))

    def arrays(self, limit: int) -> dict[str, npt.NDArray[Any]]:
        """Every array of the archive, each bounded by ``limit`` bytes and all of them together
        too."""
        total = sum(info.file_size for info in self.members.values())
        if total > limit:
            raise self._error(
                f"{self._where}: its arrays take {total / 2**20:.1f} MiB unpacked; a "
                f"{self._what}'s take at most {limit / 2**20:.1f} MiB"
            )
        return {name: self.array(name, limit) for name in self.members}


def _header(member: IO[bytes]) -> tuple[tuple[int, ...], np.dtype[Any]]:
    version = np.lib.format.read_magic(member)
    if version == (1, 0):
        shape, _, dtype = np.lib.format.read_array_header_1_0(member)
    elif version == (2, 0):
        shape, _, dtype = np.lib.format.read_array_header_2_0(member)
    else:
        raise ValueError(f"format {version} of .npy")
    return shape, dtype


@contextmanager
def open_archive(
    path: str | os.PathLike[str],
    what: str,
    *,
    limit: int = MODEL_BYTES,
    where: str | None = None,
    error: type[TarotInputError] = TarotInputError,
) -> Iterator[Archive]:
    """The ``.npz`` archive in the regular file ``path`` of at most ``limit`` bytes, open for
    the block (:class:`Archive`). A damaged archive, or a member that is not an array of its
    declared size, raises one line naming the file (``where``, by default ``what`` and the
    path); the caller's own :class:`TarotInputError` passes through."""
    named = where or f"{what} {path}"
    source = regular_file(path, what, limit=limit, error=error)
    try:
        with zipfile.ZipFile(source) as archive:
            yield Archive(archive, named, what, error)
    except TarotInputError:
        raise
    except OSError as failure:
        raise error(f"{named}: cannot be read ({failure.strerror or failure})") from None
    except (
        ValueError, EOFError, zipfile.BadZipFile, zlib.error, KeyError, RuntimeError,
        NotImplementedError, OverflowError, MemoryError,
    ):  # fmt: skip
        raise error(f"{named}: not a readable {what} (damaged or truncated)") from None
