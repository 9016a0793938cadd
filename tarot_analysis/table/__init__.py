"""The table: bots seated around the engine, and deals played from the deal to the score.

- :mod:`~tarot_analysis.table.compiled`: the compiled bots seated around the game state;
- :mod:`~tarot_analysis.table.play`: many deals played chunk by chunk, one row of scores each;
- :mod:`~tarot_analysis.table.python_bots`: bots written in Python, seated beside them;
- :mod:`~tarot_analysis.table.tarocco`: Italian Tarocco's matches of three deals;
- :mod:`~tarot_analysis.table.env`: one deal as a PettingZoo environment, for outside agents.
"""
