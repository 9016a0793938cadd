"""The pimc bot: its worlds agree with what its seat knows, it reads nothing else, it plays by
the rules at every table, and it beats the heuristic in duplicate."""

from __future__ import annotations

import sys
from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest

from tarot_analysis.bots import B_SHIFT_0, B_WORLDS, N_BID_SHIFTS, PIMC, Bot, heuristic, seat_rows
from tarot_analysis.bots.door import workspace
from tarot_analysis.bots.pimc import (
    ENDGAME_CARDS,
    _fresh_layers,
    _places,
    _play_to_end,
    _workspace,
    choose_action,
    endgame_of,
    sample_world,
    values_at,
)
from tarot_analysis.engine import state as S
from tarot_analysis.engine.determinize import HIDDEN_TRUMPS, _played_by_seat, consistent_places
from tarot_analysis.engine.game import GameState, Observation
from tarot_analysis.errors import TarotInputError
from tarot_analysis.game import cards
from tarot_analysis.game.rules import list_presets, load_rules
from tarot_analysis.table.compiled import advance
from tarot_analysis.table.play import play
from tarot_analysis.table.play_on import play_on

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from duplicate import duplicate

PRESETS = list_presets()


def card_states(name: str, count: int, seed: int, bot: str = "heuristic") -> list[GameState]:
    """States at a card decision, part-way through deals played by ``bot`` at every seat."""
    rules = load_rules(name)
    rng = np.random.default_rng(seed)
    heuristic_seats, nets = seat_rows([bot] * rules.players, rules)
    nobody = np.zeros(rules.players, dtype=np.bool_)
    generator = np.array([7, 11, 13, 17], dtype=np.uint64)
    found: list[GameState] = []
    deal = 0
    while len(found) < count:
        state = GameState.deal(rules, seed=seed * 1000 + deal)
        deal += 1
        steps = int(rng.integers(0, rules.players * rules.hand_size + 12))
        p, half = state.engine.params, state.engine.half_points
        ws = workspace(p, state.engine.scoring, heuristic_seats, nets)
        advance(state.m, state.s, heuristic_seats, nobody, steps, p, half, generator, ws)
        if state.decision == "card":
            found.append(state)
    return found


def same(a: Observation, b: Observation) -> bool:
    """Whether two observations are equal, field by field."""
    for field in fields(a):
        x, y = getattr(a, field.name), getattr(b, field.name)
        if not (np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y):
            return False
    return True


@pytest.mark.parametrize(
    "name",
    [  # six players draw their worlds slowly
        pytest.param(name, marks=pytest.mark.slow if load_rules(name).players == 6 else ())
        for name in PRESETS
    ],
)
def test_every_world_agrees_with_what_the_seat_knows(name: str) -> None:
    checked = 0
    for k, state in enumerate(card_states(name, 25, seed=5)):
        for seat in range(state.rules.players):
            world = sample_world(state, seat, seed=k * 10 + seat)
            assert same(world.observation(seat), state.observation(seat))
            for other in range(state.rules.players):
                assert len(world.hand(other)) == len(state.hand(other))
            checked += 1
    assert checked >= 75


def poignee_by_its_count(seed: int) -> GameState:
    """A legacy-4 Garde whose taker (seat 0) showed a poignée by its count, the highest and
    the lowest trump, stepped with random cards to the tenth trick."""
    rules = load_rules("legacy-4")
    hand = "21 19 17 15 13 11 9 7 5 3 E KS QS CS JS 10S 9S 8S"
    others = [card for card in range(78) if card not in set(cards.parse_cards(hand))]
    rng = np.random.default_rng(seed)
    rng.shuffle(others)
    hands = [hand] + [
        cards.format_cards(others[18 * k : 18 * (k + 1)]) for k in range(3)
    ] + [cards.format_cards(others[54:])]  # fmt: skip
    state = GameState.from_hands(rules, hands, forced=[0, 2, -1, -1])
    while not state.is_over and not (state.decision == "card" and int(state.s[S.S_TRICK]) == 10):
        if state.decision == "poignee":
            state.apply(S.SHOW_0 + 1 if state.actor == 0 else S.SHOW_0)
        else:
            state.apply(int(rng.choice(state.legal_actions())))
    return state


def test_the_worlds_place_the_unseen_cards_as_determinize_does() -> None:
    # One placement of the unseen cards: the same places in the same order (so the same
    # uniform numbers draw the same world), the same cards allowed in each, the same room.
    states = [*card_states("fft-4", 6, seed=3), *card_states("fft-5", 4, seed=3)]
    states += [*card_states("tarocco", 3, seed=3), *card_states("legacy-3", 3, seed=3)]
    states += [state for state in map(poignee_by_its_count, range(4)) if not state.is_over]
    hidden_trumps = 0
    for state in states:
        ws = _workspace(state, Bot("pimc", worlds=8))
        p = state.engine.params
        for seat in range(state.rules.players):
            places, n = _places(state.m, state.s, seat, p, ws)
            order, allowed, room = consistent_places(state, seat)
            assert [int(place) for place in ws.place_of[:places]] == order
            assert [int(card) for card in ws.unseen[:n]] == sorted(allowed)
            for i in range(n):
                where = [order[g] for g in range(places) if ws.may[i, g]]
                assert where == allowed[int(ws.unseen[i])]
            assert [int(c) for c in ws.capacity[:places]] == [room[g] for g in order]
            hidden_trumps += any(place >= HIDDEN_TRUMPS for place in order)
    assert hidden_trumps >= 3


@pytest.mark.parametrize("name", ["fft-4", "fft-5", "tarocco"])
def test_the_card_depends_only_on_what_the_seat_knows(name: str) -> None:
    differs = 0
    for k, state in enumerate(card_states(name, 12, seed=9)):
        seat = state.actor
        world = sample_world(state, seat, seed=k)
        differs += any(world.hand(o) != state.hand(o) for o in range(state.rules.players))
        assert choose_action(world, worlds=6, seed=k) == choose_action(state, worlds=6, seed=k)
    assert differs >= 6  # the worlds did move the hidden cards


def test_worlds_read_the_auction_as_the_heuristic_bids() -> None:
    worlds = 0
    fitting = 0
    for k, state in enumerate(card_states("fft-4", 60, seed=3)):
        taker = int(state.s[S.S_TAKER])
        if int(state.s[S.S_BIDS]) == -2 or state.actor == taker:
            continue
        world = sample_world(state, state.actor, seed=k)
        dealt = set(world.hand(taker)) | _played_by_seat(world)[taker]
        if world.dog_is_taken:
            dealt = (dealt | _cards(world.m, S.M_ECART)) - _cards(world.m, S.M_DOG)
        lo, hi = cards.to_mask(sorted(dealt))
        own = np.zeros(4, dtype=np.int64)  # the heuristic's own thresholds
        level = heuristic.contract_level(np.uint64(lo), np.uint64(hi), world.engine.params, own)
        worlds += 1
        fitting += level == int(state.s[S.S_BIDS + taker])
    assert worlds >= 20
    assert fitting / worlds > 0.8


def test_worlds_read_the_auction_as_the_learned_bot_bids() -> None:
    """Worlds drawn by ``pimc:learned`` at a table of learned bots: bid again by learned bots,
    most give the auction heard; drawn by plain ``pimc``, which reads the heuristic's
    bidding, fewer do."""
    rules = load_rules("fft-4")
    rows, nets = seat_rows(["learned"] * 4, rules)
    heard = {"pimc:learned": 0, "pimc": 0}
    worlds = 0
    for k, state in enumerate(card_states("fft-4", 60, seed=3, bot="learned")):
        if int(state.s[S.S_BIDS]) == -2 or int(state.s[S.S_PASSER]) >= 0:
            continue
        worlds += 1
        for name in heard:
            world = sample_world(state, state.actor, seed=k, bot=name)
            heard[name] += _auction_again(world, rows, nets) == _auction(state)
    assert worlds >= 20
    assert heard["pimc:learned"] / worlds > 0.8
    assert heard["pimc"] < heard["pimc:learned"]


def _auction(state: GameState) -> list[int]:
    return [int(b) for b in state.s[S.S_BIDS : S.S_BIDS + state.rules.players]]


def _auction_again(world: GameState, rows: np.ndarray, nets: np.ndarray) -> list[int]:
    """The auction the bots ``rows`` bid on the deal the world was dealt."""
    rules = world.rules
    played = _played_by_seat(world)
    dealt = [set(world.hand(seat)) | played[seat] for seat in range(rules.players)]
    dog = _cards(world.m, S.M_DOG)
    taker = int(world.s[S.S_TAKER])
    if world.dog_is_taken:
        dealt[taker] = (dealt[taker] | _cards(world.m, S.M_ECART)) - dog
    masks = [cards.to_mask(sorted(hand)) for hand in [*dealt, dog]]
    again = GameState(rules, np.array(masks, dtype=np.uint64))
    p, half = again.engine.params, again.engine.half_points
    ws = workspace(p, again.engine.scoring, rows, nets)
    generator = np.array([7, 11, 13, 17], dtype=np.uint64)
    nobody = np.zeros(rules.players, dtype=np.bool_)
    while again.decision == "bid":
        advance(again.m, again.s, rows, nobody, 1, p, half, generator, ws)
    return _auction(again)


def _cards(m: np.ndarray, at: int) -> set[int]:
    return set(cards.from_mask(int(m[at]), int(m[at + 1])))


def test_the_budget_is_part_of_the_name() -> None:
    def row(name: str) -> np.ndarray:
        return Bot.parse(name).row()

    assert row("pimc")[0] == PIMC
    assert row("pimc")[B_WORLDS] == 32
    assert row("pimc:64")[B_WORLDS] == 64
    assert endgame_of(row("pimc:64"), 4) == ENDGAME_CARDS // 4
    assert row("pimc:4096:8")[B_WORLDS] == 4096 and endgame_of(row("pimc:4096:8"), 5) == 8
    assert endgame_of(row("pimc:8:0"), 3) == 0
    for wrong in ("pimc:0", "pimc:x", "pimc:99999", "pimc:", "mcts", "pimc:8:9", "pimc:8:x"):
        with pytest.raises(TarotInputError):
            Bot.parse(wrong)
    for name in ("pimc:learned", "pimc:16:learned", "pimc:16:2:learned", "pimc:learned:m.npz"):
        assert Bot.parse(name).learned and Bot.parse(name).name == name
    assert Bot.parse("pimc:16:2:learned").row()[B_WORLDS] == 16
    assert not Bot.parse("pimc:16:2").learned
    for wrong in ("pimc:16:learnt", "pimc:8:9:learned"):
        with pytest.raises(TarotInputError):
            Bot.parse(wrong)
    with pytest.raises(TarotInputError):
        Bot("heuristic", learned=True)


def test_bids_calls_and_poignees_are_legal_actions() -> None:
    rules = load_rules("fft-5")
    seen = set()
    for seed in range(12):
        state = GameState.deal(rules, seed=seed)
        while state.decision in ("bid", "call", "ecart", "poignee", "chelem"):
            if state.decision in ("bid", "call", "poignee"):
                action = choose_action(state, worlds=4, seed=seed)
                assert action in state.legal_actions()
                seen.add(state.decision)
            else:
                action = int(state.legal_actions()[0])
            state.apply(action)
    assert {"bid", "call"} <= seen


@pytest.mark.slow
def test_same_seed_same_games_on_one_or_two_threads() -> None:
    rules = load_rules("fft-4")
    bots = ["pimc:4", "heuristic", "random", "pimc:6"]
    one = play(rules, 40, bots=bots, seed=3, chunk_size=10, threads=1, keep_tricks=True)
    two = play(rules, 40, bots=bots, seed=3, chunk_size=10, threads=2, keep_tricks=True)
    assert np.array_equal(one.outcomes, two.outcomes)
    assert np.array_equal(one.tricks, two.tricks)
    other = play(rules, 40, bots=bots, seed=4, chunk_size=10, threads=1, keep_tricks=True)
    assert not np.array_equal(one.tricks, other.tricks)


def test_pimc_learned_is_its_own_bot_and_reproducible() -> None:
    rules = load_rules("fft-4")
    bots = ["pimc:4:learned", "heuristic", "learned", "pimc:4"]
    one = play(rules, 12, bots=bots, seed=5, chunk_size=6, threads=1, keep_tricks=True)
    two = play(rules, 12, bots=bots, seed=5, chunk_size=6, threads=2, keep_tricks=True)
    assert np.array_equal(one.tricks, two.tricks)
    plain = play(rules, 12, bots=["pimc:4", *bots[1:]], seed=5, chunk_size=6, keep_tricks=True)
    assert not np.array_equal(one.tricks, plain.tricks)


def test_a_world_played_out_by_pimc_learned_is_the_learned_tables_game() -> None:
    """Each play-out of ``pimc:learned`` keeps each seat's first layer from its first decision
    in it, as a table of learned bots does: every action tried on the search's first world (the
    world :func:`sample_world` draws from the same seed) ends as the learned table playing that
    world on from the same action."""
    checked = 0
    for k, state in enumerate(card_states("fft-4", 10, seed=6, bot="learned")):
        if int(state.s[S.S_TRICK]) >= 11:  # before the endgame the solver plays
            continue
        values = values_at(state, worlds=1, seed=k, learned=True)
        if values.worlds == 0:  # a single card to play: nothing searched
            continue
        world = sample_world(state, state.actor, seed=k, bot="pimc:learned")
        for c, action in enumerate(values.actions):  # one after another in one workspace
            after = world.copy()
            after.apply(action)
            score = play_on(after, "learned", seed=1).scores()[state.actor]
            assert values.values[0, c] == pytest.approx(score)
            checked += 1
    assert checked >= 15


@pytest.mark.parametrize(
    "table",
    [
        ["heuristic:-4", "learned", "heuristic:-4", "learned"],
        ["heuristic", "heuristic:-4", "heuristic", "learned"],
        ["learned"] * 4,
    ],
)
def test_a_world_played_out_by_the_bots_at_its_seats_is_their_tables_game(
    table: list[str],
) -> None:
    """Where the workspace says which seats the heuristic plays (``ruled``, with their bid
    shifts), a ``pimc:learned`` play-out from the deal's start is the game of the table of
    those bots: the learned bot at the other seats, each seat's score the same."""
    rules = load_rules("fft-4")
    rows, nets = seat_rows(["pimc:4:learned"], rules)
    ruled = [Bot.parse(name).kind == "heuristic" for name in table]
    differs = 0
    for k in range(12):
        state = GameState.deal(rules, seed=40 + k)
        p, half = state.engine.params, state.engine.half_points
        ws = workspace(p, state.engine.scoring, rows, nets).pimc
        ws.bot[:] = rows[0]
        for seat, name in enumerate(table):
            ws.ruled[seat] = ruled[seat]
            shifts = Bot.parse(name).row()[B_SHIFT_0 : B_SHIFT_0 + N_BID_SHIFTS]
            ws.shifts[seat] = shifts if ruled[seat] else 0
        ws.try_m[:] = state.m
        ws.try_s[:] = state.s
        _fresh_layers(ws)
        me = k % rules.players
        score = _play_to_end(me, False, p, half, ws)
        assert score == pytest.approx(play_on(state, table, seed=1).scores()[me])
        differs += score != pytest.approx(play_on(state, "learned", seed=1).scores()[me])
    assert differs >= (3 if any(ruled) else 0)


@pytest.mark.slow
def test_pimc_beats_the_heuristic_in_duplicate() -> None:
    result = duplicate("fft-4", 200, "pimc:8", "heuristic", seed=2, threads=2)
    assert result.ci_low > 0
    assert result.mean_diff > 4
