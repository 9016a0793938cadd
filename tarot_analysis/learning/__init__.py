"""How the learned bot learns: lessons from the search bot, and a network trained on them.

- :mod:`~tarot_analysis.learning.teacher`: deals played by ``pimc``, and what it measured at each
  decision;
- :mod:`~tarot_analysis.learning.training`: the network trained on those lessons (the ``train``
  extra). The learned bot itself plays in compiled code (:mod:`tarot_analysis.bots.learned`)
  and needs none of this.
"""
