"""The best contract by Chavey count under two bots, from two guidance runs of the same deals.

    python benchmarks/guidance_by_bots.py data/bots/guidance-heuristic data/bots/guidance-pimc

Both folders are ``tarot-analysis guidance`` runs with the same rules, seed and chunk size, so
the same hands were dealt to seat 0 (checked). For each band of Chavey's count and each run:
the contract of highest mean score (passing scores 0), the runner-up, and their difference with
a 95% interval from the per-deal differences (a tie when it reaches 0); and the Garde's mean
score under the second run's bots less under the first's, paired deal by deal. Prints a
Markdown table.
"""

from __future__ import annotations

import argparse

import numpy as np
import numpy.typing as npt
from scipy import stats

from tarot_analysis.runs.runner import read_dataset

CONTRACTS = ("prise", "garde", "garde_sans", "garde_contre")
BANDS = ((-999, 39, "below 40"), (40, 45, "40–45"), (46, 55, "46–55"), (56, 999, "56 and more"))


def interval(values: npt.NDArray[np.float64]) -> tuple[float, float, float]:
    """Mean and its 95% interval (Student t)."""
    mean = float(values.mean())
    half = float(stats.t.ppf(0.975, len(values) - 1) * values.std(ddof=1) / np.sqrt(len(values)))
    return mean, mean - half, mean + half


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("runs", nargs=2, metavar="FOLDER")
    args = parser.parse_args()
    frames = [read_dataset(folder).to_pandas().sort_values("deal") for folder in args.runs]
    if not np.array_equal(frames[0]["chavey"], frames[1]["chavey"]):
        raise SystemExit("the two runs were not dealt the same hands")
    names = [folder.rstrip("/").split("/")[-1] for folder in args.runs]
    print(
        "| Chavey | deals | run | best (mean score) | runner-up | best − runner-up (95%) "
        "| Garde, second − first (95%, paired) |"
    )
    print("|---|---:|---|---|---|---|---|")
    for low, high, band in BANDS:
        chavey = frames[0]["chavey"].to_numpy()
        keep = (chavey >= low) & (chavey <= high)
        for frame in frames:
            keep &= ~frame["redeal"].to_numpy(dtype=bool)
        for k, (frame, name) in enumerate(zip(frames, names, strict=True)):
            rows = frame[keep]
            scores = {c: rows[f"score_{c}"].to_numpy(dtype=float) for c in CONTRACTS}
            scores["pass"] = np.zeros(len(rows))
            ranked = sorted(scores, key=lambda c: scores[c].mean(), reverse=True)
            best, runner = ranked[0], ranked[1]
            d, d_low, d_high = interval(scores[best] - scores[runner])
            tie = ", a tie" if d_low <= 0 <= d_high else ""
            garde = ""
            if k == 1:
                first = frames[0][keep]["score_garde"].to_numpy(dtype=float)
                g, g_low, g_high = interval(scores["garde"] - first)
                garde = f"{g:+.1f} ({g_low:+.1f} to {g_high:+.1f})"
            print(
                f"| {band} | {len(rows):,} | {name} | {best} ({scores[best].mean():+.1f}) | "
                f"{runner} ({scores[runner].mean():+.1f}) | {d:+.1f} ({d_low:+.1f} to "
                f"{d_high:+.1f}){tie} | {garde} |"
            )


if __name__ == "__main__":
    main()
