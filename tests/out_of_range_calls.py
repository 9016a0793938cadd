"""Out-of-range input to every entry point that reaches compiled code: a seat, a card, an
action or a count out of range, or of the wrong type. Run as a child process by
tests/test_state.py, which checks that each call raises ``TarotInputError`` (or is accepted,
where the value is right) and that the process ends normally: compiled code reading out of its
arrays would end it with a segmentation fault.

Prints one line per call: ``name: TarotInputError``, ``name: accepted`` or the other error.
"""

import numpy as np

from tarot_analysis.analyses.counterfactual import play_every_contract
from tarot_analysis.bots.pimc import choose_action, sample_world
from tarot_analysis.deals.deal import deal
from tarot_analysis.deals.odds import hand_odds
from tarot_analysis.engine.determinize import determinize, sample_places
from tarot_analysis.engine.forced import passing
from tarot_analysis.engine.game import GameState
from tarot_analysis.errors import TarotInputError
from tarot_analysis.game.rules import load_rules
from tarot_analysis.solver import legal_plays, solve, trick_winner
from tarot_analysis.table.env import raw_env
from tarot_analysis.table.play import play

rules = load_rules("fft-4")
state = GameState.deal(rules, seed=3, forced=[0, 1, -1, -1])
while state.decision != "card":
    state.apply(int(state.legal_actions()[0]))
masks = deal(rules, 1, 1, threads=1).masks[0]
five = load_rules("fft-5")
five_masks = deal(five, 1, 1, threads=1).masks[0]
hand = "21 20 19 18 17 16 15 14 13 12 11 10 9 8 7 6 5 4"
environment = raw_env("fft-4")
environment.reset(seed=1)


def filled(value: object) -> np.ndarray:
    """Masks of every row filled with a word made of ``value``."""
    return np.full((5, 2), hash(value) % 2**64, dtype=np.uint64)


calls = {}
for v in (9, -1, 4, 100, -100, 2**40, 78, "1", 2.0, None):
    calls.update(
        {
            f"sample_world seat {v!r}": lambda v=v: sample_world(state, v),
            f"determinize seat {v!r}": lambda v=v: determinize(state, v),
            f"sample_places seat {v!r}": lambda v=v: sample_places(state, v),
            f"hand seat {v!r}": lambda v=v: state.hand(v),
            f"observation seat {v!r}": lambda v=v: state.observation(v),
            f"apply action {v!r}": lambda v=v: state.copy().apply(v),
            f"choose_action worlds {v!r}": lambda v=v: choose_action(state, worlds=v),
            f"dealer {v!r}": lambda v=v: GameState(rules, masks, dealer=v),
            f"forced taker {v!r}": lambda v=v: GameState(rules, masks, forced=[v, 1, -1, -1]),
            f"forced contract {v!r}": lambda v=v: GameState(rules, masks, forced=[0, v, -1, -1]),
            f"forced call {v!r}": lambda v=v: GameState(five, five_masks, forced=[0, 1, v, -1]),
            f"legal_plays hand {v!r}": lambda v=v: legal_plays(rules, [v], []),
            f"legal_plays trick {v!r}": lambda v=v: legal_plays(rules, [3], [v]),
            f"trick_winner {v!r}": lambda v=v: trick_winner([3, v]),
            f"solve leader {v!r}": lambda v=v: solve(
                rules, ["21", "1", "2", "3"], leader=v, attack=[0]
            ),
            f"solve attack {v!r}": lambda v=v: solve(
                rules, ["21", "1", "2", "3"], leader=0, attack=[v]
            ),
            f"solve trick {v!r}": lambda v=v: solve(
                rules, ["21", "1", "2", "3 4"], leader=0, attack=[0], trick=[v]
            ),
            f"odds seat {v!r}": lambda v=v: hand_odds(hand, rules, seat=v),
            f"every contract seat {v!r}": lambda v=v: play_every_contract(rules, 4, seat=v, seed=1),
            f"play passing {v!r}": lambda v=v: play(
                rules, 4, forced=[passing(v), -1, -1, -1], seed=1
            ),
            f"env step {v!r}": lambda v=v: environment.step(v),
            f"masks filled with {v!r}": lambda v=v: GameState(rules, filled(v)),
        }
    )
for name, call in calls.items():
    print(name, end=": ", flush=True)
    try:
        call()
    except TarotInputError:
        print("TarotInputError", flush=True)
    except Exception as error:
        print(f"{type(error).__name__}: {error}", flush=True)
    else:
        print("accepted", flush=True)
