"""A reviewed deal told as text: every decision with its loss, then the losses summed."""

from __future__ import annotations

from tarot_analysis.analyses.review.deal import Decision, Review

__all__ = ["describe"]


def _where(decision: Decision) -> str:
    if decision.trick is not None:
        return f"{decision.trick}.{decision.step.place}"
    return {"bid": "auction", "call": "call", "ecart": "écart", "poignee": "poignée",
            "chelem": "chelem"}[decision.kind]  # fmt: skip


def _dd_text(decision: Decision) -> str:
    dd = decision.dd
    if dd is None:
        return "—"
    if dd.loss is not None:
        return f"{dd.loss:g}"
    return f"{dd.loss_low:g}–{dd.loss_high:g}?"


def _line(review: Review, decision: Decision) -> str:
    search = decision.search
    mark = "!" if review.is_costly(decision) else " "
    best = "" if decision.best == decision.played else decision.best
    taken = "" if search.taken_mean is None else f"{search.taken_mean:+7.1f}"
    loss = f"{decision.loss:5.1f} ({search.loss_low:.1f}–{search.loss_high:.1f})"
    fate = "" if decision.dd is None else decision.dd.fate
    return (
        f"{mark} {decision.index:>3} {_where(decision):>8}  seat {decision.seat}  "
        f"{decision.kind:<7} {decision.played:<16} {best:<16} {taken:>7}  {loss:<18} "
        f"{_dd_text(decision):>6}  {fate}"
    ).rstrip()


def _seen(decision: Decision) -> str:
    """What the seat saw and the two best actions: ``hand ...; on the table ...; best X
    (+12.0), then Y (+3.5)``."""
    parts = [f"hand {decision.hand}"] if decision.hand else []
    if decision.on_table:
        parts.append(f"on the table {decision.on_table}")
    best = decision.search.best_mean
    text = f"best {decision.best}" + ("" if best is None else f" ({best:+.1f})")
    if decision.runner_up is not None:
        name, mean = decision.runner_up
        text += f", then {name} ({mean:+.1f})"
    return "; ".join([*parts, text])


def describe(review: Review) -> str:
    """The review as text: the heading, one line a decision, and the summary."""
    record = review.record
    rules = review.rules
    dd = (
        f"; double dummy at every card it plays by the rules, {review.time_limit:g} s a solve"
        if review.time_limit is not None
        else ""
    )
    played_out = ", played out by the learned bot" if review.play_outs == "learned" else ""
    lines = [
        f"Review of {record.source} ({rules.name}): the search over {review.worlds} worlds a "
        f"decision (seed {review.seed}){played_out}{dd}.",
        "Loss: points of the seat's own score the action taken lost against the best by the "
        "search (95% interval of the paired difference); dd: card points its side lost with "
        "every card seen (a range where the solve stopped).",
    ]
    if record.stopped:
        lines.append(f"The record stops at {record.stopped}: the review stops there.")
    lines += [
        "",
        f"  {'#':>3} {'where':>8}  {'seat':<6}  {'kind':<7} {'played':<16} {'best':<16} "
        f"{'mean':>7}  {'loss (95%)':<18} {'dd':>6}  fate (dd)",
    ]
    lines += [_line(review, decision) for decision in review.decisions]
    lines += ["", *_summary(review)]
    return "\n".join(lines)


def _summary(review: Review) -> list[str]:
    lines = [
        "Points lost by seat: "
        + ", ".join(f"seat {seat} {loss:.1f}" for seat, loss in review.by_seat().items()),
        "The same, one advice repeated counted once: "
        + ", ".join(f"seat {seat} {loss:.1f}" for seat, loss in review.by_seat_once().items()),
        "By phase: "
        + (", ".join(f"{phase} {loss:.1f}" for phase, loss in review.by_phase().items()) or "—"),
    ]
    by_trick = review.by_trick()
    if by_trick:
        lines.append(
            "By trick: " + ", ".join(f"{trick}: {loss:.1f}" for trick, loss in by_trick.items())
        )
    costliest = review.costliest()
    if costliest:
        lines.append("Costliest decisions:")
        for decision in costliest:
            lines.append(
                f"  #{decision.index} {_where(decision)} seat {decision.seat} {decision.kind} "
                f"{decision.played}: {decision.loss:.1f} points (best {decision.best})"
            )
            lines.append(f"      {_seen(decision)}")
    settled, asked = review.dd_settled()
    if review.time_limit is not None:
        lines.append(
            f"Double dummy settled {settled} of the {asked} cards it was asked "
            f"(time limit {review.time_limit:g} s)."
        )
    if review.scores is not None:
        lines.append(
            "Scores as played: "
            + ", ".join(f"seat {seat} {score:+g}" for seat, score in enumerate(review.scores))
        )
    decisions = len(review.decisions)
    lines.append(f"({decisions} decisions reviewed in {review.seconds:.1f} s)")
    return lines
