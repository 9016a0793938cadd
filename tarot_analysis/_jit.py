"""Building blocks of the compiled core: a popcount, a fast generator, and chunk seeding.

Kernels take plain arrays and integers, never Python objects. Randomness comes from
xoshiro256** (Blackman and Vigna), one independent stream per chunk, each seeded from
``numpy.random.SeedSequence(entropy, spawn_key=(chunk,))``: chunk *i* draws the same numbers
whichever thread, process or machine runs it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, cast

import numpy as np
import numpy.typing as npt
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from tarot_analysis.errors import TarotInputError

#: Compile options of the game state's, the table's and the bots' functions: cached, and
#: without numba's reference counting of arrays (``_nrt=False``). They allocate no array, and
#: counting the references of the arrays a call passes takes two atomic operations for each:
#: measured, 40% of the time of a deal stepped through the game state. A function that
#: allocates, or returns an array, must not use these options.
KERNEL: Final[dict[str, Any]] = {"cache": True, "_nrt": False}

# Compiled code that passes a constant (a literal ``0``, ``False``, a module constant) to
# another compiled function compiles that function once more, for that constant, and so does
# a counter set to ``0`` before a loop: numba types the first pass over the loop with the
# literal. The large kernels (the solver's search, the pimc bot's search and play-outs, the
# table's decisions and deal start, the heuristic's card play) are called with
# ``np.int64(...)`` or ``np.bool_(...)`` there instead: one compilation each, where there
# were up to six.

__all__ = [
    "bounded",
    "chunk_lane_states",
    "chunk_seed_sequence",
    "chunk_states",
    "draw_below",
    "draw_unit",
    "leading_zeros",
    "normalise_seed",
    "popcount",
    "trailing_zeros",
    "xoshiro_next",
]

U64 = np.uint64
LOW_32 = np.uint64(0xFFFFFFFF)
SHIFT_32 = np.uint64(32)
TWO_32 = np.uint64(1 << 32)


@intrinsic
def _ctpop(typingctx: Any, x: Any) -> Any:
    signature = types.int64(types.uint64)

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        return builder.ctpop(args[0])

    return signature, codegen


#: Number of set bits of a uint64, as an int64 (one ``popcnt`` instruction), in kernels.
popcount = cast(Callable[[Any], int], _ctpop)


@intrinsic
def _cttz(typingctx: Any, x: Any) -> Any:
    signature = types.int64(types.uint64)

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return signature, codegen


#: Index of the lowest set bit of a uint64 (64 for zero), as an int64, in kernels.
trailing_zeros = cast(Callable[[Any], int], _cttz)


@intrinsic
def _ctlz(typingctx: Any, x: Any) -> Any:
    signature = types.int64(types.uint64)

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        return builder.ctlz(args[0], ir.Constant(ir.IntType(1), 0))

    return signature, codegen


#: Number of zero bits above the highest set bit of a uint64 (64 for zero), in kernels.
leading_zeros = cast(Callable[[Any], int], _ctlz)


@njit(inline="always")
def _rotl(x: np.uint64, k: int) -> np.uint64:
    return (x << U64(k)) | (x >> U64(64 - k))


@njit(inline="always")
def xoshiro_next(
    s0: np.uint64, s1: np.uint64, s2: np.uint64, s3: np.uint64
) -> tuple[np.uint64, np.uint64, np.uint64, np.uint64, np.uint64]:
    """One xoshiro256** step: ``(output, s0, s1, s2, s3)`` with the state kept in registers."""
    result = _rotl(s1 * U64(5), 7) * U64(9)
    t = s1 << U64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    return result, s0, s1, s2, s3


@njit(inline="always")
def bounded(
    x32: np.uint64,
    bound: np.uint64,
    s0: np.uint64,
    s1: np.uint64,
    s2: np.uint64,
    s3: np.uint64,
) -> tuple[np.uint64, np.uint64, np.uint64, np.uint64, np.uint64]:
    """An exactly uniform integer in ``[0, bound)`` from 32 random bits (Lemire, 2019).

    The rare rejection draws fresh bits from the generator, so the result is unbiased.
    """
    m = x32 * bound
    if (m & LOW_32) < bound:
        threshold = (TWO_32 - bound) % bound
        while (m & LOW_32) < threshold:
            u, s0, s1, s2, s3 = xoshiro_next(s0, s1, s2, s3)
            m = (u & LOW_32) * bound
    return m >> SHIFT_32, s0, s1, s2, s3


def normalise_seed(
    seed: int | np.random.SeedSequence | np.random.Generator | None,
) -> np.random.SeedSequence:
    """Turn any seed a user may pass into a ``SeedSequence`` (Scientific Python SPEC 7).

    An ``int`` or ``SeedSequence`` is used as it is; a ``Generator`` gives up 128 bits of entropy;
    ``None`` draws fresh entropy from the operating system (recorded with the results).
    """
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, np.random.Generator):
        return np.random.SeedSequence(seed.integers(0, 2**63, size=2).tolist())
    if seed is None:
        return np.random.SeedSequence()
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool) and seed >= 0:
        return np.random.SeedSequence(int(seed))

    raise TarotInputError(f"seed must be a non-negative integer, got {seed!r}")


def chunk_seed_sequence(root: np.random.SeedSequence, chunk: int) -> np.random.SeedSequence:
    """The seed sequence of chunk ``chunk`` of a run whose root is ``root``."""
    return np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, chunk))


def chunk_states(root: np.random.SeedSequence, first: int, count: int) -> npt.NDArray[np.uint64]:
    """xoshiro256** states, shape ``(count, 4)``, for chunks ``first .. first + count - 1``."""
    states = np.empty((count, 4), dtype=np.uint64)
    for k in range(count):
        state = chunk_seed_sequence(root, first + k).generate_state(4, np.uint64)
        if not state.any():  # the one state xoshiro cannot leave; SeedSequence never gives it
            state[0] = 1
        states[k] = state
    return states


def chunk_lane_states(
    root: np.random.SeedSequence, chunk: int, generators: int
) -> npt.NDArray[np.uint64]:
    """Side-by-side xoshiro256** states of chunk ``chunk``, shape ``(4, generators)``.

    Row ``k`` holds word ``k`` of every generator, so that a kernel loads one state word of
    all of them at once. All come from the chunk's seed sequence.
    """
    words = chunk_seed_sequence(root, chunk).generate_state(4 * generators, np.uint64)
    states = words.reshape(generators, 4)
    states[~states.any(axis=1), 0] = 1  # the state xoshiro cannot leave; never drawn in practice
    return np.ascontiguousarray(states.T)


@njit(inline="always")
def draw_below(state: Any, bound: int) -> int:
    """A uniform integer in ``[0, bound)`` from a generator state kept in a (4,) uint64 array.

    For the engine's decisions, which draw far less often than the dealer does.
    """
    u, s0, s1, s2, s3 = xoshiro_next(state[0], state[1], state[2], state[3])
    value, s0, s1, s2, s3 = bounded(u & LOW_32, np.uint64(bound), s0, s1, s2, s3)
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3
    return int(value)


@njit(inline="always")
def draw_unit(state: Any) -> float:
    """A uniform float in ``[0, 1)`` (53 random bits) from a generator state kept in a (4,)
    uint64 array."""
    u, s0, s1, s2, s3 = xoshiro_next(state[0], state[1], state[2], state[3])
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3
    return float(u >> U64(11)) * (1.0 / 9007199254740992.0)
