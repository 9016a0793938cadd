"""Peak memory of a command and every process it starts (a local Dask cluster included).

    python benchmarks/peak_memory.py [--json] [--interval 0.2] -- COMMAND [ARG ...]
    python benchmarks/peak_memory.py --flat [--json] [--deals A B] [--deal-numbers X Y]

Runs COMMAND and, every ``--interval`` seconds, adds up the memory of it and all its
descendants, read from ``/proc`` (Linux): the resident set (RSS, which counts pages shared
between processes, such as the compiled libraries, once per process: an upper bound) and the
proportional set (PSS, which splits shared pages between the processes that share them: what
the processes together take). Prints the peaks, the wall time and the exit status of COMMAND.

``--flat`` measures instead what should not grow: ``play --no-rows`` at two deal counts and
``replay`` at two deal numbers (``tarot-analysis`` of this checkout, fft-4, seed 1), printed
side by side.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path


def children_of() -> dict[int, list[int]]:
    """Every process's children, from ``/proc/<pid>/stat``."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # the process has gone
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(parent, []).append(int(entry.name))
    return children


def tree(root: int) -> list[int]:
    """``root`` and all its descendants."""
    children = children_of()
    found, waiting = [], [root]
    while waiting:
        pid = waiting.pop()
        found.append(pid)
        waiting += children.get(pid, [])
    return found


def memory_kib(pid: int) -> tuple[int, int]:
    """RSS and PSS of one process, in KiB (0 for a process that has gone)."""
    values = {"Rss:": 0, "Pss:": 0}
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            name, *rest = line.split()
            if name in values:
                values[name] = int(rest[0])
    except (OSError, ValueError, IndexError):
        pass
    return values["Rss:"], values["Pss:"]


def measure(command: list[str], interval: float) -> tuple[dict[str, object], str]:
    """Run ``command`` to its end, sampling the memory of its process tree every ``interval``
    seconds: its peaks and wall time, and what it printed."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    peak_rss = peak_pss = peak_processes = peak_single = 0
    while process.poll() is None:
        pids = tree(process.pid)
        sizes = [memory_kib(pid) for pid in pids]
        peak_rss = max(peak_rss, sum(rss for rss, _ in sizes))
        peak_pss = max(peak_pss, sum(pss for _, pss in sizes))
        peak_single = max(peak_single, max(rss for rss, _ in sizes))
        peak_processes = max(peak_processes, len(pids))
        time.sleep(interval)
    output = process.stdout.read() if process.stdout else ""
    elapsed = time.perf_counter() - started
    return {
        "command": command,
        "exit_status": process.returncode,
        "seconds": round(elapsed, 1),
        "peak_rss_mib": round(peak_rss / 1024, 1),
        "peak_pss_mib": round(peak_pss / 1024, 1),
        "peak_largest_process_rss_mib": round(peak_single / 1024, 1),
        "processes": peak_processes,
        "sample_interval_s": interval,
        "cpu_count": os.cpu_count(),
    }, output


def flat(args: argparse.Namespace) -> int:
    """``play --no-rows`` at two deal counts and ``replay`` at two deal numbers, side by side."""
    cli = [sys.executable, "-m", "tarot_analysis.cli.program"]
    common = ["--rules", "fft-4", "--seed", "1", "--bots", args.bots]
    runs = {
        "play --no-rows": [
            (f"--deals {n:,}", [*cli, "play", *common, "--deals", str(n), "--no-rows",
                                "--no-progress", "--json"])
            for n in args.deals
        ],
        "replay": [
            (f"--deal {n:,}", [*cli, "replay", *common, "--deal", str(n), "--json"])
            for n in args.deal_numbers
        ],
    }  # fmt: skip
    # Compiling the engine takes hundreds of MiB more than any run: compile it first, unmeasured.
    subprocess.run(
        [*cli, "play", *common, "--deals", "1000", "--no-rows", "--no-progress", "--json"],
        capture_output=True, check=False,
    )  # fmt: skip
    results = {
        name: [measure(command, args.interval)[0] | {"at": at} for at, command in pair]
        for name, pair in runs.items()
    }
    if args.json:
        print(json.dumps(results))
    else:
        print(f"{'command':<16} {'at':>24} {'peak RSS':>10} {'peak PSS':>10} {'time':>8} exit")
        for name, pair in results.items():
            for result in pair:
                print(
                    f"{name:<16} {result['at']:>24} {result['peak_rss_mib']:>6,.0f} MiB "
                    f"{result['peak_pss_mib']:>6,.0f} MiB {result['seconds']:>6.1f} s "
                    f"{result['exit_status']}"
                )
            small, large = pair
            print(
                f"{'':<16} {'growth':>24} {large['peak_rss_mib'] - small['peak_rss_mib']:>+6,.0f} "
                f"MiB {large['peak_pss_mib'] - small['peak_pss_mib']:>+6,.0f} MiB"
            )
    every = [result for pair in results.values() for result in pair]
    return 0 if all(result["exit_status"] == 0 for result in every) else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--interval", type=float, default=0.2, help="seconds between samples")
    parser.add_argument(
        "--flat", action="store_true",
        help="measure play --no-rows at two deal counts and replay at two deal numbers",
    )  # fmt: skip
    parser.add_argument(
        "--deals", type=int, nargs=2, default=[500_000, 5_000_000], metavar=("A", "B"),
        help="with --flat: the two deal counts of play --no-rows",
    )  # fmt: skip
    parser.add_argument(
        "--deal-numbers", type=int, nargs=2, default=[20_000_000, 99_999_999_999_999],
        metavar=("X", "Y"), help="with --flat: the two deal numbers to replay",
    )  # fmt: skip
    parser.add_argument(
        "--bots", default="heuristic", help="with --flat: the bots (default heuristic)"
    )
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command, after --")
    args = parser.parse_args()
    if not Path("/proc/self/smaps_rollup").exists():
        parser.error("this measures memory from /proc/<pid>/smaps_rollup: Linux only")
    if args.flat:
        return flat(args)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command to measure after --")

    result, output = measure(command, args.interval)
    if args.json:
        print(json.dumps(result))
    else:
        sys.stdout.write(output)
        print(f"\n{' '.join(command)}")
        print(f"  exit status {result['exit_status']}, {result['seconds']:.1f} s, "
              f"{result['processes']} processes")  # fmt: skip
        print(f"  peak memory of all of them: {result['peak_pss_mib']:,.0f} MiB (PSS), "
              f"{result['peak_rss_mib']:,.0f} MiB (RSS, shared pages counted in each)")  # fmt: skip
        print(f"  largest single process: {result['peak_largest_process_rss_mib']:,.0f} MiB (RSS)")
    return 0 if result["exit_status"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
