"""What the compiled engine records about each deal it plays: the raw outcome.

One row of int32 per deal, the columns named below, plus the poignée each seat showed. Scoring
(:mod:`tarot_analysis.engine.scoring`) turns a raw outcome into the score in named parts; the
engine itself never needs to know how a preset scores.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "N_OUTCOME",
    "OUTCOME_COLUMNS",
    "O_ATTACK_BOUTS",
    "O_ATTACK_HALF",
    "O_ATTACK_TRICKS",
    "O_CALLED_1",
    "O_CALLED_2",
    "O_CHELEM_ANNOUNCED",
    "O_CONTRACT",
    "O_DEFENCE_TRICKS",
    "O_DOG_HALF",
    "O_ECART_HALF",
    "O_PARTNER_1",
    "O_PARTNER_2",
    "O_PETIT_AU_BOUT",
    "O_PETIT_AU_BOUT_SEAT",
    "O_PETIT_WINS_LAST",
    "O_REDEAL",
    "O_TAKER",
    "REDEAL_ALL_PASSED",
    "REDEAL_NONE",
    "REDEAL_PETIT_SEC",
]

#: Why a deal was not played.
REDEAL_NONE: Final = 0
REDEAL_PETIT_SEC: Final = 1  # a player held the Petit sec: the deal is void
REDEAL_ALL_PASSED: Final = 2  # nobody bid

#: Columns of the raw outcome, in order. Seats are numbered from the player after the dealer
#: (seat 0 bids and leads first) in the order of play; the dealer is the last seat.
OUTCOME_COLUMNS: Final = (
    "redeal",  # REDEAL_*
    "taker",  # seat, or −1 when redealt (and in Tarocco, where nobody takes)
    "contract",  # index into rules.contracts, or −1
    "called_1",  # card id of the first called card (the king), or −1
    "called_2",  # card id of the second called card (six players: the queen), or −1
    "partner_1",  # seat holding called_1 if it is another player's, else −1 (dog, taker)
    "partner_2",  # seat holding called_2 if it is another player's, else −1
    "attack_half_points",  # card points of the attack's pile × 2, dog and Excuse rules applied
    "attack_bouts",  # bouts in the attack's pile (the Excuse counts for the side that keeps it)
    "attack_tricks",  # tricks won by the attack
    "defence_tricks",
    "petit_au_bout",  # who took the Petit au bout: 1 attack, 0 defence, −1 nobody
    "petit_au_bout_seat",  # the seat that played the Petit when it was au bout, else −1
    # 1 when the Petit itself won the last trick, or under a chelem the trick before the
    # Excuse's last trick (the personal bonus of the older rules)
    "petit_wins_last_trick",
    "chelem_announced",  # 1 when the taker announced a chelem
    "dog_half_points",  # card points of the dog × 2
    "ecart_half_points",  # card points of the écart × 2 (0 when the dog was not taken)
)
N_OUTCOME: Final = len(OUTCOME_COLUMNS)

#: Where each column sits in a raw outcome row (in the engine's state: at ``s[S_OUT + O_*]``).
O_REDEAL: Final = 0
O_TAKER: Final = 1
O_CONTRACT: Final = 2
O_CALLED_1: Final = 3
O_CALLED_2: Final = 4
O_PARTNER_1: Final = 5
O_PARTNER_2: Final = 6
O_ATTACK_HALF: Final = 7
O_ATTACK_BOUTS: Final = 8
O_ATTACK_TRICKS: Final = 9
O_DEFENCE_TRICKS: Final = 10
O_PETIT_AU_BOUT: Final = 11
O_PETIT_AU_BOUT_SEAT: Final = 12
O_PETIT_WINS_LAST: Final = 13
O_CHELEM_ANNOUNCED: Final = 14
O_DOG_HALF: Final = 15
O_ECART_HALF: Final = 16
