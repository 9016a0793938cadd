"""The PettingZoo environment: PettingZoo's own API test for every preset, and a deal played."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test

from tarot_analysis.engine import state as S
from tarot_analysis.engine.outcome import N_OUTCOME, OUTCOME_COLUMNS
from tarot_analysis.engine.scoring import score_outcomes
from tarot_analysis.game.rules import Rules, list_presets, load_rules
from tarot_analysis.table.env import env, illegal_action_reward, largest_loss, observation_size

# PettingZoo suggests a Box observation; ours is the usual dict of observation and mask.
pytestmark = pytest.mark.filterwarnings("ignore:Observation:UserWarning")


@pytest.mark.parametrize("preset", list_presets())
def test_pettingzoo_api_test_passes(preset: str) -> None:
    api_test(env(rules=preset), num_cycles=200)


@pytest.mark.parametrize("preset", ["fft-4", "fft-5", "tarocco"])
def test_a_deal_played_to_the_end_rewards_the_scores(preset: str) -> None:
    environment = env(rules=preset, render_mode="ansi")
    environment.reset(seed=3)
    rng = np.random.default_rng(3)
    players = len(environment.possible_agents)
    totals = dict.fromkeys(environment.possible_agents, 0.0)
    steps = 0
    for agent in environment.agent_iter():
        observation, reward, terminated, truncated, _ = environment.last()
        totals[agent] += reward
        assert observation["observation"].shape == (observation_size(players),)
        if terminated or truncated:
            environment.step(None)
            continue
        mask = observation["action_mask"]
        assert mask.shape == (S.N_ACTIONS,) and mask.any()
        environment.step(int(rng.choice(np.flatnonzero(mask))))
        steps += 1
    assert steps > 10
    if preset != "tarocco":
        assert abs(sum(totals.values())) < 1e-9  # French scores sum to zero
    else:
        assert sum(totals.values()) >= 83
    assert "Scores:" in environment.render()


def test_the_environment_is_reproducible_from_its_seed() -> None:
    def first_hand(seed: int) -> list[int]:
        environment = env(rules="fft-3")
        environment.reset(seed=seed)
        return list(np.flatnonzero(environment.observe("player_0")["observation"][:78]))

    assert first_hand(5) == first_hand(5)
    assert first_hand(5) != first_hand(6)


def _worst_deal_for_the_taker(rules: Rules) -> float:
    """The taker's score in the worst deal: alone, at the highest contract, no point and no
    bout, the Petit au bout and a chelem to the defence after announcing one, and every seat
    showing a triple poignée."""
    played = {
        "redeal": 0, "taker": 0, "contract": len(rules.contracts) - 1, "attack_half_points": 0,
        "attack_bouts": 0, "attack_tricks": 0, "defence_tricks": rules.hand_size,
        "petit_au_bout": 0, "petit_au_bout_seat": 1, "petit_wins_last_trick": 1,
        "chelem_announced": 1, "dog_half_points": 0, "ecart_half_points": 0,
    }  # fmt: skip
    row = np.full(N_OUTCOME, -1, dtype=np.int32)
    for name, value in played.items():
        row[OUTCOME_COLUMNS.index(name)] = value
    poignees = np.full((1, rules.players), 3, dtype=np.int8)
    table = score_outcomes(row[None, :], poignees, rules)
    return float(table.loc[0, [f"score_{seat}" for seat in range(rules.players)]].min())


@pytest.mark.parametrize("preset", [name for name in list_presets() if name != "tarocco"])
def test_an_illegal_action_costs_more_than_the_worst_deal(preset: str) -> None:
    rules = load_rules(preset)
    worst = _worst_deal_for_the_taker(rules)
    assert worst < -1_000  # hundreds of points lost: a penalty of −1 would pay
    assert -largest_loss(rules) <= worst
    environment = env(rules=preset)
    environment.reset(seed=1)
    agent = environment.agent_selection
    illegal = int(np.flatnonzero(environment.observe(agent)["action_mask"] == 0)[0])
    environment.step(illegal)
    assert environment.terminations[agent]
    assert environment.rewards[agent] == illegal_action_reward(rules) < worst


def test_an_illegal_action_in_tarocco_costs_more_than_any_count() -> None:
    rules = load_rules("tarocco")
    environment = env(rules="tarocco")
    environment.reset(seed=1)
    agent = environment.agent_selection
    illegal = int(np.flatnonzero(environment.observe(agent)["action_mask"] == 0)[0])
    environment.step(illegal)
    # A count holds at most the pack's points and the premiums.
    assert environment.rewards[agent] == illegal_action_reward(rules) < -rules.card_points.total


def test_render_without_a_mode_says_how_to_get_one() -> None:
    environment = env(rules="fft-4")
    environment.reset(seed=1)
    with pytest.warns(UserWarning, match='render_mode="ansi"'):
        assert environment.render() is None


def test_render_shows_the_seats_yet_to_bid() -> None:
    environment = env(rules="fft-4", render_mode="ansi")
    environment.reset(seed=1)
    assert environment.agent_selection == "player_0"
    environment.step(S.BID_0)  # a Prise
    text = environment.render()
    assert "Bids: seat 0 prise, seat 1 not yet bid, seat 2 not yet bid, seat 3 not yet bid" in (
        text
    )
    environment.step(S.PASS)
    assert "seat 0 prise, seat 1 pass, seat 2 not yet bid" in environment.render()
    # Each agent's observation tells the seats yet to speak from those that passed.
    seen = environment.unwrapped.state.observation(2)
    assert seen.bids == (0, -1, -2, -2)


def test_the_bare_environment_says_what_is_wrong() -> None:
    """raw_env without PettingZoo's wrappers: a step before reset, a None for an agent to
    act, a word for an action and a step after every agent is done each raise
    TarotInputError with a message."""
    from tarot_analysis.errors import TarotInputError
    from tarot_analysis.table.env import raw_env

    bare = raw_env("fft-4")
    with pytest.raises(TarotInputError, match=r"no deal yet: call reset\(\) before step"):
        bare.step(0)
    bare.reset(seed=2)
    with pytest.raises(TarotInputError, match="player_0 is to act, not done"):
        bare.step(None)
    with pytest.raises(TarotInputError, match="an action is a number from 0 to 92"):
        bare.step("garde")  # type: ignore[arg-type]
    with pytest.raises(TarotInputError, match="100 is not an action"):
        bare.step(100)
    while bare.agents:
        agent = bare.agent_selection
        if bare.terminations[agent]:
            bare.step(None)
        else:
            bare.step(np.array(int(np.flatnonzero(bare.observe(agent)["action_mask"])[0])))
    with pytest.raises(TarotInputError, match="every agent is done: call reset"):
        bare.step(None)
    with pytest.raises(TarotInputError, match="every agent is done: call reset"):
        bare.step(0)


def test_observe_before_reset_and_an_unknown_agent_say_what_to_do() -> None:
    from tarot_analysis.errors import TarotInputError
    from tarot_analysis.table.env import raw_env

    bare = raw_env("fft-4")
    with pytest.raises(TarotInputError, match=r"no deal yet: call reset\(\) before observe"):
        bare.observe("player_0")
    bare.reset(seed=1)
    with pytest.raises(TarotInputError, match="no agent 'player_9': the agents are player_0"):
        bare.observe("player_9")


@pytest.mark.parametrize("mode", ["rgb_array", "ANSI", ""])
def test_an_unknown_render_mode_is_refused_with_the_modes(mode: str) -> None:
    from tarot_analysis.errors import TarotInputError
    from tarot_analysis.table.env import raw_env

    with pytest.raises(TarotInputError, match=r"unknown render mode .*: the modes are ansi, human"):
        raw_env("fft-4", render_mode=mode)
    with pytest.raises(TarotInputError, match="unknown render mode"):
        env(rules="fft-4", render_mode=mode)
