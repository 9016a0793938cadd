"""The game itself: the 78 cards (:mod:`~tarot_analysis.game.cards`) and the rules of every
preset as data (:mod:`~tarot_analysis.game.rules`, the presets in ``game/presets/``).

Everything else reads these two; they read nothing of the toolkit but its errors.
"""
