"""The exact odds of a hand: each value against brute force on a small problem, and against a
simulation of the same question on deals dealt around the hand (each within a 99.9% interval:
a few dozen comparisons are made, and a wrong model misses by far more)."""

from __future__ import annotations

import itertools
import json
import math
from collections import Counter
from fractions import Fraction

import numpy as np
import numpy.typing as npt
import pytest

from tarot_analysis.cli import main
from tarot_analysis.deals.deal import deal
from tarot_analysis.deals.odds import hand_odds, split_law
from tarot_analysis.errors import TarotInputError
from tarot_analysis.game import cards
from tarot_analysis.game.rules import load_rules

Z_999 = 3.29
HANDS = {
    "fft-3": "21 17 13 9 5 2 E KH CH 10H 8H 1H JD 8D QC CC 7C 6S 4S 3D KS 9S 2S 2C",
    "fft-4": "21 19 12 6 E KH CH 10H 8H 1H JD 8D QC CC 7C 6S 4S 3D",
    "fft-5": "21 15 9 4 KH QH 10H 8H QC CC 7C 6S 4S 3D 2D",
    "six-king-queen": "20 14 3 KH QH 8H QC 7C 6S 4S 3D KD",
    # Tarocco: the dealer's six extra cards stand where the dog does.
    "tarocco": "21 17 13 9 5 2 E KH CH 10H 8H 1H JD 8D QC CC 7C 6S 4S 3D KS 9S 2S 2C",
}
SEATS = {"fft-3": 1, "fft-4": 0, "fft-5": 2, "six-king-queen": 5, "tarocco": 2}
DEALS = 120_000


def test_split_law_is_the_count_of_every_placement() -> None:
    # 6 unseen cards, 3 of them of the kind, into places of 2, 3 and 1 card.
    capacities = (2, 3, 1)
    places = [p for p, size in enumerate(capacities) for _ in range(size)]
    seen: Counter[tuple[int, ...]] = Counter()
    for order in set(itertools.permutations(places)):
        seen[tuple(sum(order[c] == p for c in range(3)) for p in range(3))] += 1
    total = sum(seen.values())
    assert split_law(3, capacities) == {x: Fraction(n, total) for x, n in seen.items()}
    assert sum(split_law(14, (18, 18, 18, 6)).values()) == 1


def _count(masks: npt.NDArray[np.uint64], lo: int = 0, hi: int = 0) -> npt.NDArray[np.int64]:
    """Cards of a kind in each hand of each deal: ``lo``, ``hi`` the kind's two mask words."""
    return np.bitwise_count(masks[..., 0] & np.uint64(lo)).astype(np.int64) + np.bitwise_count(
        masks[..., 1] & np.uint64(hi)
    ).astype(np.int64)


def _check(exact: float, hits: npt.NDArray[np.bool_]) -> None:
    n = len(hits)
    p = hits.mean()
    half = Z_999 * math.sqrt(max(exact * (1 - exact), 1e-12) / n) + 1 / n
    assert abs(p - exact) <= half, (exact, p, n)


@pytest.mark.parametrize("name", sorted(HANDS))
def test_every_value_agrees_with_a_simulation(name: str) -> None:
    rules = load_rules(name)
    seat = SEATS[name]
    odds = hand_odds(HANDS[name], rules, seat=seat)
    masks = deal(rules, DEALS, seed=11, seat=seat, hand=HANDS[name]).masks
    others = [s for s in odds.others]
    opponents = masks[:, others]
    dog = masks[:, rules.players]
    for suit, letter in enumerate(cards.SUIT_LETTERS):
        counts = _count(opponents, lo=cards.SUIT_MASKS[suit])
        suit_odds = odds.suits[letter]
        if suit_odds.king_passes is not None:
            _check(suit_odds.king_passes, counts.min(axis=1) >= 1)
        if suit_odds.queen_passes_after_king is not None:
            _check(suit_odds.queen_passes_after_king, counts.min(axis=1) >= 2)
        top = suit_odds.splits[0]
        shape = np.sort(counts, axis=1)[:, ::-1]
        hits = (shape == np.array(top.others)).all(axis=1)
        if top.dog is not None:
            hits &= _count(dog, lo=cards.SUIT_MASKS[suit]) == top.dog
        _check(top.probability, hits)
    trumps_hi = sum(1 << n for n in range(1, 22))
    trumps = _count(opponents, hi=trumps_hi)
    with_excuse = _count(opponents, hi=trumps_hi | cards.EXCUSE_BIT_HI)
    for level, threshold in zip(("simple", "double"), rules.poignee.thresholds, strict=False):
        _check(odds.trumps.poignee[level], with_excuse.max(axis=1) >= threshold)
    top = odds.trumps.splits[0]
    _check(top.probability, (np.sort(trumps, axis=1)[:, ::-1] == np.array(top.others)).all(axis=1))
    if odds.trumps.petit_out:
        has_petit = _count(opponents, hi=cards.PETIT_BIT_HI) == 1
        for most, exact in odds.trumps.petit_short.items():
            _check(exact, (has_petit & (trumps >= 2) & (trumps - 1 <= most)).any(axis=1))
    for bout, places in odds.bouts.items():
        bit = {"petit": cards.PETIT_BIT_HI, "twenty_one": 1 << 21, "excuse": cards.EXCUSE_BIT_HI}
        for where, exact in places.items():
            holder = masks[:, rules.players if where == "dog" else int(where.split()[1])]
            _check(exact, _count(holder, hi=bit[bout]) == 1)
    dog_trumps = _count(dog, hi=trumps_hi)
    for value, exact in odds.dog["trumps"].items():
        _check(exact, dog_trumps == int(value))


def test_a_wrong_model_fails_the_check() -> None:
    """The check tells the model apart from a near miss: the king passing as if the dog held
    no card of the suit is refused."""
    rules = load_rules("fft-4")
    odds = hand_odds(HANDS["fft-4"], rules)
    masks = deal(rules, DEALS, seed=11, seat=0, hand=HANDS["fft-4"]).masks
    hits = _count(masks[:, 1:4], lo=cards.SUIT_MASKS[cards.HEARTS]).min(axis=1) >= 1
    missing = odds.suits["H"].missing
    wrong = float(sum(p for x, p in split_law(missing, (18, 18, 18)).items() if min(x) >= 1))
    _check(odds.suits["H"].king_passes or 0, hits)
    with pytest.raises(AssertionError):
        _check(wrong, hits)


def test_the_dog_seen_leaves_only_the_other_hands() -> None:
    rules = load_rules("fft-4")
    dog = "2 3 KS 5D 9C 4C"
    odds = hand_odds(HANDS["fft-4"], rules, dog=dog)
    assert odds.dog == {} and all("dog" not in places for places in odds.bouts.values())
    assert odds.suits["S"].missing == 14 - 2 - 1
    assert all(split.dog is None for split in odds.trumps.splits)
    assert math.isclose(sum(s.probability for s in odds.trumps.splits), 1.0)
    # 16 trumps unseen in 54 cards, three hands of 18: the Petit is somewhere among them.
    assert odds.trumps.petit_out and 0 < odds.trumps.petit_short[1] < odds.trumps.petit_short[3]


def test_what_the_dog_brings_is_its_closed_form() -> None:
    """With no bout in hand, the 4-player dog of 6 cards, drawn from the 60 unseen, holds at
    least one of the 3 bouts with chance 1 − C(57, 6)/C(60, 6) = 27.5%."""
    rules = load_rules("fft-4")
    odds = hand_odds("18 17 16 15 14 KH CH 10H 8H 1H JD 8D QC CC 7C 6S 4S 3D", rules)
    no_bout = math.comb(57, 6) / math.comb(60, 6)
    assert math.isclose(odds.dog["bouts"]["0"], no_bout)
    assert round(1 - no_bout, 3) == 0.275


def test_odds_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["odds", HANDS["fft-5"], "--rules", "fft-5", "--seat", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data["suits"]) == {"S", "H", "D", "C"}
    for suit in data["suits"].values():
        assert {"held", "king_passes", "queen_passes_after_king", "splits"} <= set(suit)
        assert math.isclose(sum(s["probability"] for s in suit["splits"]), 1.0)
    assert (
        data["suits"]["H"]["king_passes"] is not None and data["suits"]["S"]["king_passes"] is None
    )
    assert set(data["trumps"]["poignee"]) == {"simple", "double", "triple"}
    assert "partners" in data["models"]  # five players: the partner unknown, said
    assert set(data["bouts"]) == {"petit", "excuse"}
    assert main(["odds", HANDS["fft-4"]]) == 0
    assert "king passes" in capsys.readouterr().out.lower()


def test_tarocco_odds_have_its_hand_and_dog() -> None:
    rules = load_rules("tarocco")
    hand = cards.Hand(list(range(rules.hand_size)))
    odds = hand_odds(hand, rules)
    assert all(split.dog is not None for split in odds.suits["H"].splits)
    assert "Tarocco" in odds.models["poignee"]


def test_bad_input_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["odds", "21 21 12"]) == 2
    assert main(["odds", HANDS["fft-4"], "--dog", "21 3 KS 5D 9C 4C"]) == 2
    assert "both in the hand and in the dog" in capsys.readouterr().err
    with pytest.raises(TarotInputError, match="seat must be"):
        hand_odds(HANDS["fft-4"], load_rules("fft-4"), seat=4)


def test_the_worked_hand_of_the_docs_is_the_real_output() -> None:
    from pathlib import Path

    from tarot_analysis.analyses.ecart import taker_odds
    from tarot_analysis.deals.odds import odds_text

    text = (Path(__file__).parent.parent / "docs" / "odds.md").read_text(encoding="utf-8")
    blocks = text.split("```\n")
    printed = [b for b in blocks if b.startswith("Odds of ")]
    hand = "21 19 12 6 E KH CH 10H 8H 1H JD 8D QC CC 7C 6S 4S 3D"
    assert printed[0].rstrip() == odds_text(hand_odds(hand, load_rules("fft-4")))
    # What the command prints with the dog: the odds after the heuristic bot's écart.
    after = odds_text(taker_odds(hand, load_rules("fft-4"), dog="2 3 KS 5D 9C 4C"))
    assert after.startswith(printed[1].removesuffix("...\n").rstrip())


# A published table of the king and queen led by the taker in four players, the cards of the
# suit the taker lacks among the three defenders ("Tableaux de probabilités",
# vicenteftarot.chez-alice.fr/top/probabilites.htm): by cards held in the suit, the chance
# that the king passes, that the king and the queen pass, and the queen's once the king has.
PUBLISHED_KING = {1: 98.5, 2: 97.7, 3: 96.5, 4: 94.8, 5: 92.2, 6: 88.3, 7: 82.6, 8: 74.1,
                  9: 61.7, 10: 44.4, 11: 22.2}  # fmt: skip
PUBLISHED_KING_QUEEN = {2: (83.9, 85.9), 3: (77.7, 80.5), 4: (69.3, 73.1), 5: (58.5, 63.4),
                        6: (44.8, 50.7), 7: (28.8, 34.9), 8: (12.3, 16.7)}  # fmt: skip
# Its table of the longest defender's trumps (or cards of a suit), by cards missing.
PUBLISHED_LONGEST = {4: {2: 66.7, 3: 29.6, 4: 3.7}, 5: {2: 37.0, 3: 49.4, 4: 12.3, 5: 1.2},
                     10: {4: 37.3, 5: 39.7, 6: 17.1, 7: 4.9, 8: 0.9, 9: 0.1}}  # fmt: skip


def test_the_published_table_is_the_same_law_with_each_card_placed_alone() -> None:
    """The published table places each missing card in any defender's hand independently (as
    if the hands had no size): the same law with unbounded hands gives every printed digit
    (within a rounding of the last one). With hands of 18 cards, as dealt, a card in one hand
    leaves less room there: the defenders' voids are rarer and the king passes more often,
    by up to 3 points (94.7% with five cards held, against the published 92.2%)."""
    unbounded = (10**6,) * 3

    def chance(missing: int, least: int, sizes: tuple[int, ...]) -> float:
        return 100 * float(sum(p for x, p in split_law(missing, sizes).items() if min(x) >= least))

    for held, printed in PUBLISHED_KING.items():
        assert abs(chance(14 - held, 1, unbounded) - printed) < 0.06, held
        assert chance(14 - held, 1, (18, 18, 18)) > printed
    for held, (both, after) in PUBLISHED_KING_QUEEN.items():
        king, queen = chance(14 - held, 1, unbounded), chance(14 - held, 2, unbounded)
        assert abs(queen - both) < 0.06 and abs(100 * queen / king - after) < 0.06, held
    for missing, printed_law in PUBLISHED_LONGEST.items():
        law = split_law(missing, unbounded)
        for longest, printed in printed_law.items():
            found = 100 * float(sum(p for x, p in law.items() if max(x) == longest))
            assert abs(found - printed) < 0.06, (missing, longest)
    # The odds of a hand use the hands as dealt: five hearts held, the dog seen.
    odds = hand_odds(HANDS["fft-4"], load_rules("fft-4"), dog="2 3 KS 5D 9C 4C")
    assert round(100 * (odds.suits["H"].king_passes or 0), 1) == 94.7


# The taker's hand with the dog: the hand of the worked Chavey count, and a dog holding a king
# and two trumps (a king never goes to the écart under the FFT rules).
TAKER = "21 19 12 6 1 E KH CH 10H 8H 1H JD 8D QC CC 7C 6S 4S"
TAKER_DOG = "2 3 KS 5D 9C 4C"
TAKER_ECART = "6S 4S JD 8D 5D 4C"


def test_the_dog_is_the_takers_and_the_ecart_leaves_the_hand() -> None:
    rules = load_rules("fft-4")
    with_dog = hand_odds(TAKER, rules, dog=TAKER_DOG)
    assert with_dog.stage == "with the dog" and len(with_dog.figures_hand) == 24
    # The king of spades and the dog's two trumps are the taker's now.
    assert with_dog.suits["S"].held == 3 and with_dog.suits["S"].king_passes is not None
    assert with_dog.trumps.held == 7 and with_dog.suits["C"].held == 5
    after = hand_odds(TAKER, rules, dog=TAKER_DOG, ecart=TAKER_ECART)
    assert after.stage == "after the écart" and len(after.figures_hand) == rules.hand_size
    ecart = cards.Hand.parse(TAKER_ECART)
    assert after.ecart == ecart and not set(ecart) & set(after.figures_hand)
    assert [after.suits[s].held for s in "SHDC"] == [1, 5, 0, 4]
    assert after.trumps.held == 7 and after.suits["S"].king_passes is not None
    # The écart's cards are out of play, known to the taker: never missing, in no other hand.
    for odds in (with_dog, after):
        assert odds.suits["D"].missing == 14 - 3 and odds.trumps.missing == 21 - 7
    assert after.ecart_points == 4.0  # 6S 4S 8D 5D 4C at 0.5, JD 1.5: the taker's


def test_odds_command_with_the_dog_counts_it_as_the_takers(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["odds", TAKER, "--dog", TAKER_DOG, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["stage"] == "after the écart" and data["ecart_by"] == "the heuristic bot's écart"
    assert data["suits"]["S"]["king_passes"] is not None  # the KS held
    assert data["trumps"]["held"] == 7 and data["trumps"]["held_text"] == "7 trumps and the Excuse"
    held, ecart = cards.Hand.parse(data["held"]), cards.Hand.parse(data["ecart"])
    assert len(held) == 18 and "KS" in held and not set(held) & set(ecart)
    assert set(held) | set(ecart) == set(cards.parse_cards(f"{TAKER} {TAKER_DOG}"))
    assert data["dog"] == {}
    assert data["dog_brings"] == {
        "cards": "3 2 KS 5D 9C 4C", "bouts": [], "trumps": 2, "excuse": False,
        "trumps_text": "2 trumps", "kings": ["KS"], "points": 7.0,
    }  # fmt: skip
    assert main(["odds", TAKER, "--dog", TAKER_DOG, "--ecart", TAKER_ECART]) == 0
    out = capsys.readouterr().out
    assert "The figures below are for the hand after the écart." in out
    assert f"the écart:       {cards.Hand.parse(TAKER_ECART)} (given;" in out
    assert "no bout; 2 trumps; 1 king (KS); 7 card points" in out
    assert "The dog brings:" not in out and "bouts: 0:" not in out


@pytest.mark.parametrize(
    ("ecart", "says"),
    [
        ("KS 4S JD 8D 5D 4C", "KS is a king, which fft-4 never lets go"),
        ("21 4S JD 8D 5D 4C", "21 is a bout, which fft-4 never lets go"),
        ("12 4S JD 8D 5D 4C", "12 is a trump, which fft-4 lets go only when fewer than 6"),
        ("KD 4S JD 8D 5D 4C", "KD is neither in the hand nor in the dog"),
        ("6S 4S JD 8D 5D", "has 6 cards, as the dog, got 5"),
        ("6S 4S JD 8D 5D ZZ", "the écart: "),
    ],
)
def test_a_wrong_ecart_is_one_line(
    capsys: pytest.CaptureFixture[str], ecart: str, says: str
) -> None:
    assert main(["odds", TAKER, "--dog", TAKER_DOG, "--ecart", ecart]) == 2
    err = capsys.readouterr().err
    assert says in err and len(err.strip().splitlines()) == 1
    assert main(["odds", TAKER, "--ecart", TAKER_ECART]) == 2
    assert "give the dog's cards" in capsys.readouterr().err


def test_the_ecart_check_is_the_engines() -> None:
    """Every écart the check accepts the engine accepts, and only those, under rules that
    forbid kings and bouts (fft-4) and rules that let them go when forced (legacy-4), with hands
    short of free cards among them."""
    from tarot_analysis.bots import Bot
    from tarot_analysis.bots.door import choose_ecart
    from tarot_analysis.deals.odds import checked_ecart
    from tarot_analysis.engine.params import engine_rules

    rng = np.random.default_rng(5)
    for name in ("fft-4", "legacy-4"):
        rules = load_rules(name)
        p, row = engine_rules(rules).params, Bot.parse("heuristic").row()
        accepted = 0
        for trial in range(300):
            # A hand of many trumps and kings now and then, so that few cards may go freely.
            weights = np.where(np.arange(78) >= 56, 6.0 if trial % 3 == 0 else 1.0, 1.0)
            pool = rng.choice(78, size=24, replace=False, p=weights / weights.sum())
            hand, dog = cards.Hand(pool[:18].tolist()), cards.Hand(pool[18:].tolist())
            ecart = rng.choice(pool, size=6, replace=False).tolist()
            lo, hi = cards.to_mask(pool.tolist())
            script = cards.to_mask(ecart)
            _, _, legal = choose_ecart(
                row, np.uint64(lo), np.uint64(hi), 6, np.uint64(script[0]), np.uint64(script[1]),
                p, np.ones(4, dtype=np.uint64),
            )  # fmt: skip
            try:
                checked_ecart(hand, dog, cards.Hand(ecart), rules)
                accepted += 1
                assert legal, (name, cards.format_cards(ecart))
            except TarotInputError:
                assert not legal, (name, cards.format_cards(ecart))
        assert 0 < accepted < 300


def test_hand_and_odds_count_the_trumps_alike(capsys: pytest.CaptureFixture[str]) -> None:
    """Five trumps and the Excuse: the count of Chavey (which counts the Excuse among them) and
    the odds say it in the same words, from the same count."""
    from tarot_analysis.deals.evaluators import chavey_sum
    from tarot_analysis.deals.odds import odds_text

    hand = cards.Hand.parse(TAKER)
    assert hand.trumps_text == "5 trumps and the Excuse"
    assert "the Petit among 5 trumps and the Excuse: 7" in chavey_sum(hand)
    assert "5 trumps and the Excuse, 2 each: 12" in chavey_sum(hand)
    assert "6 trumps" not in chavey_sum(hand)
    assert "Trumps: 5 trumps and the Excuse held, 16 trumps missing" in odds_text(
        hand_odds(hand, load_rules("fft-4"))
    )
