"""Bidding guidance from counterfactual play."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tarot_analysis import evaluators
from tarot_analysis.cli import main
from tarot_analysis.guidance import (
    auc,
    compare_evaluators,
    fit_logistic,
    guidance_tables,
    run_guidance,
    table_by,
)
from tarot_analysis.rules import load_rules
from tarot_analysis.stats import Z_95


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    folder = tmp_path_factory.mktemp("guidance")
    return run_guidance(load_rules("fft-4"), 40_000, folder, seed=3, chunk_size=10_000)


def test_rows_hold_every_contract_and_the_hand(data) -> None:  # type: ignore[no-untyped-def]
    frame = data.frame
    assert len(frame) == 40_000 and frame["deal"].tolist() == list(range(40_000))
    for contract in ("prise", "garde", "garde_sans", "garde_contre"):
        assert f"made_{contract}" in frame and f"score_{contract}" in frame
    played = data.played()
    # Prise and Garde share their play: they make together, and the Garde scores double
    # whenever no poignée or chelem is involved.
    assert (played["made_prise"] == played["made_garde"]).all()


def test_tables_rise_with_the_hand_and_name_the_best_contract(data) -> None:  # type: ignore[no-untyped-def]
    tables = guidance_tables(data)
    by_bouts = tables["by_bouts_trumps"].groupby(level="bouts")["garde_rate"].mean()
    assert by_bouts.is_monotonic_increasing
    by_chavey = tables["by_chavey"]
    steady = by_chavey[by_chavey["n"] >= 300]
    assert steady["garde_rate"].iloc[-1] > steady["garde_rate"].iloc[0]
    assert set(by_chavey["best"]) <= {"pass", "prise", "garde", "garde_sans", "garde_contre"}
    assert (steady["garde_ci_low"] <= steady["garde_rate"]).all()
    loss = tables["threshold_loss"]
    assert (loss["mean_loss"] >= 0).all()  # nothing beats the best choice of each row


def test_the_loss_of_the_published_thresholds_is_summarised_deal_by_deal(data) -> None:  # type: ignore[no-untyped-def]
    # Recomputed from the stored rows: each deal's loss is the score, on that deal, of the
    # best contract at its Chavey count less that of the contract Chavey's bids name.
    played = data.played()
    by_value = table_by(data, "chavey")
    best = by_value["best"].reindex(played["chavey"]).to_numpy(dtype=object)
    bids = evaluators.chavey_bid(
        played["chavey"].to_numpy(), played["chavey_distribution"].to_numpy(),
        hand_size=data.rules.hand_size,
    )  # fmt: skip
    chosen = np.asarray(evaluators.bid_names(bids), dtype=object)

    def score(names: np.ndarray) -> np.ndarray:
        values = np.zeros(len(played))
        for contract in data.contracts:
            values = np.where(names == contract, played[f"score_{contract}"], values)
        return values

    losses = score(best) - score(chosen)
    row = guidance_tables(data)["threshold_loss"].loc["chavey"]
    half_width = Z_95 * losses.std(ddof=1) / np.sqrt(len(losses))
    assert row["n"] == len(losses)
    assert row["mean_loss"] == pytest.approx(losses.mean(), abs=1e-9)
    assert row["loss_ci_half_width"] == pytest.approx(half_width, rel=1e-9)
    # Averaging each count's deals first, as the tables do, hides the spread of the deals:
    # that interval would be several times too narrow.
    group_mean = pd.Series(losses).groupby(played["chavey"].to_numpy()).transform("mean")
    too_narrow = Z_95 * group_mean.std(ddof=1) / np.sqrt(len(losses))
    assert row["loss_ci_half_width"] > 2 * too_narrow


def test_the_fitted_model_is_compared_on_held_out_deals(data) -> None:  # type: ignore[no-untyped-def]
    result = compare_evaluators(data, "garde")
    assert result["n_train"] + result["n_test"] == len(data.played())
    for name in ("fitted", "chavey"):
        for metric in ("brier", "log_loss", "auc"):
            entry = result[name][metric]
            assert entry["ci_low"] <= entry["value"] <= entry["ci_high"]
    assert 0.5 < result["chavey"]["auc"]["value"] < 1


def test_logistic_fit_recovers_known_coefficients() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=50_000)
    y = rng.random(50_000) < 1 / (1 + np.exp(-(0.5 + 2.0 * x)))
    model = fit_logistic(pd.DataFrame({"x": x, "y": y}), "y", ["x"], "test")
    per_unit = model.table().at["x", "per_unit"]
    assert abs(per_unit - 2.0) < 0.08
    assert abs(auc(np.array([0, 0, 1, 1]), np.array([0.1, 0.4, 0.35, 0.8])) - 0.75) < 1e-12


def test_guidance_command_writes_tables_and_summarises(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["guidance", "--deals", "20000", "--data", str(tmp_path / "run"),
                 "--tables", str(tmp_path / "tables"), "--json"])  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["mode"] == "counterfactual" and out["deals"] == 20000
    assert (tmp_path / "tables" / "by_chavey.csv").exists()
    assert {row["evaluator"] for row in out["threshold_loss"]} == {"chavey", "bouts_and_trumps"}
    # Run again: every chunk is found on disk and nothing is recomputed.
    code = main(["guidance", "--deals", "20000", "--data", str(tmp_path / "run"),
                 "--tables", str(tmp_path / "tables"), "--json"])  # fmt: skip
    again = json.loads(capsys.readouterr().out)
    assert again["best_by_chavey"] == out["best_by_chavey"]


def test_counts_instead_of_rows_give_the_same_tables(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["guidance", "--deals", "12000", "--chunk-size", "3000", "--bots", "random", "--json"]
    outputs = {}
    for kept in ("rows", "counts"):
        flags = ["--no-rows"] if kept == "counts" else []
        code = main([*argv, *flags, "--data", str(tmp_path / kept),
                     "--tables", str(tmp_path / f"tables-{kept}")])  # fmt: skip
        assert code == 0
        outputs[kept] = json.loads(capsys.readouterr().out)
    rows, counts = outputs["rows"], outputs["counts"]
    assert rows["rows"] and not counts["rows"] and counts["model_comparison"] is None
    assert rows["threshold_loss"] == counts["threshold_loss"]
    assert rows["best_by_chavey"] == counts["best_by_chavey"]
    assert rows["played"] == counts["played"]
    for table in ("by_chavey", "by_bouts_trumps", "by_kings", "threshold_loss"):
        kept_rows = (tmp_path / "tables-rows" / f"{table}.csv").read_text()
        assert kept_rows == (tmp_path / "tables-counts" / f"{table}.csv").read_text()
    # A chunk file of counts is small: a row per key of each table, not per deal.
    import pyarrow.parquet as pq

    chunk = pq.read_table(tmp_path / "counts" / "chunk-000000.parquet")
    assert chunk.num_rows < 600 and "grouping" in chunk.column_names
    # The same folder cannot be resumed as a run of rows.
    code = main([*argv, "--data", str(tmp_path / "counts"), "--tables", str(tmp_path / "t")])
    assert code == 2 and "holds a different run" in capsys.readouterr().err


def test_counts_merge_in_any_order(data) -> None:  # type: ignore[no-untyped-def]
    from tarot_analysis.guidance import merge_counts, rows_counts

    contracts = data.contracts
    frame = data.frame
    parts = [rows_counts(frame.iloc[i : i + 7_000], contracts) for i in range(0, 40_000, 7_000)]
    forward, backward = merge_counts(parts), merge_counts(reversed(parts))
    assert forward.equals(backward)
    assert forward.equals(rows_counts(data.frame, contracts))
    assert data.played_deals == len(data.played()) and data.deals == 40_000
    # A score that is not a whole number of twelfths of a point cannot be counted exactly.
    broken = data.frame.iloc[:10].copy()
    broken["score_garde"] = broken["score_garde"] + 0.01
    with pytest.raises(ValueError, match="1/12 points"):
        rows_counts(broken, contracts)


def test_a_run_of_counts_gets_its_own_default_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    argv = ["guidance", "--deals", "2000", "--bots", "random", "--json"]
    assert main(argv) == 0 and main([*argv, "--no-rows"]) == 0  # no clash between the two
    folders = sorted(p.name for p in (tmp_path / "data").iterdir())
    assert folders == [
        "guidance-fft-4-random-seed1-2000",
        "guidance-fft-4-random-seed1-2000-counts",
    ]
    capsys.readouterr()
