"""Worlds weighed by what the play revealed: how likely the other seats' cards are in a world.

The search (:mod:`tarot_analysis.bots.pimc`) deals the cards a seat cannot see again, each
deal that fits the hard facts (the cards played, the voids, the poignées, the dog) as likely as
any other, then redraws those that do not fit the auction. Yet the cards the other seats chose
say more: a defender who threw a King under the taker's trump likely held no small card of the
suit; a seat that led the Excuse early likely held little else. Skat's strongest search bots
weigh their worlds by it, and so does this module.

Each world's **weight** is the probability that the other seats would have played the cards
they played, had they held that world's hands: at each card another seat played, the learned
network (:mod:`tarot_analysis.bots.learned`) scores that seat's legal cards from what it knew
then, in the world, and a softmax at temperature ``T`` (fitted on held-out play:
:func:`fit_temperature`) makes the scores probabilities; the world's log-likelihood is the sum
of the logarithms of the probabilities of the cards played. Forced cards say nothing (their
probability is 1), nor do the seat's own cards. A network is a model of play, not the players
at the table: how well the weights place the hidden cards is measured, against the worlds
unweighed, in ``benchmarks/world_weights.py``.

The compiled part lives with the search it serves (``pimc:weighed``,
:func:`tarot_analysis.bots.pimc.log_likelihood`); this module draws and weighs worlds from
Python and fits the temperature.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import numpy.typing as npt
from numba import njit

from tarot_analysis._jit import KERNEL, normalise_seed
from tarot_analysis.bots import MAX_PIMC_WORLDS, Bot, pimc
from tarot_analysis.engine import state as S
from tarot_analysis.engine.determinize import count_ways
from tarot_analysis.engine.game import GameState
from tarot_analysis.errors import TarotInputError, seat_number, whole_number

__all__ = ["ROWS", "Scorer", "fit_temperature", "log_loss", "weighed_worlds"]

#: The rows of a world's cards as :func:`weighed_worlds` gives them: each seat's hand now
#: (``MAX_SEATS`` rows, the seats past the table's empty), then the dog, then the écart.
ROWS: Final = S.MAX_SEATS + 2


@njit(**KERNEL)
def _weighing(
    scores_only: bool, m: Any, s: Any, me: int, worlds: int, temperature: float, p: Any,
    half: Any, rng: Any, ws: Any, nows: Any, log_likelihoods: Any,
) -> int:  # fmt: skip
    """Up to ``worlds`` worlds as the search draws them for ``me`` at ``(m, s)``: each one's
    cards into ``nows[k]`` (:data:`ROWS`) and its log-likelihood; returns how many. With
    ``scores_only``, instead, the network's scores of the seat to act at ``(m, s)``
    (:func:`~tarot_analysis.bots.pimc.network_scores`, the state copied into ``ws.try_*``);
    returns how many actions are legal. One kernel for both: each kernel links the search and
    the network, a minute and more of compiling."""
    if scores_only:
        for i in range(m.shape[0]):
            ws.try_m[i] = m[i]
        for i in range(s.shape[0]):
            ws.try_s[i] = s[i]
        return pimc.network_scores(ws.try_m, ws.try_s, s[S.S_ACTOR], p, half, ws)
    places, n = pimc._places(m, s, me, p, ws)
    count_ways(ws.may, n, places, ws.capacity, ws.strides, ws.left, ws.ways)
    done = 0
    failed = 0
    while done < worlds and failed <= pimc._MAX_FAILED:
        if pimc._world(m, s, me, p, half, rng, places, n, ws):
            for row in range(ROWS):
                nows[done, row, 0] = ws.now[row, 0]
                nows[done, row, 1] = ws.now[row, 1]
            log_likelihoods[done] = pimc.log_likelihood(s, me, temperature, p, half, ws)
            done += 1
        else:
            failed += 1
    return done


def _searching(state: GameState, model: str) -> Any:
    """A search workspace whose bot holds the learned network (``model``; "": the shipped
    one) for ``state``'s rules."""
    return pimc._workspace(state, Bot("pimc", worlds=1, learned=True, model=model))


def weighed_worlds(
    state: GameState,
    seat: int,
    worlds: int,
    *,
    temperature: float,
    seed: int | np.random.SeedSequence = 0,
    model: str = "",
) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.float64]]:
    """``worlds`` worlds as the search draws them for ``seat`` at ``state`` (a card decision;
    the auction read as the learned bot bids), each one's cards ``(worlds, ROWS, 2)`` (masks:
    each seat's hand now, the dog, the écart) and log-likelihood under the learned network
    (``model``, or the one shipped for the preset) at ``temperature``.

    >>> from tarot_analysis.game.rules import load_rules
    >>> state = GameState.deal(load_rules("fft-4"), seed=3, forced=[0, 1, -1, -1])
    >>> while state.decision != "card" or int(state.s[S.S_TRICK]) < 2:
    ...     state.apply(int(state.legal_actions()[0]))
    >>> cards, weights = weighed_worlds(state, state.actor, 8, temperature=1.0, seed=1)
    >>> cards.shape, bool((weights <= 0).all())
    ((8, 8, 2), True)
    """
    seat = seat_number(seat, state.rules.players)
    if state.decision != "card":
        raise TarotInputError(f"worlds are weighed at a card; the decision is {state.decision}")
    if not temperature > 0:
        raise TarotInputError(f"the temperature must be above 0, got {temperature!r}")
    worlds = whole_number(worlds, "the worlds", least=1, most=MAX_PIMC_WORLDS)
    ws = _searching(state, model)
    nows = np.zeros((worlds, ROWS, 2), dtype=np.uint64)
    log_likelihoods = np.zeros(worlds, dtype=np.float64)
    rng = pimc._generator(normalise_seed(seed))
    p, half = state.engine.params, state.engine.half_points
    done = _weighing(
        False, state.m, state.s, seat, worlds, float(temperature), p, half, rng, ws, nows,
        log_likelihoods,
    )  # fmt: skip
    return nows[:done], log_likelihoods[:done]


class Scorer:
    """The learned network's scores of the legal actions at any decision of a preset's deals
    (``model``, or the network shipped for the preset): what a temperature is fitted on."""

    def __init__(self, state: GameState, model: str = "") -> None:
        self._ws = _searching(state, model)
        # The arrays of the worlds the kernel also draws, unused here (the same types).
        self._unused = (
            pimc._generator(normalise_seed(0)), np.zeros((1, ROWS, 2), dtype=np.uint64),
            np.zeros(1, dtype=np.float64),
        )  # fmt: skip

    def scores(self, state: GameState) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
        """The legal actions of the seat to act at ``state`` and the network's score of each
        (no score, an empty array, where a single action is legal)."""
        ws = self._ws
        p, half = state.engine.params, state.engine.half_points
        rng, nows, log_likelihoods = self._unused
        count = _weighing(
            True, state.m, state.s, state.actor, 0, 1.0, p, half, rng, ws, nows, log_likelihoods
        )
        legal = np.flatnonzero(ws.mask).astype(np.int64)
        if count <= 1:
            return legal, np.zeros(0, dtype=np.float64)
        return legal, ws.outputs[legal].astype(np.float64)


def log_loss(scores: list[npt.NDArray[np.float64]], taken: list[int], temperature: float) -> float:
    """The mean of −log of the chance the softmax of ``scores`` at ``temperature`` gives each
    action ``taken`` (one array of the legal actions' scores a decision, the index taken)."""
    total = 0.0
    for row, k in zip(scores, taken, strict=True):
        z = row / temperature
        top = z.max()
        total += float(np.log(np.exp(z - top).sum()) + top - z[k])
    return total / max(len(scores), 1)


def fit_temperature(scores: list[npt.NDArray[np.float64]], taken: list[int]) -> float:
    """The temperature whose softmax of ``scores`` (one array of the legal actions' scores a
    decision) gives the actions ``taken`` (each one's index) the highest likelihood."""
    from scipy.optimize import minimize_scalar

    def loss(log_t: float) -> float:
        return log_loss(scores, taken, float(np.exp(log_t)))

    found = minimize_scalar(loss, bounds=(np.log(1e-4), np.log(1e2)), method="bounded")
    return float(np.exp(found.x))
