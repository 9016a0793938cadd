"""The bots that play the answers when none is named: the learned bot, or the heuristic.

Every answer of the toolkit at scale (the report, guidance, comparisons, contract rates, a
hand's advice) is played by the strongest bot that plays millions of deals: ``learned``, the
network the package ships for the preset (:func:`tarot_analysis.bots.learned.shipped_model`;
docs/bots.md measures it against the heuristic in duplicate, :mod:`tarot_analysis.bots.measured`).
A preset with no shipped network (Tarocco, six players, the older rules, a rules file of one's
own) is played by the heuristic instead, and the answers say so. This module is the one place
that choice is made; ``--bots heuristic`` asks for the rule-based bot anywhere.

>>> from tarot_analysis.game.rules import load_rules
>>> default_bot(load_rules("fft-4")), default_bot(load_rules("legacy-4"))
('learned', 'heuristic')
>>> default_note(load_rules("fft-4"), load_rules("legacy-4"))
'the default where no learned model ships: legacy-4'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from tarot_analysis.errors import TarotInputError

if TYPE_CHECKING:
    from tarot_analysis.game.rules import Rules

__all__ = [
    "DEFAULT_BOT",
    "FALLBACK_BOT",
    "default_bot",
    "default_note",
    "has_shipped_model",
    "playable_bot",
    "seated_bots",
]

#: The bot that plays the answers when none is named: the strongest that plays at scale.
DEFAULT_BOT: Final = "learned"
#: The bot that plays them where no learned model ships for the preset.
FALLBACK_BOT: Final = "heuristic"


def has_shipped_model(rules: Rules) -> bool:
    """Whether the package ships a learned model for ``rules``'s preset (``learned`` seats it)."""
    # imported here: the network's module loads the compiled engine (numba)
    from tarot_analysis.bots.learned import shipped_model

    try:
        shipped_model(rules)
    except TarotInputError:
        return False
    return True


def playable_bot(name: str, *rules: Rules) -> str:
    """``name``, or the heuristic where ``name`` is the shipped learned bot (``learned``) and
    one of ``rules`` has no shipped model: a run over several presets (rule variants, Tarocco)
    under the default bots, each preset played by what it can seat."""
    if name == DEFAULT_BOT and not all(has_shipped_model(one) for one in rules):
        return FALLBACK_BOT
    return name


def default_bot(*rules: Rules) -> str:
    """The bot that plays ``rules`` when none is named: :data:`DEFAULT_BOT` where a learned
    model ships for every one of them, :data:`FALLBACK_BOT` otherwise (the same bot for every
    preset of a comparison, so that the rules alone differ)."""
    return playable_bot(DEFAULT_BOT, *rules)


def default_note(*rules: Rules) -> str:
    """Why the default bot is not :data:`DEFAULT_BOT` for ``rules``, said beside the bots'
    names (the presets without a shipped model); empty where it is."""
    missing = [one.name for one in rules if not has_shipped_model(one)]
    if not missing:
        return ""
    return f"the default where no learned model ships: {', '.join(dict.fromkeys(missing))}"


def seated_bots(bots: str | Sequence[str] | None, *rules: Rules) -> tuple[list[str], str]:
    """The bots named (one name, or one per seat), or none named the default for ``rules``,
    one name for every seat; and what to say beside their names (:func:`default_note`, empty
    when the bots were named)."""
    if bots is None:
        return [default_bot(*rules)], default_note(*rules)
    return ([bots] if isinstance(bots, str) else list(bots)), ""
