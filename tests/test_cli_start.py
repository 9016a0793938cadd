"""The command line starts at once: it loads the module of the command asked for and no other,
and the report says its first line before it loads the report's modules."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from tarot_analysis.cli.commands.report import AUCTION_DEALS_SAID
from tarot_analysis.cli.program import ADDED_BY, COMMANDS, build_parser
from tarot_analysis.report.runs import AUCTION_DEALS

REPO = Path(__file__).parent.parent

#: A process that runs ``report`` with the report's package replaced by a stand-in, which says
#: on standard error when it is loaded and which heavy libraries were loaded before it.
REPORT_WITH_A_STAND_IN = textwrap.dedent(
    """
    import importlib.abc, importlib.util, sys
    from pathlib import Path

    class StandIn(importlib.abc.MetaPathFinder, importlib.abc.Loader):
        def find_spec(self, name, path, target=None):
            if name in ("tarot_analysis.report", "tarot_analysis.report.build"):
                return importlib.util.spec_from_loader(
                    name, self, is_package=name == "tarot_analysis.report"
                )
            return None

        def create_module(self, spec):
            return None

        def exec_module(self, module):
            if module.__name__ == "tarot_analysis.report.build":
                loaded = [name for name in ("numba", "pandas", "scipy") if name in sys.modules]
                print(f"the report loads, after {loaded}", file=sys.stderr, flush=True)
                module.build_report = lambda *args, out_dir, **kw: Path(out_dir, "page.html")

    sys.meta_path.insert(0, StandIn())
    from tarot_analysis.cli import main

    status = main(sys.argv[1:])
    commands = sorted(name.rpartition(".")[2] for name in sys.modules
                      if name.startswith("tarot_analysis.cli.commands."))
    print(f"commands loaded: {commands}", file=sys.stderr)
    sys.exit(status)
    """
)


def test_the_report_says_its_first_line_before_it_loads(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", REPORT_WITH_A_STAND_IN, "report", "--deals", "2000",
         "--out", str(tmp_path), "--data", str(tmp_path)],
        capture_output=True, text=True, cwd=REPO, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    said = done.stderr
    assert said.lstrip().startswith("loading · the report's modules: 00:00 so far"), said
    # Nothing heavy before the first line: the command's own module, and no other command's.
    assert said.index("00:00 so far") < said.index("the report loads, after []")
    assert said.endswith("commands loaded: ['report']\n"), said
    assert done.stdout.startswith(f"Report: {tmp_path / 'page.html'} (")


def test_every_command_is_listed_when_none_is_asked_for() -> None:
    parser = build_parser()
    # dd and dd-bound from one module, selfplay and rounds from another: n names, n − 1 commas
    assert parser.format_usage().count(",") == len(COMMANDS) + len(ADDED_BY) - 1
    one = build_parser("dd-bound")
    assert "dd-bound" in one.format_usage() and "hands" not in one.format_usage()


def test_the_help_of_report_says_the_auction_s_deals_as_the_report_plays_them() -> None:
    assert AUCTION_DEALS_SAID == AUCTION_DEALS


#: A process whose command line is ``tarot-analysis`` with this script's arguments, holding an
#: object that says when Python tears it down, and printing after the command, unflushed.
COMMAND_LINE_THEN_EXIT = textwrap.dedent(
    """
    import atexit, sys

    class TornDown:
        def __del__(self):
            print("torn down", file=sys.stderr)

    kept = TornDown()
    sys.argv = ["tarot-analysis", *sys.argv[1:]]
    from tarot_analysis.cli import main

    status = main()
    atexit.register(print, "exit handlers run", file=sys.stderr)
    print("the output, whole")
    sys.exit(status)
    """
)


def test_the_command_line_ends_without_tearing_down_what_is_left() -> None:
    for argv, status in ((["rules", "list"], 0), (["rules", "show", "no-such-rules"], 2)):
        done = subprocess.run(
            [sys.executable, "-c", COMMAND_LINE_THEN_EXIT, *argv],
            capture_output=True, text=True, cwd=REPO, timeout=120, check=False,
        )  # fmt: skip
        assert done.returncode == status, done.stderr
        assert done.stdout.endswith("the output, whole\n")  # written, though never flushed
        assert "exit handlers run" in done.stderr and "torn down" not in done.stderr
