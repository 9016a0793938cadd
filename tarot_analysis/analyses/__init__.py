"""The analyses: the questions the toolkit answers, each over deals played at the table.

- :mod:`~tarot_analysis.analyses.guidance`: bidding guidance, contract success by hand;
- :mod:`~tarot_analysis.analyses.counterfactual`: every contract, for the same deals;
- :mod:`~tarot_analysis.analyses.compare`: rule variants (or bots) side by side;
- :mod:`~tarot_analysis.analyses.one_hand`: one hand someone held, and what to bid;
- :mod:`~tarot_analysis.analyses.ecart`: the discards a taker may make, ranked;
- :mod:`~tarot_analysis.analyses.replay`: one deal told trick by trick;
- :mod:`~tarot_analysis.analyses.double_dummy` and :mod:`~tarot_analysis.analyses.dd_bound`:
  what every seat makes with every card seen, and that bound over many deals.
"""
