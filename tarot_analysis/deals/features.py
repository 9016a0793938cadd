"""Hand features: what the deal alone decides about each hand and the dog.

Features are counted from the two-word bitmasks of :mod:`tarot_analysis.deals.deal` with popcounts,
in a compiled kernel, and handed to users as pandas frames with one row per hand.

>>> from tarot_analysis.game.cards import Hand
>>> from tarot_analysis.game.rules import load_rules
>>> hand = Hand.parse("21 19 12 6 1 E KH CH 10H 8H 1H JD 8D QC CC 7C 6S 4S")
>>> row = hand_features_of(hand, load_rules("fft-4"))
>>> row["bouts"], row["trumps"], row["poignee"], row["points"]
(3, 5, 0, 33.0)
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import numpy.typing as npt
import pandas as pd
from numba import njit

from tarot_analysis._jit import popcount
from tarot_analysis.game import cards
from tarot_analysis.game.rules import Rules

__all__ = [
    "FEATURES",
    "feature_index",
    "features_frame",
    "hand_features",
    "hand_features_of",
    "kernel_params",
]

#: The features of a hand, in the order of the last axis of :func:`hand_features`.
FEATURES: Final = (
    "trumps",  # trumps held, the Excuse not counted
    "excuse",
    "petit",
    "twenty_one",
    "bouts",
    "kings",
    "queens",
    "knights",
    "jacks",
    "spades",
    "hearts",
    "diamonds",
    "clubs",
    "voids",
    "singletons",
    "longest_suit",
    "half_points",  # card points × 2, so that they stay whole
    "poignee",  # 0 none, 1 simple, 2 double, 3 triple, under the preset's thresholds
    "petit_sec",  # the Petit is the only trump and there is no Excuse
)
N_FEATURES: Final = len(FEATURES)

_TRUMPS = np.uint64(cards.TRUMPS_MASK_HI)
_KINGS = np.uint64(cards.KINGS_MASK)
_QUEENS = np.uint64(cards.QUEENS_MASK)
_KNIGHTS = np.uint64(cards.KNIGHTS_MASK)
_JACKS = np.uint64(cards.JACKS_MASK)
_SPADES = np.uint64(cards.SUIT_MASKS[cards.SPADES])
_HEARTS = np.uint64(cards.SUIT_MASKS[cards.HEARTS])
_DIAMONDS = np.uint64(cards.SUIT_MASKS[cards.DIAMONDS])
_CLUBS = np.uint64(cards.SUIT_MASKS[cards.CLUBS])
_ONE = np.uint64(1)
_PETIT_SHIFT = np.uint64(cards.PETIT - cards.EXCUSE)
_TWENTY_ONE_SHIFT = np.uint64(cards.TWENTY_ONE - cards.EXCUSE)


def feature_index(name: str) -> int:
    """Position of feature ``name`` in :data:`FEATURES`."""
    return FEATURES.index(name)


def kernel_params(rules: Rules) -> npt.NDArray[np.int64]:
    """The numbers the feature kernel needs from ``rules``, as one int64 array.

    Poignée thresholds (simple, double, triple), then the half points of a bout, king, queen,
    knight, jack and other card.
    """
    points = rules.card_points
    half = [points.bout, points.king, points.queen, points.knight, points.jack, points.other]
    return np.array([*rules.poignee.thresholds, *(round(2 * p) for p in half)], dtype=np.int64)


@njit(inline="always")
def _is(flag: bool) -> int:
    return 1 if flag else 0


@njit(inline="always")
def write_features(lo: np.uint64, hi: np.uint64, out: Any, row: int, params: Any) -> None:
    """Count the features of the hand ``(lo, hi)`` into ``out[row, :]``."""
    trumps = popcount(hi & _TRUMPS)
    excuse = np.int64(hi & _ONE)
    petit = np.int64((hi >> _PETIT_SHIFT) & _ONE)
    twenty_one = np.int64((hi >> _TWENTY_ONE_SHIFT) & _ONE)
    bouts = excuse + petit + twenty_one
    kings = popcount(lo & _KINGS)
    queens = popcount(lo & _QUEENS)
    knights = popcount(lo & _KNIGHTS)
    jacks = popcount(lo & _JACKS)
    spades = popcount(lo & _SPADES)
    hearts = popcount(lo & _HEARTS)
    diamonds = popcount(lo & _DIAMONDS)
    clubs = popcount(lo & _CLUBS)
    voids = _is(spades == 0) + _is(hearts == 0) + _is(diamonds == 0) + _is(clubs == 0)
    singletons = _is(spades == 1) + _is(hearts == 1) + _is(diamonds == 1) + _is(clubs == 1)
    longest = max(max(spades, hearts), max(diamonds, clubs))
    other = params[8]
    n_cards = popcount(lo) + popcount(hi)
    half_points = (
        other * n_cards
        + (params[3] - other) * bouts
        + (params[4] - other) * kings
        + (params[5] - other) * queens
        + (params[6] - other) * knights
        + (params[7] - other) * jacks
    )
    with_excuse = trumps + excuse
    poignee = _is(with_excuse >= params[0]) + _is(with_excuse >= params[1])
    poignee += _is(with_excuse >= params[2])
    out[row, 0] = trumps
    out[row, 1] = excuse
    out[row, 2] = petit
    out[row, 3] = twenty_one
    out[row, 4] = bouts
    out[row, 5] = kings
    out[row, 6] = queens
    out[row, 7] = knights
    out[row, 8] = jacks
    out[row, 9] = spades
    out[row, 10] = hearts
    out[row, 11] = diamonds
    out[row, 12] = clubs
    out[row, 13] = voids
    out[row, 14] = singletons
    out[row, 15] = longest
    out[row, 16] = half_points
    out[row, 17] = poignee
    out[row, 18] = _is(trumps == 1 and petit == 1 and excuse == 0)


@njit(cache=True, nogil=True)
def features_kernel(masks: Any, out: Any, params: Any) -> None:
    """Features of every hand: ``masks`` is ``(n, 2)`` uint64, ``out`` is ``(n, F)`` uint8."""
    for row in range(masks.shape[0]):
        write_features(masks[row, 0], masks[row, 1], out, row, params)


def hand_features(masks: npt.NDArray[np.uint64], rules: Rules) -> npt.NDArray[np.uint8]:
    """Features of hands given as masks of shape ``(..., 2)``: an array of shape ``(..., F)``.

    The last axis follows :data:`FEATURES`.
    """
    masks = np.ascontiguousarray(masks, dtype=np.uint64)
    flat = masks.reshape(-1, 2)
    out = np.empty((flat.shape[0], N_FEATURES), dtype=np.uint8)
    features_kernel(flat, out, kernel_params(rules))
    return out.reshape(*masks.shape[:-1], N_FEATURES)


def features_frame(
    features: npt.NDArray[np.uint8], rules: Rules, *, first_deal: int = 0
) -> pd.DataFrame:
    """One row per hand of an ``(n_deals, groups, F)`` feature array, dog included.

    Columns: ``deal``, ``seat`` (0 .. players − 1, and ``players`` for the dog), ``is_dog``, the
    features (``points`` in card points instead of half points) and ``trumps_with_excuse``.
    """
    n_deals, groups, _ = features.shape
    frame = pd.DataFrame(features.reshape(-1, N_FEATURES), columns=list(FEATURES))
    frame.insert(0, "deal", np.repeat(np.arange(first_deal, first_deal + n_deals), groups))
    frame.insert(1, "seat", np.tile(np.arange(groups, dtype=np.uint8), n_deals))
    frame.insert(2, "is_dog", frame["seat"] == rules.players)
    frame["points"] = frame.pop("half_points").astype(np.float32) / 2
    frame["trumps_with_excuse"] = frame["trumps"] + frame["excuse"]
    return frame


def hand_features_of(hand: cards.Hand, rules: Rules) -> dict[str, Any]:
    """The features of one hand, as a dict (``points`` in card points)."""
    lo, hi = hand.mask
    row = hand_features(np.array([lo, hi], dtype=np.uint64), rules)
    named: dict[str, Any] = {name: int(value) for name, value in zip(FEATURES, row, strict=True)}
    named["points"] = named.pop("half_points") / 2
    return named
