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
#: The most counts a ``heuristic:B`` bot may move a bidding threshold by, either way; the
#: shift of each contract is carried as a signed byte above the bot's own 8 bits, the prise's
#: first.
MAX_BID_SHIFT: Final = 40
BID_SHIFT_SHIFT: Final = 8
BID_SHIFT_CONTRACTS: Final = 4


def bot_id(name: str) -> int:
    """The engine's number for bot ``name``: a name of :data:`BOTS`; ``pimc:N`` for the pimc
    bot drawing ``N`` worlds a card; ``pimc:N:E`` for one that also plays the last ``E``
    tricks of its worlds double dummy (0: never; the default is ``pimc``'s); ``heuristic:B``
    for the heuristic with every bidding threshold moved by ``B`` counts (``-4``: bolder,
    ``+4``: more cautious), ``heuristic:P/G/S/C`` with one shift per contract (prise, garde,
    garde sans, garde contre)."""
    base, _, budget = name.partition(":")
    if base == "heuristic" and budget:
        return BOTS["heuristic"] + (_bid_shifts(name, budget) << BID_SHIFT_SHIFT)
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
            f"pimc:N:E (and the last E tricks double dummy), heuristic:B (its bidding "
            f"thresholds moved by B)"
        ) from None


def _bid_shifts(name: str, budget: str) -> int:
    """The shifts of ``heuristic:B`` or ``heuristic:P/G/S/C``, one signed byte per contract."""
    parts = budget.split("/")
    if len(parts) == 1:
        parts *= BID_SHIFT_CONTRACTS
    try:
        shifts = [int(part) for part in parts]
    except ValueError:
        shifts = []
    if len(shifts) != BID_SHIFT_CONTRACTS or any(abs(b) > MAX_BID_SHIFT for b in shifts):
        raise TarotInputError(
            f"bot {name!r}: heuristic:B (or heuristic:P/G/S/C, one per contract) takes shifts "
            f"of the bidding thresholds from -{MAX_BID_SHIFT} to {MAX_BID_SHIFT}"
        )
    packed = 0
    for k, shift in enumerate(shifts):
        packed |= (shift & 0xFF) << (8 * k)
    return packed
