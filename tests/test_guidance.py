"""Bidding guidance from counterfactual play."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tarot_analysis.analyses.guidance import (
    MIN_FIT_DEALS,
    auc,
    can_fit,
    compare_evaluators,
    fit_logistic,
    guidance_tables,
    run_guidance,
    table_by,
    threshold_loss,
    thresholds,
)
from tarot_analysis.cli import main
from tarot_analysis.deals import evaluators
from tarot_analysis.errors import TarotInputError
from tarot_analysis.game.rules import load_rules
from tarot_analysis.stats import Z_95
from tests.interrupting import interrupt_when


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


@pytest.mark.slow
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
    # Its interval holds the true value, and its standard error is that of the information
    # matrix: sqrt(1 / sum p(1 - p) x²) nearly, x centred with a small intercept.
    row = model.table().loc["x"]
    assert row["ci_low"] < 2.0 < row["ci_high"]
    p = 1 / (1 + np.exp(-(0.5 + 2.0 * x)))
    information = np.array(
        [[np.sum(p * (1 - p)), np.sum(p * (1 - p) * x)],
         [np.sum(p * (1 - p) * x), np.sum(p * (1 - p) * x * x)]]
    )  # fmt: skip
    expected = np.sqrt(np.linalg.inv(information)[1, 1])
    assert row["std_error"] == pytest.approx(expected, rel=0.1)
    assert abs(auc(np.array([0, 0, 1, 1]), np.array([0.1, 0.4, 0.35, 0.8])) - 0.75) < 1e-12


@pytest.mark.slow
def test_guidance_command_writes_tables_and_summarises(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["guidance", "--deals", "20000", "--data", str(tmp_path / "run"),
                 "--tables", str(tmp_path / "tables"), "--json",
                 "--bots", "heuristic"])  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["mode"] == "counterfactual" and out["deals"] == 20000
    assert (tmp_path / "tables" / "by_chavey.csv").exists()
    assert {row["evaluator"] for row in out["threshold_loss"]} == {"chavey", "bouts_and_trumps"}
    assert {row["rule"] for row in out["threshold_loss"]} == {
        "chavey", "chavey_fitted", "bouts_and_trumps", "bouts_and_trumps_fitted",
    }  # fmt: skip
    for row in out["threshold_loss"]:
        assert {"mean_loss", "loss_ci_half_width", "out_of_sample_loss",
                "out_of_sample_ci_half_width"} <= set(row)  # fmt: skip
    for name in ("best_by_chavey", "best_by_bouts_trumps", "best_by_model"):
        assert out[name], name
        for entry in out[name].values():
            assert set(entry) == {
                "best",
                "runner_up",
                "difference",
                "ci_low",
                "ci_high",
                "tie",
                "n",
            }
            assert entry["best"] != entry["runner_up"]
            # A tie exactly when the interval of the difference reaches 0.
            assert entry["tie"] == (entry["ci_low"] is None or entry["ci_low"] <= 0)
    assert "1,8" in out["best_by_bouts_trumps"]
    assert {row["contract"] for row in out["thresholds"]} == {
        "prise", "garde", "garde_sans", "garde_contre",
    }  # fmt: skip
    assert out["model_caveats"] and out["model_coefficients"][0]["std_error"] > 0
    # Run again: every chunk is found on disk and nothing is recomputed.
    code = main(["guidance", "--deals", "20000", "--data", str(tmp_path / "run"),
                 "--tables", str(tmp_path / "tables"), "--json",
                 "--bots", "heuristic"])  # fmt: skip
    again = json.loads(capsys.readouterr().out)
    assert again["best_by_chavey"] == out["best_by_chavey"]


@pytest.mark.slow
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

    from tarot_analysis.bootstrap import REPLICATES

    chunk = pq.read_table(tmp_path / "counts" / "chunk-000000.parquet").to_pandas()
    replicates = chunk["grouping"].str.startswith("replicates_")
    assert chunk[~replicates].shape[0] < 1_200
    assert (chunk[replicates].groupby("grouping")["key_2"].nunique() == REPLICATES).all()
    # The same folder cannot be resumed as a run of rows.
    code = main([*argv, "--data", str(tmp_path / "counts"), "--tables", str(tmp_path / "t")])
    assert code == 2 and "holds a different run" in capsys.readouterr().err


def test_counts_merge_in_any_order(data) -> None:  # type: ignore[no-untyped-def]
    from tarot_analysis.analyses.guidance import merge_counts, rows_counts

    contracts = data.contracts
    frame = data.frame
    parts = [
        rows_counts(frame.iloc[i : i + 7_000], contracts, seed=data.seed)
        for i in range(0, 40_000, 7_000)
    ]
    forward, backward = merge_counts(parts), merge_counts(reversed(parts))
    assert forward.equals(backward)
    # The bootstrap sums too: each deal's weights depend on its number, not on its chunk.
    assert forward.equals(rows_counts(data.frame, contracts, seed=data.seed))
    assert data.played_deals == len(data.played()) and data.deals == 40_000
    # A score that is not a whole number of twelfths of a point cannot be counted exactly.
    broken = data.frame.iloc[:10].copy()
    broken["score_garde"] = broken["score_garde"] + 0.01
    with pytest.raises(ValueError, match="1/12 points"):
        rows_counts(broken, contracts, seed=data.seed)


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


def _scores(played: pd.DataFrame, names: np.ndarray) -> np.ndarray:
    """Each row's taker score under the option named on it (pass scores 0)."""
    values = np.zeros(len(played))
    for contract in ("prise", "garde", "garde_sans", "garde_contre"):
        values = np.where(names == contract, played[f"score_{contract}"], values)
    return values


def test_the_best_contract_leads_its_runner_up_by_a_paired_difference(data) -> None:  # type: ignore[no-untyped-def]
    # Recomputed from the stored rows: at a count, the best less the runner-up on each deal.
    table = table_by(data, "chavey")
    played = data.played()
    checked = 0
    for count in (30, 42, 45, 48, 55):
        row = table.loc[count]
        here = played[played["chavey"] == count]
        best = np.full(len(here), row["best"], dtype=object)
        runner = np.full(len(here), row["runner_up"], dtype=object)
        differences = _scores(here, best) - _scores(here, runner)
        half = Z_95 * differences.std(ddof=1) / np.sqrt(len(differences))
        assert row["difference"] == pytest.approx(differences.mean(), abs=1e-9)
        assert row["difference_ci_low"] == pytest.approx(differences.mean() - half, abs=1e-9)
        assert row["tie"] == (differences.mean() - half <= 0)
        # Pairing matters: two contracts played on the same deals move together, and an
        # interval from the two means' own spreads would be another (here wider) one.
        if row["runner_up"] != "pass" and row["best"] != "pass":
            side_by_side = Z_95 * np.sqrt(
                _scores(here, best).var(ddof=1) / len(here)
                + _scores(here, runner).var(ddof=1) / len(here)
            )
            assert half < 0.8 * side_by_side
            checked += 1
    assert checked >= 2
    # The best has the highest mean: no contract beats it, and the runner-up beats the rest.
    means = table[[f"{c}_mean_score" for c in data.contracts]].assign(pass_mean_score=0.0)
    ordered = np.sort(means.to_numpy(), axis=1)
    assert np.allclose(table["best_mean_score"], ordered[:, -1])
    assert np.allclose(table["difference"], ordered[:, -1] - ordered[:, -2])


def test_the_bootstrap_sums_are_the_rows_weighted_by_their_poisson_draws(data) -> None:  # type: ignore[no-untyped-def]
    from tarot_analysis.bootstrap import poisson_weights

    played = data.played()
    weights = poisson_weights(data.seed, played["deal"], 5)
    counts = data.counts[data.counts["grouping"] == "replicates_chavey"]
    for replicate in range(5):
        for count in (40, 50):
            here = (played["chavey"] == count).to_numpy()
            row = counts[(counts["key_1"] == count) & (counts["key_2"] == replicate)].iloc[0]
            w = weights[replicate, here]
            assert row["n"] == w.sum()
            garde = np.round(played.loc[here, "score_garde"].to_numpy() * 12).astype(np.int64)
            assert row["twelfths_garde"] == (w * garde).sum()


def test_the_fitted_rule_is_the_best_rule_that_never_steps_down() -> None:
    from itertools import combinations_with_replacement

    from tarot_analysis.analyses.guidance import monotone_choice

    rng = np.random.default_rng(5)
    for _ in range(30):
        sums = rng.normal(size=(7, 4))
        sums[:, 0] = 0.0
        choice = monotone_choice(sums)
        assert (np.diff(choice) >= 0).all()
        best = max(
            sum(sums[v, o] for v, o in enumerate(rule))
            for rule in combinations_with_replacement(range(4), 7)
        )
        assert sums[np.arange(7), choice].sum() == pytest.approx(best)
    # Replicates at once: the same answer as one at a time.
    many = rng.normal(size=(3, 7, 4))
    assert (monotone_choice(many) == np.array([monotone_choice(m) for m in many])).all()


def test_thresholds_carry_a_bootstrap_interval_and_the_published_ones(data) -> None:  # type: ignore[no-untyped-def]
    table = guidance_tables(data)["thresholds"]
    chavey = table.loc["chavey"]
    assert chavey["published"].tolist() == [40, 56, 71, 81]
    assert (chavey["ci_low"] <= chavey["fitted"]).all()
    assert (chavey["fitted"] <= chavey["ci_high"]).all()
    # The Garde's threshold is pinned down within a few counts, yet not to a single one.
    garde = chavey.loc["garde"]
    assert 0 < garde["ci_high"] - garde["ci_low"] <= 6
    assert table.loc[("bouts_and_trumps", "prise"), "published"] == 18


def test_out_of_sample_losses_choose_on_one_half_and_score_on_the_other(data) -> None:  # type: ignore[no-untyped-def]
    played = data.played()
    fold = played["deal"].to_numpy() % 2
    bids = evaluators.chavey_bid(
        played["chavey"].to_numpy(), played["chavey_distribution"].to_numpy(),
        hand_size=data.rules.hand_size,
    )  # fmt: skip
    chosen = np.asarray(evaluators.bid_names(bids), dtype=object)
    losses = np.zeros(len(played))
    options = ["pass", *data.contracts]
    for scored in (0, 1):
        choosing = played[fold != scored]
        means = {"pass": pd.Series(0.0, index=choosing["chavey"].unique())}
        for contract in data.contracts:
            means[contract] = choosing.groupby("chavey")[f"score_{contract}"].mean()
        frame = pd.DataFrame(means)[options].fillna(-np.inf)
        best_by_count = frame.idxmax(axis=1)
        here = fold == scored
        best = best_by_count.reindex(played.loc[here, "chavey"]).fillna("pass").to_numpy()
        part = played[here]
        losses[here] = _scores(part, best.astype(object)) - _scores(part, chosen[here])
    row = guidance_tables(data)["threshold_loss"].loc["chavey"]
    assert row["out_of_sample_loss"] == pytest.approx(losses.mean(), abs=1e-9)
    half = Z_95 * losses.std(ddof=1) / np.sqrt(len(losses))
    assert row["out_of_sample_ci_half_width"] == pytest.approx(half, rel=1e-9)
    # Chosen on the deals it is scored on, the rule fitted to them looks better than it is.
    fitted = guidance_tables(data)["threshold_loss"].loc["chavey_fitted"]
    assert fitted["out_of_sample_expected_score"] < fitted["mean_expected_score"]


def test_the_model_reads_each_bout_apart_with_its_interval(data) -> None:  # type: ignore[no-untyped-def]
    from tarot_analysis.analyses.guidance import MODEL_FEATURES

    assert "bouts" not in MODEL_FEATURES and "trumps" not in MODEL_FEATURES
    result = compare_evaluators(data, "garde")
    table = result["coefficients"]
    # Counted apart from the other bouts, the Excuse helps a Garde, with an interval clear of 0.
    for bout in ("excuse", "petit", "twenty_one"):
        assert table.loc[bout, "ci_low"] > 0, bout
    assert (table["ci_low"] < table["per_unit"]).all()
    assert (table["per_unit"] < table["ci_high"]).all()
    assert len(result["caveats"]) >= 3
    by_model = result["by_model"]
    assert by_model["n"].sum() == result["n_test"]


def test_passing_is_measured_with_the_table_going_on(data) -> None:  # type: ignore[no-untyped-def]
    played = data.played()
    # Seat 0 speaks first: nothing is bid before it, and passing is worth 0 exactly when all
    # the others pass too (a redeal), a defender's share of the deal otherwise.
    assert (played["bid_before"] == -1).all()
    quiet = ~played["taken"]
    assert (played.loc[quiet, "score_pass"] == 0).all()
    assert (played.loc[~quiet, "score_pass"] != 0).mean() > 0.95
    assert 0.2 < played["taken"].mean() < 0.9
    # Read with the pass measured, the best and its runner-up are paired on the same deals.
    table = table_by(data, "chavey", reading="played")
    for count in (35, 45):
        row = table.loc[count]
        here = played[played["chavey"] == count]
        values = {"pass": here["score_pass"].to_numpy()}
        for contract in data.contracts:
            values[contract] = here[f"score_{contract}"].to_numpy()
        means = {name: v.mean() for name, v in values.items()}
        assert row["best"] == max(means, key=means.__getitem__)
        differences = values[row["best"]] - values[row["runner_up"]]
        assert row["difference"] == pytest.approx(differences.mean(), abs=1e-9)
        assert row["pass_played_mean_score"] == pytest.approx(means["pass"], abs=1e-9)


def test_the_last_seat_is_advised_on_the_deals_everyone_before_passed(tmp_path: Path) -> None:
    from tarot_analysis.analyses.guidance import seat_comparison

    rules = load_rules("fft-4")
    first = run_guidance(
        rules, 6_000, tmp_path / "first", seed=5, chunk_size=3_000, bots="heuristic"
    )
    last = run_guidance(
        rules, 6_000, tmp_path / "last", seed=5, chunk_size=3_000, bots="heuristic", seat=3
    )
    rows = last.frame
    free = rows[~rows["redeal"] & (rows["bid_before"] < 0)]
    # When every other seat passed, the last seat's pass ends the deal: it scores 0.
    assert (free["score_pass"] == 0).all() and not free["taken"].any()
    assert last.played_deals == len(free) == len(last.played())
    assert last.bid_before_deals == int((~rows["redeal"] & (rows["bid_before"] >= 0)).sum()) > 0
    # The same deals as seat 0's run, the last seat's hand read.
    assert (first.frame["redeal"] == rows["redeal"]).all()
    assert not (first.frame["chavey"] == rows["chavey"]).all()
    side_by_side = seat_comparison(first, last)
    assert {"first_best", "first_pass_played_best", "last_best", "last_tie"} <= set(side_by_side)
    with pytest.raises(TarotInputError, match="seat 0"):
        run_guidance(rules, 10, tmp_path / "middle", seat=1)


@pytest.mark.parametrize("deals", [1, 10])
def test_too_few_deals_give_the_tables_without_fitting_and_say_so(
    deals: int, tmp_path: Path, capsys: pytest.CaptureFixture[str], recwarn: pytest.WarningsRecorder
) -> None:
    """Below MIN_FIT_DEALS the thresholds, their losses and the model are left out, in one line
    of the summary; nothing is fitted, so nothing warns."""
    argv = ["guidance", "--deals", str(deals), "--bots", "random", "--no-progress",
            "--data", str(tmp_path / "run"), "--tables", str(tmp_path / "tables")]  # fmt: skip
    assert main(argv) == 0
    out, err = capsys.readouterr()
    said = [line for line in out.splitlines() if "not fitted" in line]
    assert said == [
        f"Thresholds and success model not fitted: {deals} deal{'s' if deals > 1 else ''} "
        f"played, fewer than the {MIN_FIT_DEALS:,} they need."
    ]
    assert err == "" and not [str(w.message) for w in recwarn]
    assert (tmp_path / "tables" / "by_chavey.csv").exists()
    assert not (tmp_path / "tables" / "thresholds.csv").exists()
    assert main([*argv, "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["fitted"] is False and printed["played"] == deals
    assert printed["thresholds"] is None and printed["model_comparison"] is None


def test_the_fitted_parts_refuse_too_few_deals(tmp_path: Path) -> None:
    few = run_guidance(load_rules("fft-4"), 10, tmp_path / "few", bots="random", seed=1)
    assert not can_fit(few)
    tables = guidance_tables(few)
    assert "by_chavey" in tables and "thresholds" not in tables
    for fitted in (thresholds, threshold_loss, compare_evaluators):
        with pytest.raises(TarotInputError, match=f"fewer than the {MIN_FIT_DEALS:,}"):
            fitted(few)


def test_a_run_of_enough_deals_fits(data) -> None:  # type: ignore[no-untyped-def]
    assert data.played_deals >= MIN_FIT_DEALS and can_fit(data)


@pytest.mark.slow
def test_ctrl_c_stops_a_guidance_run_keeping_its_finished_chunks(tmp_path: Path) -> None:
    """SIGINT once chunks are being played: the command ends at once, exit 130, with one line
    that names the folder of the chunks kept, without waiting for the chunks under way."""
    folder = tmp_path / "run"
    argv = ["guidance", "--deals", "400000", "--chunk-size", "500", "--bots", "random",
            "--data", str(folder), "--tables", str(tmp_path / "tables")]  # fmt: skip
    # A chunk finished: the run is under way.
    status, last, out = interrupt_when(argv, lambda _: any(folder.glob("chunk-*.parquet")))
    assert status == 130
    assert last == (
        f"tarot-analysis: interrupted: the chunks finished so far are kept in {folder}; the "
        "same command goes on"
    )
    assert out == b""


def test_the_deals_seat_0_plays_are_counted_before_any_deal_is_played(data) -> None:  # type: ignore[no-untyped-def]
    from tarot_analysis.analyses.guidance import first_seat_plays

    rules = load_rules("fft-4")
    assert first_seat_plays(rules, 40_000, 3, 10_000, enough=40_000) == data.played_deals
    assert first_seat_plays(rules, 40_000, 3, 10_000, enough=1_000) < 20_000  # it stops early


def test_a_report_of_too_few_deals_played_is_refused_before_any_deal(tmp_path: Path) -> None:
    """The minimum a report names is of deals played: a Petit sec's redeal is not one."""
    import re

    from tarot_analysis.analyses.guidance import MIN_FIT_DEALS, first_seat_plays
    from tarot_analysis.report import build_report
    from tarot_analysis.report.runs import GUIDANCE_CHUNK_SIZE

    rules = load_rules("fft-4")
    played = first_seat_plays(rules, MIN_FIT_DEALS, 1, GUIDANCE_CHUNK_SIZE, enough=MIN_FIT_DEALS)
    assert played < MIN_FIT_DEALS  # seed 1 deals a Petit sec among its first 1,000 deals
    with pytest.raises(TarotInputError) as refused:
        build_report(
            rules, MIN_FIT_DEALS, seed=1, data_dir=tmp_path / "data", out_dir=tmp_path / "out"
        )
    said = str(refused.value)
    assert f"{played:,} of {MIN_FIT_DEALS:,} deals" in said
    asked = re.search(r"ask for ([\d,]+) deals or more", said)
    assert asked, said
    enough = int(asked[1].replace(",", ""))
    count = first_seat_plays(rules, enough, 1, GUIDANCE_CHUNK_SIZE, enough=enough)
    fewer = first_seat_plays(rules, enough - 1, 1, GUIDANCE_CHUNK_SIZE, enough=enough)
    assert count >= MIN_FIT_DEALS > fewer  # the fewest deals that are enough
    assert not (tmp_path / "data").exists() and not (tmp_path / "out").exists()
