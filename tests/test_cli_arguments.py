"""The options the commands share: a list of bots ends where the bots' names end."""

from __future__ import annotations

import argparse

import pytest

from tarot_analysis.cli.arguments import bot_name
from tarot_analysis.cli.program import build_parser

HAND = "21 19 12 6 1 E KH CH 10H 8H 1H JD 8D QC CC 7C 6S 4S"


def bots_options() -> list[tuple[str, argparse.Action]]:
    """Every option of every command that takes a list of bots: (command, option)."""
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return [
        (name, action)
        for name, command in commands.choices.items()
        for action in command._actions
        if action.metavar == "BOT"
    ]


def test_every_list_of_bots_checks_its_names_and_says_what_it_is_for() -> None:
    found = bots_options()
    named = {command for command, _ in found}
    assert {"hand", "guidance", "replay", "compare", "play", "report", "review"} <= named
    for command, action in found:
        assert action.type is bot_name, (command, action.option_strings)
        assert action.help, (command, action.option_strings)


@pytest.mark.parametrize(
    ("argv", "read"),
    [
        (["hand", "--bots", "heuristic", HAND], {"cards": HAND, "bots": ["heuristic"]}),
        (
            ["hand", "--bots", "heuristic", "random", "pimc:8", "learned", HAND, "--seat", "1"],
            {"cards": HAND, "bots": ["heuristic", "random", "pimc:8", "learned"], "seat": 1},
        ),
        (["hand", "--bot", "heuristic:-4", HAND], {"cards": HAND, "bots": ["heuristic:-4"]}),
        (["hand", HAND, "--bots", "random"], {"cards": HAND, "bots": ["random"]}),
        (
            ["compare", "--bots", "random", "fft-4", "legacy-4"],
            {"variants": ["fft-4", "legacy-4"], "bots": ["random"]},
        ),
        (
            ["compare", "--compare-bots", "heuristic", "pimc", "fft-4"],
            {"variants": ["fft-4"], "compare_bots": ["heuristic", "pimc"]},
        ),
        (["review", "--bots", "random", "game.toml"], {"game": "game.toml", "bots": ["random"]}),
        (["replay", "--bots", "random", "heuristic"], {"bots": ["random", "heuristic"]}),
    ],
)
def test_a_list_of_bots_leaves_the_words_after_it_to_the_command(
    argv: list[str], read: dict[str, object]
) -> None:
    args = build_parser().parse_args(argv)
    assert {key: getattr(args, key) for key in read} == read


def test_a_bad_bot_name_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        build_parser().parse_args(["hand", "--bots", "heuristik", HAND])
    err = capsys.readouterr().err
    assert stopped.value.code == 2
    assert len(err.strip().splitlines()) == 1 and "unknown bot 'heuristik'" in err
