"""Scoring: the raw outcome of each deal turned into every seat's score, in named parts.

The engine records what happened (:mod:`tarot_analysis.engine.outcome`); this module applies
the preset's scoring to whole arrays of deals at once. The score for each defender, signed
from the attack's point of view, is (docs/rules.md#the-score)::

    ((base_score + |points − required| ± petit au bout) × multiplier) ± poignée ± chelem

and every part is a column of the result (:data:`SCORE_PARTS`), so that statistics can be
grouped by it. Each defender loses that score; the attack's total (the score times the number
of defenders) is shared by ``rules.shares``. Under older rules the taker alone wins or pays the
poignée (a called partner neither pays nor receives it), and a personal Petit au bout is paid
by every other player to the Petit's player (docs/rules.md#legacy-4).

Tarocco (docs/rules.md#tarocco) has no taker and no contract: it is not scored here.
"""

from __future__ import annotations

from typing import Final, NamedTuple

import numpy as np
import numpy.typing as npt
import pandas as pd

from tarot_analysis.engine.outcome import (
    N_OUTCOME,
    OUTCOME_COLUMNS,
    REDEAL_ALL_PASSED,
    REDEAL_NONE,
)
from tarot_analysis.errors import TarotInputError
from tarot_analysis.game.rules import BOUT_COUNT, Rules

__all__ = ["POINT_UNIT", "SCORE_PARTS", "SCORE_UNIT", "score_outcomes", "whole_units"]

#: The parts of the score for each defender, each a column of :func:`score_outcomes`.
SCORE_PARTS: Final = ("base", "petit_au_bout", "poignee", "chelem")

#: Scores are whole numbers of twelfths of a point (six-player shares leave halves, thirds and
#: quarters), and card points of halves: counted in these units, sums of scores and points are
#: whole numbers, which add up exactly in any order (per-chunk counts merge without rounding).
SCORE_UNIT: Final = 12
POINT_UNIT: Final = 2

#: Poignée levels a seat can show: 0 none, 1 simple, 2 double, 3 triple.
POIGNEE_LEVELS: Final = 3

#: Where each raw outcome column sits in a row.
_AT: Final = {name: index for index, name in enumerate(OUTCOME_COLUMNS)}

#: Who took the Petit au bout, as the engine records it.
_PETIT_TO_ATTACK: Final = 1
_PETIT_TO_DEFENCE: Final = 0
_PETIT_NOWHERE: Final = -1

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]


def score_outcomes(
    outcomes: npt.NDArray[np.integer],
    poignees: npt.NDArray[np.integer],
    rules: Rules,
) -> pd.DataFrame:
    """Score raw deal outcomes under ``rules``: one row per deal, the score in named parts.

    ``outcomes`` is ``(n, N_OUTCOME)`` with the columns of
    :data:`~tarot_analysis.engine.outcome.OUTCOME_COLUMNS`; ``poignees`` is ``(n, players)``,
    the poignée level each seat showed (0 none, 1 simple, 2 double, 3 triple).

    Columns of the result:

    - ``redeal`` (bool), ``taker``, ``contract`` (its name; ``<NA>`` when redealt),
      ``multiplier``, ``partner_1``, ``partner_2`` (the seats holding the called cards, −1
      when a called card is in the dog or the taker's hand), ``alone`` (no partner at the
      table), ``attack_points``, ``attack_bouts``, ``required`` (the points those bouts
      require), ``margin`` (points − required, a half point rounded away from the
      requirement when the rules say so) and ``made`` (``margin ≥ 0``).
    - The score for each defender, signed for the attack (positive: the attack wins it), in
      parts: ``base`` ±(base_score + |margin|) × multiplier; ``petit_au_bout`` ±value (× the
      multiplier if the rules multiply it; 0 when it is personal); ``poignee``, every poignée
      shown, never multiplied, to the side that wins the deal; ``chelem``; and their sum
      ``per_defender``.
    - ``petit_personal_seat`` and ``petit_personal``: under a personal Petit au bout, the seat
      whose Petit won the last trick (else −1) and what each other player pays it (else 0).
    - ``score_0`` … ``score_{players-1}``: every seat's final score (floats: six-player shares
      are not whole). They sum to zero.

    A redealt deal scores 0 everywhere; its ``contract``, ``made`` and ``alone`` are missing
    (``<NA>``), its seats and bouts −1, its multiplier 0, its points, requirement and margin NaN.

    A poignée is counted only from a seat allowed to show one (``rules.poignee.who``): under
    the older rules the taker's alone. Under both ``"winner"`` and ``"with_contract"`` scoring
    it is won by the attack when the contract is made and lost when it is not; under
    ``"with_contract"`` the taker alone wins or pays it, a called partner's score leaves it
    out. A chelem is made when the defence takes no trick; if the attack takes none, the
    defence's chelem is scored as well, on top of a failed announcement.

    >>> from tarot_analysis.game.rules import load_rules
    >>> rules = load_rules("fft-4")
    >>> garde = dict(taker=0, contract=1, attack_half_points=98, attack_bouts=3)  # 49 points
    >>> played = dict(redeal=0, attack_tricks=10, defence_tricks=8, chelem_announced=0)
    >>> row = np.full(N_OUTCOME, -1, dtype=np.int32)
    >>> for name, value in {**garde, **played, "petit_wins_last_trick": 0}.items():
    ...     row[OUTCOME_COLUMNS.index(name)] = value
    >>> table = score_outcomes(row[None, :], np.zeros((1, 4), dtype=np.int8), rules)
    >>> table.loc[0, ["margin", "base", "per_defender", "score_0", "score_1"]].tolist()
    [13.0, 76.0, 76.0, 228.0, -76.0]
    """
    if rules.tarocco is not None:
        raise TarotInputError(
            f"Tarocco deals are scored by the Tarocco count (docs/rules.md#tarocco), each player "
            f"for themselves; score_outcomes scores deals with a taker and a contract, not rules "
            f"{rules.name}"
        )
    rows, levels = _checked(outcomes, poignees, rules)
    results = _results(rows, rules)
    parts = _score_parts(rows, levels, results, rules)
    table = {
        **_result_columns(results, rules),
        **parts,
        **_seat_scores(rows, results, parts["poignee"], parts["per_defender"], rules),
    }
    return pd.DataFrame(table, index=pd.RangeIndex(len(rows)))


# --------------------------------------------------------------------------------------------
# The contract and its result
# --------------------------------------------------------------------------------------------


class _Results(NamedTuple):
    """What the auction and the play of each deal decided, one array per deal; a redealt deal
    has −1 for its seats, contract and bouts, a multiplier 0 and NaN points."""

    played: BoolArray
    taker: IntArray
    contract: IntArray
    multiplier: IntArray
    partners: list[IntArray]
    attack_points: FloatArray
    attack_bouts: IntArray
    required: FloatArray
    margin: FloatArray
    made: BoolArray


def _column(rows: IntArray, name: str) -> IntArray:
    """The raw outcome column ``name`` of every deal."""
    return rows[:, _AT[name]]


def _results(rows: IntArray, rules: Rules) -> _Results:
    """The taker, contract, partners and points of each deal, and whether the contract was
    made."""
    played = _column(rows, "redeal") == REDEAL_NONE
    contract = np.where(played, _column(rows, "contract"), -1)
    # A trailing entry answers for index −1, the redealt deals.
    multipliers = np.array([c.multiplier for c in rules.contracts] + [0], dtype=np.int64)
    attack_points = np.where(played, _column(rows, "attack_half_points") / 2, np.nan)
    attack_bouts = np.where(played, _column(rows, "attack_bouts"), -1)
    required_by_bouts = np.array(rules.bouts_required, dtype=np.float64)
    required = np.where(played, required_by_bouts[np.where(played, attack_bouts, 0)], np.nan)
    margin = _rounded_margin(attack_points - required, rules)
    return _Results(
        played=played,
        taker=np.where(played, _column(rows, "taker"), -1),
        contract=contract,
        multiplier=multipliers[contract],
        partners=[np.where(played, _column(rows, name), -1) for name in ("partner_1", "partner_2")],
        attack_points=attack_points,
        attack_bouts=attack_bouts,
        required=required,
        margin=margin,
        made=played & (margin >= 0),
    )


def _result_columns(results: _Results, rules: Rules) -> dict[str, object]:
    """The columns ``redeal`` to ``made`` of the table; unknown for a redealt deal."""
    # A trailing entry answers for index −1, the redealt deals.
    contract_names = np.array([c.name for c in rules.contracts] + [None], dtype=object)
    partners = results.partners
    alone = (partners[0] < 0) & (partners[1] < 0)
    return {
        "redeal": ~results.played,
        "taker": results.taker,
        "contract": pd.array(contract_names[results.contract], dtype="string"),
        "multiplier": results.multiplier,
        "partner_1": partners[0],
        "partner_2": partners[1],
        "alone": pd.arrays.BooleanArray(alone, ~results.played),
        "attack_points": results.attack_points,
        "attack_bouts": results.attack_bouts,
        "required": results.required,
        "margin": results.margin,
        "made": pd.arrays.BooleanArray(results.made, ~results.played),
    }


# --------------------------------------------------------------------------------------------
# The score
# --------------------------------------------------------------------------------------------


def _score_parts(
    rows: IntArray, levels: IntArray, results: _Results, rules: Rules
) -> dict[str, FloatArray]:
    """The score for each defender, signed for the attack, in its parts (:data:`SCORE_PARTS`)
    and their sum ``per_defender``."""
    played = results.played
    # +1 when the attack made its contract, −1 when it failed, 0 when redealt.
    result_sign = np.where(results.made, 1.0, np.where(played, -1.0, 0.0))
    margin_score = rules.base_score + np.abs(results.margin)
    base = np.where(played, result_sign * margin_score * results.multiplier, 0.0)
    petit_au_bout = _petit_au_bout_part(
        _column(rows, "petit_au_bout"), played, results.multiplier, rules
    )
    poignee = result_sign * _poignee_shown(levels, results.taker, played, rules)
    chelem = _chelem_part(
        _column(rows, "attack_tricks"),
        _column(rows, "defence_tricks"),
        _column(rows, "chelem_announced"),
        played,
        rules,
    )
    return {
        "base": base,
        "petit_au_bout": petit_au_bout,
        "poignee": poignee,
        "chelem": chelem,
        "per_defender": base + petit_au_bout + poignee + chelem,
    }


def _seat_scores(
    rows: IntArray,
    results: _Results,
    poignee: FloatArray,
    per_defender: FloatArray,
    rules: Rules,
) -> dict[str, IntArray | FloatArray]:
    """The columns ``petit_personal_seat``, ``petit_personal`` and every seat's final score."""
    # Under older rules the taker alone wins or pays the poignée of each defender: the
    # partner's share is taken from the rest of the score (docs/rules.md#legacy-4).
    taker_alone = poignee if rules.poignee.scoring == "with_contract" else np.zeros(len(rows))
    played = results.played
    scores = _shared_scores(
        per_defender, taker_alone, results.taker, results.partners, played, rules
    )
    petit_seat, petit_paid = _petit_personal(
        _column(rows, "petit_wins_last_trick"), _column(rows, "petit_au_bout_seat"), played, rules
    )
    paying = np.flatnonzero(petit_seat >= 0)
    scores[paying] -= petit_paid[paying, None]
    scores[paying, petit_seat[paying]] += petit_paid[paying] * rules.players
    columns: dict[str, IntArray | FloatArray] = {
        "petit_personal_seat": petit_seat,
        "petit_personal": petit_paid,
    }
    columns.update({f"score_{seat}": scores[:, seat] for seat in range(rules.players)})
    return columns


# --------------------------------------------------------------------------------------------
# The parts
# --------------------------------------------------------------------------------------------


def _rounded_margin(margin: FloatArray, rules: Rules) -> FloatArray:
    """Points over the requirement; a part point rounded away from the requirement if asked.

    In 3 and 5 players the attack can count a half point: 40.5 with 2 bouts (41 required)
    fails by 1 and 41.5 makes by 1 (docs/rules.md#points-and-the-contract).
    """
    if rules.half_point_rounding == "away_from_requirement":
        return np.sign(margin) * np.ceil(np.abs(margin))
    return margin


def _petit_au_bout_part(
    taken_by: IntArray, played: BoolArray, multiplier: IntArray, rules: Rules
) -> FloatArray:
    """The side's Petit au bout for each defender: + to the attack, − to the defence."""
    petit = rules.petit_au_bout
    if petit.personal or not petit.is_scored:
        return np.zeros(len(played))
    side = np.where(
        played & (taken_by == _PETIT_TO_ATTACK),
        1.0,
        np.where(played & (taken_by == _PETIT_TO_DEFENCE), -1.0, 0.0),
    )
    return side * petit.value * (multiplier if petit.multiplied else 1)


def _poignee_shown(
    levels: IntArray, taker: IntArray, played: BoolArray, rules: Rules
) -> FloatArray:
    """What the poignées shown are worth together, before the side that wins them is known."""
    bonus_by_level = np.array([0, *rules.poignee.bonuses], dtype=np.float64)
    bonuses = bonus_by_level[levels]
    if rules.poignee.who == "taker":
        shown = bonuses[np.arange(len(taker)), np.maximum(taker, 0)]
    else:
        shown = bonuses.sum(axis=1)
    return np.where(played, shown, 0.0)


def _chelem_part(
    attack_tricks: IntArray,
    defence_tricks: IntArray,
    announced: IntArray,
    played: BoolArray,
    rules: Rules,
) -> FloatArray:
    """The chelem for each defender, signed for the attack (docs/rules.md#chelem)."""
    chelem = rules.chelem
    attack_slam = played & (defence_tricks == 0)
    defence_slam = played & (attack_tricks == 0)
    announced_slam = played & (announced == 1)
    attack_part = np.where(
        announced_slam,
        np.where(attack_slam, chelem.announced_made, chelem.announced_failed),
        np.where(attack_slam, chelem.unannounced_made, 0),
    )
    return (attack_part - np.where(defence_slam, chelem.defence, 0)).astype(np.float64)


def _shared_scores(
    per_defender: FloatArray,
    taker_alone: FloatArray,
    taker: IntArray,
    partners: list[IntArray],
    played: BoolArray,
    rules: Rules,
) -> FloatArray:
    """Every seat's score: each defender −per_defender, the attack's total shared.

    The attack's total is per_defender times the number of defenders. The holder of called
    card i gets ``partner_fractions[i]`` of it (a partner holding both cards the share
    ``shares.both_calls_one_partner`` says) and the taker the rest; a taker alone faces
    ``players − 1`` defenders and so gets ``shares.alone`` times per_defender. The part
    ``taker_alone`` of per_defender is not shared: the taker alone wins it from each defender.
    """
    players = rules.players
    seats = np.arange(players)
    attacking = (seats == taker[:, None]) | (seats == partners[0][:, None])
    attacking |= seats == partners[1][:, None]
    defenders = players - attacking.sum(axis=1)
    attack_total = np.where(played, (per_defender - taker_alone) * defenders, 0.0)

    scores = np.where(attacking, 0.0, -per_defender[:, None])
    taker_share = attack_total + np.where(played, taker_alone * defenders, 0.0)
    one_partner = (partners[0] >= 0) & (partners[0] == partners[1])
    dropped = {"first_share": 1, "second_share": 0}.get(rules.shares.both_calls_one_partner, -1)
    for index, (fraction, holder) in enumerate(
        zip(rules.shares.partner_fractions, partners, strict=False)
    ):
        # Numerator first, then one division: 1/3 of 81 is exactly 27.
        takes = (holder >= 0) & ~(one_partner & (index == dropped))
        share = np.where(takes, attack_total * fraction.numerator / fraction.denominator, 0)
        held = np.flatnonzero(holder >= 0)
        scores[held, holder[held]] += share[held]
        taker_share -= share
    with_taker = np.flatnonzero(played)
    scores[with_taker, taker[with_taker]] += taker_share[with_taker]
    scores[~played] = 0.0
    return scores


def _petit_personal(
    petit_won: IntArray, petit_seat: IntArray, played: BoolArray, rules: Rules
) -> tuple[IntArray, FloatArray]:
    """The personal Petit au bout (older rules): the seat paid, and what each other pays it."""
    petit = rules.petit_au_bout
    if not (petit.personal and petit.is_scored):
        return np.full(len(played), -1, dtype=np.int64), np.zeros(len(played))
    paid = played & (petit_won == 1)
    return np.where(paid, petit_seat, -1), np.where(paid, float(petit.value), 0.0)


# --------------------------------------------------------------------------------------------
# Checking the input
# --------------------------------------------------------------------------------------------


def _checked(
    outcomes: npt.NDArray[np.integer], poignees: npt.NDArray[np.integer], rules: Rules
) -> tuple[IntArray, IntArray]:
    """The two arrays as int64, after checking they describe deals these rules can produce."""
    raw_outcomes = np.asarray(outcomes)
    raw_poignees = np.asarray(poignees)
    if raw_outcomes.ndim != 2 or raw_outcomes.shape[1] != N_OUTCOME:
        raise TarotInputError(
            f"outcomes must have shape (deals, {N_OUTCOME}), got {raw_outcomes.shape}"
        )
    deals = raw_outcomes.shape[0]
    if raw_poignees.shape != (deals, rules.players):
        raise TarotInputError(
            f"poignees must have shape ({deals}, {rules.players}) for {deals} deals of "
            f"{rules.players} players, got {raw_poignees.shape}"
        )
    for name, array in (("outcomes", raw_outcomes), ("poignees", raw_poignees)):
        if not np.issubdtype(array.dtype, np.integer):
            raise TarotInputError(f"{name} must hold integers, got {array.dtype}")
    rows: IntArray = raw_outcomes.astype(np.int64)
    levels: IntArray = raw_poignees.astype(np.int64)

    def column(name: str) -> IntArray:
        return rows[:, _AT[name]]

    _require(column("redeal"), "redeal", 0, REDEAL_ALL_PASSED, np.ones(deals, dtype=bool))
    played = column("redeal") == REDEAL_NONE
    players = rules.players
    taker = column("taker")
    _require(taker, "taker", 0, players - 1, played)
    _require(column("contract"), "contract", 0, len(rules.contracts) - 1, played)
    for index, name in enumerate(("partner_1", "partner_2")):
        partner = column(name)
        can_exist = index < rules.called_cards
        _require(partner, name, -1, players - 1 if can_exist else -1, played)
        _refuse(played & (partner == taker), f"{name} is the taker (a taker alone has −1)")
    most_half_points = round(2 * rules.card_points.total)
    _require(column("attack_half_points"), "attack_half_points", 0, most_half_points, played)
    _require(column("attack_bouts"), "attack_bouts", 0, BOUT_COUNT, played)
    for name in ("attack_tricks", "defence_tricks"):
        _require(column(name), name, 0, rules.hand_size, played)
    tricks = column("attack_tricks") + column("defence_tricks")
    _refuse(
        played & (tricks != rules.hand_size),
        f"attack_tricks + defence_tricks must be the {rules.hand_size} tricks of a deal",
    )
    _require(column("petit_au_bout"), "petit_au_bout", _PETIT_NOWHERE, _PETIT_TO_ATTACK, played)
    _require(column("petit_wins_last_trick"), "petit_wins_last_trick", 0, 1, played)
    _require(column("chelem_announced"), "chelem_announced", 0, 1, played)
    petit_won = played & (column("petit_wins_last_trick") == 1)
    _require(column("petit_au_bout_seat"), "petit_au_bout_seat", 0, players - 1, petit_won)
    bad_levels = np.any((levels < 0) | (levels > POIGNEE_LEVELS), axis=1)
    _refuse(bad_levels, f"poignees must be levels 0 to {POIGNEE_LEVELS}")
    return rows, levels


def _require(values: IntArray, name: str, low: int, high: int, where: BoolArray) -> None:
    """Refuse a value of outcome column ``name`` outside ``low..high`` in a deal of ``where``."""
    bad = where & ((values < low) | (values > high))
    if bad.any():
        deal = int(np.flatnonzero(bad)[0])
        raise TarotInputError(
            f"outcome column {name!r} must be between {low} and {high}, "
            f"got {int(values[deal])} in deal {deal}"
        )


def _refuse(bad: BoolArray, problem: str) -> None:
    """Refuse the deals marked ``bad``, naming the first."""
    if bad.any():
        raise TarotInputError(f"{problem}: deal {int(np.flatnonzero(bad)[0])}")


def whole_units(values: npt.ArrayLike, unit: int, what: str) -> npt.NDArray[np.int64]:
    """``values`` counted in ``1/unit`` points, as whole numbers; an error if one is not.

    >>> whole_units([1.5, -2.25, 1 / 3], SCORE_UNIT, "score").tolist()
    [18, -27, 4]
    """
    scaled = np.asarray(values, dtype=np.float64) * unit
    whole = np.round(scaled)
    if not np.allclose(scaled, whole, rtol=0, atol=1e-6):
        raise ValueError(f"a {what} is not a whole number of 1/{unit} points")
    return whole.astype(np.int64)
