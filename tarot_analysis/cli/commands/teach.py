"""The ``teach`` command: the search bot's decisions and its value of every action."""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from tarot_analysis.cli.arguments import (
    add_run_options,
    add_seating_options,
    bot_name,
    fraction,
    positive,
    share,
)
from tarot_analysis.runs.cluster import add_cluster_options, dask_client

# What the command runs is imported inside the functions that run it, not here: that keeps
# `tarot-analysis --help` and a mistake in the arguments quick (see tarot_analysis.cli.commands).


def add_parser(subparsers: Any) -> None:
    """Add ``teach`` to the subcommands of the command line."""
    teach = subparsers.add_parser(
        "teach",
        help="lessons of the search bot: its measured value of every action, for learning",
        description=(
            "Play deals with the search bot pimc at every seat and store one row per decision "
            "it searched: what the seat knew (the encoding), the legal actions, the seat's mean "
            "score for each over the search's worlds, the action taken and the seat's score for "
            "the deal, and each legal action's features, for train. With --own-play, the "
            "deals are played by that bot instead (one seat by each of --others in turn), "
            "exploring with probability --epsilon, and the search values a share of its "
            "decisions (--label-share). The run is stored under --data and resumes if stopped."
        ),
    )  # fmt: skip
    add_run_options(teach, deals=1_000)
    teach.add_argument(
        "--worlds", type=positive, default=None,
        help="worlds the search draws for each decision (default: pimc's, 32)",
    )  # fmt: skip
    teach.add_argument(
        "--play-outs", choices=("heuristic", "learned", "weighed"), default="heuristic",
        help="the bot that plays the search's worlds out, so that each action is valued as "
        "worth it when that bot plays the rest (learned: the learned bot shipped for the "
        "preset, pimc:N:learned, some 30 times slower; weighed: the same, its worlds also "
        "weighed by the cards the other seats played, pimc:N:weighed, twice as slow again; "
        "default heuristic)",
    )  # fmt: skip
    teach.add_argument(
        "--model", metavar="MODEL.npz", default=None,
        help="the learned bot's network, for the learned play-outs and for learned among "
        "--own-play and --others (default: the one shipped for the preset)",
    )  # fmt: skip
    teach.add_argument(
        "--own-play", metavar="BOT", type=bot_name, default=None,
        help="play the deals with BOT (learned or a rule bot) rather than the search, whose "
        "lessons are then on the states that bot's own play reaches",
    )  # fmt: skip
    teach.add_argument(
        "--others", nargs="+", metavar="BOT", type=bot_name, default=None,
        help="with --own-play: bots that each play one seat of a deal in turn (the seat moving "
        "round the table), so that the lessons meet opponents unlike the bot; name the bot "
        "itself among them for deals of its own play alone",
    )  # fmt: skip
    teach.add_argument(
        "--epsilon", type=fraction, default=None,
        help="with --own-play: the probability of a random legal action at its bot's "
        "decisions (default 0.02)",
    )  # fmt: skip
    teach.add_argument(
        "--label-share", type=share, default=None, metavar="SHARE",
        help="with --own-play: the share of its bot's decisions the search values (default 1: "
        "every one)",
    )  # fmt: skip
    add_seating_options(teach, default=None)
    # The lessons have one format; scripts written when there were two still pass it.
    teach.add_argument("--lesson-format", type=_lesson_format, help=argparse.SUPPRESS)
    teach.add_argument("--data", help="folder of the run's Parquet chunks (default under data/)")
    add_cluster_options(teach)
    teach.set_defaults(handler=run)


def _own_play(args: argparse.Namespace, players: int) -> Any:
    """The :class:`~tarot_analysis.learning.teacher.OwnPlay` the options ask for, checked;
    ``None`` when the search plays, which takes none of its options."""
    from tarot_analysis.errors import TarotInputError
    from tarot_analysis.learning.teacher import OwnPlay

    if args.own_play is None:
        given = [
            option for option, value in (
                ("--others", args.others), ("--epsilon", args.epsilon),
                ("--label-share", args.label_share), ("--other-seats", args.other_seats),
                ("--network-at-every-seat", args.network_at_every_seat),
            ) if value is not None
        ]  # fmt: skip
        if given:
            raise TarotInputError(f"{given[0]} goes with --own-play BOT")
        return None
    own = OwnPlay(
        bot=args.own_play, others=tuple(args.others or ()),
        epsilon=0.02 if args.epsilon is None else args.epsilon,
        label_share=1.0 if args.label_share is None else args.label_share,
        seats=args.other_seats or 1, seated=not args.network_at_every_seat,
    )  # fmt: skip
    own.check(players)
    return own


def _own_line(own: Any, bot: str) -> str:
    """Who played the deals of lessons on a bot's own play, in words."""
    seats = "one seat" if own.seats == 1 else f"{own.seats} seats"
    others = f", {seats} by {', '.join(own.others)} in turn" if own.others else ""
    return (
        f"{own.bot}{others}, exploring at {own.epsilon:g}, {own.label_share:.0%} of its "
        f"decisions valued by {bot}"
    )


def _lesson_format(text: str) -> int:
    """``--lesson-format``, accepted as 2 only: the one format lessons have."""
    if text.strip() != "2":
        raise argparse.ArgumentTypeError(
            f"{text!r}: lessons have one format, 2 (format 1, for the flat network, is "
            "retired): leave the option out"
        )
    return 2


def chunk_bytes(rules: Any, deals: int) -> int:
    """The memory a chunk of ``deals`` deals of lessons takes while it is computed: its rows
    allocated for every decision a deal can hold (encoding, legal actions, values, facts and
    the actions' features), and the table they are copied into."""
    from tarot_analysis.engine.action_features import N_ACTION_FEATURES
    from tarot_analysis.engine.encoding import encoding_size
    from tarot_analysis.engine.state import N_ACTIONS
    from tarot_analysis.learning.compact import MAX_LEGAL
    from tarot_analysis.learning.teacher import rows_per_deal

    row = 4 * encoding_size(rules.players) + 5 * N_ACTIONS + 7 * 8
    row += MAX_LEGAL * N_ACTION_FEATURES
    return 2 * deals * rows_per_deal(rules) * row


def _check_memory(rules: Any, args: argparse.Namespace) -> None:
    """Refuse, before any deal, chunks that would not fit in memory on the threads that
    compute them at once (a cluster's workers have their own)."""
    from tarot_analysis.learning.teacher import DEFAULT_CHUNK_SIZE
    from tarot_analysis.runs.memory import check_room
    from tarot_analysis.runs.simulate import default_threads

    if args.scheduler or args.workers:
        return
    chunk = min(args.chunk_size or DEFAULT_CHUNK_SIZE, args.deals)
    threads = min(args.threads or default_threads(), -(-args.deals // chunk))
    per_deal = chunk_bytes(rules, 1) * threads
    check_room(
        f"teach --chunk-size {chunk:,} on {threads} thread{'s' * (threads > 1)}",
        chunk * per_deal, advice=lambda usable: (
            f"at most {int(usable // per_deal):,} deals a chunk fit (--chunk-size), or fewer "
            "--threads"
        ),
    )  # fmt: skip


def run(args: argparse.Namespace) -> int:
    """Run ``tarot-analysis teach``: play and store the search's decisions (resumable)."""
    from tarot_analysis.bots import file_label
    from tarot_analysis.bots.pimc import DEFAULT_WORLDS
    from tarot_analysis.game.rules import load_rules
    from tarot_analysis.learning.teacher import (
        DEFAULT_CHUNK_SIZE,
        LESSON_FORMAT,
        lesson_counts,
        teach,
    )
    from tarot_analysis.runs.simulate import check_writable_folder

    rules = load_rules(args.rules)
    worlds = args.worlds or DEFAULT_WORLDS
    own = _own_play(args, rules.players)
    # "-compact": the name these lessons' runs had beside format 1's, kept so that such a run
    # resumes under the same command
    learned = "" if args.play_outs == "heuristic" else f"-{args.play_outs}"
    bot = f"pimc:{worlds}:{args.play_outs}" if learned else f"pimc:{worlds}"
    played = f"-own-{file_label(own.bot)}" if own else ""
    folder = args.data or (
        f"data/lessons-{rules.name}-pimc{worlds}-seed{args.seed}-{args.deals}-compact{learned}"
        f"{played}"
    )
    _check_memory(rules, args)
    check_writable_folder(folder, " for the run's chunks")
    args.kept = f"the chunks finished so far are kept in {folder}; the same command goes on"
    started = time.perf_counter()
    with dask_client(args.scheduler, args.workers) as client:
        result = teach(
            rules, args.deals, folder, worlds=worlds, seed=args.seed,
            chunk_size=args.chunk_size or DEFAULT_CHUNK_SIZE, threads=args.threads,
            progress=not (args.no_progress or args.json), client=client,
            play_outs=args.play_outs, own=own, model=args.model,
        )  # fmt: skip
    counts = lesson_counts(folder)
    elapsed = time.perf_counter() - started
    if args.json:
        print(json.dumps({
            "rules": rules.name, "deals": args.deals, "seed": args.seed, "bot": bot,
            "own_play": None if own is None else {
                "bot": own.bot, "others": list(own.others), "epsilon": own.epsilon,
                "label_share": own.label_share, "seats": own.seats, "seated": own.seated,
            },
            "lesson_format": LESSON_FORMAT,
            "data": str(folder), "rows": int(sum(counts.values())), "by_decision": counts,
            "chunks": result.chunks, "computed": result.computed, "resumed": result.resumed,
            "seconds": round(elapsed, 3),
        }, indent=2))  # fmt: skip
        return 0
    by = f"{bot} at every seat" if own is None else _own_line(own, bot)
    print(
        f"{rules.name}: {args.deals:,} deals played by {by} (seed {args.seed}); "
        f"{sum(counts.values()):,} decisions stored in {folder}"
    )
    for decision, count in counts.items():
        print(f"  {decision:8} {count:>10,}")
    print(
        f"{result.computed} chunks computed, {result.resumed} kept from an earlier run, "
        f"{elapsed:.1f} s"
    )
    return 0
