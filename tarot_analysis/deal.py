"""The dealer: millions of uniformly random deals per second, as bitmasks.

A deal is an array of shape ``(groups, 2)`` of uint64: one row per seat, then one for the dog
(the cards left over: the dog in French presets, the dealer's six extra cards in Tarocco). Row
``(lo, hi)`` holds suit cards in ``lo`` at bit ``card id`` and the Excuse and trumps in ``hi`` at
bit ``card id − 56`` (see :mod:`tarot_analysis.cards`).

Every deal is equally likely. The kernel runs a Fisher–Yates shuffle of the cards still to
place, stopping once every group but the largest is filled (the largest takes what is left),
so each way of splitting the pack into hands and dog has the same probability. Packets of 3
or 4 and the rule that a dog card is never the top or bottom card of the pack only change
*which* positions of a shuffled pack reach each hand; with a uniform shuffle every such
assignment gives the same distribution, so the kernel fills hands directly.

A run of ``n`` deals is cut into chunks of ``chunk_size`` deals fixed by the run, not by the
machine; chunk *k* draws from ``SeedSequence(seed, spawn_key=(k,))``. The same seed gives the
same deals on one thread, many threads or many machines.

>>> from tarot_analysis.rules import load_rules
>>> deals = deal(load_rules("fft-4"), 1000, seed=1)
>>> deals.masks.shape
(1000, 5, 2)
>>> sorted(len(deals.hand(0, seat)) for seat in range(5))
[6, 18, 18, 18, 18]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import numpy as np
import numpy.typing as npt
from numba import njit

from tarot_analysis import cards
from tarot_analysis._jit import (
    LOW_32,
    SHIFT_32,
    bounded,
    chunk_states,
    normalise_seed,
    xoshiro_next,
)
from tarot_analysis.errors import TarotInputError
from tarot_analysis.features import (
    FEATURES,
    N_FEATURES,
    hand_features,
    kernel_params,
    write_features,
)
from tarot_analysis.rules import Rules

__all__ = [
    "DEFAULT_CHUNK_SIZE",
    "DealPlan",
    "DealStream",
    "Deals",
    "deal",
    "deal_chunk",
    "deal_features",
    "make_plan",
]

#: Deals per chunk unless a run says otherwise: large enough that a chunk takes milliseconds,
#: small enough that a progress bar moves and an interrupted run loses little.
DEFAULT_CHUNK_SIZE: Final = 1 << 16

# A card's place in a pair of 64-bit words is its "slot": the id itself for suit cards, 64 plus
# (id − 56) for the Excuse and trumps. Bit tables by slot let the kernel set either word without
# a branch.
_SLOT_OF_CARD = np.array(
    [card if card < cards.N_SUIT_CARDS else 64 + card - cards.EXCUSE for card in range(78)],
    dtype=np.uint8,
)
_LO_BIT = np.zeros(128, dtype=np.uint64)
_HI_BIT = np.zeros(128, dtype=np.uint64)
for _slot in range(64):
    _LO_BIT[_slot] = np.uint64(1) << np.uint64(_slot)
    _HI_BIT[64 + _slot] = np.uint64(1) << np.uint64(_slot)

#: A hand constraint that keeps fewer deals than this is refused rather than left to spin.
MAX_TRIES_PER_DEAL: Final = 1_000_000


@dataclass(frozen=True)
class DealPlan:
    """How the kernel fills the groups of one preset: the arrays it reads, built once."""

    rules: Rules
    sizes: tuple[int, ...]  # cards per group: seats, then the dog
    pool: npt.NDArray[np.uint8]  # slots of the cards to shuffle (the fixed hand removed)
    closes: npt.NDArray[np.uint8]  # per drawn position: 1 + the group it completes, or 0
    last_group: int  # the group that takes the cards left after the draws
    fixed_seat: int  # −1, or the seat whose hand is given
    fixed_mask: tuple[int, int]
    pool_mask: tuple[int, int]
    check_seat: int  # −1, or the seat whose features must fall within bounds
    bounds: npt.NDArray[np.int64]  # (2, F): lowest and highest accepted value of each feature
    params: npt.NDArray[np.int64] = field(repr=False)

    @property
    def groups(self) -> int:
        """Seats plus the dog."""
        return len(self.sizes)


def make_plan(
    rules: Rules,
    *,
    seat: int | None = None,
    hand: cards.Hand | Sequence[int] | str | None = None,
    where: Mapping[str, int | tuple[int | None, int | None]] | None = None,
) -> DealPlan:
    """Plan the deals of ``rules``, optionally around a given hand or with a constraint.

    ``hand`` fixes the cards of ``seat`` (default 0); ``where`` keeps only deals whose ``seat``
    features fall within bounds, e.g. ``{"bouts": 2, "trumps": (8, None)}``.
    """
    sizes = (*([rules.hand_size] * rules.players), rules.dog_size)
    if seat is not None and not 0 <= seat < rules.players:
        raise TarotInputError(f"seat must be between 0 and {rules.players - 1}, got {seat}")
    target = 0 if seat is None else seat

    fixed_seat, fixed_mask = -1, (0, 0)
    remaining = list(range(cards.N_CARDS))
    if hand is not None:
        fixed = hand if isinstance(hand, cards.Hand) else cards.Hand(hand)
        if len(fixed) != rules.hand_size:
            raise TarotInputError(
                f"a hand of {rules.hand_size} cards was expected for {rules.name}, got {len(fixed)}"
            )
        fixed_seat, fixed_mask = target, fixed.mask
        held = set(fixed.cards)
        remaining = [card for card in remaining if card not in held]

    drawn = [g for g in range(len(sizes)) if g != fixed_seat and sizes[g] > 0]
    last_group = max(drawn, key=lambda g: (sizes[g], g)) if drawn else -1
    closes: list[int] = []
    for g in drawn:
        if g != last_group:
            closes.extend([0] * (sizes[g] - 1) + [g + 1])

    bounds = np.array([[0] * N_FEATURES, [255] * N_FEATURES], dtype=np.int64)
    check_seat = -1
    if where:
        check_seat = target
        for name, accepted in where.items():
            if name not in FEATURES:
                known = ", ".join(FEATURES)
                raise TarotInputError(
                    f"unknown feature {name!r} in a deal constraint; known: {known}"
                )
            low, high = (accepted, accepted) if isinstance(accepted, int) else accepted
            index = FEATURES.index(name)
            bounds[0, index] = 0 if low is None else low
            bounds[1, index] = 255 if high is None else high
            if bounds[0, index] > bounds[1, index]:
                raise TarotInputError(f"constraint on {name!r} accepts nothing: {accepted!r}")

    pool_lo, pool_hi = cards.to_mask(remaining)
    return DealPlan(
        rules=rules,
        sizes=sizes,
        pool=_SLOT_OF_CARD[remaining].copy(),
        closes=np.array(closes, dtype=np.uint8),
        last_group=last_group,
        fixed_seat=fixed_seat,
        fixed_mask=fixed_mask,
        pool_mask=(pool_lo, pool_hi),
        check_seat=check_seat,
        bounds=bounds,
        params=kernel_params(rules),
    )


@njit(inline="always")
def _place(
    a: Any,
    i: np.uint64,
    x32: np.uint64,
    size: np.uint64,
    s0: np.uint64,
    s1: np.uint64,
    s2: np.uint64,
    s3: np.uint64,
) -> tuple[np.uint8, np.uint64, np.uint64, np.uint64, np.uint64]:
    """One Fisher–Yates step: a uniformly chosen card of ``a[i:]`` moves to position ``i``."""
    offset, s0, s1, s2, s3 = bounded(x32, size - i, s0, s1, s2, s3)
    j = i + offset
    card = a[j]
    a[j] = a[i]
    a[i] = card
    return card, s0, s1, s2, s3


@njit(cache=True, nogil=True)
def _deal_kernel(
    state: Any,
    a: Any,
    out: Any,
    closes: Any,
    last_group: int,
    fixed_seat: int,
    fixed_lo: np.uint64,
    fixed_hi: np.uint64,
    pool_lo: np.uint64,
    pool_hi: np.uint64,
    check_seat: int,
    bounds: Any,
    params: Any,
    lo_bit: Any,
    hi_bit: Any,
    max_tries: int,
) -> int:
    """Fill ``out`` (n, groups, 2) with deals; return how many deals a constraint rejected.

    ``state`` (the generator) and ``a`` (the order of the pack the shuffle left) are advanced
    in place, so that dealing a chunk in several calls gives the deals of one call. Returns −1
    if one deal needed more than ``max_tries`` attempts.
    """
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    size = np.uint64(a.shape[0])
    n_draws = np.uint64(closes.shape[0])
    zero = np.uint64(0)
    one = np.uint64(1)
    scratch = np.empty((1, bounds.shape[1]), dtype=np.uint8)
    rejected = 0
    for d in range(out.shape[0]):
        tries = 0
        while True:
            lo = zero
            hi = zero
            used_lo = zero
            used_hi = zero
            i = zero
            while i < n_draws:
                # Two draws from each 64 random bits: the low half, then the high half. The two
                # steps are written out: as one shared inline function numba deals half as fast.
                u, s0, s1, s2, s3 = xoshiro_next(s0, s1, s2, s3)
                card, s0, s1, s2, s3 = _place(a, i, u & LOW_32, size, s0, s1, s2, s3)
                lo |= lo_bit[card]
                hi |= hi_bit[card]
                group = closes[i]
                if group:
                    out[d, group - 1, 0] = lo
                    out[d, group - 1, 1] = hi
                    used_lo |= lo
                    used_hi |= hi
                    lo = zero
                    hi = zero
                i += one
                if i == n_draws:
                    break
                card, s0, s1, s2, s3 = _place(a, i, u >> SHIFT_32, size, s0, s1, s2, s3)
                lo |= lo_bit[card]
                hi |= hi_bit[card]
                group = closes[i]
                if group:
                    out[d, group - 1, 0] = lo
                    out[d, group - 1, 1] = hi
                    used_lo |= lo
                    used_hi |= hi
                    lo = zero
                    hi = zero
                i += one
            if last_group >= 0:
                out[d, last_group, 0] = pool_lo ^ used_lo
                out[d, last_group, 1] = pool_hi ^ used_hi
            if fixed_seat >= 0:
                out[d, fixed_seat, 0] = fixed_lo
                out[d, fixed_seat, 1] = fixed_hi
            if check_seat < 0:
                break
            write_features(out[d, check_seat, 0], out[d, check_seat, 1], scratch, 0, params)
            accepted = True
            for f in range(bounds.shape[1]):
                value = scratch[0, f]
                if value < bounds[0, f] or value > bounds[1, f]:
                    accepted = False
                    break
            if accepted:
                break
            rejected += 1
            tries += 1
            if tries >= max_tries:
                state[0], state[1], state[2], state[3] = s0, s1, s2, s3
                return -1
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3
    return rejected


@dataclass
class DealStream:
    """Where the dealing of one chunk stands: its generator and the order of the pack.

    Both carry over from one call of :func:`deal_chunk` to the next.
    """

    state: npt.NDArray[np.uint64]
    order: npt.NDArray[np.uint8]

    @classmethod
    def open(cls, plan: DealPlan, root: np.random.SeedSequence, chunk: int) -> DealStream:
        """The stream of chunk ``chunk`` of the run seeded by ``root``."""
        return cls(chunk_states(root, chunk, 1)[0], plan.pool.copy())


def deal_chunk(
    plan: DealPlan,
    stream: DealStream,
    n: int,
    out: npt.NDArray[np.uint64] | None = None,
) -> tuple[npt.NDArray[np.uint64], int]:
    """Deal the next ``n`` deals of ``stream`` (advanced in place): masks and rejections.

    ``out``, if given, is a zeroed ``(n, groups, 2)`` array to fill (rows of empty groups are
    never written); dealing into the same buffer again reuses it.
    """
    if out is None:
        out = np.zeros((n, plan.groups, 2), dtype=np.uint64)
    rejected = _deal_kernel(
        stream.state, stream.order, out, plan.closes, plan.last_group,
        plan.fixed_seat, np.uint64(plan.fixed_mask[0]), np.uint64(plan.fixed_mask[1]),
        np.uint64(plan.pool_mask[0]), np.uint64(plan.pool_mask[1]),
        plan.check_seat, plan.bounds, plan.params, _LO_BIT, _HI_BIT, MAX_TRIES_PER_DEAL,
    )  # fmt: skip
    if rejected < 0:
        raise TarotInputError(
            f"the deal constraint kept no deal in {MAX_TRIES_PER_DEAL:,} tries: it is impossible "
            "or too rare to sample by rejection"
        )
    return out, rejected


@dataclass(frozen=True)
class Deals:
    """A batch of deals of one preset, with what it takes to deal them again."""

    rules: Rules
    masks: npt.NDArray[np.uint64]  # (n, groups, 2)
    seed: np.random.SeedSequence
    chunk_size: int
    rejected: int = 0  # deals a constraint threw away

    def __len__(self) -> int:
        return int(self.masks.shape[0])

    def hand(self, deal: int, seat: int) -> cards.Hand:
        """The hand of ``seat`` in deal ``deal`` (seat ``players`` is the dog)."""
        lo, hi = self.masks[deal, seat]
        return cards.Hand.from_mask(int(lo), int(hi))

    def dog(self, deal: int) -> cards.Hand:
        """The dog of deal ``deal``."""
        return self.hand(deal, self.rules.players)

    def features(self) -> npt.NDArray[np.uint8]:
        """Features of every hand and dog: shape ``(n, groups, F)``, see ``FEATURES``."""
        return hand_features(self.masks, self.rules)

    def describe(self, deal: int) -> str:
        """Deal ``deal`` in the hand notation, one line per seat and the dog."""
        lines = [f"{self.rules.name} deal {deal}"]
        for seat in range(self.rules.players + 1):
            label = "dog" if seat == self.rules.players else f"seat {seat}"
            lines.append(f"  {label:>7}: {self.hand(deal, seat)}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        shown = min(len(self), 3)
        parts = [
            f"<p><b>{len(self):,} deals</b> of <code>{self.rules.name}</code>, "
            f"seed {self.seed.entropy}, chunks of {self.chunk_size:,}</p>"
        ]
        for d in range(shown):
            rows = "".join(
                f"<tr><th>{'dog' if s == self.rules.players else f'seat {s}'}</th>"
                f"<td>{self.hand(d, s)._repr_html_()}</td></tr>"
                for s in range(self.rules.players + 1)
            )
            parts.append(f"<details><summary>deal {d}</summary><table>{rows}</table></details>")
        return "".join(parts)


def deal(
    rules: Rules,
    n: int,
    seed: int | np.random.SeedSequence | np.random.Generator | None = None,
    *,
    seat: int | None = None,
    hand: cards.Hand | Sequence[int] | str | None = None,
    where: Mapping[str, int | tuple[int | None, int | None]] | None = None,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    threads: int | None = None,
    client: Any = None,
) -> Deals:
    """Deal ``n`` deals of ``rules`` from ``seed``.

    ``hand`` fixes the cards of ``seat``; ``where`` keeps deals whose ``seat`` features fall in
    bounds. The result does not depend on ``threads`` (default: every core), nor on ``client``
    (a Dask client whose workers deal the chunks).
    """
    from tarot_analysis.simulate import map_chunks

    if n < 0:
        raise TarotInputError(f"the number of deals must be positive, got {n}")
    if chunk_size < 1:
        raise TarotInputError(f"chunk size must be at least 1, got {chunk_size}")
    plan = make_plan(rules, seat=seat, hand=hand, where=where)
    root = normalise_seed(seed)
    n_chunks = -(-n // chunk_size)
    masks = np.empty((n, plan.groups, 2), dtype=np.uint64)
    rejected = 0

    def work(chunk: int) -> tuple[int, npt.NDArray[np.uint64], int]:
        start = chunk * chunk_size
        stop = min(n, start + chunk_size)
        out, dropped = deal_chunk(plan, DealStream.open(plan, root, chunk), stop - start)
        return chunk, out, dropped

    for chunk, out, dropped in map_chunks(work, range(n_chunks), threads=threads, client=client):
        masks[chunk * chunk_size : chunk * chunk_size + len(out)] = out
        rejected += dropped
    return Deals(rules=rules, masks=masks, seed=root, chunk_size=chunk_size, rejected=rejected)


def deal_features(
    rules: Rules,
    n: int,
    seed: int | np.random.SeedSequence | np.random.Generator | None = None,
    *,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    threads: int | None = None,
    out: npt.NDArray[np.uint8] | None = None,
) -> npt.NDArray[np.uint8]:
    """Deal ``n`` deals and return only their features, shape ``(n, groups, F)``.

    The deals are those of :func:`deal` with the same seed and chunk size; the masks live only
    in small per-thread buffers, so this is the fast path when features are all that is needed.
    ``out`` may be given to fill an existing array.
    """
    import threading

    from tarot_analysis.features import features_kernel
    from tarot_analysis.simulate import map_chunks

    plan = make_plan(rules)
    root = normalise_seed(seed)
    if out is None:
        out = np.empty((n, plan.groups, N_FEATURES), dtype=np.uint8)
    local = threading.local()
    block = 4096

    def work(chunk: int) -> int:
        start = chunk * chunk_size
        stop = min(n, start + chunk_size)
        stream = DealStream.open(plan, root, chunk)
        masks = getattr(local, "masks", None)
        if masks is None:
            masks = local.masks = np.zeros((block, plan.groups, 2), dtype=np.uint64)
        for first in range(start, stop, block):
            size = min(block, stop - first)
            deal_chunk(plan, stream, size, masks[:size])
            features_kernel(
                masks[:size].reshape(-1, 2),
                out[first : first + size].reshape(-1, N_FEATURES),
                plan.params,
            )
        return chunk

    for _ in map_chunks(work, range(-(-n // chunk_size)), threads=threads):
        pass
    return out
