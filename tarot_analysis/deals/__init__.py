"""What the cards alone decide, before anyone bids: the dealer and what a deal holds.

- :mod:`~tarot_analysis.deals.deal`: millions of uniformly random deals a second, as bitmasks;
- :mod:`~tarot_analysis.deals.features`: what each hand and the dog hold (bouts, trumps, poignées);
- :mod:`~tarot_analysis.deals.evaluators`: the point counts players judge a hand by (Chavey's);
- :mod:`~tarot_analysis.deals.exact`: the exact distributions those features follow;
- :mod:`~tarot_analysis.deals.hand_stats`: the hand tables of a preset, simulated beside exact;
- :mod:`~tarot_analysis.deals.odds`: where the cards one hand does not see lie, exactly.
"""
