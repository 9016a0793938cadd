"""The page of one reviewed deal: the losses summed, each seat's value through the deal, and
every decision with the costly ones marked — one self-contained HTML file, built from the
report's templates."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from tarot_analysis.report.html import Caption, Section, Table, chart, pieces
from tarot_analysis.runs.files import write_text

if TYPE_CHECKING:
    from tarot_analysis.analyses.review.deal import Decision, Review

__all__ = ["write_review_page"]

#: The style of a costly decision's cells.
COSTLY = "background: #f6d5cf; font-weight: 600"


def _caption(review: Review, title: str, n: str) -> Caption:
    return Caption(
        title, review.rules.name,
        f"pimc search ({review.play_outs} play-outs, last tricks double dummy)",
        "the deal as recorded", n,
        "normal 95% over the worlds (a loss: of the paired difference best − taken)",
    )  # fmt: skip


def _where(decision: Decision) -> str:
    if decision.trick is not None:
        return f"trick {decision.trick}, card {(decision.step.place or 0) + 1}"
    return decision.kind


def _decisions(review: Review) -> Table:
    rows = []
    for decision in review.decisions:
        style = COSTLY if review.is_costly(decision) else ""
        search = decision.search
        dd = decision.dd
        dd_text = (
            "—" if dd is None
            else f"{dd.loss:g}" if dd.loss is not None
            else f"{dd.loss_low:g} to {dd.loss_high:g} (stopped)"
        )  # fmt: skip
        second = decision.runner_up
        cells = [
            str(decision.index), _where(decision), f"seat {decision.seat}",
            decision.hand or "—", decision.on_table or "—", decision.played,
            decision.best if decision.best != decision.played else "same",
            "—" if second is None else f"{second[0]} ({second[1]:+.1f})",
            "—" if search.taken_mean is None else f"{search.taken_mean:+.1f}",
            f"{decision.loss:.1f} ({search.loss_low:.1f} to {search.loss_high:.1f})",
            str(search.worlds), dd_text, "—" if dd is None else dd.fate,
        ]  # fmt: skip
        # A figure and its interval in two pieces: a narrow window wraps between them.
        rows.append([pieces(text)._replace(style=style) for text in cells])
    header = [
        "#", "where", "seat", "hand", "on the table", "played", "best by the search",
        "next best (mean score)", "mean score", "loss (95%)",
        "worlds", "dd loss (card points)", "fate under best play (dd)",
    ]  # fmt: skip
    return Table(
        "review-decisions", _caption(review, "Every decision", f"{len(rows)} decisions"),
        header, rows,
        note="Marked: a loss of 10 points or more, or one of the three costliest decisions.",
    )  # fmt: skip


def _summary(review: Review) -> Table:
    rows = [[f"seat {seat}", f"{loss:.1f}"] for seat, loss in review.by_seat().items()]
    rows += [
        [f"seat {seat}, one advice repeated counted once", f"{loss:.1f}"]
        for seat, loss in review.by_seat_once().items()
    ]
    rows += [[phase, f"{loss:.1f}"] for phase, loss in review.by_phase().items()]
    rows += [[f"trick {trick}", f"{loss:.1f}"] for trick, loss in review.by_trick().items()]
    return Table(
        "review-summary", _caption(review, "Points lost", f"{len(review.decisions)} decisions"),
        ["by seat, phase and trick", "points lost"], rows,
    )  # fmt: skip


def _costliest(review: Review) -> Table | None:
    chosen = review.costliest()
    if not chosen:
        return None
    rows = [
        [str(d.index), f"seat {d.seat}", _where(d), d.played, d.best, f"{d.loss:.1f}"]
        for d in chosen
    ]
    return Table(
        "review-costliest", _caption(review, "The costliest decisions", f"{len(rows)}"),
        ["#", "seat", "where", "played", "best", "points lost"], rows,
    )  # fmt: skip


def _chart(review: Review) -> Any:
    from tarot_analysis.report.plots import seat_values

    frame = pd.DataFrame(
        [
            {"index": d.index, "seat": d.seat, "value": d.search.taken_mean,
             "costly": review.is_costly(d)}
            for d in review.decisions
            if d.search.taken_mean is not None
        ],
        columns=["index", "seat", "value", "costly"],
    )  # fmt: skip
    if frame.empty:
        return None
    return chart(
        seat_values(frame), "review-values", "Each seat's value through the deal",
        "At each decision of a seat, the mean score (over the worlds it could not tell apart) "
        "of the action it took; a fall between two of its decisions is what the others' play "
        "and the cards seen since took from it.",
    )  # fmt: skip


def write_review_page(path: str | os.PathLike[str], review: Review) -> Path:
    """Write the page of ``review`` to ``path`` and return it."""
    from tarot_analysis.report.build import render_page
    from tarot_analysis.runs.simulate import check_output_path

    target = Path(path)
    check_output_path(target)
    record = review.record
    values: dict[str, Any] = {
        "reading": (
            f"Each decision valued by the search over {review.worlds} worlds the seat could not "
            f"tell from the true deal (seed {review.seed}); the loss is the points of the seat's "
            "own score the action taken lost against the best action on the same worlds, never "
            "negative."
        ),
        "stopped": f"The record stops at {record.stopped}." if record.stopped else "",
        "summary": _summary(review),
        "values_chart": _chart(review),
        "costliest": _costliest(review),
        "decisions": _decisions(review),
    }
    sections = [Section("review", "The deal reviewed", "review_page.html.j2", values)]
    scores = (
        "" if review.scores is None
        else "; scores " + ", ".join(f"{s:+g}" for s in review.scores)
    )  # fmt: skip
    page = render_page(
        f"Review of a deal — {review.rules.name}", f"{record.source}{scores}.", sections
    )
    return write_text(target, page)
