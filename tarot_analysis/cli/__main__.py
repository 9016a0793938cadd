"""``python -m tarot_analysis.cli``: the ``tarot-analysis`` command."""

import sys

from tarot_analysis.cli import main

sys.exit(main())
