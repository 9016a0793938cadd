"""A bootstrap over deals that adds up chunk by chunk: Poisson weights, one per deal and replicate.

The classical bootstrap draws the n deals of a run again, with replacement: each deal is then
drawn a Binomial(n, 1/n) number of times, which for the run sizes of this toolkit is a
Poisson(1) number to a precision no interval can see. Drawn independently per deal (the
"Poisson bootstrap"), the weights of a replicate need no knowledge of the other deals: every
chunk of a run computes its deals' weighted sums alone, and the sums of the chunks add up to
those of the whole run, whatever the chunking, the order or the machine.

The weight of deal ``d`` in replicate ``r`` is a function of the run's seed, ``d`` and ``r``
only (a counter-based draw: a SplitMix64 hash of the three, turned into Poisson(1) by its
inverse distribution function), so a run resumed, split or recomputed gives the same weights.

>>> weights = poisson_weights(7, np.arange(100_000), replicates=3)
>>> weights.shape, round(float(weights.mean()), 2), round(float(weights.var()), 2)
((3, 100000), 1.0, 0.99)
>>> bool((poisson_weights(7, np.arange(10, 20), 3) == weights[:, 10:20]).all())
True
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import numpy.typing as npt
from numba import njit

__all__ = ["REPLICATES", "poisson_weights", "replicate_sums", "weight_key"]

#: Bootstrap replicates of a guidance run: enough for 95% percentile intervals of its thresholds
#: to move by less than one count from one set of replicates to another.
REPLICATES: Final = 200

_GOLDEN: Final = np.uint64(0x9E3779B97F4A7C15)
_MIX_1: Final = np.uint64(0xBF58476D1CE4E5B9)
_MIX_2: Final = np.uint64(0x94D049BB133111EB)
_TO_UNIT: Final = 1.0 / 9007199254740992.0  # 2**-53
#: P(Poisson(1) ≤ k) for k = 0, 1, ...: e⁻¹ Σ 1/j!, to the last double.
_POISSON_CDF: Final = np.cumsum(
    np.exp(-1.0) / np.cumprod(np.concatenate([[1.0], np.arange(1.0, 20.0)]))
)


def weight_key(seed: int) -> np.uint64:
    """The key of a run's weights: from its seed, apart from every stream the deals draw."""
    return np.random.SeedSequence(seed, spawn_key=(0xB007,)).generate_state(1, np.uint64)[0]


@njit(cache=True)
def _mix(x: Any) -> Any:
    """SplitMix64's finaliser: a bijection of 64-bit words that spreads every input bit."""
    x = x + _GOLDEN
    x = (x ^ (x >> np.uint64(30))) * _MIX_1
    x = (x ^ (x >> np.uint64(27))) * _MIX_2
    return x ^ (x >> np.uint64(31))


@njit(cache=True)
def _weight(deal_word: Any, replicate: Any, cdf: Any) -> Any:
    """A deal's Poisson(1) weight in replicate ``replicate``, from the deal's word
    ``_mix(key ^ deal)``."""
    word = _mix(deal_word + np.uint64(replicate))
    unit = np.float64(word >> np.uint64(11)) * _TO_UNIT
    k = 0
    while k < cdf.shape[0] - 1 and unit >= cdf[k]:
        k += 1
    return k


@njit(cache=True)
def _weights(key: Any, deals: Any, replicates: Any, cdf: Any, out: Any) -> None:
    for i in range(deals.shape[0]):
        deal_word = _mix(key ^ np.uint64(deals[i]))
        for r in range(replicates):
            out[r, i] = _weight(deal_word, r, cdf)


@njit(cache=True)
def _sums(key: Any, deals: Any, groups: Any, values: Any, cdf: Any, out: Any) -> None:
    for i in range(deals.shape[0]):
        g = groups[i]
        deal_word = _mix(key ^ np.uint64(deals[i]))
        for r in range(out.shape[0]):
            w = _weight(deal_word, r, cdf)
            if w == 0:
                continue
            out[r, g, 0] += w
            for k in range(values.shape[1]):
                out[r, g, k + 1] += w * values[i, k]


def poisson_weights(seed: int, deals: npt.ArrayLike, replicates: int) -> npt.NDArray[np.int64]:
    """The weights of ``deals`` (deal numbers of a run of seed ``seed``), one row a replicate."""
    numbers = np.asarray(deals, dtype=np.int64)
    out = np.empty((replicates, len(numbers)), dtype=np.int64)
    _weights(weight_key(seed), numbers, np.int64(replicates), _POISSON_CDF, out)
    return out


def replicate_sums(
    seed: int,
    deals: npt.ArrayLike,
    groups: npt.ArrayLike,
    values: npt.ArrayLike,
    *,
    groups_count: int,
    replicates: int = REPLICATES,
) -> npt.NDArray[np.int64]:
    """Per replicate and group, the weighted number of deals and weighted sums of ``values``.

    ``groups``: each deal's group, ``0 .. groups_count - 1``; ``values``: whole numbers, one row
    per deal. The result has shape ``(replicates, groups_count, 1 + values columns)``, column 0
    the weighted count; sums of disjoint sets of deals add up.
    """
    numbers = np.asarray(deals, dtype=np.int64)
    table = np.asarray(values, dtype=np.int64).reshape(len(numbers), -1)
    out = np.zeros((replicates, groups_count, 1 + table.shape[1]), dtype=np.int64)
    _sums(weight_key(seed), numbers, np.asarray(groups, dtype=np.int64), table, _POISSON_CDF, out)
    return out
