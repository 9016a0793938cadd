"""Errors raised for user mistakes.

Every error a user can cause (a bad card, a bad rules file, an impossible option) is a
``TarotInputError``. The command line prints its message on one line and exits non-zero,
without a traceback; library users catch it like any ``ValueError``.
"""

from typing import Any, TypeGuard

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


def whole_number(value: object, what: str) -> int:
    """``value`` as a Python ``int`` (a NumPy integer too, never a bool, a float or a string);
    a ``TarotInputError`` naming ``what`` otherwise."""
    if not is_whole_number(value):
        raise TarotInputError(f"{what} must be a whole number, got {value!r}")
    return int(value)
