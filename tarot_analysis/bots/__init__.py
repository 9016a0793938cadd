"""Bots: the policies that bid, call, discard, announce and play inside the compiled engine.

Every bot answers the same questions (:mod:`tarot_analysis.bots.policy`), by number in the
kernel and by name for people. A new bot is a module with those functions and one line in
:data:`BOTS` and in the policy's dispatch.
"""

from __future__ import annotations

from typing import Final

from tarot_analysis.errors import TarotInputError

#: Bots by name, and the number the compiled engine knows them by.
BOTS: Final = {"random": 0, "heuristic": 1, "pimc": 2}

#: The most worlds a ``pimc:N`` bot may draw for one card.
MAX_PIMC_WORLDS: Final = 4096


def bot_id(name: str) -> int:
    """The engine's number for bot ``name``: a name of :data:`BOTS`, or ``pimc:N`` for the
    pimc bot drawing ``N`` worlds a card (the number carries the budget above its 8 low
    bits)."""
    base, _, budget = name.partition(":")
    if base == "pimc" and budget:
        if not budget.isdigit() or not 1 <= int(budget) <= MAX_PIMC_WORLDS:
            raise TarotInputError(
                f"bot {name!r}: pimc:N takes a number of worlds from 1 to {MAX_PIMC_WORLDS}"
            )
        return BOTS["pimc"] + (int(budget) << 8)
    try:
        return BOTS[name]
    except KeyError:
        raise TarotInputError(
            f"unknown bot {name!r}; known: {', '.join(BOTS)}, pimc:N (N worlds a card)"
        ) from None
