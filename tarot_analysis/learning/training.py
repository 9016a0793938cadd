"""What every training of a learned bot's network shares: the units of its targets, its
checks, and the watch over its steps.

A network learns each legal action's *advantage*: its value less the mean value of the legal
actions, in hundreds of points (:data:`VALUE_SCALE`), optionally with a cross-entropy of the
teacher's choice, the scores as logits, one per :data:`CHOICE_TEMPERATURE` of advantage. The
network itself, how the lessons are streamed to it and how it is measured are
:mod:`tarot_analysis.learning.streaming`'s; rounds of self-play
(:mod:`tarot_analysis.learning.rounds`) train it the same way.

A learning rate is checked before any step (:func:`check_learning_rate`); every step is
watched to have kept the weights finite numbers (:class:`FiniteSteps`, :func:`all_finite`),
and a network is written only when every weight is one (:func:`check_finite`): a training
that diverges stops in one line and writes nothing.

Training uses JAX and optax, the ``train`` extra (``pip install 'tarot-analysis[train]'``):
imported only when a network is trained (:data:`NEEDS_EXTRA` says how to install them), so
that the rest of the toolkit needs neither.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np

from tarot_analysis.errors import TarotInputError
from tarot_analysis.runs.interrupts import raise_if_interrupted

__all__ = [
    "CHOICE_TEMPERATURE",
    "LOOK_EVERY",
    "MOST_LEARNING_RATE",
    "NEEDS_EXTRA",
    "VALUE_SCALE",
    "FiniteSteps",
    "all_finite",
    "check_finite",
    "check_learning_rate",
]

#: Points per unit of the network's outputs: a deal's scores are tens to hundreds of points.
VALUE_SCALE: Final = 100.0
#: Advantage (in outputs' units) per unit of logit in the cross-entropy of the teacher's choice:
#: 0.1 is 10 points, about what separates two cards the search tells apart.
CHOICE_TEMPERATURE: Final = 0.1
NEEDS_EXTRA: Final = "training needs the train extra: pip install 'tarot-analysis[train]'"
#: The largest learning rate a step can take: the largest float32, the weights' own type (a
#: larger one is infinite in the step, and every weight with it).
MOST_LEARNING_RATE: Final = float(np.finfo(np.float32).max)
#: Steps of the optimiser between two looks at whether they kept the weights finite numbers:
#: a look waits for the steps before it to be computed, which a look at every step would keep
#: from running ahead of the batches being made.
LOOK_EVERY: Final = 32


def all_finite(jax: Any, jnp: Any, params: Any) -> Any:
    """Whether every weight of ``params`` is a finite number, as one JAX boolean (computed
    inside a compiled step, beside the step's own work, which it leaves bit for bit as it
    was): a loss that diverges sends the weights to infinity, then NaN."""
    leaves = jax.tree_util.tree_leaves(params)
    return jnp.stack([jnp.isfinite(a).all() for a in leaves]).all()


class FiniteSteps:
    """The steps of a training, each looked at (every :data:`LOOK_EVERY`, and at the end) to
    have kept the weights finite numbers: a learning rate too high makes the loss diverge, the
    weights go to infinity, then NaN, and a network of NaN plays nothing. The first step that
    did not stops the training in one line naming it, before anything is written. A Ctrl-C
    that Python dropped in a finaliser stops it at the next step
    (:func:`~tarot_analysis.runs.interrupts.raise_if_interrupted`)."""

    def __init__(self) -> None:
        self._pending: list[tuple[str, Any]] = []

    def took(self, step: str, finite: Any) -> None:
        """Note ``step`` (as the error names it) and whether it kept the weights finite (a JAX
        boolean, perhaps still being computed)."""
        raise_if_interrupted()
        self._pending.append((step, finite))
        if len(self._pending) >= LOOK_EVERY:
            self.look()

    def look(self) -> None:
        """Raise ``TarotInputError`` naming the first step noted that did not keep the weights
        finite; forget the steps looked at."""
        for step, finite in self._pending:
            if not bool(finite):
                raise TarotInputError(
                    f"the training diverged at {step}: its weights are no longer finite numbers "
                    "(a learning rate too high?); nothing was written"
                )
        self._pending.clear()
        raise_if_interrupted()


def check_learning_rate(rate: object) -> float:
    """``rate`` as Adam's learning rate: a number above 0 and at most
    :data:`MOST_LEARNING_RATE` (3.4e+38); a ``TarotInputError`` otherwise.

    >>> check_learning_rate(1e-3)
    0.001
    """
    if isinstance(rate, bool) or not isinstance(rate, int | float | np.integer | np.floating):
        raise TarotInputError(f"the learning rate must be a number, got {rate!r}")
    if not 0 < float(rate) <= MOST_LEARNING_RATE:
        raise TarotInputError(
            f"the learning rate must be above 0 and at most {MOST_LEARNING_RATE:.1e}, got {rate}"
        )
    return float(rate)


def check_finite(layers: Any, what: str = "the trained network") -> None:
    """Refuse, in one line, ``layers`` (arrays, or lists, tuples and dicts of them) holding a
    weight that is not a finite number: a network is written only when it can play."""
    if isinstance(layers, dict):
        layers = list(layers.values())
    if isinstance(layers, list | tuple):
        for part in layers:
            check_finite(part, what)
    elif not np.isfinite(np.asarray(layers)).all():
        raise TarotInputError(f"{what}: some weights are not finite numbers; nothing was written")
