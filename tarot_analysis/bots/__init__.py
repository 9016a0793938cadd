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
#: The most tricks a ``pimc:N:E`` bot plays out double dummy at the end of a deal.
MAX_ENDGAME_TRICKS: Final = 8
#: Where a pimc bot's number carries its worlds, and its endgame tricks plus one (0: the
#: default), above the bot's own 8 low bits.
WORLDS_SHIFT: Final = 8
ENDGAME_SHIFT: Final = 24


def bot_id(name: str) -> int:
    """The engine's number for bot ``name``: a name of :data:`BOTS`; ``pimc:N`` for the pimc
    bot drawing ``N`` worlds a card; ``pimc:N:E`` for one that also plays the last ``E``
    tricks of its worlds double dummy (0: never; the default is ``pimc``'s)."""
    base, _, budget = name.partition(":")
    if base == "pimc" and budget:
        worlds, _, endgame = budget.partition(":")
        if not worlds.isdigit() or not 1 <= int(worlds) <= MAX_PIMC_WORLDS:
            raise TarotInputError(
                f"bot {name!r}: pimc:N takes a number of worlds from 1 to {MAX_PIMC_WORLDS}"
            )
        number = BOTS["pimc"] + (int(worlds) << WORLDS_SHIFT)
        if endgame:
            if not endgame.isdigit() or int(endgame) > MAX_ENDGAME_TRICKS:
                raise TarotInputError(
                    f"bot {name!r}: pimc:N:E takes a number of endgame tricks from 0 to "
                    f"{MAX_ENDGAME_TRICKS}"
                )
            number += (int(endgame) + 1) << ENDGAME_SHIFT
        return number
    try:
        return BOTS[name]
    except KeyError:
        raise TarotInputError(
            f"unknown bot {name!r}; known: {', '.join(BOTS)}, pimc:N (N worlds a card), "
            f"pimc:N:E (and the last E tricks double dummy)"
        ) from None
