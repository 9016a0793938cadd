"""The worked examples of the docs, run as they are written."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"


def example(page: str, name: str) -> str:
    """The code block that follows the marker ``<!-- example: name ... -->`` in ``page``."""
    text = (DOCS / page).read_text(encoding="utf-8")
    found = re.search(rf"<!-- example: {name}\b.*?-->\n```python\n(.*?)```", text, re.S)
    assert found, f"no example {name} in {page}"
    return found.group(1)


@pytest.mark.slow
def test_the_python_bot_of_the_engine_docs_runs() -> None:
    code = example("engine.md", "python-bot")
    assert len(code.split("class LowCards")[1].split("\n\n\n")[0].splitlines()) <= 20
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, "docs/engine.md", "exec"), {"__name__": "example"})
    mean = float(printed.getvalue().split()[-1])
    assert -500 < mean < 500


def test_the_search_bot_example_of_the_bots_docs_runs() -> None:
    code = example("bots.md", "pimc")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, "docs/bots.md", "exec"), {"__name__": "example"})
    first, card = printed.getvalue().strip().splitlines()
    assert first == "True False"  # its own hand kept, another dealt again
    assert 0 <= int(card) < 78


def test_the_worked_chavey_count_of_the_docs_is_the_codes() -> None:
    from tarot_analysis.deals.evaluators import (
        CHAVEY_THRESHOLDS,
        bid_names,
        chavey,
        chavey_bid,
        chavey_sum,
    )
    from tarot_analysis.game.cards import Hand
    from tarot_analysis.report.plots import contract_label

    prise, garde, garde_sans, garde_contre = CHAVEY_THRESHOLDS
    for page in (DOCS.parent / "README.md", DOCS / "guidance.md"):
        text = " ".join(page.read_text(encoding="utf-8").split())
        found = re.search(r"`([^`]+)` counts (the 21: .*? = \d+), a (\w+) by Chavey", text)
        assert found, page
        hand = Hand.parse(found[1])
        assert found[2] == chavey_sum(hand), page
        lo, hi = hand.mask
        bid = chavey_bid(chavey(lo, hi), chavey(lo, hi, with_distribution=True))
        assert found[3] == contract_label(str(bid_names(bid))), page
        assert (
            f"Chavey bids a Prise from {prise}, a Garde from {garde}, a Garde sans from "
            f"{garde_sans} and a Garde contre from {garde_contre}"
        ) in text, page
        assert f'tarot-analysis hand "{found[1]}"' in text, page


def test_the_readme_says_where_the_command_is_after_make() -> None:
    readme = (DOCS.parent / "README.md").read_text(encoding="utf-8")
    introduction = readme[: readme.index("## The main job")]
    assert "After `make`, the toolkit's command is **`.venv/bin/tarot-analysis`**" in introduction


def _commands(name: str) -> list[list[str]]:
    """Every ``tarot-analysis NAME ...`` command of the docs and the README, in a shell block
    (its continued lines joined) or in a span of code, as its words."""
    import shlex

    found = []
    for page in [DOCS.parent / "README.md", *sorted(DOCS.glob("*.md"))]:
        text = page.read_text(encoding="utf-8")
        blocks = re.findall(r"```sh\n(.*?)```", text, re.S)
        lines = [line for block in blocks for line in block.replace("\\\n", " ").splitlines()]
        lines += re.findall(r"`(tarot-analysis [^`]+)`", " ".join(text.split()))
        for line in lines:
            if line.strip().startswith(f"tarot-analysis {name}"):
                found.append(shlex.split(line.strip())[1:])
    return found


@pytest.mark.parametrize("name", ["teach", "train", "rounds"])
def test_the_docs_teach_and_train_one_way(name: str) -> None:
    """Every command of the docs that teaches or trains is one the command line takes, without
    the options of the flat network's lessons and training, which are retired."""
    from tarot_analysis.cli.program import build_parser

    commands = _commands(name)
    assert commands, name
    parser = build_parser(name)
    for words in commands:
        assert not {"--lesson-format", "--hidden"} & set(words), words
        if len(words) > 1:  # a bare `tarot-analysis teach` in prose
            assert parser.parse_args(words).command == name, words
