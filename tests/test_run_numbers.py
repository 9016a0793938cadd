"""The numbers of a run (deals, chunk size, threads, worlds, shifts) checked by one helper,
:func:`tarot_analysis.errors.run_numbers`, before any work: one clear error, never a hang."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tarot_analysis.analyses.compare import compare_variants
from tarot_analysis.analyses.counterfactual import play_every_contract, play_passing
from tarot_analysis.analyses.dd_bound import run_bound
from tarot_analysis.analyses.guidance import run_guidance
from tarot_analysis.analyses.one_hand import analyse_hand
from tarot_analysis.bots import Bot
from tarot_analysis.cli.program import EXIT_USAGE, main
from tarot_analysis.deals.deal import deal, deal_features
from tarot_analysis.deals.hand_stats import run_hands
from tarot_analysis.errors import MOST_DEALS, TarotInputError, run_numbers
from tarot_analysis.game.rules import load_rules
from tarot_analysis.learning.teacher import teach
from tarot_analysis.report import build_report
from tarot_analysis.runs.simulate import map_chunks
from tarot_analysis.table.play import play, play_counts

FFT4 = load_rules("fft-4")
HAND = "21 19 12 6 1 E KH CH 10H 8H 1H JD 8D QC CC 7C 6S 4S"

#: Seconds a refusal may take: it comes before any deal. On the unchecked code a run given
#: ``threads=nan`` waits for ever for a thread that never starts.
PATIENCE = 60.0


def _entry_points(folder: Path) -> dict[str, Callable[..., Any]]:
    """Every runner, called with the numbers given as keywords."""
    return {
        "deal": lambda **k: deal(FFT4, k.pop("deals", 10), seed=1, **k),
        "deal_features": lambda **k: deal_features(FFT4, k.pop("deals", 10), seed=1, **k),
        "run_hands": lambda **k: run_hands(FFT4, k.pop("deals", 10), seed=1, **k),
        "play": lambda **k: play(FFT4, k.pop("deals", 10), seed=1, **k),
        "play_counts": lambda **k: play_counts(FFT4, k.pop("deals", 10), seed=1, **k),
        "play_every_contract": lambda **k: play_every_contract(FFT4, k.pop("deals", 10), **k),
        "play_passing": lambda **k: play_passing(FFT4, k.pop("deals", 10), **k),
        "run_guidance": lambda **k: run_guidance(FFT4, k.pop("deals", 10), folder, **k),
        "run_bound": lambda **k: run_bound(FFT4, k.pop("deals", 10), folder, **k),
        "teach": lambda **k: teach(FFT4, k.pop("deals", 10), folder, **k),
    }


ENTRY_POINTS = tuple(_entry_points(Path()))
#: Numbers no run can use, and the words of the refusal.
BAD_NUMBERS = {
    "threads nan": ({"threads": float("nan")}, "threads must be a whole number"),
    "threads 0": ({"threads": 0}, "threads must be at least 1"),
    "threads 1.5": ({"threads": 1.5}, "threads must be a whole number"),
    "chunk size 0": ({"chunk_size": 0}, "the chunk size must be at least 1"),
    "chunk size -4": ({"chunk_size": -4}, "the chunk size must be at least 1"),
    "deals -5": ({"deals": -5}, "the number of deals must be from"),
    "deals 2.5": ({"deals": 2.5}, "the number of deals must be a whole number"),
    "deals 2**64": ({"deals": 2**64}, "the number of deals must be from"),
}


def refusal(call: Callable[[], Any]) -> BaseException | None:
    """What ``call()`` raised, waiting at most :data:`PATIENCE` seconds (on a thread of its
    own, left behind if it hangs); ``None`` if it returned."""
    raised: list[BaseException | None] = []

    def attempt() -> None:
        try:
            call()
        except BaseException as error:  # what the call raised is the answer
            raised.append(error)
        else:
            raised.append(None)

    worker = threading.Thread(target=attempt, daemon=True)
    worker.start()
    worker.join(PATIENCE)
    assert raised, f"still running after {PATIENCE:g} s: the numbers were not checked"
    return raised[0]


@pytest.mark.parametrize("bad", BAD_NUMBERS)
@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_every_runner_refuses_a_number_no_run_can_use_before_any_work(
    tmp_path: Path, entry: str, bad: str
) -> None:
    numbers, words = BAD_NUMBERS[bad]
    if entry.startswith("deal") and numbers.get("deals") == -5:
        words = "the number of deals must be from 0"
    folder = tmp_path / "run"
    error = refusal(lambda: _entry_points(folder)[entry](**numbers))
    assert isinstance(error, TarotInputError), repr(error)
    assert words in str(error)
    assert not folder.exists()  # refused before the run's folder was made


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda: analyse_hand(HAND, FFT4, deals=100, threads=float("nan")), "threads"),
        (lambda: analyse_hand(HAND, FFT4, deals=0), "the number of deals"),
        (lambda: compare_variants([FFT4, FFT4], 2.5), "the number of deals"),
        (lambda: compare_variants([FFT4, FFT4], 100, threads=float("nan")), "threads"),
        (lambda: build_report("fft-4", 2**64), "the number of deals"),
        (lambda: build_report("fft-4", 2_000, threads=float("nan")), "threads"),
        (lambda: list(map_chunks(int, range(3), threads=float("nan"))), "threads"),
        (lambda: teach(FFT4, 10, "unused", worlds=2.5), "worlds must be a whole number"),
        (lambda: Bot("pimc", worlds=2.5), "its worlds must be a whole number"),  # type: ignore[arg-type]
        (lambda: Bot("pimc", endgame=1.5), "its endgame tricks must be a whole number"),  # type: ignore[arg-type]
        (lambda: Bot("heuristic", shifts=(0.5, 0, 0, 0)), "a shift of a threshold"),  # type: ignore[arg-type]
        (lambda: run_numbers(10**6 + 1, 1, None), "more than 1,000,000 chunks"),
    ],
    ids=[
        "analyse_hand threads",
        "analyse_hand deals",
        "compare deals",
        "compare threads",
        "report deals",
        "report threads",
        "map_chunks threads",
        "teach worlds",
        "pimc worlds",
        "pimc endgame",
        "heuristic shifts",
        "chunks",
    ],
)
def test_the_other_entry_points_refuse_them_too(call: Callable[[], Any], words: str) -> None:
    error = refusal(call)
    assert isinstance(error, TarotInputError), repr(error)
    assert words in str(error)


def test_training_on_no_folder_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tarot_analysis.cli import main

    assert main(["train", "--out", str(tmp_path / "model.npz")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "required: DATA_FOLDER" in err[0], err
    assert not (tmp_path / "model.npz").exists()


@pytest.mark.parametrize("command", ["hands", "play", "guidance", "teach", "dd-bound", "report"])
def test_the_command_line_refuses_an_absurd_number_of_deals_in_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str
) -> None:
    status = main([command, "--deals", str(2**64), "--data", str(tmp_path / "run")][
        : 3 if command in ("hands", "play") else None
    ])  # fmt: skip
    err = capsys.readouterr().err
    assert status == EXIT_USAGE
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert f"{MOST_DEALS:,}" in err
    assert not (tmp_path / "run").exists()
