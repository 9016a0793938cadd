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
from typing import Final, NamedTuple, cast

import numpy as np
import pandas as pd

from tarot_analysis.bots import measured
from tarot_analysis.deals import evaluators as ev
from tarot_analysis.report.bidding import (
    BAND_NOTE,
    COUNTERFACTUAL,
    band_cell,
    by_count_parts,
    pooled_sentence,
)
from tarot_analysis.report.html import (
    Cell,
    Context,
    Section,
    Table,
    label,
    percent,
    rate_with_interval,
    threshold,
)
from tarot_analysis.report.ladder import GuidanceRung, Ladder, command_time, guidance_command
from tarot_analysis.report.prise import PRISE, PriseReading
from tarot_analysis.report.runs import Guidance, Stored

__all__ = [
    "BOT_MEANINGS",
    "LADDERS",
    "bot_limits",
    "bot_strength",
    "how_to_count",
    "ladder_moves",
    "scaled_thresholds",
    "section",
    "stronger_play",
]

#: What each bot is, said to a player.
BOT_MEANINGS: Final[dict[str, str]] = {
    "heuristic": (
        "a hand-written player: it bids by its own count of the hand, keeps its bouts safe, "
        "leads and follows by rules of thumb of club play and counts the cards played; it does "
        "not search"
    ),
    "learned": (
        "a network trained on the search bot's decisions, shipped for these rules: it bids, "
        "calls, announces and plays by them (its écart is the heuristic's)"
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


class Strength(NamedTuple):
    """What page 1 says of how strong the bot that played was measured to be (``text``), the
    sections of docs/bots.md that report it (``where``) and the command that measured it
    (``command``, which the section on how the numbers were made gives; both empty when
    nothing was measured)."""

    text: str
    where: str = ""
    command: str = ""


def _measure(row: measured.Duplicate) -> str:
    """``+5.2 points a deal (95% interval +4.7 to +5.8, 20,000 deals)``."""
    return (
        f"{measured.points(row.mean)} points a deal (95% interval {row.interval}, "
        f"{row.deals:,} deals)"
    )


def bot_strength(context: Context) -> Strength:
    """How strong the bot that played the report was measured to be in duplicate, for the
    report's own preset (:mod:`tarot_analysis.bots.measured`, docs/bots.md): its edge over the
    heuristic with its deals and interval, and its distance to the search bot; for the
    heuristic, what the learned bot gains over it, or why the heuristic played and that
    nothing measures stronger play; for any other table, that nothing measured it."""
    rules = context.rules.name
    name = context.bots[0]
    one = len(set(context.bots)) == 1
    if one and name == "heuristic":
        return _heuristic_strength(context)
    row = measured.edge(rules, name) if one else None
    if row is None:
        return Strength(
            f"Nothing measures these bots against the heuristic in duplicate for {rules}: how "
            "far their answers stand from stronger play is not known here."
        )
    # In duplicate: one seat of the bot among heuristic ones, the seats rotated over the same
    # deals (docs/bots.md); page 1 has room for the numbers, not for the method.
    text = (
        f"Measured in duplicate for {rules} (docs/bots.md), {name} gains {_measure(row)} on "
        "the heuristic"
    )
    wheres = [row.where]
    share = measured.share_of_search(rules, name)
    search = measured.edge(rules, measured.SEARCH_BOT)
    if share is not None and search is not None and name != measured.SEARCH_BOT:
        text += (
            f", {share:.2f} of the search bot {measured.SEARCH_BOT}'s lead "
            f"({measured.points(search.mean)}, {search.interval}, {search.deals:,} deals): "
            f"{measured.points(search.mean - row.mean, sign=False)} points a deal short of it"
        )
        wheres.append(search.where)
        direct = measured.edge(rules, name, measured.SEARCH_BOT)
        if direct is not None:
            text += (
                f"; against {measured.SEARCH_BOT} itself {measured.points(direct.mean)} "
                f"({direct.interval}, {direct.deals:,} deals)"
            )
    return Strength(text + ".", "; ".join(dict.fromkeys(wheres)), row.command)


def _heuristic_strength(context: Context) -> Strength:
    """Page 1's word on a report played by the heuristic: what the learned bot gains over it
    in this preset, or that no learned model ships for it."""
    rules = context.rules.name
    learned = measured.edge(rules, "learned")
    played = (
        f"The heuristic plays here as {context.bots_note}; nothing"
        if context.bots_note
        else "Nothing"
    )
    if learned is None:
        return Strength(
            f"{played} measures a stronger bot against it in duplicate for {rules}: the "
            "answers may move under stronger play."
        )
    return Strength(
        f"Measured in duplicate for {rules} (docs/bots.md), the learned bot, the default, gains "
        f"{_measure(learned)} on the heuristic: the default bots (or --bots learned) give its "
        "answers.",
        learned.where,
        learned.command,
    )


def _meaning(name: str) -> str:
    base = name.partition(":")[0]
    meaning = BOT_MEANINGS.get(base, "a bot of this toolkit")
    return f"{name}: {meaning}" if base == name else f"{name} (a variant of {base}): {meaning}"


def scaled_thresholds(hand_size: int) -> str:
    """How Chavey's thresholds meet a hand of ``hand_size`` cards, said once and one way: the
    count is never scaled; the thresholds, made for 18 cards, are scaled to the hand (the
    least whole count that reaches them, as every table of the report and ``hand`` compare
    them).

    >>> print(scaled_thresholds(15))  # doctest: +NORMALIZE_WHITESPACE
    With 15 cards a hand, the count is not scaled: Chavey's thresholds, made for 18 cards, are
    scaled to 15 (× 15/18): a Prise from 34, a Garde from 47, a Garde sans from 60, a Garde
    contre from 68, the "Chavey" column below.
    """
    from tarot_analysis.analyses.guidance import published_thresholds

    if hand_size == ev.CHAVEY_HAND_SIZE:
        return ""
    names = ("Prise", "Garde", "Garde sans", "Garde contre")
    starts = ", ".join(
        f"a {name} from {threshold(value)}"
        for name, value in zip(names, published_thresholds(hand_size), strict=True)
    )
    return (
        f"With {hand_size} cards a hand, the count is not scaled: Chavey's thresholds, made for "
        f"{ev.CHAVEY_HAND_SIZE} cards, are scaled to {hand_size} (× {hand_size}/"
        f'{ev.CHAVEY_HAND_SIZE}): {starts}, the "Chavey" column below.'
    )


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
        f"Trumps, the Excuse counted as one: the 21 {ev.TWENTY_ONE_VALUE}, the Excuse "
        f"{ev.EXCUSE_VALUE}, the Petit {petit[least]} / {petit[least + 1]} / "
        f"{petit[least + 2]} with {least} / {least + 1} / {least + 2}+ trumps, nothing with "
        f"fewer than {least}; holding {least}+ trumps, {ev.TRUMP_VALUE} for each, bouts "
        f"included; each of {ev.LEAST_MAJOR} to 21 {ev.MAJOR_VALUE} more, "
        f"{ev.MAJOR_SEQUENCE_VALUE} more beside another. Suits: king with queen "
        f"{ev.KING_AND_QUEEN_VALUE}, king {ev.KING_VALUE}, queen {ev.QUEEN_VALUE}, knight "
        f"{ev.KNIGHT_VALUE}, jack {ev.JACK_VALUE}; 5 / 6 / 7+ cards {length[5]} / {length[6]} / "
        f"{length[7]}. Garde sans or contre only: a void {ev.VOID_VALUE}, a singleton "
        f"{ev.SINGLETON_VALUE}. "
    )
    text += scaled_thresholds(rules.hand_size) or "Chavey's own thresholds are in the table below."
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


def _thresholds(guidance: Guidance, context: Context, prise: PriseReading | None) -> Table:
    """The fitted thresholds on Chavey's count, the Prise's row as ``prise`` reads it."""
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
                prise.bid_from()
                if prise is not None and contract == PRISE
                else threshold(row["fitted"]),
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


class _Measured(NamedTuple):
    """One row of a ladder's measured table: what, and its value with the ends of its 95%
    interval under each of :data:`LADDER_BOTS`."""

    what: str
    values: tuple[tuple[float, float, float], ...]


class LadderMeasured(NamedTuple):
    """The ladder measured for one preset (docs/bots.md, "How the answers move up the
    ladder"): seed 1, every seat the same bot, each of :data:`LADDER_BOTS` in turn; its deals
    in auction mode and in guidance, its rates in percent with their Wilson 95% intervals, and
    the Garde's threshold fitted in guidance with its bootstrap 95% interval."""

    auction_deals: int
    guidance_deals: int
    rates: tuple[_Measured, ...]
    garde: _Measured
    # The learned bot's contracts against searching defenders (docs/bots.md, "Learned takers
    # against searching defenders", 1,000 deals): made at its own table and among `pimc`, in
    # percent, their paired difference in points with its 95% interval, and the pairs.
    defence: tuple[float, float, float, float, float, int]


def _measured_ladder(
    passed_out: tuple[tuple[float, float, float], ...],
    garde_sans: tuple[tuple[float, float, float], ...],
    garde_made: tuple[tuple[float, float, float], ...],
    garde_threshold: tuple[tuple[float, float, float], ...],
    defence: tuple[float, float, float, float, float, int],
) -> LadderMeasured:
    """A ladder of 5,000 deals in auction mode and 1,200 in guidance: its rates in percent and
    the Garde's threshold, each under :data:`LADDER_BOTS` with its 95% interval."""
    return LadderMeasured(
        5_000, 1_200,
        (
            _Measured("deals passed out", passed_out),
            _Measured("Garde sans, of the contracts", garde_sans),
            _Measured("a Garde bid made", garde_made),
        ),
        _Measured("the Garde's threshold", garde_threshold),
        defence,
    )  # fmt: skip


#: The tables of bots of each ladder, weakest first.
LADDER_BOTS: Final = ("heuristic", "learned", "pimc")
#: The ladders measured, by preset (2026-12-05; docs/bots.md gives the commands).
LADDERS: Final = {
    "fft-3": _measured_ladder(
        passed_out=((8.5, 7.7, 9.3), (0.1, 0.0, 0.2), (0.8, 0.6, 1.1)),
        garde_sans=((26.5, 25.3, 27.8), (31.2, 29.9, 32.5), (32.3, 31.0, 33.6)),
        garde_made=((70.2, 68.4, 71.8), (76.2, 74.3, 78.0), (65.6, 63.6, 67.6)),
        garde_threshold=((57, 53, 60), (55, 54, 59), (60, 56, 62)),
        defence=(67.0, 56.2, -10.7, -13.7, -7.7, 905),
    ),
    "fft-4": _measured_ladder(
        passed_out=((42.6, 41.3, 44.0), (43.2, 41.8, 44.5), (42.8, 41.4, 44.2)),
        garde_sans=((3.0, 2.4, 3.7), (6.2, 5.4, 7.1), (6.9, 6.0, 7.9)),
        garde_made=((73.8, 72.1, 75.6), (79.6, 77.9, 81.2), (72.7, 70.9, 74.4)),
        garde_threshold=((45, 44, 49), (45, 40, 45), (45, 44, 47)),
        defence=(79.4, 71.8, -7.6, -11.1, -4.1, 578),
    ),
    "fft-5": _measured_ladder(
        passed_out=((0.1, 0.0, 0.2), (0.0, 0.0, 0.1), (0.0, 0.0, 0.1)),
        garde_sans=((25.2, 24.0, 26.5), (42.2, 40.8, 43.6), (38.1, 36.8, 39.5)),
        garde_made=((67.0, 65.2, 68.8), (72.8, 70.5, 75.0), (71.4, 69.3, 73.5)),
        garde_threshold=((28, 25, 34), (28, 25, 30), (28, 24, 30)),
        defence=(72.4, 69.6, -2.8, -5.8, 0.3, 800),
    ),
}
#: A contract's share of the deals played from which the summary names it among the bots'
#: limits (the Garde contre, rare at a club table).
LARGE_SHARE: Final = 0.1
#: Bots whose report stands for stronger play: the search bot and what reads with it.
STRONGER_BOTS: Final = ("pimc",)


def measured_ladder(context: Context) -> tuple[str, LadderMeasured] | None:
    """The ladder measured for the report's rules (one of the presets of :data:`LADDERS`,
    unchanged), or ``None``."""
    from tarot_analysis.game.rules import load_rules

    for name, ladder in LADDERS.items():
        if context.rules == load_rules(name):
            return name, ladder
    return None


def ladder_moves(context: Context) -> str:
    """How far the answers are known to move under stronger play, in one line, until the
    report runs under a search bot (then nothing): the ladder measured for the report's own
    preset (:data:`LADDERS`), or for other rules that none was measured for them."""
    if any(name.partition(":")[0] in STRONGER_BOTS for name in context.bots):
        return ""
    found = measured_ladder(context)
    if found is None:
        return (
            f"nothing was measured for {context.rules.name}: the ladders of docs/bots.md "
            f"measure {', '.join(LADDERS)} alone. The section up the ladder of bots shows every "
            "run of these rules under other bots found beside this one."
        )
    name, ladder = found
    rates = ", ".join(
        f"{row.what} " + " / ".join(f"{value:.1f}%" for value, _, _ in row.values)
        for row in ladder.rates
    )
    widest = max(max(v - lo, hi - v) for row in ladder.rates for v, lo, hi in row.values)
    garde = " / ".join(f"{v:.0f} ({lo:.0f}–{hi:.0f})" for v, lo, hi in ladder.garde.values)
    return (
        f"({name}, seed 1, {' / '.join(LADDER_BOTS)} at every seat; docs/bots.md): "
        f"{rates} ({ladder.auction_deals:,} deals in auction, 95% intervals at most "
        f"{widest:.1f} points either side); {ladder.garde.what} {garde} "
        f"({ladder.guidance_deals:,} deals). "
        "The rates move by a few points, the threshold not at that size; these stand until "
        "the report runs under the search bot."
    ) + _against_search(ladder, context)


def _against_search(ladder: LadderMeasured, context: Context) -> str:
    """For a report under the learned bot: how often its contracts make against searching
    defenders beside its own table (:attr:`LadderMeasured.defence`), a tie said as one."""
    if not any(name.partition(":")[0] == "learned" for name in context.bots):
        return ""
    own, mixed, change, low, high, pairs = ladder.defence
    tie = ", a tie" if low <= 0 <= high else ""
    return (
        f" Against searching defenders (pimc) the learned bot's contracts make {mixed:.1f}% "
        f"of the time, {own:.1f}% at its own table: {change:+.1f} points ({low:+.1f} to "
        f"{high:+.1f}{tie}; {pairs:,} contracts taken from the same seat of the same deal at "
        "both tables, of 1,000 deals; docs/bots.md)."
    )


def bot_limits(auction: Stored, context: Context) -> str:
    """What these bots do that players would not, from the report's own auction: the deals
    passed out, the Garde contre's share when it is large, and the poignée defenders never
    show; said as a known limit of the bots."""
    from tarot_analysis.stats import wilson_interval

    extra = auction.extra
    dealt = context.auction_deals
    passed = int(extra["redeals"]["all_passed"])
    low, high = wilson_interval(np.array([passed]), np.array([dealt]))
    parts = [
        f"they pass out {rate_with_interval(passed / dealt, low[0], high[0])} of the deals "
        f"({passed:,} of {dealt:,})"
    ]
    rows = auction.tables["contracts"].to_dict("index")
    contre = rows.get("garde_contre")
    if contre is not None and float(contre["share"]) >= LARGE_SHARE:
        share = rate_with_interval(
            float(contre["share"]), float(contre["share_ci_low"]), float(contre["share_ci_high"])
        )
        parts.append(f"a Garde contre is {share} of their contracts")
    if "heuristic" in context.bots:
        parts.append(
            "the heuristic's defenders never show a simple poignée, only a double or a triple"
        )
    return "Not of the game: " + "; ".join(parts) + "."


@dataclass(frozen=True)
class _Stronger:
    """The other bots' run, as the summary shows it."""

    bots: str
    played: int
    by_count: list[str]
    table: Table


def _suggested_bots(ours: str) -> str:
    """The next stronger bots: the heuristic after random, the search bot after the heuristic."""
    return "heuristic" if ours == "random" else "pimc" if ours != "pimc" else "heuristic"


def stronger_play(found: Ladder, context: Context) -> _Stronger | None:
    """The advice under other bots from the strongest other run the ladder found (the same
    runs that section shows), or ``None``."""
    if not found.others:
        return None
    other = found.others[-1]  # the highest rung
    return _Stronger(
        other.bots,
        other.played,
        by_count_parts(other.advice),
        _stronger_table(found.ours, other, context),
    )


def _stronger_table(ours: GuidanceRung, other: GuidanceRung, context: Context) -> Table:
    from tarot_analysis.report.stronger import garde_change

    change = garde_change(ours.data.frame, other.data.frame, ours.advice.by_band)
    rows: list[list[str | Cell]] = []
    for band in dict.fromkeys([*ours.advice.by_band.index, *other.advice.by_band.index]):
        cells: list[str | Cell] = [str(band)]
        for rung in (ours, other):
            by_band = rung.advice.by_band
            cells.append(band_cell(by_band.loc[band], rung.prise) if band in by_band.index else "—")
        if change is not None and band in change:
            deals, (mean, low, high) = change[band]
            lead = f"{mean:+.1f}" if pd.isna(low) else f"{mean:+.1f} ({low:+.1f} to {high:+.1f})"
            cells.append(Cell(f"{lead}, {deals:,} deals", parts=(f"{lead},", f"{deals:,} deals")))
        else:
            cells.append("—")
        rows.append(cells)
    same = (
        "the Garde's change deal by deal on the deals both runs played (the same hands, checked)"
        if change is not None
        else "no Garde's change: the two runs were dealt other hands (—)"
    )
    caption = context.caption(
        f"The same rules under {other.bots} bots: the best contract by band of Chavey's "
        "published thresholds, the band's deals pooled (section 7 gives them for every run)",
        mode=COUNTERFACTUAL,
        n=f"each run's own deals in the band ({ours.played:,} and {other.played:,} played)",
        interval=f"best less runner-up deal by deal with its 95% interval; {same}",
        bots=f"{ours.bots} at every seat, then {other.bots} at every seat",
    )  # fmt: skip
    header = [
        "Chavey's band (pooled)", f"best, {ours.bots} (lead on runner-up)",
        f"best, {other.bots} (lead on runner-up)", f"Garde, {other.bots} − {ours.bots}",
    ]  # fmt: skip
    return Table("stronger-play", caption, header, rows, note=BAND_NOTE)


def section(
    guidance: Guidance,
    auction: Stored,
    context: Context,
    data_dir: str | os.PathLike[str],
    found: Ladder,
) -> Section:
    """The summary, its best contract by count and the other bots' runs read from ``found``
    (what section 7 shows)."""
    names = list(dict.fromkeys(context.bots))
    command = guidance_command(context, data_dir, _suggested_bots(found.ours.bots))
    return Section(
        "summary", "Summary", "summary.html.j2",
        {
            "context": context,
            "count": how_to_count(context),
            "best": by_count_parts(found.ours.advice),
            "pooled": pooled_sentence(found.ours.advice),
            "prise": found.ours.prise.sentence() if found.ours.prise is not None else "",
            "thresholds": _thresholds(guidance, context, found.ours.prise),
            "loss": _loss_sentence(guidance),
            "contracts": _contracts(auction, context),
            "meanings": [_meaning(name) for name in names],
            "limits": bot_limits(auction, context),
            "strength": bot_strength(context),
            "moves": ladder_moves(context),
            "stronger": stronger_play(found, context),
            "command": command,
            "command_time": command_time(_suggested_bots(found.ours.bots), context),
        },
    )  # fmt: skip
