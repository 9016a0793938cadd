"""Section "What this does not say": the limits of every number in the report, in plain words."""

from __future__ import annotations

from tarot_analysis.report.html import Context, Section

__all__ = ["section"]


def section(context: Context) -> Section:
    return Section("limits", "What this does not say", "limits.html.j2", {"context": context})
