"""The learned bot at the table: seated by name, its network in compiled code, the heuristic
where the network does not predict enough of a gain."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from tarot_analysis.bots import B_TRUNK, Bot, learned, seat_rows
from tarot_analysis.bots.learned import load_model, shipped_model
from tarot_analysis.cli import main
from tarot_analysis.engine.encoding import encoding_size
from tarot_analysis.errors import TarotInputError
from tarot_analysis.game.rules import load_rules
from tarot_analysis.learning.streaming import init_params, save_action_in
from tarot_analysis.table.play import play


def _random_model(
    path: Path, preset: str, *, margin: float, seed: int = 1, scale: float = 1.0
) -> Path:
    """An action-in network of random weights (``scale`` times He's, biases too) for
    ``preset``, taking cards and bids."""
    rng = np.random.default_rng(seed)
    params = init_params(encoding_size(load_rules(preset).players), (16,), (8,), seed)
    for part in params.values():
        for k, (w, b) in enumerate(part):
            part[k] = (scale * w, (scale * rng.normal(0, 1, b.shape)).astype(np.float32))
    meta = {"rules": preset, "margins": {"bid": margin, "card": margin}, "decides": ["bid", "card"]}
    return save_action_in(path, params, meta)


def _outcomes(preset: str, bots: list[str], deals: int = 40) -> np.ndarray:
    return play(load_rules(preset), deals, bots=bots, seed=3, threads=1).outcomes


@pytest.mark.parametrize("preset", ["fft-3", "fft-4", "fft-5"])
def test_the_shipped_bot_plays_every_seat(preset: str) -> None:
    result = play(load_rules(preset), 30, bots="learned", seed=1, threads=1)
    assert result.bots == ("learned",) * load_rules(preset).players
    assert len(result.scores()) == 30


def test_a_network_that_never_beats_the_margin_plays_as_the_heuristic(tmp_path: Path) -> None:
    # The largest margin a model file may hold, over values of a small random network's size.
    cautious = _random_model(tmp_path / "cautious.npz", "fft-4", margin=10_000, scale=1e-3)
    bold = _random_model(tmp_path / "bold.npz", "fft-4", margin=0)
    heuristic = _outcomes("fft-4", ["heuristic"] * 4)
    seated = ["heuristic", f"learned:{cautious}", "heuristic", f"learned:{cautious}"]
    assert np.array_equal(_outcomes("fft-4", seated), heuristic)
    # A network of random weights trusted at once plays otherwise: the door asks it.
    assert not np.array_equal(_outcomes("fft-4", ["heuristic", f"learned:{bold}"] * 2), heuristic)


def test_a_defence_margin_leaves_the_defenders_cards_to_the_heuristic(tmp_path: Path) -> None:
    """With ``margins["defence"]`` at its largest, the network plays its seat's cards only
    where its side took: the heuristic bids for it (it takes cards alone), so both tables have
    the same auctions, and every deal another seat took is the heuristic table's own."""
    rules = load_rules("fft-4")
    params = init_params(encoding_size(rules.players), (16,), (8,), 1)
    cards = {"rules": "fft-4", "decides": ["card"]}
    trusted = save_action_in(tmp_path / "trusted.npz", params, cards)
    attacks = save_action_in(
        tmp_path / "attacks.npz", params, cards | {"margins": {"defence": 10_000}}
    )
    assert load_model(trusted, "fft-4").margins == {"card": 0.0, "defence": 0.0}
    tables = {
        name: play(rules, 120, bots=bots, seed=3, threads=1).scores()
        for name, bots in (
            ("heuristic", ["heuristic"] * 4),
            ("trusted", [f"learned:{trusted}", "heuristic", "heuristic", "heuristic"]),
            ("attacks", [f"learned:{attacks}", "heuristic", "heuristic", "heuristic"]),
        )
    }
    taker = tables["heuristic"]["taker"].to_numpy()
    assert all(np.array_equal(table["taker"], taker) for table in tables.values())
    points = {name: table["score_0"].to_numpy() for name, table in tables.items()}
    defends = (taker >= 0) & (taker != 0)
    assert defends.sum() > 40 and (taker == 0).sum() > 5
    assert np.array_equal(points["attacks"][defends], points["heuristic"][defends])
    assert not np.array_equal(points["trusted"][defends], points["heuristic"][defends])
    assert not np.array_equal(points["attacks"][taker == 0], points["heuristic"][taker == 0])


def test_two_networks_at_one_table_each_play_their_own(tmp_path: Path) -> None:
    one = _random_model(tmp_path / "one.npz", "fft-4", margin=0, seed=1)
    two = _random_model(tmp_path / "two.npz", "fft-4", margin=0, seed=2)
    rows, nets = seat_rows(
        ["learned:" + str(one), "heuristic", f"learned:{two}", "random"], load_rules("fft-4")
    )
    assert len(nets) == 2 * len(load_model(one, "fft-4").weights)
    mixed = _outcomes("fft-4", [f"learned:{one}", "heuristic", f"learned:{two}", "heuristic"])
    same = _outcomes("fft-4", [f"learned:{one}", "heuristic", f"learned:{one}", "heuristic"])
    assert not np.array_equal(mixed, same)
    assert rows.shape[0] == 4 and list(rows[:, B_TRUNK]) == [1, 0, 1, 0]


@pytest.mark.parametrize("preset", ["fft-3", "fft-4", "fft-5"])
def test_every_learned_seat_has_a_network_with_a_trunk(preset: str) -> None:
    rules = load_rules(preset)
    rows, _ = seat_rows(["learned", "pimc:learned", *["heuristic"] * (rules.players - 2)], rules)
    assert (rows[:2, B_TRUNK] >= 1).all() and (rows[2:, B_TRUNK] == 0).all()


def test_a_network_without_a_trunk_is_never_seated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every network the door scores has a trunk: one read without (which no model file
    gives) is refused before it gets a row."""
    path = _random_model(tmp_path / "net.npz", "fft-4", margin=0)

    def trunkless(source: str, rules: object) -> learned.Model:
        return dataclasses.replace(load_model(source, "fft-4"), trunk=0)

    monkeypatch.setattr(learned, "load_model", trunkless)
    with pytest.raises(TarotInputError, match=r"net\.npz: a network without a trunk"):
        seat_rows([f"learned:{path}", "heuristic"] * 2, load_rules("fft-4"))


def test_names_read_back() -> None:
    assert Bot.parse("learned").name == "learned"
    assert Bot.parse("learned:models/mine.npz") == Bot("learned", model="models/mine.npz")
    assert Bot.parse("learned:models/mine.npz").name == "learned:models/mine.npz"
    with pytest.raises(TarotInputError, match="only learned"):
        Bot("heuristic", model="x.npz")


def test_a_model_that_cannot_play_is_refused_before_any_deal(tmp_path: Path) -> None:
    rules = load_rules("fft-4")
    with pytest.raises(TarotInputError, match=r"missing\.npz"):
        seat_rows([f"learned:{tmp_path / 'missing.npz'}"] * 4, rules)
    three = _random_model(tmp_path / "three.npz", "fft-3", margin=0)
    with pytest.raises(TarotInputError, match=r"three\.npz"):
        seat_rows([f"learned:{three}"] * 4, rules)
    with pytest.raises(TarotInputError, match="no learned model ships for tarocco"):
        shipped_model(load_rules("tarocco"))


def test_the_command_says_what_is_wrong_with_a_model_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.npz"
    broken.write_bytes(b"PK\x03\x04 not a whole file")
    argv = ["play", "--rules", "fft-4", "--deals", "10", "--bots", f"learned:{broken}"]
    assert main(argv) == 2
    said = capsys.readouterr().err.strip().splitlines()
    assert len(said) == 1 and "broken.npz" in said[0]
