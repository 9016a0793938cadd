"""Section "Summary": what to bid, on one printed page, in a player's words.

How to count a hand by Chavey's count, with a hand dealt under the report's rules counted part
by part; the thresholds fitted on that count with their intervals beside the published ones,
the best contract by range of count with its ties, what the published thresholds cost, the
contracts at the table, which bots played and what that means, the same advice under other
bots when such a run is at hand, and links to the sections that show the detail.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Final, cast

import pandas as pd

from tarot_analysis.deals import evaluators as ev
from tarot_analysis.report.bidding import COUNTERFACTUAL, best_by_chavey_text
from tarot_analysis.report.html import (
    Context,
    Section,
    Table,
    bots_label,
    count,
    label,
    percent,
    rate_with_interval,
    threshold,
)
from tarot_analysis.report.runs import Guidance, Stored
from tarot_analysis.report.stronger import BotsComparison

__all__ = ["BOT_MEANINGS", "how_to_count", "section", "stronger_play"]

#: What each bot is, said to a player.
BOT_MEANINGS: Final[dict[str, str]] = {
    "heuristic": (
        "a hand-written player: it bids by its own count of the hand, keeps its bouts safe, "
        "leads and follows by rules of thumb of club play and counts the cards played; it does "
        "not search"
    ),
    "random": (
        "a random legal card at every turn and a random bid: a floor, not a player; its "
        "contract rates say what the cards alone allow"
    ),
    "pimc": (
        "a search bot: for each card it draws deals of the hidden cards consistent with the "
        "play so far, plays each out and keeps the card that scores best on average; it beats "
        "the heuristic in duplicate, at a few deals a second"
    ),
}


def _meaning(name: str) -> str:
    base = name.partition(":")[0]
    meaning = BOT_MEANINGS.get(base, "a bot of this toolkit")
    return f"{name}: {meaning}" if base == name else f"{name} (a variant of {base}): {meaning}"


def how_to_count(context: Context) -> dict[str, str]:
    """Chavey's count told to a player, from the toolkit's own constants, and one hand dealt
    under the report's rules and seed, counted part by part by :func:`~evaluators.chavey_sum`:
    ``rules`` (how to count), ``hand`` (its cards), ``sum`` (the count part by part) and
    ``bid`` (what the published thresholds bid with it)."""
    from tarot_analysis.engine.game import GameState
    from tarot_analysis.game.cards import Hand

    rules = context.rules
    petit = ev.PETIT_VALUE_BY_TRUMPS
    least = ev.TRUMP_LENGTH_LEAST
    length = ev.LONG_SUIT_VALUE_BY_LENGTH
    text = (
        f"Trumps: the 21 {ev.TWENTY_ONE_VALUE}, the Excuse {ev.EXCUSE_VALUE}, the Petit "
        f"{petit[least]} / {petit[least + 1]} / {petit[least + 2]} with {least} / {least + 1} "
        f"/ {least + 2}+ trumps; holding {least}+ trumps (the Excuse counts) {ev.TRUMP_VALUE} "
        f"each; each of {ev.LEAST_MAJOR} to 21 {ev.MAJOR_VALUE} more, {ev.MAJOR_SEQUENCE_VALUE} "
        f"more beside another. Suits: king with queen {ev.KING_AND_QUEEN_VALUE}, king "
        f"{ev.KING_VALUE}, queen {ev.QUEEN_VALUE}, knight {ev.KNIGHT_VALUE}, jack "
        f"{ev.JACK_VALUE}; 5 / 6 / 7+ cards {length[5]} / {length[6]} / {length[7]}. Garde "
        f"sans or contre only: a void {ev.VOID_VALUE}, a singleton {ev.SINGLETON_VALUE}. "
        "Chavey's own thresholds are in the table below."
    )
    if rules.hand_size != ev.CHAVEY_HAND_SIZE:
        text += (
            f" With {rules.hand_size} cards a hand, the count is scaled by "
            f"{ev.CHAVEY_HAND_SIZE}/{rules.hand_size} before it meets these thresholds."
        )
    state = GameState.deal(rules, seed=context.seed)
    hand = Hand(state.hand(0))
    lo, hi = hand.mask
    count = int(ev.chavey(lo, hi))
    bid = ev.chavey_bid(count, int(ev.chavey(lo, hi, with_distribution=True)),
                        hand_size=rules.hand_size)  # fmt: skip
    name = str(ev.bid_names(bid))
    return {
        "rules": text,
        "hand": str(hand),
        "sum": ev.chavey_sum(hand),
        "bid": "a pass" if name == "pass" else f"a {label(name)}",
    }


def _thresholds(guidance: Guidance, context: Context) -> Table:
    table = guidance.tables["thresholds"]
    replicates = int(table["replicates"].iloc[0]) if len(table) else 0
    rows = []
    for index, row in table.iterrows():
        evaluator, contract = cast(tuple[str, str], index)
        if evaluator != "chavey":
            continue
        rows.append(
            [
                label(contract),
                threshold(row["fitted"]),
                f"{threshold(row['ci_low'])} to {threshold(row['ci_high'])}",
                f"{percent(1 - row['never_alone'], 0)} of draws",
                threshold(row["published"]),
            ]
        )
    caption = context.caption(
        "What to bid: the Chavey count from which each contract, or a higher one, is bid",
        mode=COUNTERFACTUAL, n=f"{guidance.data.played_deals:,} deals played",
        interval=f"95% interval: where the count falls when the deals are drawn again "
        f"({replicates} draws)",
    )  # fmt: skip
    header = ["contract", "bid from", "likely between", "a count of its own", "Chavey"]
    note = (
        "Bid from: from this count on, this contract or a higher one scores best here; likely "
        "between: in 95% of draws of the deals made again; a count of its own: the draws in "
        "which some count bids it and no higher one (when few, bid the next one up)."
    )
    return Table("summary-thresholds", caption, header, rows, note=note)


def _points_a_deal(mean: float, low: float, high: float) -> str:
    """``+5.2 (4.9 to 5.5)``: points a deal and their interval, in words a player reads."""
    if pd.isna(mean):
        return "—"
    return f"{mean:+.1f} ({low:+.1f} to {high:+.1f})"


def _contracts(auction: Stored, context: Context) -> Table:
    table = auction.tables["contracts"]
    played = int(auction.extra["played"])
    rows = [
        [
            label(str(name)),
            rate_with_interval(row["share"], row["share_ci_low"], row["share_ci_high"]),
            rate_with_interval(row["rate"], row["ci_low"], row["ci_high"]),
            _points_a_deal(row["mean_taker_score"], row["score_ci_low"], row["score_ci_high"]),
        ]
        for name, row in table.iterrows()
    ]
    caption = context.caption(
        "Contracts at the table: how often the bots bid each, and how often it makes",
        mode="auction (the bots bid in turn; the highest bid is played)",
        n=f"{played:,} deals played of {context.auction_deals:,} dealt",
        interval="95% intervals in brackets",
    )  # fmt: skip
    header = ["contract", "bid on (share of deals)", "made", "taker's score a deal"]
    return Table("summary-contracts", caption, header, rows)


def _loss(mean: object, half: object) -> str:
    """A loss in points a deal with its 95% interval: ``6.3 points a deal (5.2 to 7.4)``, ``a
    gain of 0.5 points a deal (0.2 to 0.8)`` when it is below zero, and ``a loss too small to
    measure`` when the interval reaches zero (with the interval, unless both ends round to
    0.0)."""
    centre, width = float(cast(float, mean)), float(cast(float, half))
    low, high = centre - width, centre + width
    if round(low, 1) == 0 and round(high, 1) == 0:
        return "a loss too small to measure"
    if high < 0:
        return f"a gain of {-centre:.1f} points a deal ({-high:.1f} to {-low:.1f})"
    if low <= 0:
        return f"a loss too small to measure ({low + 0.0:.1f} to {high + 0.0:.1f} points a deal)"
    return f"{centre:.1f} points a deal ({low:.1f} to {high:.1f})"


def _loss_sentence(guidance: Guidance) -> str:
    loss = guidance.tables["threshold_loss"]
    if "chavey" not in loss.index:
        return ""
    row = loss.loc["chavey"]
    text = (
        "What bidding by Chavey's published thresholds loses against bidding the best contract "
        f"at each count: {_loss(row['out_of_sample_loss'], row['out_of_sample_ci_half_width'])}"
        ", measured on deals that did not choose it (chosen on half of the deals, scored on the "
        "other)"
    )
    if "chavey_fitted" in loss.index:
        fitted = loss.loc["chavey_fitted"]
        cost = _loss(fitted["out_of_sample_loss"], fitted["out_of_sample_ci_half_width"])
        text += f"; by the thresholds fitted here: {cost}"
    return text + "."


@dataclass(frozen=True)
class _Stronger:
    """The other bots' run, as the summary shows it."""

    comparison: BotsComparison
    table: Table
    command: str


def stronger_play(
    guidance: Guidance, context: Context, data_dir: str | os.PathLike[str]
) -> _Stronger | str:
    """The advice under other bots from a run of the same deals in ``data_dir``, or a sentence
    saying how to make one."""
    from tarot_analysis.report.stronger import compare_runs, other_runs
    from tarot_analysis.runs.runner import read_dataset

    ours = guidance.data.frame
    published = [
        float(row["published"])
        for index, row in guidance.tables["thresholds"].iterrows()
        if cast(tuple[str, str], index)[0] == "chavey"
    ]
    label_ours = bots_label(context.bots)
    # The next stronger bots: the heuristic after random, the search bot after the heuristic.
    other = (
        "heuristic" if label_ours == "random" else "pimc" if label_ours != "pimc" else "heuristic"
    )
    suggested = Path(data_dir) / f"guidance-{context.rules.name}-{other}-seed{context.seed}-3000"
    command = (
        f"tarot-analysis guidance --rules {context.rules_argument} --deals 3000 --bots {other} "
        f"--seed {context.seed} --data {suggested.as_posix()}"
    )
    if ours is None:
        return ""
    for folder in other_runs(data_dir, context.rules.name, label_ours, context.seed):
        bots = folder.name.removeprefix(f"guidance-{context.rules.name}-").rsplit("-seed", 1)[0]
        try:
            rows = read_dataset(folder).to_pandas()
        except Exception:  # an unfinished or foreign folder is not a comparison
            continue
        comparison = compare_runs(ours, rows, published, folder, bots)
        if comparison is None or not comparison.bands:
            continue
        return _Stronger(comparison, _stronger_table(comparison, context), command)
    return command


def _stronger_table(comparison: BotsComparison, context: Context) -> Table:
    def lead(values: tuple[float, float, float]) -> str:
        mean, low, high = values
        if pd.isna(low):
            return f"{mean:+.1f}"
        return f"{mean:+.1f} ({low:+.1f} to {high:+.1f})"

    ours = bots_label(context.bots)
    rows = [
        [
            band.band,
            count(band.deals),
            f"{label(band.best[0])}, {lead(band.difference[0])}",
            f"{label(band.best[1])}, {lead(band.difference[1])}",
            lead(band.garde_change),
        ]
        for band in comparison.bands
    ]
    caption = context.caption(
        f"The same deals under {comparison.bots} bots: the best contract by band of Chavey count",
        mode=COUNTERFACTUAL,
        n=f"{comparison.deals:,} deals both runs played, the same hands (checked)",
        interval="best less runner-up, and the Garde's change, deal by deal with their 95% "
        "intervals",
        bots=f"{ours} at every seat, then {comparison.bots} at every seat",
    )  # fmt: skip
    header = [
        "Chavey count", "deals", f"best, {ours} (lead on runner-up)",
        f"best, {comparison.bots} (lead on runner-up)", f"Garde, {comparison.bots} − {ours}",
    ]  # fmt: skip
    return Table("stronger-play", caption, header, rows)


def section(
    guidance: Guidance, auction: Stored, context: Context, data_dir: str | os.PathLike[str]
) -> Section:
    names = list(dict.fromkeys(context.bots))
    return Section(
        "summary", "Summary", "summary.html.j2",
        {
            "context": context,
            "count": how_to_count(context),
            "best": best_by_chavey_text(guidance) or "no count held by enough deals",
            "thresholds": _thresholds(guidance, context),
            "loss": _loss_sentence(guidance),
            "contracts": _contracts(auction, context),
            "meanings": [_meaning(name) for name in names],
            "stronger": stronger_play(guidance, context, data_dir),
        },
    )  # fmt: skip
