"""A PettingZoo environment: one deal of French Tarot (or Tarocco), every decision an agent's turn.

:func:`env` gives the wrapped environment, :class:`raw_env` the bare one, an AEC environment
(agents ``player_0`` … ``player_{n-1}``, one per seat; the seat to act is the agent selected).
Each observation is a dict: ``observation``, what the agent's seat may know as 0/1 values
(:func:`encode`), and ``action_mask``, its legal actions among the
:data:`~tarot_analysis.engine.state.N_ACTIONS` actions of the toolkit's numbering (cards 0–77,
pass, bids, poignées, chelem; :mod:`tarot_analysis.engine.state`). When the deal ends each
agent's reward is its score for the deal under the preset's scoring (Tarocco: its count);
a deal everyone passes scores 0, and a deal void for a Petit sec is dealt again at ``reset``.
An illegal action ends the deal for its agent with :func:`illegal_action_reward`, a loss
larger than any deal can bring (:func:`largest_loss`), so that no agent learns that breaking
a rule pays. ``render()`` returns the deal as text when the environment was made with
``render_mode="ansi"`` (``"human"`` prints it after every step); without a mode it warns and
returns ``None``.

PettingZoo is an optional extra: ``pip install 'tarot-analysis[env]'``.

>>> environment = env(rules="fft-4")
>>> environment.reset(seed=1)
>>> environment.agent_selection
'player_0'
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

try:
    from gymnasium import logger, spaces
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
except ImportError as error:  # pragma: no cover - depends on the extras installed
    from tarot_analysis.errors import TarotInputError

    raise TarotInputError(
        "the PettingZoo environment needs the [env] extra: pip install 'tarot-analysis[env]'"
    ) from error

from tarot_analysis.engine import state as S
from tarot_analysis.engine.game import GameState, Observation, action_name
from tarot_analysis.errors import TarotInputError
from tarot_analysis.game import cards
from tarot_analysis.game.rules import Rules, load_rules

__all__ = [
    "encode",
    "env",
    "illegal_action_reward",
    "largest_loss",
    "observation_size",
    "raw_env",
]

N_KINDS = len(S.DECISIONS)
BID_CHOICES = S.MAX_CONTRACTS + 2  # not spoken, pass, each contract


def observation_size(players: int) -> int:
    """The length of :func:`encode`'s vector for a table of ``players``."""
    card_sets = 5 + 2 * players  # hand, trick, dog, écart, called; played and shown by seat
    return (
        78 * card_sets
        + players * BID_CHOICES  # bids
        + players  # the taker
        + S.MAX_CONTRACTS  # the contract
        + players  # partners seen
        + players * 5  # voids and no trumps
        + N_KINDS  # the decision
        + 1  # a chelem announced
    )


def encode(seen: Observation, rules: Rules) -> npt.NDArray[np.int8]:
    """An observation under ``rules`` as 0/1 values, seats counted from the observer (its own
    seat first)."""
    players = seen.players
    vector = np.zeros(observation_size(players), dtype=np.int8)
    at = 0

    def rel(seat: int) -> int:
        return (seat - seen.seat) % players

    def card_set(ids: tuple[int, ...] | None) -> None:
        nonlocal at
        if ids:
            vector[at + np.array(ids, dtype=np.int64)] = 1
        at += 78

    card_set(seen.hand)
    card_set(seen.trick)
    card_set(seen.dog)
    card_set(seen.ecart)
    card_set(seen.called)
    by_seat: list[list[int]] = [[] for _ in range(players)]
    for leader, trick in seen.tricks:
        for k, card in enumerate(trick):
            by_seat[rel(leader + k)].append(card)
    for k, card in enumerate(seen.trick):
        by_seat[rel(seen.trick_leader + k)].append(card)
    for played in by_seat:
        card_set(tuple(played))
    shown: list[tuple[int, ...]] = [()] * players
    for seat, (_, showed) in enumerate(seen.poignees):
        shown[rel(seat)] = showed
    for showed in shown:
        card_set(showed)
    for seat, bid in enumerate(seen.bids):
        choice = 0 if bid == -2 else 1 if bid == -1 else 2 + bid
        vector[at + rel(seat) * BID_CHOICES + choice] = 1
    at += players * BID_CHOICES
    if seen.taker >= 0:
        vector[at + rel(seen.taker)] = 1
    at += players
    if seen.contract is not None:
        vector[at + [c.name for c in rules.contracts].index(seen.contract)] = 1
    at += S.MAX_CONTRACTS
    for partner in seen.partners:
        vector[at + rel(partner)] = 1
    at += players
    for seat, voids in enumerate(seen.voids):
        for mark in voids:
            vector[at + rel(seat) * 5 + mark] = 1
    at += players * 5
    vector[at + S.DECISIONS.index(seen.decision)] = 1
    at += N_KINDS
    vector[at] = int(seen.chelem)
    return vector


def largest_loss(rules: Rules) -> float:
    """A bound on what one seat can lose in one deal of ``rules``: no deal costs more.

    French presets: a defender's part is at most (``base_score`` + the largest margin, the
    whole pack's points or the highest requirement) × the highest multiplier, plus the Petit au
    bout (multiplied if the rules say so), a triple poignée from every seat, and every chelem
    amount at once; the taker alone pays ``shares.alone`` such parts (a called partner
    less), and a personal Petit au bout costs each other seat its value once more. Tarocco: a
    count is at most the pack's points and every premium; it is never below minus the
    premiums, so the bound holds both ways. Not the exact worst deal: a bound above it.

    >>> largest_loss(load_rules("fft-4"))
    5928.0
    """
    if rules.tarocco is not None:
        t = rules.tarocco
        premiums = (t.magician_last_trick, t.magician_lost_last_trick, t.tarocchi_premium,
                    t.all_tricks_premium, t.card_price * rules.hand_size)  # fmt: skip
        return float(rules.card_points.total + sum(abs(value) for value in premiums))
    multiplier = max((c.multiplier for c in rules.contracts), default=1)
    petit = rules.petit_au_bout.value * (multiplier if rules.petit_au_bout.multiplied else 1)
    margin = max(rules.card_points.total, *rules.bouts_required)
    chelem = rules.chelem
    chelems = (chelem.announced_made, chelem.announced_failed, chelem.unannounced_made,
               chelem.defence)  # fmt: skip
    per_defender = (
        (rules.base_score + margin) * multiplier
        + petit
        + rules.players * max(rules.poignee.bonuses)
        + sum(abs(value) for value in chelems)
    )
    seats_paid = max(rules.shares.alone, rules.players - 1)
    return float(seats_paid * per_defender + seats_paid * petit)


def illegal_action_reward(rules: Rules) -> float:
    """The reward of an illegal action under ``rules``: one point below minus
    :func:`largest_loss`, worse than any deal played to its end."""
    return -math.floor(largest_loss(rules)) - 1.0


def env(rules: str | Rules = "fft-4", render_mode: str | None = None) -> AECEnv:
    """The environment for ``rules`` (a preset's name, a rules file or :class:`Rules`), with
    PettingZoo's checks: an illegal action ends the deal, its agent's reward
    :func:`illegal_action_reward` (worse than any deal), the others' 0. ``render_mode``:
    ``"ansi"`` for ``render()`` to return the deal as text, ``"human"`` to print it after
    every step."""
    environment: AECEnv = raw_env(rules=rules, render_mode=render_mode)
    penalty = illegal_action_reward(environment.rules)
    environment = wrappers.TerminateIllegalWrapper(environment, illegal_reward=penalty)
    environment = wrappers.AssertOutOfBoundsWrapper(environment)
    return wrappers.OrderEnforcingWrapper(environment)


class raw_env(AECEnv):  # the lower-case name PettingZoo's environments use
    """One deal of ``rules`` as an AEC environment (see the module's docstring)."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "human"],
        "name": "tarot_v0",
        "is_parallelizable": False,
    }

    def __init__(self, rules: str | Rules = "fft-4", render_mode: str | None = None) -> None:
        super().__init__()
        modes = self.metadata["render_modes"]
        if render_mode is not None and render_mode not in modes:
            raise TarotInputError(
                f"unknown render mode {render_mode!r}: the modes are {', '.join(modes)}, or None "
                "for no rendering"
            )
        self.rules = rules if isinstance(rules, Rules) else load_rules(rules)
        players = self.rules.players
        self.possible_agents = [f"player_{seat}" for seat in range(players)]
        self.agents = self.possible_agents[:]
        self.render_mode = render_mode
        size = observation_size(players)
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(0, 1, shape=(size,), dtype=np.int8),
                    "action_mask": spaces.Box(0, 1, shape=(S.N_ACTIONS,), dtype=np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: spaces.Discrete(S.N_ACTIONS) for agent in self.possible_agents}
        self._rng = np.random.default_rng()
        self.state: GameState | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        while True:  # a deal void for a Petit sec is dealt again, as at the table
            state = GameState.deal(self.rules, seed=self._rng)
            if not state.is_over:
                break
        self.state = state
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = self.possible_agents[state.actor]

    def observe(self, agent: str) -> dict[str, npt.NDArray[np.int8]]:
        if self.state is None:
            raise TarotInputError("no deal yet: call reset() before observe()")
        if agent not in self.possible_agents:
            raise TarotInputError(
                f"no agent {agent!r}: the agents are {', '.join(self.possible_agents)}"
            )
        seen = self.state.observation(self.possible_agents.index(agent))
        mask = seen.action_mask.astype(np.int8)
        return {"observation": encode(seen, self.rules), "action_mask": mask}

    def step(self, action: int | None) -> None:
        if self.state is None:
            raise TarotInputError("no deal yet: call reset() before step()")
        if not self.agents:
            raise TarotInputError("the deal is over and every agent is done: call reset()")
        if self.terminations[self.agent_selection] or self.truncations[self.agent_selection]:
            self._was_dead_step(action)
            return
        if isinstance(action, np.ndarray) and action.ndim == 0:
            action = action.item()
        if action is None:
            raise TarotInputError(
                f"{self.agent_selection} is to act, not done: step() needs one of its legal "
                "actions (None is the step of an agent that is done)"
            )
        self._cumulative_rewards[self.agent_selection] = 0.0
        self.state.apply(action)
        if self.state.is_over:
            scores = self.state.scores()
            for seat, agent in enumerate(self.possible_agents):
                self.rewards[agent] = float(scores[seat])
                self.terminations[agent] = True
            self._accumulate_rewards()
        else:
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self.agent_selection = self.possible_agents[self.state.actor]
        if self.render_mode == "human":
            print(self.render())

    def render(self) -> str | None:
        """The deal as text (:func:`describe_state`) with ``render_mode="ansi"`` or ``"human"``;
        without a mode, a warning (gymnasium's) and ``None``."""
        if self.render_mode is None:
            logger.warn(
                "render() needs a render mode: make the environment with "
                'env(rules=..., render_mode="ansi") to get the deal as text',
                stacklevel=2,
            )
            return None
        if self.state is None:
            return None
        return describe_state(self.state)

    def close(self) -> None:
        pass


def describe_state(state: GameState) -> str:
    """The deal as text: hands now, the auction, the call, the tricks played, the score."""
    rules = state.rules
    seen = state.observation(0)
    lines = [f"{rules.name}: {state.decision}" + (f", seat {state.actor} to act" if
             not state.is_over else "")]  # fmt: skip
    for seat in range(rules.players):
        lines.append(f"  seat {seat}: {cards.format_cards(state.hand(seat)) or '—'}")
    names = [c.name for c in rules.contracts]
    spoken = {-2: "not yet bid", -1: "pass"}
    if any(bid > -2 for bid in seen.bids):  # an auction has begun
        lines.append("Bids: " + ", ".join(
            f"seat {seat} {spoken.get(bid) or names[bid]}" for seat, bid in enumerate(seen.bids)
        ))  # fmt: skip
    if seen.taker >= 0 and rules.tarocco is None:
        lines.append(f"Seat {seen.taker} takes: {seen.contract}")
    for card in seen.called:
        lines.append(f"Called: {cards.card_long_name(card)}")
    for number, (leader, trick) in enumerate(seen.tricks, start=1):
        played = ", ".join(
            f"{(leader + k) % rules.players}:{cards.card_name(card)}"
            for k, card in enumerate(trick)
        )
        lines.append(f"Trick {number:>2}: {played}")
    if seen.trick:
        lines.append(f"Trick in progress: {cards.format_cards(seen.trick)}")
    if state.is_over:
        lines.append(
            "Scores: " + ", ".join(f"seat {k} {v:+g}" for k, v in enumerate(state.scores()))
        )
    elif seen.legal_actions or state.actor >= 0:
        legal = state.legal_actions()
        lines.append("Legal: " + ", ".join(action_name(int(a), rules) for a in legal))
    return "\n".join(lines)
