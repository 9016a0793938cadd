"""Where a learned bot's network takes over from the heuristic: its margin, read from its row.

A learned bot (and the learned bot of a ``pimc:learned`` bot) asks the heuristic and its
network at each decision it learns, and takes the network's best action only where the network
predicts it to gain more than the bot's margin for that decision over the heuristic's
(:attr:`tarot_analysis.bots.learned.Model.margins`, in the ``B_MARGIN_0 + kind`` column of the
bot's row, hundredths of a point; a defender's cards have their own, ``B_DEFENCE_MARGIN``). The
door and the pimc bot's play-outs both ask here.
"""

from __future__ import annotations

from typing import Any, Final

from numba import njit

from tarot_analysis._jit import KERNEL
from tarot_analysis.bots import (
    B_DEFENCE_MARGIN,
    B_DEPTH,
    B_LEARNS,
    B_MARGIN_0,
    B_NET,
    B_TRUNK,
    B_WIDTH_0,
    learned,
)
from tarot_analysis.engine.state import CARD, DEFENCE, S_KIND, S_SIDE

#: A margin no prediction passes (hundredths of a point): the heuristic decides without the
#: network being asked.
NEVER: Final = round(100 * learned.MAX_MARGIN)

__all__ = ["NEVER", "first_width", "needed", "override", "table_scratch"]


@njit(cache=True)
def table_scratch(bots: Any) -> int:
    """The hidden values :func:`tarot_analysis.bots.learned.action_scores` needs for any
    network of the table ``bots`` (their rows, :func:`tarot_analysis.bots.seat_rows`): five
    times the widest layer between the inputs and the score (5 without a network)."""
    most = 5
    for seat in range(bots.shape[0]):
        widest = 1
        for k in range(1, bots[seat, B_DEPTH] - 1):
            widest = max(widest, bots[seat, B_WIDTH_0 + k])
        most = max(most, 5 * widest)
    return most


@njit(cache=True)
def first_width(bots: Any) -> int:
    """The widest first layer of the networks of the table ``bots`` (their rows), which each
    seat keeps between its decisions; 0 without one."""
    most = 0
    for seat in range(bots.shape[0]):
        if bots[seat, B_TRUNK] > 0:
            most = max(most, bots[seat, B_WIDTH_0 + 1])
    return most


@njit(**KERNEL)
def needed(s: Any, seat: int, bot: Any) -> int:
    """The margin, in hundredths of a point, of the learned bot of row ``bot`` at the decision
    ``seat`` takes in ``s``: its defence margin for the cards of a seat whose side did not
    take, the decision's own otherwise (:data:`NEVER` or more: the heuristic's action, the
    network not asked)."""
    kind = s[S_KIND]
    if kind == CARD and s[S_SIDE + seat] == DEFENCE:
        return bot[B_DEFENCE_MARGIN]
    return bot[B_MARGIN_0 + kind]


@njit(**KERNEL)
def override(
    m: Any, s: Any, seat: int, ruled: int, bot: Any, p: Any, half: Any, nets: Any, x: Any,
    out: Any, scratch: Any, mask: Any, features: Any, actions: Any, kept: Any, seen: Any,
    updates: Any,
) -> int:  # fmt: skip
    """The learned bot's action where the heuristic takes ``ruled``: its network's best
    (:func:`tarot_analysis.bots.learned.decide_action_in`, ``ruled`` as the features' hint)
    where the network predicts it to gain more than the bot's margin over ``ruled``, else
    ``ruled``. ``bot`` is the row of the bot whose network it is
    (:func:`tarot_analysis.bots.seat_rows`: its weights start at ``B_NET`` in ``nets``); a
    decision the bot does not learn, or whose margin is :data:`NEVER`, is ``ruled`` without
    asking. ``features`` and
    ``actions``: the network's rows of features and their actions; ``kept``,
    ``seen`` and ``updates``: each seat's first layer kept between its decisions, a row per
    seat (:func:`tarot_analysis.bots.learned.kept_first_layer`; rows shorter than the layer:
    not kept)."""
    kind = s[S_KIND]
    if bot[B_DEPTH] == 0 or not bot[B_LEARNS] >> kind & 1:
        return ruled
    least = needed(s, seat, bot)
    if least >= NEVER:
        return ruled
    widths = bot[B_WIDTH_0 : B_WIDTH_0 + bot[B_DEPTH]]
    best = learned.decide_action_in(
        m, s, seat, p, half, ruled, nets[bot[B_NET] :], widths, bot[B_TRUNK], x, out, scratch,
        mask, features, actions, kept[seat], seen[seat], updates[seat : seat + 1],
    )  # fmt: skip
    if 100.0 * (out[best] - out[ruled]) > least / 100.0:
        return best
    return ruled
