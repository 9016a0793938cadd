"""Errors raised for user mistakes.

Every error a user can cause (a bad card, a bad rules file, an impossible option) is a
``TarotInputError``. The command line prints its message on one line and exits non-zero,
without a traceback; library users catch it like any ``ValueError``.
"""

from typing import Any, Final, TypeGuard

import numpy as np


class TarotInputError(ValueError):
    """A user input that cannot be used: the message says what and where."""


class CardError(TarotInputError):
    """A card or hand written in the notation could not be read."""


class RulesError(TarotInputError):
    """A rules file or preset is unknown, malformed or inconsistent."""


def is_whole_number(value: object) -> TypeGuard[int | np.integer[Any]]:
    """Whether ``value`` is an integer (a NumPy integer too), never a bool, a float or a string.

    >>> is_whole_number(3), is_whole_number(True), is_whole_number(3.0)
    (True, False, False)
    """
    return isinstance(value, int | np.integer) and not isinstance(value, bool)


def is_digits(text: str) -> bool:
    """Whether ``text`` is a number in ASCII digits of at most 18 of them, one ``int`` reads at
    once: ``str.isdigit`` takes ``²`` and ``٣`` too, which ``int`` refuses or reads as other
    digits, and no seat, count or process of the toolkit needs more than 18 digits.

    >>> is_digits("12"), is_digits("²"), is_digits("9" * 5000), is_digits("")
    (True, False, False, False)
    """
    return text.isascii() and text.isdigit() and len(text) <= 18


def one_line(error: BaseException) -> str:
    """An error's message on one line, or its type where it has none."""
    return " ".join(str(error).split()) or type(error).__name__


def seat_number(value: object, players: int, what: str = "seat") -> int:
    """``value`` as a seat of a table of ``players`` (0 to ``players - 1``), checked before any
    compiled code reads it; a ``TarotInputError`` naming ``what`` otherwise.

    >>> seat_number(2, 4)
    2
    >>> seat_number(9, 4, "the leader")
    Traceback (most recent call last):
    ...
    tarot_analysis.errors.TarotInputError: the leader must be between 0 and 3, got 9
    """
    if not is_whole_number(value):
        raise TarotInputError(
            f"{what} must be a seat number between 0 and {players - 1}, got {value!r}"
        )
    if not 0 <= int(value) < players:
        raise TarotInputError(f"{what} must be between 0 and {players - 1}, got {value}")
    return int(value)


def whole_number(
    value: object, what: str, *, least: int | None = None, most: int | None = None
) -> int:
    """``value`` as a Python ``int`` (a NumPy integer too, never a bool, a float or a string)
    from ``least`` to ``most`` (each bound when given); a ``TarotInputError`` naming ``what``
    otherwise.

    >>> whole_number(3, "worlds", least=1)
    3
    >>> whole_number(2.5, "worlds", least=1)
    Traceback (most recent call last):
    ...
    tarot_analysis.errors.TarotInputError: worlds must be a whole number, got 2.5
    """
    if not is_whole_number(value):
        raise TarotInputError(f"{what} must be a whole number, got {value!r}")
    number = int(value)
    if least is not None and most is not None and not least <= number <= most:
        raise TarotInputError(f"{what} must be from {least:,} to {most:,}, got {number:,}")
    if least is not None and number < least:
        raise TarotInputError(f"{what} must be at least {least:,}, got {number:,}")
    if most is not None and number > most:
        raise TarotInputError(f"{what} must be at most {most:,}, got {number:,}")
    return number


#: The most deals one run takes: a billion, which knows a rate to ±0.003 percentage points
#: (the 95% interval of a rate of one half); a larger number is a mistake, refused before any
#: deal rather than left to run out of memory or time.
MOST_DEALS: Final = 1_000_000_000
#: The most chunks a run is cut into: a run folder holds a file for each.
MOST_CHUNKS: Final = 1_000_000


def deal_count(deals: object, *, least: int = 1) -> int:
    """``deals`` as the number of deals of a run: whole, from ``least`` to
    :data:`MOST_DEALS`.

    >>> deal_count(1_000), deal_count(0, least=0)
    (1000, 0)
    """
    return whole_number(deals, "the number of deals", least=least, most=MOST_DEALS)


def thread_count(threads: object) -> int | None:
    """``threads`` as a number of threads: ``None`` (one per core) or a whole number of at
    least 1.

    >>> thread_count(None), thread_count(2)
    (None, 2)
    >>> thread_count(float("nan"))
    Traceback (most recent call last):
    ...
    tarot_analysis.errors.TarotInputError: threads must be a whole number, got nan
    """
    return None if threads is None else whole_number(threads, "threads", least=1)


def run_numbers(
    deals: object, chunk_size: object, threads: object, *, least_deals: int = 1
) -> tuple[int, int, int | None]:
    """The numbers of a run, checked before any work: ``deals`` (:func:`deal_count`, from
    ``least_deals``), ``chunk_size`` (deals a chunk, at least 1, and at most
    :data:`MOST_CHUNKS` chunks) and ``threads`` (:func:`thread_count`). Every entry point
    that deals, plays or solves a run calls it first, so that a number no run can use says so
    in one line before anything is dealt, rather than hanging or failing later.

    >>> run_numbers(1_000, 200, None)
    (1000, 200, None)
    >>> run_numbers(1_000, 0, 1)
    Traceback (most recent call last):
    ...
    tarot_analysis.errors.TarotInputError: the chunk size must be at least 1, got 0
    """
    deals = deal_count(deals, least=least_deals)
    size = whole_number(chunk_size, "the chunk size", least=1)
    if -(-deals // size) > MOST_CHUNKS:
        raise TarotInputError(
            f"{deals:,} deals in chunks of {size:,} make more than {MOST_CHUNKS:,} chunks: "
            "use larger chunks"
        )
    return deals, size, thread_count(threads)
