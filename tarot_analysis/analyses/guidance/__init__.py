"""Bidding guidance from played deals: which contract pays, for which hands.

A guidance run deals many hands to seat 0 (or to the last seat) and plays each deal under every
contract (:mod:`tarot_analysis.analyses.counterfactual`), and once more with that seat made to pass
and the others bidding on, streaming one row per deal to a resumable Parquet dataset
(:mod:`tarot_analysis.runs.runner`): the hand's features, its evaluator scores, for each contract
whether it made and the seat's score, and the seat's score when it passed. The tables are built
from sums kept per value (:func:`rows_counts`): success and mean score per contract by
evaluator value, by bouts × trumps and by kings; the best option of each value with its
runner-up and their paired difference; how often a bootstrap replicate of the deals
(:mod:`tarot_analysis.bootstrap`) names another best; thresholds fitted to the deals, with
bootstrap intervals; what each rule loses against the best option, in and out of sample; and a
success model fitted on the rows. docs/guidance.md gives every formula.

The package holds one module a part: ``counts`` (the run, its rows and their sufficient
statistics), ``tables`` (the tables made from the counts, and their CSV files), ``thresholds``
(the fitted thresholds with their bootstrap intervals, and what each rule loses), ``advice``
(the best contract by Chavey count, by count and by band, that every page reads) and ``model``
(the success model). Their names are gathered here: those of ``__all__``, and, each imported as
itself, the others that the command line, the report and the tests take from here.
"""

from tarot_analysis.analyses.guidance.advice import (
    COUNT_MIN_DEALS,
    ChaveyAdvice,
    chavey_advice,
    chavey_bands,
    published_thresholds,
)
from tarot_analysis.analyses.guidance.counts import (
    MIN_FIT_DEALS,
    GuidanceData,
    can_fit,
    merge_counts,
    rows_counts,
    run_guidance,
)
from tarot_analysis.analyses.guidance.counts import _grouping as _grouping
from tarot_analysis.analyses.guidance.counts import check_enough_to_fit as check_enough_to_fit
from tarot_analysis.analyses.guidance.counts import first_seat_plays as first_seat_plays
from tarot_analysis.analyses.guidance.counts import not_fitted as not_fitted
from tarot_analysis.analyses.guidance.model import MODEL_FEATURES as MODEL_FEATURES
from tarot_analysis.analyses.guidance.model import auc as auc
from tarot_analysis.analyses.guidance.model import compare_evaluators as compare_evaluators
from tarot_analysis.analyses.guidance.model import fit_logistic as fit_logistic
from tarot_analysis.analyses.guidance.tables import _rate_rows as _rate_rows
from tarot_analysis.analyses.guidance.tables import (
    best_choices,
    best_ranges,
    guidance_tables,
    seat_comparison,
    table_by,
)
from tarot_analysis.analyses.guidance.tables import save_tables as save_tables
from tarot_analysis.analyses.guidance.thresholds import monotone_choice as monotone_choice
from tarot_analysis.analyses.guidance.thresholds import threshold_loss, thresholds
from tarot_analysis.engine.scoring import SCORE_UNIT as SCORE_UNIT

__all__ = [
    "COUNT_MIN_DEALS",
    "MIN_FIT_DEALS",
    "ChaveyAdvice",
    "GuidanceData",
    "best_choices",
    "best_ranges",
    "can_fit",
    "chavey_advice",
    "chavey_bands",
    "guidance_tables",
    "merge_counts",
    "published_thresholds",
    "rows_counts",
    "run_guidance",
    "seat_comparison",
    "table_by",
    "threshold_loss",
    "thresholds",
]
