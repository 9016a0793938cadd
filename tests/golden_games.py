"""Fingerprints of known runs: the same seeds must give the same games, byte for byte.

The fingerprints in ``tests/data/golden_games.json`` were taken from the engine that played
every deal in one compiled function, before the game became a state that steps one decision
at a time; ``tests/test_state.py`` plays the same runs through the state and compares. They
were taken again when the Excuse played to the last trick came to change sides
(docs/rules.md#the-excuse): the six runs whose deals held such an Excuse, its side winning
that trick, changed in those deals' raw outcomes and nowhere else.
Run this file to print the fingerprints of the current engine::

    python -m tests.golden_games > tests/data/golden_games.json
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

import numpy as np

from tarot_analysis.game.rules import list_presets, load_rules

FRENCH_PRESETS = [name for name in list_presets() if load_rules(name).tarocco is None]
PLAY_FIELDS = ("masks", "outcomes", "poignees", "tricks", "leaders", "ecarts", "bids")
# The heuristic as it bid when the fingerprints were taken: its bidding thresholds have moved
# since (``CONTRACT_THRESHOLDS`` in tarot_analysis.bots.heuristic), and ``heuristic:P/G/S/C``
# moves them back, by number of players. Everything else it decides is as it was.
HEURISTIC_THEN = {
    3: "heuristic:4/3/0/0",
    4: "heuristic:-2/1/0/0",
    5: "heuristic:4/1/0/0",
    6: "heuristic:20/20/8/0",
}
# Tarocco's fingerprints were taken when its runs had a result of their own, whose dealer's
# discard was named ``discards``: it is the ``ecarts`` of every preset's result now.
TAROCCO_FIELDS = ("masks", "dealers", "parts", "tricks_won", "events", "tricks", "leaders",
                  "discards")  # fmt: skip
NAMED_THEN = {"discards": "ecarts"}


def fingerprint(result: Any, names: tuple[str, ...]) -> str:
    """A hash of the named arrays of a result, in order (each under the name it had when the
    fingerprints were taken, :data:`NAMED_THEN`)."""
    digest = hashlib.sha256()
    for name in names:
        array = np.ascontiguousarray(getattr(result, NAMED_THEN.get(name, name)))
        digest.update(name.encode())
        digest.update(str(array.shape).encode() + str(array.dtype).encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


def runs() -> dict[str, Callable[[], str]]:
    """Every run fingerprinted, by name: each French preset with each bot, mixed tables (the
    learned bot's among them), forced contracts and calls, deals around a hand, known deals,
    and Tarocco."""
    from tarot_analysis.table.play import play, play_given

    cases: dict[str, Callable[[], str]] = {}
    for name in FRENCH_PRESETS:
        then = HEURISTIC_THEN[load_rules(name).players]
        for label, bot in (("random", "random"), ("heuristic", then)):
            cases[f"{name}/{label}"] = lambda name=name, bot=bot: fingerprint(
                play(load_rules(name), 1_500, bots=bot, seed=11, keep_tricks=True,
                     chunk_size=600),
                PLAY_FIELDS,
            )  # fmt: skip
    fft_5 = load_rules("fft-5")
    heuristic_5 = HEURISTIC_THEN[5]
    cases["fft-5/mixed"] = lambda: fingerprint(
        play(fft_5, 1_000, bots=[heuristic_5, "random", heuristic_5, "random", "random"],
             seed=12, keep_tricks=True),
        PLAY_FIELDS,
    )  # fmt: skip
    cases["fft-5/forced"] = lambda: fingerprint(
        play(fft_5, 800, bots=heuristic_5, seed=13, keep_tricks=True, forced=[2, 1, -1, -1]),
        PLAY_FIELDS,
    )
    six = load_rules("six-king-queen")
    cases["six-king-queen/forced-calls"] = lambda: fingerprint(
        play(six, 800, bots=HEURISTIC_THEN[6], seed=14, keep_tricks=True, forced=[1, 2, 13, -1]),
        PLAY_FIELDS,
    )
    fft_4 = load_rules("fft-4")
    heuristic_4 = HEURISTIC_THEN[4]
    hand = "21 19 12 6 1 E KH CH 10H 8H 1H JD 8D QC CC 7C 6S 4S"
    cases["fft-4/hand"] = lambda: fingerprint(
        play(fft_4, 800, bots=heuristic_4, seed=15, keep_tricks=True, hand=hand, seat=1,
             forced=[1, 2, -1, -1]),
        PLAY_FIELDS,
    )  # fmt: skip
    cases["fft-4/no-tricks"] = lambda: fingerprint(
        play(fft_4, 3_000, bots=heuristic_4, seed=16), ("masks", "outcomes", "poignees")
    )
    cases["fft-4/given"] = lambda: fingerprint(
        play_given(
            fft_4,
            [["21 20 19 18 17 16 15 14 13 12 11 10 9 8 7 6 5 1",
              "E 4 3 2 KS QS CS JS 10S 9S 8S 7S 6S 5S 4S 3S 2S 1S",
              "KH QH CH JH 10H 9H 8H 7H KD QD CD JD 10D 9D 8D 7D 6D 5D",
              "KC QC CC JC 10C 9C 8C 7C 6C 5C 4C 3C 2C 1C 4D 3D 2D 1D",
              "1H 2H 3H 4H 5H 6H"]] * 3,
            bots=heuristic_4, seed=17, forced=[0, 1, -1, -1],
            script=[[["21", "E"]]], ecart=["1H 2H 3H 4H 5H 6H"],
        ),
        PLAY_FIELDS,
    )  # fmt: skip
    for name in ("fft-3", "fft-4", "fft-5"):
        players = load_rules(name).players
        mixed = ["learned", HEURISTIC_THEN[players], "random", "learned", "learned"][:players]
        cases[f"{name}/learned"] = lambda name=name, mixed=mixed: fingerprint(
            play(load_rules(name), 300, bots=mixed, seed=19, keep_tricks=True, chunk_size=150),
            PLAY_FIELDS,
        )  # fmt: skip
    tarocco = load_rules("tarocco")
    for bot in ("random", "heuristic"):
        cases[f"tarocco/{bot}"] = lambda bot=bot: fingerprint(
            play(tarocco, 900, bots=bot, seed=18, keep_tricks=True, chunk_size=300),
            TAROCCO_FIELDS,
        )
    return cases


if __name__ == "__main__":
    print(json.dumps({name: run() for name, run in runs().items()}, indent=1))
