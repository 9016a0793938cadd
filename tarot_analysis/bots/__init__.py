"""Bots: the policies that bid, call, discard, announce and play inside the compiled engine.

A bot is named by a small record, :class:`Bot`, read from its name (``heuristic``,
``pimc:64``...) and handed to compiled code as one row of integers (the ``B_*`` columns of
:func:`bot_rows`, one row per seat; a learned bot's network beside them, :func:`seat_rows`).
Every compiled bot is asked through one door,
:func:`tarot_analysis.bots.door.decide`, which returns one action of the engine's numbering.
A new bot is a kind in :data:`BOTS`, its fields in :class:`Bot` (a column each), and one
branch in the door.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import Final

import numpy as np
import numpy.typing as npt

from tarot_analysis.errors import TarotInputError, is_digits, whole_number
from tarot_analysis.game.rules import Rules, is_safe_name

#: The kinds of compiled bot, by their number in the ``B_KIND`` column.
BOTS: Final = ("random", "heuristic", "pimc", "learned")
RANDOM: Final = 0
HEURISTIC: Final = 1
PIMC: Final = 2
LEARNED: Final = 3

#: Worlds drawn for each card decision by ``pimc``.
DEFAULT_WORLDS: Final = 32
#: The most worlds a ``pimc:N`` bot may draw for one card.
MAX_PIMC_WORLDS: Final = 4096
#: The most tricks a ``pimc:N:E`` bot plays out double dummy at the end of a deal.
MAX_ENDGAME_TRICKS: Final = 8
#: The most counts a ``heuristic:B`` bot may move a bidding threshold by, either way.
MAX_BID_SHIFT: Final = 40
#: The contracts a ``heuristic:P/G/S/C`` bot moves the thresholds of: prise, garde, garde
#: sans, garde contre.
N_BID_SHIFTS: Final = 4

#: The columns of a bot's row (:meth:`Bot.row`): its kind (:data:`BOTS`), a pimc bot's worlds
#: and endgame tricks (−1: the default for the table), and the heuristic's shift of each
#: contract's bidding threshold (``B_SHIFT_0 + k``, the prise's first).
B_KIND: Final = 0
B_WORLDS: Final = 1
B_ENDGAME: Final = 2
B_SHIFT_0: Final = 3
#: A learned bot's columns: where its network's weights start in the table's weights
#: (:func:`seat_rows`), the decisions it takes (bit ``k`` for decision kind ``k`` of
#: :mod:`tarot_analysis.engine.state`; the heuristic takes the others), for each decision kind
#: the gain in hundredths of a point its network must predict over the heuristic's action to
#: take another (``B_MARGIN_0 + kind``, :attr:`tarot_analysis.bots.learned.Model.margins`), how
#: many widths its network has and the widths themselves (inputs, the trunk's layers, the
#: head's, 1), and the layers of its network's trunk (``B_TRUNK``: at least 1 for a learned
#: bot, whose network is an action-in one; 0 for a bot without a network).
B_NET: Final = B_SHIFT_0 + N_BID_SHIFTS
B_LEARNS: Final = B_NET + 1
B_MARGIN_0: Final = B_NET + 2
N_DECISION_KINDS: Final = 6  # bid, call, ecart, poignee, chelem, card
B_DEPTH: Final = B_MARGIN_0 + N_DECISION_KINDS
B_WIDTH_0: Final = B_DEPTH + 1
#: The most layers of widths a learned bot's network may have: inputs, four hidden, outputs.
MAX_WIDTHS: Final = 6
B_TRUNK: Final = B_WIDTH_0 + MAX_WIDTHS
#: 1 for a ``pimc:weighed`` bot: its worlds weighed by what the other seats' cards revealed.
B_WEIGHED: Final = B_TRUNK + 1
#: A learned bot's margin for its cards at a seat of the side that did not take, in hundredths
#: of a point (the model's ``margins["defence"]``; its card margin where it names none): at
#: ``100 * MAX_MARGIN`` the heuristic plays every defender's card without asking the network.
B_DEFENCE_MARGIN: Final = B_WEIGHED + 1
N_BOT_COLUMNS: Final = B_DEFENCE_MARGIN + 1

_KNOWN: Final = (
    f"known: {', '.join(BOTS)}, pimc:N (N worlds a card), pimc:N:E (and the last E tricks "
    f"double dummy), pimc:learned or pimc:N:E:learned (its worlds read and played out by the "
    f"learned bot), pimc:weighed or pimc:N:E:weighed (and weighed by the cards the other "
    f"seats played), heuristic:B (its bidding thresholds moved by B), learned:PATH (the "
    f"network in a model file)"
)


@dataclass(frozen=True)
class Bot:
    """A compiled bot: its kind and settings, checked.

    ``worlds`` and ``endgame`` are a pimc bot's (worlds a card, :data:`DEFAULT_WORLDS` when 0;
    tricks played double dummy at the end of its worlds, −1 for the default of the table),
    ``shifts`` the heuristic's (counts added to each contract's bidding threshold), ``model``
    a learned bot's model file (empty: the one the package ships for the preset). A pimc bot
    with ``learned`` reads the auction of its worlds as the learned bot bids and plays them
    out with the learned bot at every seat (its ``model``), instead of the heuristic; one
    ``weighed`` (``pimc:weighed``) also weighs each world by how likely the cards the other
    seats played are in it, under the learned network (:mod:`tarot_analysis.bots.weighing`).

    >>> bot = Bot.parse("pimc:64:2")
    >>> bot.kind, bot.worlds, bot.endgame, bot.learned
    ('pimc', 64, 2, False)
    >>> Bot.parse("heuristic:-2/1/0/0").name
    'heuristic:-2/1/0/0'
    >>> Bot.parse("pimc:16:learned").name
    'pimc:16:learned'
    >>> Bot.parse("pimc:weighed").weighed, Bot.parse("pimc:8:2:weighed").name
    (True, 'pimc:8:2:weighed')
    """

    kind: str
    worlds: int = 0
    endgame: int = -1
    shifts: tuple[int, ...] = (0,) * N_BID_SHIFTS
    model: str = ""  # a learned bot's model file ("": the one shipped for the preset)
    learned: bool = False  # a pimc bot's worlds read and played out by the learned bot
    weighed: bool = False  # a pimc:learned bot's worlds weighed by the others' cards

    def __post_init__(self) -> None:
        if self.kind not in BOTS:
            raise TarotInputError(f"unknown bot {self.kind!r}; {_KNOWN}")
        named = f"bot {self.kind!r}"
        object.__setattr__(self, "worlds", whole_number(self.worlds, f"{named}: its worlds"))
        object.__setattr__(
            self, "endgame", whole_number(self.endgame, f"{named}: its endgame tricks")
        )
        shifts = tuple(whole_number(b, f"{named}: a shift of a threshold") for b in self.shifts)
        object.__setattr__(self, "shifts", shifts)
        if self.kind == "pimc" and self.worlds == 0:
            object.__setattr__(self, "worlds", DEFAULT_WORLDS)
        if self.kind != "pimc" and (self.worlds != 0 or self.endgame != -1):
            raise TarotInputError(f"a {self.kind} bot draws no worlds: only pimc does")
        if self.weighed and not self.learned:
            object.__setattr__(self, "learned", True)
        if self.learned and self.kind != "pimc":
            raise TarotInputError(f"a {self.kind} bot plays no worlds: only pimc:learned does")
        if self.kind != "learned" and self.model and not self.learned:
            raise TarotInputError(
                f"a {self.kind} bot reads no model: only learned and pimc:learned do"
            )
        if self.kind != "heuristic" and any(self.shifts):
            raise TarotInputError(f"a {self.kind} bot has no bidding shifts: only heuristic does")
        if self.kind == "pimc" and not 1 <= self.worlds <= MAX_PIMC_WORLDS:
            raise TarotInputError(
                f"bot {self.kind!r}: pimc:N takes a number of worlds from 1 to {MAX_PIMC_WORLDS}"
            )
        if not -1 <= self.endgame <= MAX_ENDGAME_TRICKS:
            raise TarotInputError(
                f"bot {self.kind!r}: pimc:N:E takes a number of endgame tricks from 0 to "
                f"{MAX_ENDGAME_TRICKS}"
            )
        shifts = tuple(self.shifts)
        if len(shifts) != N_BID_SHIFTS or any(abs(b) > MAX_BID_SHIFT for b in shifts):
            raise TarotInputError(
                f"bot {self.kind!r}: heuristic:B (or heuristic:P/G/S/C, one per contract) takes "
                f"shifts of the bidding thresholds from -{MAX_BID_SHIFT} to {MAX_BID_SHIFT}"
            )
        object.__setattr__(self, "shifts", shifts)

    @classmethod
    def parse(cls, name: str) -> Bot:
        """The bot named ``name``: a kind of :data:`BOTS`; ``pimc:N`` for the pimc bot drawing
        ``N`` worlds a card; ``pimc:N:E`` for one that also plays the last ``E`` tricks of its
        worlds double dummy (0: never; the default is ``pimc``'s); ``heuristic:B`` for the
        heuristic with every bidding threshold moved by ``B`` counts (``-4``: bolder, ``+4``:
        more cautious), ``heuristic:P/G/S/C`` with one shift per contract (prise, garde, garde
        sans, garde contre); ``pimc:learned``, ``pimc:N:learned`` or ``pimc:N:E:learned`` for a
        pimc bot whose worlds the learned bot reads and plays out (``...:learned:PATH``: the
        model in ``PATH``); ``weighed`` in place of ``learned`` for one that also weighs its
        worlds. A wrong name raises :class:`TarotInputError`."""
        if not isinstance(name, str):
            raise TarotInputError(f"a bot's name is a text, got {name!r}")
        base, _, budget = name.partition(":")
        if base == "heuristic" and budget:
            return cls("heuristic", shifts=_bid_shifts(name, budget))
        head = budget.partition(":")[0]
        if base == "pimc" and head in _PLAYED_OUT:
            return cls(
                "pimc", model=budget.partition(":")[2], learned=True, weighed=head == "weighed"
            )
        if base == "pimc" and budget:
            budget, learned, model = _learned_part(budget)
            weighed = learned == "weighed"
            worlds, _, endgame = budget.partition(":")
            if not is_digits(worlds) or not 1 <= int(worlds) <= MAX_PIMC_WORLDS:
                raise TarotInputError(
                    f"bot {name!r}: pimc:N takes a number of worlds from 1 to {MAX_PIMC_WORLDS}"
                )
            if endgame and (not is_digits(endgame) or int(endgame) > MAX_ENDGAME_TRICKS):
                raise TarotInputError(
                    f"bot {name!r}: pimc:N:E takes a number of endgame tricks from 0 to "
                    f"{MAX_ENDGAME_TRICKS}"
                )
            return cls(
                "pimc", worlds=int(worlds), endgame=int(endgame) if endgame else -1,
                model=model, learned=bool(learned), weighed=weighed,
            )  # fmt: skip
        if base == "learned" and budget:
            return cls("learned", model=name.partition(":")[2])
        if name not in BOTS:
            raise TarotInputError(f"unknown bot {name!r}; {_KNOWN}")
        return cls(name)

    @property
    def name(self) -> str:
        """The shortest name :meth:`parse` reads back as this bot."""
        if self.kind == "heuristic" and any(self.shifts):
            if len(set(self.shifts)) == 1:
                return f"heuristic:{self.shifts[0]}"
            return "heuristic:" + "/".join(str(b) for b in self.shifts)
        if self.kind == "pimc":
            parts = ["pimc"]
            if self.endgame >= 0:
                parts += [str(self.worlds), str(self.endgame)]
            elif self.worlds != DEFAULT_WORLDS:
                parts.append(str(self.worlds))
            if self.learned:
                token = "weighed" if self.weighed else "learned"
                parts += [token, self.model] if self.model else [token]
            return ":".join(parts)
        if self.kind == "learned" and self.model:
            return f"learned:{self.model}"
        return self.kind

    def row(self) -> npt.NDArray[np.int64]:
        """The bot as compiled code reads it: :data:`N_BOT_COLUMNS` integers (``B_*``)."""
        row = np.zeros(N_BOT_COLUMNS, dtype=np.int64)
        row[B_KIND] = BOTS.index(self.kind)
        row[B_WORLDS] = self.worlds
        row[B_ENDGAME] = self.endgame
        row[B_SHIFT_0 : B_SHIFT_0 + N_BID_SHIFTS] = self.shifts
        row[B_WEIGHED] = int(self.weighed)
        return row


def seat_rows(
    bots: Sequence[Bot | str], rules: Rules
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
    """The rows of a table's bots (:func:`bot_rows`) and the weights of its learned bots'
    networks, one after another (each read once, checked against ``rules``; a model that
    cannot be read raises :class:`TarotInputError` naming its file)."""
    # imported here: the compiled engine (numba) is not needed to read the bots' names
    from tarot_analysis.bots.learned import load_model, shipped_model
    from tarot_analysis.engine.state import DECISIONS

    parsed = [bot if isinstance(bot, Bot) else Bot.parse(bot) for bot in bots]
    rows = bot_rows(parsed)
    nets: list[npt.NDArray[np.float32]] = []
    starts: dict[str, int] = {}
    at = 0
    for seat, bot in enumerate(parsed):
        if bot.kind != "learned" and not bot.learned:
            continue
        path = bot.model or str(shipped_model(rules))
        model = load_model(path, rules)  # its layers checked to fit MAX_WIDTHS
        if model.trunk < 1:  # the door scores every network as an action-in one
            raise TarotInputError(f"{path}: a network without a trunk, which no table seats")
        if path not in starts:
            starts[path] = at
            nets.append(model.weights)
            at += len(model.weights)
        row = rows[seat]
        row[B_NET] = starts[path]
        row[B_LEARNS] = model.learns
        row[B_MARGIN_0 : B_MARGIN_0 + N_DECISION_KINDS] = [
            round(100 * model.margins.get(name, 0.0)) for name in DECISIONS[:N_DECISION_KINDS]
        ]
        row[B_DEFENCE_MARGIN] = round(100 * model.margins.get("defence", 0.0))
        row[B_DEPTH] = len(model.widths)
        row[B_WIDTH_0 : B_WIDTH_0 + len(model.widths)] = model.widths
        row[B_TRUNK] = model.trunk
    weights = np.concatenate(nets) if nets else np.zeros(0, dtype=np.float32)
    return rows, weights


def bot_rows(bots: Sequence[Bot | str]) -> npt.NDArray[np.int64]:
    """The rows of a table's bots, one per seat (names are parsed): ``(seats, N_BOT_COLUMNS)``."""
    rows = [(bot if isinstance(bot, Bot) else Bot.parse(bot)).row() for bot in bots]
    return np.array(rows, dtype=np.int64).reshape(len(rows), N_BOT_COLUMNS)


def file_label(name: str) -> str:
    """The bot ``name`` as it stands in the name of a run's folder or a report's file: the name
    itself when it is a safe part of a file name (``pimc:64``); otherwise one made of safe
    characters only, the model file's stem for its path, and the first 8 hex digits of the
    name's SHA-256 so that two names do not meet (``learned:runs/a.npz``:
    ``learned:a-<hash>``). The name is checked first (:meth:`Bot.parse`).

    >>> file_label("pimc:64"), file_label("heuristic:-2/1/0/0")[:-8]
    ('pimc:64', 'heuristic:-2_1_0_0-')
    >>> file_label("learned:/tmp/models/mine.npz")[:-8]
    'learned:mine-'
    """
    bot = Bot.parse(name)
    if is_safe_name(name.replace(":", "_")):
        return name
    shown = name.removesuffix(bot.model) + PurePath(bot.model).stem if bot.model else name
    slug = re.sub(r"[^A-Za-z0-9:_-]+", "_", shown).strip("_")[:40]
    return f"{slug}-{hashlib.sha256(name.encode()).hexdigest()[:8]}"


#: The words of a pimc bot's name that seat the learned bot in its worlds (``weighed``: and
#: weigh them).
_PLAYED_OUT: Final = ("learned", "weighed")


def _learned_part(budget: str) -> tuple[str, str, str]:
    """``N:E:learned:PATH`` split: ``("N:E", "learned", "PATH")`` (or ``"weighed"``); a budget
    without either whole, with ``""``."""
    parts = budget.split(":")
    found = [at for at in (1, 2) if at < len(parts) and parts[at] in _PLAYED_OUT]
    if not found:
        return budget, "", ""
    at = found[0]
    return ":".join(parts[:at]), parts[at], ":".join(parts[at + 1 :])


def _bid_shifts(name: str, budget: str) -> tuple[int, ...]:
    """The shifts of ``heuristic:B`` or ``heuristic:P/G/S/C``, one per contract."""
    parts = budget.split("/")
    if len(parts) == 1:
        parts *= N_BID_SHIFTS
    shifts = [int(part) for part in parts if re.fullmatch(r"[+-]?[0-9]+", part)]
    if len(shifts) != N_BID_SHIFTS or any(abs(b) > MAX_BID_SHIFT for b in shifts):
        raise TarotInputError(
            f"bot {name!r}: heuristic:B (or heuristic:P/G/S/C, one per contract) takes shifts "
            f"of the bidding thresholds from -{MAX_BID_SHIFT} to {MAX_BID_SHIFT}"
        )
    return tuple(shifts)


#: The bots that may play the search's worlds out: the heuristic, or the learned bot shipped
#: for the preset (which then also reads the worlds' auction as it bids: ``pimc:learned``).
PLAY_OUTS: Final = ("heuristic", "learned")


def play_outs_learned(play_outs: str) -> bool:
    """Whether ``play_outs`` (one of :data:`PLAY_OUTS`) names the learned bot, checked."""
    if play_outs not in PLAY_OUTS:
        raise TarotInputError(
            f"the search's worlds are played out by {' or '.join(PLAY_OUTS)}, got {play_outs!r}"
        )
    return play_outs == "learned"
