"""Playing deals to the end from Python: the engine's kernel run chunk by chunk.

>>> from tarot_analysis.rules import load_rules
>>> result = play(load_rules("fft-4"), 200, seed=1)
>>> len(result.outcomes)
200
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
from tqdm.auto import tqdm

from tarot_analysis import cards
from tarot_analysis._jit import chunk_states, normalise_seed
from tarot_analysis.bots import bot_id
from tarot_analysis.deal import DEFAULT_CHUNK_SIZE, DealPlan, DealStream, deal_chunk, make_plan
from tarot_analysis.engine.core import first_refused_call, play_deals
from tarot_analysis.engine.outcome import (
    N_OUTCOME,
    OUTCOME_COLUMNS,
    REDEAL_ALL_PASSED,
    REDEAL_NONE,
    REDEAL_PETIT_SEC,
)
from tarot_analysis.engine.params import EngineRules, engine_rules
from tarot_analysis.engine.scoring import POINT_UNIT, SCORE_UNIT, score_outcomes, whole_units
from tarot_analysis.errors import TarotInputError
from tarot_analysis.rules import Rules
from tarot_analysis.simulate import map_chunks, run_metadata
from tarot_analysis.stats import wilson_interval

__all__ = ["ContractCounts", "PlayResult", "play", "play_counts", "play_given", "replay"]


@dataclass
class PlayResult:
    """Deals played to the end: the deals, their raw outcomes and, if kept, every trick."""

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
    metadata: dict[str, Any] = field(default_factory=dict)

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
        and each seat's poignée.
        """
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


def _bot_ids(
    bots: str | Sequence[str], players: int
) -> tuple[tuple[str, ...], npt.NDArray[np.int64]]:
    names = (bots,) * players if isinstance(bots, str) else tuple(bots)
    if len(names) != players:
        raise TarotInputError(f"{players} bots were expected (one per seat), got {len(names)}")
    return names, np.array([bot_id(name) for name in names], dtype=np.int64)


@dataclass
class _Table:
    """Everything fixed for a run: rules, bots, forced contracts, seed and chunking."""

    rules: Rules
    names: tuple[str, ...]
    ids: npt.NDArray[np.int64]
    engine: EngineRules
    plan: DealPlan
    root: np.random.SeedSequence
    chunk_size: int
    forced: npt.NDArray[np.int64]

    def empty(self, n: int, keep_tricks: bool) -> PlayResult:
        rules = self.rules
        kept = n if keep_tricks else 0
        return PlayResult(
            rules=rules, bots=self.names, seed=self.root, chunk_size=self.chunk_size,
            masks=np.zeros((n, self.plan.groups, 2), dtype=np.uint64),
            outcomes=np.zeros((n, N_OUTCOME), dtype=np.int32),
            poignees=np.zeros((n, rules.players), dtype=np.int8),
            # zeros, not garbage, where a redealt deal plays no trick: same seed, same bytes
            tricks=np.zeros((kept, rules.hand_size, rules.players), dtype=np.int8),
            leaders=np.zeros((kept, rules.hand_size + 1), dtype=np.int8),
            ecarts=np.zeros((kept, 2), dtype=np.uint64),
            bids=np.zeros((kept, rules.players), dtype=np.int8),
        )  # fmt: skip

    def chunk_sizes(self, deals: int) -> dict[int, int]:
        """The deals of each chunk of a run of ``deals`` deals, by chunk."""
        size = self.chunk_size
        return {chunk: min(size, deals - chunk * size) for chunk in range(-(-deals // size))}

    def play_chunk(self, chunk: int, result: PlayResult, start: int, stop: int) -> None:
        """Deals ``start .. stop`` of chunk ``chunk`` (counted from the chunk's first deal)
        into ``result`` rows ``0 .. stop − start`` — the deals before ``start`` are played too,
        since the chunk's streams run through them."""
        n = stop
        if start == 0 and len(result.outcomes) == n:
            scratch = result
        else:
            keep = result.tricks is not None and len(result.tricks) > 0
            scratch = self.empty(n, keep_tricks=keep)
        first = chunk * self.chunk_size
        deal_chunk(self.plan, DealStream.open(self.plan, self.root, chunk), n, scratch.masks)
        _check_forced_calls(self.rules, scratch.masks, self.forced[first : first + n], first)
        assert scratch.tricks is not None and scratch.leaders is not None
        assert scratch.ecarts is not None and scratch.bids is not None
        play_deals(
            scratch.masks, self.ids, self.forced[first : first + n], self.engine.params,
            self.engine.contract_dog, self.engine.half_points, _bot_rng(self.root, chunk),
            scratch.outcomes, scratch.poignees, scratch.tricks, scratch.leaders,
            scratch.ecarts, scratch.bids, _NO_SCRIPT, _NO_SCRIPT_ECART,
        )  # fmt: skip
        if scratch is not result:
            _copy_rows(scratch, start, stop, result)


_NO_SCRIPT = np.empty((0, 1, 1), dtype=np.int64)
_NO_SCRIPT_ECART = np.empty((0, 2), dtype=np.uint64)


def play_given(
    rules: Rules,
    hands: Sequence[Sequence[str]],
    *,
    bots: str | Sequence[str] = "random",
    seed: int | np.random.SeedSequence | None = None,
    forced: npt.ArrayLike | None = None,
    script: Sequence[Sequence[Sequence[str | None]]] | None = None,
    ecart: Sequence[str | None] | None = None,
) -> PlayResult:
    """Play deals given in the hand notation, optionally card by card: a known deal replayed.

    ``hands[d]`` holds one string per seat and then the dog. ``script[d][t][seat]`` names
    the card ``seat`` plays at trick ``t`` (``None`` or ``""``: its bot chooses); ``ecart[d]``
    the taker's écart. A scripted card that breaks a rule raises ``TarotInputError``.
    """
    masks = np.zeros((len(hands), rules.players + 1, 2), dtype=np.uint64)
    for d, deal in enumerate(hands):
        if len(deal) != rules.players + 1:
            raise TarotInputError(f"deal {d}: {rules.players} hands and a dog were expected")
        seen: set[int] = set()
        for group, text in enumerate(deal):
            held = cards.parse_cards(text)
            if seen & set(held):
                raise TarotInputError(f"deal {d}: a card is dealt twice")
            seen |= set(held)
            masks[d, group] = cards.to_mask(held)
        if len(seen) != cards.N_CARDS:
            raise TarotInputError(f"deal {d}: {len(seen)} cards dealt, 78 expected")
    table = _table(rules, len(hands), bots, seed, forced, len(hands))
    _check_forced_calls(rules, masks, table.forced, 0)
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
    assert result.tricks is not None and result.leaders is not None
    assert result.ecarts is not None and result.bids is not None
    try:
        play_deals(
            result.masks, table.ids, table.forced, table.engine.params, table.engine.contract_dog,
            table.engine.half_points, _bot_rng(table.root, 0), result.outcomes, result.poignees,
            result.tricks, result.leaders, result.ecarts, result.bids, moves, discards,
        )  # fmt: skip
    except ValueError as error:
        raise TarotInputError(str(error)) from None
    result.metadata = run_metadata(rules, table.root, len(hands), len(hands)) | {
        "bots": list(table.names)
    }
    return result


def _copy_rows(source: PlayResult, start: int, stop: int, target: PlayResult) -> None:
    for name in ("masks", "outcomes", "poignees", "tricks", "leaders", "ecarts", "bids"):
        rows = getattr(source, name)
        if rows is not None and len(rows):
            getattr(target, name)[: stop - start] = rows[start:stop]


def _table(
    rules: Rules,
    deals: int,
    bots: str | Sequence[str],
    seed: int | np.random.SeedSequence | None,
    forced: npt.ArrayLike | None,
    chunk_size: int,
    hand: cards.Hand | str | None = None,
    seat: int | None = None,
) -> _Table:
    if rules.tarocco is not None:
        raise TarotInputError(
            f"{rules.name}: Tarocco deals are played by "
            "tarot_analysis.engine.tarocco.play_tarocco_run, not by this engine"
        )
    if deals < 1:
        raise TarotInputError(f"the number of deals must be at least 1, got {deals}")
    if chunk_size < 1:
        raise TarotInputError(f"chunk size must be at least 1, got {chunk_size}")
    names, ids = _bot_ids(bots, rules.players)
    return _Table(
        rules=rules, names=names, ids=ids, engine=engine_rules(rules),
        plan=make_plan(rules, seat=seat, hand=hand), root=normalise_seed(seed),
        chunk_size=chunk_size, forced=_forced(forced, deals, rules),
    )  # fmt: skip


def play(
    rules: Rules,
    deals: int,
    *,
    bots: str | Sequence[str] = "random",
    seed: int | np.random.SeedSequence | None = None,
    forced: npt.ArrayLike | None = None,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
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
    ``client``: a Dask client (:mod:`tarot_analysis.cluster`) whose workers play the chunks;
    the result is the same as on local threads.
    """
    table = _table(rules, deals, bots, seed, forced, chunk_size, hand, seat)
    result = table.empty(deals, keep_tricks)
    sizes = table.chunk_sizes(deals)

    def work(chunk: int) -> int:
        start = chunk * chunk_size
        view = _rows(result, start, start + sizes[chunk], keep_tricks)
        table.play_chunk(chunk, view, 0, sizes[chunk])
        return chunk

    def remote(chunk: int) -> tuple[int, PlayResult]:
        part = table.empty(sizes[chunk], keep_tricks)
        table.play_chunk(chunk, part, 0, sizes[chunk])
        return chunk, part

    bar = tqdm(total=deals, unit="deal", unit_scale=True, disable=not progress, desc=rules.name)
    with bar:
        if client is None:  # threads write their chunks into the result in place
            for _ in map_chunks(
                work, sizes, threads=threads, progress=bar, progress_step=sizes.__getitem__
            ):
                pass
        else:  # workers send their chunks back; ``remote`` holds no reference to the result
            for chunk, part in map_chunks(
                remote, sizes, client=client, progress=bar,
                progress_step=lambda done: sizes[done[0]],
            ):  # fmt: skip
                start = chunk * chunk_size
                view = _rows(result, start, start + sizes[chunk], keep_tricks)
                _copy_rows(part, 0, sizes[chunk], view)
    result.metadata = run_metadata(rules, table.root, chunk_size, deals) | {
        "bots": list(table.names)
    }
    if not keep_tricks:
        result.tricks = result.leaders = result.ecarts = result.bids = None
    return result


def play_counts(
    rules: Rules,
    deals: int,
    *,
    bots: str | Sequence[str] = "random",
    seed: int | np.random.SeedSequence | None = None,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    threads: int | None = None,
    progress: bool = False,
    client: Any = None,
) -> tuple[ContractCounts, dict[str, Any]]:
    """Play ``deals`` deals as :func:`play` does, keeping only each chunk's contract counts.

    Memory stays that of a few chunks whatever ``deals``: the deals and their outcomes are
    forgotten once counted. The counts equal those of ``play(...).counts()``. Returns them
    with the run's metadata.
    """
    table = _table(rules, deals, bots, seed, None, chunk_size)
    sizes = table.chunk_sizes(deals)

    def count(chunk: int) -> ContractCounts:
        part = table.empty(sizes[chunk], keep_tricks=False)
        table.play_chunk(chunk, part, 0, sizes[chunk])
        return part.counts()

    total: ContractCounts | None = None
    bar = tqdm(total=deals, unit="deal", unit_scale=True, disable=not progress, desc=rules.name)
    with bar:
        for counts in map_chunks(
            count, sizes, threads=threads, progress=bar, progress_step=lambda c: c.deals,
            client=client,
        ):  # fmt: skip
            total = counts if total is None else total + counts
    assert total is not None
    metadata = run_metadata(rules, table.root, chunk_size, deals) | {
        "bots": list(table.names),
        "rows": False,
    }
    return total, metadata


def replay(
    rules: Rules,
    deal: int,
    *,
    bots: str | Sequence[str] = "random",
    seed: int | np.random.SeedSequence | None = None,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
) -> PlayResult:
    """Deal number ``deal`` of the run ``play(rules, …, seed=seed)``, with every trick.

    Only the deal's own chunk is played, up to the deal, so this is quick at any position.
    """
    if deal < 0:
        raise TarotInputError(f"the deal number must be 0 or more, got {deal}")
    table = _table(rules, deal + 1, bots, seed, None, chunk_size)
    chunk, offset = divmod(deal, chunk_size)
    result = table.empty(1, keep_tricks=True)
    table.play_chunk(chunk, result, offset, offset + 1)
    result.metadata = run_metadata(rules, table.root, chunk_size, deal + 1) | {
        "bots": list(table.names),
        "deal": deal,
    }
    return result


def _rows(result: PlayResult, start: int, stop: int, keep_tricks: bool) -> PlayResult:
    """A view of rows ``start .. stop`` of ``result`` (the arrays are shared)."""
    kept = (start, stop) if keep_tricks else (0, 0)
    assert result.tricks is not None and result.leaders is not None
    assert result.ecarts is not None and result.bids is not None
    return PlayResult(
        rules=result.rules, bots=result.bots, seed=result.seed, chunk_size=result.chunk_size,
        masks=result.masks[start:stop], outcomes=result.outcomes[start:stop],
        poignees=result.poignees[start:stop], tricks=result.tricks[slice(*kept)],
        leaders=result.leaders[slice(*kept)], ecarts=result.ecarts[slice(*kept)],
        bids=result.bids[slice(*kept)],
    )  # fmt: skip


def _bot_rng(root: np.random.SeedSequence, chunk: int) -> npt.NDArray[np.uint64]:
    """The bots' generator for a chunk: a stream apart from the dealer's."""
    child = np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, chunk, 1))
    return chunk_states(child, 0, 1)[0]


def _forced(forced: npt.ArrayLike | None, deals: int, rules: Rules) -> npt.NDArray[np.int64]:
    if forced is None:
        return np.full((deals, 4), -1, dtype=np.int64)
    rows = np.asarray(forced, dtype=np.int64)
    if rows.ndim == 1:
        rows = np.broadcast_to(rows, (deals, rows.shape[0]))
    if rows.shape != (deals, 4):
        raise TarotInputError(f"forced contracts must have shape ({deals}, 4), got {rows.shape}")
    takers, contracts = rows[:, 0], rows[:, 1]
    if np.any(takers >= rules.players) or np.any(
        (takers >= 0) & ((contracts < 0) | (contracts >= len(rules.contracts)))
    ):
        raise TarotInputError("a forced taker needs a seat and a contract of the rules")
    for which in (1, 2):
        called = rows[:, 1 + which]
        asked = called >= 0
        if not asked.any():
            continue
        if which > rules.called_cards:
            deal = int(np.flatnonzero(asked)[0])
            told = "no card" if rules.called_cards == 0 else "one card"
            raise TarotInputError(
                f"{rules.name}: the taker calls {told} (call = {rules.call!r}), so the forced "
                f"call {_card_text(int(called[deal]))} is impossible (deal {deal})"
            )
        impossible = asked & (called >= cards.N_SUIT_CARDS)
        if which == 2:
            kings = cards.IS_KING[np.clip(called, 0, cards.N_CARDS - 1)]
            impossible |= asked & ((called == rows[:, 2]) | kings)
        if impossible.any():
            deal = int(np.flatnonzero(impossible)[0])
            card = int(called[deal])
            raise TarotInputError(
                f"{rules.name}: the forced call {_card_text(card)} is impossible: "
                f"{_static_call_problem(card, int(rows[deal, 2]), which)} (deal {deal})"
            )
        if which == 2 and np.any(asked & (rows[:, 2] < 0)):
            deal = int(np.flatnonzero(asked & (rows[:, 2] < 0))[0])
            raise TarotInputError(
                f"{rules.name}: a forced second call needs a forced first call (deal {deal})"
            )
        if np.any(asked & (takers < 0)):
            deal = int(np.flatnonzero(asked & (takers < 0))[0])
            raise TarotInputError(
                f"{rules.name}: a forced call needs a forced taker, since what may be called "
                f"depends on the taker's hand (deal {deal})"
            )
    return np.ascontiguousarray(rows)


def _card_text(card: int) -> str:
    return cards.card_name(card) if 0 <= card < cards.N_CARDS else f"{card} (not a card id)"


def _static_call_problem(card: int, called_1: int, which: int) -> str:
    """Why ``card`` can never be called as call number ``which``, whatever the hand ("": it can
    be, for some hand)."""
    if not 0 <= card < cards.N_CARDS:
        return "it is not a card id (0 to 77)"
    if card >= cards.N_SUIT_CARDS:
        return "only a suit card may be called, never a trump or the Excuse"
    if which == 2 and card == called_1:
        return "the two called cards are two different cards"
    if which == 2 and cards.IS_KING[card]:
        return "the second call is never a king (never two kings)"
    return ""


def _check_forced_calls(
    rules: Rules, masks: npt.NDArray[np.uint64], forced: npt.NDArray[np.int64], first: int
) -> None:
    """Refuse a forced call that the preset's call rule does not allow for the forced taker's
    hand (deal ``first + d`` for row ``d``), naming the deal, the card and the rule."""
    if rules.called_cards == 0 or not np.any(forced[:, 2:] >= 0):
        return
    deal, which = first_refused_call(masks, forced, engine_rules(rules).params)
    if deal < 0:
        return
    row = forced[deal]
    taker = int(row[0])
    lo = int(masks[deal, taker, 0])
    card = int(row[1 + which])
    if which == 1:
        # Each rank held whole sends the call down to the next: king, queen, knight, jack.
        ranks = ("king", "queen", "knight", "jack")
        whole = 0
        for mask in (cards.KINGS_MASK, cards.QUEENS_MASK, cards.KNIGHTS_MASK):
            if lo & mask != mask:
                break
            whole += 1
        rule = f"the taker calls a {ranks[whole]}"
        if whole and rules.call_holding_all_kings == "any_suit_card":
            rule = f"seat {taker} holds all four kings, so calls any suit card"
        elif whole:
            holding = " and ".join(f"all four {rank}s" for rank in ranks[:whole])
            rule = f"seat {taker} holds {holding}, so calls a {ranks[whole]}"
    elif lo & cards.QUEENS_MASK == cards.QUEENS_MASK:
        rule = (
            f"seat {taker} holds all four queens, so the second call is a knight, a jack or a "
            "low suit card, not already called"
        )
    else:
        rule = "the second call is a queen other than the first call"
    raise TarotInputError(
        f"{rules.name}, deal {first + deal}: the forced call {cards.card_name(card)} is not "
        f"allowed: {rule}"
    )
