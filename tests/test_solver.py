"""The double-dummy solver against a plain minimax written from the rules of play.

The minimax below searches every legal card at every turn, without pruning (it remembers the
positions it has already valued, which changes no value), and counts the points as the
solver's rules say: the winner takes the trick's cards; the Excuse played before the last trick
stays with its owner's side, which gives half a point to the winner's side when the two
differ; the Excuse played to the last trick goes to that trick's winner.
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Callable

import numpy as np
import pytest

from tarot_analysis import solver as solver_module
from tarot_analysis.engine.params import engine_rules
from tarot_analysis.errors import TarotInputError
from tarot_analysis.game import cards
from tarot_analysis.game.cards import EXCUSE, PETIT
from tarot_analysis.game.rules import Rules, load_rules
from tarot_analysis.solver import bounds, legal_plays, solve, solving
from tests.interrupting import interrupt_when
from tests.reference_play import (
    card_half_points,
    excuse_at_last_trick_to_attack,
    legal_cards,
    trick_winner,
)

FRENCH_PRESETS = ("fft-3", "fft-4", "fft-5")
EXCUSE_HALF_POINTS = 9  # 4.5 points kept by the Excuse's side
EXCUSE_COMPENSATION_HALF = 1  # the half point owed to the trick's winner
POSITIONS_PER_PRESET = 700

Hands = tuple[frozenset[int], ...]


def trick_half_points(
    rules: Rules, trick: list[int], leader: int, winner: int, attack: frozenset[int], last: bool
) -> int:
    """Attack half points of a completed trick led by ``leader`` and won by ``winner``."""
    total = 0
    for k, card in enumerate(trick):
        owner = (leader + k) % rules.players
        if card == EXCUSE and last:
            if excuse_at_last_trick_to_attack(owner in attack, winner in attack, rules):
                total += EXCUSE_HALF_POINTS
        elif card == EXCUSE:
            if owner in attack:
                total += EXCUSE_HALF_POINTS
                if winner not in attack:
                    total -= EXCUSE_COMPENSATION_HALF
            elif winner in attack:
                total += EXCUSE_COMPENSATION_HALF
        elif winner in attack:
            total += card_half_points(card, rules.card_points)
    return total


def minimax(
    rules: Rules,
    hands: Hands,
    trick: tuple[int, ...],
    leader: int,
    attack: frozenset[int],
    choose: tuple[Callable[..., int], Callable[..., int]] = (max, min),
    petit_bonus: int = 0,
) -> tuple[int, dict[int, int]]:
    """Attack half points with best play, and the value of each card of the seat to play.

    ``choose``: what the attack and the defence pick among the values of their cards;
    ``petit_bonus``: half points the side taking the last trick with the Petit in it wins
    (added for the attack, taken off for the defence).
    """
    players = rules.players
    known: dict[tuple[Hands, tuple[int, ...], int], int] = {}

    def value(hands: Hands, trick: tuple[int, ...], leader: int) -> int:
        key = (hands, trick, leader)
        if key in known:
            return known[key]
        if len(trick) == players:
            winner = (leader + trick_winner(list(trick))) % players
            last = not any(hands)
            result = trick_half_points(rules, list(trick), leader, winner, attack, last)
            if last and PETIT in trick:
                result += petit_bonus if winner in attack else -petit_bonus
            if not last:
                result += value(hands, (), winner)
        else:
            values = card_values(hands, trick, leader)
            seat = (leader + len(trick)) % players
            result = (choose[0] if seat in attack else choose[1])(values.values())
        known[key] = result
        return result

    def card_values(hands: Hands, trick: tuple[int, ...], leader: int) -> dict[int, int]:
        seat = (leader + len(trick)) % players
        values = {}
        for card in legal_cards(set(hands[seat]), list(trick), rules):
            after = tuple(hand - {card} if s == seat else hand for s, hand in enumerate(hands))
            values[card] = value(after, (*trick, card), leader)
        return values

    values = card_values(hands, trick, leader)
    seat = (leader + len(trick)) % players
    return (choose[0] if seat in attack else choose[1])(values.values()), values


def random_position(
    rules: Rules, rng: random.Random, tricks_left: int
) -> tuple[Hands, tuple[int, ...], int, frozenset[int]]:
    """Random hands of ``tricks_left`` cards, a leader, some cards of the trick already played
    (legal ones), and a random attack. Half the positions hold the Excuse, a third the Petit."""
    players = rules.players
    deck = list(range(cards.N_CARDS))
    chosen: list[int] = []
    for card, chance in ((EXCUSE, 0.5), (PETIT, 0.33)):
        if rng.random() < chance:
            chosen.append(card)
            deck.remove(card)
    rng.shuffle(deck)
    chosen += deck[: players * tricks_left - len(chosen)]
    rng.shuffle(chosen)
    hands = [set(chosen[seat * tricks_left : (seat + 1) * tricks_left]) for seat in range(players)]
    leader = rng.randrange(players)
    trick: list[int] = []
    for k in range(rng.randrange(players)):
        seat = (leader + k) % players
        card = rng.choice(sorted(legal_cards(hands[seat], trick, rules)))
        hands[seat].remove(card)
        trick.append(card)
    attack = frozenset(rng.sample(range(players), rng.randint(1, players - 1)))
    return tuple(frozenset(hand) for hand in hands), tuple(trick), leader, attack


def solve_position(
    rules: Rules, hands: Hands, trick: tuple[int, ...], leader: int, attack: frozenset[int]
) -> tuple[int, set[int]]:
    """The solver's value in half points and its best cards, for a position of card ids."""
    solution = solve(
        rules,
        [cards.format_cards(hand) for hand in hands],
        leader=leader,
        attack=attack,
        trick=[cards.card_name(card) for card in trick],
    )
    best = {cards.parse_cards(name)[0] for name in solution.best_cards}
    assert solution.nodes > 0
    petit_in_play = PETIT in trick or any(PETIT in hand for hand in hands)
    assert solution.petit_au_bout in ((-1, 0, 1) if petit_in_play else (-1,))
    return round(2 * solution.attack_points), best


def assert_solved_as_minimax(
    rules: Rules, rng: random.Random, count: int, tricks_left: int
) -> None:
    """``count`` random positions of ``tricks_left`` tricks: the solver's value and best cards
    are the minimax's."""
    for _ in range(count):
        hands, trick, leader, attack = random_position(rules, rng, tricks_left)
        expected, values = minimax(rules, hands, trick, leader, attack)
        value, best = solve_position(rules, hands, trick, leader, attack)
        assert value == expected
        assert best == {card for card, v in values.items() if v == expected}


@pytest.mark.parametrize("preset", FRENCH_PRESETS)
@pytest.mark.slow
def test_solver_agrees_with_minimax_on_random_endgames(preset: str) -> None:
    rules = load_rules(preset)
    rng = random.Random(f"solver {preset}")
    inside_trick = 0
    for _ in range(POSITIONS_PER_PRESET):
        tricks_left = rng.choice((2, 3, 3, 4) if rules.players < 5 else (2, 3, 3))
        hands, trick, leader, attack = random_position(rules, rng, tricks_left)
        inside_trick += bool(trick)
        expected, values = minimax(rules, hands, trick, leader, attack)
        value, best = solve_position(rules, hands, trick, leader, attack)
        where = f"hands {[cards.format_cards(h) for h in hands]} trick {trick} leader {leader}"
        assert value == expected, f"{preset}: {where} attack {sorted(attack)}"
        assert best == {card for card, v in values.items() if v == expected}, where
    assert inside_trick > POSITIONS_PER_PRESET // 3


@pytest.mark.parametrize("preset", FRENCH_PRESETS)
def test_the_value_alone_is_the_minimax_value(preset: str) -> None:
    """Asked for the value alone, the solver gives the minimax's value, no best card and no
    Petit au bout, and searches no more positions than for the whole solution."""
    rules = load_rules(preset)
    rng = random.Random(f"value alone {preset}")
    for _ in range(60):
        tricks_left = rng.choice((2, 3, 4) if rules.players < 5 else (2, 3))
        hands, trick, leader, attack = random_position(rules, rng, tricks_left)
        expected, _ = minimax(rules, hands, trick, leader, attack)
        text = [cards.format_cards(hand) for hand in hands]
        played = [cards.card_name(card) for card in trick]
        alone = solve(rules, text, leader=leader, attack=attack, trick=played, best_cards=False)
        whole = solve(rules, text, leader=leader, attack=attack, trick=played)
        assert round(2 * alone.attack_points) == expected
        assert alone.best_cards == () and alone.petit_au_bout == -1
        assert 0 < alone.nodes <= whole.nodes


def fail_soft_search(
    value: int, slack: int, calls: list[tuple[int, int]]
) -> Callable[[int, int, int], int]:
    """A search of a position worth ``value``, fail-soft: past the window it answers a bound
    up to ``slack`` beyond the window, on the side of the value. Each window goes to
    ``calls``."""

    def search(root_card: int, alpha: int, beta: int) -> int:
        calls.append((alpha, beta))
        if value >= beta:
            return max(beta, value - slack)
        return min(alpha, value + slack)

    return search


@pytest.mark.parametrize("slack", [0, 3, 1000])
def test_null_windows_from_any_first_guess_find_the_value(slack: int) -> None:
    """MTD(f) finds the value from any first guess, in or out of the range, and from the
    exact guess in at most two searches."""
    for value in range(0, 21):
        for guess in range(-5, 26):
            calls: list[tuple[int, int]] = []
            bounds = [0, 20]
            search = fail_soft_search(value, slack, calls)
            assert solving._mtdf(search, bounds, guess) == value
            assert bounds == [value, value]
            assert all(beta == alpha + 1 for alpha, beta in calls)
            if guess == value:
                assert len(calls) <= 2


def test_solver_agrees_with_minimax_at_four_tricks_with_five_players() -> None:
    rules = load_rules("fft-5")
    rng = random.Random("solver fft-5 four tricks")
    for _ in range(8):
        hands, trick, leader, attack = random_position(rules, rng, 4)
        expected, _ = minimax(rules, hands, trick, leader, attack)
        assert solve_position(rules, hands, trick, leader, attack)[0] == expected


def value_after_each_card(
    rules: Rules, hands: Hands, leader: int, attack: frozenset[int]
) -> dict[int, int]:
    """At a trick boundary, the solver's value (half points) after each legal lead, each
    position solved on its own."""
    values = {}
    for card in legal_cards(hands[leader], [], rules):
        after = list(hands)
        after[leader] = hands[leader] - {card}
        values[card] = solve_position(rules, tuple(after), (card,), leader, attack)[0]
    return values


KNOWN_LONG = [
    # Seven tricks of fft-3: five leads keep the value, whose searches met table entries made
    # under a bound on master cards.
    ("fft-3", ["5H 3D 4D 10D 3C 5C 10C", "5S 1H 2D JD CD 2C 4C", "4S 10S 7D 1C 6C 7C 8C"], 2, {2}),
]


@pytest.mark.parametrize("preset", ["fft-3", "fft-4", "fft-5"])
def test_beyond_the_minimax_the_best_cards_are_the_leads_that_keep_the_value(preset: str) -> None:
    rules = load_rules(preset)
    rng = random.Random(f"solver long {preset}")
    positions = [
        (tuple(frozenset(cards.parse_cards(h)) for h in hands), leader, frozenset(attack))
        for name, hands, leader, attack in KNOWN_LONG
        if name == preset
    ]
    while len(positions) < 8:
        hands, trick, leader, attack = random_position(rules, rng, rng.choice((5, 6, 7)))
        if not trick:
            positions.append((hands, leader, attack))
    for hands, leader, attack in positions:
        value, best = solve_position(rules, hands, (), leader, attack)
        values = value_after_each_card(rules, hands, leader, attack)
        choose = max if leader in attack else min
        assert value == choose(values.values())
        assert best == {card for card, v in values.items() if v == value}, hands


def test_minimax_tells_the_sides_apart() -> None:
    """A solver with the sides' aims swapped disagrees with the minimax on most positions."""
    rules = load_rules("fft-4")
    rng = random.Random("solver sides")
    differing = 0
    for _ in range(20):
        hands, trick, leader, attack = random_position(rules, rng, 3)
        swapped, _ = minimax(rules, hands, trick, leader, attack, choose=(min, max))
        differing += solve_position(rules, hands, trick, leader, attack)[0] != swapped
    assert differing >= 10


def test_attack_holding_every_top_trump_takes_everything() -> None:
    rules = load_rules("fft-4")
    hands = ["21 20 19", "1S 2S 3S", "KH QH CH", "4S 5S 6S"]
    solution = solve(rules, hands, leader=0, attack={0})
    every_card = sum(cards.HALF_POINTS[card] for hand in hands for card in cards.parse_cards(hand))
    assert solution.attack_points == every_card / 2 == 19.0
    assert solution.best_cards == ("21", "20", "19")


def test_defence_leading_a_suit_the_attack_trumps() -> None:
    # fft-3: the defence leads hearts; the attack, void, must trump and take the kings.
    rules = load_rules("fft-3")
    solution = solve(rules, ["KH 2H", "QH 1H", "5 6"], leader=0, attack={2})
    assert solution.attack_points == 10.0  # KH QH 5 and 2H 1H 6: every card


def test_excuse_before_the_last_trick_stays_with_its_side() -> None:
    # fft-4, the defence holds the top trumps; the attack keeps its Excuse (4.5) but owes half
    # a point for it, and takes nothing else.
    rules = load_rules("fft-4")
    solution = solve(rules, ["E 2", "20", "4", "6"], leader=1, attack={0}, trick=["21", "3", "5"])
    assert solution.attack_points == 4.0
    assert solution.best_cards == ("E",)


def test_excuse_at_the_last_trick_changes_sides() -> None:
    rules = load_rules("fft-4")
    solution = solve(rules, ["E", "21", "3", "KS"], leader=0, attack={0})
    assert solution.attack_points == 0.0
    # The defence plays it to the last trick and wins that trick: the attack takes it (FFT),
    # or it goes with the trick (the 2014 four-player rules).
    hands = ["1S", "E", "KS", "2S"]
    assert solve(rules, hands, leader=0, attack={0}).attack_points == 4.5
    with_the_trick = dataclasses.replace(rules, excuse_last_trick="trick_winner")
    assert solve(with_the_trick, hands, leader=0, attack={0}).attack_points == 0.0


def test_inside_a_trick_the_cards_played_count() -> None:
    # fft-4: seat 0 led the King of Hearts; seat 1 (attack) trumps it with the last card.
    rules = load_rules("fft-4")
    solution = solve(rules, ["", "2", "1H", "2H"], leader=0, attack={1}, trick=["KH"])
    assert solution.attack_points == 6.0
    assert solution.best_cards == ("2",)


def test_legal_plays_follow_the_engine() -> None:
    rules = load_rules("fft-4")
    hand = cards.parse_cards("KH 2H 5 E")
    queen_led = list(cards.parse_cards("QH"))
    assert sorted(legal_plays(rules, hand, queen_led)) == sorted(
        legal_cards(set(hand), queen_led, rules)
    )


@pytest.mark.parametrize(
    ("hands", "trick", "message"),
    [
        (["21 KH", "KH QH", "1 2", "3 4"], (), "both in seat 0 and in seat 1"),
        (["21 KH", "QH", "1 2", "3 4"], (), "seat 1 holds 1 cards, 2 expected"),
        (["21 KH", "QH 5", "1 2", "3 4"], ("KH",), "both in seat 0 and in the trick"),
        (["21 KH", "QH 5", "1 2", "3 ZZ"], (), "unknown card 'ZZ'"),
        (["21 KH", "QH 5", "1 2"], (), "needs 4 hands"),
        (["21", "QH 5", "1 2", "3 4"], ("XH",), "trick card 1: unknown card 'XH'"),
        # Seat 1 trumped a spade lead holding a spade; seat 1 discarded holding a trump;
        # seat 2 played under the 5 holding the 7.
        (["KS", "2S", "4S 5H", "6S 7H"], ("1S", "1"), "impossible: seat 1 played 1 to 1S"),
        (["KS", "2", "4S 5H", "6S 7H"], ("1S", "1H"), "seat 1 played 1H to 1S holding 2"),
        (["KS", "2S", "7", "6S 7H"], ("1H", "5", "3"), "seat 2 played 3 to 1H 5 holding 7"),
        (["KS", "2S", "4S 5H", "6S 7H"], ("1S", "1S"), "card '1S' is twice in the trick"),
        (["KS KS", "2S 3S", "4S 5H", "6S 7H"], (), "seat 0: card 'KS' appears twice"),
    ],
)
def test_bad_positions_are_refused(hands: list[str], trick: tuple[str, ...], message: str) -> None:
    with pytest.raises(TarotInputError, match=message):
        solve(load_rules("fft-4"), hands, leader=0, attack={0}, trick=trick)


@pytest.mark.parametrize(("leader", "attack"), [(4, {0}), (0, {7}), (0, set())])
def test_bad_seats_are_refused(leader: int, attack: set[int]) -> None:
    with pytest.raises(TarotInputError):
        solve(load_rules("fft-4"), ["21", "1", "2", "3"], leader=leader, attack=attack)


@pytest.mark.parametrize(
    ("attack", "message"),
    [
        ([0, 1, 2, 3], "the attack cannot hold every seat: of 4 seats, at least one defends"),
        ([3, 2, 1, 0], "cannot hold every seat"),
        ([0, 0], "the attack names seat 0 twice"),
        ([1, 2, 1], "the attack names seat 1 twice"),
        ([0, 4], "an attack seat must be between 0 and 3, got 4"),
        ([-1], "an attack seat must be between 0 and 3, got -1"),
    ],
)
def test_an_attack_without_a_defence_or_a_seat_twice_is_refused(
    attack: list[int], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from tarot_analysis.cli import main

    with pytest.raises(TarotInputError, match=message):
        solve(load_rules("fft-4"), ["21", "1", "2", "3"], leader=0, attack=attack)
    hands = ["21", "1", "2", "3"]
    assert main(["solve", *hands, "--attack", *map(str, attack)]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_tarocco_is_refused() -> None:
    rules = load_rules("tarocco")
    hands = [str(n) for n in range(1, rules.players + 1)]
    with pytest.raises(TarotInputError, match="French Tarot only"):
        solve(rules, hands, leader=0, attack={0})


def test_petit_au_bout_in_the_principal_variation() -> None:
    # fft-4: the 21 draws the defence's trumps, then the Petit takes the last trick.
    rules = load_rules("fft-4")
    solution = solve(rules, ["21 1", "2 KH", "3 QH", "4 CH"], leader=0, attack={0})
    assert solution.attack_points == 21.0
    assert solution.best_cards == ("21",)
    assert solution.petit_au_bout == 1
    without_petit = solve(rules, ["21 5", "2 KH", "3 QH", "4 CH"], leader=0, attack={0})
    assert without_petit.petit_au_bout == -1


def test_petit_au_bout_of_the_defence() -> None:
    # fft-4: the defence's Petit led at once falls to the attack's 2; the 21 draws it first.
    rules = load_rules("fft-4")
    solution = solve(rules, ["2 KH", "21 1", "QH 3H", "JH 4H"], leader=1, attack={0})
    assert solution.attack_points == 0.0
    assert solution.best_cards == ("21",)
    assert solution.petit_au_bout == 0


def test_the_solve_command_prints_the_value_and_the_best_cards(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from tarot_analysis.cli import main

    hands = ["21 KH", "1 QH", "2 1H", "3 2H"]
    assert main(["solve", *hands, "--leader", "0", "--attack", "0", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["attack_points"] == 19.0 and printed["best_cards"] == ["21", "KH"]
    assert main(["solve", *hands]) == 0
    assert "The attack takes 19 card points" in capsys.readouterr().out
    assert main(["solve", "21 KH", "1 QH", "2 1H", "3 2H 4H"]) == 2
    assert "2 expected" in capsys.readouterr().err


def test_the_solve_command_gives_the_value_alone_on_request(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from tarot_analysis.cli import main

    hands = ["21 KH", "1 QH", "2 1H", "3 2H"]
    assert main(["solve", *hands, "--value-only", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["attack_points"] == 19.0 and printed["best_cards"] == []
    assert main(["solve", *hands, "--value-only"]) == 0
    out = capsys.readouterr().out
    assert "The attack takes 19 card points" in out and "Best cards" not in out


def test_a_table_too_small_for_the_search_changes_no_value(monkeypatch: pytest.MonkeyPatch) -> None:
    """With two buckets in the table, entries are replaced all the time: values stay exact."""
    monkeypatch.setattr(solving, "TABLE_BITS_MIN", 3)
    monkeypatch.setattr(solving, "TABLE_BITS_MAX", 3)
    for preset in FRENCH_PRESETS:
        rules = load_rules(preset)
        assert_solved_as_minimax(rules, random.Random(f"small table {preset}"), 20, 3)


def double_dummy_card(
    rules: Rules,
    hands: Hands,
    trick: tuple[int, ...],
    leader: int,
    attack: frozenset[int],
    petit_bonus: int,
    dd: solver_module.DoubleDummy,
) -> int:
    """The card :func:`tarot_analysis.solver.best_card` chooses, from compiled arrays (the
    bonus tells the table's contexts apart)."""
    for seat, hand in enumerate(hands):
        lo, hi = cards.to_mask(hand)
        dd.hands_lo[seat] = lo
        dd.hands_hi[seat] = hi
    dd.path[: len(trick)] = trick
    tables = engine_rules(rules)
    attack_mask = sum(1 << seat for seat in attack)
    return int(
        solver_module.best_card(
            dd, rules.players, len(trick), leader, attack_mask, petit_bonus,
            tables.half_points, tables.params, petit_bonus,
        )
    )  # fmt: skip


@pytest.mark.parametrize("preset", FRENCH_PRESETS)
def test_the_best_card_of_compiled_code_is_a_best_card_of_the_minimax(preset: str) -> None:
    """With the Petit au bout worth 20 half points, as the search bot weighs it, and without."""
    rules = load_rules(preset)
    rng = random.Random(f"best card {preset}")
    dd = solver_module.double_dummy(rules.players, 10)
    petit_deciding = 0
    for k in range(60):
        bonus = 20 if k % 3 else 0
        hands, trick, leader, attack = random_position(rules, rng, rng.choice((2, 3)))
        seat = (leader + len(trick)) % rules.players
        if not hands[seat]:
            continue
        expected, values = minimax(rules, hands, trick, leader, attack, petit_bonus=bonus)
        card = double_dummy_card(rules, hands, trick, leader, attack, bonus, dd)
        assert values.get(card) == expected, f"{preset}: {card} of {values}, best {expected}"
        if bonus:
            plain, _ = minimax(rules, hands, trick, leader, attack)
            petit_deciding += plain != expected
    assert petit_deciding >= 3  # the bonus changed the value of some positions


def test_a_search_over_its_node_budget_stops_and_says_so() -> None:
    rules = load_rules("fft-4")
    rng = random.Random("budget")
    hands, trick, leader, attack = random_position(rules, rng, 4)
    text = [cards.format_cards(hand) for hand in hands]
    played = [cards.card_name(card) for card in trick]
    with pytest.raises(solver_module.SearchStopped, match="after 5 positions"):
        solve(rules, text, leader=leader, attack=attack, trick=played, max_nodes=5)
    expected, _ = minimax(rules, hands, trick, leader, attack)
    solution = solve(rules, text, leader=leader, attack=attack, trick=played, max_nodes=10**7)
    assert round(2 * solution.attack_points) == expected
    with pytest.raises(TarotInputError, match="max_nodes must be at least 1"):
        solve(rules, text, leader=leader, attack=attack, trick=played, max_nodes=0)


def test_cards_worth_nothing_keep_the_bounds_true() -> None:
    """With the low cards worth 0 (a rules file may say so), the sure points of the master
    trumps' tricks come from their cards alone: values still agree with the minimax."""
    base = load_rules("fft-4")
    rules = dataclasses.replace(base, card_points=dataclasses.replace(base.card_points, other=0.0))
    rng = random.Random("cards worth nothing")
    for _ in range(80):
        hands, trick, leader, attack = random_position(rules, rng, 3)
        expected, _ = minimax(rules, hands, trick, leader, attack)
        assert solve_position(rules, hands, trick, leader, attack)[0] == expected


def test_a_trick_its_seats_could_play_is_accepted() -> None:
    # Seat 1 holds no spade: it trumps; seat 2 holds neither spade nor trump: it discards.
    rules = load_rules("fft-4")
    solution = solve(rules, ["KS", "2H", "4H 5H", "6S 7H"], leader=0, attack={0}, trick=["1S", "1"])
    assert set(solution.best_cards) == {"4H", "5H"}


@pytest.mark.parametrize("preset", FRENCH_PRESETS)
def test_a_search_paused_after_every_position_finds_the_same_values(
    preset: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The search returns to Python every SLICE_NODES positions and resumes where it was: with
    one position a slice, every value and best card is still the minimax's."""
    monkeypatch.setattr(solving, "SLICE_NODES", 1)
    rules = load_rules(preset)
    assert_solved_as_minimax(rules, random.Random(f"paused {preset}"), 25, 3)


@pytest.mark.parametrize("preset", FRENCH_PRESETS)
def test_a_stopped_search_gives_an_interval_that_holds_the_value(preset: str) -> None:
    """Stopped at any node budget, the interval proved holds the exact value, and narrows as
    the budget grows; once the value is exact, only the best cards are left."""
    rules = load_rules(preset)
    rng = random.Random(f"interval {preset}")
    narrowed = 0
    for _ in range(6):
        hands, trick, leader, attack = random_position(rules, rng, 4)
        expected, _ = minimax(rules, hands, trick, leader, attack)
        text = [cards.format_cards(hand) for hand in hands]
        played = [cards.card_name(card) for card in trick]
        width = float("inf")
        for budget in (1, 2, 4, 8, 16, 32, 64, 128, 256, 512):
            try:
                solve(rules, text, leader=leader, attack=attack, trick=played, max_nodes=budget)
            except solver_module.SearchStopped as stop:
                assert stop.low * 2 <= expected <= stop.high * 2, (budget, stop)
                assert stop.nodes <= budget
                assert stop.high - stop.low <= width
                narrowed += stop.high - stop.low < width < float("inf")
                width = stop.high - stop.low
                assert f"after {budget:,} positions" in str(stop)
            else:
                break
    assert narrowed > 0


def test_a_time_limit_stops_the_search_with_its_interval(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whole hands of fft-4 and a time limit already past at the first pause: the search
    stops there and says that the value lies between nothing and every card in the hands."""
    monkeypatch.setattr(solving, "SLICE_NODES", 1)
    rules = load_rules("fft-4")
    whole = _whole_hands(rules)
    in_hands = engine_rules(rules).half_points[sorted(set().union(*whole))].sum() / 2
    hands = [cards.format_cards(hand) for hand in whole]
    with pytest.raises(solver_module.SearchStopped, match="time limit of 1e-09 s") as stop:
        solve(rules, hands, leader=0, attack={0}, time_limit=1e-9)
    assert (stop.value.low, stop.value.high) == (0.0, in_hands)
    assert f"between 0 and {in_hands:g} card points" in str(stop.value)


def test_progress_is_told_between_slices_and_ctrl_c_keeps_the_interval(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The progress callback sees the interval narrow; a Ctrl-C (KeyboardInterrupt) raised
    while the search runs ends it with SearchInterrupted and the interval proved."""
    monkeypatch.setattr(solving, "SLICE_NODES", 1000)
    rules = load_rules("fft-4")
    hands = [cards.format_cards(hand) for hand in _whole_hands(rules)]
    seen: list[solver_module.SolveProgress] = []

    def progress(where: solver_module.SolveProgress) -> None:
        seen.append(where)
        if where.high - where.low < seen[0].high:  # once the interval narrowed: Ctrl-C
            raise KeyboardInterrupt

    with pytest.raises(solver_module.SearchInterrupted) as stop:
        solve(rules, hands, leader=0, attack={0}, progress=progress)
    assert isinstance(stop.value, KeyboardInterrupt)
    assert (stop.value.low, stop.value.high) == (seen[-1].low, seen[-1].high)
    assert 0 <= stop.value.low < stop.value.high <= seen[0].high
    assert [where.nodes for where in seen] == sorted(where.nodes for where in seen)
    assert "interrupted after" in str(stop.value) and "card points" in str(stop.value)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"max_nodes": 0}, "max_nodes must be at least 1"),
        ({"max_nodes": 2.5}, "max_nodes must be a whole number"),
        ({"time_limit": 0}, "time_limit must be a positive number"),
        ({"time_limit": "5"}, "time_limit must be a number of seconds"),
    ],
)
def test_bad_budgets_are_refused(options: dict[str, object], message: str) -> None:
    with pytest.raises(TarotInputError, match=message):
        solve(load_rules("fft-4"), ["21", "1", "2", "3"], leader=0, attack={0}, **options)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda rules: legal_plays(rules, [3], [99]), "trick card 1: there is no card id 99"),
        (lambda rules: legal_plays(rules, [3], [1, 2, 4, 5]), "at most 3 cards"),
        (lambda rules: legal_plays(rules, [99], [1]), "no card id 99"),
        (lambda rules: solver_module.trick_winner([3, -1]), "trick card 2: there is no card id"),
        (lambda rules: solver_module.trick_winner([3, 3]), "different cards"),
    ],
)
def test_bad_cards_for_the_rules_of_play_are_refused(
    call: Callable[[Rules], object], message: str
) -> None:
    with pytest.raises(TarotInputError, match=message):
        call(load_rules("fft-4"))


def test_the_solve_command_stops_at_its_budget_with_the_interval(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from tarot_analysis.cli import main

    hands = [cards.format_cards(hand) for hand in _whole_hands(load_rules("fft-4"))]
    assert main(["solve", *hands, "--max-nodes", "1000", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["exact"] is False and printed["nodes"] <= 1000
    assert 0 <= printed["attack_points_low"] <= printed["attack_points_high"] <= 91
    assert main(["solve", *hands, "--max-nodes", "1000", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "The search stopped after 1,000 positions: the attack takes between" in out
    assert main(["solve", *hands, "--time-limit", "0"]) == 2
    assert "--time-limit: expected a positive number of seconds" in capsys.readouterr().err


@pytest.mark.slow
def test_ctrl_c_stops_the_solve_command_with_the_interval_proved() -> None:
    """The whole hands of fft-4 take minutes to solve: SIGINT once the progress line shows
    ends the command at once, exit 130, one line with the interval proved so far."""
    hands = [cards.format_cards(hand) for hand in _whole_hands(load_rules("fft-4"))]
    # The progress line, drawn after a second.
    status, last, out = interrupt_when(["solve", *hands], lambda shown: b"attack's points" in shown)
    assert status == 130
    assert last.startswith("tarot-analysis: interrupted after ")
    assert "the attack takes between" in last and last.endswith("card points")
    assert out == b""


def _whole_hands(rules: Rules) -> list[frozenset[int]]:
    """The four hands of the first deal of seed 1, dog left out: a solve of minutes."""
    from tarot_analysis.deals.deal import deal

    masks = deal(rules, 1, 1, threads=1).masks[0]
    return [frozenset(cards.from_mask(int(lo), int(hi))) for lo, hi in masks[: rules.players]]


def _masks(hands: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Each hand's two mask words, as the search holds them."""
    words = [cards.to_mask(cards.parse_cards(hand)) for hand in hands]
    lo = np.array([word[0] for word in words], dtype=np.uint64)
    hi = np.array([word[1] for word in words], dtype=np.uint64)
    return lo, hi


def test_a_leader_that_draws_every_other_trump_is_sure_of_each_of_its_trumps() -> None:
    """Three trumps above the only other trump: the leader draws it and wins a trick with
    each of its trumps (their 5.5 points and at least half a point from each other seat);
    against three trumps and the Excuse it cannot draw them, and is sure of nothing so."""
    half_points = engine_rules(load_rules("fft-4")).half_points
    lo, hi = _masks(["21 20 5 KH", "3 2H 3H 4H", "5H 6H 7H 8H", "1C 2C 3C 4C"])
    _, _, trumps_sure = bounds._quick_half_points(lo, hi, 4, 0, 1, half_points, 1)
    assert trumps_sure == 9 + 1 + 1 + 3 * 3 * 1
    lo, hi = _masks(["21 20 5 KH", "3 4 6 E", "5H 6H 7H 8H", "1C 2C 3C 4C"])
    assert bounds._quick_half_points(lo, hi, 4, 0, 1, half_points, 1)[2] == 0


def test_a_side_alone_holding_trumps_is_sure_of_the_tricks_they_fall_in() -> None:
    """The defence holds no trump: each of the attack's two trumps wins the trick it falls
    in, bringing at least half a point from each defence card in it."""
    half_points = engine_rules(load_rules("fft-4")).half_points
    _, hi = _masks(["2 3 KH", "2H 3H 4H", "5H 6H 7H", "1C 2C 3C"])
    assert bounds._sure_half_points(hi, 4, 1, half_points, 1) == (1 + 1 + 2 * 3 * 1, 0)


def test_the_excuse_is_kept_by_its_side_before_the_last_trick() -> None:
    """Two tricks left or more, the Excuse's side is sure of its 4.5 points less the half
    point it may owe; with one trick left, of nothing (the Excuse may change sides)."""
    half_points = engine_rules(load_rules("fft-4")).half_points
    _, hi = _masks(["E KH", "2H 3H", "4H 5H", "6H 7H"])
    assert bounds._excuse_kept(hi, 4, 1, half_points, 8) == 8
    assert bounds._excuse_kept(hi, 4, 2, half_points, 8) == -8
    _, hi = _masks(["E", "2H", "4H", "6H"])
    assert bounds._excuse_kept(hi, 4, 1, half_points, 4) == 0


def test_inside_a_trick_the_side_sure_to_win_it_is_sure_of_its_cards() -> None:
    """The attack led the King of hearts, the 2 of hearts followed; the two seats still to
    play must follow with lower hearts: the attack is sure of the trick's 5 points. When the
    last seat may trump instead, it is sure of nothing, and the defence holding the only
    trump, the Petit, is sure of it and half a point from the attack's card in its trick."""
    half_points = engine_rules(load_rules("fft-4")).half_points
    path = np.array(cards.parse_cards("KH 2H"), dtype=np.int64)
    lo, hi = _masks(["QS 3S", "4S 5S", "3H 6S", "4H 7S"])
    rest = sum(
        int(half_points[c])
        for h in ["QS 3S", "4S 5S", "3H 6S", "4H 7S"]
        for c in cards.parse_cards(h)
    )
    low, high = bounds._inside_window(lo, hi, path, 0, 2, 0, 4, 1, half_points, 1, 0, rest, 0)
    assert (low, high) == (9 + 1, rest + 9 + 1)
    lo, hi = _masks(["QS 3S", "4S 5S", "3H 6S", "1 7S"])
    rest = sum(
        int(half_points[c])
        for h in ["QS 3S", "4S 5S", "3H 6S", "1 7S"]
        for c in cards.parse_cards(h)
    )
    low, high = bounds._inside_window(lo, hi, path, 0, 2, 0, 4, 1, half_points, 1, 0, rest, 0)
    assert (low, high) == (0, rest + 9 + 1 - (9 + 1))
