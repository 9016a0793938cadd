"""Forced contracts and calls, checked: a deal replayed under a taker, contract and call fixed
in advance must still obey the rules (docs/rules.md#auction-and-contracts,
#calling-a-partner-five-and-six-players, #legacy-5).

Everything that can be said without the hands is checked by :func:`forced_rows`; a call that
the preset's call rule does not allow for the taker's hand is refused by
:func:`check_forced_calls`, naming the deal, the card and the rule.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from tarot_analysis.engine.core import first_refused_call
from tarot_analysis.engine.params import engine_rules
from tarot_analysis.errors import TarotInputError, is_whole_number
from tarot_analysis.game import cards
from tarot_analysis.game.rules import Rules

__all__ = ["check_forced_calls", "forced_rows", "masks_of", "passing"]


def masks_of(rules: Rules, hands: Sequence[Sequence[str]]) -> npt.NDArray[np.uint64]:
    """Deals written in the hand notation (``hands[d]``: one string per seat, then the dog, in
    Tarocco the dealer's extra cards) as masks (deals, players + 1, 2); a card dealt twice or
    missing, or a hand or dog of the wrong size, is refused."""
    masks = np.zeros((len(hands), rules.players + 1, 2), dtype=np.uint64)
    dog = "a dog" if rules.tarocco is None else "the dealer's extra cards"
    for d, deal in enumerate(hands):
        if len(deal) != rules.players + 1:
            raise TarotInputError(f"deal {d}: {rules.players} hands and {dog} were expected")
        seen: set[int] = set()
        for group, text in enumerate(deal):
            size = rules.hand_size if group < rules.players else rules.dog_size
            held = cards.parse_cards(text, size=size)
            if seen & set(held):
                raise TarotInputError(f"deal {d}: a card is dealt twice")
            seen |= set(held)
            masks[d, group] = cards.to_mask(held)
        if len(seen) != cards.N_CARDS:
            raise TarotInputError(f"deal {d}: {len(seen)} cards dealt, 78 expected")
    return masks


def checked_forced(
    rules: Rules, masks: npt.NDArray[np.uint64], forced: npt.ArrayLike
) -> npt.NDArray[np.int64]:
    """``forced`` for the deals ``masks``, every check done: one row per deal."""
    rows = forced_rows(forced, len(masks), rules)
    check_forced_calls(rules, masks, rows, 0)
    return rows


def passing(seat: int) -> int:
    """The forced taker that holds an auction in which ``seat`` must pass: ``-2 - seat``."""
    if not is_whole_number(seat) or seat < 0:
        raise TarotInputError(f"passing(seat) needs a seat number, 0 or more, got {seat!r}")
    return -2 - int(seat)


def forced_rows(forced: npt.ArrayLike | None, deals: int, rules: Rules) -> npt.NDArray[np.int64]:
    """``forced`` as one row per deal (taker, contract, called card 1 and 2; −1 left to the
    table; a taker of :func:`passing` ``(seat)``: the auction is held and that seat passes),
    checked in all that does not depend on the hands: the taker's seat, the contract,
    and calls that no hand could make."""
    if forced is None:
        return np.full((deals, 4), -1, dtype=np.int64)
    given = np.asarray(forced, dtype=object if _has_none(forced) else None)
    if given.dtype.kind not in "iu":
        raise TarotInputError(
            "forced contracts are whole numbers (seat, contract index, card ids; -1 left to "
            f"the table), got {np.asarray(forced, dtype=object).tolist()!r:.80}"
        )
    rows = given.astype(np.int64)
    if rows.ndim == 1 and rows.shape != (4,):
        raise TarotInputError(
            "a forced contract for every deal has 4 values (taker, contract, called card 1 "
            f"and 2), got {rows.shape[0]}"
        )
    if rows.ndim == 1:
        rows = np.broadcast_to(rows, (deals, rows.shape[0]))
    if rows.shape != (deals, 4):
        raise TarotInputError(f"forced contracts must have shape ({deals}, 4), got {rows.shape}")
    takers, contracts = rows[:, 0], rows[:, 1]
    if np.any(takers >= rules.players) or np.any(
        (takers >= 0) & ((contracts < 0) | (contracts >= len(rules.contracts)))
    ):
        raise TarotInputError("a forced taker needs a seat and a contract of the rules")
    passing = takers <= -2  # -2 - seat: an auction in which that seat must pass
    if np.any(passing & ((takers < -1 - rules.players) | (rows[:, 1:] != -1).any(axis=1))):
        raise TarotInputError(
            "a seat made to pass needs a seat of the rules, and no forced contract or call"
        )
    if np.any(rows[:, 2:] < -1):
        deal = int(np.flatnonzero((rows[:, 2:] < -1).any(axis=1))[0])
        raise TarotInputError(f"a forced call is a card id or -1 (left to the table) (deal {deal})")
    for which in (1, 2):
        called = rows[:, 1 + which]
        asked = called >= 0
        if not asked.any():
            continue
        if which > rules.called_cards:
            deal = int(np.flatnonzero(asked)[0])
            told = "no card" if rules.called_cards == 0 else "one card"
            raise TarotInputError(
                f"{rules.name}: the taker calls {told} (call = {rules.call!r}), so the forced "
                f"call {_card_text(int(called[deal]))} is impossible (deal {deal})"
            )
        impossible = asked & (called >= cards.N_SUIT_CARDS)
        if which == 2:
            kings = cards.IS_KING[np.clip(called, 0, cards.N_CARDS - 1)]
            impossible |= asked & ((called == rows[:, 2]) | kings)
        if impossible.any():
            deal = int(np.flatnonzero(impossible)[0])
            card = int(called[deal])
            raise TarotInputError(
                f"{rules.name}: the forced call {_card_text(card)} is impossible: "
                f"{_static_call_problem(card, int(rows[deal, 2]), which)} (deal {deal})"
            )
        if which == 2 and np.any(asked & (rows[:, 2] < 0)):
            deal = int(np.flatnonzero(asked & (rows[:, 2] < 0))[0])
            raise TarotInputError(
                f"{rules.name}: a forced second call needs a forced first call (deal {deal})"
            )
        if np.any(asked & (takers < 0)):
            deal = int(np.flatnonzero(asked & (takers < 0))[0])
            raise TarotInputError(
                f"{rules.name}: a forced call needs a forced taker, since what may be called "
                f"depends on the taker's hand (deal {deal})"
            )
    return np.ascontiguousarray(rows)


def _has_none(forced: object) -> bool:
    """Whether ``forced``, a row or rows of numbers, holds ``None`` (NumPy would refuse it with
    a ``TypeError`` of its own)."""
    if forced is None:
        return True
    if isinstance(forced, list | tuple):
        return any(_has_none(item) for item in forced)
    return False


def _card_text(card: int) -> str:
    return cards.card_name(card) if 0 <= card < cards.N_CARDS else f"{card} (not a card id)"


def _static_call_problem(card: int, called_1: int, which: int) -> str:
    """Why ``card`` can never be called as call number ``which``, whatever the hand ("": it can
    be, for some hand)."""
    if not 0 <= card < cards.N_CARDS:
        return "it is not a card id (0 to 77)"
    if card >= cards.N_SUIT_CARDS:
        return "only a suit card may be called, never a trump or the Excuse"
    if which == 2 and card == called_1:
        return "the two called cards are two different cards"
    if which == 2 and cards.IS_KING[card]:
        return "the second call is never a king (never two kings)"
    return ""


def check_forced_calls(
    rules: Rules, masks: npt.NDArray[np.uint64], forced: npt.NDArray[np.int64], first: int
) -> None:
    """Refuse a forced call that the preset's call rule does not allow for the forced taker's
    hand (deal ``first + d`` for row ``d``), naming the deal, the card and the rule."""
    if rules.called_cards == 0 or not np.any(forced[:, 2:] >= 0):
        return
    deal, which = first_refused_call(masks, forced, engine_rules(rules).params)
    if deal < 0:
        return
    row = forced[deal]
    taker = int(row[0])
    lo = int(masks[deal, taker, 0])
    card = int(row[1 + which])
    if which == 1:
        # Each rank held whole sends the call down to the next: king, queen, knight, jack.
        ranks = ("king", "queen", "knight", "jack")
        whole = 0
        for mask in (cards.KINGS_MASK, cards.QUEENS_MASK, cards.KNIGHTS_MASK):
            if lo & mask != mask:
                break
            whole += 1
        rule = f"the taker calls a {ranks[whole]}"
        if whole and rules.call_holding_all_kings == "any_suit_card":
            rule = f"seat {taker} holds all four kings, so calls any suit card"
        elif whole:
            holding = " and ".join(f"all four {rank}s" for rank in ranks[:whole])
            rule = f"seat {taker} holds {holding}, so calls a {ranks[whole]}"
    elif lo & cards.QUEENS_MASK == cards.QUEENS_MASK:
        rule = (
            f"seat {taker} holds all four queens, so the second call is one of them or any "
            "other suit card but a king, not already called"
        )
    else:
        rule = "the second call is a queen other than the first call"
    raise TarotInputError(
        f"{rules.name}, deal {first + deal}: the forced call {cards.card_name(card)} is not "
        f"allowed: {rule}"
    )
