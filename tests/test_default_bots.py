"""The answers are the learned bot's where a model ships for the preset, the heuristic's
elsewhere, said so; and the measured strength of the bots, one table that docs/bots.md states."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from tarot_analysis.bots.default import (
    DEFAULT_BOT,
    FALLBACK_BOT,
    default_bot,
    default_note,
    has_shipped_model,
    playable_bot,
    seated_bots,
)
from tarot_analysis.bots.learned import SHIPPED
from tarot_analysis.bots.measured import MEASURED, edge, share_of_search
from tarot_analysis.cli.program import build_parser
from tarot_analysis.game.rules import load_rules
from tarot_analysis.report.html import Context
from tarot_analysis.report.summary import bot_strength

ROOT = Path(__file__).resolve().parents[1]
#: The commands that give answers, each of which seats the default bots of its preset.
ANSWERS = ("report", "guidance", "compare", "play", "hand")


@pytest.mark.parametrize("name", ["fft-3", "fft-4", "fft-5"])
def test_the_default_is_the_learned_bot_where_a_model_ships(name: str) -> None:
    rules = load_rules(name)
    assert (SHIPPED / f"{name}.npz").is_file() and has_shipped_model(rules)
    assert default_bot(rules) == DEFAULT_BOT == "learned"
    assert seated_bots(None, rules) == (["learned"], "")


@pytest.mark.parametrize("name", ["legacy-4", "legacy-6", "six-king-queen", "tarocco"])
def test_the_default_falls_back_to_the_heuristic_where_none_ships_and_says_why(name: str) -> None:
    rules = load_rules(name)
    assert not has_shipped_model(rules)
    assert default_bot(rules) == FALLBACK_BOT == "heuristic"
    bots, note = seated_bots(None, rules)
    assert bots == ["heuristic"] and note == f"the default where no learned model ships: {name}"


def test_presets_compared_share_one_default_and_named_bots_stay_as_named() -> None:
    fft4, legacy4 = load_rules("fft-4"), load_rules("legacy-4")
    assert default_bot(fft4, load_rules("fft-5")) == "learned"
    assert default_bot(fft4, legacy4) == "heuristic"  # the rules alone differ
    said = "the default where no learned model ships: legacy-4"
    assert default_note(fft4, legacy4, legacy4) == said
    assert playable_bot("learned", legacy4) == "heuristic"
    assert playable_bot("learned", fft4) == "learned"
    assert playable_bot("pimc", legacy4) == "pimc"  # only the shipped learned bot falls back
    # Named bots are seated as named, with nothing to say: a learned bot named for a preset
    # without a model fails where it is seated, in one line.
    assert seated_bots("learned", legacy4) == (["learned"], "")
    assert seated_bots(["random", "heuristic"], fft4) == (["random", "heuristic"], "")


def test_the_report_seats_the_default_bots_of_its_preset() -> None:
    from tarot_analysis.report.build import _seat_bots

    assert _seat_bots(None, load_rules("fft-4")) == (("learned",) * 4, "")
    names, note = _seat_bots(None, load_rules("legacy-5"))
    assert names == ("heuristic",) * 5 and "legacy-5" in note
    assert _seat_bots("heuristic", load_rules("fft-4")) == (("heuristic",) * 4, "")


@pytest.mark.parametrize("command", ANSWERS)
def test_every_command_that_answers_names_its_default_and_the_heuristic_in_its_help(
    command: str,
) -> None:
    parser = build_parser(command)
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    sub = commands.choices[command]
    bots = next(action for action in sub._actions if "--bots" in action.option_strings)
    assert bots.default is None  # seated by the preset once its rules are read
    said = " ".join(str(bots.help).split())
    assert "default learned" in said and "heuristic for a preset with none" in said
    assert "--bots heuristic" in said


def test_every_measure_is_the_one_docs_bots_states() -> None:
    doc = (ROOT / "docs/bots.md").read_text(encoding="utf-8")
    flat = " ".join(doc.replace("\\\n", " ").split())  # a command's lines as one
    for row in MEASURED:
        assert row.low < row.mean < row.high and row.deals > 0, row
        assert f"## {row.where}" in doc or f"### {row.where}" in doc, row.where
        assert " ".join(row.command.split()) in flat, row.command
        if row.a == "learned":  # the table of the learned bot's goals
            said = f"{row.mean:+.2f} ({row.low:+.2f} to {row.high:+.2f})"
        else:  # the ladder's table
            said = (
                f"| {row.rules} | `{row.a}` | `{row.b}` | {row.mean:+.1f} | {row.low:+.1f} to "
                f"{row.high:+.1f} | {row.deals:,} |"
            )
        assert said in doc.replace("−", "-"), (row, said)
    # The shares of the search bot's lead that docs/bots.md gives for each preset.
    for rules, share in (("fft-3", "0.53"), ("fft-4", "0.36"), ("fft-5", "0.41")):
        assert f"{share_of_search(rules, 'learned'):.2f}" == share
        assert f"{share} ×" in doc
    assert edge("legacy-4", "learned") is None and share_of_search("legacy-4", "learned") is None


def _context(rules: str, bot: str, note: str = "") -> Context:
    loaded = load_rules(rules)
    return Context(loaded, rules, (bot,) * loaded.players, 1, 1_000, 1_000, note)


def test_page_one_names_the_bot_its_edge_and_its_distance_to_the_search_bot() -> None:
    said = bot_strength(_context("fft-4", "learned"))
    assert said.text == (
        "Measured in duplicate for fft-4 (docs/bots.md), learned gains +5.2 points a deal (95% "
        "interval +4.7 to +5.8, 20,000 deals) on the heuristic, 0.36 of the search bot pimc's "
        "lead (+14.6, +12.0 to +17.1, 1,000 deals): 9.4 points a deal short of it; against pimc "
        "itself -4.2 (-6.5 to -1.9, 1,000 deals)."
    )
    assert said.command == edge("fft-4", "learned").command  # type: ignore[union-attr]
    assert said.where == "How far from each goal; The ladder, in duplicate"
    three = bot_strength(_context("fft-3", "learned")).text
    assert "learned gains +31.6 points a deal" in three and "0.53 of the search bot" in three
    five = bot_strength(_context("fft-5", "learned")).text
    assert "learned gains +10.5 points a deal (95% interval +9.3 to +11.6, 20,000" in five
    assert "0.41 of the search bot pimc's lead" in five and "against pimc" not in five


def test_page_one_says_when_the_heuristic_played_and_when_nothing_measures_the_bots() -> None:
    heuristic = bot_strength(_context("fft-4", "heuristic"))
    assert heuristic.text.startswith(
        "Measured in duplicate for fft-4 (docs/bots.md), the learned bot, the default, gains "
        "+5.2 points a deal (95% interval +4.7 to +5.8, 20,000 deals) on the heuristic"
    )
    assert heuristic.command.startswith("benchmarks/duplicate.py --rules fft-4")
    note = "the default where no learned model ships: legacy-4"
    fallback = bot_strength(_context("legacy-4", "heuristic", note))
    assert fallback.text.startswith(f"The heuristic plays here as {note}; nothing measures")
    assert fallback.command == "" and "for legacy-4" in fallback.text
    for bot in ("random", "learned:mine.npz", "heuristic:-2"):
        unknown = bot_strength(_context("fft-4", bot))
        assert unknown.text.startswith("Nothing measures these bots") and not unknown.command
    pimc = bot_strength(_context("fft-4", "pimc"))
    assert "pimc gains +14.6 points a deal (95% interval +12.0 to +17.1, 1,000" in pimc.text
    assert pimc.command.startswith("benchmarks/ladder.py")


def test_a_comparison_and_a_hand_say_when_the_heuristic_plays_by_default(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from tarot_analysis.cli import main

    note = "(the default where no learned model ships: legacy-4)"
    assert main(["compare", "fft-4", "legacy-4", "--deals", "300", "--no-progress"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert f"bots: heuristic at every seat {note};" in first
    hand = "21 19 12 6 1 E KH CH 10H 8H 1H JD 8D QC CC 7C 6S 4S"
    assert main(["hand", hand, "--rules", "legacy-4", "--deals", "200"]) == 0
    assert f"bots: heuristic at every seat {note}," in capsys.readouterr().out.splitlines()[0]
