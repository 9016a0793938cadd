"""Section "Where the heuristic loses most": a review of a play run's deals, read from the data
folder.

A review run (``tarot-analysis review --rules R --seed S --deals N --bots B``, a run folder
under the data folder, :mod:`tarot_analysis.analyses.review.many`) plays a play run's deals
again with its bots and values each bid, call, poignée and card with more than one legal
action by the search over the worlds the seat could not tell apart. The section reads the
finished one of the report's rules with the heuristic at every seat (else any table of bots),
the most deals first, and shows the points lost by kind of decision, by trick, by side and by
contract, each group's count and its loss a decision and a deal with their 95% intervals
(deals the independent units). Without a run it gives the one command that makes one.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Final

import pandas as pd

from tarot_analysis.report.html import Context, Section, Table, count, label, percent

__all__ = ["EXAMPLE_DEALS", "find_losses", "review_command", "section"]

#: The deals of the review the section proposes when none is found: about a minute on one
#: core at the review's 128 worlds a decision in 4 players (docs/review.md).
EXAMPLE_DEALS: Final = 200
#: The bots of the review the section proposes and looks for first.
EXAMPLE_BOTS: Final = "heuristic"
#: The tables of the section: the column each groups by, its title and its first header.
TABLES: Final = (
    ("kind", "by kind of decision", "decision"),
    ("trick", "by trick (the cards of each trick)", "trick"),
    ("side", "by side in the deal", "side"),
    ("contract", "by contract", "contract"),
)
#: A decision's kind and a side as the tables name them.
NAMES: Final = {
    "bid": "bid", "call": "call", "poignee": "poignée", "card": "card", "taker": "taker",
    "partner": "partner", "defence": "defence", "none": "nobody took (all passed)",
}  # fmt: skip


def find_losses(data_dir: str | os.PathLike[str], rules_name: str) -> Any:
    """The review of ``rules_name`` the section reads in ``data_dir``: the heuristic at every
    seat first, then the most deals and worlds; ``None`` when there is none."""
    from tarot_analysis.analyses.review.many import find_review_runs

    runs = find_review_runs(data_dir, rules_name)
    heuristic = [r for r in runs if set(r.bots) == {EXAMPLE_BOTS}]
    chosen = heuristic or runs
    return chosen[0] if chosen else None


def review_command(context: Context, data_dir: str | os.PathLike[str]) -> list[str]:
    """The command that makes the review the section reads, as pieces a printed line may wrap
    between; ``--data`` only when the folder is not the command's default."""
    from tarot_analysis.analyses.review.many import DEFAULT_WORLDS, review_folder

    parts = [
        "tarot-analysis review", f"--rules {context.rules_argument}", f"--seed {context.seed}",
        f"--deals {EXAMPLE_DEALS}", f"--bots {EXAMPLE_BOTS}",
    ]  # fmt: skip
    if Path(data_dir) != Path("data"):
        default = review_folder(
            context.rules, (EXAMPLE_BOTS,) * context.rules.players, context.seed,
            EXAMPLE_DEALS, DEFAULT_WORLDS,
        )  # fmt: skip
        parts.append(f"--data {(Path(data_dir) / Path(default).name).as_posix()}")
    return parts


def _points(mean: float, low: Any, high: Any) -> str:
    if low is None or pd.isna(low):
        return f"{mean:.2f}"
    return f"{mean:.2f} ({low:.2f}–{high:.2f})"


def _name(by: str, group: Any) -> str:
    if by == "contract":
        return "nobody took (all passed)" if group == "none" else label(str(group))
    return NAMES.get(str(group), str(group))


def _table(by: str, title: str, first: str, frame: pd.DataFrame, run: Any,
           context: Context) -> Table:  # fmt: skip
    rows = [
        [
            _name(by, group), count(row["decisions"]), count(row["deals_with"]),
            _points(row["per_decision"], row["ci_low"], row["ci_high"]),
            _points(row["per_deal"], row["deal_ci_low"], row["deal_ci_high"]),
            percent(row["share"]), percent(row["best_rate"]),
        ]
        for group, row in frame.to_dict("index").items()
    ]  # fmt: skip
    bots = run.bots
    caption = context.caption(
        f"Points lost {title}",
        mode=f"the deals of play --rules {run.rules} --seed {run.spec.seed} played again by "
        f"its bots; each bid, call, poignée and card with more than one legal action valued by "
        f"the search over {run.worlds} worlds a decision the seat could not tell apart, the "
        "loss the best mean less the played one (the seat's score; the écart and the chelem "
        "not valued)",
        n=f"{run.deals:,} deals, {len(run.frame):,} decisions; each row's own in it",
        interval="95% intervals, deals the independent units (a decision: clustered by deal; a "
        "deal: the group's losses summed in each deal of the run)",
        bots=f"{bots[0]} at every seat" if len(set(bots)) == 1 else ", ".join(bots),
    )  # fmt: skip
    header = [first, "decisions", "deals", "lost a decision (95%)", "lost a deal (95%)",
              "share of the loss", "best played"]  # fmt: skip
    return Table(f"losses-{by}", caption, header, rows)


def section(context: Context, data_dir: str | os.PathLike[str]) -> Section:
    """The section, from the review of the report's rules found in ``data_dir``."""
    from tarot_analysis.analyses.review.many import loss_tables

    values: dict[str, Any] = {"example": review_command(context, data_dir), "run": None}
    run = find_losses(data_dir, context.rules.name) if context.rules.tarocco is None else None
    if run is not None:
        tables = loss_tables(run)
        overall = tables["all"].iloc[0]
        overall_deal = _points(overall["per_deal"], overall["deal_ci_low"], overall["deal_ci_high"])
        overall_decision = _points(overall["per_decision"], overall["ci_low"], overall["ci_high"])
        values |= {
            "run": run, "folder": run.folder.as_posix(),
            "heuristic": set(run.bots) == {EXAMPLE_BOTS},
            "per_deal": overall_deal, "per_decision": overall_decision,
        }  # fmt: skip
        for by, title, first in TABLES:
            values[by] = _table(by, title, first, tables[by], run, context)
    return Section("losses", "Where the heuristic loses most", "losses.html.j2", values)
