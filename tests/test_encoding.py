"""The encoding of what a seat knows: it leaks nothing, follows the deal, and tiles its layout."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import numpy as np
import pytest

from tarot_analysis.engine import state as S
from tarot_analysis.engine.determinize import determinize
from tarot_analysis.engine.encoding import (
    BLOCKS,
    ENCODING_VERSION,
    block,
    encode,
    encode_into,
    encoding_size,
    layout,
)
from tarot_analysis.engine.game import GameState, Observation
from tarot_analysis.engine.outcome import O_DOG_HALF, O_ECART_HALF
from tarot_analysis.errors import TarotInputError
from tarot_analysis.game.cards import EXCUSE
from tarot_analysis.game.rules import load_rules

ROOT = Path(__file__).resolve().parent.parent
LEAK_PRESETS = ["fft-3", "fft-4", "fft-5", "legacy-4", "six-king-queen"]
#: Those whose worlds take seconds to compare (`make test-fast` leaves them out).
SLOW_TO_LEAK = ("fft-5", "six-king-queen")
KINDS = ("bid", "call", "ecart", "poignee", "chelem", "card")


def random_deal(preset: str, seed: int) -> list[GameState]:
    """Every state of one deal, its actions drawn at random among the legal ones; a poignée
    held is shown, so that the encoding of poignées is seen."""
    rng = np.random.default_rng(seed)
    state = GameState.deal(load_rules(preset), seed=seed)
    states = []
    while not state.is_over:
        states.append(state.copy())
        legal = state.legal_actions()
        state.apply(int(legal[-1] if state.decision == "poignee" else rng.choice(legal)))
    states.append(state)
    return states


def deals_with_every_kind(preset: str) -> list[list[GameState]]:
    """Two random deals of ``preset``, and more if needed until between them they take every
    kind of decision its rules have (a poignée: from a deal where some seat holds one)."""
    rules = load_rules(preset)
    kinds_of_rules = set(KINDS) - ({"call"} if rules.call == "none" else set())
    deals: list[list[GameState]] = []
    seen: set[str] = set()
    for seed in range(5000):
        if len(deals) >= 2:
            trumps = max(
                sum(card >= EXCUSE for card in GameState.deal(rules, seed=seed).hand(k))
                for k in range(rules.players)
            )
            if "poignee" not in seen and trumps < rules.poignee.thresholds[0]:
                continue  # no poignée to show: skip the deal without playing it
        states = random_deal(preset, seed)
        kinds = {state.decision for state in states}
        if len(deals) >= 2 and not kinds - seen - {"over"}:
            continue
        deals.append(states)
        seen |= kinds
        if kinds_of_rules <= seen and len(deals) >= 2:
            return deals
    raise AssertionError(f"{preset}: no deal took {kinds_of_rules - seen}")


@pytest.mark.parametrize(
    "preset",
    [
        pytest.param(preset, marks=pytest.mark.slow if preset in SLOW_TO_LEAK else ())
        for preset in LEAK_PRESETS
    ],
)
def test_a_seat_encodes_the_same_on_every_world_it_cannot_tell_apart(preset: str) -> None:
    players = load_rules(preset).players
    kinds_checked: set[str] = set()
    hidden_moved = 0
    for states in deals_with_every_kind(preset):
        # every decision but the cards, and every sixth card decision
        cards_seen = 0
        for state in states[:-1]:
            if state.decision == "card":
                cards_seen += 1
                if cards_seen % 6:
                    continue
            kinds_checked.add(state.decision)
            for seat in range(players):
                mine = encode(state, seat)
                for world in determinize(state, seat, rng=seat, count=5):
                    np.testing.assert_array_equal(
                        encode(world, seat), mine, err_msg=f"{preset}, seat {seat}"
                    )
                    others = [world.hand(k) != state.hand(k) for k in range(players) if k != seat]
                    hidden_moved += any(others)
    assert kinds_checked >= set(KINDS) - {"call"}
    assert hidden_moved > 0  # the worlds did deal the hidden cards again


def reference(seen: Observation, preset: str) -> dict[str, np.ndarray]:
    """The card and seat blocks built in Python from the observation."""
    players = seen.players
    rules = load_rules(preset)

    def rel(seat: int) -> int:
        return (seat - seen.seat) % players

    def card_set(ids: tuple[int, ...] | None, rows: int = 1, row: int = 0) -> np.ndarray:
        vector = np.zeros(78 * rows, dtype=np.float32)
        for card in ids or ():
            vector[78 * row + card] = 1
        return vector

    played = np.zeros((players, 78), dtype=np.float32)
    for leader, trick in seen.tricks:
        for k, card in enumerate(trick):
            played[rel(leader + k), card] = 1
    for k, card in enumerate(seen.trick):
        played[rel(seen.trick_leader + k), card] = 1
    trick = np.zeros((players, 78), dtype=np.float32)
    for k, card in enumerate(seen.trick):
        trick[k, card] = 1
    shown = np.zeros((players, 78), dtype=np.float32)
    levels = np.zeros((players, 4), dtype=np.float32)
    for seat, (level, showed) in enumerate(seen.poignees):
        levels[rel(seat), level] = 1
        shown[rel(seat)] = card_set(showed)
    bids = np.zeros((players, 10), dtype=np.float32)
    for seat, bid in enumerate(seen.bids):
        bids[rel(seat), bid + 2] = 1
    voids = np.zeros((players, 5), dtype=np.float32)
    for seat, marks in enumerate(seen.voids):
        voids[rel(seat), list(marks)] = 1
    taker = np.zeros(players, dtype=np.float32)
    if seen.taker >= 0:
        taker[rel(seen.taker)] = 1
    contract = np.zeros(8, dtype=np.float32)
    if seen.contract is not None:
        contract[[c.name for c in rules.contracts].index(seen.contract)] = 1
    partners = np.zeros(players, dtype=np.float32)
    for partner in seen.partners:
        partners[rel(partner)] = 1
    decision = np.zeros(7, dtype=np.float32)
    decision[S.DECISIONS.index(seen.decision)] = 1
    return {
        "hand": card_set(seen.hand),
        "called": card_set(seen.called),
        "dog": card_set(seen.dog),
        "ecart": card_set(seen.ecart),
        "played": played.ravel(),
        "trick": trick.ravel(),
        "poignee_cards": shown.ravel(),
        "poignee_level": levels.ravel(),
        "poignee_count": np.array(seen.poignee_counts, dtype=np.float32)[
            [(seen.seat + r) % players for r in range(players)]
        ]
        / 22,
        "bids": bids.ravel(),
        "voids": voids.ravel(),
        "taker": taker,
        "contract": contract,
        "partners": partners,
        "decision": decision,
        "chelem": np.array([seen.chelem], dtype=np.float32),
        "to_act": np.array([seen.actor == seen.seat], dtype=np.float32),
    }


@pytest.mark.parametrize("preset", LEAK_PRESETS)
@pytest.mark.slow
def test_the_blocks_hold_what_the_observation_says(preset: str) -> None:
    players = load_rules(preset).players
    blocks = layout(players)
    for states in deals_with_every_kind(preset):
        for state in states:
            for seat in range(players):
                vector = encode(state, seat)
                for name, expected in reference(state.observation(seat), preset).items():
                    np.testing.assert_allclose(
                        vector[block(blocks, name)], expected, err_msg=f"{name}, seat {seat}"
                    )


def test_a_card_played_shows_in_the_played_block_of_its_seat() -> None:
    states = random_deal("fft-4", 3)
    blocks = layout(4)
    played = block(blocks, "played")
    before = next(state for state in states if state.decision == "card")
    actor = before.actor
    after = before.copy()
    card = int(after.legal_actions()[0])
    after.apply(card)
    for seat in range(4):
        change = encode(after, seat)[played] - encode(before, seat)[played]
        row = (actor - seat) % 4
        assert change.tolist() == [1.0 if i == row * 78 + card else 0.0 for i in range(4 * 78)]
    hand = encode(after, actor)[block(blocks, "hand")]
    assert tuple(np.flatnonzero(hand)) == after.hand(actor)
    assert card not in np.flatnonzero(hand)


def test_tricks_and_points_add_up_at_the_end() -> None:
    for seed in range(5):
        end = random_deal("fft-5", seed)[-1]
        if not end.is_played:
            continue
        blocks = layout(5)
        vector = encode(end, 0)
        assert vector[block(blocks, "tricks_won")].sum() == pytest.approx(1)
        # every card but the dog's (or the écart's) is in a pile: 91 points less those
        dog = end.raw_outcome()[O_DOG_HALF] + end.raw_outcome()[O_ECART_HALF]
        assert vector[block(blocks, "points")].sum() == pytest.approx((182 - dog) / 182)
        assert vector[block(blocks, "trick_number")] == 1


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_the_layout_tiles_the_vector_exactly(players: int) -> None:
    blocks = layout(players)
    assert blocks[0][1] == 0
    for (_, start, length), (_, following, _) in itertools.pairwise(blocks):
        assert following == start + length and length > 0
    assert blocks[-1][1] + blocks[-1][2] == encoding_size(players)
    assert len({name for name, _, _ in blocks}) == len(blocks)


@pytest.mark.parametrize("preset", ["fft-3", "fft-4", "fft-5", "six-king-queen"])
def test_the_compiled_function_writes_the_whole_layout(preset: str) -> None:
    state = random_deal(preset, 1)[5]
    players = state.rules.players
    out = np.full(encoding_size(players) + 3, 7, dtype=np.float32)
    written = encode_into(state.m, state.s, state.engine.params, state.engine.half_points, 0, out)
    assert written == encoding_size(players)
    np.testing.assert_array_equal(out[:written], encode(state, 0))
    assert (out[written:] == 7).all()  # nothing written beyond the layout
    assert (out[:written] >= 0).all() and (out[:written] <= 1).all()


def test_the_docs_table_matches_the_layout() -> None:
    text = (ROOT / "docs" / "bots.md").read_text()
    rows = re.findall(r"^\| `(\w+)` \| (\d+) \| ([^|]+) \|", text, flags=re.MULTILINE)
    assert [(name, int(start)) for name, start, _ in rows] == [
        (name, start) for name, start, _ in layout(4)
    ]
    lengths = {name: length.strip() for name, _, length in rows}
    for name, rows_, width, _ in BLOCKS:
        assert lengths[name] == (f"{width} × players" if rows_ == "seats" else str(width * rows_))
    sizes = ", ".join(f"{players}: {encoding_size(players)}" for players in (3, 4, 5, 6))
    assert sizes in text
    assert f"version {ENCODING_VERSION}" in text


def test_input_mistakes_are_refused() -> None:
    state = GameState.deal(load_rules("fft-4"), seed=1)
    for seat in (-1, 4, 1.5, True, "0"):
        with pytest.raises(TarotInputError):
            encode(state, seat)  # type: ignore[arg-type]
    with pytest.raises(TarotInputError, match="Tarocco"):
        encode(GameState.deal(load_rules("tarocco"), seed=1), 0)
    for players in (2, 7, True):
        with pytest.raises(TarotInputError):
            layout(players)
    with pytest.raises(TarotInputError, match="no block"):
        block(layout(4), "nothing")


def test_a_world_keeps_the_dog_the_table_was_shown() -> None:
    state = next(
        state
        for seed in range(50)
        for state in random_deal("fft-4", seed)
        if state.decision == "card" and state.dog_is_taken
    )
    for seat in range(4):
        for world in determinize(state, seat, rng=1, count=3):
            assert world.observation(seat).dog == state.observation(seat).dog is not None
