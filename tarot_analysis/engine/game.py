"""The game state for people: one deal that steps one decision at a time, and what a seat sees.

:class:`GameState` wraps the compiled state of :mod:`tarot_analysis.engine.state`: who is to
act and on what (:attr:`GameState.decision`), the legal actions (numbered as in that module:
cards 0–77, :data:`~tarot_analysis.engine.state.PASS`, bids, poignées, chelem), taking one
(:meth:`GameState.apply`, checked), copying, and the result once the deal is over.
:meth:`GameState.observation` gives what one seat may know, as an :class:`Observation`.

>>> from tarot_analysis.game.rules import load_rules
>>> state = GameState.deal(load_rules("fft-4"), seed=3)
>>> state.decision, state.actor
('bid', 0)
>>> while not state.is_over:
...     state.apply(state.legal_actions()[0])  # always the first legal action
>>> float(sum(state.scores()))
0.0
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from tarot_analysis.engine import state as S
from tarot_analysis.engine.forced import checked_forced, masks_of
from tarot_analysis.engine.outcome import N_OUTCOME, O_CONTRACT, O_REDEAL, O_TAKER, REDEAL_NONE
from tarot_analysis.engine.params import EngineRules, engine_rules
from tarot_analysis.errors import TarotInputError, is_whole_number, seat_number
from tarot_analysis.game import cards
from tarot_analysis.game.rules import Rules

__all__ = ["GameState", "Observation", "action_name"]

LEVEL_NAMES = ("no", "simple", "double", "triple")


def action_name(action: int, rules: Rules | None = None) -> str:
    """An action in words: a card's name, ``pass``, ``bid garde``, ``poignée simple``, ...

    >>> action_name(S.PASS), action_name(S.SHOW_0 + 2), action_name(77)
    ('pass', 'poignée double', '21')
    """
    if not is_whole_number(action):
        return f"{action!r} (not an action)"
    if 0 <= action < S.N_CARD_ACTIONS:
        return cards.card_name(action)
    if action == S.PASS:
        return "pass"
    if S.BID_0 <= action < S.SHOW_0:
        index = action - S.BID_0
        name = (
            rules.contracts[index].name
            if rules is not None and index < len(rules.contracts)
            else f"contract {index}"
        )
        return f"bid {name}"
    if S.SHOW_0 <= action < S.NO_CHELEM:
        return f"poignée {LEVEL_NAMES[action - S.SHOW_0]}"
    if action == S.NO_CHELEM:
        return "no chelem"
    if action == S.ANNOUNCE_CHELEM:
        return "announce a chelem"
    return f"{action} (not an action)"


def _ids(lo: int | np.uint64, hi: int | np.uint64) -> tuple[int, ...]:
    return tuple(cards.from_mask(int(lo), int(hi)))


def _check_deal(rules: Rules, deal: npt.NDArray[np.uint64]) -> None:
    """Refuse masks that are not a deal of ``rules``: a bit beyond the 78 cards, a card in two
    rows, a hand or a dog of the wrong size."""
    seen_lo = seen_hi = 0
    for row, (lo, hi) in enumerate(deal.tolist()):
        where = f"seat {row}" if row < rules.players else "the dog"
        if lo >> cards.N_SUIT_CARDS or hi >> (cards.N_CARDS - cards.N_SUIT_CARDS):
            raise TarotInputError(f"{where}: the mask holds a bit beyond the 78 cards")
        if lo & seen_lo or hi & seen_hi:
            twice = cards.from_mask(lo & seen_lo, hi & seen_hi)[0]
            raise TarotInputError(f"{where}: {cards.card_name(twice)} is dealt twice")
        seen_lo, seen_hi = seen_lo | lo, seen_hi | hi
        held = int(lo).bit_count() + int(hi).bit_count()
        expected = rules.hand_size if row < rules.players else rules.dog_size
        if held != expected:
            raise TarotInputError(f"{where} holds {held} cards, {expected} expected")


@dataclass(frozen=True)
class Observation:
    """What one seat may know at one moment of a deal, built from the state by
    :meth:`GameState.observation`. Cards are ids (:mod:`tarot_analysis.game.cards`); the ``*_text``
    properties give them in the hand notation.

    - ``seat``, ``players``, ``rules`` (the preset's name); ``decision`` (``bid``, ``call``,
      ``ecart``, ``poignee``, ``chelem``, ``card`` or ``over``) and ``actor``, the seat to take
      it; ``legal_actions``, the actions this seat may take now (empty when it is not its
      turn) and ``action_mask``, the same as :data:`~tarot_analysis.engine.state.N_ACTIONS`
      booleans.
    - ``hand``: its own cards now.
    - Public: ``bids`` per seat (a contract index, −1 pass, −2 not spoken or no auction),
      ``taker`` and ``contract`` (−1 and ``None`` before the auction ends; Tarocco: the dealer,
      no contract), ``called`` cards, ``partners`` seen so far (a called card played),
      ``dog`` when shown (``None`` otherwise), ``poignees`` (each seat's level and the cards
      shown: every trump and the Excuse, or under ``poignee.shown = "count_highest_lowest"``
      only the highest and the lowest trump), ``poignee_counts`` (the trumps with the Excuse
      each poignée counted, 0 where none was shown), ``chelem`` announced, every finished
      trick in ``tricks`` (leader, cards in play order), the trick in progress
      (``trick_leader``, ``trick``), and ``voids``: per seat the suits (0–3) it was seen to
      lack, and 4 once it failed to trump (no trumps left).
    - Its own: ``ecart``, the cards it discarded (the taker's écart, the Tarocco dealer's
      discard); another seat sees only the trumps of an écart that the rules show.
    """

    seat: int
    players: int
    rules: str
    decision: str
    actor: int
    legal_actions: tuple[int, ...]
    action_mask: npt.NDArray[np.bool_]
    hand: tuple[int, ...]
    bids: tuple[int, ...]
    taker: int
    contract: str | None
    called: tuple[int, ...]
    partners: tuple[int, ...]
    dog: tuple[int, ...] | None
    ecart: tuple[int, ...]
    poignees: tuple[tuple[int, tuple[int, ...]], ...]
    chelem: bool
    tricks: tuple[tuple[int, tuple[int, ...]], ...]
    trick_leader: int
    trick: tuple[int, ...]
    voids: tuple[frozenset[int], ...]
    poignee_counts: tuple[int, ...] = ()

    @property
    def hand_text(self) -> str:
        """Its hand in the notation."""
        return cards.format_cards(self.hand)

    @property
    def trick_text(self) -> str:
        """The trick in progress in the notation, in play order."""
        return cards.format_cards(self.trick)

    @property
    def played(self) -> tuple[int, ...]:
        """Every card played so far, the trick in progress included."""
        return tuple(card for _, trick in self.tricks for card in trick) + self.trick


class GameState:
    """One deal of ``rules`` that steps one decision at a time (see the module's docstring).

    ``masks`` (players + 1, 2) holds each seat's hand and the dog (Tarocco: the dealer's extra
    cards) as two-word masks; ``forced`` fixes taker, contract and called cards as in
    :func:`tarot_analysis.table.play.play`; ``dealer`` is the dealing seat in Tarocco (default the
    last seat). Build one with :meth:`deal` (a uniformly random deal) or :meth:`from_hands`.
    Masks that are no deal of ``rules`` (a card twice, a bit beyond the 78 cards, a hand or a
    dog of the wrong size), a seat, an action or a forced row out of range raise
    ``TarotInputError`` before any compiled code reads them.
    """

    __slots__ = ("_mask", "engine", "m", "rules", "s")

    def __init__(
        self,
        rules: Rules,
        masks: npt.ArrayLike,
        *,
        forced: Sequence[int] | None = None,
        dealer: int | None = None,
        engine: EngineRules | None = None,
        _whole_deal: bool = True,
    ) -> None:
        self.rules = rules
        self.engine = engine if engine is not None else engine_rules(rules)
        deal = np.ascontiguousarray(masks, dtype=np.uint64)
        if deal.shape != (rules.players + 1, 2):
            raise TarotInputError(
                f"a deal of {rules.name} is {rules.players} hands and a dog, as masks of shape "
                f"({rules.players + 1}, 2); got {deal.shape}"
            )
        if _whole_deal:  # a world rebuilt by determinize may move shown dog cards to the taker
            _check_deal(rules, deal)
        row = np.full(4, -1, dtype=np.int64)
        if forced is not None:
            if rules.tarocco is not None:
                raise TarotInputError(f"{rules.name}: nobody takes in Tarocco, nothing to force")
            row = checked_forced(rules, deal[None], forced)[0]
        seat = rules.players - 1 if dealer is None else seat_number(dealer, rules.players, "dealer")
        self.m, self.s = S.new_arrays()
        self._mask = np.zeros(S.N_ACTIONS, dtype=np.bool_)
        S.start(self.m, self.s, deal, row, seat, self.engine.params, self.engine.half_points)

    @classmethod
    def deal(
        cls,
        rules: Rules,
        seed: int | np.random.SeedSequence | np.random.Generator | None = None,
        **options: Any,
    ) -> GameState:
        """A uniformly random deal of ``rules`` from ``seed`` (the toolkit's dealer)."""
        # imported here: the dealer brings pandas and pyarrow, which a game state does not need
        from tarot_analysis.deals.deal import deal

        return cls(rules, deal(rules, 1, seed, threads=1).masks[0], **options)

    @classmethod
    def from_hands(cls, rules: Rules, hands: Sequence[str], **options: Any) -> GameState:
        """A deal written in the notation: one hand per seat, then the dog."""
        return cls(rules, masks_of(rules, [hands])[0], **options)

    # ---- where the deal stands ------------------------------------------------------------

    @property
    def decision(self) -> str:
        """The kind of decision to take: bid, call, ecart, poignee, chelem, card, or over."""
        return str(S.DECISIONS[int(self.s[S.S_KIND])])

    @property
    def actor(self) -> int:
        """The seat to act (−1 once the deal is over)."""
        return -1 if self.is_over else int(self.s[S.S_ACTOR])

    @property
    def is_over(self) -> bool:
        """Whether the deal is over (played to the end, or redealt)."""
        return int(self.s[S.S_KIND]) == S.OVER

    def action_mask(self) -> npt.NDArray[np.bool_]:
        """The legal actions now, as :data:`~tarot_analysis.engine.state.N_ACTIONS` booleans."""
        S.legal_mask(self.m, self.s, self.engine.params, self._mask)
        return self._mask.copy()

    def legal_actions(self) -> npt.NDArray[np.int64]:
        """The legal actions now, in increasing order (none once the deal is over)."""
        S.legal_mask(self.m, self.s, self.engine.params, self._mask)
        return np.flatnonzero(self._mask)

    def apply(self, action: int) -> None:
        """Take ``action`` for the seat to act; an illegal one raises ``TarotInputError``
        naming the seat, the decision and the action."""
        if self.is_over:
            raise TarotInputError(f"the deal is over: no action {action_name(action)} to take")
        if not is_whole_number(action):
            raise TarotInputError(
                f"an action is a number from 0 to {S.N_ACTIONS - 1} (see legal_actions() and "
                f"action_name()), got {action!r}"
            )
        S.legal_mask(self.m, self.s, self.engine.params, self._mask)
        if not 0 <= action < S.N_ACTIONS or not self._mask[int(action)]:
            legal = ", ".join(action_name(int(a), self.rules) for a in np.flatnonzero(self._mask))
            what = (
                f"{action_name(int(action), self.rules)} (action {action}) is not legal"
                if 0 <= action < S.N_ACTIONS
                else f"{action} is not an action (actions run from 0 to {S.N_ACTIONS - 1})"
            )
            raise TarotInputError(f"seat {self.actor}, {self.decision}: {what}; legal: {legal}")
        S.apply(self.m, self.s, int(action), self.engine.params, self.engine.half_points)

    def copy(self) -> GameState:
        """An independent copy (two array copies)."""
        other = object.__new__(GameState)
        other.rules = self.rules
        other.engine = self.engine
        other.m = self.m.copy()
        other.s = self.s.copy()
        other._mask = np.zeros(S.N_ACTIONS, dtype=np.bool_)
        return other

    # ---- the result -----------------------------------------------------------------------

    def raw_outcome(self) -> npt.NDArray[np.int64]:
        """The raw outcome (:data:`~tarot_analysis.engine.outcome.OUTCOME_COLUMNS`), French
        presets; meaningful once the deal is over."""
        return self.s[S.S_OUT : S.S_OUT + N_OUTCOME].copy()

    def poignees(self) -> npt.NDArray[np.int64]:
        """The poignée level each seat showed."""
        return self.s[S.S_POIGNEES : S.S_POIGNEES + self.rules.players].copy()

    def scores(self) -> npt.NDArray[np.float64]:
        """Every seat's score for the deal once it is over (0 everywhere for a redeal). French
        presets: the preset's scoring; Tarocco: each player's count (card points and
        premiums), which is not zero-sum."""
        if not self.is_over:
            raise TarotInputError("the deal is not over yet: it has no score")
        players = self.rules.players
        if self.rules.tarocco is not None:
            parts = self.s[S.S_PARTS : S.S_PARTS + S.N_PARTS * S.MAX_SEATS]
            halves = parts.reshape(S.N_PARTS, S.MAX_SEATS)[:, :players].sum(axis=0)
            return halves / 2
        # imported here: the scoring brings pandas, which a game state does not need until over
        from tarot_analysis.engine.scoring import score_outcomes

        table = score_outcomes(self.raw_outcome()[None], self.poignees()[None], self.rules)
        return table[[f"score_{seat}" for seat in range(players)]].to_numpy()[0]

    def _bids_spoken(self) -> tuple[int, ...]:
        """Every seat's bid, −2 for a seat yet to speak: the auction opens with every seat at
        −1 and goes once round from seat 0, so during it the seat to act and those after it
        have not spoken."""
        players = self.rules.players
        bids = [int(b) for b in self.s[S.S_BIDS : S.S_BIDS + players]]
        if self.decision == "bid":
            bids[self.actor :] = [-2] * (players - self.actor)
        return tuple(bids)

    @property
    def is_played(self) -> bool:
        """Over, and played to the end rather than redealt."""
        if self.rules.tarocco is not None:
            return self.is_over
        return self.is_over and int(self.s[S.S_OUT + O_REDEAL]) == REDEAL_NONE

    # ---- what a seat may know -------------------------------------------------------------

    def hand(self, seat: int) -> tuple[int, ...]:
        """The cards ``seat`` holds now."""
        seat = seat_number(seat, self.rules.players)
        return _ids(self.m[S.M_HANDS + 2 * seat], self.m[S.M_HANDS + 2 * seat + 1])

    def observation(self, seat: int) -> Observation:
        """What ``seat`` may know now (see :class:`Observation`)."""
        rules = self.rules
        players = rules.players
        seat = seat_number(seat, players)
        m, s = self.m, self.s
        kind = int(s[S.S_KIND])
        to_act = kind != S.OVER and int(s[S.S_ACTOR]) == seat
        mask = self.action_mask() if to_act else np.zeros(S.N_ACTIONS, dtype=np.bool_)
        tarocco = rules.tarocco is not None
        taker = int(s[S.S_TAKER]) if (tarocco or int(s[S.S_OUT + O_TAKER]) >= 0) else -1
        contract_index = int(s[S.S_OUT + O_CONTRACT])
        contract = rules.contracts[contract_index].name if contract_index >= 0 else None
        called = tuple(int(c) for c in (s[S.S_CALLED_1], s[S.S_CALLED_2]) if c >= 0)
        if kind == S.CALL:
            called = called[:1] if s[S.S_CALLED_1] >= 0 else ()
        partners = tuple(
            int(s[S.S_VIEW + v]) for v in (S.V_PARTNER_1, S.V_PARTNER_2)
            if kind == S.CARD or kind == S.OVER
            if s[S.S_VIEW + v] >= 0 and not tarocco
        )  # fmt: skip
        dog_seen = self._dog_seen_by(seat)
        dog = _ids(m[S.M_DOG], m[S.M_DOG + 1]) if dog_seen else None
        ecart_lo, ecart_hi = int(m[S.M_ECART]), int(m[S.M_ECART + 1])
        if seat != taker:
            ecart_lo = 0
            ecart_hi &= int(cards.TRUMPS_MASK_HI) if rules.ecart.trumps_shown else 0
        poignees = tuple(
            (int(s[S.S_POIGNEES + k]), _ids(m[S.M_SHOWN + 2 * k], m[S.M_SHOWN + 2 * k + 1]))
            for k in range(players)
        )
        trick_number = int(s[S.S_TRICK]) if kind in (S.CARD, S.OVER) else 0
        finished = trick_number if kind == S.CARD else (
            rules.hand_size if kind == S.OVER and self.is_played else 0
        )  # fmt: skip
        tricks = tuple(
            (
                int(s[S.S_LEADERS + t]),
                tuple(int(s[S.S_LOG + t * S.MAX_SEATS + k]) for k in range(players)),
            )
            for t in range(finished)
        )
        in_trick = int(s[S.S_IN_TRICK]) if kind == S.CARD else 0
        voids = tuple(
            frozenset(
                [suit for suit in range(4) if int(s[S.S_VOIDS + k]) >> suit & 1]
                + ([4] if int(s[S.S_VOIDS + k]) & S.NO_TRUMPS else [])
            )
            for k in range(players)
        )
        return Observation(
            seat=seat,
            players=players,
            rules=rules.name,
            decision=self.decision,
            actor=self.actor,
            legal_actions=tuple(int(a) for a in np.flatnonzero(mask)),
            action_mask=mask,
            hand=self.hand(seat),
            bids=self._bids_spoken(),
            taker=taker,
            contract=contract,
            called=called,
            partners=partners,
            dog=dog,
            ecart=_ids(ecart_lo, ecart_hi),
            poignees=poignees,
            chelem=bool(s[S.S_CHELEM]),
            tricks=tricks,
            trick_leader=int(s[S.S_LEADER]) if kind == S.CARD else -1,
            trick=tuple(int(s[S.S_TRICK_CARDS + k]) for k in range(in_trick)),
            voids=voids,
            poignee_counts=tuple(int(s[S.S_POIGNEE_COUNT + k]) for k in range(players)),
        )

    @property
    def dog_is_taken(self) -> bool:
        """Whether the dog has gone to a hand: the taker's once a contract that takes it is
        past the call (French), the dealer's from the start (Tarocco)."""
        s = self.s
        if self.rules.tarocco is not None:
            return True
        contract = int(s[S.S_OUT + O_CONTRACT])
        if contract < 0 or int(s[S.S_KIND]) in (S.BID, S.CALL):
            return False
        return self.rules.contracts[contract].taker_takes_dog

    def _dog_seen_by(self, seat: int) -> bool:
        """Whether ``seat`` has seen the dog: shown to all once a taker takes it (French), to
        the dealer who takes it (Tarocco)."""
        if self.rules.tarocco is not None:
            return seat == int(self.s[S.S_TAKER])
        return self.dog_is_taken
