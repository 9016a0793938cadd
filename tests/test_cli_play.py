"""The ``play`` and ``replay`` commands."""

from __future__ import annotations

import html
import json
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tarot_analysis.cli import main
from tarot_analysis.game.rules import load_rules
from tarot_analysis.table.play import play, replay


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_play_json_names_rules_bots_mode_and_every_contract(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(
        capsys, "play", "--rules", "fft-4", "--deals", "3000", "--seed", "2", "--json"
    )
    assert code == 0
    summary = json.loads(out)
    for key in ("rules", "deals", "seed", "bots", "redeals", "contracts", "mode"):
        assert key in summary
    assert summary["bots"] == ["learned"] * 4  # the default bot: a model ships for fft-4
    assert set(summary["contracts"]) == {"prise", "garde", "garde_sans", "garde_contre"}
    played = 3000 - summary["redeals"]["total"]
    assert sum(entry["n"] for entry in summary["contracts"].values()) == played
    for entry in summary["contracts"].values():
        assert set(entry) >= {"n", "made", "rate", "ci_low", "ci_high", "mean_taker_score"}
        assert entry["ci_low"] <= entry["rate"] <= entry["ci_high"]
        assert entry["made"] == round(entry["rate"] * entry["n"])


@pytest.mark.parametrize("rules", ["fft-4", "legacy-6"])
def test_play_counts_without_rows_give_the_table_of_the_rows(
    capsys: pytest.CaptureFixture[str], rules: str
) -> None:
    argv = ["play", "--rules", rules, "--deals", "9000", "--chunk-size", "2000", "--json",
            "--bots", "heuristic"]  # fmt: skip
    results = []
    for extra in ([], ["--no-rows"]):
        code, out, _ = run(capsys, *argv, *extra)
        assert code == 0
        summary = json.loads(out)
        summary.pop("seconds")
        results.append(summary)
    rows, counts = results
    assert counts["metadata"].pop("rows") is False
    assert rows == counts  # the same numbers, to the last bit
    assert sum(c["n"] for c in counts["contracts"].values()) == 9000 - counts["redeals"]["total"]


def test_counts_add_up_across_chunks_and_refuse_a_score_they_cannot_hold() -> None:
    from tarot_analysis.table.play import ContractCounts

    rules = load_rules("fft-5")
    result = play(rules, 4000, seed=3, chunk_size=1000)
    scores = result.scores()
    halves = [
        ContractCounts.of(
            part, rules, redeals=dict.fromkeys(("petit_sec", "all_passed", "total"), 0)
        )
        for part in (scores.iloc[:1500], scores.iloc[1500:])
    ]
    merged = halves[0] + halves[1]
    assert merged.sums.equals(result.counts(scores).sums) and merged.deals == 4000
    broken = scores.copy()
    broken.loc[~broken["redeal"], "taker_score"] += 0.01
    with pytest.raises(ValueError, match="1/12 points"):
        ContractCounts.of(broken, rules, redeals=result.redeals())


def test_no_rows_with_out_or_for_tarocco_is_one_clear_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = run(capsys, "play", "--no-rows", "--out", str(tmp_path / "x.parquet"))
    assert code == 2 and "--no-rows" in err and len(err.strip().splitlines()) == 1
    code, _, err = run(capsys, "play", "--rules", "tarocco", "--no-rows", "--deals", "10")
    assert code == 2 and "Tarocco" in err and len(err.strip().splitlines()) == 1


def test_play_saves_every_deal_with_metadata(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    target = tmp_path / "games" / "fft-5.parquet"
    code, out, _ = run(capsys, "play", "--rules", "fft-5", "--deals", "500", "--no-progress",
                       "--bots", "random",
                       "--out", str(target))  # fmt: skip
    assert code == 0 and "played" in out and "95% interval" in out
    table = pq.read_table(target)
    metadata = json.loads(table.schema.metadata[b"tarot_analysis"])
    assert metadata["rules"] == "fft-5" and metadata["bots"] == ["random"] * 5
    assert metadata["seed"] == 1 and metadata["chunk_size"] == 65536
    frame = table.to_pandas()
    assert len(frame) == 500
    scores = frame[[f"score_{seat}" for seat in range(5)]].sum(axis=1)
    assert (scores.abs() < 1e-9).all()


def test_replay_tells_the_deal_the_run_played(capsys: pytest.CaptureFixture[str]) -> None:
    rules = load_rules("fft-4")
    run_ = play(rules, 40, seed=9, keep_tricks=True, chunk_size=16)
    one = replay(rules, 37, seed=9, chunk_size=16)
    assert (run_.outcomes[37] == one.outcomes[0]).all()
    assert run_.tricks is not None and one.tricks is not None
    assert (run_.tricks[37] == one.tricks[0]).all()
    code, out, _ = run(
        capsys, "replay", "--seed", "9", "--deal", "37", "--chunk-size", "16", "--bots", "random"
    )
    assert code == 0
    assert "Trick 18" in out and "Scores:" in out and "seat 3:" in out
    # The same deal as JSON: every card of each hand is played once, by its seat, and the
    # scores add up to zero.
    code, out, _ = run(
        capsys, "replay", "--seed", "9", "--deal", "37", "--chunk-size", "16", "--bots", "random",
        "--json",
    )  # fmt: skip
    deal = json.loads(out)
    assert code == 0 and deal["deal"] == 37 and deal["redeal"] == ""
    assert len(deal["tricks"]) == 18 and deal["contract"] in {c.name for c in rules.contracts}
    for seat, hand in enumerate(deal["hands"]):
        played = [
            trick["cards"][(seat - trick["leader"]) % 4]
            for trick in deal["tricks"]
        ]  # fmt: skip
        if seat == deal["taker"] and deal["ecart"]:
            continue  # the taker's hand changed with the dog
        assert sorted(played) == sorted(hand.split()), seat
    assert abs(sum(deal["score"]["seats"])) < 1e-9
    assert deal["score"]["seats"][deal["taker"]] == pytest.approx(
        float(run_.scores().iloc[37][f"score_{deal['taker']}"])
    )


def test_play_refuses_unknown_bots_and_presets(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "play", "--bots", "genius", "--deals", "10")
    assert code == 2 and "unknown bot 'genius'" in err and len(err.strip().splitlines()) == 1
    code, _, err = run(capsys, "play", "--bots", "random", "random", "--deals", "10")
    assert code == 2 and "4 bots were expected" in err
    code, _, err = run(capsys, "replay", "--rules", "fft-9")
    assert code == 2 and "fft-9" in err


def test_tarocco_is_played_and_replayed(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "play", "--rules", "tarocco", "--deals", "3000", "--json")
    assert code == 0
    summary = json.loads(out)
    advantage = summary["dealer_advantage"]
    assert summary["mode"] == "tarocco" and advantage["n"] == 3000
    assert summary["bots"] == ["heuristic"] * 3  # no learned model ships for Tarocco
    assert advantage["ci_low"] < advantage["mean"] < advantage["ci_high"]
    assert summary["matches"]["n"] == 1000
    code, out, _ = run(capsys, "replay", "--rules", "tarocco", "--deal", "4")
    assert code == 0 and "discards" in out and "Trick 24" in out and "for the deal" in out
    code, out, _ = run(capsys, "replay", "--rules", "tarocco", "--deal", "4", "--json")
    deal = json.loads(out)
    assert code == 0 and len(deal["tricks"]) == 24 and len(deal["discard"].split()) == 6
    assert len(deal["seats"]) == 3 and {"points", "total"} <= set(deal["seats"][0])


def test_hand_gives_every_contract_a_bid_and_evaluations(
    capsys: pytest.CaptureFixture[str],
) -> None:
    hand = "21 19 12 6 1 E KH CH 10H 8H 1H JD 8D QC CC 7C 6S 4S"
    code, out, _ = run(capsys, "hand", hand, "--rules", "fft-4", "--deals", "2000", "--json",
                       "--bots", "heuristic")  # fmt: skip
    assert code == 0
    result = json.loads(out)
    for key in ("hand", "rules", "deals", "recommended", "evaluations", "contracts"):
        assert key in result
    assert result["evaluations"]["chavey"] == 60  # worked out in tests/test_evaluators.py
    assert set(result["contracts"]) == {"prise", "garde", "garde_sans", "garde_contre"}
    for entry in result["contracts"].values():
        assert entry["ci_low"] <= entry["rate"] <= entry["ci_high"]
    assert result["recommended"] in {*result["contracts"], "pass"}
    # The bid comes with the runner-up and their difference, tied when it may be 0.
    choice = result["choice"]
    assert choice["best"] == result["recommended"] != choice["runner_up"]
    assert choice["tie"] == (choice["ci_low"] <= 0) and choice["n"] <= 2000
    assert result["dog"]["bouts"] == {"0": 1.0}  # every bout is in the hand
    # The exact odds beside the simulation: the king of hearts, 9 hearts out in 60 cards.
    assert round(result["odds"]["suits"]["H"]["king_passes"], 4) == 0.9098
    code, out, _ = run(capsys, "hand", "21 19 12 6 1 E KH CH 10H 8H 1H JD 8D QC CC",
                       "--rules", "fft-5", "--deals", "500", "--bots", "heuristic")  # fmt: skip
    assert code == 0 and "Call:" in out and "Recommended bid" in out
    assert "Odds of" in out and "partner" in out


def test_hand_says_whose_bid_the_count_gives(capsys: pytest.CaptureFixture[str]) -> None:
    """The count's bid is named as the published thresholds' bid, apart from the bid the deals
    recommend."""
    from tarot_analysis.deals.evaluators import bid_names, chavey, chavey_bid, chavey_sum
    from tarot_analysis.game.cards import Hand
    from tarot_analysis.report.plots import contract_label

    hand = "21 19 12 6 1 E KH CH 10H 8H 1H JD 8D QC CC 7C 6S 4S"
    lo, hi = Hand.parse(hand).mask
    count, dealt = int(chavey(lo, hi)), int(chavey(lo, hi, with_distribution=True))
    published = contract_label(str(bid_names(chavey_bid(count, dealt))))
    code, out, _ = run(capsys, "hand", hand, "--rules", "fft-4", "--deals", "300")
    assert code == 0
    assert "bots: learned at every seat," in out.splitlines()[0]  # the default bot, fft-4's model
    evaluations = next(line for line in out.splitlines() if line.startswith("Evaluations:"))
    assert f"Chavey {count} (with distribution {dealt}; published thresholds: {published})" in (
        evaluations
    )
    assert "→" not in evaluations
    assert f"Chavey's count, part by part: {chavey_sum(Hand.parse(hand))}" in out
    assert "Recommended bid:" in out


def test_the_default_bots_fall_back_to_the_heuristic_and_say_so(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Where no learned model ships (six players, the older rules, Tarocco) the answers are
    the heuristic's, named with why; where one ships, the learned bot's."""
    code, out, _ = run(capsys, "play", "--rules", "legacy-4", "--deals", "500", "--no-progress")
    assert code == 0
    assert (
        "bots: heuristic at every seat (the default where no learned model ships: legacy-4),"
        in out.splitlines()[0]
    )
    code, out, _ = run(capsys, "play", "--rules", "tarocco", "--deals", "30", "--no-progress")
    assert code == 0 and "no learned model ships: tarocco" in out.splitlines()[0]
    code, out, _ = run(capsys, "play", "--rules", "fft-4", "--deals", "200", "--no-progress")
    assert code == 0 and "bots: learned at every seat," in out.splitlines()[0]
    code, out, _ = run(capsys, "play", "--rules", "legacy-4", "--deals", "200", "--no-progress",
                       "--bots", "heuristic")  # fmt: skip
    assert code == 0 and "bots: heuristic at every seat," in out.splitlines()[0]  # named: no note
    code, _, err = run(capsys, "play", "--rules", "legacy-4", "--deals", "10", "--bots", "learned")
    assert code == 2 and "no learned model ships for legacy-4" in err  # named, not replaced
    assert len(err.strip().splitlines()) == 1


def test_hand_names_a_bad_card(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "hand", "21 19 ZZ", "--rules", "fft-4")
    assert code == 2 and "ZZ" in err and len(err.strip().splitlines()) == 1
    code, _, err = run(capsys, "hand", "21 20 19", "--rules", "fft-4")
    assert code == 2 and "18" in err


def test_six_players_get_a_king_and_a_queen_to_call() -> None:
    from tarot_analysis.analyses.one_hand import analyse_hand

    analysis = analyse_hand("21 19 12 6 1 E KH CH 10H 8H 1H JD", load_rules("six-king-queen"),
                            deals=300)  # fmt: skip
    assert analysis.call is not None
    king, queen = analysis.call.split()
    assert king.startswith("K") and queen.startswith("Q")
    assert len(analysis.calls) == 8  # four kings, then four queens beside the best king
    # The bid against its runner-up, recomputed deal by deal from the played rows.
    played = analysis.outcomes.played()
    scores = played.pivot(index="deal", columns="contract", values="taker_score").assign(
        **{"pass": 0.0}
    )
    choice = analysis.choice
    differences = scores[choice["best"]] - scores[choice["runner_up"]]
    half = 1.959963984540054 * differences.std(ddof=1) / len(differences) ** 0.5
    assert choice["difference"] == pytest.approx(differences.mean())
    assert choice["ci_high"] == pytest.approx(differences.mean() + half)
    assert scores.mean().idxmax() == choice["best"]
    # The best call against the runner-up call, on the same deals.
    assert analysis.call_choice is not None and analysis.call_choice["n"] == len(scores)


def _peak_traced(work: Callable[[], object]) -> int:
    """The peak bytes allocated (numpy arrays included) while ``work`` runs."""
    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_run_of_any_size_sets_up_in_the_memory_of_one_chunk() -> None:
    from tarot_analysis.table.play import _table

    rules = load_rules("fft-4")
    # Two billion deals: no array sized by the run is made before the first chunk.
    peak = _peak_traced(lambda: _table(rules, 2_000_000_000, "heuristic", 1, None, 65_536))
    assert peak < 2**20, peak
    # A contract forced on every deal is kept once, and given chunk by chunk.
    table = _table(rules, 2_000_000_000, "random", 1, [1, 2, -1, -1], 65_536)
    assert table.forced.shape == (1, 4)
    assert (table.forced_rows(130_000, 3) == [1, 2, -1, -1]).all()


def test_play_without_rows_takes_the_same_memory_for_ten_times_the_deals() -> None:
    from tarot_analysis.table.play import play_counts

    rules = load_rules("fft-4")
    options = {"bots": "random", "seed": 3, "chunk_size": 1_000, "threads": 1}
    play_counts(rules, 1_000, **options)  # compiled and imported before measuring
    small = _peak_traced(lambda: play_counts(rules, 4_000, **options))
    large = _peak_traced(lambda: play_counts(rules, 40_000, **options))
    # Before, 32 bytes a deal were held for the whole run: 1.1 MiB more here.
    assert large < small + 256 * 2**10, (small, large)


def test_replay_of_a_far_deal_plays_its_chunk_alone(capsys: pytest.CaptureFixture[str]) -> None:
    from tarot_analysis.table.play import LAST_DEAL, _table

    rules = load_rules("fft-4")
    chunk, offset = 62_500_000_000, 11  # deal 1,000,000,000,011 in chunks of 16
    deal = chunk * 16 + offset
    one = replay(rules, deal, bots="random", seed=9, chunk_size=16)
    table = _table(rules, 16, "random", 9, None, 16)
    whole = table.empty(16, keep_tricks=True)
    table.play_chunk(chunk, whole, 0, 16)  # the deal's chunk dealt and played in full
    for name in ("masks", "outcomes", "poignees", "tricks", "leaders", "ecarts", "bids"):
        assert (getattr(one, name)[0] == getattr(whole, name)[offset]).all(), name
    assert one.metadata["deal"] == deal

    code, out, err = run(capsys, "replay", "--deal", str(LAST_DEAL + 1), "--bots", "random")
    assert code == 2 and out == "" and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert f"deal number {LAST_DEAL + 1:,} is out of range" in err
    code, out, err = run(capsys, "replay", "--deal", "99999999999999999999999")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "out of range" in err


def test_a_tarocco_replay_plays_the_deal_of_the_run_from_its_chunk_alone(
    capsys: pytest.CaptureFixture[str],
) -> None:
    rules = load_rules("tarocco")
    run_ = play(rules, 40, seed=5, chunk_size=12, keep_tricks=True)
    for deal in (0, 13, 39):  # first, inside the second chunk, last
        one = replay(rules, deal, seed=5, chunk_size=12)
        for name in ("masks", "parts", "tricks_won", "events", "tricks", "leaders", "ecarts"):
            assert (getattr(one, name)[0] == getattr(run_, name)[deal]).all(), (deal, name)
    code, _, err = run(capsys, "replay", "--rules", "tarocco", "--deal", str(2**64))
    assert code == 2 and len(err.strip().splitlines()) == 1 and "out of range" in err


def test_replay_names_one_seat_of_the_attack_as_one_seat(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Four players: the taker alone is ``seat N``; five: the taker and the partner are
    ``seats N and M`` (one of them, when the taker called a card of their own)."""
    from tarot_analysis.analyses.replay import seats_text

    assert seats_text({3}) == "seat 3"
    assert seats_text([4, 0, 2]) == "seats 0, 2 and 4"
    for rules, deals in (("fft-4", 6), ("fft-5", 6)):
        attacks = []
        for deal in range(deals):
            code, out, _ = run(capsys, "replay", "--rules", rules, "--deal", str(deal))
            assert code == 0
            attacks += [line for line in out.splitlines() if line.startswith("The attack (")]
        assert attacks, f"no deal of {rules} was played"
        for line in attacks:
            seats = line.removeprefix("The attack (").partition(")")[0]
            words = seats.split()
            assert words[0] == ("seat" if len(words) == 2 else "seats"), line
            assert "bout(s)" not in line
        if rules == "fft-5":
            assert any(" and " in line.partition(")")[0] for line in attacks)


def test_the_hand_page_gives_the_published_counts_beside_the_recommendation(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The page says what the text says: Chavey's count part by part and the bid of the
    published thresholds, beside the bid the deals recommend."""
    from tarot_analysis.deals.evaluators import (
        bid_names,
        bouts_and_trumps,
        bouts_and_trumps_bid,
        chavey,
        chavey_bid,
        chavey_sum,
    )
    from tarot_analysis.game.cards import Hand
    from tarot_analysis.report.plots import contract_label

    hand = "21 19 12 6 1 E KH CH 10H 8H 1H JD 8D QC CC 7C 6S 4S"
    lo, hi = Hand.parse(hand).mask
    published = contract_label(
        str(bid_names(chavey_bid(chavey(lo, hi), chavey(lo, hi, with_distribution=True))))
    )
    thumb = int(bouts_and_trumps(lo, hi))
    page = tmp_path / "hand.html"
    code, out, _ = run(capsys, "hand", hand, "--deals", "300", "--html", str(page), "--json")
    assert code == 0
    recommended = contract_label(json.loads(out)["recommended"])
    text = page.read_text(encoding="utf-8")
    counts = html.unescape(text.partition('id="table-hand-counts"')[2].partition("</div>")[0])
    assert chavey_sum(Hand.parse(hand)) in counts and published in counts
    assert f">{thumb}<" in counts
    assert contract_label(str(bid_names(bouts_and_trumps_bid(thumb)))) in counts
    assert f"The bid these deals recommend: {recommended}" in counts
    assert f"beside {published} by Chavey's thresholds" in counts
