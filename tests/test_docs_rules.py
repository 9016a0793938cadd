"""docs/rules.md against the presets it states: its headings, its table, its rules files."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tarot_analysis.game.rules import Rules, format_rules, list_presets, load_rules, rules_to_dict

PAGE = Path(__file__).resolve().parent.parent / "docs" / "rules.md"
TEXT = PAGE.read_text(encoding="utf-8")

#: Keys of a rules file that name or describe it, or say what it extends: no rule of play.
LABELS = frozenset({"extends", "name", "description", "source", "assumptions"})
#: How the page marks a rule that no source states.
ASSUMPTION = "**Assumption:**"


def headings(level: int) -> list[str]:
    """The text of every heading of ``level`` (2 for ``##``), in order."""
    return re.findall(rf"^{'#' * level} (.+)$", TEXT, re.M)


def preset_sections() -> dict[str, str]:
    """Each preset's section: from its heading ``### `name``` to the next heading."""
    found = re.finditer(r"^### `([^`]+)`\n(.*?)(?=^#{1,3} )", TEXT + "\n# end\n", re.M | re.S)
    return {match.group(1): match.group(2) for match in found}


def rules_files() -> list[tuple[str, str]]:
    """Every TOML block of the page as (file name, text); the name is its first-line comment."""
    blocks = re.findall(r"```toml\n(.*?)```", TEXT, re.S)
    named = []
    for index, block in enumerate(blocks):
        first = re.match(r"#\s*(\S+\.toml)\s*\n", block)
        named.append((first.group(1) if first else f"rules-{index}.toml", block))
    return named


def written(table: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """The rules a TOML table sets, by dotted key (``poignee.thresholds``); labels left out."""
    keys: dict[str, Any] = {}
    for key, value in table.items():
        if isinstance(value, dict):
            keys.update(written(value, f"{prefix}{key}."))
        elif prefix or key not in LABELS:
            keys[prefix + key] = value
    return keys


def value_at(rules: Rules, dotted: str) -> Any:
    """The value of ``dotted`` in ``rules``, as a rules file writes it."""
    value: Any = rules_to_dict(rules)
    for part in dotted.split("."):
        value = value[part]
    return value


def load_in(folder: Path, name: str) -> Rules:
    """Write every rules file of the page into ``folder`` (one may extend another), load one."""
    for file_name, block in rules_files():
        (folder / file_name).write_text(block, encoding="utf-8")
    return load_rules(folder / name)


def presets_table() -> list[dict[str, str]]:
    """The rows of the table of presets at a glance, by column name (lower case)."""
    found = re.search(r"<!-- presets table.*?-->\n((?:\|.*\|\n)+)", TEXT)
    assert found, "no presets table in docs/rules.md"
    lines = found.group(1).splitlines()
    names = [cell.strip().lower() for cell in lines[0].strip("|").split("|")]
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in lines[2:]]
    return [dict(zip(names, row, strict=True)) for row in rows]


def test_every_preset_has_a_section_and_every_section_a_preset() -> None:
    presets = [heading.strip("`") for heading in headings(3) if heading.startswith("`")]
    assert sorted(presets) == list_presets()
    assert sorted(preset_sections()) == list_presets()


def test_the_presets_table_states_each_presets_deal() -> None:
    rows = presets_table()
    assert sorted(row["preset"].strip("`") for row in rows) == list_presets()
    for row in rows:
        rules = load_rules(row["preset"].strip("`"))
        stated = (row["players"], row["cards each"], row["dog"], row["packets"])
        assert tuple(map(int, stated)) == (
            rules.players,
            rules.hand_size,
            rules.dog_size,
            rules.packet_size,
        ), row["preset"]
        alone = f"{rules.shares.alone}×" if rules.bidding else "—"
        assert row["taker alone"] == alone, row["preset"]
        thresholds = " / ".join(map(str, rules.poignee.thresholds))
        assert row["poignée thresholds"] == (thresholds if rules.has_poignee else "none")


def test_each_preset_section_marks_every_assumption_of_the_preset() -> None:
    for name, section in preset_sections().items():
        listed = load_rules(name).assumptions
        assert section.count(ASSUMPTION) >= len(listed), (name, listed)


@pytest.mark.parametrize("name", [name for name, _ in rules_files()])
def test_every_rules_file_of_the_page_loads_and_changes_what_it_says(
    name: str, tmp_path: Path
) -> None:
    block = dict(rules_files())[name]
    table = tomllib.loads(block)
    rules = load_in(tmp_path, name)
    changes = written(table)
    assert changes, f"{name} changes no rule"
    base = load_rules(table["extends"]) if "extends" in table else None
    for key, value in changes.items():
        assert value_at(rules, key) == value, (name, key)
        if base is not None:
            assert value_at(base, key) != value, f"{name}: {key} is {value} in {base.name} too"


def test_the_printed_rules_are_those_of_the_rules_file(tmp_path: Path) -> None:
    found = re.search(r"<!-- output: rules show (\S+).*?-->\n```text\n(.*?)```", TEXT, re.S)
    assert found, "no output of rules show in docs/rules.md"
    name, printed = found.groups()
    shown = format_rules(load_in(tmp_path, name)).splitlines()
    # The source line names the file's path, which is not the page's.
    assert [line for line in printed.splitlines() if not line.startswith("source:")] == [
        line for line in shown if not line.startswith("source:")
    ]


def test_the_page_links_only_to_its_own_headings() -> None:
    assert "../shared" not in TEXT
    assert "](../" not in TEXT
    slugs = {
        re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        for level in (2, 3)
        for heading in headings(level)
    }
    for anchor in re.findall(r"\]\(#([^)]+)\)", TEXT):
        assert anchor in slugs, anchor


def source_names() -> list[str]:
    """The names the Sources table gives the rule texts (its first column)."""
    table = TEXT.split("## Sources", 1)[1].split("\n\n", 2)[1]
    return [row.split("|")[1].strip() for row in table.splitlines()[2:]]


@pytest.mark.parametrize("name", list_presets())
def test_a_preset_names_its_rule_texts_as_the_page_does(name: str) -> None:
    rules = load_rules(name)
    shown = format_rules(rules)
    # "seed 000" reads as a random seed: the texts go by the names of the Sources table.
    assert not re.search(r"\bseed \d{3}", shown, re.I), shown
    # Nor by their language: each is named by what it is.
    assert "-language" not in shown, shown
    names = source_names()
    assert len(names) == 5 and "the four-player scoring article" in names
    cited = [text for text in names if text.split(" (")[0].removeprefix("the ") in shown]
    assert cited, rules.source


@pytest.mark.slow
def test_the_comparison_of_the_page_is_the_real_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The page's ``compare`` of its rules file, run as written: every line as printed, but the
    version and the seconds it took."""
    from tarot_analysis.cli import main

    found = re.search(
        r"<!-- output: (compare [^(]*?) \(checked by tests/test_docs_rules.py\) -->\n"
        r"```text\n(.*?)```",
        TEXT,
        re.S,
    )
    assert found, "no output of compare in docs/rules.md"
    command, printed = found.groups()
    assert f"tarot-analysis {command}\n" in TEXT  # the command shown is the one checked
    load_in(tmp_path, "my-rules.toml")  # every rules file of the page, in one folder
    monkeypatch.chdir(tmp_path)
    assert main([*command.split(), "--no-progress"]) == 0
    run = re.compile(r"tarot-analysis \S+ \(\d+\.\d s\)")
    shown = run.sub("tarot-analysis (version, time)", capsys.readouterr().out)
    assert run.sub("tarot-analysis (version, time)", printed).splitlines() == shown.splitlines()
