"""The double-dummy table of a deal: its positions rebuilt from the heuristic's own play, its
values against the solver given the same position by hand, its input checked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tarot_analysis.analyses.double_dummy import dd_table, deal_hands, play_taking
from tarot_analysis.cli import main
from tarot_analysis.errors import TarotInputError
from tarot_analysis.game import cards
from tarot_analysis.game.rules import Rules, load_rules
from tarot_analysis.solver import solve
from tarot_analysis.table.play import replay

FRENCH = ("fft-3", "fft-4", "fft-5")


def _by_hand(rules: Rules, hands: list[str], taker: int, tricks: int) -> tuple[list, int, set, int]:
    """The hands, the leader, the attack and the bouts it holds after ``tricks`` tricks of
    the heuristic's play, worked out from its record alone: the cards dealt (the taker's with
    the dog, less the écart) less every card played; the bouts in the attack's hands and in
    the tricks it won (the Excuse stays with the side that played it)."""
    result = play_taking(rules, hands, taker, 1)
    assert result.tricks is not None and result.leaders is not None
    assert result.ecarts is not None
    held = [set(cards.parse_cards(hand)) for hand in hands[: rules.players]]
    held[taker] |= set(cards.parse_cards(hands[-1]))
    held[taker] -= set(cards.from_mask(int(result.ecarts[0, 0]), int(result.ecarts[0, 1])))
    partner = int(result.scores()["partner_1"].iloc[0])
    attack = {taker} | ({partner} if partner >= 0 else set())
    won = 0
    for t in range(tricks):
        winner = int(result.leaders[0, t + 1])
        for k, card in enumerate(result.tricks[0, t]):
            seat = (int(result.leaders[0, t]) + k) % rules.players
            held[seat].discard(int(card))
            side = seat if card == cards.EXCUSE else winner
            won += bool(cards.IS_BOUT[card]) and side in attack
    bouts = won + sum(int(cards.IS_BOUT[c]) for seat in attack for c in held[seat])
    return [sorted(hand) for hand in held], int(result.leaders[0, tricks]), attack, bouts


@pytest.mark.parametrize("name", FRENCH)
def test_the_table_equals_the_solver_on_the_same_endgame(name: str) -> None:
    rules = load_rules(name)
    tricks = rules.hand_size - 4
    for deal in range(3):
        hands = deal_hands(rules, 5, deal)
        for row in dd_table(rules, hands, after_tricks=tricks):
            if row.outcome == "redealt":
                continue
            left, leader, attack, bouts = _by_hand(rules, hands, row.taker, tricks)
            direct = solve(rules, left, leader=leader, attack=attack)
            assert row.exact
            assert row.points_low - row.points_before == direct.attack_points
            assert row.petit_au_bout == direct.petit_au_bout
            assert (row.partner >= 0) == (len(attack) == 2)
            assert row.bouts == bouts
            assert row.required == rules.bouts_required[bouts]


@pytest.mark.parametrize("name", FRENCH)
def test_at_the_last_trick_double_dummy_is_the_heuristics_own_count(name: str) -> None:
    """With one card left in each hand nothing is chosen: the table's points (the engine's
    count of the tricks before, the solver's of the last) are the heuristic's."""
    rules = load_rules(name)
    seen = 0
    for deal in range(4):
        for row in dd_table(rules, seed=3, deal=deal, after_tricks=rules.hand_size - 1):
            if row.outcome == "redealt":
                continue
            seen += 1
            assert row.points_low == row.points_high == row.heuristic_points
            assert row.outcome == ("made" if row.points_low >= row.required else "lost")
    assert seen >= 8


def test_a_deal_number_is_the_deal_play_and_replay_number() -> None:
    rules = load_rules("fft-4")
    played = replay(rules, 70, bots="heuristic", seed=9, chunk_size=32)
    dealt = deal_hands(rules, 9, 70, chunk_size=32)
    as_masks = [cards.to_mask(cards.parse_cards(hand)) for hand in dealt]
    assert [tuple(int(w) for w in row) for row in played.masks[0]] == as_masks


def test_a_stopped_solve_gives_an_interval_holding_the_value() -> None:
    rules = load_rules("fft-4")
    exact = dd_table(rules, seed=2, deal=1, takers=[0], after_tricks=9)[0]
    stopped = dd_table(rules, seed=2, deal=1, takers=[0], after_tricks=9, max_nodes=50)[0]
    assert exact.exact and not stopped.exact
    assert stopped.points_low <= exact.points_low <= stopped.points_high
    assert stopped.petit_au_bout is None
    if stopped.outcome != "undecided":
        assert stopped.outcome == exact.outcome
    else:
        assert stopped.points_low < stopped.required <= stopped.points_high


def test_five_players_the_called_kings_holder_is_partner() -> None:
    rules = load_rules("fft-5")
    hands = deal_hands(rules, 4, 2)
    for row in dd_table(rules, hands, after_tricks=rules.hand_size - 2):
        assert row.called.startswith("K")
        holder = [s for s, hand in enumerate(hands[:5]) if row.called in hand.split()]
        assert row.partner == (holder[0] if holder and holder[0] != row.taker else -1)


def test_a_given_ecart_is_the_takers() -> None:
    rules = load_rules("fft-4")
    hands = deal_hands(rules, 1, 0)
    held = cards.parse_cards(hands[0]) + cards.parse_cards(hands[-1])
    low_cards = [c for c in held if cards.IS_SUIT_CARD[c] and not cards.IS_KING[c]][:6]
    ecart = cards.format_cards(low_cards)
    row = dd_table(rules, hands, takers=[0], ecart=ecart, after_tricks=15)[0]
    assert set(cards.parse_cards(row.ecart)) == set(low_cards)


BAD_INPUT = [
    ({"hands": ["KS KS"] + [""] * 4}, "KS"),
    ({"deal": -1}, "out of range"),
    ({"deal": 0, "takers": [4]}, "taker"),
    ({"deal": 0, "after_tricks": 18}, "after_tricks"),
    ({"deal": 0, "contract": "petite"}, "no contract"),
    ({"deal": 0, "ecart": "1S 2S 3S 4S 5S 6S"}, "single taker"),
    ({}, "either"),
    ({"deal": 0, "takers": [0], "ecart": "KS 1S 2S 3S 4S 5S"}, "écart 'KS 1S 2S 3S 4S 5S' for"),
    ({"deal": 0, "takers": [0], "ecart": "ZZ"}, "the écart: unknown card"),
    ({"deal": 0, "chunk_size": 0}, "the chunk size must be at least 1, got 0"),
    ({"deal": 5, "chunk_size": -1}, "the chunk size must be at least 1, got -1"),
    ({"deal": 0, "chunk_size": 2.5}, "the chunk size must be a whole number, got 2.5"),
]


@pytest.mark.parametrize(("options", "said"), BAD_INPUT)
def test_bad_input_is_refused(options: dict, said: str) -> None:
    with pytest.raises(TarotInputError, match=said):
        dd_table(load_rules("fft-4"), **options)


def _cli_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(["dd", *argv]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    return err


def test_bad_hands_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    rules = load_rules("fft-4")
    hands = deal_hands(rules, 1, 0)
    twice = [hands[0], hands[1].replace(hands[1].split()[0], hands[0].split()[0]), *hands[2:]]
    assert "both in seat 0 and in seat 1" in _cli_error(capsys, *twice)
    short = [hands[0], " ".join(hands[1].split()[1:]), *hands[2:]]
    assert "seat 1 holds 17 cards, 18 expected" in _cli_error(capsys, *short)
    assert "seat 2" in _cli_error(capsys, hands[0], hands[1], "ZZ " + hands[2], *hands[3:])
    assert "taker" in _cli_error(capsys, "--deal", "0", "--taker", "7")
    assert "out of range" in _cli_error(capsys, "--deal", str(2**63))


def test_the_command_line_table_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["dd", "--rules", "fft-3", "--deal", "2", "--after-tricks", "21", "--json"]
    assert main(argv) == 0
    shown = json.loads(capsys.readouterr().out)
    rows = dd_table(load_rules("fft-3"), seed=1, deal=2, after_tricks=21)
    assert [row["points_low"] for row in shown["takers"]] == [
        r.to_json()["points_low"] for r in rows
    ]
    assert [row["partner"] for row in shown["takers"]] == [-1, -1, -1]
    assert main(argv[:-1]) == 0
    assert "double dummy after 21 tricks" in capsys.readouterr().out


def test_the_readmes_table_is_the_commands_output(capsys: pytest.CaptureFixture[str]) -> None:
    """The pasted example, but for the seconds each seat took."""
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    block = readme.split("$ tarot-analysis dd ")[1].split("```")[0]
    argv, *pasted = [line.strip() for line in block.strip().splitlines()]
    assert main(["dd", *argv.split()]) == 0
    printed = [line.strip() for line in capsys.readouterr().out.strip().splitlines()]

    def without_seconds(lines: list[str]) -> list[str]:
        return [line.rsplit(None, 1)[0] if line[:5].strip().isdigit() else line for line in lines]

    assert without_seconds(printed) == without_seconds(pasted)


def test_each_takers_solve_tells_where_it_stands_as_it_goes() -> None:
    rules = load_rules("fft-4")
    told: list[tuple[int, float, float, int]] = []
    rows = dd_table(
        rules, seed=1, deal=0, takers=[0, 2], max_nodes=600_000,
        progress=lambda taker, where: told.append((taker, where.low, where.high, where.nodes)),
    )  # fmt: skip
    assert {taker for taker, *_ in told} == {0, 2}  # each solve, in turn
    assert [taker for taker, *_ in told] == sorted(taker for taker, *_ in told)
    for taker, low, high, _ in told:
        row = rows[[0, 2].index(taker)]
        assert row.points_low - row.points_before <= high and low <= high


def test_dd_of_a_whole_deal_says_what_it_does_and_shows_its_solve(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from types import SimpleNamespace

    from tarot_analysis.analyses import double_dummy
    from tarot_analysis.cli import commands
    from tarot_analysis.runs import progress as progress_module
    from tarot_analysis.solver import SolveProgress

    seconds = iter(range(0, 1_000, 2))  # a solve whose slices take two seconds each
    monkeypatch.setattr(commands, "time", SimpleNamespace(perf_counter=lambda: next(seconds)))
    monkeypatch.setattr(progress_module, "_now", lambda: float(next(seconds)))

    def slow_table(rules: Rules, *args: object, progress: object = None, **kwargs: object) -> list:
        assert callable(progress)
        for nodes in (200_000, 400_000):
            progress(0, SolveProgress(10.0, 60.0, nodes))
        return []

    monkeypatch.setattr(double_dummy, "dd_table", slow_table)
    assert main(["dd", "--seed", "1", "--deal", "0", "--taker", "0"]) == 0
    err = capsys.readouterr().err
    assert "solving the whole deal" in err and "minutes or more" in err
    assert "--after-tricks" in err
    assert "solving · fft-4, seat 0 takes a garde: done in" in err
