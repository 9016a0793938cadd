"""The PettingZoo environment: PettingZoo's own API test for every preset, and a deal played."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test

from tarot_analysis.engine import state as S
from tarot_analysis.env import env, observation_size
from tarot_analysis.rules import list_presets

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


def test_the_bare_environment_says_what_is_wrong() -> None:
    """raw_env without PettingZoo's wrappers: a step before reset, a None for an agent to
    act, a word for an action and a step after every agent is done each raise
    TarotInputError with a message."""
    from tarot_analysis.env import raw_env
    from tarot_analysis.errors import TarotInputError

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
