"""The README's examples with their output, run as they are written.

An example is a ``text`` or ``console`` block of the README whose lines starting with
``$ tarot-analysis`` are commands, each followed by the output the README shows for it (an
excerpt: lines may be left out, and a line may be the end of a longer one). Each command runs
in a fresh folder, and every line it is shown with must come out of it, in the same order,
spaces aside; a table's ``seconds`` column is left out, as it moves with the machine's load.

Every example runs unless the line before its block says why it cannot, as
``<!-- not run by tests/test_readme_examples.py: REASON -->`` (a run of minutes, say).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import NamedTuple

import pytest

from tarot_analysis.cli import main

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCK = re.compile(r"^(?P<indent> *)```(?:text|console)\n(?P<body>.*?)^(?P=indent)```", re.M | re.S)
NOT_RUN = re.compile(r"<!-- not run by tests/test_readme_examples\.py:(?P<reason>.*?)-->\s*$")
PROMPT = "$ tarot-analysis "


class Example(NamedTuple):
    """One command of the README, the line it is on and the output shown for it."""

    line: int
    argv: list[str]
    shown: list[str]
    not_run: str | None


def examples(text: str) -> list[Example]:
    """The README's commands with their shown output, and the reason given for any not run."""
    found = []
    for block in BLOCK.finditer(text):
        indent = len(block["indent"])
        lines = [line[indent:] for line in block["body"].splitlines()]
        if not lines or not lines[0].startswith(PROMPT):
            continue
        before = text[: block.start()].rstrip("\n").rsplit("\n", 1)[-1]
        marked = NOT_RUN.search(before)
        first = text[: block.start()].count("\n") + 2
        starts = [i for i, line in enumerate(lines) if line.startswith(PROMPT)]
        for start, end in zip(starts, [*starts[1:], len(lines)], strict=True):
            found.append(
                Example(
                    line=first + start,
                    argv=shlex.split(lines[start][len(PROMPT) :]),
                    shown=lines[start + 1 : end],
                    not_run=marked["reason"].strip() if marked else None,
                )
            )
    return found


def comparable(lines: list[str]) -> list[str]:
    """Non-blank lines with their spaces collapsed, and without the last column of the rows
    of a table whose header ends in ``seconds``."""
    kept = []
    timed = False
    for line in lines:
        words = line.split()
        if not words:
            timed = False
            continue
        if words[-1] == "seconds":
            timed = True
            words = words[:-1]
        elif timed and words[0].isdigit():
            words = words[:-1]
        kept.append(" ".join(words))
    return kept


def missing(shown: list[str], printed: list[str]) -> list[str]:
    """The shown lines that do not come out of the printed ones, in order."""
    lost = []
    at = 0
    for line in comparable(shown):
        found = next((i for i, out in enumerate(printed[at:], at) if line in out), None)
        if found is None:
            lost.append(line)
        else:
            at = found + 1
    return lost


EXAMPLES = examples(README.read_text(encoding="utf-8"))


def test_the_readme_shows_its_examples_and_says_why_any_is_not_run() -> None:
    commands = {example.argv[0] for example in EXAMPLES}
    assert {"hands", "dd"} <= commands, commands
    for example in EXAMPLES:
        assert example.shown, f"README.md:{example.line}: {example.argv} shows no output"
        assert example.not_run != "", f"README.md:{example.line}: not run, and no reason given"


def test_the_comparison_leaves_out_only_the_seconds() -> None:
    shown = ["taker  points   seconds", "    0      20     1.461", "", "total 3"]
    assert comparable(shown) == ["taker points", "0 20", "total 3"]
    assert missing(shown, ["taker points", "0 20", "total 3 deals"]) == []
    assert missing(shown, ["taker points", "0 21", "total 3"]) == ["0 20"]
    assert missing(shown, ["total 3", "taker points", "0 20"]) == ["total 3"]


@pytest.mark.slow
@pytest.mark.parametrize(
    "example",
    [e for e in EXAMPLES if e.not_run is None],
    ids=lambda e: f"README.md:{e.line}:{e.argv[0]}",
)
def test_a_readme_example_prints_what_the_readme_shows(
    example: Example,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(example.argv) == 0
    printed = comparable(capsys.readouterr().out.splitlines())
    lost = missing(example.shown, printed)
    assert not lost, (
        f"README.md:{example.line}: `tarot-analysis {shlex.join(example.argv)}` no longer "
        "prints:\n" + "\n".join(lost) + "\n\nit printed:\n" + "\n".join(printed)
    )
