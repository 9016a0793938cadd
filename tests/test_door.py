"""One door for every compiled bot: a legal action for every decision, and bots named by a
checked record."""

from __future__ import annotations

import numpy as np
import pytest

from tarot_analysis.bots import (
    B_ENDGAME,
    B_KIND,
    B_SHIFT_0,
    B_WORLDS,
    BOTS,
    N_BOT_COLUMNS,
    Bot,
    bot_rows,
    door,
    file_label,
)
from tarot_analysis.engine import state as S
from tarot_analysis.engine.game import GameState
from tarot_analysis.errors import TarotInputError
from tarot_analysis.game import cards
from tarot_analysis.game.rules import Rules, load_rules

PRESETS = ("fft-3", "fft-4", "fft-5", "six-king-queen", "tarocco")
GENERATOR = (7, 11, 13, 17)


def deals(rules: Rules, count: int) -> list[GameState]:
    """``count`` deals of ``rules``, every other one with seat 0 forced to take a Garde (French
    presets), and one where a seat holds at least 13 trumps, to be asked for a poignée."""
    found = []
    for seed in range(count):
        forced = [0, 1, -1, -1] if seed % 2 and rules.tarocco is None else None
        found.append(GameState.deal(rules, seed=seed, forced=forced))
    for seed in range(count, count + 2000):
        state = GameState.deal(rules, seed=seed)
        if any(sum(c >= cards.EXCUSE for c in state.hand(k)) >= 13 for k in range(rules.players)):
            found.append(state)
            break
    return found


@pytest.mark.parametrize("name", ["random", "heuristic", "heuristic:-2/1/0/0", "pimc:2"])
@pytest.mark.slow
def test_the_door_answers_every_decision_with_a_legal_action(name: str) -> None:
    seen = set()
    for preset in PRESETS:
        rules = load_rules(preset)
        rows = bot_rows([name] * rules.players)
        state = GameState.deal(rules, seed=0)
        p, half = state.engine.params, state.engine.half_points
        ws = door.workspace(p, state.engine.scoring, rows, np.zeros(0, np.float32))
        rng = np.array(GENERATOR, dtype=np.uint64)
        for state in deals(rules, 3 if name.startswith("pimc") else 12):
            while state.decision != "over":
                seat = state.actor
                action = door.decide(state.m, state.s, seat, rows[seat], p, half, rng, ws)
                assert action in state.legal_actions(), (preset, state.decision, action)
                seen.add((preset, state.decision))
                state.apply(int(action))
    decisions = {decision for _, decision in seen}
    assert decisions == set(S.DECISIONS) - {"over"}
    assert {("fft-5", "call"), ("six-king-queen", "call")} <= seen
    assert {("tarocco", "ecart"), ("tarocco", "card")} <= seen


@pytest.mark.parametrize("name", ["random", "heuristic"])
def test_the_ecart_is_chosen_whole_and_given_card_by_card(name: str) -> None:
    rules = load_rules("fft-4")
    rows = bot_rows([name] * rules.players)
    for seed in range(6):
        state = GameState.deal(rules, seed=seed, forced=[0, 1, -1, -1])
        p, half = state.engine.params, state.engine.half_points
        ws = door.workspace(p, state.engine.scoring, rows, np.zeros(0, np.float32))
        rng = np.array(GENERATOR, dtype=np.uint64)
        while state.decision != "ecart":
            state.apply(int(door.decide(state.m, state.s, state.actor, rows[0], p, half, rng, ws)))
        seat, count = state.actor, int(state.s[S.S_ECART_LEFT])
        lo, hi = state.m[S.M_HANDS + 2 * seat], state.m[S.M_HANDS + 2 * seat + 1]
        expected_rng = rng.copy()
        zero = np.uint64(0)
        want_lo, want_hi, _ = door.choose_ecart(
            rows[seat], lo, hi, count, zero, zero, p, expected_rng
        )
        given = []
        while state.decision == "ecart":
            given.append(door.decide(state.m, state.s, seat, rows[seat], p, half, rng, ws))
            state.apply(int(given[-1]))
        assert given == sorted(cards.from_mask(int(want_lo), int(want_hi)))
        assert len(given) == count
        assert rng.tolist() == expected_rng.tolist()  # the same draws as one whole choice


@pytest.mark.parametrize(
    "name",
    ["random", "heuristic", "heuristic:-4", "heuristic:-2/1/0/0", "pimc", "pimc:64", "pimc:8:0",
     "pimc:4096:8"],
)  # fmt: skip
def test_a_bot_name_reads_back(name: str) -> None:
    bot = Bot.parse(name)
    assert bot.name == name
    assert Bot.parse(bot.name) == bot
    row = bot.row()
    assert row.shape == (N_BOT_COLUMNS,) and BOTS[row[B_KIND]] == bot.kind


def test_the_record_holds_what_the_name_says() -> None:
    assert Bot.parse("pimc:32") == Bot.parse("pimc") and Bot.parse("pimc:32").name == "pimc"
    assert Bot.parse("heuristic:0").name == "heuristic"
    assert Bot.parse("heuristic:3").shifts == (3, 3, 3, 3)
    rows = bot_rows(["random", "heuristic:-2/1/0/0", "pimc:64:3"])
    assert rows.shape == (3, N_BOT_COLUMNS) and rows.dtype == np.int64
    assert rows[:, B_KIND].tolist() == [0, 1, 2]
    assert rows[1, B_SHIFT_0 : B_SHIFT_0 + 4].tolist() == [-2, 1, 0, 0]
    assert rows[2, B_WORLDS] == 64 and rows[2, B_ENDGAME] == 3
    assert rows[0, B_ENDGAME] == -1 and bot_rows(["pimc"])[0, B_WORLDS] == 32


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("clever", "unknown bot 'clever'; known: random, heuristic, pimc"),
        ("random:3", "unknown bot 'random:3'"),
        ("heuristic:41", "heuristic:B .* from -40 to 40"),
        ("heuristic:1/2/3", "heuristic:B"),
        ("heuristic:x", "heuristic:B"),
        ("pimc:0", "pimc:N takes a number of worlds from 1 to 4096"),
        ("pimc:", "unknown bot 'pimc:'"),
        ("pimc:8:9", "pimc:N:E takes a number of endgame tricks from 0 to 8"),
        ("pimc:8:x", "pimc:N:E"),
        (3, "a bot's name is a text, got 3"),
        # Digits are ASCII only: ``str.isdigit`` takes these, ``int`` refuses or rereads them.
        ("pimc:²", "pimc:N takes a number of worlds"),
        ("pimc:٣", "pimc:N takes a number of worlds"),
        ("pimc:8:²", "pimc:N:E takes a number of endgame tricks"),
        ("pimc:²:learned", "pimc:N takes a number of worlds"),
        ("heuristic:²", "heuristic:B"),
        ("heuristic:٣", "heuristic:B"),
        ("heuristic: 3", "heuristic:B"),
        ("heuristic:1_0", "heuristic:B"),
    ],
)
def test_a_wrong_name_is_refused_in_one_line(name: object, message: str) -> None:
    with pytest.raises(TarotInputError, match=message) as refused:
        Bot.parse(name)  # type: ignore[arg-type]
    assert "\n" not in str(refused.value)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"kind": "mcts"}, "unknown bot 'mcts'"),
        ({"kind": "heuristic", "worlds": 8}, "a heuristic bot draws no worlds"),
        ({"kind": "random", "shifts": (1, 0, 0, 0)}, "a random bot has no bidding shifts"),
        ({"kind": "pimc", "worlds": 5000}, "pimc:N takes a number of worlds"),
        ({"kind": "pimc", "endgame": 9}, "pimc:N:E takes"),
        ({"kind": "heuristic", "shifts": (1, 2)}, "heuristic:B"),
    ],
)
def test_a_wrong_record_is_refused(fields: dict[str, object], message: str) -> None:
    with pytest.raises(TarotInputError, match=message):
        Bot(**fields)  # type: ignore[arg-type]


def test_a_bot_name_with_a_model_path_is_labelled_for_file_names_by_its_stem() -> None:
    """A run's folder and a report's file name a bot by this label: never a folder of its
    model's path; two models of the same stem in two folders keep two labels."""
    assert [file_label(name) for name in ("heuristic", "pimc:64:2", "pimc:learned")] == [
        "heuristic", "pimc:64:2", "pimc:learned",
    ]  # fmt: skip
    one, two = file_label("learned:runs/a/mine.npz"), file_label("learned:../b/mine.npz")
    for label in (one, two, file_label("pimc:16:learned:/tmp/m.npz")):
        assert "/" not in label and ".." not in label and not label.startswith(".")
    assert one.startswith("learned:mine-") and two.startswith("learned:mine-") and one != two
    assert file_label("learned:runs/a/mine.npz") == one  # the same name, the same label
    assert file_label("pimc:16:learned:/tmp/m.npz").startswith("pimc:16:learned:m-")
    assert "/" not in file_label("heuristic:-2/1/0/0")
    with pytest.raises(TarotInputError, match="unknown bot"):
        file_label("../x")
