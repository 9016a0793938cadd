"""Tarocco's own part of the one pipeline: every player for himself, the dealer's discard, the
count and matches of three (docs/rules.md#tarocco).

Phases of a deal, in order: the dealer takes the cards left after the deal and discards as many
(:func:`~tarot_analysis.engine.core.ecart_sets` says which may go), every player holding enough
tarocchi declares them, the tricks are played, and each player's pile is counted. The deal is the
French game state (:mod:`tarot_analysis.engine.state`) in its Tarocco mode:
:func:`~tarot_analysis.engine.core.legal_cards` says what may be played, the bots choose among it at
the table (:func:`tarot_analysis.table.compiled.play_deals`). Tarocco deals are played, replayed and
given by :func:`tarot_analysis.table.play.play`, :func:`~tarot_analysis.table.play.replay` and
:func:`~tarot_analysis.table.play.play_given` as every preset's are; this module holds what the run
of a Tarocco preset adds: who deals (:func:`dealer_of`), chunks of whole matches, and the count of a
:class:`~tarot_analysis.table.play.PlayResult` (:func:`deal_scores`, :func:`matches`,
:func:`summary`, read through its methods ``scores``, ``matches`` and ``summary``).

>>> from tarot_analysis.table.play import play
>>> from tarot_analysis.game.rules import load_rules
>>> result = play(load_rules("tarocco"), 30, seed=1, chunk_size=15)
>>> float(result.scores()[["points_0", "points_1", "points_2"]].sum(axis=1).iloc[0])
83.0
>>> float(result.matches()[["score_0", "score_1", "score_2"]].sum(axis=1).abs().max())
0.0

Conventions, and how the rules were read where the Tarocco dictionary entry leaves
room (docs/rules.md#tarocco):

- **Seats and dealers.** Seats are numbered in the order of play (counter-clockwise), and a
  seat is one player for a whole run: his hand is the deal's row of that seat and his bot is
  ``bots[seat]``. The deal moves to the dealer's right, the next seat in the order of play:
  deal *j* of a match (deal ``d`` of the run has ``j = d % match_deals``) is dealt by seat
  ``(players − 1 + j) % players``, so the first deal of every match is dealt by the last seat,
  as in the French engine, and with three players each deals once per match. The dealer takes
  the deal's extra cards (the dealer's "dog" row of :mod:`tarot_analysis.deals.deal`).
- **The discard.** The dealer discards ``dog_size`` cards under ``rules.ecart`` (never a king
  or an honour: XXI, I, the Fool); they count for him.
- **Tarocchi declared.** A player holding at least ``tarocchi_premium_count`` tarocchi, the
  Fool included, in the hand he starts play with (the dealer's after his discard) always
  declares them and scores ``tarocchi_premium``.
- **The Fool.** Before the last trick, playing the Fool (always legal, as the Excuse is in the
  French engine) shows it: it is set aside with its holder's cards, is no card of the trick,
  sets no suit, and the others contest the trick (led by the next player when the Fool was
  shown on the lead). At the last trick it is played normally: the lowest tarocco (below the
  Magician) when ``fool_lowest_at_last_trick``, so that led it makes a tarocco lead and on a
  suit lead it beats every suit card; its points go to the winner of the trick. With
  ``fool_excused`` off it is a card of every trick it is played to and never wins one (then,
  as the French Excuse, a led Fool lets the next card set the suit).
- **The Magician.** The player who plays the Magician (trump I) to the last trick scores
  ``magician_last_trick`` if it wins the trick, ``magician_lost_last_trick`` if it does not.
- **Every trick.** A player who wins every trick of the deal scores ``all_tricks_premium``; a
  trick contested while the Fool is shown goes to one of the two others, so the Fool's holder
  can take every trick only if he keeps the Fool to the last one.
- **A deal's count** for each player is his card points (his pile, his discard if he dealt,
  the Fool if he showed it) plus the Magician plus his premiums. It is not zero-sum: the pack
  counts 83 and the rest is premiums.
- **A match** is ``match_deals`` consecutive deals of a run. The highest total wins and each
  loser pays it the difference, so match scores sum to zero; when several share the highest
  total, what the losers pay is shared equally among them. A run's last match is left out of
  :func:`matches` if it lacks deals.
- **What the bots see.** The French view (:data:`~tarot_analysis.engine.state.N_VIEW`) with no
  contract and the dealer in the taker's place (he took the extra cards and discarded); there
  are no sides. A shown Fool stands in the trick at its place like the French Excuse, which
  never wins either; no poignée is ever shown.
- **Chunks.** A run is cut into chunks of a multiple of ``match_deals`` deals so that no match
  straddles two chunks; chunk *i* deals from the dealer's stream
  (:meth:`~tarot_analysis.deals.deal.DealStream.open`) and plays from the bots' stream of the same
  chunk, as for every preset: the same seed and chunk size give the same games on one thread
  or many.
- Buying a card (``tarocco.buying_cards``) is not modelled: rules that turn it on are refused.
"""

from __future__ import annotations

from typing import Any, Final, Protocol

import numpy as np
import numpy.typing as npt
import pandas as pd

from tarot_analysis.deals.deal import DEFAULT_CHUNK_SIZE
from tarot_analysis.engine.state import (
    E_DEALER,
    E_DISCARD_HALF,
    E_FOOL_SEAT,
    E_FOOL_SHOWN,
    E_LAST_WINNER,
    N_EVENTS,
    N_PARTS,
    PART_ALL_TRICKS,
    PART_MAGICIAN,
    PART_TAROCCHI,
)
from tarot_analysis.errors import TarotInputError
from tarot_analysis.game.rules import Rules, Tarocco
from tarot_analysis.stats import Z_95, wilson_interval

__all__ = [
    "EVENT_COLUMNS",
    "N_EVENTS",
    "N_PARTS",
    "PART_NAMES",
    "Counted",
    "check_rules",
    "deal_scores",
    "dealer_of",
    "matches",
    "run_chunk_size",
    "run_metadata",
    "settle_matches",
    "summary",
    "totals_half",
]

#: Column names of the parts, in order.
PART_NAMES: Final = ("points", "magician", "tarocchi", "all_tricks")

#: Column names of the events, in order.
EVENT_COLUMNS: Final = (
    "dealer",
    "fool_seat",
    "fool_shown_trick",
    "magician_last_trick_seat",
    "last_trick_winner",
    "discard_half_points",
)


def dealer_of(deal: npt.ArrayLike, rules: Rules) -> npt.NDArray[np.int64]:
    """The seat dealing deal number ``deal`` of a run: the deal moves to the dealer's right.

    >>> from tarot_analysis.game.rules import load_rules
    >>> dealer_of(range(6), load_rules("tarocco")).tolist()
    [2, 0, 1, 2, 0, 1]
    """
    j = np.asarray(deal, dtype=np.int64) % _tarocco_of(rules).match_deals
    return (rules.players - 1 + j) % rules.players


def settle_matches(totals: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Match scores from each match's totals (matches, players): each loser pays the winner.

    The highest total wins and every other player pays it the difference between their
    totals; players sharing the highest total share what the others pay. Scores sum to zero.

    >>> settle_matches([[120.5, 80, 100]]).tolist()
    [[61.0, -40.5, -20.5]]
    >>> settle_matches([[100, 100, 70]]).tolist()
    [[15.0, 15.0, -30.0]]
    """
    table = np.asarray(totals, dtype=np.float64)
    if table.ndim != 2:
        raise TarotInputError(f"totals must be a table (matches, players), got shape {table.shape}")
    top = table.max(axis=1, keepdims=True)
    is_winner = table == top
    owed = np.where(is_winner, 0.0, top - table)
    pot = owed.sum(axis=1, keepdims=True)
    winners = is_winner.sum(axis=1, keepdims=True)
    return np.where(is_winner, pot / winners, -owed)


class Counted(Protocol):
    """Played Tarocco deals as the count reads them: a
    :class:`~tarot_analysis.table.play.PlayResult` of a Tarocco preset."""

    rules: Rules
    parts: npt.NDArray[np.int32] | None
    tricks_won: npt.NDArray[np.int8] | None
    events: npt.NDArray[np.int32] | None

    def __len__(self) -> int: ...

    @property
    def dealers(self) -> npt.NDArray[np.int32]: ...


def _tarocco_of(rules: Rules) -> Tarocco:
    if rules.tarocco is None:
        raise TarotInputError(
            f"{rules.name} is not a Tarocco preset: its deals have contracts, not a Tarocco count"
        )
    return rules.tarocco


def check_rules(rules: Rules) -> None:
    """Refuse what of Tarocco is not modelled: the extra cards not to the dealer, buying cards."""
    tarocco = _tarocco_of(rules)
    if not tarocco.dog_to_dealer:
        raise TarotInputError(
            f"{rules.name}: only the dealer taking the extra cards is modelled "
            "(tarocco.dog_to_dealer = true)"
        )
    if tarocco.buying_cards:
        raise TarotInputError(
            f"{rules.name}: buying cards is not modelled (tarocco.buying_cards = false)"
        )


def run_chunk_size(rules: Rules, chunk_size: int | None) -> int:
    """A run's chunk size, ``chunk_size`` checked to hold whole matches so that no match
    straddles two chunks; by default the largest multiple of ``match_deals`` up to
    :data:`~tarot_analysis.deals.deal.DEFAULT_CHUNK_SIZE`."""
    match_deals = _tarocco_of(rules).match_deals
    if chunk_size is None:
        return max(match_deals, DEFAULT_CHUNK_SIZE // match_deals * match_deals)
    if chunk_size < 1 or chunk_size % match_deals:
        raise TarotInputError(
            f"chunk size must be a positive multiple of the {match_deals} deals of a match, "
            f"so that no match straddles two chunks; got {chunk_size}"
        )
    return chunk_size


def run_metadata(rules: Rules) -> dict[str, Any]:
    """What a Tarocco run adds to its metadata: the deals of a match and who deals."""
    return {
        "match_deals": _tarocco_of(rules).match_deals,
        "dealer": "deal d is dealt by seat (players - 1 + d % match_deals) % players",
    }


def _count(result: Counted) -> tuple[Any, Any, Any]:
    """The Tarocco count of ``result``: its parts, tricks won and events."""
    _tarocco_of(result.rules)
    assert result.parts is not None and result.tricks_won is not None
    assert result.events is not None
    return result.parts, result.tricks_won, result.events


def totals_half(result: Counted) -> npt.NDArray[np.int64]:
    """Each deal's count per seat (n, players), in half points: the sum of its parts."""
    parts, _, _ = _count(result)
    return parts.sum(axis=1, dtype=np.int64)


def deal_scores(result: Counted) -> pd.DataFrame:
    """One row per deal: its count per seat, in named parts.

    ``match`` and ``dealer``; per seat ``s``: ``points_s`` (card points of the pile, the
    discard included for the dealer), ``magician_s``, ``tarocchi_s``, ``all_tricks_s``,
    ``premiums_s`` (the two premiums), ``total_s`` (the deal's count: points + Magician
    + premiums) and ``tricks_s``; then who played the Fool (``fool_seat``), the trick it
    was shown at (``fool_shown_trick``, −1: kept to the last), who played the Magician to
    the last trick (``magician_last_trick_seat``, −1: nobody), ``last_trick_winner`` and
    ``discard_points``.
    """
    parts, tricks_won, events = _count(result)
    players = result.rules.players
    n = len(result)
    match_deals = _tarocco_of(result.rules).match_deals
    frame = pd.DataFrame(index=pd.RangeIndex(n, name="deal"))
    frame["match"] = np.arange(n) // match_deals
    frame["dealer"] = events[:, E_DEALER]
    halves = parts.astype(np.float64) / 2
    for part, name in enumerate(PART_NAMES):
        for seat in range(players):
            frame[f"{name}_{seat}"] = halves[:, part, seat]
    for seat in range(players):
        frame[f"premiums_{seat}"] = (
            halves[:, PART_TAROCCHI, seat] + halves[:, PART_ALL_TRICKS, seat]
        )
    totals = totals_half(result) / 2
    for seat in range(players):
        frame[f"total_{seat}"] = totals[:, seat]
    for seat in range(players):
        frame[f"tricks_{seat}"] = tricks_won[:, seat]
    for column in ("fool_seat", "fool_shown_trick", "magician_last_trick_seat"):
        frame[column] = events[:, EVENT_COLUMNS.index(column)]
    frame["last_trick_winner"] = events[:, E_LAST_WINNER]
    frame["discard_points"] = events[:, E_DISCARD_HALF] / 2
    return frame


def matches(result: Counted) -> pd.DataFrame:
    """One row per complete match: each seat's total over its deals and its match score.

    ``first_deal``; per seat ``total_s`` and ``score_s`` (:func:`settle_matches`: the
    highest total wins, each loser pays the difference, scores sum to zero); ``winner``,
    the seat with the highest total (−1 when it is shared) and ``winners``, how many share
    it. A last match short of deals is left out.
    """
    players = result.rules.players
    match_deals = _tarocco_of(result.rules).match_deals
    complete = len(result) // match_deals
    halves = totals_half(result)[: complete * match_deals]
    totals = halves.reshape(complete, match_deals, players).sum(axis=1) / 2
    scores = settle_matches(totals) if complete else np.zeros((0, players))
    frame = pd.DataFrame(index=pd.RangeIndex(complete, name="match"))
    frame["first_deal"] = np.arange(complete) * match_deals
    for seat in range(players):
        frame[f"total_{seat}"] = totals[:, seat]
    for seat in range(players):
        frame[f"score_{seat}"] = scores[:, seat]
    top = totals.max(axis=1, keepdims=True) if complete else np.zeros((0, 1))
    winners = (totals == top).sum(axis=1)
    frame["winner"] = np.where(winners == 1, np.argmax(totals, axis=1), -1)
    frame["winners"] = winners
    return frame


def _rate(count: int, of: int) -> dict[str, float | int]:
    """A count of ``of`` deals with its rate and Wilson 95% interval."""
    low, high = wilson_interval(count, of)
    return {
        "n": of,
        "count": count,
        "rate": count / of if of else float("nan"),
        "ci_low": float(low),
        "ci_high": float(high),
    }


def _dealer_advantage(result: Counted) -> dict[str, Any]:
    """How much more the dealer counts than each other player, per deal, with its interval."""
    players = result.rules.players
    n = len(result)
    totals = totals_half(result) / 2
    dealer_total = totals[np.arange(n), result.dealers]
    others = (totals.sum(axis=1) - dealer_total) / (players - 1)
    advantage = dealer_total - others
    spread = float(advantage.std(ddof=1)) if n > 1 else float("nan")
    half_width = Z_95 * spread / np.sqrt(n) if n > 1 else float("nan")
    return {
        "n": n,
        "mean": float(advantage.mean()),
        "ci_low": float(advantage.mean() - half_width),
        "ci_high": float(advantage.mean() + half_width),
        "mean_dealer_total": float(dealer_total.mean()),
        "mean_other_total": float(others.mean()),
    }


def summary(result: Counted) -> dict[str, Any]:
    """What a rule-maker asks of Tarocco: the dealer's advantage, how often each premium
    and the Magician's bonus happen, and how matches end — each with n and a 95% interval.
    """
    parts, _, events = _count(result)
    players = result.rules.players
    n = len(result)
    magician = parts[:, PART_MAGICIAN, :]
    played = matches(result)
    fool_kept = (events[:, E_FOOL_SEAT] >= 0) & (events[:, E_FOOL_SHOWN] < 0)
    return {
        "dealer_advantage": _dealer_advantage(result),
        "events_per_deal": {
            "tarocchi_premium": _rate(int((parts[:, PART_TAROCCHI, :] > 0).any(axis=1).sum()), n),
            "all_tricks": _rate(int((parts[:, PART_ALL_TRICKS, :] > 0).any(axis=1).sum()), n),
            "magician_wins_last_trick": _rate(int((magician > 0).any(axis=1).sum()), n),
            "magician_loses_last_trick": _rate(int((magician < 0).any(axis=1).sum()), n),
            "fool_kept_to_last_trick": _rate(int(fool_kept.sum()), n),
        },
        "matches": {
            "n": len(played),
            "shared_wins": _rate(int((played["winner"] < 0).sum()), len(played)),
            "mean_winning_score": float(
                played[[f"score_{s}" for s in range(players)]].max(axis=1).mean()
            )
            if len(played)
            else float("nan"),
        },
    }
