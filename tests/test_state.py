"""The game state that steps: the same games as the engine before it, its actions and
observations, bots written in Python at the table, and the worlds of a search bot."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy import special, stats

from benchmarks.duplicate import duplicate
from tarot_analysis.analyses.compare import compare_variants
from tarot_analysis.analyses.counterfactual import play_every_contract
from tarot_analysis.analyses.guidance import run_guidance
from tarot_analysis.analyses.one_hand import analyse_hand
from tarot_analysis.engine import state as S
from tarot_analysis.engine.core import poignee_level
from tarot_analysis.engine.determinize import (
    _played_by_seat,
    _rebuilt,
    consistent_places,
    determinize,
    sample_places,
)
from tarot_analysis.engine.game import GameState, Observation
from tarot_analysis.errors import TarotInputError
from tarot_analysis.game import cards
from tarot_analysis.game.rules import list_presets, load_rules
from tarot_analysis.table import compiled
from tarot_analysis.table import play as table_play
from tarot_analysis.table.play import play, play_given
from tests import golden_games
from tests.test_engine import referee_all
from tests.test_engine_scenarios import deal_around

ROOT = Path(__file__).resolve().parent.parent
PRESETS = list_presets()
FRENCH = [name for name in PRESETS if load_rules(name).tarocco is None]


# --------------------------------------------------------------------------------------------
# The same games as before the state
# --------------------------------------------------------------------------------------------

GOLDEN = json.loads((ROOT / "tests" / "data" / "golden_games.json").read_text())


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_the_same_games_as_the_engine_before_the_state(name: str) -> None:
    assert golden_games.runs()[name]() == GOLDEN[name]


def test_a_table_with_no_pimc_seat_plays_the_same_deals_without_the_search(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The table compiled without the search plays what the whole table plays, deal for deal,
    learned and rule bots together, and a pimc seat still goes to the whole table."""
    rules = load_rules("fft-4")
    bots = ["learned", "heuristic", "random", "learned"]
    used: list[str] = []

    def spy(name: str, kernel: Any) -> Any:
        def call(*arguments: Any) -> None:
            used.append(name)
            kernel(*arguments)

        return call

    monkeypatch.setattr(table_play, "play_deals", spy("whole", compiled.play_deals))
    monkeypatch.setattr(
        table_play, "play_deals_without_search",
        spy("without", compiled.play_deals_without_search),
    )  # fmt: skip
    quick = play(rules, 400, bots=bots, seed=5, keep_tricks=True, threads=1)
    play(rules, 2, bots=["pimc:4", "heuristic", "heuristic", "heuristic"], seed=5, threads=1)
    assert used == ["without", "whole"]
    monkeypatch.setattr(table_play, "play_deals_without_search", compiled.play_deals)
    whole = play(rules, 400, bots=bots, seed=5, keep_tricks=True, threads=1)
    fields = golden_games.PLAY_FIELDS
    assert golden_games.fingerprint(quick, fields) == golden_games.fingerprint(whole, fields)


def test_a_changed_game_changes_its_fingerprint() -> None:
    result = play(load_rules("fft-4"), 300, bots="random", seed=1, keep_tricks=True)
    before = golden_games.fingerprint(result, golden_games.PLAY_FIELDS)
    assert result.tricks is not None
    result.tricks[200, 5, 1] += 1
    assert golden_games.fingerprint(result, golden_games.PLAY_FIELDS) != before


# --------------------------------------------------------------------------------------------
# The state, one decision at a time
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("preset", PRESETS)
def test_every_preset_steps_to_the_end_with_legal_actions(preset: str) -> None:
    rules = load_rules(preset)
    rng = np.random.default_rng(7)
    for seed in range(20):
        state = GameState.deal(rules, seed=seed)
        while not state.is_over:
            legal = state.legal_actions()
            assert len(legal) > 0 and set(legal) == set(np.flatnonzero(state.action_mask()))
            state.apply(int(rng.choice(legal)))
        scores = state.scores()
        if rules.tarocco is None:
            assert abs(scores.sum()) < 1e-9
        else:
            assert scores.sum() >= 83 - 1e-9  # the pack counts 83, premiums come on top


def test_a_copy_steps_on_its_own() -> None:
    state = GameState.deal(load_rules("fft-4"), seed=5)
    copy = state.copy()
    copy.apply(int(copy.legal_actions()[-1]))
    assert state.decision == "bid" and state.actor == 0
    assert copy.actor == 1


def test_an_illegal_action_is_refused_naming_seat_decision_and_action() -> None:
    rules = load_rules("fft-4")
    hands = deal_around(rules, {0: "21 20 19 18 17 16 15 14 13 12 11 10 9 8 7 6 5 1"})
    state = GameState.from_hands(rules, hands, forced=[1, 1, -1, -1])
    while state.decision != "card":
        state.apply(int(state.legal_actions()[0]))
    with pytest.raises(TarotInputError, match=r"seat 0, card: KS \(action 13\) is not legal"):
        state.apply(13)
    with pytest.raises(TarotInputError, match="not legal"):
        state.apply(S.PASS)


@pytest.mark.parametrize(
    ("action", "message"),
    [
        ("garde", r"an action is a number from 0 to 92 \(see legal_actions\(\) .*got 'garde'"),
        (None, "an action is a number from 0 to 92.*got None"),
        (1.5, "an action is a number.*got 1.5"),
        (True, "an action is a number.*got True"),
        (93, r"seat 0, bid: 93 is not an action \(actions run from 0 to 92\); legal: pass"),
        (-1, "seat 0, bid: -1 is not an action"),
    ],
)
def test_an_action_that_is_no_action_is_refused(action: object, message: str) -> None:
    state = GameState.deal(load_rules("fft-4"), seed=1)
    with pytest.raises(TarotInputError, match=message):
        state.apply(action)  # type: ignore[arg-type]


def test_no_action_is_taken_once_the_deal_is_over() -> None:
    state = GameState.deal(load_rules("fft-4"), seed=3)
    while not state.is_over:
        state.apply(int(state.legal_actions()[0]))
    for action in (5, "garde", None):
        with pytest.raises(TarotInputError, match="the deal is over: no action"):
            state.apply(action)  # type: ignore[arg-type]


@pytest.mark.parametrize("seat", [9, -1, 4, 100, "1", 1.0])
def test_a_seat_out_of_the_table_is_refused(seat: object) -> None:
    state = GameState.deal(load_rules("fft-4"), seed=1)
    with pytest.raises(TarotInputError, match="seat must be"):
        state.hand(seat)  # type: ignore[arg-type]
    with pytest.raises(TarotInputError, match="seat must be"):
        state.observation(seat)  # type: ignore[arg-type]


def test_masks_that_are_no_deal_are_refused() -> None:
    from tarot_analysis.deals.deal import deal

    rules = load_rules("fft-4")
    good = deal(rules, 1, 1, threads=1).masks[0].copy()
    assert GameState(rules, good).decision == "bid"
    twice = good.copy()
    twice[1] |= good[0]
    beyond = good.copy()
    beyond[4, 1] |= np.uint64(1 << 30)
    short = good.copy()
    short[4] = good[4] & np.uint64(1)  # a dog of 0 or 1 card
    everything = np.full((5, 2), np.iinfo(np.uint64).max, dtype=np.uint64)
    for bad, message in [
        (twice, "seat 1: .* is dealt twice"),
        (beyond, "the dog: the mask holds a bit beyond the 78 cards"),
        (short, "the dog holds [01] cards, 6 expected"),
        (everything, "seat 0: the mask holds a bit beyond the 78 cards"),
    ]:
        with pytest.raises(TarotInputError, match=message):
            GameState(rules, bad)


def test_actions_are_numbered_once_for_every_decision() -> None:
    assert (S.PASS, S.BID_0, S.SHOW_0, S.NO_CHELEM, S.ANNOUNCE_CHELEM) == (78, 79, 87, 91, 92)
    assert S.N_ACTIONS == 93
    state = GameState.deal(load_rules("fft-4"), seed=1)
    assert list(state.legal_actions()) == [S.PASS, 79, 80, 81, 82]


def test_the_observation_holds_what_the_seat_may_know() -> None:
    rules = load_rules("fft-5")
    state = GameState.deal(rules, seed=11, forced=[2, 1, cards.KING_OF_HEARTS, -1])
    while state.decision != "card" or int(state.s[S.S_TRICK]) < 3:
        state.apply(int(state.legal_actions()[0]))
    for seat in range(5):
        seen = state.observation(seat)
        assert seen.hand == state.hand(seat)
        assert (seen.taker, seen.contract) == (2, "garde")
        assert seen.called == (cards.KING_OF_HEARTS,)
        assert seen.dog is not None and len(seen.dog) == 3  # a Garde shows the dog
        if seat == 2:
            assert len(seen.ecart) == 3
        else:  # only the trumps of the écart are shown
            assert all(card > cards.EXCUSE for card in seen.ecart)
        assert len(seen.tricks) == 3 and all(len(cards_) == 5 for _, cards_ in seen.tricks)
        assert bool(seen.legal_actions) == (seat == state.actor)
    # Every card a seat saw played, and the voids that follow from it.
    seen = state.observation(0)
    for leader, trick in seen.tricks:
        led = next(card for card in trick if card != cards.EXCUSE)
        for k, card in enumerate(trick):
            who = (leader + k) % 5
            if led < 56 and card < 56 and card // 14 != led // 14:
                assert led // 14 in seen.voids[who]


# --------------------------------------------------------------------------------------------
# Bots written in Python
# --------------------------------------------------------------------------------------------


class FirstLegal:
    """Always the first legal action."""

    def act(self, observation: Observation) -> int:
        return observation.legal_actions[0]


class Cheat:
    name = "cheat"

    def act(self, observation: Observation) -> int:
        return 77 if observation.decision == "card" else observation.legal_actions[0]


@pytest.mark.parametrize("preset", ["fft-4", "fft-5"])
def test_a_python_bot_plays_beside_compiled_ones(preset: str) -> None:
    rules = load_rules(preset)
    bots = [FirstLegal(), "heuristic", "random", *["heuristic"] * (rules.players - 3)]
    result = play(rules, 300, bots=bots, seed=3, keep_tricks=True, threads=2)
    assert result.bots[0] == "FirstLegal"
    assert referee_all(result) > 150
    again = play(rules, 300, bots=bots, seed=3, keep_tricks=True)
    assert again.outcomes.tobytes() == result.outcomes.tobytes()  # same seed, same games


def test_a_python_bot_is_asked_every_decision_of_its_seat() -> None:
    rules = load_rules("fft-4")

    class Delegate:
        def __init__(self) -> None:
            self.calls = 0

        def act(self, observation: Observation) -> int:
            self.calls += 1
            return observation.legal_actions[0]

    delegate = Delegate()
    result = play(rules, 50, bots=[delegate, "random", "random", "random"], seed=4)
    played = int((result.outcomes[:, 0] == 0).sum())
    assert delegate.calls >= played * rules.hand_size > 0


def test_an_illegal_python_answer_is_refused() -> None:
    rules = load_rules("fft-4")
    with pytest.raises(TarotInputError, match=r"cheat at seat 0, card: answered 21, not a legal"):
        play(rules, 50, bots=[Cheat(), "random", "random", "random"], seed=1)
    with pytest.raises(TarotInputError, match="a bot is a name"):
        play(rules, 5, bots=[object(), "random", "random", "random"], seed=1)


def test_a_python_bot_that_raises_is_reported_with_its_seat_and_decision() -> None:
    class Broken:
        name = "broken"

        def act(self, observation: Observation) -> int:
            if observation.decision == "card":
                raise KeyError("no such card")
            return observation.legal_actions[0]

    rules = load_rules("fft-4")
    with pytest.raises(
        TarotInputError, match=r"broken at seat 2, card: raised KeyError: 'no such"
    ) as raised:
        play(rules, 5, bots=["random", "random", Broken(), "random"], seed=1)
    assert isinstance(raised.value.__cause__, KeyError)  # the bot's own error, kept


def test_python_bots_play_tarocco_and_known_deals() -> None:
    result = play(load_rules("tarocco"), 30, bots=FirstLegal(), seed=2)
    assert result.bots == ("FirstLegal",) * 3
    assert (result.parts.sum(axis=(1, 2)) >= 2 * 83).all()
    rules = load_rules("fft-4")
    hands = deal_around(rules, {0: "21 20 19 18 17 16 15 14 13 12 11 10 9 8 7 6 5 1"})
    given = play_given(rules, [hands], bots=FirstLegal(), forced=[0, 1, -1, -1],
                       script=[[["21", None, None, None]]])  # fmt: skip
    assert given.tricks is not None and given.tricks[0, 0, 0] == cards.TWENTY_ONE


def test_a_python_bot_plays_a_duplicate_match() -> None:
    result = duplicate("fft-5", 60, FirstLegal(), "random", seed=2)
    assert result.bots == ("FirstLegal", "random")
    assert result.n == 60 and np.isfinite(result.ci_low)


@pytest.mark.slow
def test_every_runner_takes_a_python_bot(tmp_path: Path) -> None:
    rules = load_rules("fft-4")
    bots = [FirstLegal(), "heuristic", "heuristic", "heuristic"]
    outcomes = play_every_contract(rules, 40, bots=bots, seed=1)
    assert outcomes.bots[0] == "FirstLegal" and len(outcomes.frame) == 40 * 4
    data = run_guidance(rules, 40, tmp_path / "guidance", bots=bots, seed=1, chunk_size=20)
    assert data.bots[0] == "FirstLegal"
    comparison = compare_variants([rules, load_rules("legacy-4")], 40, bots=bots, seed=1)
    assert comparison.bots[0] == "FirstLegal"
    hand = "21 19 12 6 1 E KH CH 10H 8H 1H JD 8D QC CC 7C 6S 4S"
    assert analyse_hand(hand, rules, deals=40, bots=bots, seed=1).bots[0] == "FirstLegal"


def test_python_bots_refuse_a_cluster() -> None:
    with pytest.raises(TarotInputError, match="without a Dask cluster"):
        play(load_rules("fft-4"), 10, bots=FirstLegal(), client=object())


# --------------------------------------------------------------------------------------------
# The engine imports no bot
# --------------------------------------------------------------------------------------------


def test_no_module_of_the_engine_imports_a_bot() -> None:
    # The imports as written, inside functions too: tests/test_imports.py. Here, as run.
    code = (
        "import sys, importlib, pkgutil, tarot_analysis.engine as e\n"
        "for m in pkgutil.iter_modules(e.__path__):\n"
        "    importlib.import_module('tarot_analysis.engine.' + m.name)\n"
        "print(sorted(n for n in sys.modules if n.startswith('tarot_analysis.bots')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


# --------------------------------------------------------------------------------------------
# Worlds consistent with a seat's observation
# --------------------------------------------------------------------------------------------


def late_position(preset: str, tricks_done: int, seed: int) -> GameState:
    """A deal stepped with random legal actions to ``tricks_done`` tricks played; French deals
    are a Garde of seat 0, so that the dog is shown."""
    rules = load_rules(preset)
    rng = np.random.default_rng(seed)
    forced = None if rules.tarocco is not None else [0, 1, -1, -1]
    state = GameState.deal(rules, seed=seed, forced=forced)
    while not state.is_over and not (
        state.decision == "card" and int(state.s[S.S_TRICK]) == tricks_done
        and int(state.s[S.S_IN_TRICK]) == 0
    ):  # fmt: skip
        state.apply(int(rng.choice(state.legal_actions())))
    return state


def asked_for_a_poignee(state: GameState) -> list[bool]:
    """Whether the poignée phase asks each seat: one that may show and held, then, at least the
    lowest threshold of trumps with the Excuse (what it holds now and what it played)."""
    rules = state.rules
    played = _played_by_seat(state)
    taker = int(state.s[S.S_TAKER])
    asked = []
    for k in range(rules.players):
        hi = np.uint64(cards.to_mask(set(state.hand(k)) | played[k])[1])
        may_show = rules.poignee.who == "any" or k == taker
        asked.append(bool(may_show and poignee_level(hi, state.engine.params) > 0))
    return asked


def the_table_plays(state: GameState, world: GameState) -> bool:
    """Whether the table would play ``world`` as it played ``state``: not redealt for a Petit
    sec, and its poignée phase asked the seats that ``state``'s asked, so far."""
    if world.is_over and not state.is_over:
        return False
    if not state.rules.has_poignee:
        return True
    reached = {"poignee": state.actor + 1, "chelem": state.rules.players}
    reached["card"] = state.rules.players
    seats = range(reached.get(state.decision, 0))
    truth, again = asked_for_a_poignee(state), asked_for_a_poignee(world)
    return all(truth[k] == again[k] for k in seats)


def every_consistent_world(state: GameState, seat: int) -> list[tuple[int, ...]]:
    """Every placement of the unseen cards consistent with the seat's knowledge, by plain
    enumeration (a key: each unseen card's place, in card order), less those the table would
    not play (:func:`the_table_plays`)."""
    places, allowed, room = consistent_places(state, seat)
    unseen = sorted(allowed)
    worlds: list[tuple[int, ...]] = []

    def place(i: int, left: dict[int, int], key: tuple[int, ...]) -> None:
        if i == len(unseen):
            row = np.array([places.index(where) for where in key], dtype=np.int64)
            if the_table_plays(state, _rebuilt(state, places, unseen, row)):
                worlds.append(key)
            return
        for where in allowed[unseen[i]]:
            if left[where]:
                place(i + 1, {**left, where: left[where] - 1}, (*key, where))

    place(0, dict(room), ())
    return worlds


def world_key(world: GameState, unseen: list[int], places: list[int]) -> tuple[int, ...]:
    """Where each unseen card lies in ``world``, in card order."""
    where = {}
    for place in places:
        if place >= 0:
            held = world.hand(place)
        else:
            address = S.M_DOG if place == -1 else S.M_ECART
            held = tuple(cards.from_mask(int(world.m[address]), int(world.m[address + 1])))
        for card in held:
            where[card] = place
    return tuple(where[card] for card in unseen)


def sampled_worlds(state: GameState, seat: int, count: int) -> Counter[tuple[int, ...]]:
    places, _, chosen = sample_places(state, seat, 1, count)
    return Counter(tuple(places[int(i)] for i in row) for row in chosen)


@pytest.mark.parametrize(
    ("preset", "tricks_done", "seed", "as_taker"),
    [("fft-4", 16, 3, True), ("fft-4", 17, 8, False), ("fft-3", 21, 2, True),
     ("fft-5", 14, 4, False),
     pytest.param("six-king-queen", 11, 6, False, marks=pytest.mark.slow),
     pytest.param("tarocco", 22, 5, False, marks=pytest.mark.slow)],
)  # fmt: skip
def test_worlds_are_uniform_among_the_consistent_deals(
    preset: str, tricks_done: int, seed: int, as_taker: bool
) -> None:
    state = late_position(preset, tricks_done, seed)
    taker = int(state.s[S.S_TAKER])
    seat = taker if as_taker else (taker + 1) % state.rules.players
    everyone = every_consistent_world(state, seat)
    assert 3 <= len(everyone) <= 3_000
    counts = sampled_worlds(state, seat, 60 * len(everyone))
    assert set(counts) <= set(everyone)  # every world is consistent
    observed = np.array([counts[world] for world in everyone])
    chi2, p_value = stats.chisquare(observed)
    assert p_value > 1e-3, (chi2, p_value, len(everyone))
    # The states built from the worlds hold the cards where the worlds put them.
    places, unseen, chosen = sample_places(state, seat, 2, 20)
    for world, row in zip(determinize(state, seat, 2, 20), chosen, strict=True):
        assert world_key(world, unseen, places) == tuple(places[int(i)] for i in row)


def test_worlds_respect_voids_and_keep_what_the_seat_knows() -> None:
    for seed in range(6):
        state = late_position("fft-4", 9, seed)
        for seat in range(4):
            seen = state.observation(seat)
            for world in determinize(state, seat, seed, 5):
                assert world.hand(seat) == state.hand(seat)
                assert world.observation(seat).tricks == seen.tricks
                for other in range(4):
                    held = world.hand(other)
                    assert len(held) == len(state.hand(other))
                    for card in held:
                        if card < 56:
                            assert card // 14 not in seen.voids[other]
                        elif card > cards.EXCUSE:
                            assert 4 not in seen.voids[other]


def test_a_biased_sampler_fails_the_uniformity_test() -> None:
    # Placing each unseen card at random where it may go, ignoring how many ways the others
    # can then be placed, is not uniform: the same test rejects it.
    state = late_position("fft-4", 17, 8)
    seat = (int(state.s[S.S_TAKER]) + 1) % 4
    _, allowed, room = consistent_places(state, seat)
    unseen = sorted(allowed)
    everyone = every_consistent_world(state, seat)
    rng = np.random.default_rng(0)
    counts: Counter[tuple[int, ...]] = Counter()
    while sum(counts.values()) < 60 * len(everyone):
        left = dict(room)
        key = []
        for card in unseen:
            options = [place for place in allowed[card] if left[place] > 0]
            if not options:
                break
            place = options[int(rng.integers(len(options)))]
            left[place] -= 1
            key.append(place)
        if len(key) == len(unseen):
            counts[tuple(key)] += 1
    observed = np.array([counts[world] for world in everyone])
    assert stats.chisquare(observed).pvalue < 1e-3


def test_the_outcome_offsets_name_the_columns_in_their_order() -> None:
    from tarot_analysis.engine import outcome

    for index, name in enumerate(outcome.OUTCOME_COLUMNS):
        constant = {"attack_half_points": "ATTACK_HALF", "dog_half_points": "DOG_HALF",
                    "ecart_half_points": "ECART_HALF", "petit_wins_last_trick": "PETIT_WINS_LAST",
                    "chelem_announced": "CHELEM_ANNOUNCED"}.get(name, name.upper())  # fmt: skip
        assert getattr(outcome, f"O_{constant}") == index, name


@pytest.mark.slow
def test_worlds_are_uniform_when_a_poignee_showed_only_its_count() -> None:
    # legacy-4: the taker showed 11 trumps with the Excuse, the 21 and the 3; with one card
    # left each, its last card may be a hidden trump between them, or not, as the count says.
    rules = load_rules("legacy-4")
    hand = "21 19 17 15 13 11 9 7 5 3 E KS QS CS JS 10S 9S 8S"
    others = [card for card in range(78) if card not in set(cards.parse_cards(hand))]
    checked = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        rng.shuffle(others)
        hands = [hand] + [
            cards.format_cards(others[18 * k : 18 * (k + 1)]) for k in range(3)
        ] + [cards.format_cards(others[54:])]  # fmt: skip
        state = GameState.from_hands(rules, hands, forced=[0, 2, -1, -1])
        while not state.is_over and not (
            state.decision == "card" and int(state.s[S.S_TRICK]) == 17
        ):
            if state.decision == "poignee":
                state.apply(S.SHOW_0 + 1)
            else:
                state.apply(int(rng.choice(state.legal_actions())))
        if state.is_over:
            continue  # a Petit sec
        places, _, _ = consistent_places(state, 1)
        hidden = [place for place in places if place >= 16]
        everyone = every_consistent_world(state, 1)
        if not hidden or len(everyone) < 3:
            continue
        counts = sampled_worlds(state, 1, 60 * len(everyone))
        assert set(counts) <= set(everyone)
        observed = np.array([counts[world] for world in everyone])
        assert stats.chisquare(observed).pvalue > 1e-3
        seen = state.observation(1)
        for world in determinize(state, 1, rng=seed, count=10):
            # Replayed, the world's taker shows the same count and the same two trumps.
            again = world.observation(1)
            assert again.poignee_counts == seen.poignee_counts
            assert again.poignees == seen.poignees
        checked += 1
    assert checked >= 3


def stepped(rules_name: str, hands: list[list[int]], decision: str, seed: int = 0) -> GameState:
    """The deal of ``hands`` (each seat's, then the dog), a Garde of seat 0, stepped with
    random legal actions (a poignée held is shown) to its first ``decision``."""
    state = GameState.from_hands(
        load_rules(rules_name), [cards.format_cards(hand) for hand in hands], forced=[0, 1, -1, -1]
    )
    rng = np.random.default_rng(seed)
    while state.decision != decision:
        legal = state.legal_actions()
        state.apply(int(legal[-1] if state.decision == "poignee" else rng.choice(legal)))
    return state


def test_worlds_at_another_seats_poignee_decision_keep_that_it_holds_one() -> None:
    # fft-4: seat 1 holds twelve trumps with the Excuse, so the table asks it; the seats that
    # watch know it holds at least ten.
    suits = list(range(56))
    hands = [suits[:18], list(range(56, 68)) + suits[18:24], list(range(68, 75)) + suits[24:35],
             list(range(75, 78)) + suits[35:50], suits[50:56]]  # fmt: skip
    state = stepped("fft-4", hands, "poignee")
    assert state.actor == 1
    for seat in (0, 2, 3):
        for world in determinize(state, seat, rng=seat, count=20):
            assert (world.decision, world.actor) == ("poignee", 1)
            assert asked_for_a_poignee(world)[1]
            assert world.hand(seat) == state.hand(seat)
    # Seen from seat 0, the 22 trumps lie among the 54 cards of seats 1 to 3: seat 1 holds 10
    # or more of them as often as among all the deals where it does (hypergeometric).
    places, unseen, chosen = sample_places(state, 0, 3, 4000)
    trumps = np.array([card >= cards.EXCUSE for card in unseen])
    held = Counter(int(((row == places.index(1)) & trumps).sum()) for row in chosen)
    law = stats.hypergeom(54, 22, 18)
    counts = np.arange(10, 19)
    expected = law.pmf(counts) / law.sf(9) * len(chosen)
    big = expected >= 5
    observed = np.array([held[int(n)] for n in counts])
    assert sum(held.values()) == observed.sum()  # never fewer than ten
    observed = np.append(observed[big], observed[~big].sum())
    expected = np.append(expected[big], expected[~big].sum())
    assert stats.chisquare(observed, expected).pvalue > 1e-3
    # Seat 1 shows none: at the first card it still held ten or more, in every world.
    state.apply(S.SHOW_0)
    while state.decision != "card":
        state.apply(int(state.legal_actions()[0]))
    for world in determinize(state, 0, rng=4, count=20):
        assert asked_for_a_poignee(world)[1]


def test_worlds_keep_that_the_seats_not_asked_held_no_poignee() -> None:
    # fft-4: the 22 trumps with the Excuse are 9, 9 and 4 in seats 1 to 3, so nobody was asked;
    # every world, seen from seat 0 as from seat 1, keeps each seat under ten.
    suits = list(range(56))
    hands = [suits[:18], list(range(56, 65)) + suits[18:27], list(range(65, 74)) + suits[27:36],
             list(range(74, 78)) + suits[36:50], suits[50:56]]  # fmt: skip
    state = stepped("fft-4", hands, "card")
    assert not any(asked_for_a_poignee(state))
    for seat in (0, 1):
        worlds = determinize(state, seat, rng=seat, count=60)
        assert not any(any(asked_for_a_poignee(world)) for world in worlds)
        assert any(world.hand(2) != state.hand(2) for world in worlds)


def test_no_world_holds_a_petit_sec_and_the_others_stay_uniform() -> None:
    # fft-4, at the first bid: seat 0 holds the trumps 4 to 21, the Petit, the 2, the 3 and the
    # Excuse are elsewhere. A world where the Petit's holder has none of the other three is a
    # Petit sec, redealt: no world is one, and the placements of those four cards keep the
    # chances they have among the deals the table plays (every deal of the other cards alike).
    suits = list(range(56))
    hands = [list(range(60, 78)), [cards.PETIT, 58, *suits[:16]],
             [59, cards.EXCUSE, *suits[16:32]], suits[32:50], suits[50:56]]  # fmt: skip
    state = GameState.from_hands(load_rules("fft-4"), [cards.format_cards(h) for h in hands])
    places, unseen, chosen = sample_places(state, 0, 5, 6000)
    four = [unseen.index(card) for card in (cards.EXCUSE, cards.PETIT, 58, 59)]
    counts = Counter(tuple(places[int(i)] for i in row[four]) for row in chosen)
    room = {1: 18, 2: 18, 3: 18, -1: 6}

    def ways(key: tuple[int, ...]) -> float:
        holder = key[1]  # the Petit's place
        if holder >= 0 and all(where != holder for where in (key[0], key[2], key[3])):
            return 0.0  # a Petit sec
        left = [room[place] - key.count(place) for place in room]
        if min(left) < 0:
            return 0.0
        return float(np.exp(special.gammaln(57) - sum(special.gammaln(n + 1) for n in left)))

    keys = list(itertools.product(room, repeat=4))
    weight = np.array([ways(key) for key in keys])
    expected = weight / weight.sum() * len(chosen)
    assert all(counts[key] == 0 for key, w in zip(keys, weight, strict=True) if w == 0)
    big = expected >= 5
    observed = np.array([counts[key] for key in keys])
    observed = np.append(observed[big], observed[~big].sum())
    expected = np.append(expected[big], expected[~big].sum())
    assert stats.chisquare(observed, expected).pvalue > 1e-3
    for world in determinize(state, 0, rng=5, count=200):
        assert not world.is_over


# --------------------------------------------------------------------------------------------
# Out-of-range input to every entry point that reaches compiled code: an error, never a crash
# --------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_out_of_range_input_raises_tarot_input_error_never_crashes() -> None:
    """Every call of tests/out_of_range_calls.py, in a child process: compiled code reading
    out of its arrays would kill it (a segmentation fault), which fails this test instead of
    the test run."""
    done = subprocess.run(
        [sys.executable, "-m", "tests.out_of_range_calls"],
        capture_output=True, text=True, check=False, cwd=Path(__file__).resolve().parents[1],
    )  # fmt: skip
    said = f"{done.stdout[-2000:]}{done.stderr[-2000:]}"
    assert done.returncode == 0, f"exit {done.returncode}: {said}"
    answers = dict(line.split(": ", 1) for line in done.stdout.splitlines())
    assert len(answers) == 22 * 10
    accepted = {name for name, said in answers.items() if said == "accepted"}
    refused = {name for name, said in answers.items() if said == "TarotInputError"}
    assert refused | accepted == set(answers), set(answers) - refused - accepted
    # What is accepted is what is right somewhere: a count of worlds, a card (9, 4; "1" in the
    # notation is the trump 1), -1 left to the table, 78 the action pass, no dealer given.
    assert accepted == {
        *(f"choose_action worlds {v}" for v in (9, 4, 100, 78)),
        *(f"{call} {v}" for call in ("legal_plays hand", "legal_plays trick", "trick_winner")
          for v in (9, 4)),
        "legal_plays trick '1'", "trick_winner '1'",
        "forced taker -1", "forced call -1", "env step 78", "dealer None",
    }  # fmt: skip
