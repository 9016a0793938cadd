"""The review of a played deal: the game record read and checked action by action, every
decision valued by the search, the losses, the what-if, and the command line."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tarot_analysis.analyses.replay import record as replay_record
from tarot_analysis.analyses.review import parse_record, read_record, review
from tarot_analysis.analyses.review.deal import decision_seed
from tarot_analysis.analyses.review.record import record_of
from tarot_analysis.analyses.review.text import describe
from tarot_analysis.analyses.review.what_if import what_if
from tarot_analysis.bots import pimc
from tarot_analysis.cli.program import main
from tarot_analysis.deals.deal import deal
from tarot_analysis.engine import state as S
from tarot_analysis.engine.game import GameState
from tarot_analysis.errors import TarotInputError
from tarot_analysis.game import cards
from tarot_analysis.game.rules import load_rules
from tarot_analysis.table.play import replay
from tarot_analysis.table.play_on import play_on

EXAMPLE = Path(__file__).resolve().parent.parent / "docs" / "examples" / "deal-fft-4.toml"


def _played(name: str) -> dict[str, Any]:
    """The first deal of seed 1 under ``name`` that someone takes, as ``replay --json``
    writes it."""
    rules = load_rules(name)
    for number in range(50):
        data = replay_record(replay(rules, number, bots="heuristic", seed=1), deal_number=number)
        if not data["redeal"]:
            return data
    raise AssertionError("no deal taken")


@pytest.mark.parametrize("name", ["fft-3", "fft-4", "fft-5", "six-king-queen"])
def test_replay_json_is_read_as_it_is(name: str) -> None:
    data = _played(name)
    record = parse_record(json.loads(json.dumps(data)))
    assert record.complete
    assert list(record.end().scores()) == data["score"]["seats"]
    # The same deal written back as TOML keys reads to the same actions.
    again = parse_record(record_of(record.end(), record.masks))
    assert again.steps == record.steps


def test_the_example_record_plays_its_deal_to_the_end() -> None:
    record = read_record(EXAMPLE)
    assert record.complete and record.about["title"].startswith("fft-4")
    assert [float(x) for x in record.end().scores()] == [-86.0, -86.0, -86.0, 258.0]


def _example() -> dict[str, Any]:
    return dict(read_record(EXAMPLE).about) | record_of(
        read_record(EXAMPLE).end(), read_record(EXAMPLE).masks
    )


def _refused(data: dict[str, Any]) -> str:
    with pytest.raises(TarotInputError) as caught:
        parse_record(data, source="game.toml")
    message = str(caught.value)
    assert message.startswith("game record game.toml: ") and "\n" not in message
    return message


def test_bad_records_are_named_in_one_line() -> None:
    good = _example()
    hands = list(good["hands"])
    tricks = list(good["tricks"])
    # A card twice: seat 0's first card written again in seat 1's hand for one of its own.
    first = hands[0].split()[0]
    twice = hands[1].split()
    hands_twice = [hands[0], " ".join([first, *twice[1:]]), *hands[2:]]
    assert "is both in seat 0's hand and in seat 1's hand" in _refused(
        good | {"hands": hands_twice}
    )
    assert "a hand is missing" in _refused(good | {"hands": hands[:3]})
    assert "holds 17 cards, 18 expected" in _refused(
        good | {"hands": [" ".join(hands[0].split()[:-1]), *hands[1:]]}
    )
    assert "unknown key 'trikcs'" in _refused(good | {"trikcs": tricks})
    assert "out of turn" in _refused(good | {"bids": ["pass", "2: garde", "pass", "pass"]})
    message = _refused(good | {"bids": ["garde", "prise", "pass", "pass"]})
    assert "the auction, seat 1: cannot bid prise" in message and "garde_sans" in message
    # A card not in the hand: seat 1 leads trick 1's second card with seat 0's card.
    assert "trick 1, seat 1: 5H was played already" in _refused(
        good | {"tricks": ["5H 5H 3H 7H", *tricks[1:]]}
    )
    assert "trick 1, seat 1: KD is not in its hand (seat 3 holds it)" in _refused(
        good | {"tricks": ["5H KD 3H 7H", *tricks[1:]]}
    )


def test_a_revoke_names_what_could_have_been_played() -> None:
    good = _example()
    tricks = list(good["tricks"])
    # Trick 1 is led 5H; seat 1 holds 9H 2H and plays a spade instead.
    message = _refused(good | {"tricks": ["5H KS 3H 7H", *tricks[1:]]})
    assert "trick 1, seat 1: KS is not a legal card here (a revoke)" in message
    assert message.endswith("it could have: 2H 9H")


def test_a_record_left_out_after_some_point_stops_there() -> None:
    good = _example()
    record = parse_record(good | {"tricks": [*good["tricks"][:3], "4H 1H"]})
    assert not record.complete and "trick 4 (seat 0 to play)" in record.stopped
    assert sum(step.kind == "card" for step in record.steps) == 14
    ecart = parse_record({key: good[key] for key in ("rules", "hands", "dog", "bids")})
    assert ecart.stopped.startswith("the écart")
    with pytest.raises(TarotInputError, match=r"past where the record stops \(the écart"):
        parse_record({k: v for k, v in good.items() if k != "ecart"})


def _short(name: str = "fft-4", tricks: int = 2) -> Any:
    data = record_of(read_record(EXAMPLE).end(), read_record(EXAMPLE).masks)
    if name != "fft-4":
        data = _played(name)
    return parse_record(data | {"tricks": data["tricks"][:tricks]})


@pytest.mark.parametrize("name", ["fft-3", "fft-4", "fft-5", "six-king-queen"])
def test_losses_are_never_negative_and_the_best_is_legal(name: str) -> None:
    record = _short(name)
    done = review(record, worlds=3, seed=2)
    assert done.decisions
    for decision, (state, step) in zip(
        done.decisions,
        [pair for pair in record.states() if len(pair[0].legal_actions()) > 1],
        strict=True,
    ):
        assert decision.step == step
        assert decision.loss >= 0 and decision.search.loss_low <= decision.loss + 1e-9
        assert decision.search.best in state.legal_actions()
        names = [value.name for value in decision.search.values]
        assert decision.best in names and decision.played in names


def test_one_advice_repeated_is_counted_once() -> None:
    done = review(_short("fft-4", tricks=6), worlds=3, seed=2)
    summed, once = done.by_seat(), done.by_seat_once()
    assert all(once[seat] <= summed[seat] + 1e-9 for seat in done.seats)
    seat = max(done.seats, key=lambda s: sum(d.loss > 0 for d in done.decisions if d.seat == s))
    losing = [d for d in done.decisions if d.seat == seat and d.loss > 0]
    assert len(losing) >= 3
    # The same advice at each of them, one after another: the largest loss, once.
    same = [dataclasses.replace(d, best="E") for d in losing]
    assert dataclasses.replace(done, decisions=same).by_seat_once()[seat] == pytest.approx(
        max(d.loss for d in losing)
    )
    # Another advice each time: every loss counts.
    each = [dataclasses.replace(d, best=f"advice {k}") for k, d in enumerate(losing)]
    assert dataclasses.replace(done, decisions=each).by_seat_once()[seat] == pytest.approx(
        sum(d.loss for d in losing)
    )
    assert "one advice repeated counted once" in describe(done)


def _played_by_the_search(
    rules_name: str, tricks: int, worlds: int, seed: int, learned: bool = False
) -> Any:
    """A deal whose every decision up to ``tricks`` tricks is the search's own (its worlds
    played out by the learned bot with ``learned``), seeded as the review seeds them."""
    rules = load_rules(rules_name)
    masks = deal(rules, 1, 5, threads=1).masks[0]
    state = GameState(rules, masks)
    index = 0
    ecart = []
    while not state.is_over and int(state.s[S.S_TRICK]) < tricks:
        legal = state.legal_actions()
        if len(legal) == 1:
            action = int(legal[0])
        else:
            seeded = decision_seed(seed, index)
            action = pimc.values_at(state, worlds=worlds, seed=seeded, learned=learned).chosen
        if state.decision == "ecart":
            ecart.append(cards.card_name(action))
        state.apply(action)
        index += 1
    # The écart in the order discarded (a state keeps only its cards).
    return parse_record(record_of(state, masks) | {"ecart": " ".join(ecart)})


def test_a_deal_played_by_the_search_reviews_with_no_loss() -> None:
    record = _played_by_the_search("fft-4", tricks=2, worlds=4, seed=7)
    assert any(step.kind == "card" for step in record.steps)
    done = review(record, worlds=4, seed=7)
    assert done.decisions
    assert max(decision.loss for decision in done.decisions) == 0.0
    # Another seed draws other worlds: the same deal then shows losses.
    assert sum(decision.loss for decision in review(record, worlds=4, seed=8).decisions) >= 0


def test_a_deal_played_by_the_learned_search_reviews_with_no_loss_by_it_alone() -> None:
    record = _played_by_the_search("fft-4", tricks=2, worlds=4, seed=7, learned=True)
    done = review(record, worlds=4, seed=7, play_outs="learned")
    assert max(decision.loss for decision in done.decisions) == 0.0
    assert done.to_json()["play_outs"] == "learned"
    # The same worlds played out by the heuristic value some of its actions below another.
    assert max(decision.loss for decision in review(record, worlds=4, seed=7).decisions) > 0
    with pytest.raises(TarotInputError, match="played out by heuristic or learned"):
        review(record, worlds=4, play_outs="pimc")


def _petit_given_away() -> tuple[Any, int]:
    """The first deal of fft-4 (from seed 1 on, seat 0 made to take a Garde, the heuristic at
    every seat) where a seat, last to play to a trick the other side wins with a trump,
    holds the Petit and a card that is no bout: there it throws the Petit under the trick,
    and the heuristic plays the rest. The record, and the number of that decision."""
    rules = load_rules("fft-4")
    forced = [0, 1, -1, -1]
    for seed in range(1, 100):
        masks = deal(rules, 1, seed, threads=1).masks[0]
        start = GameState(rules, masks, forced=forced)
        full = parse_record(record_of(play_on(start, "heuristic"), masks, forced=forced))
        for index, (state, step) in enumerate(full.states()):
            if step.kind == "card" and _petit_lost_here(state):
                state.apply(cards.PETIT)
                ended = play_on(state, "heuristic")
                return parse_record(record_of(ended, masks, forced=forced)), index
    raise AssertionError("no Petit to give away")


def _petit_lost_here(state: GameState) -> bool:
    """Whether the seat to play is last to a trick won by a trump of the other side, and
    may play the Petit or a card that is no bout."""
    s = state.s
    players = state.rules.players
    legal = [int(a) for a in state.legal_actions()]
    winner = (int(s[S.S_LEADER]) + int(s[S.S_BEST])) % players
    return (
        int(s[S.S_IN_TRICK]) == players - 1 and cards.PETIT in legal
        and s[S.S_SIDE + winner] != s[S.S_SIDE + state.actor] and int(s[S.S_TOP_TRUMP]) > 1
        and any(not cards.IS_BOUT[a] for a in legal)
    )  # fmt: skip


def test_a_petit_given_away_is_the_costliest_decision() -> None:
    record, index = _petit_given_away()
    seat = record.steps[index].seat
    done = review(record, worlds=16, seed=1, seats=[seat])
    costliest = done.costliest(1)[0]
    assert costliest.index == index and costliest.played == "1"
    assert costliest.search.loss_low > 0 and done.is_costly(costliest)


def test_what_if_plays_the_rest_from_the_new_card() -> None:
    record = read_record(EXAMPLE)
    result = what_if(record, "1.3", "6H")
    assert result.other.is_over and result.played is not None
    assert int(result.other.s[S.S_LOG + 3]) == cards.parse_card("6H")
    assert float(np.sum(result.other.scores())) == 0.0
    with pytest.raises(TarotInputError, match="it could have: 1H 6H 7H E"):
        what_if(record, "1.3", "KD")
    with pytest.raises(TarotInputError, match="no card of seat 1 at trick 19"):
        what_if(record, "19.1", "KD")


def test_the_command_reviews_writes_json_and_html(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = tmp_path / "game.json"
    data = record_of(read_record(EXAMPLE).end(), read_record(EXAMPLE).masks)
    game.write_text(json.dumps(data | {"tricks": data["tricks"][:3]}))
    page = tmp_path / "review.html"
    argv = ["review", str(game), "--worlds", "2", "--json", "--html", str(page)]
    assert main([*argv, "--time-limit", "0.05"]) == 0
    shown = json.loads(capsys.readouterr().out)
    kinds = {decision["kind"] for decision in shown["decisions"]}
    assert {"bid", "ecart", "card"} <= kinds
    fields = {"seat", "trick", "kind", "played", "best", "loss", "values", "dd_loss"}
    assert all(fields <= set(decision) for decision in shown["decisions"])
    assert all(decision["loss"] >= 0 for decision in shown["decisions"])
    assert {"hand", "on_table", "runner_up", "runner_up_mean"} <= set(shown["decisions"][0])
    text = page.read_text()
    assert 'id="table-review-decisions"' in text and "data:image/png;base64," in text


def test_each_decision_shows_what_the_seat_saw_and_the_two_best_actions() -> None:
    record = read_record(EXAMPLE)
    done = review(record, worlds=2, seed=3, seats=[0])
    cards_seen = [d for d in done.decisions if d.kind == "card"]
    assert cards_seen and any(d.on_table for d in cards_seen)
    for decision, (state, step) in zip(
        done.decisions,
        [
            pair
            for pair in record.states()
            if pair[1].seat == 0 and len(pair[0].legal_actions()) > 1
        ],
        strict=True,
    ):
        assert decision.hand.split() == cards.format_cards(state.hand(0)).split()
        if decision.kind == "card":
            assert decision.played in decision.hand.split()
            table = decision.on_table.split()
            assert len(table) == step.place  # the cards before it in the trick, with their seats
            earlier = [s for s in record.steps if s.trick == step.trick and s.place < step.place]
            assert table == [f"{s.seat}:{cards.card_name(s.action)}" for s in earlier]
        values = {v.name: v.mean for v in decision.search.values if v.mean is not None}
        if decision.runner_up is not None:
            name, mean = decision.runner_up
            assert name != decision.best and mean == max(
                m for n, m in values.items() if n != decision.best
            )
    text = describe(done)
    assert "      hand " in text and ", then " in text  # the costliest, with what the seat saw


def test_the_command_refuses_a_bad_record_writing_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = tmp_path / "game.toml"
    game.write_text(EXAMPLE.read_text().replace('"KD 1D 2D 3D"', '"KD 1D 2D 7D"'))
    page = tmp_path / "review.html"
    assert main(["review", str(game), "--worlds", "2", "--html", str(page)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "trick 2, seat 2: 7D" in err and "seat 3 holds it" in err
    assert not page.exists()
