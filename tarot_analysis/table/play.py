"""Playing deals to the end from Python: the table (:mod:`tarot_analysis.table.compiled`) run chunk
by chunk.

Every preset goes through :func:`play`, :func:`replay` and :func:`play_given`, Tarocco too:
its dealer, chunks of whole matches and count are the :mod:`tarot_analysis.table.tarocco` part of
the same run.

>>> from tarot_analysis.game.rules import load_rules
>>> result = play(load_rules("fft-4"), 200, seed=1)
>>> len(result.outcomes)
200
>>> len(play(load_rules("tarocco"), 30, seed=1).matches())
10
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from tarot_analysis._jit import chunk_states, normalise_seed
from tarot_analysis.bots import B_KIND, BOTS, PIMC, Bot, seat_rows
from tarot_analysis.deals.deal import (
    DEFAULT_CHUNK_SIZE,
    DealPlan,
    DealStream,
    deal_chunk,
    make_plan,
)
from tarot_analysis.engine.forced import check_forced_calls, forced_rows, masks_of
from tarot_analysis.engine.outcome import (
    N_OUTCOME,
    OUTCOME_COLUMNS,
    REDEAL_ALL_PASSED,
    REDEAL_NONE,
    REDEAL_PETIT_SEC,
)
from tarot_analysis.engine.params import EngineRules, engine_rules
from tarot_analysis.engine.scoring import POINT_UNIT, SCORE_UNIT, score_outcomes, whole_units
from tarot_analysis.engine.state import E_DEALER, N_EVENTS, N_PARTS
from tarot_analysis.errors import TarotInputError, deal_count, run_numbers, whole_number
from tarot_analysis.game import cards
from tarot_analysis.game.rules import Rules
from tarot_analysis.runs.progress import PLAYING
from tarot_analysis.runs.progress import bar as progress_bar
from tarot_analysis.runs.simulate import map_chunks, run_metadata
from tarot_analysis.stats import wilson_interval
from tarot_analysis.table import tarocco
from tarot_analysis.table.compiled import play_deals, play_deals_without_search
from tarot_analysis.table.python_bots import bot_name, is_python_bot, play_python

__all__ = [
    "LAST_DEAL", "ContractCounts", "PlayResult", "ScriptRefused", "chunk_start", "play",
    "play_counts", "play_given", "replay",
]  # fmt: skip

#: The highest deal number: a run's files store deal numbers (and counts of deals) as 64-bit
#: integers.
LAST_DEAL = 2**63 - 2


class ScriptRefused(TarotInputError):
    """A scripted card or écart of :func:`play_given` that the rules do not allow where it
    comes (the bots announced otherwise, a chelem say, or the card is not the seat's)."""


@dataclass
class PlayResult:
    """Deals played to the end: the deals, their raw outcomes and, if kept, every trick.

    Tarocco (``rules.tarocco``) has no contract: its raw outcome is left unset (−1), no
    poignée is shown, ``ecarts`` holds the dealer's discard and ``bids`` −2 (no auction), and
    the deal's count is in ``parts`` (n, N_PARTS, players; half points, named in
    :data:`tarot_analysis.table.tarocco.PART_NAMES`), ``tricks_won`` (n, players) and ``events``
    (n, N_EVENTS; :data:`tarot_analysis.table.tarocco.EVENT_COLUMNS`), which French presets do
    not have (``None``).
    """

    rules: Rules
    bots: tuple[str, ...]
    seed: np.random.SeedSequence
    chunk_size: int
    masks: npt.NDArray[np.uint64]  # (n, players + 1, 2): the deals as dealt
    outcomes: npt.NDArray[np.int32]  # (n, N_OUTCOME), columns OUTCOME_COLUMNS
    poignees: npt.NDArray[np.int8]  # (n, players): level shown by each seat
    tricks: npt.NDArray[np.int8] | None = None  # (n, tricks, players): cards in play order
    # (n, tricks + 1): the seat leading each trick, then the seat that won the last one
    leaders: npt.NDArray[np.int8] | None = None
    ecarts: npt.NDArray[np.uint64] | None = None  # (n, 2)
    bids: npt.NDArray[np.int8] | None = None  # (n, players): contract index, −1 pass
    parts: npt.NDArray[np.int32] | None = None  # Tarocco's count, see above
    tricks_won: npt.NDArray[np.int8] | None = None
    events: npt.NDArray[np.int32] | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return int(self.masks.shape[0])

    @property
    def dealers(self) -> npt.NDArray[np.int32]:
        """The seat that dealt each deal: in Tarocco the deal moves to the dealer's right
        (:func:`tarot_analysis.table.tarocco.dealer_of`); in French presets the last seat deals."""
        if self.events is not None:
            return self.events[:, E_DEALER]
        return np.full(len(self), self.rules.players - 1, dtype=np.int32)

    def raw(self) -> pd.DataFrame:
        """The raw outcome, one row per deal, columns named as in ``OUTCOME_COLUMNS``."""
        frame = pd.DataFrame(self.outcomes, columns=list(OUTCOME_COLUMNS))
        for seat in range(self.rules.players):
            frame[f"poignee_{seat}"] = self.poignees[:, seat]
        return frame

    def scores(self) -> pd.DataFrame:
        """One row per deal: who took what, how it went, and the score in named parts.

        The scoring columns of :func:`~tarot_analysis.engine.scoring.score_outcomes`, plus
        ``redeal_reason``, ``taker_score``, the tricks of each side, who took the Petit au
        bout (``petit_au_bout_side``), the points of the dog and the écart, the called cards
        and each seat's poignée. Tarocco: each deal's count in named parts
        (:func:`tarot_analysis.table.tarocco.deal_scores`).
        """
        if self.rules.tarocco is not None:
            return tarocco.deal_scores(self)
        frame = self._scored()
        raw = self.raw()
        reasons = {REDEAL_NONE: "", REDEAL_PETIT_SEC: "petit_sec", REDEAL_ALL_PASSED: "all_passed"}
        frame.insert(1, "redeal_reason", raw["redeal"].map(reasons))
        seats = np.clip(frame["taker"].to_numpy(), 0, None)
        for column in ("attack_tricks", "defence_tricks", "chelem_announced"):
            frame[column] = raw[column]
        side = raw["petit_au_bout"].map({1: "attack", 0: "defence", -1: ""})
        frame["petit_au_bout_side"] = side
        frame["dog_points"] = raw["dog_half_points"] / 2
        frame["ecart_points"] = raw["ecart_half_points"] / 2
        players = self.rules.players
        rows = np.arange(len(frame))
        for which in ("1", "2"):
            called = raw["called_" + which].to_numpy()
            frame["called_" + which] = [cards.card_name(c) if c >= 0 else "" for c in called]
            # Where the called card was dealt: a partner's hand, the taker's own, or the dog.
            word = (called >= cards.N_SUIT_CARDS).astype(np.intp)
            bit = np.where(word == 1, called - cards.EXCUSE, np.clip(called, 0, None))
            held = self.masks[rows, seats, word] >> bit.astype(np.uint64) & np.uint64(1)
            where = np.where(
                raw["partner_" + which] >= 0, "partner", np.where(held, "taker", "dog")
            )
            frame["called_" + which + "_where"] = np.where(called >= 0, where, "")
        dog_lo = self.masks[:, players, 0]
        dog_hi = self.masks[:, players, 1]
        frame["dog"] = cards.format_masks(dog_lo, dog_hi)
        frame["dog_bouts"] = np.bitwise_count(dog_hi & np.uint64(cards.BOUTS_MASK_HI)).astype(
            np.int8
        )
        for seat in range(self.rules.players):
            frame[f"poignee_{seat}"] = self.poignees[:, seat]
        frame.index.name = "deal"
        return frame

    def _scored(self) -> pd.DataFrame:
        """:func:`score_outcomes` of every deal, with the taker's own score."""
        frame = score_outcomes(self.outcomes, self.poignees, self.rules)
        seats = np.clip(frame["taker"].to_numpy(), 0, None)
        seat_scores = frame[[f"score_{seat}" for seat in range(self.rules.players)]].to_numpy()
        frame["taker_score"] = np.where(
            frame["redeal"], np.nan, seat_scores[np.arange(len(frame)), seats]
        )
        return frame

    def counts(self, scores: pd.DataFrame | None = None) -> ContractCounts:
        """The contracts' sufficient statistics (see :class:`ContractCounts`)."""
        _no_tarocco(self.rules)
        scores = self._scored() if scores is None else scores
        return ContractCounts.of(scores, self.rules, redeals=self.redeals())

    def contracts(self, scores: pd.DataFrame | None = None) -> pd.DataFrame:
        """Per contract: how often it was played, how often it made (Wilson 95% interval),
        and the taker's mean score. Redealt deals are left out (see :meth:`redeals`)."""
        return self.counts(scores).table()

    def redeals(self) -> dict[str, int]:
        """How many deals were void: a Petit sec, or nobody bid."""
        reason = self.outcomes[:, 0]
        return {
            "petit_sec": int(np.sum(reason == REDEAL_PETIT_SEC)),
            "all_passed": int(np.sum(reason == REDEAL_ALL_PASSED)),
            "total": int(np.sum(reason != REDEAL_NONE)),
        }

    def matches(self) -> pd.DataFrame:
        """Tarocco: one row per complete match, its totals and scores
        (:func:`tarot_analysis.table.tarocco.matches`)."""
        return tarocco.matches(self)

    def summary(self) -> dict[str, Any]:
        """Tarocco: the dealer's advantage, the premiums and the matches
        (:func:`tarot_analysis.table.tarocco.summary`)."""
        return tarocco.summary(self)


def _no_tarocco(rules: Rules) -> None:
    """Refuse a Tarocco preset where contracts are counted."""
    if rules.tarocco is not None:
        raise TarotInputError(
            f"{rules.name}: Tarocco has no contracts to count; its deals are counted by "
            "PlayResult.scores, matches and summary"
        )


@dataclass
class ContractCounts:
    """What the contracts table needs of a set of played deals, as sums that add up exactly.

    Per contract (rows, in the order of the rules): ``n`` deals played in it, ``made``, and
    the sums of the taker's score (``taker_twelfths``, and of its squares) and of the attack's
    card points (``attack_halves``); plus the redeals and the deals dealt. The counts of
    disjoint chunks add up with ``+``, so a run of any size needs memory for one table.
    """

    rules: Rules
    sums: pd.DataFrame
    redeals: dict[str, int]
    deals: int

    @classmethod
    def of(cls, scores: pd.DataFrame, rules: Rules, *, redeals: dict[str, int]) -> ContractCounts:
        """The counts of scored deals (a frame of :meth:`PlayResult.scores`)."""
        played = scores[~scores["redeal"].to_numpy(dtype=bool)]
        names = [contract.name for contract in rules.contracts]
        contract = played["contract"].astype("string").fillna("").to_numpy(dtype=object)
        taker = whole_units(played["taker_score"], SCORE_UNIT, "taker's score")
        attack = whole_units(played["attack_points"], POINT_UNIT, "card point count")
        made = played["made"].to_numpy(dtype=bool, na_value=False)
        rows = {}
        for name in names:
            chosen = contract == name
            rows[name] = {
                "n": int(chosen.sum()),
                "made": int(made[chosen].sum()),
                "taker_twelfths": int(taker[chosen].sum()),
                "taker_twelfths_sq": int((taker[chosen] ** 2).sum()),
                "attack_halves": int(attack[chosen].sum()),
            }
        sums = pd.DataFrame.from_dict(rows, orient="index").astype(np.int64)
        sums.index.name = "contract"
        return cls(rules=rules, sums=sums, redeals=dict(redeals), deals=len(scores))

    def __add__(self, other: ContractCounts) -> ContractCounts:
        redeals = {key: self.redeals[key] + other.redeals[key] for key in self.redeals}
        return ContractCounts(
            rules=self.rules, sums=self.sums + other.sums, redeals=redeals,
            deals=self.deals + other.deals,
        )  # fmt: skip

    def table(self) -> pd.DataFrame:
        """Per contract: n, made, the success rate and its Wilson 95% interval, the taker's
        mean score and the attack's mean card points (NaN for a contract never played)."""
        n = self.sums["n"].to_numpy()
        made = self.sums["made"].to_numpy()
        low, high = wilson_interval(made, n)
        with np.errstate(invalid="ignore", divide="ignore"):
            table = pd.DataFrame(
                {
                    "n": n,
                    "made": made,
                    "rate": made / n,
                    "ci_low": low,
                    "ci_high": high,
                    "mean_taker_score": self.sums["taker_twelfths"].to_numpy() / SCORE_UNIT / n,
                    "mean_attack_points": self.sums["attack_halves"].to_numpy() / POINT_UNIT / n,
                },
                index=self.sums.index,
            )
        return table


#: Bots as ``bots=`` takes them: a compiled bot's name, or a Python bot (an object with a method
#: ``act``, see :mod:`tarot_analysis.table.python_bots`); one for every seat, or one per seat.
Bots = str | Any | Sequence[str | Any]


@dataclass(frozen=True)
class Seating:
    """The bots of a table: their names, the compiled bots' rows (:func:`bot_rows`, one per
    seat; the random bot's where a Python bot sits), and the Python bots by seat."""

    names: tuple[str, ...]
    rows: npt.NDArray[np.int64]
    python: dict[int, Any]
    nets: npt.NDArray[np.float32]  # the learned bots' networks (:func:`seat_rows`)


def seat_bots(bots: Bots, rules: Rules) -> Seating:
    """``bots`` checked and seated: one for every seat (a single name or bot), or one per seat."""
    players = rules.players
    one = isinstance(bots, str) or is_python_bot(bots)
    seated: list[Any] = [bots] * players if one else list(bots)
    if len(seated) != players:
        raise TarotInputError(f"{players} bots were expected (one per seat), got {len(seated)}")
    python = {seat: bot for seat, bot in enumerate(seated) if is_python_bot(bot)}
    for seat, bot in enumerate(seated):
        if seat not in python and not isinstance(bot, str):
            raise TarotInputError(
                f"seat {seat}: a bot is a name ({', '.join(BOTS)}) or an object with a method "
                f"act(observation), got {bot!r}"
            )
    names = tuple(bot_name(bot) if seat in python else str(bot) for seat, bot in enumerate(seated))
    rows, nets = seat_rows(
        [Bot("random") if seat in python else bot for seat, bot in enumerate(seated)], rules
    )
    return Seating(names=names, rows=rows, python=python, nets=nets)


@dataclass
class _Table:
    """Everything fixed for a run: rules, bots, forced contracts, seed and chunking."""

    rules: Rules
    seating: Seating
    engine: EngineRules
    plan: DealPlan
    root: np.random.SeedSequence
    chunk_size: int
    forced: npt.NDArray[np.int64]  # one row per deal, or (``shared_forced``) one for every deal
    shared_forced: bool = False

    def forced_rows(self, first: int, n: int) -> npt.NDArray[np.int64]:
        """The forced contracts of deals ``first .. first + n``: rows of the run's own, or its
        one row repeated, so that memory for them follows the chunk, not the run."""
        if self.shared_forced:
            return np.repeat(self.forced, n, axis=0)
        return self.forced[first : first + n]

    def dealers(self, first: int, n: int) -> npt.NDArray[np.int64]:
        """The dealing seats of deals ``first .. first + n`` in Tarocco; none in French presets
        (the last seat deals)."""
        if self.rules.tarocco is None:
            return _NO_DEALERS
        return tarocco.dealer_of(np.arange(first, first + n), self.rules)

    def empty(self, n: int, keep_tricks: bool) -> PlayResult:
        rules = self.rules
        kept = n if keep_tricks else 0
        counted = rules.tarocco is not None
        return PlayResult(
            rules=rules, bots=self.seating.names, seed=self.root, chunk_size=self.chunk_size,
            masks=np.zeros((n, self.plan.groups, 2), dtype=np.uint64),
            outcomes=np.zeros((n, N_OUTCOME), dtype=np.int32),
            poignees=np.zeros((n, rules.players), dtype=np.int8),
            # zeros, not garbage, where a redealt deal plays no trick: same seed, same bytes
            tricks=np.zeros((kept, rules.hand_size, rules.players), dtype=np.int8),
            leaders=np.zeros((kept, rules.hand_size + 1), dtype=np.int8),
            ecarts=np.zeros((kept, 2), dtype=np.uint64),
            bids=np.zeros((kept, rules.players), dtype=np.int8),
            parts=np.zeros((n, N_PARTS, rules.players), dtype=np.int32) if counted else None,
            tricks_won=np.zeros((n, rules.players), dtype=np.int8) if counted else None,
            events=np.zeros((n, N_EVENTS), dtype=np.int32) if counted else None,
        )  # fmt: skip

    def threads(self, threads: int | None, client: Any) -> int | None:
        """The threads to play on: one where a Python bot sits (it decides in Python), which
        cannot go to a cluster either."""
        return python_threads(self.seating, threads, client)

    def chunk_sizes(self, deals: int) -> dict[int, int]:
        """The deals of each chunk of a run of ``deals`` deals, by chunk."""
        size = self.chunk_size
        return {chunk: min(size, deals - chunk * size) for chunk in range(-(-deals // size))}

    def play_chunk(
        self,
        chunk: int,
        result: PlayResult,
        start: int,
        stop: int,
        done: npt.NDArray[np.int64] | None = None,
    ) -> None:
        """Deals ``start .. stop`` of chunk ``chunk`` (counted from the chunk's first deal)
        into ``result`` rows ``0 .. stop − start`` — the deals before ``start`` are played too,
        since the chunk's streams run through them. ``done`` (1,): the deals of the chunk
        played so far, kept as they end (:meth:`play_masks`)."""
        n = stop
        if start == 0 and len(result.outcomes) == n:
            scratch = result
        else:
            keep = result.tricks is not None and len(result.tricks) > 0
            scratch = self.empty(n, keep_tricks=keep)
        first = chunk * self.chunk_size
        forced = self.forced_rows(first, n)
        deal_chunk(self.plan, DealStream.open(self.plan, self.root, chunk), n, scratch.masks)
        check_forced_calls(self.rules, scratch.masks, forced, first)
        self.play_masks(
            scratch, forced, _bot_rng(self.root, chunk), dealers=self.dealers(first, n), done=done
        )
        if scratch is not result:
            _copy_rows(scratch, start, stop, result)

    def play_masks(
        self,
        result: PlayResult,
        forced: npt.NDArray[np.int64],
        rng: npt.NDArray[np.uint64],
        script: npt.NDArray[np.int64] | None = None,
        script_ecart: npt.NDArray[np.uint64] | None = None,
        dealers: npt.NDArray[np.int64] | None = None,
        done: npt.NDArray[np.int64] | None = None,
    ) -> None:
        """Play the deals already in ``result.masks`` into its other arrays: at the compiled
        table, or one decision at a time where Python bots sit. ``dealers``: Tarocco's
        dealing seats (:meth:`dealers`). ``done`` (1,): the deals played so far, written after
        each, for a progress bar to read while the chunk plays."""
        assert result.tricks is not None and result.leaders is not None
        assert result.ecarts is not None and result.bids is not None
        out = (
            result.outcomes, result.poignees, result.tricks, result.leaders, result.ecarts,
            result.bids,
        )  # fmt: skip
        dealers = _NO_DEALERS if dealers is None else dealers
        counts = _NO_COUNTS if result.parts is None else (
            result.parts, result.tricks_won, result.events,
        )  # fmt: skip
        if self.seating.python:
            play_python(
                self.rules, self.engine, result.masks, self.seating.rows, self.seating.nets,
                self.seating.python, rng, forced=forced, dealers=dealers, out=(*out, *counts),
                script=script, script_ecart=script_ecart, done=done,
            )  # fmt: skip
            return
        searched = bool((self.seating.rows[:, B_KIND] == PIMC).any())
        (play_deals if searched else play_deals_without_search)(
            result.masks, dealers, self.seating.rows, self.seating.nets, forced,
            self.engine.params, self.engine.half_points, self.engine.scoring, rng, *out, counts,
            _NO_SCRIPT if script is None else script,
            _NO_SCRIPT_ECART if script_ecart is None else script_ecart,
            _NO_DONE if done is None else done,
        )  # fmt: skip


def python_threads(seating: Seating, threads: int | None, client: Any) -> int | None:
    """``threads``, or 1 where a Python bot sits; a cluster is refused for one."""
    if not seating.python:
        return threads
    if client is not None:
        raise TarotInputError(
            "Python bots play on this process, one thread: run them without a Dask cluster "
            "(--workers, --scheduler)"
        )
    return 1


_NO_SCRIPT = np.empty((0, 1, 1), dtype=np.int64)
_NO_SCRIPT_ECART = np.empty((0, 2), dtype=np.uint64)
_NO_DEALERS = np.empty(0, dtype=np.int64)
_NO_DONE = np.empty(0, dtype=np.int64)
#: Tarocco's count (parts, tricks won, events) where there is none: no rows.
_NO_COUNTS = (
    np.empty((0, N_PARTS, 1), dtype=np.int32), np.empty((0, 1), dtype=np.int8),
    np.empty((0, N_EVENTS), dtype=np.int32),
)  # fmt: skip


def play_given(
    rules: Rules,
    hands: Sequence[Sequence[str]],
    *,
    bots: Bots = "random",
    seed: int | np.random.SeedSequence | None = None,
    forced: npt.ArrayLike | None = None,
    script: Sequence[Sequence[Sequence[str | None]]] | None = None,
    ecart: Sequence[str | None] | None = None,
    dealers: Sequence[int] | None = None,
) -> PlayResult:
    """Play deals given in the hand notation, optionally card by card: a known deal replayed.

    ``hands[d]`` holds one string per seat and then the dog (in Tarocco the dealer's extra
    cards). ``script[d][t][seat]`` names the card ``seat`` plays at trick ``t`` (``None`` or
    ``""``: its bot chooses; a shown Fool is written ``E`` at its turn); ``ecart[d]`` the
    taker's écart (the Tarocco dealer's discard). ``dealers[d]``, Tarocco only, is the seat
    dealing deal ``d`` (default: as in a run, :func:`tarot_analysis.table.tarocco.dealer_of`). A
    scripted card or écart that breaks a rule raises :class:`ScriptRefused` (a
    ``TarotInputError``).
    """
    deal_count(len(hands))
    table = _table(rules, len(hands), bots, seed, forced, len(hands))
    masks = masks_of(rules, hands)
    seats = _given_dealers(table, dealers, len(hands))
    forced_rows = table.forced_rows(0, len(hands))
    check_forced_calls(rules, masks, forced_rows, 0)
    result = table.empty(len(hands), keep_tricks=True)
    result.masks[:] = masks
    moves = np.full((len(hands), rules.hand_size, rules.players), -1, dtype=np.int64)
    for d, tricks in enumerate(script or ()):
        for t, by_seat in enumerate(tricks):
            for seat, name in enumerate(by_seat):
                if name:
                    moves[d, t, seat] = cards.parse_card(name)
    discards = np.zeros((len(hands), 2), dtype=np.uint64)
    for d, discard in enumerate(ecart or ()):
        if discard:
            discards[d] = cards.to_mask(cards.parse_cards(discard))
    try:
        table.play_masks(
            result, forced_rows, _bot_rng(table.root, 0), moves, discards, dealers=seats
        )
    except ValueError as error:
        raise ScriptRefused(str(error)) from None
    result.metadata = run_metadata(rules, table.root, len(hands), len(hands)) | {
        "bots": list(table.seating.names)
    }
    return result


def _given_dealers(table: _Table, dealers: Sequence[int] | None, n: int) -> npt.NDArray[np.int64]:
    """The dealing seats of ``n`` given deals: ``dealers`` checked, or those of a run."""
    rules = table.rules
    if dealers is None:
        return table.dealers(0, n)
    if rules.tarocco is None:
        raise TarotInputError(f"{rules.name}: the last seat deals; dealers are Tarocco's")
    seats = np.asarray(dealers, dtype=np.int64)
    if seats.shape != (n,) or np.any((seats < 0) | (seats >= rules.players)):
        raise TarotInputError(f"dealers must be {n} seats between 0 and {rules.players - 1}")
    return seats


#: The arrays of a result with one row per deal (the kept ones and Tarocco's may have none).
_ROWS = (
    "masks", "outcomes", "poignees", "tricks", "leaders", "ecarts", "bids", "parts",
    "tricks_won", "events",
)  # fmt: skip


def _copy_rows(source: PlayResult, start: int, stop: int, target: PlayResult) -> None:
    for name in _ROWS:
        rows = getattr(source, name)
        if rows is not None and len(rows):
            getattr(target, name)[: stop - start] = rows[start:stop]


def _table(
    rules: Rules,
    deals: int,
    bots: Bots,
    seed: int | np.random.SeedSequence | None,
    forced: npt.ArrayLike | None,
    chunk_size: int,
    hand: cards.Hand | str | None = None,
    seat: int | None = None,
) -> _Table:
    if rules.tarocco is not None:
        tarocco.check_rules(rules)
    # No forced contract, or one for every deal: one row kept, whatever the number of deals.
    shared = forced is None or np.ndim(forced) == 1
    return _Table(
        rules=rules, seating=seat_bots(bots, rules), engine=engine_rules(rules),
        plan=make_plan(rules, seat=seat, hand=hand), root=normalise_seed(seed),
        chunk_size=chunk_size, forced=forced_rows(forced, 1 if shared else deals, rules),
        shared_forced=shared,
    )  # fmt: skip


def play(
    rules: Rules,
    deals: int,
    *,
    bots: Bots = "random",
    seed: int | np.random.SeedSequence | None = None,
    forced: npt.ArrayLike | None = None,
    chunk_size: int | None = None,
    threads: int | None = None,
    keep_tricks: bool = False,
    progress: bool = False,
    hand: cards.Hand | str | None = None,
    seat: int | None = None,
    client: Any = None,
) -> PlayResult:
    """Deal ``deals`` deals of ``rules`` from ``seed`` and play each one to the end.

    ``bots``: one name for every seat, or one per seat. ``forced``: an array (deals, 4) of
    taker, contract index, called card 1 and 2 for each deal (−1: decided at the table), or
    one row for every deal. ``keep_tricks`` records bids, écart and every trick for replay.
    ``hand`` deals the rest of the pack around the cards of ``seat`` (default 0).
    ``chunk_size``: deals per chunk (default :func:`run_chunk_size`). ``client``: a Dask
    client (:mod:`tarot_analysis.runs.cluster`) whose workers play the chunks; the result is the
    same as on local threads.

    Tarocco: deals ``k·m .. k·m + m − 1`` (``m = rules.tarocco.match_deals``) form match
    ``k``, the deal moving to the dealer's right (:func:`tarot_analysis.table.tarocco.dealer_of`);
    a seat is one player for the whole run, and a chunk holds whole matches.
    """
    deals, chunk_size, threads = run_numbers(deals, run_chunk_size(rules, chunk_size), threads)
    table = _table(rules, deals, bots, seed, forced, chunk_size, hand, seat)
    threads = table.threads(threads, client)
    result = table.empty(deals, keep_tricks)
    sizes = table.chunk_sizes(deals)
    played = np.zeros(len(sizes), dtype=np.int64)  # each chunk's deals played so far

    def work(chunk: int) -> int:
        start = chunk * chunk_size
        view = _rows(result, start, start + sizes[chunk], keep_tricks)
        table.play_chunk(chunk, view, 0, sizes[chunk], played[chunk : chunk + 1])
        return chunk

    def remote(chunk: int) -> tuple[int, PlayResult]:
        part = table.empty(sizes[chunk], keep_tricks)
        table.play_chunk(chunk, part, 0, sizes[chunk])
        return chunk, part

    # On local threads the bar reads the deals played as each chunk plays them.
    live = (lambda: int(played.sum())) if client is None else None
    bar = progress_bar(PLAYING, deals, enabled=progress, detail=rules.name, count=live)
    with bar:
        if client is None:  # threads write their chunks into the result in place
            for _ in map_chunks(work, sizes, threads=threads):
                pass
        else:  # workers send their chunks back; ``remote`` holds no reference to the result
            for chunk, part in map_chunks(
                remote, sizes, client=client, progress=bar,
                progress_step=lambda done: sizes[done[0]],
            ):  # fmt: skip
                start = chunk * chunk_size
                view = _rows(result, start, start + sizes[chunk], keep_tricks)
                _copy_rows(part, 0, sizes[chunk], view)
    result.metadata = (
        run_metadata(rules, table.root, chunk_size, deals)
        | {"bots": list(table.seating.names)}
        | _run_extras(rules)
    )
    if not keep_tricks:
        result.tricks = result.leaders = result.ecarts = result.bids = None
    return result


def play_counts(
    rules: Rules,
    deals: int,
    *,
    bots: Bots = "random",
    seed: int | np.random.SeedSequence | None = None,
    chunk_size: int | None = None,
    threads: int | None = None,
    progress: bool = False,
    client: Any = None,
) -> tuple[ContractCounts, dict[str, Any]]:
    """Play ``deals`` deals as :func:`play` does, keeping only each chunk's contract counts.

    Memory stays that of a few chunks whatever ``deals``: the deals and their outcomes are
    forgotten once counted. The counts equal those of ``play(...).counts()``. Returns them
    with the run's metadata. Tarocco, which has no contract, is refused.
    """
    _no_tarocco(rules)
    deals, chunk_size, threads = run_numbers(deals, run_chunk_size(rules, chunk_size), threads)
    table = _table(rules, deals, bots, seed, None, chunk_size)
    threads = table.threads(threads, client)
    sizes = table.chunk_sizes(deals)
    played = np.zeros(len(sizes), dtype=np.int64)  # each chunk's deals played so far

    def count(chunk: int) -> ContractCounts:
        part = table.empty(sizes[chunk], keep_tricks=False)
        table.play_chunk(chunk, part, 0, sizes[chunk], played[chunk : chunk + 1])
        return part.counts()

    total: ContractCounts | None = None
    # On local threads the bar reads the deals played as each chunk plays them.
    live = (lambda: int(played.sum())) if client is None else None
    bar = progress_bar(PLAYING, deals, enabled=progress, detail=rules.name, count=live)
    with bar:
        for counts in map_chunks(
            count, sizes, threads=threads, progress=None if live else bar,
            progress_step=lambda c: c.deals, client=client,
        ):  # fmt: skip
            total = counts if total is None else total + counts
    assert total is not None
    metadata = run_metadata(rules, table.root, chunk_size, deals) | {
        "bots": list(table.seating.names),
        "rows": False,
    }
    return total, metadata


def replay(
    rules: Rules,
    deal: int,
    *,
    bots: Bots = "random",
    seed: int | np.random.SeedSequence | None = None,
    chunk_size: int | None = None,
) -> PlayResult:
    """Deal number ``deal`` of the run ``play(rules, …, seed=seed)``, with every trick.

    Only the deal's own chunk is played, up to the deal, so this is quick at any position and
    its memory is that of one chunk, whatever the deal's number.
    """
    if not 0 <= deal <= LAST_DEAL:
        raise TarotInputError(
            f"deal number {deal:,} is out of range: a run numbers its deals from 0 to {LAST_DEAL:,}"
        )
    chunk_size = whole_number(run_chunk_size(rules, chunk_size), "the chunk size", least=1)
    table = _table(rules, deal + 1, bots, seed, None, chunk_size)
    chunk, offset = divmod(deal, chunk_size)
    result = table.empty(1, keep_tricks=True)
    table.play_chunk(chunk, result, offset, offset + 1)
    result.metadata = (
        run_metadata(rules, table.root, chunk_size, deal + 1)
        | {
            "bots": list(table.seating.names),
            "deal": deal,
        }
        | _run_extras(rules)
    )
    return result


def chunk_start(
    rules: Rules,
    seed: int | np.random.SeedSequence | None,
    chunk: int,
    n: int,
    *,
    chunk_size: int | None = None,
) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]]:
    """The first ``n`` deals of chunk ``chunk`` of the run ``play(rules, …, seed=seed,
    chunk_size=chunk_size)`` as dealt ``(n, players + 1, 2)``, and its bots' generator as it
    stands before the chunk's first deal: the bots of a table that decide from them, deal after
    deal, play that run's very deals (:func:`replay` plays one this way). French presets."""
    _no_tarocco(rules)
    table = _table(rules, n, "random", seed, None, run_chunk_size(rules, chunk_size))
    masks = np.zeros((n, table.plan.groups, 2), dtype=np.uint64)
    deal_chunk(table.plan, DealStream.open(table.plan, table.root, chunk), n, masks)
    return masks, _bot_rng(table.root, chunk)


def run_chunk_size(rules: Rules, chunk_size: int | None) -> int:
    """The chunk size of a run: ``chunk_size``, by default
    :data:`~tarot_analysis.deals.deal.DEFAULT_CHUNK_SIZE`; in Tarocco a multiple of the deals of a
    match (:func:`tarot_analysis.table.tarocco.run_chunk_size`)."""
    if rules.tarocco is not None:
        return tarocco.run_chunk_size(rules, chunk_size)
    return DEFAULT_CHUNK_SIZE if chunk_size is None else chunk_size


def _run_extras(rules: Rules) -> dict[str, Any]:
    """What a run of ``rules`` adds to its metadata: Tarocco's matches and dealers."""
    return {} if rules.tarocco is None else tarocco.run_metadata(rules)


def _rows(result: PlayResult, start: int, stop: int, keep_tricks: bool) -> PlayResult:
    """A view of rows ``start .. stop`` of ``result`` (the arrays are shared)."""
    kept = slice(start, stop) if keep_tricks else slice(0, 0)
    assert result.tricks is not None and result.leaders is not None
    assert result.ecarts is not None and result.bids is not None

    def counted(rows: Any) -> Any:
        return None if rows is None else rows[start:stop]

    return PlayResult(
        rules=result.rules, bots=result.bots, seed=result.seed, chunk_size=result.chunk_size,
        masks=result.masks[start:stop], outcomes=result.outcomes[start:stop],
        poignees=result.poignees[start:stop], tricks=result.tricks[kept],
        leaders=result.leaders[kept], ecarts=result.ecarts[kept], bids=result.bids[kept],
        parts=counted(result.parts), tricks_won=counted(result.tricks_won),
        events=counted(result.events),
    )  # fmt: skip


def _bot_rng(root: np.random.SeedSequence, chunk: int) -> npt.NDArray[np.uint64]:
    """The bots' generator for a chunk: a stream apart from the dealer's."""
    child = np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, chunk, 1))
    return chunk_states(child, 0, 1)[0]
