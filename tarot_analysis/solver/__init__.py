"""Double-dummy solving of card play: every hand visible, best play on both sides.

:func:`solve` gives the exact card points the attack takes in the remaining tricks when the
attack maximises them and the defence minimises them, under a French preset's rules of play
(the engine's own compiled :func:`~tarot_analysis.engine.core.legal_cards`).

Counting, in half points as the engine counts them: the winner of a trick takes its cards;
the Excuse played before the last trick stays with its owner's side (4.5 points), which gives
half a point to the trick's winner when the two sides differ; the Excuse played to the last
trick changes sides or goes to that trick's winner, as the rules say (the engine's own
:func:`~tarot_analysis.engine.core.excuse_last_trick_side`). The chelem's special cases are
left out.

The search is fail-soft alpha-beta over the cards, written with an explicit stack (no
recursion, so numba's cache keeps it), run with null windows from a first guess until the
value is exact (MTD(f)): the guess is the value of one play-out in which every seat plays the
first card of its move ordering. At each trick boundary:

- bounds: the attack keeps what it has taken and takes at most every card left; the side
  holding the highest trump is sure of its trumps above the other side's (all of them when
  the other side has none), and of at least half a point from each of the other side's cards
  in those tricks; the side of the Excuse keeps it, less half a point, with two tricks or
  more to play; the side on lead is sure of its leader's master suit cards as long as no
  other hand can trump them (quick tricks, as bridge solvers count them), and of a trick
  with each of the leader's trumps when its masters can draw every other trump first.
  Inside a trick, the side sure to win it (no seat of the other side still to play can beat
  its card) is sure of its cards so far, and the master trumps count the trumps played to it;
- a transposition table, shared by the searches of one solve, keeps bounds and the best card.
  Its key renumbers the cards by rank among those left, so positions that differ only by which
  cards are gone share an entry; and, as in partition search (Ginsberg's, as bridge solvers
  use it), an entry keeps only the ranks of each suit down to the lowest card that won a trick
  by its rank in the search below it (face cards always): the low cards under them may lie in
  any hand of the same lengths, and the entry still holds.

Moves are ordered: the table's card; cards the other side cannot beat after them, most points
first; to a trick the own side is sure to win, the cards of most points; the cheapest card
that wins for now; then the cards that cost least. Cards of one hand that no card in play
separates (same suit, next in rank, same points) are tried once. The best cards are the root
cards whose null-window search reaches the value; the Petit au bout is read from one principal
variation played out card by card.

The modules, one concern each: :mod:`.tricks` (one trick: who wins it, what it brings),
:mod:`.bounds` (the sure bounds and quick tricks), :mod:`.table` (the transposition table),
:mod:`.ordering` (move ordering), :mod:`.search` (the compiled alpha-beta search, and
:func:`best_card` for compiled callers), :mod:`.position` (the input checked),
:mod:`.solving` (:func:`solve`: MTD(f), the budget, the best cards) and :mod:`.results` (what
a solve gives).

>>> from tarot_analysis.game.rules import load_rules
>>> solution = solve(load_rules("fft-4"), ["21 KH", "1 QH", "2 1H", "3 2H"], leader=0, attack={0})
>>> solution.attack_points, solution.best_cards
(19.0, ('21', 'KH'))
"""

from __future__ import annotations

from tarot_analysis.solver.position import legal_plays, trick_winner
from tarot_analysis.solver.results import (
    SearchInterrupted,
    SearchStopped,
    Solution,
    SolveProgress,
)
from tarot_analysis.solver.search import DoubleDummy, best_card, double_dummy
from tarot_analysis.solver.solving import solve

__all__ = [
    "DoubleDummy",
    "SearchInterrupted",
    "SearchStopped",
    "Solution",
    "SolveProgress",
    "best_card",
    "double_dummy",
    "legal_plays",
    "solve",
    "trick_winner",
]
