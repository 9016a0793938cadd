"""The ``rules`` command: the rule presets, or every rule of one."""

from __future__ import annotations

import argparse
from typing import Any

from tarot_analysis.cli.arguments import Parser

# What the command runs is imported inside the functions that run it, not here: that keeps
# `tarot-analysis --help` and a mistake in the arguments quick (see tarot_analysis.cli.commands).


def add_parser(subparsers: Any) -> None:
    """Add ``rules`` to the subcommands of the command line."""
    rules = subparsers.add_parser("rules", help="list the rule presets or show one")
    rules_commands = rules.add_subparsers(dest="rules_command", required=True, parser_class=Parser)
    rules_commands.add_parser("list", help="the presets shipped with the toolkit")
    show = rules_commands.add_parser("show", help="every rule of one preset or rules file")
    show.add_argument("name", help="preset name or TOML file")
    rules.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``tarot-analysis rules list`` or ``rules show NAME``."""
    from tarot_analysis.game.rules import DEFAULT_PRESET, format_rules, list_presets, load_rules

    if args.rules_command == "list":
        for name in list_presets():
            rules = load_rules(name)
            is_marked = name == DEFAULT_PRESET and "default" not in rules.description
            marker = " (default)" if is_marked else ""
            print(f"{name:<16} {rules.description}{marker}")
        return 0
    print(format_rules(load_rules(args.name)))
    return 0
