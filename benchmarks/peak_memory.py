"""Peak memory of a command and every process it starts (a local Dask cluster included).

    python benchmarks/peak_memory.py [--json] [--interval 0.2] -- COMMAND [ARG ...]

Runs COMMAND and, every ``--interval`` seconds, adds up the memory of it and all its
descendants, read from ``/proc`` (Linux): the resident set (RSS, which counts pages shared
between processes, such as the compiled libraries, once per process: an upper bound) and the
proportional set (PSS, which splits shared pages between the processes that share them: what
the processes together take). Prints the peaks, the wall time and the exit status of COMMAND.
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--interval", type=float, default=0.2, help="seconds between samples")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command, after --")
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command to measure after --")
    if not Path("/proc/self/smaps_rollup").exists():
        parser.error("this measures memory from /proc/<pid>/smaps_rollup: Linux only")

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
        time.sleep(args.interval)
    output = process.stdout.read() if process.stdout else ""
    elapsed = time.perf_counter() - started
    result = {
        "command": command,
        "exit_status": process.returncode,
        "seconds": round(elapsed, 1),
        "peak_rss_mib": round(peak_rss / 1024, 1),
        "peak_pss_mib": round(peak_pss / 1024, 1),
        "peak_largest_process_rss_mib": round(peak_single / 1024, 1),
        "processes": peak_processes,
        "sample_interval_s": args.interval,
        "cpu_count": os.cpu_count(),
    }
    if args.json:
        print(json.dumps(result))
    else:
        sys.stdout.write(output)
        print(f"\n{' '.join(command)}")
        print(f"  exit status {process.returncode}, {elapsed:.1f} s, {peak_processes} processes")
        print(f"  peak memory of all of them: {peak_pss / 1024:,.0f} MiB (PSS), "
              f"{peak_rss / 1024:,.0f} MiB (RSS, shared pages counted in each)")  # fmt: skip
        print(f"  largest single process: {peak_single / 1024:,.0f} MiB (RSS)")
    return 0 if process.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
