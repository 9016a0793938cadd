"""The report put together: its runs, its sections numbered in order, one HTML file."""

from __future__ import annotations

import os
import time
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final

from markupsafe import Markup

from tarot_analysis import __version__
from tarot_analysis.errors import TarotInputError, deal_count, thread_count
from tarot_analysis.report import (
    bidding,
    bound,
    contracts,
    hands,
    ladder,
    limits,
    losses,
    model,
    reading,
    run,
    summary,
    thresholds,
)
from tarot_analysis.report.html import Context, Heading, Section, environment
from tarot_analysis.report.runs import (
    AUCTION_DEALS,
    GUIDANCE_CHUNK_SIZE,
    Runs,
    auction_tables,
    guidance,
    hand_tables,
    report_path,
)
from tarot_analysis.runs.files import write_text

if TYPE_CHECKING:
    from tarot_analysis.game.rules import Rules

__all__ = ["PRINTING", "build_report", "render_page"]

#: Said after the reason when no PDF could be printed: how to get one all the same.
PDF_HOW_TO: Final = (
    "the report is written as HTML: print it to PDF from a browser, or install Chromium "
    "(on Debian, as root: make browser) and run the same command again, which reuses its runs"
)
#: The phase of printing the PDF, as the progress display names it.
PRINTING = "printing"


def _seat_bots(bots: str | Sequence[str] | None, rules: Rules) -> tuple[tuple[str, ...], str]:
    """One bot per seat, from one name, one per seat, or none (the default bots of ``rules``,
    :func:`tarot_analysis.bots.default.seated_bots`), and why the default is the heuristic
    where it is (empty otherwise)."""
    from tarot_analysis.bots import Bot
    from tarot_analysis.bots.default import seated_bots

    seated, note = seated_bots(bots, rules)
    players = rules.players
    names = tuple(seated)
    if len(names) == 1:
        names = names * players
    if len(names) != players:
        raise TarotInputError(
            f"give one bot for every seat or one per seat ({players}), got {len(names)}"
        )
    for name in names:
        Bot.parse(name)  # an unknown bot fails here, before any dealing
    return names, note


def render_page(title: str, lede: str, sections: Sequence[Section]) -> str:
    """The HTML page of ``sections``, numbered in order, the contents after the first."""
    for number, section in enumerate(sections, start=1):
        section.number(number)
    contents = [section.heading for section in sections]
    by_id: dict[str, Heading] = {}
    for heading in [h for top in contents for h in (top, *top.children)]:
        if heading.id in by_id:  # a link must lead to one place
            raise ValueError(f"two headings of the report have the id {heading.id!r}")
        by_id[heading.id] = heading

    def link(key: str) -> Markup:
        heading = by_id[key]
        return Markup('<a href="#{}">{}</a>').format(heading.id, heading.text)

    env = environment()
    rendered = [
        (
            section,
            Markup(
                env.get_template(section.template).render(
                    section=section, contents=contents, link=link, **section.values
                )
            ),
        )
        for section in sections
    ]
    return env.get_template("page.html.j2").render(
        title=title, lede=lede, version=__version__, contents=contents, sections=rendered
    )


def build_report(
    rules: str | Rules,
    deals: int,
    *,
    bots: str | Sequence[str] | None = None,
    seed: int = 1,
    data_dir: str | os.PathLike[str] = "data",
    out_dir: str | os.PathLike[str] = "reports",
    threads: int | None = None,
    progress: bool = False,
    pdf: bool = False,
    client: object = None,
) -> Path:
    """Write the strategy report of ``rules`` and return its path.

    ``rules``: a preset name, a TOML file or a :class:`~tarot_analysis.game.rules.Rules`. ``bots``:
    one name for every seat, or one per seat (default: ``learned`` at every seat, the network
    shipped for the preset, or ``heuristic`` for a preset with none,
    :func:`tarot_analysis.bots.default.default_bot`). Hand statistics and the guidance run use
    ``deals`` deals; the auction, at most :data:`~tarot_analysis.report.runs.AUCTION_DEALS`.
    Runs and tables already in ``data_dir`` for the same rules, bots, seed and deals are reused.
    The report goes to ``out_dir/strategy-<rules>-<bots>-<deals>.html``.

    ``pdf=True`` also prints it to a PDF beside it with a headless Chromium; when there is
    none, or it fails, a warning says so in one line, with how to get the PDF
    (:data:`PDF_HOW_TO`), and the HTML stays. ``client``: a Dask
    client whose workers run the chunks (the same report as on local threads).
    """
    from tarot_analysis.game.rules import load_rules
    from tarot_analysis.report.pdf import render_pdf
    from tarot_analysis.runs.memory import check_memory
    from tarot_analysis.runs.progress import WRITING_CHARTS, step
    from tarot_analysis.runs.simulate import check_output_path, check_writable_folder

    started = time.perf_counter()
    deals, threads = deal_count(deals), thread_count(threads)
    if seed < 0:
        raise TarotInputError(f"the seed must be a non-negative integer, got {seed}")
    loaded = load_rules(rules) if isinstance(rules, str) else rules
    if loaded.tarocco is not None:
        raise TarotInputError(f"{loaded.name} has no contracts: there is no bid to advise")
    names, bots_note = _seat_bots(bots, loaded)
    from tarot_analysis.analyses.guidance import check_enough_to_fit

    check_enough_to_fit(loaded, deals, seed, GUIDANCE_CHUNK_SIZE)  # before any deal is played
    target = report_path(loaded.name, names, deals, out_dir)
    # The guidance keeps its deals (the fitted model reads them), for two seats.
    check_memory("guidance", deals, None, runs=2)
    check_output_path(target)  # a bad output folder fails before the runs, not after
    check_writable_folder(data_dir, " for the report's runs")
    context = Context(
        rules=loaded, rules_argument=rules if isinstance(rules, str) else loaded.name, bots=names,
        seed=seed, deals=deals, auction_deals=min(deals, AUCTION_DEALS), bots_note=bots_note,
    )  # fmt: skip
    runs = Runs(data_dir=Path(data_dir), threads=threads, client=client, progress=progress)
    hand_run = hand_tables(loaded, deals, seed, runs)
    auction = auction_tables(loaded, context.auction_deals, names, seed, runs)
    advice = guidance(loaded, deals, names, seed, runs)

    with step(WRITING_CHARTS, progress, detail=f"the report of {loaded.name}") as shown:
        # The data folder read once: the summary and the ladder show the same runs.
        shown.set_postfix_str("the runs beside this one")
        found = ladder.read_ladder(advice, auction, context, data_dir)
        by_count = found.ours.advice
        parts = [
            ("summary", lambda: summary.section(advice, auction, context, data_dir, found)),
            ("how to read it", lambda: reading.section(context)),
            ("bidding guidance", lambda: bidding.section(advice, context, by_count)),
            ("thresholds", lambda: thresholds.section(advice, context)),
            ("the success model", lambda: model.section(advice, context)),
            ("contracts at the table", lambda: contracts.section(auction, context)),
            ("up the ladder of bots", lambda: ladder.section(found, context, data_dir)),
            ("a bound no bot's skill enters", lambda: bound.section(context, data_dir)),
            ("where the heuristic loses most", lambda: losses.section(context, data_dir)),
            ("hand statistics", lambda: hands.section(hand_run, context)),
        ]
        sections = []
        for name, make in parts:
            shown.set_postfix_str(name)
            sections.append(make())
    # Built last, so that the time it states counts the charts; "What this does not say" closes.
    sections += [run.section(context, hand_run, auction, advice, started), limits.section(context)]
    page = render_page(
        f"Strategy report — {loaded.name}",
        f"{loaded.description}: what to bid, contracts at the table and hand statistics, "
        f"{context.bots_text}, {deals:,} deals.",
        sections,
    )
    write_text(target, page)  # whole or not at all: a killed run leaves the old report
    if pdf:
        try:
            with step(PRINTING, progress, detail=f"{target.with_suffix('.pdf').name}, A4"):
                render_pdf(target)
        except TarotInputError as error:
            warnings.warn(f"{error}; {PDF_HOW_TO}", stacklevel=2)
    return target
