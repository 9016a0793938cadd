"""The guidance tables made from a run's counts, and their CSV files.

Success and mean score per contract by evaluator value, by bouts × trumps and by kings
(:func:`table_by`): the best option of each value with its runner-up and their paired
difference; the runs of values that share their best option (:func:`best_ranges`); every table
of a run (:func:`guidance_tables`); the seat that speaks first beside the one that speaks last
(:func:`seat_comparison`); the tables written with their manifest (:func:`save_tables`).
docs/guidance.md gives every formula.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

import numpy as np
import pandas as pd

from tarot_analysis.analyses.guidance.counts import (
    _KEYS,
    GROUPINGS,
    GuidanceData,
    _check_reading,
    _counts_by,
    _grouping,
    _half_width,
    _option_sums,
    _paired_sums,
    can_fit,
)
from tarot_analysis.analyses.guidance.thresholds import best_stability, threshold_loss, thresholds
from tarot_analysis.engine.scoring import SCORE_UNIT
from tarot_analysis.errors import TarotInputError
from tarot_analysis.reader import DEFINITION_BYTES, read_json
from tarot_analysis.runs.files import remove_stale, replacing, write_text
from tarot_analysis.runs.progress import SCORING, step
from tarot_analysis.runs.runner import RunSpec
from tarot_analysis.stats import Z_95, wilson_interval


def _rate_rows(group: pd.DataFrame, contracts: list[str], reading: str = "zero") -> pd.DataFrame:
    """Rates, intervals and mean scores from summed counts, one row per key; the measured
    pass (its mean score, and how often another seat takes); the best choice (the pass read
    as ``reading``), the runner-up and their paired difference."""
    n = group["n"].to_numpy()
    table = pd.DataFrame({"n": n}, index=group.index)
    sums = group["twelfths_pass"].to_numpy(dtype=float)
    squares = group["twelfths_sq_pass"].to_numpy(dtype=float)
    table["pass_played_mean_score"] = sums / SCORE_UNIT / n
    table["pass_played_score_half_width"] = _half_width(sums, squares, n)
    table["pass_taken_share"] = group["taken"].to_numpy() / n
    for name in contracts:
        made = group[f"made_{name}"].to_numpy()
        low, high = wilson_interval(made, n)
        sums = group[f"twelfths_{name}"].to_numpy(dtype=float)
        squares = group[f"twelfths_sq_{name}"].to_numpy(dtype=float)
        table[f"{name}_rate"] = made / n
        table[f"{name}_ci_low"] = low
        table[f"{name}_ci_high"] = high
        table[f"{name}_mean_score"] = sums / SCORE_UNIT / n
        table[f"{name}_score_half_width"] = _half_width(sums, squares, n)
    options = np.array(["pass", *contracts], dtype=object)
    means = _option_sums(group, contracts, reading) / np.maximum(n, 1)[:, None] / SCORE_UNIT
    # Highest mean first; among equal means the earlier option (pass, then the lower contract).
    order = np.argsort(-means, axis=1, kind="stable")
    best, runner_up = options[order[:, 0]], options[order[:, 1]]
    total, squares = _paired_sums(group, contracts, best, runner_up, reading)
    difference = total / SCORE_UNIT / n
    half = _half_width(total, squares, n)
    table["best"] = best
    table["best_mean_score"] = np.take_along_axis(means, order[:, :1], axis=1)[:, 0]
    table["runner_up"] = runner_up
    table["difference"] = difference
    table["difference_ci_low"] = difference - half
    table["difference_ci_high"] = difference + half
    # A tie exactly when the interval of the difference reaches 0 (or cannot be estimated).
    table["tie"] = ~(difference - half > 0)
    return table


def table_by(
    data: GuidanceData, keys: str | list[str], *, min_n: int = 1, reading: str = "zero"
) -> pd.DataFrame:
    """Per value of ``keys`` (e.g. ``"chavey"``, ``["bouts", "trumps"]``): n, and for every
    contract its success rate with a Wilson interval, the taker's mean score and the half-width
    of its 95% interval; the pass measured (``pass_played_mean_score`` with its half-width, and
    ``pass_taken_share``, how often another seat then takes); ``best`` is the option of highest mean
    score (``pass`` scoring 0, or with ``reading="played"`` its measured score), ``runner_up``
    the next, ``difference`` theirs, deal by deal on the same deals, with its 95% interval,
    and ``tie`` when that interval reaches 0.

    The keys of :data:`GROUPINGS` come from the run's counts; any other column of the rows
    needs a run that kept them.
    """
    names = [keys] if isinstance(keys, str) else list(keys)
    # A grouping kept as counts serves any leading part of its keys: Chavey's count alone adds
    # up the counts by distribution count. Other keys need the rows.
    grouping = next(
        (g for g, columns in GROUPINGS.items() if list(columns[: len(names)]) == names), None
    )
    if grouping is None:
        counts = _counts_by(data.played(), names, data.contracts)
    else:
        rows = _grouping(data, grouping).reset_index()
        named = rows.rename(columns=dict(zip(_KEYS[2:], GROUPINGS[grouping], strict=False)))
        counts = named.groupby(names)[[c for c in rows.columns if c not in _KEYS]].sum()
    table = _rate_rows(counts, data.contracts, reading)
    return table[table["n"] >= min_n]


def best_choices(table: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """A table's best choice per key, as JSON: ``{key: {"best", "runner_up", "difference",
    "ci_low", "ci_high", "tie", "n"}}`` (keys of two columns written ``"1,8"``)."""
    out = {}
    for key, row in table.iterrows():
        label = ",".join(map(str, key)) if isinstance(key, tuple) else str(key)
        out[label] = {
            "best": str(row["best"]),
            "runner_up": str(row["runner_up"]),
            "difference": _number(row["difference"]),
            "ci_low": _number(row["difference_ci_low"]),
            "ci_high": _number(row["difference_ci_high"]),
            "tie": bool(row["tie"]),
            "n": int(row["n"]),
        }
    return out


def best_ranges(table: pd.DataFrame, *, min_n: int = 1, reading: str = "zero") -> pd.DataFrame:
    """Runs of consecutive values of a one-key table (:func:`table_by`) that share their
    reading, among values held by at least ``min_n`` deals: ``low``, ``high``, ``best`` (the
    best option, or for a tie both options, ``"prise ≈ garde"``, lowest first), ``tie``, ``n``
    (deals in the run), and the mean score of the best option of each value over the run's
    deals with the half-width of its 95% interval (``mean_best_score``, ``half_width``; a pass
    scores 0, or with ``reading="played"``, as the table was made, its measured score). A
    table whose rows each pool several values (a ``high`` column beside the lowest value as
    index, as :func:`~tarot_analysis.analyses.guidance.advice.chavey_advice` pools thin counts)
    gives ranges that reach each pool's highest value.

    >>> table = pd.DataFrame(
    ...     {"n": [300, 300, 300, 300], "best": ["pass", "prise", "garde", "garde"],
    ...      "runner_up": ["prise", "garde", "prise", "prise"], "tie": [False, True, True, False],
    ...      "best_mean_score": [0.0, 1.0, 2.0, 20.0], "prise_mean_score": [-9.0, 1.0, 1.0, 9.0],
    ...      "prise_score_half_width": [1.0] * 4, "garde_mean_score": [-19.0, 0.0, 2.0, 20.0],
    ...      "garde_score_half_width": [2.0] * 4},
    ...     index=pd.Index([40, 41, 42, 43], name="chavey"),
    ... )
    >>> best_ranges(table)[["low", "high", "best", "n"]].values.tolist()
    [[40, 40, 'pass', 300], [41, 42, 'prise ≈ garde', 600], [43, 43, 'garde', 300]]
    """
    steady = table[table["n"] >= min_n].sort_index()
    suffix = "_score_half_width"
    names = [str(c) for c in steady.columns]
    contracts = [c[: -len(suffix)] for c in names if c.endswith(suffix)]
    options = ["pass", *(c for c in contracts if not c.startswith("pass"))]
    rank = {name: k for k, name in enumerate(options)}

    def label(row: pd.Series) -> str:
        if not row["tie"]:
            return str(row["best"])
        pair = sorted((str(row["best"]), str(row["runner_up"])), key=rank.__getitem__)
        return " ≈ ".join(pair)

    labels = steady.apply(label, axis=1) if len(steady) else pd.Series(dtype=object)
    n = steady["n"].to_numpy(dtype=float)
    # Each value's sum and sum of squares of its best option's score, from its mean and the
    # half-width of its interval: the run's mean and interval are over its deals.
    _check_reading(reading)
    mean = np.zeros(len(steady))
    half = np.zeros(len(steady))
    if reading == "played":
        mean = steady["pass_played_mean_score"].to_numpy(dtype=float)
        half = steady["pass_played_score_half_width"].to_numpy(dtype=float)
    for name in options[1:]:
        here = (steady["best"] == name).to_numpy()
        mean = np.where(here, steady[f"{name}_mean_score"], mean)
        half = np.where(here, steady[f"{name}_score_half_width"], half)
    variance = (np.nan_to_num(half) / Z_95) ** 2 * n
    sums, squares = mean * n, variance * (n - 1) + n * mean**2
    rows = []
    runs = (labels != labels.shift()).cumsum()
    for _, part in steady.groupby(runs.to_numpy()):
        at = steady.index.get_indexer(part.index)
        total = float(n[at].sum())
        run_mean = float(sums[at].sum() / total)
        run_variance = (float(squares[at].sum()) - total * run_mean**2) / max(total - 1, 1)
        rows.append(
            {
                "low": part.index.min(),
                "high": part["high"].max() if "high" in part else part.index.max(),
                "best": labels.iloc[at[0]],
                "tie": bool(part["tie"].iloc[0]),
                "n": int(total),
                "mean_best_score": run_mean,
                "half_width": Z_95 * float(np.sqrt(max(run_variance, 0.0) / total)),
            }
        )
    columns = ["low", "high", "best", "tie", "n", "mean_best_score", "half_width"]
    return pd.DataFrame(rows, columns=columns)


def _number(value: Any) -> float | None:
    return None if pd.isna(value) else round(float(value), 4)


def guidance_tables(data: GuidanceData, *, progress: bool = False) -> dict[str, pd.DataFrame]:
    """Every guidance table of a run: by Chavey count with the pass read both ways (scoring 0,
    and measured: ``by_chavey_pass_played``), by bouts and trumps, by kings, the thresholds
    and what each rule loses. ``progress`` shows the step
    (:func:`tarot_analysis.runs.progress.step`). A run of fewer than :data:`MIN_FIT_DEALS` deals
    played has no thresholds and no losses (:func:`can_fit`).
    """
    with step(SCORING, progress, detail=f"{data.rules.name} seat {data.seat}, tables") as shown:
        by_chavey = table_by(data, "chavey")
        by_chavey["best_changes"] = best_stability(data, "chavey").reindex(by_chavey.index)
        tables = {
            "by_chavey": by_chavey,
            "by_chavey_pass_played": table_by(data, "chavey", reading="played"),
            "by_bouts_trumps": table_by(data, ["bouts", "trumps"]),
            "by_kings": table_by(data, "kings"),
        }
        if not can_fit(data):
            return tables
        shown.set_postfix_str("thresholds with their bootstrap intervals")
        tables["thresholds"] = thresholds(data)
        shown.set_postfix_str("what each rule loses")
        tables["threshold_loss"] = threshold_loss(data)
    return tables


def seat_comparison(first: GuidanceData, last: GuidanceData, *, min_n: int = 1) -> pd.DataFrame:
    """The best option by Chavey count for the seat that speaks first and the one that speaks
    last, side by side: for seat 0 with the pass scoring 0 and measured; for the last seat on
    the deals every other seat passed (its pass then ends the deal: it scores 0 either way).
    Each with its deals, runner-up, paired difference and tie flag."""
    if first.rules.name != last.rules.name or first.seat != 0 or last.seat == 0:
        raise TarotInputError("compare a seat-0 run with a last-seat run of the same rules")
    parts = {
        "first": table_by(first, "chavey", min_n=min_n),
        "first_pass_played": table_by(first, "chavey", min_n=min_n, reading="played"),
        "last": table_by(last, "chavey", min_n=min_n),
    }
    columns = ["n", "best", "runner_up", "difference", "difference_ci_low",
               "difference_ci_high", "tie"]  # fmt: skip
    joined = pd.concat(
        {name: table[columns] for name, table in parts.items()}, axis=1, join="outer"
    )
    joined.columns = ["_".join(map(str, pair)) for pair in joined.columns.to_flat_index()]
    return joined.sort_index()


#: The file of a tables folder that names the runs its tables come from, and its tables.
TABLES_MANIFEST: Final = "_tables.json"
#: Tables that some runs write and others do not (the fitted model needs rows; the seats'
#: comparison needs both seats): an earlier run's, in a folder without a manifest, are removed.
_SOMETIMES_WRITTEN: Final = ("model_coefficients.csv", "by_model.csv", "by_seat.csv",
                             "calibration_*.csv")  # fmt: skip


def _earlier_tables(folder: Path) -> set[str]:
    """The tables an earlier run wrote in ``folder``: those its manifest names, or, without
    one, those only some runs write."""
    manifest = folder / TABLES_MANIFEST
    try:
        named = read_json(manifest, "tables manifest", limit=DEFINITION_BYTES)["tables"]
        return {str(name) for name in named if Path(str(name)).name == str(name)}
    except (OSError, ValueError, KeyError, TypeError):
        return {path.name for pattern in _SOMETIMES_WRITTEN for path in folder.glob(pattern)}


def save_tables(
    tables: dict[str, pd.DataFrame], folder: str | os.PathLike[str],
    *, runs: Sequence[RunSpec] = (),
) -> list[Path]:  # fmt: skip
    """Write every table as CSV into ``folder``; return the paths.

    Each table is written whole or not at all (:func:`tarot_analysis.runs.files.replacing`). The
    folder's manifest, ``_tables.json``, names the runs the tables come from (``runs``, their
    whole definitions) and each table with its SHA-256; tables of an earlier run that this one
    does not write (the fitted model's, after a run without rows) are removed. While the
    tables are being written the folder has no manifest: a folder left by a killed process
    names no run."""
    target = Path(folder)
    target.mkdir(parents=True, exist_ok=True)
    remove_stale(target)  # left by a process killed while writing
    manifest = target / TABLES_MANIFEST
    earlier = _earlier_tables(target)
    manifest.unlink(missing_ok=True)
    paths, digests = [], {}
    for name, table in tables.items():
        path = target / f"{name}.csv"
        with replacing(path) as temporary:
            with open(temporary, "w", encoding="utf-8", newline="") as handle:
                table.to_csv(handle)
            digests[path.name] = hashlib.sha256(temporary.read_bytes()).hexdigest()
        paths.append(path)
    for stale in sorted(earlier - set(digests)):
        (target / stale).unlink(missing_ok=True)
    described = {"format": 1, "runs": [spec.to_json() for spec in runs], "tables": digests}
    write_text(manifest, json.dumps(described, indent=2) + "\n")
    return paths
