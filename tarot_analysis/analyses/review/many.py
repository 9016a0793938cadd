"""The review of many deals: the deals of a ``play`` run played again by its bots, every
decision the search values measured by it, and where the bots lose most.

The deals are those ``tarot-analysis play --rules R --seed S --deals N --bots B`` plays: the
same dealer, the same bots drawing from the same generator, chunk by chunk of the play run
(:func:`tarot_analysis.table.play.chunk_start`), so deal ``k`` here is deal ``k`` there and
``tarot-analysis replay --deal k`` shows it. Before each bid, call, poignée and card with more
than one legal action the search (:func:`tarot_analysis.bots.pimc.search_values`, the pimc
bot's own measurement, in compiled code) values every legal action for the seat over
``worlds`` worlds it could not tell from the true deal, each action taken on every world and
the deal played out by the heuristic (its last tricks double dummy), or with ``play_outs=
"learned"`` by the learned bot shipped for the preset, which also reads the auction of the
worlds as it bids (``pimc:learned``); then the table's bot
plays its own action. The loss of that action is the best mean less its own, on the same
worlds: never negative, 0 where the bot played the best. The écart and the chelem are not
valued (the search leaves them to the heuristic).

Each row is one decision (:data:`COLUMNS`): its deal, seat, step, kind, trick, the seat's bot,
its side in the deal as it ended (``taker``, ``partner``, ``defence``; ``none`` when everyone
passed), the contract, the action played and the best, their means, the loss and the worlds.
The rows go to a run folder (:mod:`tarot_analysis.runs.runner`): Parquet chunks of a few
deals, resumed after a stop with the same numbers, on local threads or a Dask cluster. The
worlds of chunk ``c`` are drawn from ``SeedSequence(seed, spawn_key=(c, 2))``.

:func:`loss_tables` then tells where the points go: by kind of decision, trick, side, contract
(and bot, at a mixed table), each group's decisions, its points lost a decision with a 95%
interval clustered by deal, and a deal (the group's losses summed in each deal, over every
deal of the run) with its 95% interval.

A loss measured on few worlds leans high: the best is the highest of several noisy means on
the same worlds. The search bot itself (``pimc``, 32 worlds a card) loses 0.6 points a
decision by this measure at 128 worlds, the heuristic 4.3 (docs/review.md): the floor a bot's
losses are read against. A table that searches replays the play chunk's deals before a chunk's
first: give it large chunks.

>>> import tempfile
>>> from tarot_analysis.game.rules import load_rules
>>> folder = tempfile.mkdtemp()
>>> done = review_deals(load_rules("fft-4"), 2, folder, worlds=4, seed=3, chunk_size=1)
>>> run = read_review_run(folder)
>>> bool((run.frame["loss"] >= 0).all()), sorted(run.frame["deal"].unique().tolist())
(True, [0, 1])
>>> list(loss_tables(run))
['kind', 'trick', 'side', 'contract', 'all']
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np
import pandas as pd
import pyarrow as pa

from tarot_analysis.analyses.review.deal import REVIEW_WORLDS
from tarot_analysis.analyses.review.values import name_of, play_outs_learned
from tarot_analysis.bots import MAX_PIMC_WORLDS, Bot, file_label
from tarot_analysis.engine import state as S
from tarot_analysis.errors import TarotInputError, deal_count, is_whole_number
from tarot_analysis.game.rules import Rules, rules_to_dict
from tarot_analysis.runs.progress import PLAYING
from tarot_analysis.runs.runner import SPEC_FILE, RunResult, RunSpec, finished_run, read_dataset
from tarot_analysis.runs.runner import run as run_chunks
from tarot_analysis.stats import deal_interval
from tarot_analysis.table.valued import FACTS, SIDES, valued_deals

__all__ = [
    "COLUMNS",
    "DEFAULT_CHUNK_SIZE",
    "DEFAULT_WORLDS",
    "GROUPS",
    "KIND",
    "TITLES",
    "ReviewRun",
    "describe_losses",
    "find_review_runs",
    "loss_table",
    "loss_tables",
    "losses_json",
    "read_review_run",
    "review_deals",
    "review_folder",
    "seated",
]

#: The kind of run in a folder's definition.
KIND: Final = "review"
#: Worlds a decision when none are named, as the review of one deal draws: 200 fft-4 deals
#: of the heuristic in about a minute on one core (docs/review.md).
DEFAULT_WORLDS: Final = REVIEW_WORLDS
#: Deals a chunk: a few seconds of one core at 128 worlds in 4 players, so that a stop loses
#: little and two cores share even a short run.
DEFAULT_CHUNK_SIZE: Final = 20
#: The decisions valued; the écart and the chelem are the heuristic's in the search bot and
#: are not valued.
REVIEWED: Final = ("bid", "call", "poignee", "card")
#: The columns of a row, one row per decision valued.
COLUMNS: Final = (
    "deal", "seat", "step", "kind", "trick", "bot", "side", "contract", "played", "best",
    "played_action", "best_action", "played_mean", "best_mean", "loss", "worlds", "legal",
)  # fmt: skip
#: The tables of :func:`loss_tables`: the column each groups by.
GROUPS: Final = ("kind", "trick", "side", "contract")


def review_chunk(
    rules: Rules, bots: tuple[str, ...], seed: int, worlds: int, play_chunk_size: int,
    chunk: int, first: int, n: int, *, learned: bool = False,
) -> pa.Table:  # fmt: skip
    """The rows of deals ``first .. first + n`` of a review (its chunk ``chunk``): each deal
    the play run's of that number, its decisions valued by the search (:data:`COLUMNS`), its
    worlds played out by the learned bot with ``learned``."""
    search_seed = np.random.SeedSequence(seed, spawn_key=(chunk, 2))
    facts, means = valued_deals(
        rules, bots, seed, worlds, play_chunk_size, search_seed, first, n, learned=learned
    )
    column = {name: facts[:, k] for k, name in enumerate(FACTS)}
    names = np.array([name_of(a, rules) for a in range(S.N_ACTIONS)], dtype=object)
    contracts = np.array([c.name for c in rules.contracts] + ["none"], dtype=object)
    trick = column["trick"]
    loss = np.where(np.isnan(means[:, 0]), 0.0, means[:, 1] - means[:, 0])
    return pa.table(
        {
            "deal": pa.array(column["deal"], pa.int64()),
            "seat": pa.array(column["seat"], pa.int8()),
            "step": pa.array(column["step"], pa.int16()),
            "kind": pa.array(np.asarray(S.DECISIONS)[column["kind"]], pa.string()),
            "trick": pa.array(trick, pa.int8(), mask=trick == 0),
            "bot": pa.array(np.asarray(bots, dtype=object)[column["seat"]], pa.string()),
            "side": pa.array(np.asarray(SIDES, dtype=object)[column["side"]], pa.string()),
            "contract": pa.array(contracts[column["contract"]], pa.string()),
            "played": pa.array(names[column["played"]], pa.string()),
            "best": pa.array(names[column["best"]], pa.string()),
            "played_action": pa.array(column["played"], pa.int16()),
            "best_action": pa.array(column["best"], pa.int16()),
            "played_mean": pa.array(means[:, 0], pa.float64()),
            "best_mean": pa.array(means[:, 1], pa.float64()),
            "loss": pa.array(np.maximum(loss, 0.0), pa.float64()),
            "worlds": pa.array(column["worlds"], pa.int16()),
            "legal": pa.array(column["legal"], pa.int16()),
        }
    )


def review_folder(
    rules: Rules, bots: tuple[str, ...], seed: int, deals: int, worlds: int,
    play_outs: str = "heuristic",
) -> str:  # fmt: skip
    """The run folder a review is stored in by default, under ``data/``: each bot named as
    :func:`~tarot_analysis.bots.file_label` writes it (no path of a model file in it)."""
    labels = [file_label(bot) for bot in bots]
    table = labels[0] if len(set(labels)) == 1 else "-".join(labels)
    learned = "-learned" if play_outs_learned(play_outs) else ""
    return f"data/review-{rules.name}-{table}-seed{seed}-{deals}-w{worlds}{learned}"


def seated(rules: Rules, bots: str | tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """One compiled bot's name a seat (``bots``: one for every seat, or one a seat), checked."""
    seated = (bots,) * rules.players if isinstance(bots, str) else tuple(bots)
    if len(seated) == 1:
        seated = seated * rules.players
    if len(seated) != rules.players:
        raise TarotInputError(
            f"{rules.name} seats {rules.players} bots, got {len(seated)}: {', '.join(seated)}"
        )
    return tuple(Bot.parse(bot).name for bot in seated)


def review_deals(
    rules: Rules,
    deals: int,
    folder: str | os.PathLike[str],
    *,
    bots: str | tuple[str, ...] | list[str] = "heuristic",
    worlds: int = DEFAULT_WORLDS,
    play_outs: str = "heuristic",
    seed: int = 1,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    threads: int | None = None,
    progress: bool = False,
    client: Any = None,
) -> RunResult:
    """Review the first ``deals`` deals of ``play(rules, deals, bots=bots, seed=seed)`` into
    ``folder`` (resuming what is there): one row per decision the search valued over
    ``worlds`` worlds (:data:`COLUMNS`). ``bots``: one compiled bot for every seat, or one a
    seat. ``play_outs``: the bot that plays the worlds out, ``heuristic`` or ``learned``.
    ``client``: a Dask client whose workers compute the chunks."""
    from tarot_analysis.table.play import run_chunk_size

    if rules.tarocco is not None:
        raise TarotInputError(f"{rules.name}: a review of many deals is for the French presets")
    deals = deal_count(deals)
    if not is_whole_number(worlds) or not 1 <= worlds <= MAX_PIMC_WORLDS:
        raise TarotInputError(
            f"worlds must be a whole number from 1 to {MAX_PIMC_WORLDS}, got {worlds!r}"
        )
    if not is_whole_number(seed) or seed < 0:
        raise TarotInputError(f"the seed must be a whole number, 0 or more, got {seed!r}")
    learned = play_outs_learned(play_outs)
    searcher = Bot("pimc", worlds=int(worlds), learned=learned).name
    names = seated(rules, bots)
    play_chunk_size = run_chunk_size(rules, None)
    spec = RunSpec(
        kind=KIND, rules=rules.name, bots=names, seed=int(seed), deals=deals,
        chunk_size=chunk_size,
        extra={
            "rules_definition": rules_to_dict(rules), "searcher": searcher,
            # only where it is not the heuristic: the runs made before it resume as they were
            **({"play_outs": play_outs} if learned else {}),
            "worlds": int(worlds), "play_chunk_size": play_chunk_size,
            "columns": list(COLUMNS), "valued": list(REVIEWED),
            "deals_of": f"play --rules {rules.name} --seed {seed} --deals {deals} --bots "
            f"{' '.join(names)}",
        },
    )  # fmt: skip

    def work(chunk: int, first: int, n: int) -> pa.Table:
        return review_chunk(
            rules, names, int(seed), int(worlds), play_chunk_size, chunk, first, n,
            learned=learned,
        )  # fmt: skip

    return run_chunks(
        spec, folder, work, threads=threads, progress=progress, client=client, phase=PLAYING,
        detail=f"{rules.name} reviewed by {searcher}",
    )  # fmt: skip


@dataclass(frozen=True)
class ReviewRun:
    """A finished review of many deals: its folder, its definition and its rows."""

    folder: Path
    spec: RunSpec
    frame: pd.DataFrame  # one row per decision valued (:data:`COLUMNS`)

    @property
    def rules(self) -> str:
        return self.spec.rules

    @property
    def deals(self) -> int:
        return self.spec.deals

    @property
    def worlds(self) -> int:
        return int(self.spec.extra.get("worlds", 0))

    @property
    def bots(self) -> tuple[str, ...]:
        return self.spec.bots

    @property
    def play_outs(self) -> str:
        """The bot that played the search's worlds out (runs made before it was recorded:
        the heuristic)."""
        return str(self.spec.extra.get("play_outs", "heuristic"))

    def describe(self) -> str:
        """The run in a few words: rules, bots, deals, seed, worlds."""
        bots = self.bots
        table = f"{bots[0]} at every seat" if len(set(bots)) == 1 else ", ".join(bots)
        return (
            f"{self.rules}, {table}, {self.deals:,} deals of play seed {self.spec.seed}, "
            f"valued by pimc over {self.worlds} worlds a decision"
            + (", played out by the learned bot" if self.play_outs == "learned" else "")
        )


def read_review_run(folder: str | os.PathLike[str]) -> ReviewRun:
    """The review of many deals in ``folder``, every chunk checked; a folder of another kind
    of run, or an unfinished one, is refused in one line."""
    source = Path(folder)
    spec = finished_run(source)
    if spec is None:
        if not (source / SPEC_FILE).exists():
            raise TarotInputError(f"{source}: no {SPEC_FILE}: not the folder of a review")
        raise TarotInputError(f"{source}: the review is not finished: run its command again")
    if spec.kind != KIND:
        raise TarotInputError(f"{source}: a run of {spec.kind!r}, not a review of deals")
    frame = read_dataset(source, spec).to_pandas()
    frame["trick"] = frame["trick"].astype("Int8")  # null before the play, not a float's NaN
    return ReviewRun(source, spec, frame)


def find_review_runs(
    data_dir: str | os.PathLike[str], rules_name: str | None = None
) -> list[ReviewRun]:
    """The finished reviews of many deals in ``data_dir`` (of ``rules_name``, or any), the
    most deals first (then the most worlds, the folder's name); damaged ones are left out."""
    found = []
    for folder in sorted(Path(data_dir).glob("*")):
        spec = finished_run(folder) if folder.is_dir() else None
        if spec is None or spec.kind != KIND or rules_name not in (None, spec.rules):
            continue
        try:
            found.append(read_review_run(folder))
        except (TarotInputError, OSError, ValueError):
            continue  # a damaged chunk: left out
    return sorted(found, key=lambda r: (-r.deals, -r.worlds, r.folder.name))


def loss_table(frame: pd.DataFrame, by: str, deals: int) -> pd.DataFrame:
    """The points lost by group of ``by`` (a column of ``frame``, rows of a review of
    ``deals`` deals), the costliest a deal first: ``decisions``, ``deals_with`` (deals with a
    decision of the group), ``per_decision`` with ``ci_low``, ``ci_high`` (95%, clustered by
    deal), ``per_deal`` with ``deal_ci_low``, ``deal_ci_high`` (the group's losses summed in
    each deal, over all ``deals``; Student's t), ``share`` (of all points lost) and
    ``best_rate`` (decisions where the bot played the best)."""
    deals = deal_count(deals)
    rows = {}
    total = float(frame["loss"].sum())
    for group, part in frame.groupby(by, sort=True, dropna=True):
        loss = part["loss"].to_numpy(dtype=np.float64)
        ids = part["deal"].to_numpy(dtype=np.int64)
        decision = deal_interval(loss, ids)
        sums = np.zeros(deals)
        np.add.at(sums, ids, loss)
        deal = deal_interval(sums, np.arange(deals))
        rows[group] = {
            "decisions": len(part), "deals_with": int(decision["deals"]),
            "per_decision": decision["mean"], "ci_low": decision["ci_low"],
            "ci_high": decision["ci_high"], "per_deal": deal["mean"],
            "deal_ci_low": deal["ci_low"], "deal_ci_high": deal["ci_high"],
            "share": float(loss.sum()) / total if total > 0 else 0.0,
            "best_rate": float((loss <= 0).mean()),
        }  # fmt: skip
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = by
    if by == "trick":
        table.index = table.index.astype(int)
        return table.sort_index()
    return table.sort_values("per_deal", ascending=False, kind="stable")


def loss_tables(run: ReviewRun) -> dict[str, pd.DataFrame]:
    """:func:`loss_table` by each of :data:`GROUPS` (and ``bot`` at a table of several
    bots), and ``all`` for every decision."""
    frame = run.frame
    tables = {by: loss_table(frame, by, run.deals) for by in GROUPS}
    if len(set(run.bots)) > 1:
        tables["bot"] = loss_table(frame, "bot", run.deals)
    tables["all"] = loss_table(frame.assign(all="all"), "all", run.deals)
    return tables


#: The headings of the tables, as text and the report name them.
TITLES: Final = {
    "kind": "by kind of decision", "trick": "by trick (cards)", "side": "by side in the deal",
    "contract": "by contract", "bot": "by bot", "all": "every decision",
}  # fmt: skip


def _interval(mean: float, low: Any, high: Any) -> str:
    if low is None or high is None or low != low:  # one deal: no interval
        return f"{mean:.2f}"
    return f"{mean:.2f} ({low:.2f} to {high:.2f})"


def describe_losses(run: ReviewRun, tables: dict[str, pd.DataFrame] | None = None) -> str:
    """The tables of :func:`loss_tables` as text, the run named above them."""
    tables = loss_tables(run) if tables is None else tables
    overall = tables["all"].iloc[0]
    lines = [
        f"Where the points are lost — {run.describe()}",
        f"{int(overall['decisions']):,} decisions valued (bids, calls, poignées and cards with "
        "more than one legal action; the écart and the chelem are not), a decision lost "
        f"{_interval(overall['per_decision'], overall['ci_low'], overall['ci_high'])} points "
        "and a deal "
        f"{_interval(overall['per_deal'], overall['deal_ci_low'], overall['deal_ci_high'])}"
        " (95% intervals, deals the independent units). Points of the deciding seat's score; "
        "side: the seat's in the deal as it ended.",
    ]  # fmt: skip
    for by, table in tables.items():
        if by == "all":
            continue
        lines += ["", f"Points lost {TITLES[by]}"]
        header = f"  {by:<13} {'decisions':>9}  {'a decision (95%)':<24} {'a deal (95%)':<26} "
        lines.append(header + f"{'share':>6}  best played")
        for group, row in table.iterrows():
            lines.append(
                f"  {group!s:<13} {int(row['decisions']):>9,}  "
                f"{_interval(row['per_decision'], row['ci_low'], row['ci_high']):<24} "
                f"{_interval(row['per_deal'], row['deal_ci_low'], row['deal_ci_high']):<26} "
                f"{row['share']:>6.1%}  {row['best_rate']:.1%}"
            )
    return "\n".join(lines)


def losses_json(run: ReviewRun, tables: dict[str, pd.DataFrame] | None = None) -> dict[str, Any]:
    """The run and its tables as JSON-able data: each table a list of rows, its group under
    the table's name."""
    tables = loss_tables(run) if tables is None else tables

    def number(value: Any) -> Any:
        if value is None or (isinstance(value, float) and value != value):
            return None
        return value.item() if hasattr(value, "item") else value

    return {
        "rules": run.rules, "bots": list(run.bots), "seed": run.spec.seed, "deals": run.deals,
        "worlds": run.worlds, "data": run.folder.as_posix(), "decisions": len(run.frame),
        "valued": list(run.spec.extra.get("valued", REVIEWED)),
        "tables": {
            by: [
                {by: number(group), **{key: number(v) for key, v in row.items()}}
                for group, row in table.to_dict("index").items()
            ]
            for by, table in tables.items()
        },
    }  # fmt: skip
