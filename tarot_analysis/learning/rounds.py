"""Rounds of improvement of a network: play, train, measure, and again.

A round starts from a network (the one a search taught, for the first; the last round's after):

1. **play**: ``deals`` deals with that network at every seat, exploring with probability
   ``epsilon``, its decisions labelled one of two ways (``lessons``):

   - ``"self-play"`` (Deep Monte-Carlo, :func:`tarot_analysis.learning.selfplay.self_play`):
     each decision labelled with the seat's final score, the action taken alone valued;
   - ``"search"`` (approximate policy iteration,
     :func:`tarot_analysis.learning.teacher.teach` with
     :class:`~tarot_analysis.learning.teacher.OwnPlay`): a share ``label_share`` of its
     decisions valued by the search ``pimc:worlds`` whose worlds the same network plays out,
     every legal action on the same worlds, so that the network is taught what each action
     is worth when it plays the rest; one seat a deal may be played by each of ``others`` in
     turn, so that it meets opponents unlike itself;

2. **train**: the network trained on them, from its own weights
   (:func:`tarot_analysis.learning.streaming.train_streaming` with ``start``), streamed, so
   memory does not grow with the decisions; it keeps the margins of the network it starts from
   (:attr:`tarot_analysis.bots.learned.Model.margins`), which make the bot it improves;
3. **measure**: the new network in duplicate (:func:`tarot_analysis.table.duplicate.duplicate`)
   against the network it started from and each bot of ``against`` (the heuristic by default;
   ``pimc`` too where the time is there), on deals of a seed of their own, each with its 95%
   interval and its split by role (taker, partner, defender). A round gains when its interval
   against the network it started from lies above 0; otherwise the summary says it did not.

Everything goes to one folder, a sub-folder a round (``round-1/lessons``, ``round-1/model.npz``,
``round-1/training.json``, ``round-1/duplicate.json``) and ``rounds.json``, the summary. The
same call resumes where it stopped: the lessons are a run folder that keeps its finished chunks;
a round's network is written whole once trained (training stopped part-way starts again and,
for the same seed, ends with the same weights), and counts as trained only when it reads back
whole (one damaged on disk is trained again); its measures are written after. A folder made
with other settings, or from another network, is refused in one line, as is a folder that
holds other files (another run's).
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from tarot_analysis import __version__
from tarot_analysis.bots import Bot
from tarot_analysis.errors import TarotInputError, one_line, whole_number
from tarot_analysis.game.rules import Rules
from tarot_analysis.reader import DEFINITION_BYTES, read_json
from tarot_analysis.runs.files import replacing

if TYPE_CHECKING:
    from tarot_analysis.learning.teacher import OwnPlay

__all__ = ["LESSONS", "RoundOptions", "improve", "round_folder"]

#: The settings a folder of rounds keeps, beside its preset and first network.
SETTINGS_FILE: Final = "_rounds.json"
SUMMARY_FILE: Final = "rounds.json"
#: What rounds of the search's lessons whose settings name no such option were made with: the
#: options added since, as those rounds behaved before (their worlds played out by the network
#: at every seat). Self-play rounds take none of them: theirs are the defaults.
_MADE_WITHOUT: Final = {"other_seats": 1, "seated": False, "weighed": False}


#: How a round's decisions are labelled (:class:`RoundOptions`'s ``lessons``).
LESSONS: Final = ("self-play", "search")


@dataclass(frozen=True)
class RoundOptions:
    """What a round does: its deals, their exploration and chunks, how its decisions are
    labelled (``lessons``, one of :data:`LESSONS`; for ``"search"``, the search's ``worlds``,
    the ``label_share`` of decisions it values, the ``others`` at ``other_seats`` seats a deal,
    whether the search's worlds are played out by the bot at each seat, ``seated``, and weighed
    by the cards the other seats played, ``weighed``), the training's passes, shuffle buffer and
    learning rate, a search's lessons streamed beside the round's (``anchor``, its first
    ``anchor_chunks``: every legal action keeps a target), and the duplicate deals that measure
    it against the network before and each of ``against`` (``search_measure_deals`` against a
    bot that searches, some hundred times slower; their seed is ``seed + 1000``, never one the
    lessons used)."""

    deals: int = 200_000
    epsilon: float = 0.02
    chunk_size: int = 5_000
    epochs: int = 1
    buffer: int = 200_000
    learning_rate: float = 3e-4
    holdout: float = 0.02
    measure_deals: int = 20_000
    seed: int = 1
    anchor: str | None = None
    anchor_chunks: int | None = None
    lessons: str = "self-play"
    worlds: int = 8
    label_share: float = 1.0
    others: tuple[str, ...] = ()
    other_seats: int = 1
    seated: bool = True
    weighed: bool = False
    against: tuple[str, ...] = ("heuristic",)
    search_measure_deals: int = 1_000

    def check(self, players: int) -> None:
        """Refuse, in one line, settings that make no round at a table of ``players``."""
        for name in (
            "deals", "chunk_size", "epochs", "buffer", "measure_deals", "worlds",
            "search_measure_deals",
        ):  # fmt: skip
            whole_number(getattr(self, name), name.replace("_", " "), least=1)
        if not 0 <= self.epsilon <= 1:
            raise TarotInputError(f"epsilon is a probability from 0 to 1, got {self.epsilon}")
        if self.lessons not in LESSONS:
            raise TarotInputError(
                f"a round's lessons are {' or '.join(LESSONS)}, got {self.lessons!r}"
            )
        searched = (
            self.others, self.label_share != 1.0, self.other_seats != 1, not self.seated,
            self.weighed,
        )  # fmt: skip
        if self.lessons == "self-play" and any(searched):
            raise TarotInputError(
                "other bots at the table, their seats, a share of decisions valued and weighed "
                "worlds are for rounds whose lessons are the search's"
            )
        if self.lessons == "search":
            self.own_play().check(players)
        for name in self.against:
            Bot.parse(name)  # a bot's name, or one line
        # imported here: the trainer's module brings pyarrow and the learned bot
        from tarot_analysis.learning.training import check_learning_rate

        check_learning_rate(self.learning_rate)

    def own_play(self) -> OwnPlay:
        """The play a round's search lessons are on: the round's network (``learned``, the
        network each round starts from) with ``others`` at ``other_seats`` seats a deal, the
        search's worlds played out by the bot at each seat unless ``seated`` is false."""
        # imported here: the lessons' module compiles the search
        from tarot_analysis.learning.teacher import OwnPlay

        return OwnPlay(
            "learned", self.others, self.epsilon, self.label_share, self.other_seats, self.seated
        )


def round_folder(folder: str | os.PathLike[str], number: int) -> Path:
    """The sub-folder of round ``number`` (from 1)."""
    return Path(folder) / f"round-{number}"


def _settings(rules: Rules, start: Path, options: RoundOptions) -> dict[str, Any]:
    # imported here: reading a model's digest is all this needs of the lessons
    from tarot_analysis.learning.teacher import model_digest

    settings = {
        "kind": "self-play rounds", "rules": rules.name, "start": str(start),
        "start_digest": model_digest(start), "options": asdict(options),
    }  # fmt: skip
    return json.loads(json.dumps(settings))  # as read back: lists for tuples


def _claim(folder: Path, settings: dict[str, Any]) -> None:
    """Write the folder's settings, or check that they are those it was made with."""
    path = folder / SETTINGS_FILE
    if path.exists():
        found = read_json(path, "settings of rounds", limit=DEFINITION_BYTES)
        if not isinstance(found, dict):
            raise TarotInputError(f"{path}: not the settings of rounds")
        found.pop("version", None)
        options = found.get("options")
        if isinstance(options, dict):
            searched = options.get("lessons") == "search"
            made = (
                _MADE_WITHOUT
                if searched
                else {key: getattr(RoundOptions, key) for key in _MADE_WITHOUT}
            )
            found["options"] = made | options
        if found != settings:
            differing = sorted(
                key for key in {*found, *settings} if found.get(key) != settings.get(key)
            )
            raise TarotInputError(
                f"{folder}: rounds made with other settings ({', '.join(differing)} differ): "
                "use another folder, or the settings it was made with"
            )
        return
    _check_unclaimed(folder)
    folder.mkdir(parents=True, exist_ok=True)
    with replacing(path) as temporary:
        Path(temporary).write_text(
            json.dumps(settings | {"version": __version__}, indent=2), encoding="utf-8"
        )


def _check_unclaimed(folder: Path) -> None:
    """Refuse a folder without settings of rounds that already holds files (hidden ones, such
    as temporary files, left aside): another run's folder (the lessons of ``teach``, a
    guidance or self-play run, with its ``_run.json``) or anything else that the rounds'
    files would be mixed with."""
    if not folder.is_dir():
        return
    held = sorted(entry.name for entry in folder.iterdir() if not entry.name.startswith("."))
    if held:
        shown = ", ".join(held[:3]) + (", ..." if len(held) > 3 else "")
        raise TarotInputError(
            f"{folder} holds {shown} and no {SETTINGS_FILE}: not a folder of self-play rounds; "
            "use a new or empty folder"
        )


def _trained(model: Path, rules: Rules) -> bool:
    """Whether a round's network is on disk and reads back whole, as a table seats it
    (:func:`tarot_analysis.bots.learned.load_model`). One that does not (a write cut short, a
    damaged disk) is named in one line on standard error and trained again: the same weights
    for the same seed."""
    # imported here: the learned bot's module compiles its forward pass
    from tarot_analysis.bots.learned import load_model

    if not model.exists():
        return False
    try:
        load_model(model, rules)
    except TarotInputError as error:
        print(f"tarot-analysis: {one_line(error)}; training it again", file=sys.stderr)
        return False
    return True


def _write_json(path: Path, data: Any) -> None:
    with replacing(path) as temporary:
        Path(temporary).write_text(json.dumps(data, indent=2, allow_nan=False), encoding="utf-8")


def _interval(result: Any) -> dict[str, Any]:
    return {
        "mean": result.mean_diff, "low": result.ci_low, "high": result.ci_high,
        "by_role": result.by_role, "seconds": result.seconds,
    }  # fmt: skip


def _measure(
    rules: Rules, model: Path, previous: Path, options: RoundOptions, threads: int | None
) -> dict[str, Any]:
    """The round's network in duplicate against the network it started from and each bot of
    ``options.against``."""
    from tarot_analysis.table.duplicate import duplicate

    seed = options.seed + 1000
    bot = f"learned:{model}"
    edges = {}
    for name, opponent in (("previous", f"learned:{previous}"), *((b, b) for b in options.against)):
        searches = Bot.parse(opponent).kind == "pimc"
        deals = options.search_measure_deals if searches else options.measure_deals
        result = duplicate(rules.name, deals, bot, opponent, seed=seed, threads=threads)
        edges[f"against_{name}"] = _interval(result) | {"deals": deals}
    previous_edge = edges["against_previous"]
    return {
        "deals": options.measure_deals, "seed": seed, **edges, "gained": previous_edge["low"] > 0,
    }  # fmt: skip


def improve(
    rules: Rules,
    start: str | os.PathLike[str],
    folder: str | os.PathLike[str],
    rounds: int,
    options: RoundOptions | None = None,
    *,
    threads: int | None = None,
    progress: bool = False,
    client: Any = None,
) -> list[dict[str, Any]]:
    """Run rounds ``1 .. rounds`` of improvement from the action-in network
    ``start`` in ``folder``, resuming what is there; each round's summary (its decisions, its
    training and its duplicate measures), also written to ``rounds.json``."""
    from tarot_analysis.learning.selfplay import self_play
    from tarot_analysis.learning.streaming import (
        StreamingOptions,
        check_buffer_memory,
        load_action_in,
        train_streaming,
    )
    from tarot_analysis.learning.teacher import teach

    options = options or RoundOptions()
    options.check(rules.players)
    check_buffer_memory(options.buffer, rules.players)
    rounds = whole_number(rounds, "the rounds", least=1)
    first = Path(start).resolve()
    load_action_in(first, rules.name)  # an action-in network of this preset, or one line
    target = Path(folder)
    _claim(target, _settings(rules, first, options))
    summaries = []
    previous = first
    for number in range(1, rounds + 1):
        here = round_folder(target, number)
        lessons = here / "lessons"
        model = here / "model.npz"
        round_seed = options.seed * 1009 + number
        if options.lessons == "search":
            played = teach(
                rules, options.deals, lessons, worlds=options.worlds, seed=round_seed,
                chunk_size=options.chunk_size, threads=threads, progress=progress,
                client=client, play_outs="weighed" if options.weighed else "learned",
                own=options.own_play(), model=previous,
            )  # fmt: skip
        else:
            played = self_play(
                rules, options.deals, lessons, bot=f"learned:{previous}",
                epsilon=options.epsilon, seed=round_seed, chunk_size=options.chunk_size,
                threads=threads, progress=progress, client=client,
            )  # fmt: skip
        training_file = here / "training.json"
        if not (training_file.exists() and _trained(model, rules)):  # the same weights again
            # The bot a round improves is its network with its margins: the next keeps them.
            _, started = load_action_in(previous, rules.name)
            kept = {"margins": started["margins"]} if "margins" in started else {}
            training = train_streaming(
                lessons, rules.name,
                StreamingOptions(
                    epochs=options.epochs, seed=round_seed,
                    holdout=options.holdout, learning_rate=options.learning_rate,
                    buffer=options.buffer, start=str(previous), extra={"round": number} | kept,
                    anchor=options.anchor, anchor_chunks=options.anchor_chunks,
                ),
                out=model, progress=progress,
            )  # fmt: skip
            _write_json(training_file, training)
        measured_file = here / "duplicate.json"
        if not measured_file.exists():
            _write_json(measured_file, _measure(rules, model, previous, options, threads))
        summaries.append({
            "round": number, "deals": options.deals, "chunks": played.chunks,
            "started_from": str(previous), "model": str(model),
            "training": read_json(training_file, "training report", limit=DEFINITION_BYTES),
            "measured": read_json(measured_file, "round's measure", limit=DEFINITION_BYTES),
        })  # fmt: skip
        previous = model.resolve()
    _write_json(target / SUMMARY_FILE, {"rules": rules.name, "rounds": summaries})
    return summaries
