"""The review of a played deal: what every bid and card was worth over the deals the seat
could not tell apart, where the points were lost, and what would have happened otherwise.

- :mod:`.record`: the game record (TOML a person writes, or ``replay --json``), every action
  checked against the engine as it is read;
- :mod:`.values`: one decision's actions valued by the search and, at a card, the solver;
- :mod:`.deal`: :func:`review`, every decision of a deal, and the losses summed;
- :mod:`.text`: the review told as text;
- :mod:`.what_if`: one action replaced, the rest of the deal played by bots;
- :mod:`.many`: the deals of a ``play`` run reviewed into a run folder, and where the bots
  lose most (the compiled loop is :mod:`tarot_analysis.table.valued`).
"""

from __future__ import annotations

from tarot_analysis.analyses.review.deal import REVIEW_WORLDS, Decision, Review, review
from tarot_analysis.analyses.review.record import GameRecord, Step, parse_record, read_record

__all__ = [
    "REVIEW_WORLDS",
    "Decision",
    "GameRecord",
    "Review",
    "Step",
    "parse_record",
    "read_record",
    "review",
]
