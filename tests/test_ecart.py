"""Écart advice: the candidates of the stated rule, each legal, and their ranking by paired
simulation on the same deals, recomputed here from the per-deal scores."""

from __future__ import annotations

import html
import json
import math

import numpy as np
import pytest

from tarot_analysis.analyses.ecart import candidate_ecarts, ecart_advice
from tarot_analysis.cli import main
from tarot_analysis.errors import TarotInputError
from tarot_analysis.game import cards
from tarot_analysis.game.rules import load_rules
from tarot_analysis.stats import Z_95

HAND = "21 19 12 6 E KH CH 10H 8H 1H JD 8D QC CC 7C 6S 4S 3D"
DOG = "2 3 KS 5D 9C 4C"
DEALS = 600


@pytest.fixture(scope="module")
def advice():  # type: ignore[no-untyped-def]
    return ecart_advice(HAND, DOG, load_rules("fft-4"), deals=DEALS, seed=3)


def test_candidates_follow_the_rule_and_the_rules() -> None:
    rules = load_rules("fft-4")
    found = candidate_ecarts(cards.Hand(HAND), cards.Hand(DOG), rules)
    assert {"low cards", "points kept", "void D, low cards", "void C, points"} <= set(found)
    pool = set(cards.Hand(HAND).cards) | set(cards.Hand(DOG).cards)
    for ecart in found.values():
        assert len(ecart) == rules.dog_size and set(ecart) <= pool
        # FFT: never a king, a trump or the Excuse while other cards may go.
        assert not any(cards.IS_KING[c] or cards.IS_TRUMP[c] or c == cards.EXCUSE for c in ecart)
    assert len({tuple(e) for e in found.values()}) == len(found)
    # Spades cannot be voided: the king of spades, from the dog, must stay.
    assert not any(name.startswith("void S") for name in found)
    diamonds = [c for c in found["void D, low cards"] if cards.SUIT[c] == cards.DIAMONDS]
    assert len(diamonds) == 4  # every diamond of the 24 cards


def test_when_too_few_cards_may_go_the_rules_choose() -> None:
    rules = load_rules("fft-4")
    hand = cards.Hand("21 20 19 18 17 16 15 14 13 12 11 10 9 8 7 6 E KH")
    dog = cards.Hand("KS KD KC 5 4 2H")
    found = candidate_ecarts(hand, dog, rules)
    assert list(found) == ["forced by the rules"]
    ecart = found["forced by the rules"]
    assert cards.suit_card(cards.HEARTS, 1) in ecart  # the one free card, then the low trumps
    assert not any(cards.IS_BOUT[c] or cards.IS_KING[c] for c in ecart)


def test_ranking_is_recomputed_from_the_deals(advice) -> None:  # type: ignore[no-untyped-def]
    scores = advice.scores
    assert list(scores.columns) == list(advice.table.index)
    assert advice.deals == len(scores) <= DEALS
    best = scores.iloc[:, 0]
    for name, row in advice.table.iterrows():
        values = scores[name]
        assert math.isclose(row["mean_score"], values.mean())
        assert math.isclose(row["half_width"], Z_95 * values.std(ddof=1) / math.sqrt(len(values)))
        if row["rank"] == 1:
            continue
        paired = values - best
        half = Z_95 * paired.std(ddof=1) / math.sqrt(len(paired))
        assert math.isclose(row["difference"], paired.mean())
        assert math.isclose(row["ci_high"], paired.mean() + half)
        assert row["tie"] == (row["ci_high"] >= 0)
        assert row["difference"] <= 0
    # On the same deals the differences are tighter than side by side; deals paired at random
    # (as if each écart had its own deals) are not.
    rows = advice.table.iloc[1:]
    side_by_side = np.hypot(rows["half_width"], advice.table["half_width"].iloc[0])
    paired_half = (rows["ci_high"] - rows["ci_low"]) / 2
    assert (paired_half / side_by_side).mean() < 0.9
    shuffled = best.sample(frac=1, random_state=0).to_numpy()
    unpaired = [
        Z_95 * (scores[name].to_numpy() - shuffled).std(ddof=1) / math.sqrt(len(best))
        for name in rows.index
    ]
    assert (np.array(unpaired) / side_by_side).mean() > 0.9


def test_the_same_seed_gives_the_same_advice(advice) -> None:  # type: ignore[no-untyped-def]
    again = ecart_advice(HAND, DOG, load_rules("fft-4"), deals=DEALS, seed=3)
    assert again.table.equals(advice.table)


def test_hand_with_a_dog_ranks_the_ecarts(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["hand", HAND, "--dog", DOG, "--deals", "300", "--ecart-deals", "300", "--json",
                 "--bots", "heuristic"])  # fmt: skip
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    ranked = data["ecart"]["ecarts"]
    assert ranked[0]["rank"] == 1 and len(ranked) >= 4
    assert data["odds"]["dog_seen"] is not None
    assert main(["hand", HAND, "--dog", "21 3 KS 5D 9C 4C"]) == 2
    assert "both in the hand and in the dog" in capsys.readouterr().err


def test_bad_contract_or_dog_is_refused() -> None:
    rules = load_rules("fft-4")
    with pytest.raises(TarotInputError, match="écart is made in"):
        ecart_advice(HAND, DOG, rules, contract="garde_sans")
    with pytest.raises(TarotInputError, match="6 cards"):
        ecart_advice(HAND, "2 3", rules)


def test_every_card_that_may_be_called_is_ranked_against_the_best() -> None:
    from tarot_analysis.analyses.one_hand import analyse_hand

    analysis = analyse_hand(
        "21 19 12 6 1 E KH CH 10H 8H 1H JD 8D QC CC", load_rules("fft-5"), deals=400, seed=2,
        bots="heuristic",
    )  # fmt: skip
    calls = analysis.calls
    assert list(calls["rank"]) == list(range(1, len(calls) + 1)) and len(calls) == 4
    assert list(calls["mean_score"]) == sorted(calls["mean_score"], reverse=True)
    best = calls.iloc[0]
    assert best["difference"] == 0 and not best["tie"]
    for _, row in calls.iloc[1:].iterrows():
        # On the same deals, the mean of the differences is the difference of the means.
        assert math.isclose(row["difference"], row["mean_score"] - best["mean_score"], abs_tol=1e-9)
        assert row["difference_ci_low"] <= row["difference"] <= row["difference_ci_high"]
        assert row["tie"] == (row["difference_ci_high"] >= 0)
    assert analysis.call == str(calls.index[0])


def test_the_advice_of_the_docs_is_the_real_output() -> None:
    from pathlib import Path

    text = (Path(__file__).parent.parent / "docs" / "odds.md").read_text(encoding="utf-8")
    shown = next(block for block in text.split("```\n") if block.startswith("Écart — "))
    advice = ecart_advice(HAND, DOG, load_rules("fft-4"), bots="heuristic", seed=1)
    assert shown.rstrip() == advice.text()


def test_the_hand_page_shows_the_odds_and_the_ecarts(
    tmp_path: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    from pathlib import Path

    from tarot_analysis.deals.odds import hand_odds

    page = Path(str(tmp_path)) / "hand.html"
    code = main(["hand", HAND, "--dog", DOG, "--deals", "300", "--ecart-deals", "300",
                 "--html", str(page), "--bots", "heuristic"])  # fmt: skip
    assert code == 0 and f"Page: {page}" in capsys.readouterr().err
    text = page.read_text(encoding="utf-8")
    for key in ("hand-contracts", "hand-suits", "hand-trumps", "hand-ecarts"):
        assert f'id="table-{key}"' in text
    odds = hand_odds(HAND, load_rules("fft-4"), dog=DOG)
    assert f"{odds.suits['H'].king_passes:.1%}" in text  # 94.7%, exact
    assert "void D, low cards" in text and "http" not in text.split("<body")[1]
    assert main(["hand", HAND, "--html", "/proc/hand.html"]) == 2
    assert "/proc" in capsys.readouterr().err


# The hand of the worked Chavey count; its dog holds a king and two trumps, no bout.
TAKER = "21 19 12 6 1 E KH CH 10H 8H 1H JD 8D QC CC 7C 6S 4S"
TAKER_DOG = "2 3 KS 5D 9C 4C"


def test_hand_with_a_dog_counts_it_as_the_takers(capsys: pytest.CaptureFixture[str]) -> None:
    from tarot_analysis.analyses.ecart import heuristic_ecart

    rules = load_rules("fft-4")
    common = ["hand", TAKER, "--dog", TAKER_DOG, "--deals", "300", "--ecart-deals", "300",
              "--bots", "heuristic"]  # fmt: skip
    assert main([*common, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    odds = data["odds"]
    ecart = heuristic_ecart(TAKER, TAKER_DOG, rules)
    best = data["ecart"]["ecarts"][0]["ecart"]
    assert odds["stage"] == "after the écart" and odds["ecart"] == best
    own = data["odds_own_ecart"] or odds
    assert own["ecart"] == str(ecart) == data["ecart"]["own"]
    assert odds["suits"]["S"]["king_passes"] is not None and odds["trumps"]["held"] == 7
    # What this dog brings, as it is: no law of a dog already seen.
    assert data["dog"] == {} and odds["dog"] == {}
    assert data["dog_brings"]["bouts"] == [] and data["dog_brings"]["kings"] == ["KS"]
    # The heuristic bot's écart is ranked among the others.
    ideas = [row["why"] for row in data["ecart"]["ecarts"]]
    assert any("the heuristic bot's écart" in idea for idea in ideas)
    assert main(common) == 0
    out = capsys.readouterr().out
    assert "What this dog brings, 3 2 KS 5D 9C 4C: no bout; 2 trumps; 1 king (KS)" in out
    assert "What the dog brings (exact" not in out and "bouts: 0:" not in out
    assert "Each contract, the hand as dealt" in out
    assert "The figures below are for the hand after the écart." in out
    assert "Trumps: 7 trumps and the Excuse held" in out


def test_hand_with_an_ecart_given_reads_the_odds_after_it(
    capsys: pytest.CaptureFixture[str], tmp_path: pytest.TempPathFactory
) -> None:
    from pathlib import Path

    ecart = "KH 4S JD 8D 5D 4C"  # a king: refused before any deal
    assert main(["hand", TAKER, "--dog", TAKER_DOG, "--ecart", ecart]) == 2
    err = capsys.readouterr().err
    assert "KH is a king" in err and len(err.strip().splitlines()) == 1
    ecart = "6S 4S CH 8D 5D 4C"
    page = Path(str(tmp_path)) / "hand.html"
    args = ["hand", TAKER, "--dog", TAKER_DOG, "--ecart", ecart, "--deals", "300",
            "--ecart-deals", "300", "--html", str(page), "--json",
            "--bots", "heuristic"]  # fmt: skip
    assert main(args) == 0
    data = json.loads(capsys.readouterr().out)
    own = data["odds_own_ecart"] or data["odds"]  # after the best écart when it is the best
    assert own["ecart"] == str(cards.Hand.parse(ecart)) == data["ecart"]["own"]
    assert own["ecart_by"] == "the écart given"
    assert own["suits"]["H"]["held"] == 4  # the knight of hearts gone
    assert any("the écart given" in row["why"] for row in data["ecart"]["ecarts"])
    text = page.read_text(encoding="utf-8")
    assert 'id="table-hand-stages"' in text and "after the écart" in text
    assert "What this dog brings" in text and "likeliest values" not in text


def test_hand_with_a_dog_reads_the_odds_after_the_best_ecart_and_the_bots_apart(
    capsys: pytest.CaptureFixture[str], tmp_path: pytest.TempPathFactory
) -> None:
    """The odds follow the écart ranked first; the heuristic bot's, ranked lower on these
    deals, has its own odds, named as its."""
    from pathlib import Path

    from tarot_analysis.analyses.ecart import ECART_BY_BOT, heuristic_ecart
    from tarot_analysis.deals.odds import hand_odds

    rules = load_rules("fft-4")
    page = Path(str(tmp_path)) / "hand.html"
    common = ["hand", HAND, "--dog", DOG, "--deals", "300", "--ecart-deals", "300",
              "--bots", "heuristic"]  # fmt: skip
    assert main([*common, "--json", "--html", str(page)]) == 0
    data = json.loads(capsys.readouterr().out)
    ranked = data["ecart"]["ecarts"]
    bot = str(heuristic_ecart(HAND, DOG, rules))
    assert ranked[0]["ecart"] != bot  # on these deals the bot's écart is not the best
    odds, own = data["odds"], data["odds_own_ecart"]
    assert odds["ecart"] == ranked[0]["ecart"] and ranked[0]["why"] in odds["ecart_by"]
    after_best = hand_odds(HAND, rules, dog=DOG, ecart=ranked[0]["ecart"])
    assert odds["suits"] == after_best.to_json()["suits"]
    assert own["ecart"] == bot and own["ecart_by"] == ECART_BY_BOT
    assert own["suits"] == hand_odds(HAND, rules, dog=DOG, ecart=bot).to_json()["suits"]
    rank = next(row["rank"] for row in ranked if row["ecart"] == bot)
    # The text: the écarts ranked, the odds after the best, then after the bot's.
    assert main(common) == 0
    out = capsys.readouterr().out
    ecarts, _, after = out.partition("Écart — ")[2].partition("Odds of seat 0's hand")
    assert f"  1. {ranked[0]['ecart']}" in ecarts
    assert f"the écart:       {ranked[0]['ecart']} (the best écart ranked: " in after
    same = f"The same odds after {ECART_BY_BOT}, ranked {rank} of {len(ranked)}:"
    assert same in after
    assert f"the écart:       {bot} ({ECART_BY_BOT};" in after.partition(same)[2]
    # The page: the odds after the best, and after the bot's in tables of their own.
    text = html.unescape(page.read_text(encoding="utf-8"))
    assert 'id="table-hand-stages"' in text and 'id="table-hand-own-stages"' in text
    assert 'id="table-hand-own-suits"' in text and f"hand after the écart, {ECART_BY_BOT}" in text
