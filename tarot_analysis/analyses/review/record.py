"""The record of a played deal, read and checked against the engine action by action.

A record is a TOML file a person can write, or the JSON that ``replay --json`` writes, read
as it is; both hold the same keys:

- ``rules``: a preset's name (or a rules file); ``hands``: one hand per seat in the notation,
  seat 0 first; ``dog``;
- ``bids``: one a seat in the order they speak, from seat 0: a contract's name, or ``pass``
  (``null`` in JSON); a bid may name its seat, ``"2: garde"``. Without ``bids``, ``taker``
  and ``contract`` set the contract (no auction); with them, they must agree with it;
- ``call``: the called card (five players), or a list of cards (six); ``called`` as
  ``replay --json`` writes it (``[{"card": "KH", "held_by": 3}]``) is read the same;
- ``ecart``: the cards the taker discards, in the order discarded;
- ``poignees``: the level each seat shows (``{2 = "simple"}``); ``chelem`` (or
  ``chelem_announced``): whether the taker announces one;
- ``tricks``: each trick's cards in the order played, from its leader: a string
  (``"KH 3H 21 1H"``, a card may name its seat, ``"2:21"``), a list of cards, or the
  ``{"leader": 0, "cards": [...], "winner": 2}`` of ``replay --json`` (its leader and winner
  checked against the engine's).

``deal``, ``seed``, ``chunk_size``, ``bots``, ``redeal``, ``score`` and ``title`` say where the
deal comes from; they are kept, not checked. Any other key is refused.

The record stops where a part is left out: a deal whose record ends after the écart is
reviewed up to it. Left out with the tricks given, the poignées are none and the chelem is
not announced. Every action is checked in the engine as it is read; the first one that is
not legal is named in one line (which trick, which seat, which card, what it could have
played), with the file's name, as a :class:`~tarot_analysis.errors.TarotInputError`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from tarot_analysis.engine import state as S
from tarot_analysis.engine.game import GameState, action_name
from tarot_analysis.errors import TarotInputError, is_digits
from tarot_analysis.game import cards
from tarot_analysis.game.rules import Rules, load_rules
from tarot_analysis.reader import RECORD_BYTES, read_json, read_toml

__all__ = ["GameRecord", "Step", "parse_record", "read_record", "record_of"]

#: What each key of a record holds: the deal, then each phase in the order played.
DEAL_KEYS: Final = ("rules", "hands", "dog")
PHASE_KEYS: Final = (
    "bids", "taker", "contract", "call", "called", "ecart", "poignees", "chelem",
    "chelem_announced", "tricks",
)  # fmt: skip
#: Kept as they are, not checked: where the deal comes from.
ABOUT_KEYS: Final = ("title", "deal", "seed", "chunk_size", "bots", "redeal", "score")
KNOWN_KEYS: Final = DEAL_KEYS + PHASE_KEYS + ABOUT_KEYS
LEVELS: Final = ("none", "simple", "double", "triple")


@dataclass(frozen=True)
class Step:
    """One action of the record: the decision's kind (``bid``, ``call``, ``ecart``,
    ``poignee``, ``chelem``, ``card``), the seat that took it, the action (the engine's
    numbering), and for a card its trick (from 1) and place in it (from 0)."""

    kind: str
    seat: int
    action: int
    trick: int | None = None
    place: int | None = None

    def where(self) -> str:
        """Where the step stands, in words: ``trick 3, seat 2`` or ``the écart, seat 0``."""
        if self.trick is not None:
            return f"trick {self.trick}, seat {self.seat}"
        return f"{PHASE_WORDS[self.kind]}, seat {self.seat}"


PHASE_WORDS: Final = {
    "bid": "the auction", "call": "the call", "ecart": "the écart", "poignee": "the poignées",
    "chelem": "the chelem", "card": "the play",
}  # fmt: skip


@dataclass(frozen=True)
class GameRecord:
    """A played deal as read: its rules, the deal (hands then dog, as masks), the contract
    when set without an auction, every action checked, in order, and whether the record goes
    to the end of the deal (``stopped`` says where it stops otherwise)."""

    rules: Rules
    masks: npt.NDArray[np.uint64]
    forced: tuple[int, ...] | None
    steps: tuple[Step, ...]
    stopped: str
    source: str = "the record"
    about: dict[str, Any] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        """Whether the record plays the deal to its end (or to its redeal)."""
        return not self.stopped

    def start(self) -> GameState:
        """The deal as dealt, before its first action."""
        forced = list(self.forced) if self.forced is not None else None
        return GameState(self.rules, self.masks, forced=forced)

    def states(self) -> Iterator[tuple[GameState, Step]]:
        """Each step with the state just before it (a copy the caller may keep)."""
        state = self.start()
        for step in self.steps:
            yield state.copy(), step
            state.apply(step.action)

    def end(self) -> GameState:
        """The state after the record's last action."""
        state = self.start()
        for step in self.steps:
            state.apply(step.action)
        return state

    def hands(self) -> list[str]:
        """Each seat's hand as dealt, then the dog, in the notation."""
        return [cards.format_cards(cards.from_mask(int(lo), int(hi))) for lo, hi in self.masks]


def read_record(path: str | os.PathLike[str], *, rules: Rules | None = None) -> GameRecord:
    """The record in the file ``path`` (``.json`` is read as JSON, anything else as TOML),
    every action checked; ``rules`` replaces the record's own."""
    where = Path(path)
    read = read_json if where.suffix.lower() == ".json" else read_toml
    data = read(where, "game record", limit=RECORD_BYTES)
    return parse_record(data, source=str(where), rules=rules)


def parse_record(
    data: Mapping[str, Any], *, source: str = "the record", rules: Rules | None = None
) -> GameRecord:
    """The record ``data`` (the keys of the module's docstring), every action checked; a
    mistake raises :class:`TarotInputError` naming ``source`` and where in the deal."""
    try:
        return _parse(data, source, rules)
    except TarotInputError as error:
        raise TarotInputError(f"game record {source}: {error}") from None


def _parse(data: Mapping[str, Any], source: str, rules: Rules | None) -> GameRecord:
    if not isinstance(data, Mapping):
        raise TarotInputError("a record is a table of keys (rules, hands, dog, bids, ...)")
    unknown = [key for key in data if key not in KNOWN_KEYS]
    if unknown:
        raise TarotInputError(
            f"unknown key {unknown[0]!r}; a record's keys: {', '.join(KNOWN_KEYS)}"
        )
    for key in DEAL_KEYS if rules is None else DEAL_KEYS[1:]:
        if key not in data:
            raise TarotInputError(f"no {key!r}: a record needs rules, hands and dog")
    if rules is None:
        rules = load_rules(_text(data["rules"], "rules"))
    if rules.tarocco is not None:
        raise TarotInputError(f"a review is of French Tarot, not {rules.name}")
    masks = _deal(rules, data["hands"], data["dog"])
    forced = _forced(rules, data)
    reader = _Reader(rules, data, masks, forced)
    steps, stopped = reader.read()
    about = {key: data[key] for key in ABOUT_KEYS if key in data}
    return GameRecord(rules, masks, forced, tuple(steps), stopped, source, about)


def _text(value: object, key: str) -> str:
    if not isinstance(value, str):
        raise TarotInputError(f"{key} must be a string, got {value!r}")
    return value


def _cards_of(value: object, where: str) -> list[str]:
    """The card tokens of ``value``: a string in the notation or a list of card names."""
    if isinstance(value, str):
        return [token for token in value.replace(",", " ").replace(";", " ").split() if token]
    if isinstance(value, list) and all(isinstance(token, str) for token in value):
        return [token.strip() for token in value]
    raise TarotInputError(f"{where} must be cards in the notation (a string), got {value!r}")


def _card(token: str, where: str) -> int:
    try:
        return cards.parse_card(token)
    except TarotInputError as error:
        raise TarotInputError(f"{where}: {error}") from None


def _deal(rules: Rules, hands: object, dog: object) -> npt.NDArray[np.uint64]:
    """The hands and the dog as masks: every seat's hand, each card once, the right sizes."""
    if not isinstance(hands, list):
        raise TarotInputError(f"hands must be a list of {rules.players} hands, got {hands!r}")
    if len(hands) != rules.players:
        missing = "a hand is missing" if len(hands) < rules.players else "a hand too many"
        raise TarotInputError(
            f"hands: {len(hands)} hands given, {rules.name} deals {rules.players}: {missing}"
        )
    groups: list[tuple[str, list[int]]] = []
    for seat, text in enumerate([*hands, dog]):
        where = f"seat {seat}'s hand" if seat < rules.players else "the dog"
        held = [_card(token, where) for token in _cards_of(text, where)]
        expected = rules.hand_size if seat < rules.players else rules.dog_size
        if len(held) != expected:
            raise TarotInputError(f"{where} holds {len(held)} cards, {expected} expected")
        groups.append((where, held))
    cards.check_each_once(groups)
    masks = np.zeros((rules.players + 1, 2), dtype=np.uint64)
    for row, (_, held) in enumerate(groups):
        masks[row] = cards.to_mask(held)
    return masks


def _forced(rules: Rules, data: Mapping[str, Any]) -> tuple[int, ...] | None:
    """Taker and contract set without an auction (no ``bids``), else ``None``."""
    if "bids" in data or "taker" not in data or "contract" not in data:
        return None
    taker, contract = data["taker"], data["contract"]
    if not isinstance(taker, int) or isinstance(taker, bool) or not 0 <= taker < rules.players:
        raise TarotInputError(f"taker must be a seat from 0 to {rules.players - 1}, got {taker!r}")
    return (taker, _contract(rules, contract, "contract"), -1, -1)


def _contract(rules: Rules, name: object, where: str) -> int:
    names = [contract.name for contract in rules.contracts]
    if not isinstance(name, str) or name.strip().lower() not in names:
        raise TarotInputError(
            f"{where}: {rules.name} has no contract {name!r}; its contracts: {', '.join(names)}"
        )
    return names.index(name.strip().lower())


class _Reader:
    """The record's actions taken one by one in the engine, each checked as it is read."""

    def __init__(
        self,
        rules: Rules,
        data: Mapping[str, Any],
        masks: npt.NDArray[np.uint64],
        forced: tuple[int, ...] | None,
    ) -> None:
        self.rules = rules
        self.data = data
        self.state = GameState(rules, masks, forced=list(forced) if forced else None)
        self.steps: list[Step] = []
        self.bids = _listed(data.get("bids"), "bids") if "bids" in data else None
        self.calls = _calls(data)
        self.ecart = _cards_of(data["ecart"], "ecart") if data.get("ecart") is not None else None
        self.poignees = _poignees(rules, data)
        self.chelem = _chelem(data)
        self.tricks = _listed(data.get("tricks"), "tricks") if "tricks" in data else None
        self.used = {"bid": 0, "call": 0, "ecart": 0}

    def read(self) -> tuple[list[Step], str]:
        """Every action the record gives; where it stops (``""``: at the end of the deal)."""
        readers = {
            "bid": self._bid, "call": self._call, "ecart": self._ecart,
            "poignee": self._poignee, "chelem": self._chelem, "card": self._card,
        }  # fmt: skip
        stopped = ""
        while not self.state.is_over:
            kind = self.state.decision
            action = readers[kind]()
            if action is None:
                stopped = f"{PHASE_WORDS[kind]} (seat {self.state.actor} to act)"
                if kind == "card":
                    stopped = (
                        f"trick {int(self.state.s[S.S_TRICK]) + 1} (seat {self.state.actor} to "
                        "play)"
                    )
                break
            self._take(kind, action)
        self._check_all_used(stopped)
        return self.steps, stopped

    def _take(self, kind: str, action: int) -> None:
        state = self.state
        trick = place = None
        if kind == "card":
            trick = int(state.s[S.S_TRICK]) + 1
            place = int(state.s[S.S_IN_TRICK])
        self.steps.append(Step(kind, state.actor, action, trick, place))
        state.apply(action)
        if trick is not None and place == self.rules.players - 1:
            self._check_trick_ends(trick)

    def _refuse(self, where: str, what: str) -> TarotInputError:
        legal = self.state.legal_actions()
        names = " ".join(action_name(int(a), self.rules).removeprefix("bid ") for a in legal)
        return TarotInputError(f"{where}: {what}; it could have: {names}")

    def _bid(self) -> int | None:
        if self.bids is None or self.used["bid"] >= len(self.bids):
            return None
        said = self.bids[self.used["bid"]]
        self.used["bid"] += 1
        seat = self.state.actor
        where = f"the auction, seat {seat}"
        text = "pass" if said is None else _text(said, "a bid")
        if ":" in text:
            named, text = (part.strip() for part in text.split(":", 1))
            if named != str(seat):
                raise TarotInputError(
                    f"{where}: a bid by seat {named} out of turn, seat {seat} speaks now"
                )
        action = S.PASS if text.lower() == "pass" else S.BID_0 + _contract(self.rules, text, where)
        if not self.state.action_mask()[action]:
            raise self._refuse(where, f"cannot bid {text} here")
        return action

    def _call(self) -> int | None:
        if self.calls is None or self.used["call"] >= len(self.calls):
            return None
        token = self.calls[self.used["call"]]
        self.used["call"] += 1
        where = f"the call, seat {self.state.actor}"
        card = _card(token, where)
        if not self.state.action_mask()[card]:
            raise self._refuse(where, f"cannot call {cards.card_name(card)}")
        return card

    def _ecart(self) -> int | None:
        if self.ecart is None or self.used["ecart"] >= len(self.ecart):
            return None
        token = self.ecart[self.used["ecart"]]
        self.used["ecart"] += 1
        seat = self.state.actor
        where = f"the écart, seat {seat}"
        card = _card(token, where)
        if card not in self.state.hand(seat):
            raise self._refuse(where, f"{cards.card_name(card)} is not in its hand with the dog")
        if not self.state.action_mask()[card]:
            raise self._refuse(where, f"{cards.card_name(card)} may not go to the écart")
        return card

    def _poignee(self) -> int | None:
        if self.poignees is None:
            return None
        seat = self.state.actor
        level = self.poignees.pop(seat, 0)
        action = S.SHOW_0 + level
        if not self.state.action_mask()[action]:
            raise self._refuse(
                f"the poignées, seat {seat}", f"cannot show a {LEVELS[level]} poignée"
            )
        return action

    def _chelem(self) -> int | None:
        if self.chelem is None:
            return None
        return S.ANNOUNCE_CHELEM if self.chelem else S.NO_CHELEM

    def _card(self) -> int | None:
        if self.tricks is None:
            return None
        s = self.state.s
        t, k = int(s[S.S_TRICK]), int(s[S.S_IN_TRICK])
        if t >= len(self.tricks):
            return None
        tokens = self._trick_tokens(t)
        if k == 0:
            self._check_leader(t)
        if k >= len(tokens):
            return None
        seat = self.state.actor
        where = f"trick {t + 1}, seat {seat}"
        token = tokens[k]
        if ":" in token:
            named, token = (part.strip() for part in token.split(":", 1))
            if named != str(seat):
                raise self._refuse(where, f"a card by seat {named} out of turn")
        card = _card(token, where)
        if not self.state.action_mask()[card]:
            raise self._refuse(where, f"{cards.card_name(card)} {self._why_not(seat, card)}")
        return card

    def _why_not(self, seat: int, card: int) -> str:
        """Why ``seat`` may not play ``card``: not held (played already, held by another), or
        a revoke."""
        if card in self.state.hand(seat):
            return "is not a legal card here (a revoke)"
        for step in self.steps:
            if step.kind == "card" and step.action == card:
                return f"was played already, by seat {step.seat} to trick {step.trick}"
            if step.kind == "ecart" and step.action == card:
                return "is in the écart"
        holder = [other for other in range(self.rules.players) if card in self.state.hand(other)]
        if holder:
            return f"is not in its hand (seat {holder[0]} holds it)"
        return "is not in its hand"

    def _trick_tokens(self, t: int) -> list[str]:
        entry = self.tricks[t] if self.tricks is not None else None
        where = f"trick {t + 1}"
        if isinstance(entry, Mapping):
            unknown = [key for key in entry if key not in ("leader", "cards", "winner")]
            if unknown:
                raise TarotInputError(
                    f"{where}: unknown key {unknown[0]!r} (leader, cards, winner)"
                )
            entry = entry.get("cards")
        tokens = _cards_of(entry, where)
        if len(tokens) > self.rules.players:
            raise TarotInputError(
                f"{where} holds {len(tokens)} cards, {self.rules.name} plays "
                f"{self.rules.players} a trick"
            )
        if len(tokens) < self.rules.players and t + 1 < len(self.tricks or []):
            raise TarotInputError(
                f"{where} holds {len(tokens)} cards, {self.rules.players} expected before trick "
                f"{t + 2}"
            )
        return tokens

    def _check_leader(self, t: int) -> None:
        entry = self.tricks[t] if self.tricks is not None else None
        leader = int(self.state.s[S.S_LEADER])
        if isinstance(entry, Mapping) and "leader" in entry and entry["leader"] != leader:
            raise TarotInputError(
                f"trick {t + 1}: the record says seat {entry['leader']} leads, seat {leader} does"
            )

    def _check_trick_ends(self, trick: int) -> None:
        entry = self.tricks[trick - 1] if self.tricks is not None else None
        winner = int(self.state.s[S.S_LEADERS + trick])
        if not self.state.is_over:
            winner = int(self.state.s[S.S_LEADER])
        if isinstance(entry, Mapping) and "winner" in entry and entry["winner"] != winner:
            raise TarotInputError(
                f"trick {trick}: the record says seat {entry['winner']} wins it, seat {winner} does"
            )

    def _check_all_used(self, stopped: str) -> None:
        """Nothing given past where the record stops, no action beyond the deal's."""
        bids = self.bids or []
        if self.used["bid"] < len(bids):
            raise TarotInputError(
                f"bids: {len(bids)} bids given, the auction took {self.used['bid']}"
            )
        for kind, given in (("call", self.calls), ("ecart", self.ecart)):
            if given is not None and self.used[kind] < len(given):
                what = "the called cards" if kind == "call" else "the écart"
                raise TarotInputError(
                    f"{kind}: {len(given)} cards given, {self.used[kind]} for {what}"
                    + (f" (the record stops at {stopped})" if stopped else "")
                )
        if self.poignees:
            seat, level = next(iter(self.poignees.items()))
            raise TarotInputError(
                f"poignees: seat {seat} shows a {LEVELS[level]} poignée, but is never asked "
                "(it holds too few trumps, or the rules let only the taker show one)"
                if not stopped
                else f"poignees: seat {seat}'s poignée is past where the record stops ({stopped})"
            )
        self._check_contract()
        tricks = self.tricks or []
        played = sum(1 for step in self.steps if step.kind == "card")
        in_tricks = sum(len(self._trick_tokens(t)) for t in range(len(tricks)))
        if played < in_tricks:
            raise TarotInputError(
                f"tricks: {len(tricks)} tricks given, but the record stops at {stopped}"
                if stopped
                else f"tricks: {len(tricks)} tricks given, a deal of {self.rules.name} has "
                f"{self.rules.hand_size}"
            )

    def _check_contract(self) -> None:
        """``taker`` and ``contract``, when given beside the bids, agree with the auction."""
        if self.bids is None or self.state.decision == "bid":
            return
        taker = int(self.state.s[S.S_TAKER])
        if "taker" in self.data and self.data["taker"] != taker and taker >= 0:
            raise TarotInputError(
                f"taker: the record says seat {self.data['taker']}, the bids "
                f"make seat {taker} the taker"
            )
        contract = int(self.state.s[S.S_CONTRACT])
        named = self.data.get("contract")
        if named is not None and contract >= 0 and named != self.rules.contracts[contract].name:
            raise TarotInputError(
                f"contract: the record says {named!r}, the bids make it "
                f"{self.rules.contracts[contract].name!r}"
            )


def _listed(value: object, key: str) -> list[Any]:
    if not isinstance(value, list):
        raise TarotInputError(f"{key} must be a list, got {value!r}")
    return value


def _calls(data: Mapping[str, Any]) -> list[str] | None:
    """The called cards, from ``call`` (a card or a list) or ``called`` (replay's JSON)."""
    if "call" in data:
        value = data["call"]
        return [value] if isinstance(value, str) else _cards_of(value, "call")
    if "called" in data:
        called = _listed(data["called"], "called")
        tokens = []
        for entry in called:
            card = entry.get("card") if isinstance(entry, Mapping) else entry
            tokens.append(_text(card, "a called card"))
        return tokens
    return None


def _poignees(rules: Rules, data: Mapping[str, Any]) -> dict[int, int] | None:
    """The level each seat shows; none when left out with the tricks given."""
    value = data.get("poignees")
    if value is None:
        return {} if "tricks" in data else None
    if not isinstance(value, Mapping):
        raise TarotInputError(f'poignees must be a table of seats, {{2 = "simple"}}, got {value!r}')
    levels: dict[int, int] = {}
    for key, level in value.items():
        seat = int(key) if is_digits(str(key)) else -1
        if not 0 <= seat < rules.players:
            raise TarotInputError(f"poignees: {key!r} is not a seat of {rules.name}")
        if level not in LEVELS:
            raise TarotInputError(
                f"poignees: seat {seat}'s level must be one of {', '.join(LEVELS)}, got {level!r}"
            )
        if LEVELS.index(level):
            levels[seat] = LEVELS.index(level)
    return dict(sorted(levels.items()))


def _chelem(data: Mapping[str, Any]) -> bool | None:
    """Whether the taker announces a chelem; no when left out with the tricks given."""
    for key in ("chelem", "chelem_announced"):
        if key in data:
            if not isinstance(data[key], bool):
                raise TarotInputError(f"{key} must be true or false, got {data[key]!r}")
            return bool(data[key])
    return False if "tricks" in data else None


def record_data(record: GameRecord) -> dict[str, Any]:
    """``record`` as the keys it is read from (cards in the notation): what a TOML record of
    the same deal holds, with every action the record gives."""
    rules = record.rules
    hands = record.hands()
    data: dict[str, Any] = {"rules": rules.name, "hands": hands[:-1], "dog": hands[-1]}
    names = [contract.name for contract in rules.contracts]
    by_kind: dict[str, list[Step]] = {}
    for step in record.steps:
        by_kind.setdefault(step.kind, []).append(step)
    if record.forced is not None:
        data["taker"], data["contract"] = record.forced[0], names[record.forced[1]]
    if "bid" in by_kind:
        data["bids"] = [
            "pass" if step.action == S.PASS else names[step.action - S.BID_0]
            for step in by_kind["bid"]
        ]
    if "call" in by_kind:
        called = [cards.card_name(step.action) for step in by_kind["call"]]
        data["call"] = called[0] if len(called) == 1 else called
    if "ecart" in by_kind:
        data["ecart"] = " ".join(cards.card_name(step.action) for step in by_kind["ecart"])
    shown = {
        str(step.seat): LEVELS[step.action - S.SHOW_0]
        for step in by_kind.get("poignee", [])
        if step.action > S.SHOW_0
    }
    if shown:
        data["poignees"] = shown
    if "chelem" in by_kind:
        data["chelem"] = by_kind["chelem"][0].action == S.ANNOUNCE_CHELEM
    if "card" in by_kind:
        tricks: list[list[str]] = []
        for step in by_kind["card"]:
            if step.place == 0:
                tricks.append([])
            tricks[-1].append(cards.card_name(step.action))
        data["tricks"] = [" ".join(trick) for trick in tricks]
    return data


def steps_of(record: GameRecord, kinds: Sequence[str]) -> list[Step]:
    """The record's steps of the given kinds."""
    return [step for step in record.steps if step.kind in kinds]


def record_of(
    state: GameState, masks: npt.ArrayLike, *, forced: Sequence[int] | None = None
) -> dict[str, Any]:
    """The record (the keys :func:`parse_record` reads) of the deal ``masks`` played to where
    ``state`` stands: the bids spoken, the call, the écart, the poignées, the chelem and the
    tricks, the one in progress too; ``forced``: the taker and contract set without an
    auction, as the state was started."""
    rules = state.rules
    players = rules.players
    s, m = state.s, state.m
    deal = np.asarray(masks, dtype=np.uint64)
    hands = [cards.format_cards(cards.from_mask(int(lo), int(hi))) for lo, hi in deal]
    data: dict[str, Any] = {"rules": rules.name, "hands": hands[:-1], "dog": hands[-1]}
    names = [contract.name for contract in rules.contracts]
    kind = int(s[S.S_KIND])
    if forced is not None and forced[0] >= 0:
        data["taker"], data["contract"] = int(forced[0]), names[int(forced[1])]
    else:
        spoken = players if kind != S.BID else int(s[S.S_NEXT])
        bids = [int(b) for b in s[S.S_BIDS : S.S_BIDS + spoken]]
        data["bids"] = ["pass" if b < 0 else names[b] for b in bids]
    if kind in (S.BID, S.OVER) and not state.is_played:
        return data
    called = [int(c) for c in (s[S.S_CALLED_1], s[S.S_CALLED_2]) if c >= 0]
    if called and (forced is None or forced[2] < 0):
        data["call"] = cards.card_name(called[0]) if len(called) == 1 else [
            cards.card_name(c) for c in called
        ]  # fmt: skip
    ecart = cards.from_mask(int(m[S.M_ECART]), int(m[S.M_ECART + 1]))
    if ecart:
        data["ecart"] = cards.format_cards(ecart)
    if kind in (S.CARD, S.OVER):
        shown = {str(k): LEVELS[int(s[S.S_POIGNEES + k])] for k in range(players)}
        data["poignees"] = {k: v for k, v in shown.items() if v != "none"}
        data["chelem"] = bool(s[S.S_CHELEM])
        finished = int(s[S.S_TRICK]) if kind == S.CARD else rules.hand_size
        tricks = [
            " ".join(cards.card_name(int(s[S.S_LOG + t * S.MAX_SEATS + k])) for k in range(players))
            for t in range(finished)
        ]
        if kind == S.CARD and int(s[S.S_IN_TRICK]) > 0:
            tricks.append(
                " ".join(
                    cards.card_name(int(s[S.S_TRICK_CARDS + k]))
                    for k in range(int(s[S.S_IN_TRICK]))
                )
            )
        data["tricks"] = tricks
    return data
