"""The page of one hand: its contracts by simulation, its calls, its exact odds and, with the
dog, its écarts ranked — one self-contained HTML file, built from the report's templates."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tarot_analysis.deals.evaluators import (
    BOUTS_AND_TRUMPS_THRESHOLDS,
    CHAVEY_HAND_SIZE,
    CHAVEY_THRESHOLDS,
)
from tarot_analysis.deals.odds import dog_text
from tarot_analysis.game.cards import Hand
from tarot_analysis.report.html import (
    Caption,
    Section,
    Table,
    bots_text,
    label,
    mean_with_interval,
    percent,
    rate_with_interval,
)
from tarot_analysis.runs.files import write_text

if TYPE_CHECKING:
    from tarot_analysis.analyses.ecart import EcartAdvice
    from tarot_analysis.analyses.one_hand import HandAnalysis
    from tarot_analysis.deals.odds import HandOdds

__all__ = ["write_hand_page"]

_EXACT = "exact (no interval: a count of deals, not a sample)"


def _caption(title: str, rules: str, bots: str, mode: str, n: str, interval: str) -> Caption:
    return Caption(title, rules, bots, mode, n, interval)


def _contracts(analysis: HandAnalysis) -> Table:
    summary = analysis.outcomes.summary()
    rows = [
        [
            label(str(name)),
            f"{int(row['n']):,}",
            rate_with_interval(row["rate"], row["ci_low"], row["ci_high"]),
            mean_with_interval(row["mean_score"], (row["score_ci_high"] - row["score_ci_low"]) / 2),
        ]
        for name, row in summary.iterrows()
    ]
    choice = analysis.choice
    note = f"Recommended: {label(analysis.recommended)} (pass scores 0)"
    if choice.get("runner_up"):
        tie = ", a tie" if choice.get("tie") else ""
        note += (
            f"; ahead of {label(str(choice['runner_up']))} by {choice['difference']:+.1f} "
            f"({choice['ci_low']:+.1f} to {choice['ci_high']:+.1f}) deal by deal{tie}"
        )
    caption = _caption(
        "Each contract played on the same deals, the hand as dealt", analysis.rules.name,
        bots_text(analysis.bots),
        "counterfactual (the hand as dealt takes every contract; the bid comes before the dog "
        "is seen)",
        f"{analysis.deals:,} deals dealt around the hand",
        "Wilson 95% on success, normal 95% on the mean score",
    )  # fmt: skip
    header = ["contract", "deals played", "made (95%)", "taker's mean score (95%)"]
    return Table("hand-contracts", caption, header, rows, note=note + ".")


def _counts(analysis: HandAnalysis) -> Table:
    """The published counts of the hand and the bid their thresholds give, beside the bid the
    deals recommend."""
    ev, published = analysis.evaluations, analysis.published_bids
    rows = [
        ["Chavey's count, part by part", analysis.chavey_sum, label(published["chavey"])],
        [
            "bouts and trumps",
            f"{ev['bouts_and_trumps']}",
            label(published["bouts_and_trumps"]),
        ],
    ]
    prise, garde, garde_sans, garde_contre = CHAVEY_THRESHOLDS
    thumb_prise, thumb_garde = BOUTS_AND_TRUMPS_THRESHOLDS
    scaled = (
        ""
        if analysis.rules.hand_size == CHAVEY_HAND_SIZE
        else f"; a hand of {analysis.rules.hand_size} cards is put on the scale of "
        f"{CHAVEY_HAND_SIZE}"
    )
    caption = _caption(
        "The published counts and the bid their thresholds give", analysis.rules.name,
        "none (the cards alone)",
        f"Chavey: Prise from {prise}, Garde from {garde}, Garde sans from {garde_sans} and Garde "
        f"contre from {garde_contre}, the last two with voids and singletons; bouts and trumps: "
        f"Prise from {thumb_prise}, Garde from {thumb_garde}{scaled}",
        "one hand", "none: a count of the cards, not a sample",
    )  # fmt: skip
    note = (
        f"The bid these deals recommend: {label(analysis.recommended)} (the table above), "
        f"beside {label(published['chavey'])} by Chavey's thresholds."
    )
    return Table(
        "hand-counts", caption, ["count", "the hand's count", "published bid"], rows, note=note
    )


def _calls(analysis: HandAnalysis) -> Table | None:
    if analysis.calls.empty:
        return None
    rows = [
        [
            str(call),
            label(str(row["best_contract"])),
            mean_with_interval(row["mean_score"], (row["score_ci_high"] - row["score_ci_low"]) / 2),
            "best"
            if row["rank"] == 1
            else f"{row['difference']:+.1f} ({row['difference_ci_low']:+.1f} to "
            f"{row['difference_ci_high']:+.1f})" + (" ≈ tie" if row["tie"] else ""),
        ]
        for call, row in analysis.calls.iterrows()
    ]
    caption = _caption(
        "The cards that may be called, best first", analysis.rules.name,
        bots_text(analysis.bots), "counterfactual (each call played on the same deals)",
        f"{analysis.deals:,} deals per call",
        "normal 95% on the mean, and on the difference from the best, deal by deal",
    )  # fmt: skip
    header = ["call", "best contract", "mean score (95%)", "less the best call (95%)"]
    return Table("hand-calls", caption, header, rows)


def _stages(odds: HandOdds, key: str = "hand") -> Table | None:
    """The taker's hand as dealt, with the dog it took, its écart and what it keeps."""
    if odds.dog_seen is None or odds.dog_brings is None:
        return None
    rows = [
        ["as dealt", str(odds.hand)],
        ["the dog", f"{odds.dog_seen}: {dog_text(odds.dog_brings)}"],
        ["with the dog", str(Hand(odds.hand.cards + odds.dog_seen.cards))],
    ]
    if odds.ecart is not None:
        rows += [
            ["the écart", f"{odds.ecart} ({odds.ecart_by}; {odds.ecart_points:g} card points)"],
            ["after the écart", str(odds.figures_hand)],
        ]
    whose = "" if odds.ecart_by is None else f", {odds.ecart_by}"
    caption = _caption(
        f"The taker's hand: the odds below are for the hand {odds.stage}{whose}",
        odds.rules_name, "none (the cards alone)", "exact", "one hand",
        "none: the cards as they are",
    )  # fmt: skip
    return Table(f"{key}-stages", caption, ["stage", "cards"], rows)


def _odds_tables(odds: HandOdds, key: str = "hand", *, dog: bool = True) -> list[Table]:
    """The odds of the suits, of the trumps and bouts and, with ``dog``, of what the dog brings;
    ``key`` opens the tables' ids."""
    exact = {"rules": odds.rules_name, "bots": "none (the cards alone decide it)"}
    n = f"every deal of the unseen cards, the hand {odds.stage}" + (
        "" if odds.dog_seen is None else " (the dog taken by this seat)"
    )
    suits = [
        [
            letter,
            str(suit.held),
            str(suit.missing),
            "—" if suit.king_passes is None else percent(suit.king_passes),
            "—" if suit.queen_passes_after_king is None else percent(suit.queen_passes_after_king),
            ", ".join(f"{s.text()} {s.probability:.1%}" for s in suit.splits[:3]),
        ]
        for letter, suit in odds.suits.items()
    ]
    trumps = odds.trumps
    trump_rows = [
        ["held", odds.figures_hand.trumps_text],
        ["missing trumps", str(trumps.missing)],
    ]
    trump_rows += [
        [
            "likeliest splits",
            ", ".join(f"{s.text()} {s.probability:.1%}" for s in trumps.splits[:3]),
        ]
    ]
    trump_rows += [
        [f"another player holds a {level} poignée", f"{p:.2%}"]
        for level, p in trumps.poignee.items()
    ]
    trump_rows += [
        [
            "the Petit out, with "
            + ("one other trump" if most == 1 else f"1 to {most} other trumps"),
            percent(p),
        ]
        for most, p in trumps.petit_short.items()
    ]
    trump_rows += [
        [f"the {name.replace('_', ' ')} (lacked) in {where}", percent(p)]
        for name, places in odds.bouts.items()
        for where, p in places.items()
    ]
    tables = [
        Table(
            f"{key}-suits",
            _caption("The suits: what is missing, whether the king and queen pass",
                     mode="exact", n=n, interval=_EXACT, **exact),
            ["suit", "held", "missing", "king passes", "queen passes after the king",
             "likeliest splits (other hands; the dog)"],
            suits,
            note=odds.models["king_passes"] + " " + odds.models["queen_passes_after_king"],
        ),
        Table(
            f"{key}-trumps",
            _caption("The trumps and the bouts", mode="exact", n=n, interval=_EXACT, **exact),
            ["question", "chance"], trump_rows,
            note=odds.models["poignee"] + " " + odds.models["petit_short"],
        ),
    ]  # fmt: skip
    if not dog:
        return tables
    if odds.dog_brings is not None:
        brings = odds.dog_brings
        rows = [
            ["bouts", ", ".join(brings["bouts"]) or "none"],
            ["trumps", brings["trumps_text"]],
            ["kings", ", ".join(brings["kings"]) or "none"],
            ["card points", f"{brings['points']:g}"],
        ]
        caption = _caption(
            f"What this dog brings: {brings['cards']}", mode="exact", n="the dog seen",
            interval="none: the cards as they are", **exact,
        )  # fmt: skip
        tables.append(Table("hand-dog", caption, ["in the dog", "held"], rows))
    elif odds.dog:
        rows = [
            [
                feature,
                ", ".join(f"{k}: {p:.1%}" for k, p in sorted(law.items(), key=lambda i: -i[1])[:5]),
            ]
            for feature, law in odds.dog.items()
        ]
        caption = _caption("What the dog brings", mode="exact", n=n, interval=_EXACT, **exact)
        tables.append(Table("hand-dog", caption, ["in the dog", "likeliest values"], rows))
    return tables


def _ecart(advice: EcartAdvice) -> Table:
    rows = [
        [
            str(ecart),
            str(row["why"]),
            mean_with_interval(row["mean_score"], row["half_width"]),
            "best"
            if row["rank"] == 1
            else f"{row['difference']:+.1f} ({row['ci_low']:+.1f} to {row['ci_high']:+.1f})"
            + (" ≈ tie" if row["tie"] else ""),
        ]
        for ecart, row in advice.table.iterrows()
    ]
    caption = _caption(
        f"The écarts, best first, in a {label(advice.contract)}", advice.rules_name,
        bots_text(advice.bots), "the taker forced, each écart played on the same deals",
        f"{advice.deals:,} deals around the hand and the dog",
        "normal 95% on the mean, and on the difference from the best, deal by deal",
    )  # fmt: skip
    return Table(
        "hand-ecarts", caption, ["écart", "idea", "mean score (95%)", "less the best (95%)"], rows
    )


def write_hand_page(
    path: str | os.PathLike[str],
    analysis: HandAnalysis,
    odds: HandOdds,
    advice: EcartAdvice | None = None,
    own_odds: HandOdds | None = None,
) -> Path:
    """Write the page of one hand to ``path`` and return it. With the dog, ``odds`` are those
    after the best écart ``advice`` ranks, and ``own_odds``, if given, those after the player's
    own écart (or the heuristic bot's)."""
    from tarot_analysis.report.build import render_page
    from tarot_analysis.runs.simulate import check_output_path

    target = Path(path)
    check_output_path(target)
    calls = _calls(analysis)
    stages = _stages(odds)
    own: list[Table] = []
    if own_odds is not None:
        own_stages = _stages(own_odds, "hand-own")
        own = ([] if own_stages is None else [own_stages]) + _odds_tables(
            own_odds, "hand-own", dog=False
        )
    values: dict[str, Any] = {
        "odds": odds,
        "contracts": _contracts(analysis),
        "counts": _counts(analysis),
        "calls": calls,
        "odds_tables": ([] if stages is None else [stages]) + _odds_tables(odds) + own,
        "ecart": None if advice is None else _ecart(advice),
    }
    sections = [Section("hand", "This hand", "hand_page.html.j2", values)]
    page = render_page(
        f"One hand — {analysis.rules.name}",
        f"{analysis.hand}, seat {analysis.seat}"
        + ("" if odds.dog_seen is None else f", the dog {odds.dog_seen}")
        + f"; {bots_text(analysis.bots)}.",
        sections,
    )
    return write_text(target, page)
