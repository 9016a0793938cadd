"""The rules as the compiled engine reads them: one int64 array, named indices.

Rules are data: the engine reads ``params[CALL]``, never a preset's name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from tarot_analysis.engine.deal_score import N_SCORING, scoring_params
from tarot_analysis.game import cards
from tarot_analysis.game.rules import Rules

PLAYERS: Final = 0
HAND_SIZE: Final = 1
DOG_SIZE: Final = 2
CALL: Final = 3  # 0 none, 1 a king, 2 a king and a queen
FIRST_LEAD_CALLED_SUIT_FORBIDDEN: Final = 4
TRUMPS_MUST_BE_BROKEN: Final = 5
OVERTRUMP_WHEN_VOID: Final = 6
OVERTRUMP_ON_TRUMP_LEAD: Final = 7
PETIT_SEC_REDEAL: Final = 8
BIDDING: Final = 9
N_CONTRACTS: Final = 10
DEALER_LEADS: Final = 11
ECART_KINGS: Final = 12  # ALLOWED, IF_FORCED or FORBIDDEN
ECART_BOUTS: Final = 13
ECART_TRUMPS: Final = 14
POIGNEE_1: Final = 15  # thresholds: simple, double, triple
POIGNEE_2: Final = 16
POIGNEE_3: Final = 17
POIGNEE_TAKER_ONLY: Final = 18
POIGNEE_SCORED: Final = 19
CHELEM_SCORED: Final = 20
CHELEM_ANNOUNCER_LEADS: Final = 21
CHELEM_EXCUSE_WINS_LAST: Final = 22
CHELEM_PETIT_PENULTIMATE: Final = 23
PETIT_AU_BOUT_SCORED: Final = 24
CALL_ANY_HOLDING_ALL_KINGS: Final = 25  # 1: holding all four kings, any suit card
# Tarocco (``rules.tarocco``): 0 in the French presets.
TAROCCO: Final = 26  # 1: every player for himself, the dealer takes the extra cards
FOOL_EXCUSED: Final = 27
FOOL_LOWEST_LAST: Final = 28
MAGICIAN_WON: Final = 29
MAGICIAN_LOST: Final = 30
TAROCCHI_COUNT: Final = 31
TAROCCHI_PREMIUM: Final = 32
ALL_TRICKS_PREMIUM: Final = 33
#: DOG_* of each contract, lowest first, from here (at most eight contracts).
CONTRACT_DOG: Final = 34
ECART_TRUMPS_SHOWN: Final = CONTRACT_DOG + 8  # 1: trumps in the écart are shown to all
# 1: the Excuse played to the last trick (no chelem) goes to the opponents of its side; 0: to
# the side winning the trick (``rules.excuse_last_trick``).
EXCUSE_LAST_CHANGES_SIDES: Final = ECART_TRUMPS_SHOWN + 1
# 1: on a trump lead, a player unable to beat the trumps in the trick may play any card.
TRUMP_LEAD_ANY_CARD: Final = EXCUSE_LAST_CHANGES_SIDES + 1
# 1: a poignée shows only the count, the highest and the lowest trump (``poignee.shown``).
POIGNEE_SHOWS_ENDS: Final = TRUMP_LEAD_ANY_CARD + 1
N_PARAMS: Final = POIGNEE_SHOWS_ENDS + 1

ALLOWED: Final = 0
IF_FORCED: Final = 1
FORBIDDEN: Final = 2
_ALLOWANCE = {"allowed": ALLOWED, "if_forced": IF_FORCED, "forbidden": FORBIDDEN}

#: What becomes of the dog under a contract (``rules.contracts[i].dog``).
DOG_TAKEN: Final = 0
DOG_FOR_TAKER: Final = 1
DOG_FOR_DEFENCE: Final = 2
_DOG = {"taker": DOG_TAKEN, "taker_unseen": DOG_FOR_TAKER, "defence": DOG_FOR_DEFENCE}


@dataclass(frozen=True)
class EngineRules:
    """The arrays the engine kernel takes for one preset."""

    params: npt.NDArray[np.int64]
    contract_dog: npt.NDArray[np.int64]  # DOG_* per contract, lowest contract first
    half_points: npt.NDArray[np.int64]  # card points × 2 per card id
    scoring: npt.NDArray[np.float64]  # the scoring (engine.deal_score; zeros in Tarocco)


def engine_rules(rules: Rules) -> EngineRules:
    """Translate ``rules`` into the engine's arrays."""
    p = np.zeros(N_PARAMS, dtype=np.int64)
    p[PLAYERS] = rules.players
    p[HAND_SIZE] = rules.hand_size
    p[DOG_SIZE] = rules.dog_size
    p[CALL] = {"none": 0, "king": 1, "king_queen": 2}[rules.call]
    p[FIRST_LEAD_CALLED_SUIT_FORBIDDEN] = rules.first_lead_called_suit_forbidden
    p[TRUMPS_MUST_BE_BROKEN] = rules.trumps_must_be_broken
    p[OVERTRUMP_WHEN_VOID] = rules.must_overtrump_when_void
    p[OVERTRUMP_ON_TRUMP_LEAD] = rules.must_overtrump_on_trump_lead
    p[PETIT_SEC_REDEAL] = rules.petit_sec_redeal
    p[BIDDING] = rules.bidding
    p[N_CONTRACTS] = len(rules.contracts)
    p[DEALER_LEADS] = rules.first_leader == "dealer"
    p[ECART_KINGS] = _ALLOWANCE[rules.ecart.kings]
    p[ECART_BOUTS] = _ALLOWANCE[rules.ecart.bouts]
    p[ECART_TRUMPS] = _ALLOWANCE[rules.ecart.trumps]
    p[ECART_TRUMPS_SHOWN] = rules.ecart.trumps_shown
    p[POIGNEE_1 : POIGNEE_3 + 1] = rules.poignee.thresholds
    p[POIGNEE_TAKER_ONLY] = rules.poignee.who == "taker"
    p[POIGNEE_SCORED] = rules.has_poignee
    p[CHELEM_SCORED] = rules.has_chelem
    p[CHELEM_ANNOUNCER_LEADS] = rules.chelem.announcer_leads
    p[CHELEM_EXCUSE_WINS_LAST] = rules.chelem.excuse_wins_last_trick
    p[CHELEM_PETIT_PENULTIMATE] = rules.chelem.petit_au_bout_penultimate
    p[PETIT_AU_BOUT_SCORED] = rules.has_petit_au_bout
    p[CALL_ANY_HOLDING_ALL_KINGS] = rules.call_holding_all_kings == "any_suit_card"
    p[EXCUSE_LAST_CHANGES_SIDES] = rules.excuse_last_trick == "changes_sides"
    p[TRUMP_LEAD_ANY_CARD] = rules.trump_lead_unable_to_beat == "any_card"
    p[POIGNEE_SHOWS_ENDS] = rules.poignee.shown == "count_highest_lowest"
    tarocco = rules.tarocco
    if tarocco is not None:
        p[TAROCCO] = 1
        p[FOOL_EXCUSED] = tarocco.fool_excused
        p[FOOL_LOWEST_LAST] = tarocco.fool_lowest_at_last_trick
        p[MAGICIAN_WON] = tarocco.magician_last_trick
        p[MAGICIAN_LOST] = tarocco.magician_lost_last_trick
        p[TAROCCHI_COUNT] = tarocco.tarocchi_premium_count
        p[TAROCCHI_PREMIUM] = tarocco.tarocchi_premium
        p[ALL_TRICKS_PREMIUM] = tarocco.all_tricks_premium
    points = rules.card_points
    half = np.empty(cards.N_CARDS, dtype=np.int64)
    for card in range(cards.N_CARDS):
        if cards.IS_BOUT[card]:
            value = points.bout
        elif cards.IS_KING[card]:
            value = points.king
        elif cards.IS_QUEEN[card]:
            value = points.queen
        elif cards.IS_KNIGHT[card]:
            value = points.knight
        elif cards.IS_JACK[card]:
            value = points.jack
        else:
            value = points.other
        half[card] = round(2 * value)
    contract_dog = np.array([_DOG[c.dog] for c in rules.contracts], dtype=np.int64)
    p[CONTRACT_DOG : CONTRACT_DOG + len(contract_dog)] = contract_dog
    scoring = np.zeros(N_SCORING) if tarocco is not None else scoring_params(rules)
    return EngineRules(params=p, contract_dog=contract_dog, half_points=half, scoring=scoring)
