"""Single-bit flips in a run's chunk file: how many the checks catch, how many read back wrong.

    python benchmarks/chunk_bit_flips.py --flips 3000

Writes a small run (two chunks of 2,000 rows: whole numbers, floats and flags, as a guidance
run's rows), then flips one bit of the second chunk's file at a time, at positions drawn at
random (seeded), and reads the chunk back as a resumed run does. Each flip is counted as caught
(the chunk would be named and computed again), read back identical, or read back different
without notice (the case the checks are there to rule out).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np
import pyarrow as pa

from tarot_analysis.runs.runner import RunSpec, _checked, _Unfit, chunk_path, run

SPEC = RunSpec(
    kind="flips", rules="fft-4", bots=("heuristic",), seed=1, deals=4000, chunk_size=2000
)


def work(chunk: int, first: int, n: int) -> pa.Table:
    """Rows like a run's: a deal number, a count, a score and a flag."""
    rng = np.random.default_rng([SPEC.seed, chunk])
    return pa.table(
        {
            "deal": np.arange(first, first + n),
            "chavey": rng.integers(0, 90, n),
            "score": rng.normal(0, 100, n),
            "made": rng.integers(0, 2, n).astype(bool),
        }
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flips", type=int, default=3000, help="bits flipped (default 3,000)")
    parser.add_argument("--seed", type=int, default=7, help="seed of the positions (default 7)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        run(SPEC, folder, work)
        path = chunk_path(folder, 1)
        good = path.read_bytes()
        clean = _checked(path, SPEC, 1)
        rng = np.random.default_rng(args.seed)
        positions = rng.choice(len(good) * 8, size=min(args.flips, len(good) * 8), replace=False)
        caught = identical = different = 0
        for bit in positions:
            data = bytearray(good)
            data[bit // 8] ^= 1 << (bit % 8)
            Path(path).write_bytes(bytes(data))
            try:
                table = _checked(path, SPEC, 1)
            except _Unfit:
                caught += 1
                continue
            if table.equals(clean):
                identical += 1
            else:
                different += 1
    print(
        f"{len(positions):,} single-bit flips in a chunk file of {len(good):,} bytes: "
        f"caught {caught:,}, read back identical {identical:,}, read back different {different:,}"
    )


if __name__ == "__main__":
    main()
