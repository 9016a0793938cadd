"""Section "How to read this report": the three modes, the intervals, ties, and the bots."""

from __future__ import annotations

from tarot_analysis.report.html import Context, Section

__all__ = ["section"]


def section(context: Context) -> Section:
    return Section(
        "how-to-read", "How to read this report", "reading.html.j2", {"context": context}
    )
