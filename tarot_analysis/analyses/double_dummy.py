"""The double-dummy table of a deal: what each seat as taker makes with every card seen.

For each seat as taker (a Garde unless told otherwise), the deal is played by the heuristic
bots at every seat up to the dog and the écart (the heuristic's écart, or one given), the call
(five players: the king the heuristic calls; its holder is the partner), and the first
``after_tricks`` tricks; the rest is solved double dummy (:func:`tarot_analysis.solver.solve`):
every hand visible, the attack maximising its card points and the defence minimising them.

The attack's points are the engine's own count of the cards it holds when the solve starts
(the écart, or the dog where the contract gives it; the tricks already won, the Excuse already
played) plus the solver's exact value of the remaining tricks. An Excuse played in the
tricks before the solve whose low card is still owed is settled at once, as the solver settles
the Excuse in the tricks it plays (the engine waits for the owing side's first trick, which
differs only when that side never wins one). The points required are the preset's
(``rules.bouts_required``) for the bouts the attack holds when the solve starts, in its piles
and in its hands: the solver maximises card points, so a bout caught in play is not counted.

A solve stopped by ``max_nodes`` or ``time_limit`` reports the interval it had proved, never
a guess, and the contract as surely made, surely lost or undecided.

Whole deals of four players are too long to solve exactly today (minutes or more); a deal
whose first tricks the heuristic plays (``after_tricks``) leaves endgames that solve in
milliseconds to seconds.

>>> from tarot_analysis.game.rules import load_rules
>>> rows = dd_table(load_rules("fft-4"), seed=1, deal=0, takers=[0], after_tricks=12)
>>> row = rows[0]
>>> row.taker, row.contract, row.exact, row.points_low == row.points_high
(0, 'garde', True, True)
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Final

from tarot_analysis._jit import normalise_seed
from tarot_analysis.deals.deal import DEFAULT_CHUNK_SIZE, DealStream, deal_chunk, make_plan
from tarot_analysis.engine import state as S
from tarot_analysis.engine.game import GameState
from tarot_analysis.engine.outcome import REDEAL_NONE
from tarot_analysis.errors import TarotInputError, is_whole_number, seat_number, whole_number
from tarot_analysis.game import cards
from tarot_analysis.game.rules import Rules
from tarot_analysis.solver import SearchStopped, SolveProgress, solve
from tarot_analysis.table.play import LAST_DEAL, PlayResult, play_given

__all__ = [
    "DEFAULT_CONTRACT",
    "SolveStart",
    "TakerResult",
    "contract_index",
    "dd_table",
    "deal_hands",
    "requirement",
    "solve_start",
    "start_after",
]

#: The contract each seat takes when none is named.
DEFAULT_CONTRACT: Final = "garde"
#: What a seat's result says of the contract.
MADE, LOST, UNDECIDED, REDEALT = "made", "lost", "undecided", "redealt"


@dataclass(frozen=True)
class SolveStart:
    """The position a double-dummy solve starts from, after the dog, the écart and the
    tricks already played: the hands (card ids), the seat to lead, the attack's seats, the
    attack's half points counted so far (Excuse settled) and the bouts the attack holds (in
    its piles and in its hands)."""

    hands: tuple[tuple[int, ...], ...]
    leader: int
    attack: tuple[int, ...]
    half_before: int
    bouts: int


@dataclass(frozen=True)
class TakerResult:
    """One seat as taker: the contract, the call and partner (−1 none), the écart; the
    tricks played by the heuristic before the solve; the attack's card points for the whole
    deal with every card seen after them, proved in ``[points_low, points_high]`` (equal when
    the solve finished); the bouts, the points required and ``outcome`` (``made``, ``lost``,
    ``undecided`` when a stopped solve leaves the requirement inside the interval, or
    ``redealt`` for a void deal); the Petit au bout of one principal variation (1 attack,
    0 defence, −1 none; ``None`` when stopped); positions searched and seconds taken; and the
    heuristic's own points and result when it plays the deal on from the same position."""

    taker: int
    contract: str
    called: str
    partner: int
    ecart: str
    after_tricks: int
    points_before: float
    points_low: float
    points_high: float
    bouts: int
    required: float
    outcome: str
    petit_au_bout: int | None
    nodes: int
    seconds: float
    heuristic_points: float
    heuristic_made: bool

    @property
    def exact(self) -> bool:
        """Whether the solve finished: the points are known exactly."""
        return self.outcome != REDEALT and self.points_low == self.points_high

    def to_json(self) -> dict[str, Any]:
        """The result as JSON-able data (``None`` for the points of a void deal)."""
        data = {
            key: None if isinstance(value, float) and math.isnan(value) else value
            for key, value in asdict(self).items()
        }
        return data | {"exact": self.exact}


def contract_index(rules: Rules, name: str) -> int:
    """The index of the contract ``name`` in ``rules.contracts``."""
    names = [contract.name for contract in rules.contracts]
    if name not in names:
        raise TarotInputError(
            f"{rules.name} has no contract {name!r}; its contracts: {', '.join(names)}"
        )
    return names.index(name)


def deal_hands(
    rules: Rules, seed: int, deal: int, *, chunk_size: int = DEFAULT_CHUNK_SIZE
) -> list[str]:
    """Deal number ``deal`` of ``seed`` in the notation, each seat's hand then the dog: the
    deal ``play``, ``replay`` and ``guidance`` number ``deal`` for that seed and chunk size
    (deals a chunk, at least 1)."""
    if not is_whole_number(deal) or not 0 <= deal <= LAST_DEAL:
        raise TarotInputError(
            f"deal number {deal!r} is out of range: a run numbers its deals from 0 to {LAST_DEAL:,}"
        )
    chunk_size = whole_number(chunk_size, "the chunk size", least=1)
    chunk, offset = divmod(int(deal), chunk_size)
    plan = make_plan(rules)
    masks, _ = deal_chunk(plan, DealStream.open(plan, normalise_seed(seed), chunk), offset + 1)
    return [cards.format_cards(cards.from_mask(int(lo), int(hi))) for lo, hi in masks[offset]]


def _checked_hands(rules: Rules, hands: Sequence[str]) -> list[str]:
    """``hands`` (one per seat, then the dog) checked: sizes, no card twice, every card."""
    if isinstance(hands, str) or len(hands) != rules.players + 1:
        raise TarotInputError(
            f"{rules.name} needs {rules.players} hands and the dog, got {len(hands)} groups"
        )
    groups = []
    for group, text in enumerate(hands):
        where = f"seat {group}" if group < rules.players else "the dog"
        try:
            held = cards.parse_cards(text)
        except TarotInputError as error:
            raise TarotInputError(f"{where}: {error}") from None
        expected = rules.hand_size if group < rules.players else rules.dog_size
        if len(held) != expected:
            raise TarotInputError(f"{where} holds {len(held)} cards, {expected} expected")
        groups.append((where, held))
    cards.check_each_once(groups)
    return list(hands)


def requirement(rules: Rules, bouts: int) -> float:
    """The card points the attack needs with ``bouts`` bouts, by the preset's scoring."""
    return float(rules.bouts_required[bouts])


def verdict(low: float, high: float, required: float) -> str:
    """``made`` when even the least proved points reach ``required``, ``lost`` when even the
    most do not, else ``undecided``: a contract is made when its points reach the
    requirement (a half point rounded away from it never turns a shortfall into a make)."""
    if low >= required:
        return MADE
    if high < required:
        return LOST
    return UNDECIDED


def play_taking(
    rules: Rules, hands: Sequence[str], taker: int, contract: int, *, ecart: str | None = None
) -> PlayResult:
    """The deal ``hands`` (each seat's, then the dog) played to its end by the heuristic at
    every seat, ``taker`` made to take ``contract``, with the écart ``ecart`` if given."""
    try:
        return play_given(
            rules, [list(hands)], bots="heuristic", forced=[taker, contract, -1, -1],
            ecart=[ecart] if ecart else None,
        )  # fmt: skip
    except TarotInputError as error:
        if not ecart:
            raise
        raise TarotInputError(f"the écart {ecart!r} for seat {taker}: {error}") from None


def _recorded(state: GameState, result: PlayResult, row: int, ecart: Sequence[int]) -> int:
    """The action the record of deal ``row`` of ``result`` took at the state's decision."""
    assert result.tricks is not None
    outcome = result.outcomes[row]
    kind, actor, s = state.decision, state.actor, state.s
    if kind == "card":
        return int(result.tricks[row, s[S.S_TRICK], s[S.S_IN_TRICK]])
    if kind == "ecart":
        return min(card for card in ecart if card in state.hand(actor))
    if kind == "call":
        first = s[S.S_CALLED_1] < 0
        return int(outcome[S.O_CALLED_1] if first else outcome[S.O_CALLED_2])
    if kind == "poignee":
        return S.SHOW_0 + int(result.poignees[row, actor])
    if kind == "chelem":
        return S.ANNOUNCE_CHELEM if outcome[S.O_CHELEM_ANNOUNCED] else S.NO_CHELEM
    raise AssertionError(f"a forced taker leaves no {kind} decision")


def start_after(rules: Rules, result: PlayResult, row: int, tricks: int) -> SolveStart | None:
    """The position after the first ``tricks`` tricks of deal ``row`` of ``result`` (played
    with ``keep_tricks``), rebuilt by taking its recorded actions in the engine's game state;
    ``None`` for a void deal."""
    assert result.ecarts is not None
    outcome = result.outcomes[row]
    if outcome[S.O_REDEAL] != REDEAL_NONE:
        return None
    forced = [int(outcome[S.O_TAKER]), int(outcome[S.O_CONTRACT]), -1, -1]
    state = GameState(rules, result.masks[row], forced=forced)
    ecart = sorted(cards.from_mask(int(result.ecarts[row, 0]), int(result.ecarts[row, 1])))
    while state.decision != "card" or int(state.s[S.S_TRICK]) < tricks:
        state.apply(_recorded(state, result, row, ecart))
    return _start_of(state)


def _start_of(state: GameState) -> SolveStart:
    """The solve's start from a state at a trick's first card."""
    s = state.s
    players = state.rules.players
    hands = tuple(state.hand(seat) for seat in range(players))
    attack = tuple(seat for seat in range(players) if s[S.S_SIDE + seat] == S.ATTACK)
    half = int(s[S.S_HALF + S.ATTACK])
    debtor = int(s[S.S_EXCUSE_DEBTOR])
    if debtor >= 0:  # the low card owed for the Excuse, settled now as the solver settles it
        low_card = int(state.engine.half_points[cards.trump(2)])
        half += -low_card if debtor == S.ATTACK else low_card
    held = sum(int(cards.IS_BOUT[card]) for seat in attack for card in hands[seat])
    bouts = int(s[S.S_BOUTS + S.ATTACK]) + held
    return SolveStart(hands, int(s[S.S_LEADER]), attack, half, bouts)


@dataclass(frozen=True)
class Solved:
    """What one solve proved: the remaining tricks' attack points in ``[low, high]``, the
    Petit au bout (``None`` when stopped) and the positions searched."""

    low: float
    high: float
    petit_au_bout: int | None
    nodes: int


def solve_start(
    rules: Rules,
    start: SolveStart,
    *,
    max_nodes: int | None = None,
    time_limit: float | None = None,
    progress: Callable[[SolveProgress], None] | None = None,
) -> Solved:
    """Solve the remaining tricks from ``start``; a stopped solve gives its proved interval.
    ``progress``: as :func:`tarot_analysis.solver.solve` takes it."""
    try:
        solution = solve(
            rules, start.hands, leader=start.leader, attack=start.attack,
            max_nodes=max_nodes, time_limit=time_limit, progress=progress,
        )  # fmt: skip
    except SearchStopped as stop:
        return Solved(stop.low, stop.high, None, stop.nodes)
    points = solution.attack_points
    return Solved(points, points, solution.petit_au_bout, solution.nodes)


def _after_tricks(rules: Rules, after_tricks: object) -> int:
    """``after_tricks`` checked: from 0 to one trick short of the deal."""
    if not is_whole_number(after_tricks) or not 0 <= after_tricks < rules.hand_size:
        raise TarotInputError(
            f"after_tricks must be a whole number from 0 to {rules.hand_size - 1} (a deal of "
            f"{rules.name} has {rules.hand_size} tricks), got {after_tricks!r}"
        )
    return int(after_tricks)


def taker_result(
    rules: Rules,
    hands: Sequence[str],
    taker: int,
    contract: int,
    *,
    ecart: str | None = None,
    after_tricks: int = 0,
    max_nodes: int | None = None,
    time_limit: float | None = None,
    progress: Callable[[SolveProgress], None] | None = None,
) -> TakerResult:
    """One row of the table: ``taker`` takes ``contract`` on the deal ``hands``; ``progress``
    is called between slices of the solve (:func:`tarot_analysis.solver.solve`)."""
    started = time.perf_counter()
    result = play_taking(rules, hands, taker, contract, ecart=ecart)
    start = start_after(rules, result, 0, after_tricks)
    scored = result.scores().iloc[0]
    outcome = result.outcomes[0]
    called = int(outcome[S.O_CALLED_1])
    common: dict[str, Any] = {
        "taker": taker, "contract": rules.contracts[contract].name,
        "called": cards.card_name(called) if called >= 0 else "",
        "partner": int(outcome[S.O_PARTNER_1]), "after_tricks": after_tricks,
        "ecart": cards.format_cards(
            cards.from_mask(int(result.ecarts[0, 0]), int(result.ecarts[0, 1]))  # type: ignore[index]
        ),
        "heuristic_points": float(outcome[S.O_ATTACK_HALF]) / 2,
        "heuristic_made": bool(scored["made"]) if start is not None else False,
    }  # fmt: skip
    if start is None:
        return TakerResult(
            **common, points_before=0.0, points_low=float("nan"), points_high=float("nan"),
            bouts=0, required=float("nan"), outcome=REDEALT, petit_au_bout=None, nodes=0,
            seconds=time.perf_counter() - started,
        )  # fmt: skip
    solved = solve_start(
        rules, start, max_nodes=max_nodes, time_limit=time_limit, progress=progress
    )
    before = start.half_before / 2
    required = requirement(rules, start.bouts)
    low, high = before + solved.low, before + solved.high
    return TakerResult(
        **common, points_before=before, points_low=low, points_high=high, bouts=start.bouts,
        required=required, outcome=verdict(low, high, required),
        petit_au_bout=solved.petit_au_bout, nodes=solved.nodes,
        seconds=time.perf_counter() - started,
    )  # fmt: skip


def dd_table(
    rules: Rules,
    hands: Sequence[str] | None = None,
    *,
    seed: int = 1,
    deal: int | None = None,
    contract: str = DEFAULT_CONTRACT,
    ecart: str | None = None,
    takers: Iterable[object] | None = None,
    after_tricks: int = 0,
    max_nodes: int | None = None,
    time_limit: float | None = None,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    progress: Callable[[int, SolveProgress], None] | None = None,
) -> list[TakerResult]:
    """The double-dummy table of a deal: one :class:`TakerResult` per seat as taker.

    The deal is ``hands`` (each seat's hand in the notation, then the dog) or deal number
    ``deal`` of ``seed`` (:func:`deal_hands`). ``takers``: the seats to tabulate (default
    every seat); ``ecart``, an écart in the notation, needs a single taker. The first
    ``after_tricks`` tricks are the heuristic's; ``max_nodes`` and ``time_limit`` bound each
    seat's solve, and ``progress(taker, where)`` is called between slices of each (a whole
    deal of four players takes minutes or more). Bad input raises ``TarotInputError``.
    """
    if rules.tarocco is not None:
        raise TarotInputError(f"the double-dummy table is for French Tarot, not {rules.name}")
    if (hands is None) == (deal is None):
        raise TarotInputError("give either the hands and the dog, or a deal number (not both)")
    chunk_size = whole_number(chunk_size, "the chunk size", least=1)
    dealt = deal_hands(rules, seed, deal, chunk_size=chunk_size) if deal is not None else None
    hands = dealt if dealt is not None else _checked_hands(rules, hands or ())
    index = contract_index(rules, contract)
    tricks = _after_tricks(rules, after_tricks)
    seats = range(rules.players) if takers is None else takers
    chosen = [seat_number(seat, rules.players, "a taker") for seat in seats]
    if ecart is not None:
        if len(chosen) != 1:
            raise TarotInputError("an écart is one taker's: name a single taker with it")
        try:
            cards.parse_cards(ecart)
        except TarotInputError as error:
            raise TarotInputError(f"the écart: {error}") from None
    return [
        taker_result(
            rules,
            hands,
            seat,
            index,
            ecart=ecart,
            after_tricks=tricks,
            max_nodes=max_nodes,
            time_limit=time_limit,
            progress=None if progress is None else functools.partial(progress, seat),
        )
        for seat in chosen
    ]
