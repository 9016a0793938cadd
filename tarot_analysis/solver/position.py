"""The input of a solve checked and turned into the search's arrays, and the rules of one
trick for Python callers (:func:`legal_plays`, :func:`trick_winner`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

from tarot_analysis._jit import KERNEL
from tarot_analysis.engine.cardsets import ZERO
from tarot_analysis.engine.core import legal_cards
from tarot_analysis.engine.params import engine_rules
from tarot_analysis.engine.state import MAX_SEATS
from tarot_analysis.errors import TarotInputError, is_whole_number, seat_number
from tarot_analysis.game import cards
from tarot_analysis.game.rules import Rules
from tarot_analysis.solver.tricks import _led_and_top, _trick_half_points, _winner_offset


def _card_of(token: str | int, where: str) -> int:
    """The card id of one card written in the notation or given as an id."""
    if isinstance(token, str):
        try:
            parsed = cards.parse_cards(token)
        except TarotInputError as error:
            raise TarotInputError(f"{where}: {error}") from None
        if len(parsed) != 1:
            raise TarotInputError(f"{where}: one card expected, got {token!r}")
        return parsed[0]
    if not is_whole_number(token):
        raise TarotInputError(f"{where}: a card is a notation string or an id, got {token!r}")
    if not 0 <= int(token) < cards.N_CARDS:
        raise TarotInputError(f"{where}: there is no card id {token} (ids are 0..77)")
    return int(token)


def _hand_of(hand: str | Iterable[str | int], seat: int) -> tuple[int, ...]:
    """The card ids of one seat's hand."""
    try:
        if isinstance(hand, str):
            return cards.parse_cards(hand)
        return tuple(_card_of(card, f"card {k + 1}") for k, card in enumerate(hand))
    except TarotInputError as error:
        raise TarotInputError(f"seat {seat}: {error}") from None


@dataclass
class _Position:
    """A checked position, as the kernel takes it."""

    hands_lo: npt.NDArray[np.uint64]
    hands_hi: npt.NDArray[np.uint64]
    path: npt.NDArray[np.int64]
    trick_len: int
    leader: int
    attack_mask: int
    players: int
    to_play: int
    cards_left: int


def _position(
    rules: Rules,
    hands: Sequence[str | Iterable[str | int]],
    leader: object,
    attack: Iterable[object],
    trick: Sequence[str | int],
) -> _Position:
    """Check the input of :func:`solve` and build the kernel's arrays."""
    if rules.tarocco is not None:
        raise TarotInputError(f"the solver plays French Tarot only, not {rules.name}")
    if engine_rules(rules).half_points.min() < 0:
        raise TarotInputError(f"the solver needs card points of 0 or more; {rules.name} has less")
    players = rules.players
    if isinstance(hands, str) or len(hands) != players:
        raise TarotInputError(f"{rules.name} needs {players} hands, one per seat")
    held = [_hand_of(hand, seat) for seat, hand in enumerate(hands)]
    first = seat_number(leader, players, "leader")
    attack_seats = [seat_number(seat, players, "an attack seat") for seat in attack]
    if not attack_seats:
        raise TarotInputError("the attack needs at least one seat")
    twice = sorted({seat for seat in attack_seats if attack_seats.count(seat) > 1})
    if twice:
        raise TarotInputError(f"the attack names seat {twice[0]} twice: name each seat once")
    if len(attack_seats) == players:
        raise TarotInputError(
            f"the attack cannot hold every seat: of {players} seats, at least one defends"
        )
    if len(trick) >= players:
        raise TarotInputError(
            f"a trick in progress holds at most {players - 1} cards, got {len(trick)}"
        )
    played = [_card_of(card, f"trick card {k + 1}") for k, card in enumerate(trick)]
    cards.check_each_once([*((f"seat {s}", h) for s, h in enumerate(held)), ("the trick", played)])
    already = {(first + k) % players for k in range(len(played))}
    tricks_left = len(held[(first + len(played)) % players])
    for seat, hand in enumerate(held):
        expected = tricks_left - 1 if seat in already else tricks_left
        if len(hand) != expected:
            raise TarotInputError(
                f"seat {seat} holds {len(hand)} cards, {expected} expected: hands must be of "
                f"one length, one card shorter for the seats that played to the trick"
            )
    if tricks_left == 0:
        raise TarotInputError("no card is left to play")
    _check_trick(rules, held, first, played)
    hands_lo = np.zeros(players, dtype=np.uint64)
    hands_hi = np.zeros(players, dtype=np.uint64)
    for seat, hand in enumerate(held):
        lo, hi = cards.to_mask(hand)
        hands_lo[seat] = lo
        hands_hi[seat] = hi
    path = np.zeros(cards.N_CARDS + players, dtype=np.int64)
    path[: len(played)] = played
    attack_mask = sum(1 << seat for seat in set(attack_seats))
    to_play = (first + len(played)) % players
    cards_left = sum(len(hand) for hand in held)
    return _Position(
        hands_lo, hands_hi, path, len(played), first, attack_mask, players, to_play, cards_left
    )


def _check_trick(rules: Rules, held: list[tuple[int, ...]], leader: int, played: list[int]) -> None:
    """Refuse a trick its seats could not have played: each card after the lead must be one
    that its seat, holding its hand and that card, could play (it follows suit, trumps,
    overtrumps when it can)."""
    for k in range(1, len(played)):
        seat = (leader + k) % rules.players
        legal = legal_plays(rules, [*held[seat], played[k]], played[:k])
        if played[k] not in legal:
            raise TarotInputError(
                f"the trick is impossible: seat {seat} played {cards.card_name(played[k])} to "
                f"{' '.join(cards.card_name(card) for card in played[:k])} holding "
                f"{cards.format_cards(held[seat])}; "
                f"it had to play one of {cards.format_cards(legal)}"
            )


def legal_plays(rules: Rules, hand: Iterable[int], trick: Sequence[int]) -> list[int]:
    """The cards of ``hand`` (ids) that may be played to ``trick`` (ids, in play order).

    >>> from tarot_analysis.game.rules import load_rules
    >>> hand = cards.parse_cards("KH 2H 5 E")
    >>> queen_led = list(cards.parse_cards("QH"))
    >>> [cards.card_name(c) for c in legal_plays(load_rules("fft-4"), hand, queen_led)]
    ['2H', 'KH', 'E']
    """
    lo, hi = cards.to_mask(hand)
    played = [_card_of(card, f"trick card {k + 1}") for k, card in enumerate(trick)]
    if len(played) >= rules.players:
        raise TarotInputError(
            f"a trick in progress holds at most {rules.players - 1} cards, got {len(played)}"
        )
    path = np.asarray(played or [0], dtype=np.int64)
    led, top = _led_and_top_py(path, len(played))
    params = engine_rules(rules).params
    legal_lo, legal_hi = legal_cards(np.uint64(lo), np.uint64(hi), led, top, ZERO, False, params)
    return cards.from_mask(int(legal_lo), int(legal_hi))


@njit(**KERNEL)
def _led_and_top_py(path: Any, count: int) -> tuple[int, int]:
    """:func:`_led_and_top` for Python callers."""
    return _led_and_top(path, 0, count)


def _run_representative(
    card: int, legal: set[int], in_play: set[int], half_points: npt.NDArray[np.int64]
) -> int:
    """The lowest card of ``card``'s run: the legal cards below it in its suit (trumps for a
    trump), with no other card in play between them, of the same points."""
    if card == cards.EXCUSE:
        return card
    first = card - card % cards.N_RANKS if card < cards.N_SUIT_CARDS else cards.PETIT
    for lower in range(card - 1, first - 1, -1):
        if lower not in in_play:
            continue
        if lower not in legal or half_points[lower] != half_points[card]:
            break
        card = lower
    return card


def trick_winner(trick: Sequence[int]) -> int:
    """The index in ``trick`` (card ids in play order, at least one) of the card winning it.

    >>> trick_winner(cards.parse_cards("QH KH 2 1H"))
    2
    """
    if not trick:
        raise TarotInputError("an empty trick has no winner")
    played = [_card_of(card, f"trick card {k + 1}") for k, card in enumerate(trick)]
    if len(played) > MAX_SEATS or len(set(played)) < len(played):
        raise TarotInputError(
            f"a trick holds different cards, one per seat (at most {MAX_SEATS}), got "
            f"{' '.join(cards.card_name(card) for card in played)}"
        )
    path = np.asarray(played, dtype=np.int64)
    return int(_winner_offset_py(path, len(trick)))


@njit(**KERNEL)
def _winner_offset_py(path: Any, count: int) -> int:
    """:func:`_winner_offset` for Python callers."""
    return _winner_offset(path, 0, count)


@njit(**KERNEL)
def _trick_half_points_py(
    trick: Any, players: int, leader: int, winner: int, attack_mask: int, half_points: Any, p: Any
) -> int:
    """:func:`_trick_half_points` of a trick before the last, for Python callers."""
    return _trick_half_points(trick, 0, players, leader, winner, attack_mask, False, half_points, p)
