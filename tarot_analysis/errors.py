"""Errors raised for user mistakes.

Every error a user can cause (a bad card, a bad rules file, an impossible option) is a
``TarotInputError``. The command line prints its message on one line and exits non-zero,
without a traceback; library users catch it like any ``ValueError``.
"""


class TarotInputError(ValueError):
    """A user input that cannot be used: the message says what and where."""


class CardError(TarotInputError):
    """A card or hand written in the notation could not be read."""


class RulesError(TarotInputError):
    """A rules file or preset is unknown, malformed or inconsistent."""
