"""The ``dd`` and ``dd-bound`` commands: a deal's double-dummy table, and the bound by band."""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from typing import Any, Final

from tarot_analysis import __version__
from tarot_analysis.cli.arguments import add_run_options, bot_name, positive, positive_seconds, seed
from tarot_analysis.cli.commands import SolveLine
from tarot_analysis.game.rules import load_rules
from tarot_analysis.runs.cluster import add_cluster_options, dask_client

# What the commands run (the solver, the table, the runners) is imported inside the functions
# that run them, as in the commands of tarot_analysis.cli.commands.

__all__ = ["add_parser", "run", "run_bound"]

_LATE_START = (
    "--after-tricks T plays the first T tricks with the heuristic at every seat (the deal's "
    "own play) and solves the rest: whole deals of four players take minutes or more to "
    "solve exactly, endgames of 6 to 8 tricks milliseconds to seconds."
)


def add_parser(commands: Any) -> None:
    """Add ``dd`` and ``dd-bound`` to the subparsers of the command line, with
    :func:`run` and :func:`run_bound` as their handlers."""
    dd = commands.add_parser(
        "dd",
        help="a deal's double-dummy table: each seat as taker, with every card seen",
        description=(
            "For each seat as taker (a Garde by default; the heuristic's call and écart), the "
            "attack's card points with best play on both sides and every hand visible, the "
            "contract made or lost, the Petit au bout. The deal is --seed S --deal K (the "
            f"deal 'play' and 'replay' number K) or the hands and the dog. {_LATE_START}"
        ),
    )  # fmt: skip
    dd.add_argument(
        "hands", nargs="*", metavar="HAND",
        help='one hand per seat then the dog, in the notation, quoted ("21 KH 7H ...")',
    )  # fmt: skip
    dd.add_argument("--rules", default="fft-4", help="preset name or TOML file (default fft-4)")
    dd.add_argument("--seed", type=seed, default=1, help="random seed (default 1)")
    dd.add_argument("--deal", type=seed, default=None, help="deal number of the seed, from 0")
    dd.add_argument("--chunk-size", type=positive, default=None, help="as in the play run")
    dd.add_argument("--contract", default="garde", help="the contract taken (default garde)")
    dd.add_argument("--taker", type=int, nargs="+", default=None, metavar="SEAT",
                    help="the seats to take (default every seat)")  # fmt: skip
    dd.add_argument("--ecart", default=None, help="the taker's écart (quoted), one taker only")
    dd.add_argument("--after-tricks", type=int, default=0, metavar="T",
                    help="tricks the heuristic plays before the solve (default 0)")  # fmt: skip
    dd.add_argument(
        "--max-nodes", type=positive, default=None, metavar="N",
        help="each seat's solve stops after N positions, with the interval proved",
    )  # fmt: skip
    dd.add_argument(
        "--time-limit", type=positive_seconds, default=None, metavar="SECONDS",
        help="each seat's solve stops after SECONDS, with the interval proved",
    )  # fmt: skip
    dd.add_argument("--no-progress", action="store_true", help="no progress line")
    dd.add_argument("--json", action="store_true", help="print one JSON object")
    dd.set_defaults(handler=run)
    _add_bound_parser(commands)


def _add_bound_parser(commands: Any) -> None:
    from tarot_analysis.analyses.dd_bound import DEFAULT_MAX_NODES, GROUPINGS, HEURISTIC

    bound = commands.add_parser(
        "dd-bound",
        help="how often seat 0 makes a Garde with every card seen, beside the bots",
        description=(
            "Seat 0 takes a Garde on many deals (the heuristic's call and écart); the "
            "heuristic plays the first T tricks at every seat, the rest is solved double "
            "dummy within a node budget. Make rates by band of Chavey's count (--by: or by "
            "bouts and trumps), double dummy beside the heuristic and each bot of --bots, "
            "which play on from the same position on the same deals (the search bots on one "
            "deal in --every). Deals whose solve stops undecided count "
            "as not made in the double-dummy rate and as made in its upper reading. "
            f"{_LATE_START} The run is stored under --data and resumes if stopped."
        ),
    )  # fmt: skip
    add_run_options(bound, deals=1_000)
    bound.add_argument("--after-tricks", type=int, default=10, metavar="T",
                       help="tricks the heuristic plays before the solve (default 10)")  # fmt: skip
    bound.add_argument(
        "--max-nodes", type=positive, default=DEFAULT_MAX_NODES, metavar="N",
        help=f"positions each deal's solve may search (default {DEFAULT_MAX_NODES:,})",
    )  # fmt: skip
    bound.add_argument("--contract", default="garde", help="the contract taken (default garde)")
    bound.add_argument(
        "--bots", nargs="+", type=bot_name, default=[HEURISTIC], metavar="BOT",
        help="bots that play on from the same position beside the double-dummy solve, each at "
        "every seat (default heuristic, which always does; e.g. heuristic pimc learned)",
    )  # fmt: skip
    bound.add_argument(
        "--every", type=positive, default=1, metavar="K",
        help="the search bots (pimc...) play on every K-th deal only (default 1: every deal)",
    )  # fmt: skip
    bound.add_argument(
        "--by", nargs="+", choices=GROUPINGS, default=["chavey"],
        help="the tables: by band of Chavey's count (default), by bouts, by trumps, by both",
    )  # fmt: skip
    bound.add_argument("--data", help="folder of the run's Parquet chunks (default under data/)")
    add_cluster_options(bound)
    bound.set_defaults(handler=run_bound)


def _points(row: Any) -> str:
    if math.isnan(row.points_low):
        return "-"
    if row.exact:
        return f"{row.points_low:g}"
    return f"{row.points_low:g}–{row.points_high:g}"


def run(args: argparse.Namespace) -> int:
    """``tarot-analysis dd``: the table, as text or JSON."""
    from tarot_analysis.analyses.double_dummy import dd_table
    from tarot_analysis.deals.deal import DEFAULT_CHUNK_SIZE

    rules = load_rules(args.rules)
    started = time.perf_counter()
    shown = not (args.no_progress or args.json)
    whole = args.after_tricks == 0 and not (args.max_nodes or args.time_limit)
    notice = WHOLE_DEALS.format(rules=rules.name) if whole else None
    with _TakersLine(rules.name, args.contract, enabled=shown, notice=notice) as line:
        rows = dd_table(
            rules, args.hands or None, seed=args.seed, deal=args.deal, contract=args.contract,
            ecart=args.ecart, takers=args.taker, after_tricks=args.after_tricks,
            max_nodes=args.max_nodes, time_limit=args.time_limit,
            chunk_size=args.chunk_size or DEFAULT_CHUNK_SIZE, progress=line,
        )  # fmt: skip
    seconds = time.perf_counter() - started
    where = f"seed {args.seed}, deal {args.deal}" if args.deal is not None else "the hands given"
    if args.json:
        print(json.dumps({
            "rules": rules.name, "deal": args.deal, "seed": args.seed if args.deal is not None
            else None, "hands": args.hands or None, "contract": args.contract,
            "after_tricks": args.after_tricks, "takers": [row.to_json() for row in rows],
            "seconds": round(seconds, 3),
        }, indent=2))  # fmt: skip
        return 0
    print(f"{rules.name}, {where}: {args.contract}, double dummy after {args.after_tricks} tricks")
    print("taker  partner  écart                     before  points  bouts  needs  result     "
          "PaB  heuristic   seconds")  # fmt: skip
    for row in rows:
        petit = {1: "att", 0: "def", -1: "", None: "?"}[row.petit_au_bout]
        partner = str(row.partner) if row.partner >= 0 else "-"
        heuristic = f"{row.heuristic_points:g} {'made' if row.heuristic_made else 'lost'}"
        print(
            f"{row.taker:>5}  {partner:>7}  {row.ecart:24}  {row.points_before:>6g}  "
            f"{_points(row):>6}  {row.bouts:>5}  {row.required:>5g}  {row.outcome:9}  "
            f"{petit:>3}  {heuristic:>9}  {row.seconds:>8.3f}"
        )
    return 0


#: Said before the solve of whole deals, which shows no result for minutes.
WHOLE_DEALS: Final = (
    "{rules}: solving the whole deal with every card seen, for each taker in turn: minutes or "
    "more each with four players (--after-tricks T or --time-limit SECONDS shortens it)"
)


class _TakersLine:
    """The progress line of each taker's solve in turn (:class:`SolveLine`), called by
    :func:`~tarot_analysis.analyses.double_dummy.dd_table` with the taker and where its solve
    stands; ``notice``, said once before the first solve (once the deal is read and checked)."""

    def __init__(
        self, rules: str, contract: str, *, enabled: bool, notice: str | None = None
    ) -> None:
        self.rules, self.contract, self.enabled, self.notice = rules, contract, enabled, notice
        self.taker: int | None = None
        self.line: SolveLine | None = None

    def __enter__(self) -> _TakersLine:
        return self

    def __exit__(self, *failure: Any) -> None:
        if self.line is not None:
            self.line.__exit__(*failure)

    def __call__(self, taker: int, where: Any) -> None:
        if taker != self.taker:
            if self.taker is None and self.notice and self.enabled:
                print(self.notice, file=sys.stderr)
            if self.line is not None:
                self.line.__exit__(None, None, None)
            self.taker = taker
            detail = f"{self.rules}, seat {taker} takes a {self.contract}"
            self.line = SolveLine(detail, enabled=self.enabled)
        assert self.line is not None
        self.line(where)


def _percent(rate: float) -> str:
    return "-" if math.isnan(rate) else f"{100 * rate:.1f}"


def _interval(row: dict[str, Any], prefix: str) -> str:
    return f"{_percent(row[prefix + '_low'])}–{_percent(row[prefix + '_high'])}"


def _rate_cell(row: dict[str, Any], prefix: str) -> str:
    return f"{_percent(row[prefix + '_rate'])} ({_interval(row, prefix + '_ci')})"


def _difference_cell(row: dict[str, Any], key: str) -> str:
    low, high = _percent(row[key + "_ci_low"]), _percent(row[key + "_ci_high"])
    return f"{_percent(row[key])} ({low} to {high})"


def _bot_cells(row: dict[str, Any], bots: list[str]) -> str:
    """Each other bot's columns of one row: deals played, rate, difference."""
    cells = ""
    for bot in bots:
        if row[f"{bot}_n"] == 0:
            cells += f"  {0:>7}  {'-':22}{'-':>24}"
            continue
        cells += (
            f"  {row[f'{bot}_n']:>7,}  {_rate_cell(row, bot):22}"
            f"{_difference_cell(row, f'{bot}_difference'):>24}"
        )
    return cells


def _rates_lines(table: Any, bots: list[str] | None = None) -> list[str]:
    """The rates by group as text lines: double dummy, the heuristic, then each bot of
    ``bots`` (deals it played, its rate, the paired difference double dummy − bot)."""
    bots = bots or []
    head = "".join(f"  {f'{bot} n':>7}  {f'{bot} % (95%)':22}{f'dd − {bot}':>24}" for bot in bots)
    lines = [
        f"{table.index.name:14} {'n':>6} {'undecided':>9}  {'double dummy % (95%)':24}"
        f"{'heuristic % (95%)':22}{'dd − heuristic, points of %':>28}{head}"
    ]
    for band, row in table.to_dict(orient="index").items():
        n, undecided = int(row["n"]), int(row["undecided"])
        if n == 0:
            lines.append(f"{band!s:14} {n:>6,} {undecided:>9,}  {'-':24}{'-':22}{'-':>28}")
            continue
        dd = f"{_percent(row['dd_rate'])} ({_interval(row, 'dd_ci')})"
        if undecided:
            dd += f" ≤{_percent(row['dd_rate_undecided_made'])}"
        lines.append(
            f"{band!s:14} {n:>6,} {undecided:>9,}  {dd:24}{_rate_cell(row, 'heuristic'):22}"
            f"{_difference_cell(row, 'difference'):>28}{_bot_cells(row, bots)}"
        )
    return lines


def _bound_folder(args: argparse.Namespace, rules_name: str, others: list[str]) -> str:
    """The run's folder: ``--data``, or one named after the run under ``data/``, of checked
    names only (a bot's as :func:`~tarot_analysis.bots.file_label` writes it)."""
    from tarot_analysis.bots import file_label

    if args.data:
        return str(args.data)
    labels = [file_label(bot) for bot in others]
    beside = f"-bots-{'-'.join(labels)}-every{args.every}" if others else ""
    return (
        f"data/dd-bound-{rules_name}-{args.contract}-after{args.after_tricks}-"
        f"nodes{args.max_nodes}{beside}-seed{args.seed}-{args.deals}"
    ).replace(":", "_")


def run_bound(args: argparse.Namespace) -> int:
    """``tarot-analysis dd-bound``: run (or resume) the bound, then its rates by band."""
    from tarot_analysis.analyses.dd_bound import (
        DEFAULT_CHUNK_SIZE,
        bound_bots,
        bound_rates,
        check_bound,
        run_bound,
    )
    from tarot_analysis.runs.simulate import check_writable_folder

    rules = load_rules(args.rules)
    others = check_bound(
        rules, after_tricks=args.after_tricks, max_nodes=args.max_nodes, contract=args.contract,
        bots=args.bots, every=args.every,
    )  # fmt: skip
    folder = _bound_folder(args, rules.name, others)
    check_writable_folder(folder, " for the run's chunks")
    args.kept = f"the chunks finished so far are kept in {folder}; the same command goes on"
    started = time.perf_counter()
    chunk_size = args.chunk_size or DEFAULT_CHUNK_SIZE
    with dask_client(args.scheduler, args.workers) as client:
        frame = run_bound(
            rules, args.deals, folder, after_tricks=args.after_tricks, max_nodes=args.max_nodes,
            contract=args.contract, seed=args.seed, chunk_size=chunk_size, threads=args.threads,
            progress=not (args.no_progress or args.json), client=client, bots=args.bots,
            every=args.every,
        )  # fmt: skip
    bots = bound_bots(frame)
    tables = {by: bound_rates(frame, rules.hand_size, by) for by in args.by}
    elapsed = time.perf_counter() - started
    void = int((frame["dd_outcome"] == "redealt").sum())
    if args.json:
        print(json.dumps({
            "rules": rules.name, "deals": args.deals, "seed": args.seed,
            "chunk_size": chunk_size, "version": __version__, "contract": args.contract,
            "after_tricks": args.after_tricks, "max_nodes": args.max_nodes,
            "bots": ["heuristic", *bots], "every": args.every, "data": str(folder),
            "void": void,
            "undecided": "counted as not made in dd_rate, as made in dd_rate_undecided_made",
            **{("bands" if by == "chavey" else f"by_{by}"): {
                str(key): row for key, row in table.to_dict(orient="index").items()
            } for by, table in tables.items()},
            "seconds": round(elapsed, 3),
        }, indent=2))  # fmt: skip
        return 0
    beside = "".join(
        f"; {bot} plays on from the same position"
        + (f" on one deal in {args.every}" if args.every > 1 and bot.startswith("pimc") else "")
        for bot in bots
    )
    print(
        f"{rules.name}: seat 0 takes a {args.contract} on {args.deals:,} deals (seed "
        f"{args.seed}, chunks of {chunk_size}); the heuristic plays the first "
        f"{args.after_tricks} tricks, the rest is solved double dummy (at most "
        f"{args.max_nodes:,} positions a deal){beside}"
    )
    for table in tables.values():
        print("\n".join(_rates_lines(table, bots)))
    print(
        f"Undecided deals (solve stopped) count as not made; ≤ gives the rate with them made. "
        f"{void} void deals (Petit sec) left out. {elapsed:.1f} s; rows in {folder}"
    )
    return 0
