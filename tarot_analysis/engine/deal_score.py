"""One deal's scores in compiled code, for a search that scores thousands of playouts a move.

:func:`scoring_params` turns a preset's scoring into one float array; :func:`seat_scores` scores
one raw outcome (:data:`~tarot_analysis.engine.outcome.OUTCOME_COLUMNS`) with it, every seat's
score exactly as :func:`~tarot_analysis.engine.scoring.score_outcomes` gives it (the suite
compares the two on every preset). The formula (docs/rules.md#the-score, #chelem, #legacy-4)::

    per defender = ((base_score + |points − required| ± petit au bout) × multiplier)
                   ± poignée ± chelem

each defender loses it, the attack's total is shared (the older rules' poignée the taker's
alone), and a personal Petit au bout is paid by every other player.

>>> from tarot_analysis.game.rules import load_rules
>>> sp = scoring_params(load_rules("fft-4"))
>>> len(sp) == N_SCORING
True
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import numpy.typing as npt
from numba import njit

from tarot_analysis._jit import KERNEL
from tarot_analysis.engine.outcome import (
    O_ATTACK_BOUTS,
    O_ATTACK_HALF,
    O_ATTACK_TRICKS,
    O_CHELEM_ANNOUNCED,
    O_CONTRACT,
    O_DEFENCE_TRICKS,
    O_PARTNER_1,
    O_PARTNER_2,
    O_PETIT_AU_BOUT,
    O_PETIT_AU_BOUT_SEAT,
    O_PETIT_WINS_LAST,
    O_REDEAL,
    O_TAKER,
    REDEAL_NONE,
)
from tarot_analysis.game.rules import Rules

__all__ = ["N_SCORING", "scoring_params", "seat_scores"]

# Where each rule sits in the scoring array.
SP_PLAYERS: Final = 0
SP_BASE: Final = 1
SP_ROUND_AWAY: Final = 2  # 1: a part point is rounded away from the requirement
SP_REQUIRED: Final = 3  # 4: points required with 0, 1, 2, 3 bouts
SP_MULTIPLIER: Final = 7  # 8: each contract's multiplier
SP_PETIT_VALUE: Final = 15
SP_PETIT_MULTIPLIED: Final = 16
SP_PETIT_PERSONAL: Final = 17
SP_POIGNEE: Final = 18  # 4: the bonus of levels 0 (none) to 3
SP_POIGNEE_TAKER: Final = 22  # 1: only the taker's poignée counts
SP_POIGNEE_TAKERS_ALONE: Final = 23  # 1: the taker alone wins or pays it
SP_ANNOUNCED_MADE: Final = 24
SP_ANNOUNCED_FAILED: Final = 25
SP_UNANNOUNCED_MADE: Final = 26
SP_DEFENCE_CHELEM: Final = 27
SP_FRACTIONS: Final = 28  # 2: the share of each called card's holder
# The share of a partner holding both called cards: 0 the first card's, 1 the second's, 2 both.
SP_BOTH_CALLS: Final = 30
N_SCORING: Final = 31
_BOTH_CALLS = {"first_share": 0, "second_share": 1, "both_shares": 2}

_PETIT_TO_ATTACK: Final = 1
_PETIT_TO_DEFENCE: Final = 0


def scoring_params(rules: Rules) -> npt.NDArray[np.float64]:
    """The scoring of ``rules`` as the array :func:`seat_scores` reads (French presets)."""
    sp = np.zeros(N_SCORING, dtype=np.float64)
    sp[SP_PLAYERS] = rules.players
    sp[SP_BASE] = rules.base_score
    sp[SP_ROUND_AWAY] = rules.half_point_rounding == "away_from_requirement"
    sp[SP_REQUIRED : SP_REQUIRED + 4] = rules.bouts_required
    for index, contract in enumerate(rules.contracts):
        sp[SP_MULTIPLIER + index] = contract.multiplier
    petit = rules.petit_au_bout
    sp[SP_PETIT_VALUE] = petit.value
    sp[SP_PETIT_MULTIPLIED] = petit.multiplied
    sp[SP_PETIT_PERSONAL] = petit.personal
    sp[SP_POIGNEE + 1 : SP_POIGNEE + 4] = rules.poignee.bonuses
    sp[SP_POIGNEE_TAKER] = rules.poignee.who == "taker"
    sp[SP_POIGNEE_TAKERS_ALONE] = rules.poignee.scoring == "with_contract"
    chelem = rules.chelem
    sp[SP_ANNOUNCED_MADE] = chelem.announced_made
    sp[SP_ANNOUNCED_FAILED] = chelem.announced_failed
    sp[SP_UNANNOUNCED_MADE] = chelem.unannounced_made
    sp[SP_DEFENCE_CHELEM] = chelem.defence
    for index, fraction in enumerate(rules.shares.partner_fractions):
        sp[SP_FRACTIONS + index] = float(fraction)
    sp[SP_BOTH_CALLS] = _BOTH_CALLS[rules.shares.both_calls_one_partner]
    return sp


@njit(**KERNEL)
def seat_scores(out: Any, poignees: Any, sp: Any, scores: Any) -> None:
    """Every seat's score for the raw outcome ``out``, into ``scores`` (0 for a redeal)."""
    players = int(sp[SP_PLAYERS])
    for seat in range(players):
        scores[seat] = 0.0
    if out[O_REDEAL] != REDEAL_NONE:
        return
    taker = out[O_TAKER]
    multiplier = sp[SP_MULTIPLIER + out[O_CONTRACT]]
    margin = out[O_ATTACK_HALF] / 2.0 - sp[SP_REQUIRED + out[O_ATTACK_BOUTS]]
    if sp[SP_ROUND_AWAY] and margin != np.floor(margin):
        margin = np.ceil(margin) if margin > 0 else np.floor(margin)
    sign = 1.0 if margin >= 0 else -1.0
    per_defender = sign * (sp[SP_BASE] + abs(margin)) * multiplier
    if not sp[SP_PETIT_PERSONAL] and out[O_PETIT_AU_BOUT] >= 0:
        petit = sp[SP_PETIT_VALUE] * (multiplier if sp[SP_PETIT_MULTIPLIED] else 1.0)
        per_defender += petit if out[O_PETIT_AU_BOUT] == _PETIT_TO_ATTACK else -petit
    shown = 0.0
    for seat in range(players):
        if not sp[SP_POIGNEE_TAKER] or seat == taker:
            shown += sp[SP_POIGNEE + poignees[seat]]
    poignee = sign * shown
    per_defender += poignee
    attack_all = out[O_DEFENCE_TRICKS] == 0
    if out[O_CHELEM_ANNOUNCED] == 1:
        per_defender += sp[SP_ANNOUNCED_MADE] if attack_all else sp[SP_ANNOUNCED_FAILED]
    elif attack_all:
        per_defender += sp[SP_UNANNOUNCED_MADE]
    if out[O_ATTACK_TRICKS] == 0:
        per_defender -= sp[SP_DEFENCE_CHELEM]
    takers_own = poignee if sp[SP_POIGNEE_TAKERS_ALONE] else 0.0
    partner_1 = out[O_PARTNER_1]
    partner_2 = out[O_PARTNER_2]
    defenders = 0
    for seat in range(players):
        if seat != taker and seat != partner_1 and seat != partner_2:
            scores[seat] = -per_defender
            defenders += 1
    total = (per_defender - takers_own) * defenders
    rest = total
    one_partner = partner_1 >= 0 and partner_1 == partner_2
    if partner_1 >= 0 and not (one_partner and sp[SP_BOTH_CALLS] == 1):
        scores[partner_1] += total * sp[SP_FRACTIONS]
        rest -= total * sp[SP_FRACTIONS]
    if partner_2 >= 0 and not (one_partner and sp[SP_BOTH_CALLS] == 0):
        scores[partner_2] += total * sp[SP_FRACTIONS + 1]
        rest -= total * sp[SP_FRACTIONS + 1]
    scores[taker] += rest + takers_own * defenders
    if sp[SP_PETIT_PERSONAL] and sp[SP_PETIT_VALUE] and out[O_PETIT_WINS_LAST] == 1:
        winner = out[O_PETIT_AU_BOUT_SEAT]
        for seat in range(players):
            if seat != winner:
                scores[seat] -= sp[SP_PETIT_VALUE]
                scores[winner] += sp[SP_PETIT_VALUE]
