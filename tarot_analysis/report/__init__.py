"""The strategy report of a preset: one self-contained HTML file that answers how to bid.

:func:`build_report` gathers what the toolkit measures about one set of rules and one table of
bots into ``reports/strategy-<rules>-<bots>-<deals>.html``. It opens with a one-page summary
(the thresholds to bid with their intervals beside the published ones, ties, the contracts at
the table, which bots played and what that means) and closes with what the numbers do not say.
Between them:

* hand statistics (bouts, trumps, kings, poignée, petit sec...), each simulated rate with its
  Wilson interval beside its exact value, a chart of each distribution with the exact law drawn
  on it, and the chi-square test of every distribution against its exact law;
* contract frequencies and success in auction mode (the bots bid, the highest bid is played),
  on at most :data:`AUCTION_DEALS` deals;
* bidding guidance in counterfactual mode (seat 0 takes, each deal played under every
  contract, and once more with seat 0 passing): success and expected score by Chavey count,
  the best contract with its runner-up and ties by count, by bouts and trumps and by score
  range, passing measured and the last seat's advice beside seat 0's, thresholds fitted with
  bootstrap intervals, what each rule loses in and out of sample, and a fitted success model
  against Chavey's count with its calibration and caveats;
* the same answers up the ladder of bots: runs of the same rules and seed under other bots
  found in the data folder, the weakest bots first (thresholds, the Garde, the best contract
  by band of Chavey count, the contracts bid at the table).

Every table is an HTML table whose caption names the rules, the bots, the mode, n and the kind
of interval; every chart is an embedded PNG; the style sheet is inline. The file needs nothing
else to open, print or archive, and its metadata block says how to deal every number again.

The page is built from Jinja2 templates (``templates/``), one module per section: ``summary``,
``reading``, ``bidding``, ``thresholds``, ``model``, ``contracts``, ``ladder``, ``bound``,
``hands``, ``limits`` and ``run``; ``html`` holds the tables, charts and headings they share,
``plots`` draws the charts, ``runs`` the runs they read, ``build`` puts them together and
``pdf`` prints the page (the ``report`` command is :mod:`tarot_analysis.cli.commands.report`).
``hand_page`` writes the page of one hand (``hand --html``) with the same templates.

Imports inside the section modules' functions are for start-up, and to read the package's own
face: what a section runs (the dealer, the table and the runs, all compiled code; the charts,
matplotlib) is imported in the function that runs it, so that ``tarot-analysis --help`` and a
page rebuilt from stored runs load none of it; and a section that reads another through this
package (``from tarot_analysis.report import ...``) does so inside a function, since this file
imports every section.

Long runs are kept and reused. The guidance run is the resumable Parquet dataset of the
``guidance`` command, in the same folder (``data/guidance-<rules>-<bots>-seed<seed>-<deals>``,
and ``...-last`` for the last seat's run, as ``guidance --seat both`` names it), so either
command reuses the other's chunks. Hand statistics and auction contracts are small
tables, kept as JSON in the data folder with the metadata of the run that produced them; they
are reused only when that metadata matches the run asked for.

``pdf=True`` also prints the report to PDF with a headless Chromium, when one is installed.
"""

from tarot_analysis.report.build import build_report
from tarot_analysis.report.pdf import CHROMIUM_FLAGS, CHROMIUM_NAMES, find_chromium, render_pdf
from tarot_analysis.report.runs import (
    AUCTION_DEALS,
    GUIDANCE_CHUNK_SIZE,
    guidance_folder,
    report_path,
)

__all__ = [
    "AUCTION_DEALS",
    "CHROMIUM_FLAGS",
    "CHROMIUM_NAMES",
    "GUIDANCE_CHUNK_SIZE",
    "build_report",
    "find_chromium",
    "guidance_folder",
    "render_pdf",
    "report_path",
]
