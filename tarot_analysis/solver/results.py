"""What a double-dummy solve gives: its :class:`Solution`, its progress, and the errors of a
stopped solve with the interval of the value it had proved."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, NamedTuple

#: ``Solution.petit_au_bout``: the side that took the Petit at the last trick.
PETIT_AU_BOUT_ATTACK: Final = 1
PETIT_AU_BOUT_DEFENCE: Final = 0
PETIT_AU_BOUT_NONE: Final = -1


class _Proved:
    """What a stopped solve had proved: the attack takes between ``low`` and ``high`` card
    points in the remaining tricks (equal once the value is exact, when only the best cards
    were unfinished), after searching ``nodes`` positions."""

    low: float
    high: float
    nodes: int

    def _keep(self, low: float, high: float, nodes: int) -> None:
        self.low, self.high, self.nodes = low, high, nodes

    @property
    def proved(self) -> str:
        """The value as far as it was proved, in words."""
        if self.low == self.high:
            return f"the attack takes {self.low:g} card points (the best cards unfinished)"
        return f"the attack takes between {self.low:g} and {self.high:g} card points"


class SearchStopped(_Proved, RuntimeError):
    """A solve reached its ``max_nodes`` or its ``time_limit`` before it knew all it was
    asked; ``low``, ``high`` and ``nodes`` say what it had proved."""

    def __init__(self, reason: str, low: float, high: float, nodes: int) -> None:
        self._keep(low, high, nodes)
        super().__init__(f"{reason}: {self.proved}")


class SearchInterrupted(_Proved, KeyboardInterrupt):
    """A solve stopped by Ctrl-C (SIGINT); ``low``, ``high`` and ``nodes`` say what it had
    proved."""

    def __init__(self, low: float, high: float, nodes: int) -> None:
        self._keep(low, high, nodes)
        super().__init__(f"interrupted after {nodes:,} positions: {self.proved}")


class SolveProgress(NamedTuple):
    """Where a solve stands, given to its ``progress`` callback between two slices of the
    search: the value proved to lie in ``[low, high]`` card points, ``nodes`` searched."""

    low: float
    high: float
    nodes: int


@dataclass(frozen=True)
class Solution:
    """The value of a position and the cards that keep it.

    ``attack_points``: card points the attack takes in the remaining tricks with best play;
    ``best_cards``: every card of the seat to play that keeps that value, in the notation;
    ``nodes``: positions searched; ``petit_au_bout``: in one principal variation, the side
    that wins the last trick when it holds the Petit (1 attack, 0 defence, −1 none).
    """

    attack_points: float
    best_cards: tuple[str, ...]
    nodes: int
    petit_au_bout: int = PETIT_AU_BOUT_NONE
