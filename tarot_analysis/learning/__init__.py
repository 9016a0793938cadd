"""How the learned bot learns: lessons from the search bot, and a network trained on them.

- :mod:`~tarot_analysis.learning.teacher`: deals played by ``pimc``, and what it measured at each
  decision, stored compactly (:mod:`~tarot_analysis.learning.compact`);
- :mod:`~tarot_analysis.learning.streaming`: the action-in network trained on those lessons,
  streamed through a shuffle buffer (the ``train`` extra), with what every training shares in
  :mod:`~tarot_analysis.learning.training`;
- :mod:`~tarot_analysis.learning.selfplay` and :mod:`~tarot_analysis.learning.rounds`: lessons
  from the network's own play, and rounds of them;
- :mod:`~tarot_analysis.learning.yardstick`: decisions valued by a long search, to measure a
  bot by.

The learned bot itself plays in compiled code (:mod:`tarot_analysis.bots.learned`) and needs
none of this.
"""
