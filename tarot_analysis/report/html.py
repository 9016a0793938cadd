"""The report's building blocks: tables, charts, headings and the numbers written in them.

A section module builds :class:`Table` and :class:`Chart` values and hands them to its
template; the templates (``templates/``, Jinja2, every value escaped) lay them out. What a
caption names is fixed here once: the rules, the bots, the mode, n and the kind of interval.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any, Final, NamedTuple

import pandas as pd

from tarot_analysis.bots import file_label

if TYPE_CHECKING:
    import jinja2
    from matplotlib.figure import Figure

    from tarot_analysis.game.rules import Rules

__all__ = [
    "Caption",
    "Cell",
    "Chart",
    "Context",
    "Heading",
    "Section",
    "Table",
    "bots_label",
    "bots_text",
    "chart",
    "count",
    "environment",
    "label",
    "mean_with_interval",
    "percent",
    "percent_interval",
    "pieces",
    "plural",
    "probability",
    "rate_with_interval",
    "signed",
]

#: Rows of a table short enough to be kept whole on one printed page; a longer one may split,
#: which leaves less of a page empty than moving it whole to the next.
SHORT_TABLE_ROWS: Final = 12
#: Columns of a table printed in a smaller type, so that its figures stay on one line.
WIDE_TABLE_COLUMNS: Final = 9
#: Rows of a long table printed on the page of its header and caption.
FIRST_ROWS: Final = 4
#: Rows at the end of a long table kept together: none is left alone on a page.
LAST_ROWS: Final = 3
#: Resolution of the embedded charts.
CHART_DPI: Final = 100


def bots_label(bots: Sequence[str]) -> str:
    """``random`` when every seat has the same bot, else the seats' bots joined by dashes: the
    bots' part of a run's folder and a report's file, each as
    :func:`~tarot_analysis.bots.file_label` writes it (no path of a model file in it)."""
    labels = [file_label(bot) for bot in bots]
    return labels[0] if len(set(labels)) == 1 else "-".join(labels)


def bots_text(bots: Sequence[str]) -> str:
    """The bots as a caption says them: ``random at every seat``."""
    if len(set(bots)) == 1:
        return f"{bots[0]} at every seat"
    return ", ".join(f"seat {seat}: {name}" for seat, name in enumerate(bots))


@dataclass(frozen=True)
class Context:
    """What every caption of the report repeats."""

    rules: Rules
    rules_argument: str
    bots: tuple[str, ...]
    seed: int
    deals: int
    auction_deals: int
    bots_note: str = ""  # why the default bots are the heuristic, where they are

    @property
    def bots_text(self) -> str:
        return bots_text(self.bots)

    @property
    def bots_argument(self) -> str:
        return " ".join(self.bots) if len(set(self.bots)) > 1 else self.bots[0]

    def caption(self, title: str, *, mode: str, n: str, interval: str, bots: str = "") -> Caption:
        """A caption of this report's rules and bots (``bots`` overrides, for deal-only tables)."""
        return Caption(title, self.rules.name, bots or self.bots_text, mode, n, interval)


class Caption(NamedTuple):
    """A table's caption: its title, and what every number of it depends on."""

    title: str
    rules: str
    bots: str
    mode: str
    n: str
    interval: str


class Cell(NamedTuple):
    """A table cell: its text and, if any, an inline style (a map's cells are coloured).

    ``parts``: a cell of several pieces printed each whole (a line may wrap between them,
    never inside one), joined by ``separator``; ``text`` is their joined text. A printed cell
    wraps only there: a cell of words wraps between its words, any other cell not at all
    (:attr:`kind`)."""

    text: str
    style: str = ""
    parts: tuple[str, ...] = ()
    separator: str = " "

    @property
    def kind(self) -> str:
        """``parts`` (wraps between its pieces), ``words`` (no figure in it: wraps between
        words) or ``""`` (a number: printed on one line)."""
        if self.parts:
            return "parts"
        return "" if any(ch.isdigit() for ch in self.text) else "words"


def pieces(text: str) -> Cell:
    """A cell of ``text``; a number followed by its interval in brackets in two pieces, each
    printed whole: ``74.8% (73.9–75.7)`` may wrap before the bracket, never inside a number
    or an interval.

    >>> pieces("74.8% (73.9–75.7)").parts, pieces("+46.1 ± 13.9").parts
    (('74.8%', '(73.9–75.7)'), ())
    """
    head, bracket, tail = text.partition(" (")
    if bracket and head and any(ch.isdigit() for ch in tail):
        return Cell(text, parts=(head, "(" + tail))
    return Cell(text)


@dataclass(frozen=True)
class Table:
    """A table of the report: ``table-<key>`` in the page, a header row, rows of text cells.

    ``groups``: a header row above ``header``, each label spanning its number of columns.
    """

    key: str
    caption: Caption
    header: Sequence[str]
    rows: Sequence[Sequence[str | Cell]]
    groups: Sequence[tuple[str, int]] = ()
    note: str = ""

    @property
    def id(self) -> str:
        return "table-" + self.key.replace("_", "-")

    @property
    def wide(self) -> bool:
        """Of so many columns that it is printed smaller."""
        return len(self.header) >= WIDE_TABLE_COLUMNS

    @property
    def short(self) -> bool:
        """Short enough to keep on one printed page."""
        return len(self.rows) <= SHORT_TABLE_ROWS

    def cells(self) -> list[list[Cell]]:
        return [[c if isinstance(c, Cell) else pieces(c) for c in row] for row in self.rows]

    def bodies(self) -> list[list[list[Cell]]]:
        """The rows in groups: a long table's first :data:`FIRST_ROWS` apart, printed on the
        page of its header (never a header and one row at the foot of a page), the rows
        between them, and its last :data:`LAST_ROWS`, printed together (never one row alone
        at the head of a page); a short table's in one."""
        rows = self.cells()
        if self.short or len(rows) <= FIRST_ROWS + LAST_ROWS:
            return [rows]
        return [rows[:FIRST_ROWS], rows[FIRST_ROWS:-LAST_ROWS], rows[-LAST_ROWS:]]


@dataclass(frozen=True)
class Chart:
    """An embedded PNG chart with its alternative text and caption."""

    key: str
    png_base64: str
    alt: str
    caption: str

    @property
    def id(self) -> str:
        return "chart-" + self.key.replace("_", "-")


def chart(fig: Figure, key: str, alt: str, caption: str) -> Chart:
    """A matplotlib figure drawn into the report (and closed)."""
    from tarot_analysis.report.plots import to_base64_png

    return Chart(key, to_base64_png(fig, dpi=CHART_DPI), alt, caption)


@dataclass
class Heading:
    """A heading of the report, numbered as the contents list it: ``5.3 Thresholds``."""

    id: str
    title: str
    number: str = ""
    children: list[Heading] = field(default_factory=list)

    @property
    def text(self) -> str:
        return f"{self.number} {self.title}" if self.number else self.title


@dataclass
class Section:
    """A section: its heading, its subsections' headings, its template and what it shows."""

    id: str
    title: str
    template: str
    values: dict[str, Any]
    subsections: dict[str, str] = field(default_factory=dict)  # id: title, in order
    heading: Heading = field(init=False)

    def __post_init__(self) -> None:
        self.heading = Heading(
            self.id, self.title, children=[Heading(i, t) for i, t in self.subsections.items()]
        )

    def number(self, number: int) -> None:
        """Number the section and its subsections: ``3``, ``3.1``, ``3.2``..."""
        self.heading.number = str(number)
        for position, child in enumerate(self.heading.children, start=1):
            child.number = f"{number}.{position}"

    def sub(self, key: str) -> Heading:
        """The heading of the subsection ``key`` (a template writes ``sub("thresholds")``)."""
        for child in self.heading.children:
            if child.id == key:
                return child
        raise KeyError(f"no subsection {key!r} in section {self.id!r}")


@cache
def environment() -> jinja2.Environment:
    """The templates of the report: every value escaped, an unknown name an error."""
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("tarot_analysis.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["label"] = label
    return env


# --- Numbers as the report writes them -----------------------------------------------------------


def plural(number: int, noun: str) -> str:
    """``1 chunk``, ``2 chunks``."""
    return f"{number:,} {noun}{'' if number == 1 else 's'}"


def count(value: float) -> str:
    return f"{int(value):,}"


def probability(value: float) -> str:
    """A probability with six decimals, or three significant digits when it is tiny."""
    if value is None or pd.isna(value):
        return "—"
    return f"{value:.6f}" if value >= 1e-4 or value == 0 else f"{value:.3e}"


def percent(value: float, digits: int = 1) -> str:
    return "—" if pd.isna(value) else f"{value:.{digits}%}"


def percent_interval(low: float, high: float, digits: int = 1) -> str:
    if pd.isna(low) or pd.isna(high):
        return "—"
    return f"{low:.{digits}%} – {high:.{digits}%}"


def signed(value: float, digits: int = 1) -> str:
    return "—" if pd.isna(value) else f"{value:+.{digits}f}"


def mean_with_interval(mean: float, half: float, digits: int = 1) -> str:
    """``+12.3 ± 1.4``, kept on one line (no-break spaces) when a printed table wraps."""
    if pd.isna(mean):
        return "—"
    if pd.isna(half):
        return f"{mean:+.{digits}f}"
    return f"{mean:+.{digits}f}\u00a0±\u00a0{half:.{digits}f}"


def rate_with_interval(rate: float, low: float, high: float) -> str:
    """``15.6% (14.8–16.5)``: a rate and its interval, in percent."""
    if pd.isna(rate):
        return "—"
    return f"{rate:.1%} ({low * 100:.1f}–{high * 100:.1f})"


def threshold(value: float) -> str:
    return "none" if not math.isfinite(value) else f"{value:.0f}"


def label(contract: str) -> str:
    """A contract as a player writes it: ``Garde sans``; ``A ≈ B`` kept as a tie of two."""
    from tarot_analysis.report.plots import contract_label

    return " ≈ ".join(contract_label(part) for part in str(contract).split(" ≈ "))


def best_text(row: pd.Series) -> str:
    """``Garde``, or ``Garde ≈ Prise`` when the runner-up is tied with it."""
    if bool(row.get("tie", False)):
        return f"{label(str(row['best']))} ≈ {label(str(row['runner_up']))}"
    return label(str(row["best"]))


def difference_text(row: pd.Series) -> str:
    """The best's lead on the runner-up: ``+14.6 (+6.3 to +23.0)``."""
    if pd.isna(row["difference_ci_low"]):
        return signed(row["difference"])
    return (
        f"{row['difference']:+.1f} ({row['difference_ci_low']:+.1f} to "
        f"{row['difference_ci_high']:+.1f})"
    )
