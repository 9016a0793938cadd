"""Rule variants side by side: what changing a rule does to contracts, poignées and redeals.

The dealer depends only on the deck layout (players, cards each, dog) and the seed, and the
bots draw from a stream fixed by the seed too. So two variants with the same layout, run from
one seed, are dealt exactly the same deals and their bots start every deal from the same
random state: their results are *paired* deal by deal, and a difference between them is
measured on the differences of each deal, which is far more precise than comparing two
independent runs. Variants whose layout differs from the first (the baseline) are run from the
same seed too but are only compared side by side, with two-sample intervals, and flagged so.

What is measured for each variant:

- ``success`` and ``taker_score``, per contract. In ``counterfactual`` mode seat 0 takes every
  contract on every deal (:func:`~tarot_analysis.analyses.counterfactual.play_every_contract`); in
  ``auction`` mode the bots bid (:func:`~tarot_analysis.table.play.play`) and a contract's
  rates are over the deals where it was bid.
- ``poignee_shown`` (a deal where a poignée counts), ``poignee_value`` (its mean score per
  defender, signed for the attack, over deals where one is shown), ``petit_au_bout`` (the Petit
  taken at the last trick by either side) and the redeal rates ``redeal_petit_sec`` and
  ``redeal_all_passed``. These are events of a whole deal as it is really played, so in both
  modes they come from the auction of the same deals.
- ``poignee_per_hand``: how often a hand holds at least a simple poignée under the variant's
  thresholds, a hand statistic with an exact value
  (:func:`~tarot_analysis.deals.hand_stats.run_hands`).

Redealt deals are left out of every rate except the redeal rates, and said so in the report.
The Tarocco preset has no bidding, no contract and no poignée to score: a Tarocco variant is
dealt like the others (its deals pair with those of a 3-player French variant) but only its
hand statistics are compared. If the baseline is a Tarocco variant, only hand statistics are
compared at all.

>>> from tarot_analysis.game.rules import load_rules
>>> comparison = compare_variants([load_rules("fft-4"), load_rules("legacy-4")], 300, seed=1)
>>> [variant.paired for variant in comparison.variants]
[True, True]
>>> row = comparison.differences().query("measure == 'poignee_per_hand'").iloc[0]
>>> print(row["difference"], row["ci_low"], row["ci_high"])
0.0 0.0 0.0
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final, Literal, get_args

import numpy as np
import numpy.typing as npt
import pandas as pd

from tarot_analysis import __version__
from tarot_analysis.deals.deal import deal
from tarot_analysis.deals.features import FEATURES, hand_features
from tarot_analysis.errors import TarotInputError, deal_count, thread_count
from tarot_analysis.game.rules import Rules
from tarot_analysis.table.python_bots import bot_name, is_python_bot

# What a comparison runs (the table and its bots, the statistics with scipy, the progress bars with
# tqdm) is imported inside the functions that run it: like the commands of
# tarot_analysis.cli.commands, `tarot-analysis --help` and `import tarot_analysis.analyses.compare`
# stay quick.

__all__ = [
    "DIFFERENCE_COLUMNS",
    "MEASURES",
    "SUMMARY_COLUMNS",
    "Comparison",
    "Variant",
    "compare_variants",
    "format_report",
    "paired_rate_interval",
]

FloatArray = npt.NDArray[np.float64]
Mode = Literal["counterfactual", "auction"]
MODES: Final = get_args(Mode)

#: What each mode measures, as the report says it: which contracts are played, and why a
#: rule may change nothing in one mode and something in the other.
MODE_TEXT: Final[dict[str, tuple[str, ...]]] = {
    "counterfactual": (
        "Mode counterfactual (the default): seat 0 takes every contract on every deal, whatever "
        "its hand, and nobody bids. A contract's rates are over every deal, mostly hands no one "
        "would take, and the same contract on the same cards under each variant: they show what "
        "a rule does to the play alone, and a rule the bots' play seldom meets shows almost "
        "nothing.",
        "With --mode auction the bots bid under each variant's rules and a contract's rates are "
        "over the deals where it was bid (the hands that really take); a bot that bids by search "
        "(pimc) may bid otherwise under another rule, the heuristic bot bids from its hand's "
        "value alone.",
        "Poignée, Petit au bout and redeals come from the auction of the same deals.",
    ),
    "auction": (
        "Mode auction: the bots bid under each variant's rules and play the contract bid; a "
        "contract's rates are over the deals where it was bid, which a rule may change as well "
        "as its play (a bot that bids by search, pimc, may bid otherwise under another rule; the "
        "heuristic bot bids from its hand's value alone).",
    ),
}

#: Every measure compared, with what it is. Rates are marked in :data:`RATE_MEASURES`.
MEASURES: Final = {
    "success": "contract made (per deal where it is played)",
    "taker_score": "taker's mean score (per deal where the contract is played)",
    "poignee_shown": "a poignée shown and counted (per deal played)",
    "poignee_value": "poignée score per defender, signed for the attack (per deal showing one)",
    "petit_au_bout": "Petit au bout, either side (per deal played)",
    "redeal_petit_sec": "redeal for a Petit sec (per deal)",
    "redeal_all_passed": "redeal, every player passed (per deal)",
    "poignee_per_hand": "hand holding at least a simple poignée (per hand)",
}
RATE_MEASURES: Final = frozenset(
    {
        "success",
        "poignee_shown",
        "petit_au_bout",
        "redeal_petit_sec",
        "redeal_all_passed",
        "poignee_per_hand",
    }
)
#: Columns of :meth:`Comparison.differences`.
DIFFERENCE_COLUMNS: Final = (
    "variant", "measure", "contract", "baseline", "value", "difference", "ci_low", "ci_high",
    "paired", "n", "n_baseline", "excludes_zero",
)  # fmt: skip
#: Columns of :meth:`Comparison.summary`.
SUMMARY_COLUMNS: Final = (
    "variant", "measure", "contract", "source", "n", "count", "value", "ci_low", "ci_high",
    "exact", "paired",
)  # fmt: skip


@dataclass(frozen=True)
class Variant:
    """One variant of a comparison: its rules, and how it is compared with the baseline.

    ``paired``: dealt exactly the baseline's deals (the baseline itself is paired with itself).
    ``plays``: it has contracts, so it is played; a Tarocco variant gives hand statistics only.
    ``note`` says why a variant is not paired or not played, empty otherwise.
    """

    label: str
    rules: Rules
    paired: bool
    plays: bool
    note: str = ""
    bots: tuple[Any, ...] = ()  # its own bots, when bots are compared (else the comparison's)

    @property
    def layout(self) -> tuple[int, int, int]:
        """What the dealer depends on: players, cards each and dog size."""
        return (self.rules.players, self.rules.hand_size, self.rules.dog_size)


@dataclass(frozen=True)
class _PerDeal:
    """One measure of one variant, deal by deal: NaN where the measure does not apply.

    A per-hand rate holds each deal's share of hands (``hands`` hands a deal), so that the mean
    over deals is the rate per hand and deals remain the independent units.
    """

    measure: str
    contract: str
    source: str
    values: FloatArray
    hands: int = 1
    exact: float = math.nan

    @property
    def is_rate(self) -> bool:
        """Whether the measure is a rate (0/1 per trial) rather than a mean."""
        return self.measure in RATE_MEASURES

    def kept(self) -> FloatArray:
        """The values of the deals where the measure applies."""
        return self.values[np.isfinite(self.values)]


@dataclass
class Comparison:
    """The result of :func:`compare_variants`: per-variant summaries and differences against
    the first variant (the baseline), as tidy frames."""

    variants: tuple[Variant, ...]
    deals: int
    seed: int
    bots: tuple[str, ...]
    mode: Mode
    confidence: float
    summary_frame: pd.DataFrame = field(repr=False)
    differences_frame: pd.DataFrame = field(repr=False)
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def baseline(self) -> Variant:
        """The variant every other one is compared with."""
        return self.variants[0]

    def differences(self) -> pd.DataFrame:
        """One row per variant (the baseline left out), measure and contract.

        Columns :data:`DIFFERENCE_COLUMNS`. ``contract`` is ``""`` for a measure of the whole
        deal. For a paired variant ``baseline`` and ``value`` are over the ``n`` deals where
        the measure applies in both, and the interval is Newcombe's for paired rates
        (:func:`paired_rate_interval`) for a rate of one trial a deal, the normal one of the
        mean per-deal difference for a mean and for ``poignee_per_hand`` (its hands a deal,
        clipped to the ±1 a difference of rates can reach); otherwise each is over its own
        deals (``n`` and ``n_baseline``) and the interval is Newcombe's for a rate, Welch's
        normal one for a mean. ``n`` counts deals (hands are ``n`` × players for
        ``poignee_per_hand``).
        """
        return self.differences_frame.copy()

    def summary(self, variant: str | None = None) -> pd.DataFrame:
        """Every measure of every variant (or of the one labelled ``variant``) on its own.

        Columns :data:`SUMMARY_COLUMNS`: ``n`` trials (deals, or hands for
        ``poignee_per_hand``), ``count`` of successes for a rate, the ``value`` with its
        interval (Wilson for a rate, normal for a mean) and the ``exact`` value where one is
        known.
        """
        frame = self.summary_frame
        if variant is not None:
            labels = [v.label for v in self.variants]
            if variant not in labels:
                raise TarotInputError(f"no variant {variant!r}; the variants are {labels}")
            frame = frame[frame["variant"] == variant]
        return frame.reset_index(drop=True)

    def to_json(self) -> dict[str, Any]:
        """A JSON-able record: the variants, the run, every difference and every summary."""
        return {
            "variants": [
                {
                    "name": v.label,
                    "rules": v.rules.name,
                    "baseline": i == 0,
                    "paired": v.paired,
                    "hand_statistics_only": not v.plays,
                    "players": v.rules.players,
                    "hand_size": v.rules.hand_size,
                    "dog_size": v.rules.dog_size,
                    "note": v.note,
                }
                for i, v in enumerate(self.variants)
            ],
            "deals": self.deals,
            "seed": self.seed,
            "bots": list(self.bots),
            "mode": self.mode,
            "confidence": self.confidence,
            "version": __version__,
            "differences": _records(self.differences_frame),
            "summary": {
                v.label: _records(self.summary(v.label).drop(columns="variant"))
                for v in self.variants
            },
        }


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """Rows as plain dicts, NaN and NA as ``None``."""
    rows: list[dict[str, Any]] = []
    for row in frame.to_dict(orient="records"):
        rows.append({str(key): _plain(value) for key, value in row.items()})
    return rows


def _plain(value: Any) -> Any:
    if value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return None
    return value.item() if isinstance(value, np.generic) else value


# --------------------------------------------------------------------------------------------
# Running the variants
# --------------------------------------------------------------------------------------------


def compare_variants(
    rules_list: Sequence[Rules],
    deals: int,
    *,
    bots: Any = "random",
    seed: int = 1,
    threads: int | None = None,
    mode: Mode = "counterfactual",
    confidence: float = 0.95,
    progress: bool = False,
    client: Any = None,
    compare_bots: Sequence[Any] = (),
) -> Comparison:
    """Run every variant on ``deals`` deals from ``seed`` and compare each with the first.

    ``compare_bots``: compare bots instead of rules, on the one preset of ``rules_list``: a
    variant per bot, each at every seat, all on the same deals (paired), the first the
    baseline; ``bots`` is then ignored.

    Variants with the baseline's layout (players, cards each, dog) are dealt the same deals and
    compared deal by deal (``paired``); the others side by side. ``bots``: one name for every
    seat, or one per seat (then every played variant must have that many players). ``mode``:
    ``counterfactual`` (seat 0 takes every contract on every deal) or ``auction`` (the bots
    bid). A variant given twice is labelled ``name (2)``. See the module's documentation for
    the measures. ``client``: a Dask client whose workers run the chunks (the same result).
    """
    from tarot_analysis.runs.progress import COMPARING
    from tarot_analysis.runs.progress import bar as progress_bar
    from tarot_analysis.stats import normal_quantile

    deals, threads = deal_count(deals), thread_count(threads)
    if compare_bots:
        variants = _bot_variants(rules_list, deals, compare_bots, mode, confidence)
        seated: tuple[Any, ...] = tuple(compare_bots)
    else:
        variants = _variants(rules_list, deals, bots, mode, confidence)
        one = isinstance(bots, str) or is_python_bot(bots)
        seated = (bots,) if one else tuple(bots)
    bot_names = tuple(bot if isinstance(bot, str) else bot_name(bot) for bot in seated)
    z = normal_quantile(confidence)
    summary_rows: list[dict[str, Any]] = []
    difference_rows: list[dict[str, Any]] = []
    baseline: dict[tuple[str, str], _PerDeal] = {}
    baseline_masks = np.empty(0, dtype=np.uint64)
    steps = sum(2 + (v.plays and mode == "counterfactual") for v in variants)
    runs = {"threads": threads, "client": client}  # what runs the chunks of every run
    started = time.perf_counter()
    compared = f"{len(variants)} {'bots' if compare_bots else 'variants'}"
    with progress_bar(COMPARING, steps, unit="run", enabled=progress, detail=compared) as bar:
        for index, variant in enumerate(variants):
            measured, masks = _measure(
                variant, deals, variant.bots or seated, seed, runs, mode, bar
            )
            if index == 0:
                baseline, baseline_masks = measured, masks
            elif variant.paired and not np.array_equal(masks, baseline_masks):
                # The layouts match, so the dealer must have dealt the same deals; if it ever
                # does not, a paired interval would be wrong: compare side by side instead.
                variant = _unpaired(variant, "its deals differ from the baseline's")
                variants[index] = variant
            summary_rows += _summary_rows(variant, measured, z, confidence)
            if index > 0:
                difference_rows += _difference_rows(variant, measured, baseline, z, confidence)
            del masks
    elapsed = time.perf_counter() - started
    summary = pd.DataFrame(summary_rows, columns=list(SUMMARY_COLUMNS))
    summary["count"] = summary["count"].astype("Int64")
    differences = pd.DataFrame(difference_rows, columns=list(DIFFERENCE_COLUMNS))
    return Comparison(
        variants=tuple(variants), deals=deals, seed=seed, bots=bot_names, mode=mode,
        confidence=confidence, summary_frame=summary, differences_frame=differences,
        metadata={
            "variants": [v.rules.name for v in variants], "deals": deals, "seed": seed,
            "bots": list(bot_names), "mode": mode, "version": __version__,
            "seconds": round(elapsed, 3),
        },
    )  # fmt: skip


def _variants(
    rules_list: Sequence[Rules],
    deals: int,
    bots: Any,
    mode: str,
    confidence: float,
) -> list[Variant]:
    """Label the variants and decide which are paired with the first and which are played."""
    from tarot_analysis.stats import normal_quantile

    if len(rules_list) < 2:
        names = ", ".join(rules.name for rules in rules_list) or "none"
        raise TarotInputError(
            f"a comparison needs at least two variants (the first is the baseline), got "
            f"{len(rules_list)}: {names}"
        )
    if mode not in MODES:
        raise TarotInputError(f"unknown mode {mode!r}; known: {', '.join(MODES)}")
    normal_quantile(confidence)  # a confidence outside (0, 1) stops here
    seen: dict[str, int] = {}
    variants: list[Variant] = []
    for rules in rules_list:
        seen[rules.name] = seen.get(rules.name, 0) + 1
        label = rules.name if seen[rules.name] == 1 else f"{rules.name} ({seen[rules.name]})"
        plays = bool(rules.contracts) and rules.tarocco is None
        note = "" if plays else "no contracts: hand statistics only"
        if (
            not (isinstance(bots, str) or is_python_bot(bots))
            and plays
            and (len(bots) != rules.players)
        ):
            raise TarotInputError(
                f"{label}: {rules.players} bots were expected (one per seat), got {len(bots)}; "
                "give one bot name to use it at every seat of every variant"
            )
        variant = Variant(label=label, rules=rules, paired=True, plays=plays, note=note)
        if variants and variant.layout != variants[0].layout:
            players, hand_size, dog_size = variant.layout
            variant = _unpaired(
                variant, f"other layout: {players} players, {hand_size} cards, dog {dog_size}"
            )
        variants.append(variant)
    return variants


def _bot_variants(
    rules_list: Sequence[Rules],
    deals: int,
    bots: Sequence[Any],
    mode: str,
    confidence: float,
) -> list[Variant]:
    """One variant per bot (each at every seat) of the one preset: bots compared."""
    if len(rules_list) != 1:
        raise TarotInputError(
            f"bots are compared on one preset, got {len(rules_list)}: "
            f"{', '.join(rules.name for rules in rules_list)}"
        )
    if len(bots) < 2:
        raise TarotInputError(f"a comparison of bots needs at least two bots, got {len(bots)}")
    rules = rules_list[0]
    if not rules.contracts or rules.tarocco is not None:
        raise TarotInputError(f"{rules.name} has no contracts: bots are compared on contracts")
    checked = _variants([rules, rules], deals, "random", mode, confidence)[0]
    variants = []
    for bot in bots:
        from tarot_analysis.table.play import seat_bots

        seat_bots(bot, rules)  # a wrong name fails before anything is played
        name = bot if isinstance(bot, str) else bot_name(bot)
        variants.append(replace(checked, label=name, bots=(bot,)))
    labels = [v.label for v in variants]
    if len(set(labels)) != len(labels):
        raise TarotInputError(f"each bot once, got {', '.join(labels)}")
    return variants


def _unpaired(variant: Variant, why: str) -> Variant:
    note = f"{why}; {variant.note}" if variant.note else why
    return replace(variant, paired=False, note=note)


def _measure(
    variant: Variant,
    deals: int,
    bots: tuple[Any, ...],
    seed: int,
    runs: dict[str, Any],
    mode: str,
    bar: Any,
) -> tuple[dict[tuple[str, str], _PerDeal], npt.NDArray[np.uint64]]:
    """Every measure of one variant, deal by deal, and the deals it was dealt. ``runs``: the
    ``threads`` and Dask ``client`` that run the chunks; ``bar`` counts the runs and names the
    one under way."""
    from tarot_analysis.runs.progress import DEALING, PLAYING, PLAYING_EVERY_CONTRACT
    from tarot_analysis.table.play import play

    rules = variant.rules
    bot_arg: Any = bots[0] if len(bots) == 1 else bots
    measured: dict[tuple[str, str], _PerDeal] = {}
    if variant.plays:
        bar.set_postfix_str(f"{PLAYING} {variant.label}")
        result = play(rules, deals, bots=bot_arg, seed=seed, **runs)
        bar.update(1)
        masks = result.masks
        scores = result.scores()
        if mode == "auction":
            contracts = _auction_contracts(rules, scores)
        else:
            bar.set_postfix_str(f"{PLAYING_EVERY_CONTRACT} {variant.label}")
            contracts = _counterfactual_contracts(rules, deals, bot_arg, seed, runs)
            bar.update(1)
        for item in (*contracts, *_table_measures(scores)):
            measured[item.measure, item.contract] = item
        del result, scores
    else:
        bar.set_postfix_str(f"{DEALING} {variant.label}")
        masks = deal(rules, deals, seed, **runs).masks
    bar.set_postfix_str(f"{DEALING} {variant.label}")  # the same deals, their hands counted
    hand = _hand_poignee(rules, masks, deals, seed, runs)
    measured[hand.measure, hand.contract] = hand
    bar.update(1)
    return measured, masks


def _rate(flags: Any, applies: Any) -> FloatArray:
    """0/1 values where ``applies``, NaN elsewhere."""
    values = np.asarray(flags, dtype=np.float64)
    return np.where(np.asarray(applies, dtype=bool), values, np.nan)


def _table_measures(scores: pd.DataFrame) -> list[_PerDeal]:
    """Poignée, Petit au bout and redeals, from the auction of every deal."""
    played = ~scores["redeal"].to_numpy(dtype=bool)
    reason = scores["redeal_reason"].to_numpy()
    poignee = scores["poignee"].to_numpy(dtype=np.float64)
    shown = played & (poignee != 0)
    everywhere = np.ones(len(scores), dtype=bool)
    side = scores["petit_au_bout_side"].to_numpy()
    return [
        _PerDeal("poignee_shown", "", "auction", _rate(shown, played)),
        _PerDeal("poignee_value", "", "auction", np.where(shown, poignee, np.nan)),
        _PerDeal("petit_au_bout", "", "auction", _rate(side != "", played)),
        _PerDeal("redeal_petit_sec", "", "auction", _rate(reason == "petit_sec", everywhere)),
        _PerDeal("redeal_all_passed", "", "auction", _rate(reason == "all_passed", everywhere)),
    ]


def _auction_contracts(rules: Rules, scores: pd.DataFrame) -> list[_PerDeal]:
    """Success and taker's score of each contract, over the deals where it was bid."""
    played = ~scores["redeal"].to_numpy(dtype=bool)
    contract = scores["contract"].astype("string").fillna("").to_numpy(dtype=object)
    made = scores["made"].to_numpy(dtype=np.float64, na_value=np.nan)
    taker_score = scores["taker_score"].to_numpy(dtype=np.float64)
    out = []
    for name in (c.name for c in rules.contracts):
        bid = played & (contract == name)
        out.append(_PerDeal("success", name, "auction", np.where(bid, made, np.nan)))
        out.append(_PerDeal("taker_score", name, "auction", np.where(bid, taker_score, np.nan)))
    return out


def _counterfactual_contracts(
    rules: Rules,
    deals: int,
    bots: Any,
    seed: int,
    runs: dict[str, Any],
) -> list[_PerDeal]:
    """Success and taker's score of every contract taken by seat 0 on every deal."""
    from tarot_analysis.analyses.counterfactual import play_every_contract

    frame = play_every_contract(rules, deals, seat=0, bots=bots, seed=seed, **runs).frame
    out = []
    for name in (c.name for c in rules.contracts):
        rows = frame[frame["contract"] == name].sort_values("deal")
        played = ~rows["redeal"].to_numpy(dtype=bool)
        made = rows["made"].to_numpy(dtype=np.float64, na_value=np.nan)
        taker_score = rows["taker_score"].to_numpy(dtype=np.float64)
        out.append(_PerDeal("success", name, "counterfactual", np.where(played, made, np.nan)))
        out.append(
            _PerDeal("taker_score", name, "counterfactual", np.where(played, taker_score, np.nan))
        )
    return out


def _hand_poignee(
    rules: Rules,
    masks: npt.NDArray[np.uint64],
    deals: int,
    seed: int,
    runs: dict[str, Any],
) -> _PerDeal:
    """Each deal's share of hands holding at least a simple poignée, with the exact rate.

    The per-deal shares come from the deals themselves, so that paired variants are compared
    hand by hand; the run of :func:`~tarot_analysis.deals.hand_stats.run_hands` (the same deals)
    gives the exact value and is checked against them.
    """
    from tarot_analysis.deals.hand_stats import run_hands

    players = rules.players
    levels = hand_features(masks[:, :players], rules)[..., FEATURES.index("poignee")]
    with_poignee = (levels >= 1).sum(axis=1)
    table = run_hands(rules, deals, seed, **runs).poignee()
    simple = (table["per"] == "hand").to_numpy() & (table.index == "simple")
    counted = int(table["count"].to_numpy()[simple][0])
    exact = float(table["exact"].to_numpy()[simple][0])
    if counted != int(with_poignee.sum()):
        raise AssertionError(
            f"{rules.name}: the hand statistics counted {counted} poignées, the deals played "
            f"hold {int(with_poignee.sum())}: the runs were not dealt alike"
        )
    return _PerDeal(
        "poignee_per_hand", "", "hands", with_poignee.astype(np.float64) / players,
        hands=players, exact=exact,
    )  # fmt: skip


# --------------------------------------------------------------------------------------------
# Summaries and differences
# --------------------------------------------------------------------------------------------


def _rate_counts(item: _PerDeal) -> tuple[int, int]:
    """Successes and trials of a rate measure (trials are hands for a per-hand rate)."""
    kept = item.kept()
    return round(float(kept.sum()) * item.hands), len(kept) * item.hands


def _mean_interval(values: FloatArray, z: float) -> tuple[float, float, float]:
    """Mean and its normal interval (NaN where it cannot be estimated)."""
    n = len(values)
    if n == 0:
        return math.nan, math.nan, math.nan
    mean = float(values.mean())
    if n < 2:
        return mean, math.nan, math.nan
    half = z * float(values.std(ddof=1)) / math.sqrt(n)
    return mean, mean - half, mean + half


def _summary_rows(
    variant: Variant, measured: dict[tuple[str, str], _PerDeal], z: float, confidence: float
) -> list[dict[str, Any]]:
    from tarot_analysis.stats import wilson_interval

    rows = []
    for item in measured.values():
        count: int | None
        if item.is_rate:
            count, n = _rate_counts(item)
            low, high = wilson_interval(count, n, confidence)
            value = count / n if n else math.nan
            ci_low, ci_high = (float(low), float(high)) if n else (math.nan, math.nan)
        else:
            count = None
            kept = item.kept()
            n = len(kept)
            value, ci_low, ci_high = _mean_interval(kept, z)
        rows.append(
            {
                "variant": variant.label, "measure": item.measure, "contract": item.contract,
                "source": item.source, "n": n, "count": count, "value": value,
                "ci_low": ci_low, "ci_high": ci_high, "exact": item.exact,
                "paired": variant.paired,
            }
        )  # fmt: skip
    return rows


def _difference_rows(
    variant: Variant,
    measured: dict[tuple[str, str], _PerDeal],
    baseline: dict[tuple[str, str], _PerDeal],
    z: float,
    confidence: float,
) -> list[dict[str, Any]]:
    rows = []
    for key, item in measured.items():
        base = baseline.get(key)
        if base is None:  # a measure the baseline lacks: a contract it does not have, say
            continue
        if variant.paired and item.is_rate and item.hands == 1:
            numbers = _paired_rate_difference(base, item, confidence)
        elif variant.paired:
            numbers = _paired_difference(base, item, z)
        elif item.is_rate:
            numbers = _newcombe_difference(base, item, confidence)
        else:
            numbers = _welch_difference(base, item, z)
        low, high = numbers["ci_low"], numbers["ci_high"]
        rows.append(
            {
                "variant": variant.label, "measure": item.measure, "contract": item.contract,
                **numbers, "paired": variant.paired,
                "excludes_zero": bool(low > 0 or high < 0),
            }
        )  # fmt: skip
    return rows


def _paired_difference(base: _PerDeal, item: _PerDeal, z: float) -> dict[str, Any]:
    """Mean of the per-deal differences over deals where both apply, ± z sd / √n."""
    both = np.isfinite(base.values) & np.isfinite(item.values)
    n = int(both.sum())
    difference, low, high = _mean_interval(item.values[both] - base.values[both], z)
    if item.is_rate:  # a difference of two rates lies between −1 and +1
        low, high = max(low, -1.0), min(high, 1.0)
    baseline = float(base.values[both].mean()) if n else math.nan
    value = float(item.values[both].mean()) if n else math.nan
    return {
        "baseline": baseline, "value": value, "difference": difference,
        "ci_low": low, "ci_high": high, "n": n, "n_baseline": n,
    }  # fmt: skip


def paired_rate_interval(
    both: int, first_only: int, second_only: int, neither: int, confidence: float = 0.95
) -> tuple[float, float]:
    """The interval of the difference of two rates measured on the same trials (the first
    rate less the second) by Newcombe's method for paired proportions (method 10 of
    R. G. Newcombe, *Improved confidence intervals for the difference between binomial
    proportions based on paired data*, Statistics in Medicine 17, 1998): each rate's Wilson
    interval, joined through the correlation of the pairs. ``both``, ``first_only``,
    ``second_only``, ``neither``: the trials where both succeed, the first only, the second
    only, neither. It lies within [−1, 1].

    The worked example of Fagerland, Lydersen and Laake (*Statistical Analysis of Contingency
    Tables*, 2017, chapter 8; complete response before and after consolidation therapy):

    >>> [round(end, 4) for end in paired_rate_interval(59, 6, 16, 80)]
    [-0.1186, -0.0046]
    """
    from tarot_analysis.stats import wilson_interval

    n = both + first_only + second_only + neither
    if n == 0:
        return math.nan, math.nan
    first, second = both + first_only, both + second_only
    p1, p2 = first / n, second / n
    low_1, high_1 = (float(x) for x in wilson_interval(first, n, confidence))
    low_2, high_2 = (float(x) for x in wilson_interval(second, n, confidence))
    margins = first * (n - first) * second * (n - second)
    cross = both * neither - first_only * second_only
    if margins == 0 or 0 <= cross <= n / 2:
        phi = 0.0
    else:  # the correlation of the pairs, its numerator moved n/2 towards 0 when positive
        phi = (cross - n / 2 if cross > 0 else cross) / math.sqrt(margins)
    down_1, up_2 = p1 - low_1, high_2 - p2
    up_1, down_2 = high_1 - p1, p2 - low_2
    low = p1 - p2 - math.sqrt(max(down_1**2 - 2 * phi * down_1 * up_2 + up_2**2, 0.0))
    high = p1 - p2 + math.sqrt(max(up_1**2 - 2 * phi * up_1 * down_2 + down_2**2, 0.0))
    return max(low, -1.0), min(high, 1.0)


def _paired_rate_difference(base: _PerDeal, item: _PerDeal, confidence: float) -> dict[str, Any]:
    """Difference of two rates on the same deals (each deal a trial, 0 or 1 in both), with
    :func:`paired_rate_interval` over the deals where the measure applies in both."""
    both = np.isfinite(base.values) & np.isfinite(item.values)
    n = int(both.sum())
    made_b, made_v = base.values[both] > 0.5, item.values[both] > 0.5
    low, high = paired_rate_interval(
        int((made_v & made_b).sum()), int((made_v & ~made_b).sum()),
        int((~made_v & made_b).sum()), int((~made_v & ~made_b).sum()), confidence,
    )  # fmt: skip
    baseline = float(made_b.mean()) if n else math.nan
    value = float(made_v.mean()) if n else math.nan
    return {
        "baseline": baseline, "value": value, "difference": value - baseline,
        "ci_low": low, "ci_high": high, "n": n, "n_baseline": n,
    }  # fmt: skip


def _newcombe_difference(base: _PerDeal, item: _PerDeal, confidence: float) -> dict[str, Any]:
    """Difference of two independent rates with Newcombe's hybrid score interval (method 10),
    built from each rate's Wilson interval."""
    from tarot_analysis.stats import wilson_interval

    count_b, n_b = _rate_counts(base)
    count_v, n_v = _rate_counts(item)
    numbers: dict[str, Any] = {
        "n": n_v // item.hands, "n_baseline": n_b // base.hands,
        "baseline": count_b / n_b if n_b else math.nan,
        "value": count_v / n_v if n_v else math.nan,
    }  # fmt: skip
    if not (n_b and n_v):
        return numbers | {"difference": math.nan, "ci_low": math.nan, "ci_high": math.nan}
    low_b, high_b = (float(x) for x in wilson_interval(count_b, n_b, confidence))
    low_v, high_v = (float(x) for x in wilson_interval(count_v, n_v, confidence))
    rate_b, rate_v = numbers["baseline"], numbers["value"]
    difference = rate_v - rate_b
    return numbers | {
        "difference": difference,
        "ci_low": difference - math.hypot(rate_v - low_v, high_b - rate_b),
        "ci_high": difference + math.hypot(high_v - rate_v, rate_b - low_b),
    }


def _welch_difference(base: _PerDeal, item: _PerDeal, z: float) -> dict[str, Any]:
    """Difference of two independent means, ± z √(s²_b / n_b + s²_v / n_v)."""
    kept_b, kept_v = base.kept(), item.kept()
    n_b, n_v = len(kept_b), len(kept_v)
    baseline = float(kept_b.mean()) if n_b else math.nan
    value = float(kept_v.mean()) if n_v else math.nan
    difference = value - baseline
    if n_b > 1 and n_v > 1:
        half = z * math.sqrt(kept_b.var(ddof=1) / n_b + kept_v.var(ddof=1) / n_v)
    else:
        half = math.nan
    return {
        "baseline": baseline, "value": value, "difference": difference,
        "ci_low": difference - half, "ci_high": difference + half, "n": n_v, "n_baseline": n_b,
    }  # fmt: skip


# --------------------------------------------------------------------------------------------
# The ``compare`` command
# --------------------------------------------------------------------------------------------


def format_report(
    comparison: Comparison, elapsed: float | None = None, *, bots_note: str = ""
) -> str:
    """The ``compare`` command's report: the run, how each variant is compared, and the table
    of differences with their intervals (``*`` where the interval excludes 0). ``bots_note``:
    why the bots are what they are, said beside their names (the default bots of a preset
    with no learned model, :func:`tarot_analysis.bots.default.default_note`)."""
    baseline = comparison.baseline
    others = comparison.variants[1:]
    bots = comparison.bots
    who = f"{bots[0]} at every seat" if len(set(bots)) == 1 else ", ".join(bots)
    if bots_note:
        who += f" ({bots_note})"
    if any(v.bots for v in comparison.variants):
        who = "each variant's bot at every seat"
    mode = (
        "counterfactual (seat 0 takes every contract on every deal)"
        if comparison.mode == "counterfactual"
        else "auction (the bots bid)"
    )
    took = f" ({elapsed:.1f} s)" if elapsed is not None else ""
    lines = [
        f"Variants — baseline {baseline.label}, against "
        f"{', '.join(v.label for v in others)}; bots: {who}; mode: {mode}; "
        f"{comparison.deals:,} deals each, seed {comparison.seed}, "
        f"tarot-analysis {__version__}{took}",
    ]
    paired = [v.label for v in others if v.paired]
    unpaired = [f"{v.label} ({v.note})" for v in others if not v.paired]
    if paired:
        lines.append(
            f"Paired with {baseline.label} (the same deals, the bots drawing the same random "
            f"numbers; intervals from per-deal differences): {', '.join(paired)}"
        )
    if unpaired:
        lines.append(
            "Side by side, not paired (two-sample intervals: Newcombe for rates, normal for "
            f"means): {'; '.join(unpaired)}"
        )
    hands_only = [v.label for v in comparison.variants if not v.plays]
    if hands_only:
        lines.append(
            f"Hand statistics only (no bidding and no contract to play): {', '.join(hands_only)}"
        )
    if not baseline.plays:
        lines.append(
            f"The baseline {baseline.label} has no contracts: only hand statistics are compared "
            "(see the summary for the rest)."
        )
    if baseline.plays:
        lines += MODE_TEXT[comparison.mode]
    lines += [
        "Redealt deals are left out of every rate but the redeal rates. Poignée value: score "
        "per defender, signed for the attack, over deals showing one. n: deals (hands for the "
        "per-hand rate: n × players).",
        "",
    ]
    differences = comparison.differences()
    if differences.empty:
        lines.append("No measure is shared with the baseline.")
        return "\n".join(lines)
    percent = round(comparison.confidence * 100)
    lines.append(
        f"Differences against {baseline.label} ({percent}% intervals; * the interval "
        "excludes 0; rates and their differences in % and percentage points)"
    )
    rows = []
    for row in differences.to_dict(orient="records"):
        measure = str(row["measure"])
        low, high = float(row["ci_low"]), float(row["ci_high"])
        interval = (
            f"{_number(low, measure, signed=True)} – {_number(high, measure, signed=True)}"
            if math.isfinite(low) and math.isfinite(high)
            else "—"
        )
        rows.append(
            {
                "variant": row["variant"], "measure": measure, "contract": row["contract"],
                baseline.label: _number(float(row["baseline"]), measure),
                "value": _number(float(row["value"]), measure),
                "difference": _number(float(row["difference"]), measure, signed=True)
                + (" *" if row["excludes_zero"] else "  "),
                f"{percent}% interval": interval,
                "paired": "yes" if row["paired"] else "no",
                "n": f"{int(row['n']):,}",
            }
        )  # fmt: skip
    shown = pd.DataFrame(rows)
    lines.append(shown.to_string(index=False))
    return "\n".join(lines)


def _number(value: float, measure: str, *, signed: bool = False) -> str:
    """A rate in % (a difference of rates in percentage points), a mean in points."""
    if not math.isfinite(value):
        return "—"
    value += 0.0  # no "-0.000"
    sign = "+" if signed else ""
    if measure in RATE_MEASURES:
        return f"{value * 100:{sign}.3f}" + (" pp" if signed else "%")
    return f"{value:{sign}.2f}"
