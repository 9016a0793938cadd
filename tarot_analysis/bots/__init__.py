"""Bots: the policies that bid, call, discard, announce and play inside the compiled engine.

Every bot answers the same questions (:mod:`tarot_analysis.bots.policy`), by number in the
kernel and by name for people. A new bot is a module with those functions and one line in
:data:`BOTS` and in the policy's dispatch.
"""

from __future__ import annotations

from typing import Final

from tarot_analysis.errors import TarotInputError

#: Bots by name, and the number the compiled engine knows them by.
BOTS: Final = {"random": 0, "heuristic": 1}


def bot_id(name: str) -> int:
    """The engine's number for bot ``name``."""
    try:
        return BOTS[name]
    except KeyError:
        raise TarotInputError(f"unknown bot {name!r}; known: {', '.join(BOTS)}") from None
