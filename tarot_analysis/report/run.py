"""Section "How these numbers were made": rules, bots and the match that measured them, seed,
chunking, data and commands."""

from __future__ import annotations

import time
from datetime import UTC, datetime

from tarot_analysis import __version__
from tarot_analysis.report.html import Context, Section, plural
from tarot_analysis.report.runs import GUIDANCE_CHUNK_SIZE, Guidance, Stored
from tarot_analysis.report.summary import bot_strength

__all__ = ["section"]


def _reuse(stored: Stored) -> str:
    state = "reused" if stored.reused else "computed now"
    version = stored.metadata.get("version", __version__)
    by = f", by tarot-analysis {version}" if version != __version__ else ""
    return f"{stored.path} ({state}{by})"


def section(
    context: Context, hands: Stored, auction: Stored, guidance: Guidance, started: float
) -> Section:
    """Built last, so that the time it states counts the charts too."""
    from tarot_analysis.deals.deal import DEFAULT_CHUNK_SIZE

    rules = context.rules
    base = f"--rules {context.rules_argument} --seed {context.seed}"
    bots = context.bots_argument
    guidance_chunks = -(-context.deals // GUIDANCE_CHUNK_SIZE)
    hand_chunks = -(-context.deals // DEFAULT_CHUNK_SIZE)
    entries = [
        ("Rules", f"{rules.name} — {rules.description}"),
        ("Rules source", rules.source),
        (
            "Table",
            f"{rules.players} players, {rules.hand_size} cards each, a dog of {rules.dog_size}",
        ),
        ("Bots", context.bots_text),
        ("Seed", str(context.seed)),
        (
            "Deals (n)",
            f"{context.deals:,} for hand statistics and guidance; {context.auction_deals:,} "
            "in auction mode",
        ),
        (
            "Chunking",
            f"hand statistics and auction: chunks of {DEFAULT_CHUNK_SIZE:,} deals "
            f"({plural(hand_chunks, 'chunk')} for the hands); guidance: "
            f"{plural(guidance_chunks, 'chunk')} of {GUIDANCE_CHUNK_SIZE:,}; chunk i draws "
            "from SeedSequence(seed, spawn_key=(i,))",
        ),
        ("Hand statistics data", _reuse(hands)),
        ("Auction data", _reuse(auction)),
        (
            "Guidance run",
            f"{guidance.folder} ({plural(guidance.resumed, 'chunk')} reused, "
            f"{guidance.computed:,} computed now)",
        ),
        ("tarot-analysis version", __version__),
        (
            "Date",
            datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
            + f" (built in {time.perf_counter() - started:.1f} s)",
        ),
    ]
    strength = bot_strength(context)
    if strength.command:  # the match page 1 quotes
        entries.insert(
            entries.index(("Bots", context.bots_text)) + 1,
            ("Strength quoted on page 1", f"{strength.command} (docs/bots.md: {strength.where})"),
        )
    commands = [
        f"tarot-analysis hands {base} --deals {context.deals}",
        f"tarot-analysis play {base} --deals {context.auction_deals} --bots {bots}",
        f"tarot-analysis guidance {base} --deals {context.deals} --bots {bots} --seat both",
    ]
    return Section(
        "run", "How these numbers were made", "run.html.j2",
        {"entries": entries, "commands": commands},
    )  # fmt: skip
