"""Tarocco played to the end, compiled: every player for himself, matches of three
(docs/rules.md#tarocco).

Phases of a deal, in order: the dealer takes the cards left after the deal and discards as
many (:func:`~tarot_analysis.engine.core.ecart_sets` says which may go), every player holding
enough tarocchi declares them, the tricks are played, and each player's pile is counted. The
deal is the French game state (:mod:`tarot_analysis.engine.state`) in its Tarocco mode:
:func:`~tarot_analysis.engine.core.legal_cards` says what may be played, the bots choose
among it at the table (:func:`tarot_analysis.table.compiled.play_tarocco`).

>>> from tarot_analysis.game.rules import load_rules
>>> result = play_tarocco_run(load_rules("tarocco"), 30, seed=1, chunk_size=15)
>>> float(result.deal_scores()[["points_0", "points_1", "points_2"]].sum(axis=1).iloc[0])
83.0
>>> float(result.matches()[["score_0", "score_1", "score_2"]].sum(axis=1).abs().max())
0.0

Conventions, and how the rules were read where the Russian-language dictionary entry leaves
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
  :meth:`TaroccoResult.matches` if it lacks deals.
- **What the bots see.** The French view (:data:`~tarot_analysis.engine.state.N_VIEW`) with no
  contract and the dealer in the taker's place (he took the extra cards and discarded); there
  are no sides. A shown Fool stands in the trick at its place like the French Excuse, which
  never wins either; no poignée is ever shown.
- **Chunks.** A run is cut into chunks of a multiple of ``match_deals`` deals so that no match
  straddles two chunks; chunk *i* deals from the dealer's stream
  (:meth:`~tarot_analysis.deals.deal.DealStream.open`) and plays from the bots' stream of the same
  chunk, as in :func:`tarot_analysis.table.play.play`: the same seed and chunk size give the
  same games on one thread or many.
- Buying a card (``tarocco.buying_cards``) is not modelled: rules that turn it on are refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import pandas as pd
from tqdm.auto import tqdm

from tarot_analysis._jit import normalise_seed
from tarot_analysis.deals.deal import DEFAULT_CHUNK_SIZE, DealStream, deal_chunk, make_plan
from tarot_analysis.engine.params import engine_rules
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
from tarot_analysis.game import cards
from tarot_analysis.game.rules import Rules, Tarocco
from tarot_analysis.runs.simulate import map_chunks, run_metadata
from tarot_analysis.stats import Z_95, wilson_interval
from tarot_analysis.table.compiled import play_tarocco
from tarot_analysis.table.play import Bots, Seating, _bot_rng, python_threads, seat_bots
from tarot_analysis.table.python_bots import play_python

__all__ = [
    "EVENT_COLUMNS",
    "N_EVENTS",
    "N_PARTS",
    "PART_NAMES",
    "TaroccoResult",
    "dealer_of",
    "play_tarocco_given",
    "play_tarocco_run",
    "replay_tarocco",
    "settle_matches",
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


@dataclass
class TaroccoResult:
    """Tarocco deals played to the end: the deals, who dealt, each deal's count in parts.

    Arrays by deal: ``parts`` (n, N_PARTS, players) in half points (:data:`PART_NAMES`),
    ``tricks_won`` (n, players), ``events`` (n, N_EVENTS) (:data:`EVENT_COLUMNS`); if kept,
    ``tricks`` (n, tricks, players) the cards in play order (a shown Fool at its place),
    ``leaders`` (n, tricks + 1) and ``discards`` (n, 2).
    """

    rules: Rules
    bots: tuple[str, ...]
    seed: np.random.SeedSequence
    chunk_size: int
    masks: npt.NDArray[np.uint64]  # (n, players + 1, 2): the deals as dealt
    parts: npt.NDArray[np.int32]
    tricks_won: npt.NDArray[np.int8]
    events: npt.NDArray[np.int32]
    tricks: npt.NDArray[np.int8] | None = None
    leaders: npt.NDArray[np.int8] | None = None
    discards: npt.NDArray[np.uint64] | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return int(self.masks.shape[0])

    @property
    def dealers(self) -> npt.NDArray[np.int32]:
        """The seat that dealt each deal."""
        return self.events[:, E_DEALER]

    def totals_half(self) -> npt.NDArray[np.int64]:
        """Each deal's count per seat (n, players), in half points: the sum of its parts."""
        return self.parts.sum(axis=1, dtype=np.int64)

    def deal_scores(self) -> pd.DataFrame:
        """One row per deal: its count per seat, in named parts.

        ``match`` and ``dealer``; per seat ``s``: ``points_s`` (card points of the pile, the
        discard included for the dealer), ``magician_s``, ``tarocchi_s``, ``all_tricks_s``,
        ``premiums_s`` (the two premiums), ``total_s`` (the deal's count: points + Magician
        + premiums) and ``tricks_s``; then who played the Fool (``fool_seat``), the trick it
        was shown at (``fool_shown_trick``, −1: kept to the last), who played the Magician to
        the last trick (``magician_last_trick_seat``, −1: nobody), ``last_trick_winner`` and
        ``discard_points``.
        """
        players = self.rules.players
        n = len(self)
        match_deals = _tarocco_of(self.rules).match_deals
        frame = pd.DataFrame(index=pd.RangeIndex(n, name="deal"))
        frame["match"] = np.arange(n) // match_deals
        frame["dealer"] = self.events[:, E_DEALER]
        halves = self.parts.astype(np.float64) / 2
        for part, name in enumerate(PART_NAMES):
            for seat in range(players):
                frame[f"{name}_{seat}"] = halves[:, part, seat]
        for seat in range(players):
            frame[f"premiums_{seat}"] = (
                halves[:, PART_TAROCCHI, seat] + halves[:, PART_ALL_TRICKS, seat]
            )
        totals = self.totals_half() / 2
        for seat in range(players):
            frame[f"total_{seat}"] = totals[:, seat]
        for seat in range(players):
            frame[f"tricks_{seat}"] = self.tricks_won[:, seat]
        for column in ("fool_seat", "fool_shown_trick", "magician_last_trick_seat"):
            frame[column] = self.events[:, EVENT_COLUMNS.index(column)]
        frame["last_trick_winner"] = self.events[:, E_LAST_WINNER]
        frame["discard_points"] = self.events[:, E_DISCARD_HALF] / 2
        return frame

    def matches(self) -> pd.DataFrame:
        """One row per complete match: each seat's total over its deals and its match score.

        ``first_deal``; per seat ``total_s`` and ``score_s`` (:func:`settle_matches`: the
        highest total wins, each loser pays the difference, scores sum to zero); ``winner``,
        the seat with the highest total (−1 when it is shared) and ``winners``, how many share
        it. A last match short of deals is left out.
        """
        players = self.rules.players
        match_deals = _tarocco_of(self.rules).match_deals
        complete = len(self) // match_deals
        totals_half = self.totals_half()[: complete * match_deals]
        totals = totals_half.reshape(complete, match_deals, players).sum(axis=1) / 2
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

    def summary(self) -> dict[str, Any]:
        """What a rule-maker asks of Tarocco: the dealer's advantage, how often each premium
        and the Magician's bonus happen, and how matches end — each with n and a 95% interval.
        """
        players = self.rules.players
        n = len(self)
        totals = self.totals_half() / 2
        rows = np.arange(n)
        dealer_total = totals[rows, self.dealers]
        others = (totals.sum(axis=1) - dealer_total) / (players - 1)
        advantage = dealer_total - others
        spread = float(advantage.std(ddof=1)) if n > 1 else float("nan")
        half_width = Z_95 * spread / np.sqrt(n) if n > 1 else float("nan")

        def rate(count: int, of: int) -> dict[str, float | int]:
            low, high = wilson_interval(count, of)
            return {
                "n": of,
                "count": count,
                "rate": count / of if of else float("nan"),
                "ci_low": float(low),
                "ci_high": float(high),
            }

        magician = self.parts[:, PART_MAGICIAN, :]
        matches = self.matches()
        return {
            "dealer_advantage": {
                "n": n,
                "mean": float(advantage.mean()),
                "ci_low": float(advantage.mean() - half_width),
                "ci_high": float(advantage.mean() + half_width),
                "mean_dealer_total": float(dealer_total.mean()),
                "mean_other_total": float(others.mean()),
            },
            "events_per_deal": {
                "tarocchi_premium": rate(
                    int((self.parts[:, PART_TAROCCHI, :] > 0).any(axis=1).sum()), n
                ),
                "all_tricks": rate(
                    int((self.parts[:, PART_ALL_TRICKS, :] > 0).any(axis=1).sum()), n
                ),
                "magician_wins_last_trick": rate(int((magician > 0).any(axis=1).sum()), n),
                "magician_loses_last_trick": rate(int((magician < 0).any(axis=1).sum()), n),
                "fool_kept_to_last_trick": rate(
                    int(
                        (
                            (self.events[:, E_FOOL_SEAT] >= 0) & (self.events[:, E_FOOL_SHOWN] < 0)
                        ).sum()
                    ),
                    n,
                ),
            },
            "matches": {
                "n": len(matches),
                "shared_wins": rate(int((matches["winner"] < 0).sum()), len(matches)),
                "mean_winning_score": float(
                    matches[[f"score_{s}" for s in range(players)]].max(axis=1).mean()
                )
                if len(matches)
                else float("nan"),
            },
        }


def _tarocco_of(rules: Rules) -> Tarocco:
    if rules.tarocco is None:
        raise TarotInputError(
            f"{rules.name} is not a Tarocco preset; French deals are played by "
            "tarot_analysis.table.play.play"
        )
    return rules.tarocco


def _check_rules(rules: Rules) -> None:
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


def _default_chunk_size(rules: Rules) -> int:
    match_deals = _tarocco_of(rules).match_deals
    return max(match_deals, DEFAULT_CHUNK_SIZE // match_deals * match_deals)


def _empty(
    rules: Rules,
    names: tuple[str, ...],
    root: np.random.SeedSequence,
    chunk_size: int,
    n: int,
    keep_tricks: bool,
) -> TaroccoResult:
    players = rules.players
    kept = n if keep_tricks else 0
    return TaroccoResult(
        rules=rules, bots=names, seed=root, chunk_size=chunk_size,
        masks=np.zeros((n, players + 1, 2), dtype=np.uint64),
        parts=np.zeros((n, N_PARTS, players), dtype=np.int32),
        tricks_won=np.zeros((n, players), dtype=np.int8),
        events=np.zeros((n, N_EVENTS), dtype=np.int32),
        tricks=np.zeros((kept, rules.hand_size, players), dtype=np.int8),
        leaders=np.zeros((kept, rules.hand_size + 1), dtype=np.int8),
        discards=np.zeros((kept, 2), dtype=np.uint64),
    )  # fmt: skip


_NO_SCRIPT: Final = np.empty((0, 1, 1), dtype=np.int64)
_NO_SCRIPT_DISCARD: Final = np.empty((0, 2), dtype=np.uint64)


def _run_kernel(
    result: TaroccoResult,
    start: int,
    stop: int,
    dealers: npt.NDArray[np.int64],
    seating: Seating,
    rng: npt.NDArray[np.uint64],
    script: npt.NDArray[np.int64] = _NO_SCRIPT,
    script_discard: npt.NDArray[np.uint64] = _NO_SCRIPT_DISCARD,
) -> None:
    """Play rows ``start .. stop`` of ``result``, whose masks are dealt, into its arrays."""
    rules = result.rules
    engine = engine_rules(rules)
    assert result.tricks is not None and result.leaders is not None
    assert result.discards is not None
    kept = (start, stop) if len(result.tricks) else (0, 0)
    out = (
        result.parts[start:stop], result.tricks_won[start:stop], result.events[start:stop],
        result.tricks[slice(*kept)], result.leaders[slice(*kept)], result.discards[slice(*kept)],
    )  # fmt: skip
    if seating.python:
        play_python(
            rules, engine, result.masks[start:stop], seating.rows, seating.nets, seating.python,
            rng,
            dealers=dealers, out=out, script=script, script_ecart=script_discard,
        )  # fmt: skip
        return
    play_tarocco(
        result.masks[start:stop], dealers, seating.rows, seating.nets, engine.params,
        engine.half_points, engine.scoring, rng, *out, script, script_discard,
    )  # fmt: skip


def _copy_part(part: TaroccoResult, target: TaroccoResult, first: int) -> None:
    """The rows of ``part``, a chunk played elsewhere, into ``target`` from row ``first``."""
    for name in ("masks", "parts", "tricks_won", "events", "tricks", "leaders", "discards"):
        rows = getattr(part, name)
        if rows is not None and len(rows):
            getattr(target, name)[first : first + len(rows)] = rows


def play_tarocco_run(
    rules: Rules,
    deals: int,
    *,
    bots: Bots = "random",
    seed: int | np.random.SeedSequence | None = None,
    chunk_size: int | None = None,
    threads: int | None = None,
    keep_tricks: bool = False,
    progress: bool = False,
    client: Any = None,
) -> TaroccoResult:
    """Deal ``deals`` Tarocco deals of ``rules`` from ``seed`` and play each one to the end.

    Deals ``k·m .. k·m + m − 1`` (``m = rules.tarocco.match_deals``) form match ``k``, the
    deal moving to the dealer's right (:func:`dealer_of`). ``bots``: one name for every seat
    (a seat is one player for the whole run), or one per seat. ``chunk_size`` must be a
    multiple of ``m`` so that no match straddles two chunks (default: the largest multiple
    of ``m`` up to :data:`~tarot_analysis.deals.deal.DEFAULT_CHUNK_SIZE`). ``keep_tricks`` records
    the discard and every trick. The result does not depend on ``threads``, nor on ``client``
    (a Dask client whose workers play the chunks).
    """
    _check_rules(rules)
    match_deals = _tarocco_of(rules).match_deals
    chunk_size = _default_chunk_size(rules) if chunk_size is None else chunk_size
    if deals < 1:
        raise TarotInputError(f"the number of deals must be at least 1, got {deals}")
    if chunk_size < 1 or chunk_size % match_deals:
        raise TarotInputError(
            f"chunk size must be a positive multiple of the {match_deals} deals of a match, "
            f"so that no match straddles two chunks; got {chunk_size}"
        )
    seating = seat_bots(bots, rules)
    names = seating.names
    threads = python_threads(seating, threads, client)
    root = normalise_seed(seed)
    plan = make_plan(rules)
    result = _empty(rules, names, root, chunk_size, deals, keep_tricks)

    def play_into(target: TaroccoResult, chunk: int, first: int) -> int:
        """Chunk ``chunk`` into rows ``first ..`` of ``target``; the number of deals."""
        start = chunk * chunk_size
        n = min(deals, start + chunk_size) - start
        deal_chunk(plan, DealStream.open(plan, root, chunk), n, target.masks[first : first + n])
        dealers = dealer_of(np.arange(start, start + n), rules)
        _run_kernel(target, first, first + n, dealers, seating, _bot_rng(root, chunk))
        return n

    def size(chunk: int) -> int:
        return min(chunk_size, deals - chunk * chunk_size)

    def remote(chunk: int) -> tuple[int, TaroccoResult]:
        part = _empty(rules, names, root, chunk_size, size(chunk), keep_tricks)
        play_into(part, chunk, 0)
        return chunk, part

    chunks = range(-(-deals // chunk_size))
    bar = tqdm(total=deals, unit="deal", unit_scale=True, disable=not progress, desc=rules.name)
    with bar:
        if client is None:  # threads write their chunks into the result in place
            for _ in map_chunks(
                lambda chunk: play_into(result, chunk, chunk * chunk_size), chunks,
                threads=threads, progress=bar, progress_step=int,
            ):  # fmt: skip
                pass
        else:  # workers send their chunks back; ``remote`` holds no reference to the result
            for chunk, part in map_chunks(
                remote, chunks, client=client, progress=bar,
                progress_step=lambda done: size(done[0]),
            ):  # fmt: skip
                _copy_part(part, result, chunk * chunk_size)
    result.metadata = run_metadata(rules, root, chunk_size, deals) | {
        "bots": list(names),
        "match_deals": match_deals,
        "dealer": "deal d is dealt by seat (players - 1 + d % match_deals) % players",
    }
    if not keep_tricks:
        result.tricks = result.leaders = result.discards = None
    return result


def replay_tarocco(
    rules: Rules,
    deal: int,
    *,
    bots: Bots = "random",
    seed: int | np.random.SeedSequence | None = None,
    chunk_size: int | None = None,
) -> TaroccoResult:
    """Deal number ``deal`` of the run ``play_tarocco_run(rules, …, seed=seed)``, with every
    trick: only the deal's own chunk is played, up to the deal, so its memory is that of one
    chunk whatever the deal's number."""
    from tarot_analysis.table.play import LAST_DEAL

    _check_rules(rules)
    if not 0 <= deal <= LAST_DEAL:
        raise TarotInputError(
            f"deal number {deal:,} is out of range: a run numbers its deals from 0 to {LAST_DEAL:,}"
        )
    chunk_size = _default_chunk_size(rules) if chunk_size is None else chunk_size
    match_deals = _tarocco_of(rules).match_deals
    if chunk_size < 1 or chunk_size % match_deals:
        raise TarotInputError(
            f"chunk size must be a positive multiple of the {match_deals} deals of a match, "
            f"so that no match straddles two chunks; got {chunk_size}"
        )
    seating = seat_bots(bots, rules)
    root = normalise_seed(seed)
    plan = make_plan(rules)
    chunk, offset = divmod(deal, chunk_size)
    n = offset + 1  # the chunk's streams run through the deals before this one
    part = _empty(rules, seating.names, root, chunk_size, n, keep_tricks=True)
    deal_chunk(plan, DealStream.open(plan, root, chunk), n, part.masks)
    dealers = dealer_of(np.arange(deal - offset, deal + 1), rules)
    _run_kernel(part, 0, n, dealers, seating, _bot_rng(root, chunk))
    result = _empty(rules, seating.names, root, chunk_size, 1, keep_tricks=True)
    for name in ("masks", "parts", "tricks_won", "events", "tricks", "leaders", "discards"):
        getattr(result, name)[0] = getattr(part, name)[offset]
    result.metadata = run_metadata(rules, root, chunk_size, deal + 1) | {
        "bots": list(seating.names),
        "match_deals": match_deals,
        "deal": deal,
    }
    return result


def play_tarocco_given(
    rules: Rules,
    hands: Sequence[Sequence[str]],
    *,
    dealers: Sequence[int] | None = None,
    bots: Bots = "random",
    seed: int | np.random.SeedSequence | None = None,
    script: Sequence[Sequence[Sequence[str | None]]] | None = None,
    discards: Sequence[str | None] | None = None,
) -> TaroccoResult:
    """Play Tarocco deals given in the hand notation, optionally card by card.

    ``hands[d]`` holds one string per seat and then the dealer's extra cards. ``dealers[d]``
    is the seat dealing deal ``d`` (default: as in a run, :func:`dealer_of`).
    ``script[d][t][seat]`` names the card ``seat`` plays at trick ``t`` (``None`` or ``""``:
    its bot chooses; a shown Fool is written ``E`` at its turn), ``discards[d]`` the dealer's
    discard. A scripted card or discard that breaks a rule raises ``TarotInputError``. The
    bots draw from the stream of chunk 0 of ``seed``; every trick is kept.
    """
    _check_rules(rules)
    n = len(hands)
    players = rules.players
    seating = seat_bots(bots, rules)
    names = seating.names
    root = normalise_seed(seed)
    result = _empty(rules, names, root, n, n, keep_tricks=True)
    for d, deal in enumerate(hands):
        if len(deal) != players + 1:
            raise TarotInputError(
                f"deal {d}: {players} hands and the dealer's extra cards were expected"
            )
        seen: set[int] = set()
        for group, text in enumerate(deal):
            expected = rules.hand_size if group < players else rules.dog_size
            held = cards.parse_cards(text, size=expected)
            if seen & set(held):
                raise TarotInputError(f"deal {d}: a card is dealt twice")
            seen |= set(held)
            result.masks[d, group] = cards.to_mask(held)
    seats = dealer_of(np.arange(n), rules) if dealers is None else np.asarray(dealers, np.int64)
    if seats.shape != (n,) or np.any((seats < 0) | (seats >= players)):
        raise TarotInputError(f"dealers must be {n} seats between 0 and {players - 1}")
    moves = np.full((n, rules.hand_size, players), -1, dtype=np.int64)
    for d, by_trick in enumerate(script or ()):
        for t, by_seat in enumerate(by_trick):
            for seat, name in enumerate(by_seat):
                if name:
                    moves[d, t, seat] = cards.parse_card(name)
    discarded = np.zeros((n, 2), dtype=np.uint64)
    for d, discard in enumerate(discards or ()):
        if discard:
            discarded[d] = cards.to_mask(cards.parse_cards(discard))
    try:
        _run_kernel(result, 0, n, seats, seating, _bot_rng(root, 0), moves, discarded)
    except ValueError as error:
        raise TarotInputError(str(error)) from None
    result.metadata = run_metadata(rules, root, n, n) | {"bots": list(names)}
    return result
