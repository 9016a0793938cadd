"""Hand evaluations: Chavey's count, the bouts-and-trumps rule of thumb, their bids.

Worked examples are counted by hand in the comments. The first three are the examples published
with Chavey's count (Noël Chavey, *Le jeu de tarot*, Hatier, 1986) by the club Le 21 Bollenois,
"L'évaluation du jeu" (le21bollenois.com), which gives the totals 60 (Garde) and 34 (Passe) and,
for the third hand, the trump subtotal 45.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tarot_analysis.deals.evaluators import (
    BID_NAMES,
    CHAVEY_PARTS,
    EVALUATORS,
    PASS,
    bid_names,
    bouts_and_trumps,
    bouts_and_trumps_bid,
    chavey,
    chavey_bid,
    chavey_parts,
    evaluate,
    scale_to_18,
)
from tarot_analysis.errors import CardError, TarotInputError
from tarot_analysis.game.cards import (
    EXCUSE,
    N_CARDS,
    N_RANKS,
    N_SUIT_CARDS,
    N_SUITS,
    PETIT,
    TRUMP_ID_OFFSET,
    TWENTY_ONE,
    Hand,
    ids_to_masks,
)
from tarot_analysis.game.rules import load_rules

PRISE, GARDE, GARDE_SANS, GARDE_CONTRE = range(4)

# --------------------------------------------------------------------------------------------
# A plain per-hand reading of the rules, from card ids, to check the vectorised counts against
# --------------------------------------------------------------------------------------------


def reference_chavey(hand: Hand, with_distribution: bool = False) -> int:
    ids = set(hand.cards)
    numbers = sorted(card - TRUMP_ID_OFFSET for card in ids if card > EXCUSE)
    has_excuse = EXCUSE in ids
    trumps = len(numbers) + has_excuse  # the Excuse counts as a trump
    value = 0
    if TWENTY_ONE in ids:
        value += 10
    if has_excuse:
        value += 8
    if PETIT in ids:
        value += {5: 5, 6: 7}.get(trumps, 9 if trumps >= 7 else 0)
    if trumps > 4:
        value += 2 * trumps
    majors = [n for n in numbers if n >= 16]
    value += 2 * len(majors)
    runs: list[list[int]] = []
    for n in majors:
        if runs and runs[-1][-1] == n - 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    value += sum(len(run) for run in runs if len(run) >= 2)
    for suit in range(N_SUITS):
        ranks = {card % N_RANKS for card in ids if card < N_SUIT_CARDS and card // N_RANKS == suit}
        king, queen = 13 in ranks, 12 in ranks
        if king and queen:
            value += 10
        elif king:
            value += 6
        elif queen:
            value += 3
        value += 2 * (11 in ranks) + 1 * (10 in ranks)
        length = len(ranks)
        value += 9 if length >= 7 else {5: 5, 6: 7}.get(length, 0)
        if with_distribution:
            value += {0: 6, 1: 3}.get(length, 0)
    return value


def reference_chavey_bid(plain: int, dealt: int, hand_size: int = 18) -> int:
    def on_18(score: int) -> Fraction:
        return Fraction(score * 18, hand_size)

    if on_18(dealt) >= 81:
        return GARDE_CONTRE
    if on_18(dealt) >= 71:
        return GARDE_SANS
    if on_18(plain) >= 56:
        return GARDE
    if on_18(plain) >= 40:
        return PRISE
    return PASS


def reference_bouts_and_trumps(hand: Hand) -> int:
    bouts = sum(card in hand for card in (PETIT, TWENTY_ONE, EXCUSE))
    trumps = sum(card >= EXCUSE for card in hand)
    return 6 * bouts + trumps


def random_hands(
    rng: np.random.Generator, count: int, size: int
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.uint64], npt.NDArray[np.uint64]]:
    """``count`` random hands of ``size`` cards: ids ``(count, size)`` and their masks."""
    ids = rng.permuted(np.tile(np.arange(N_CARDS), (count, 1)), axis=1)[:, :size]
    lo, hi = ids_to_masks(ids)
    return ids, lo, hi


def masks(text: str) -> tuple[int, int]:
    return Hand.parse(text).mask


def count(text: str, *, with_distribution: bool = False) -> int:
    return int(chavey(*masks(text), with_distribution=with_distribution))


def parts(text: str) -> dict[str, int]:
    return {name: int(value) for name, value in chavey_parts(*masks(text)).items()}


# --------------------------------------------------------------------------------------------
# Published worked examples
# --------------------------------------------------------------------------------------------

# 21: 10; Petit with 6 trumps (21 19 12 6 1 E, the Excuse counted): 7; Excuse: 8;
# 6 trumps > 4: 2 × 6 = 12; majors 21 and 19: 2 × 2 = 4, not consecutive: no sequence.
# Trumps: 10 + 7 + 8 + 12 + 4 = 41.
# Hearts K C 10 8 1: king without queen 6, knight 2, five cards 5 = 13.
# Diamonds J 8: jack 1. Clubs Q C 7: queen without king 3, knight 2 = 5. Spades 6 4: 0.
# 41 + 13 + 1 + 5 = 60: a Garde (56 to 70). No void, no singleton: 60 with distribution.
GARDE_HAND = "21 19 12 6 1 E KH CH 10H 8H 1H JD 8D QC CC 7C 6S 4S"

# No 21, no Excuse, no Petit. 7 trumps: 14; majors 20 and 18: 4, no sequence. Trumps: 18.
# Hearts K 10 5 4: king alone 6 (four cards: no long suit). Diamonds K Q: 10. Clubs 8 7,
# spades 8 7 5: 0. 18 + 6 + 10 = 34: pass. No void, no singleton.
PASS_HAND = "20 18 14 13 9 8 6 KH 10H 5H 4H KD QD 8C 7C 8S 7S 5S"

# 21: 10; Excuse: 8; no Petit; 8 trumps with the Excuse: 16; majors 21 20 19 16: 8;
# 19-20-21 in sequence: 3 (16 alone: 0). Trumps: 10 + 8 + 16 + 8 + 3 = 45.
# Hearts K Q 8 5 4 2: king with queen 10, six cards 7 = 17. Diamonds K alone: 6. Clubs: 0.
# 45 + 17 + 6 = 68: a Garde. With distribution, spades void 6 and diamonds singleton 3:
# 68 + 9 = 77, a Garde sans.
GARDE_SANS_HAND = "21 20 19 16 14 12 8 E KH QH 8H 5H 4H 2H KD 9C 8C 3C"


@pytest.mark.parametrize(
    ("text", "plain", "dealt", "bid"),
    [
        (GARDE_HAND, 60, 60, "garde"),
        (PASS_HAND, 34, 34, "pass"),
        (GARDE_SANS_HAND, 68, 77, "garde_sans"),
    ],
)
def test_published_examples(text: str, plain: int, dealt: int, bid: str) -> None:
    hand = Hand.parse(text, size=18)
    assert count(text) == plain
    assert count(text, with_distribution=True) == dealt
    assert str(bid_names(chavey_bid(plain, dealt))) == bid
    assert evaluate(hand, "chavey") == plain
    assert evaluate(hand, "chavey", with_distribution=True) == dealt


def test_published_examples_part_by_part() -> None:
    assert parts(GARDE_HAND) == {
        "twenty_one": 10,
        "excuse": 8,
        "petit": 7,
        "trump_length": 12,
        "majors": 4,
        "major_sequences": 0,
        "honours": 6 + 2 + 1 + 3 + 2,
        "long_suits": 5,
        "distribution": 0,
    }
    assert parts(PASS_HAND) == {
        "twenty_one": 0,
        "excuse": 0,
        "petit": 0,
        "trump_length": 14,
        "majors": 4,
        "major_sequences": 0,
        "honours": 6 + 10,
        "long_suits": 0,
        "distribution": 0,
    }
    trump_part = ("twenty_one", "excuse", "petit", "trump_length", "majors", "major_sequences")
    garde_sans = parts(GARDE_SANS_HAND)
    assert sum(garde_sans[name] for name in trump_part) == 45  # the published subtotal
    assert garde_sans["honours"] == 10 + 6
    assert garde_sans["long_suits"] == 7
    assert garde_sans["distribution"] == 6 + 3


# --------------------------------------------------------------------------------------------
# Trumps
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "petit", "total"),
    [
        ("1 2 3 4", 0, 0),  # 4 trumps: Petit 0, no length
        ("1 2 3 E", 0, 8),  # 4 with the Excuse: Petit 0; Excuse 8
        ("2 3 4 5 E", 0, 8 + 10),  # no Petit; Excuse 8, 5 trumps 10
        ("1 2 3 4 5", 5, 5 + 10),  # 5: Petit 5, 2 × 5
        ("1 2 3 4 E", 5, 5 + 8 + 10),  # 5 with the Excuse: Petit 5, Excuse 8, 2 × 5
        ("1 2 3 4 5 E", 7, 7 + 8 + 12),  # 6: Petit 7, Excuse 8, 2 × 6
        ("1 2 3 4 5 6 7", 9, 9 + 14),  # 7: Petit 9, 2 × 7
        ("1 2 3 4 5 6 7 8 9 10 E", 9, 9 + 8 + 22),  # 11: Petit still 9, Excuse 8, 2 × 11
    ],
)
def test_petit_and_trump_length_count_the_excuse_as_a_trump(
    text: str, petit: int, total: int
) -> None:
    assert parts(text)["petit"] == petit
    assert count(text) == total


def test_trump_length_counts_every_trump_from_five() -> None:
    assert parts("2 3 4 5")["trump_length"] == 0
    assert parts("2 3 4 5 6")["trump_length"] == 10  # all five, not only the fifth
    assert parts("21 1 E 2 3")["trump_length"] == 10  # the bouts included
    assert count("21 1 E 2 3") == 10 + 8 + 5 + 10 + 2  # 21, Excuse, Petit with 5, length, major


@pytest.mark.parametrize(
    ("text", "majors", "sequences"),
    [
        ("21 20 19", 6, 3),  # the book's example: 19-20-21 gives 3
        ("21 19", 4, 0),
        ("21 19 17", 6, 0),
        ("21 20 18 17", 8, 4),  # two runs of two
        ("16 17", 4, 2),
        ("15 16 17", 4, 2),  # 15 is no major: only 16 and 17
        ("15 16", 2, 0),  # 16 alone among the majors
        ("14 15", 0, 0),
        ("16 17 18 19 20 21", 12, 6),
        ("21 E", 2, 0),  # the Excuse has no number: no major, no sequence
        ("16 E", 2, 0),
    ],
)
def test_majors_and_sequences(text: str, majors: int, sequences: int) -> None:
    hand_parts = parts(text)
    assert hand_parts["majors"] == majors
    assert hand_parts["major_sequences"] == sequences


def test_trumps_only_count() -> None:
    # 21: 10; Excuse: 8; Petit with 7 trumps with the Excuse: 9; 2 × 7 = 14;
    # majors 21 20 19 18: 8, all in one sequence: 4. 10 + 8 + 9 + 14 + 8 + 4 = 53.
    assert count("21 20 19 18 2 1 E") == 53


# --------------------------------------------------------------------------------------------
# Suits
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "honours"),
    [
        ("KH QH", 10),  # king with its queen
        ("KH", 6),  # king alone
        ("QH", 3),  # queen without the king
        ("KH QS", 6 + 3),  # a king and a queen of different suits
        ("CH", 2),
        ("JH", 1),
        ("KH QH CH JH", 10 + 2 + 1),
        ("CS CH CD CC JS JH JD JC", 4 * 2 + 4 * 1),  # each knight, each jack
        ("KS QS KH QH KD QD KC QC", 4 * 10),
    ],
)
def test_honours(text: str, honours: int) -> None:
    assert parts(text)["honours"] == honours
    assert count(text) == honours  # no suit of five, no trump


@pytest.mark.parametrize(
    ("length", "value"),
    [(0, 0), (1, 0), (4, 0), (5, 5), (6, 7), (7, 9), (8, 9), (10, 9)],
)
def test_long_suits(length: int, value: int) -> None:
    low_spades = " ".join(f"{rank}S" for rank in range(1, length + 1))  # no honour
    assert parts(low_spades)["long_suits"] == value
    assert count(low_spades) == value


def test_whole_suit() -> None:
    # King with queen 10, knight 2, jack 1, fourteen cards 9: 22. Three voids only with the
    # distribution: 22 + 3 × 6 = 40.
    whole = "KH QH CH JH 10H 9H 8H 7H 6H 5H 4H 3H 2H 1H"
    assert count(whole) == 22
    assert count(whole, with_distribution=True) == 40


def test_distribution_counts_only_when_asked() -> None:
    # 14 spades: king with queen 10, knight 2, jack 1, long 9 = 22. Trumps 21 20 19 18:
    # 21 10, 4 trumps (no length), majors 8, one sequence 4 = 22. 44 in all: a Prise.
    # Three voids with the distribution: 44 + 18 = 62, still short of a Garde sans (71).
    text = "KS QS CS JS 10S 9S 8S 7S 6S 5S 4S 3S 2S 1S 21 20 19 18"
    assert count(text) == 44
    assert count(text, with_distribution=True) == 62
    assert str(bid_names(chavey_bid(44, 62))) == "prise"
    # A singleton in each suit: 4 × 3 = 12; no honours, no trumps.
    assert count("1S 1H 1D 1C") == 0
    assert count("1S 1H 1D 1C", with_distribution=True) == 12


def test_distribution_is_six_per_void_three_per_singleton() -> None:
    _, lo, hi = random_hands(np.random.default_rng(7), 200, 18)
    lengths = np.stack(
        [np.bitwise_count(lo & np.uint64(((1 << 14) - 1) << (14 * s))) for s in range(4)]
    )
    expected = 6 * (lengths == 0).sum(axis=0) + 3 * (lengths == 1).sum(axis=0)
    difference = chavey(lo, hi, with_distribution=True) - chavey(lo, hi)
    assert np.array_equal(difference, expected)
    assert np.array_equal(chavey_parts(lo, hi)["distribution"], expected)


# --------------------------------------------------------------------------------------------
# Bids
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("score", "bid"),
    [
        (0, "pass"),
        (39, "pass"),
        (40, "prise"),
        (55, "prise"),
        (56, "garde"),
        (70, "garde"),
        (71, "garde_sans"),
        (80, "garde_sans"),
        (81, "garde_contre"),
        (150, "garde_contre"),
    ],
)
def test_chavey_thresholds(score: int, bid: str) -> None:
    assert str(bid_names(chavey_bid(score, score))) == bid


@pytest.mark.parametrize(
    ("plain", "dealt", "bid"),
    [
        (55, 70, "prise"),  # the distribution does not lift a Prise to a Garde
        (39, 55, "pass"),
        (55, 71, "garde_sans"),  # Garde sans and Garde contre are judged with it
        (68, 77, "garde_sans"),
        (68, 81, "garde_contre"),
        (70, 80, "garde_sans"),
        (60, 60, "garde"),
    ],
)
def test_chavey_bid_judges_the_contracts_without_dog_with_distribution(
    plain: int, dealt: int, bid: str
) -> None:
    assert str(bid_names(chavey_bid(plain, dealt))) == bid


def test_chavey_bid_boundaries_at_other_hand_sizes() -> None:
    # 15 cards: least counts 40, 56, 71, 81 × 15 / 18 = 33.3, 46.7, 59.2, 67.5.
    five = chavey_bid(
        [33, 34, 46, 47, 59, 60, 67, 68], [33, 34, 46, 47, 59, 60, 67, 68], hand_size=15
    )
    assert five.tolist() == [PASS, PRISE, PRISE, GARDE, GARDE, GARDE_SANS, GARDE_SANS, GARDE_CONTRE]
    # 24 cards: × 24 / 18 = 53.3, 74.7, 94.7, 108.
    three = chavey_bid(
        [53, 54, 74, 75, 94, 95, 107, 108], [53, 54, 74, 75, 94, 95, 107, 108], hand_size=24
    )
    assert three.tolist() == [
        PASS,
        PRISE,
        PRISE,
        GARDE,
        GARDE,
        GARDE_SANS,
        GARDE_SANS,
        GARDE_CONTRE,
    ]
    scores = np.arange(0, 140)
    for hand_size in (15, 18, 24):
        for shift in (0, 9):
            got = chavey_bid(scores, scores + shift, hand_size=hand_size)
            want = [reference_chavey_bid(s, s + shift, hand_size) for s in scores.tolist()]
            assert got.tolist() == want


def test_scale_to_18() -> None:
    assert scale_to_18(60, 18).tolist() == 60.0
    assert scale_to_18([30, 40], 15).tolist() == [36.0, 48.0]
    assert scale_to_18(np.array([[48]]), 24).tolist() == [[36.0]]
    for bad in (0, -3, 1.5, True):
        with pytest.raises(TarotInputError):
            scale_to_18(40, bad)  # type: ignore[arg-type]
    with pytest.raises(TarotInputError):
        chavey_bid(40, 40, hand_size=0)


def test_bid_names_and_rules_contracts_agree() -> None:
    assert bid_names([[PASS, PRISE], [GARDE_SANS, GARDE_CONTRE]]).tolist() == [
        ["pass", "prise"],
        ["garde_sans", "garde_contre"],
    ]
    for preset in ("fft-3", "fft-4", "fft-5"):
        contracts = load_rules(preset).contracts
        assert tuple(contract.name for contract in contracts) == BID_NAMES[1:]
    with pytest.raises(TarotInputError):
        bid_names([4])
    with pytest.raises(TarotInputError):
        bid_names([-2])


# --------------------------------------------------------------------------------------------
# Bouts and trumps
# --------------------------------------------------------------------------------------------


def bouts_and_trumps_hand(bouts: int, trumps: int) -> Hand:
    """A hand of ``bouts`` bouts among ``trumps`` trumps (the Excuse counted), and 3 low cards."""
    chosen = [TWENTY_ONE, PETIT, EXCUSE][:bouts]
    others = [TRUMP_ID_OFFSET + n for n in range(2, 21)][: trumps - bouts]
    return Hand([*chosen, *others, 0, 1, 2])


@pytest.mark.parametrize(
    ("bouts", "trumps", "bid"),
    [
        (2, 5, PASS),
        (2, 6, PRISE),  # "two bouts and six trumps for a Prise": 6 × 2 + 6 = 18
        (2, 8, PRISE),
        (2, 9, GARDE),  # "two bouts and nine trumps for a Garde": 21
        (3, 3, GARDE),  # "three bouts for a Garde", whatever the trumps: 6 × 3 + 3 = 21
        (3, 10, GARDE),
        (1, 11, PASS),  # one bout: our extrapolation, 12 trumps for a Prise
        (1, 12, PRISE),
        (1, 15, GARDE),
        (0, 17, PASS),
        (0, 18, PRISE),
    ],
)
def test_bouts_and_trumps_rule_of_thumb(bouts: int, trumps: int, bid: int) -> None:
    hand = bouts_and_trumps_hand(bouts, trumps)
    assert hand.bouts == bouts
    assert hand.trumps + hand.has_excuse == trumps
    value = evaluate(hand, "bouts_and_trumps")
    assert value == 6 * bouts + trumps
    assert int(bouts_and_trumps_bid(value)) == bid


def test_bouts_and_trumps_examples() -> None:
    # 3 bouts × 6 + 6 trumps with the Excuse = 24: a Garde; the suit cards do not count.
    assert evaluate(Hand.parse(GARDE_HAND), "bouts_and_trumps") == 24
    # No bout, 7 trumps: 7, a pass.
    assert evaluate(Hand.parse(PASS_HAND), "bouts_and_trumps") == 7
    # 2 bouts × 6 + 8 trumps with the Excuse = 20: a Prise.
    assert evaluate(Hand.parse(GARDE_SANS_HAND), "bouts_and_trumps") == 20


def test_bouts_and_trumps_bid_thresholds_and_sizes() -> None:
    assert bouts_and_trumps_bid([0, 17, 18, 20, 21, 60]).tolist() == [-1, -1, 0, 0, 1, 1]
    # 24 cards: 18 × 24 / 18 = 24 for a Prise, 21 × 24 / 18 = 28 for a Garde.
    assert bouts_and_trumps_bid([23, 24, 27, 28], hand_size=24).tolist() == [-1, 0, 0, 1]


# --------------------------------------------------------------------------------------------
# Vectorised counts against the per-hand reading
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [18, 15, 24])
def test_vectorised_counts_match_the_per_hand_reading(size: int) -> None:
    ids, lo, hi = random_hands(np.random.default_rng(size), 300, size)
    hands = [Hand(row.tolist()) for row in ids]
    lo, hi = lo.reshape(3, 100), hi.reshape(3, 100)
    plain = chavey(lo, hi)
    dealt = chavey(lo, hi, with_distribution=True)
    value = bouts_and_trumps(lo, hi)
    for array in (plain, dealt, value):
        assert array.shape == (3, 100)
        assert array.dtype == np.int64
    assert plain.ravel().tolist() == [reference_chavey(hand) for hand in hands]
    assert dealt.ravel().tolist() == [reference_chavey(hand, True) for hand in hands]
    assert value.ravel().tolist() == [reference_bouts_and_trumps(hand) for hand in hands]
    bids = chavey_bid(plain, dealt, hand_size=size)
    assert bids.shape == (3, 100)
    assert bids.ravel().tolist() == [
        reference_chavey_bid(p, d, size)
        for p, d in zip(plain.ravel().tolist(), dealt.ravel().tolist(), strict=True)
    ]
    split = chavey_parts(lo, hi)
    assert tuple(split) == CHAVEY_PARTS
    assert np.array_equal(sum(split[name] for name in CHAVEY_PARTS[:-1]), plain)
    assert np.array_equal(sum(split.values()), dealt)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, N_CARDS - 1), unique=True, max_size=30), st.booleans())
def test_any_set_of_cards_matches_the_per_hand_reading(ids: list[int], spread: bool) -> None:
    hand = Hand(ids)
    assert evaluate(hand, "chavey") == reference_chavey(hand)
    assert evaluate(hand.mask, "chavey", with_distribution=spread) == reference_chavey(hand, spread)
    assert evaluate(hand, "bouts_and_trumps") == reference_bouts_and_trumps(hand)


def test_shapes_are_kept() -> None:
    lo, hi = masks(GARDE_HAND)
    assert chavey(lo, hi).shape == ()
    assert int(chavey(np.uint64(lo), np.uint64(hi))) == 60
    grid_lo = np.full((2, 3, 4), lo, dtype=np.uint64)
    grid_hi = np.full((2, 3, 4), hi, dtype=np.uint64)
    assert chavey(grid_lo, grid_hi).shape == (2, 3, 4)
    assert (chavey(grid_lo, grid_hi) == 60).all()
    assert bouts_and_trumps(grid_lo, grid_hi).shape == (2, 3, 4)
    assert chavey_parts(grid_lo, grid_hi)["honours"].shape == (2, 3, 4)
    # One word for many hands broadcasts against the other.
    assert chavey(lo, np.array([hi, 0], dtype=np.uint64)).tolist() == [60, 60 - 41]
    # Signed masks (as numpy gives for small Python ints) are read too.
    assert chavey(np.array([lo], dtype=np.int64), np.array([hi], dtype=np.int64)).tolist() == [60]
    empty = np.zeros(0, dtype=np.uint64)
    assert chavey(empty, empty).shape == (0,)
    assert chavey_bid(empty, empty).shape == (0,)
    assert bid_names(chavey_bid(empty, empty)).shape == (0,)
    assert chavey_bid([[40], [81]], [[40], [81]]).shape == (2, 1)


def test_bad_masks_raise() -> None:
    with pytest.raises(CardError, match="lo"):
        chavey(1 << N_SUIT_CARDS, 0)
    with pytest.raises(CardError, match="hi"):
        chavey(0, 1 << 22)
    with pytest.raises(CardError, match="negative"):
        chavey(-1, 0)
    with pytest.raises(CardError, match="integers"):
        bouts_and_trumps(0.5, 0)
    with pytest.raises(ValueError):
        chavey(np.zeros(3, dtype=np.uint64), np.zeros(2, dtype=np.uint64))


# --------------------------------------------------------------------------------------------
# Registry
# --------------------------------------------------------------------------------------------


def test_registry() -> None:
    assert set(EVALUATORS) == {"chavey", "bouts_and_trumps"}
    lo, hi = masks(GARDE_HAND)
    assert int(EVALUATORS["chavey"](lo, hi)) == 60
    assert int(EVALUATORS["bouts_and_trumps"](lo, hi)) == 24
    assert evaluate((lo, hi), "chavey") == 60
    with pytest.raises(TarotInputError, match="did you mean 'chavey'"):
        evaluate(Hand.parse(GARDE_HAND), "chavy")
    with pytest.raises(TarotInputError, match="distribution"):
        evaluate(Hand.parse(GARDE_HAND), "bouts_and_trumps", with_distribution=True)
