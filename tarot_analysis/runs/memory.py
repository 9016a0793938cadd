"""The memory a run will need, checked before it starts.

A run that keeps one row per deal grows with ``--deals``; asked for more than the machine holds,
it would deal for a while and then fail to allocate. The commands check first: the peak memory
per deal of each (measured with ``benchmarks/peak_memory.py`` as the difference between two
run sizes, so that the fixed cost of the compiled code and the libraries is left out) times the
deals, against the memory the system says is available now. A run that does not fit is refused
in one line saying how many deals would, and which option keeps memory flat.

>>> size_text(29.1 * 2**40)
'29.1 TiB'
"""

from __future__ import annotations

import resource
from collections.abc import Callable
from pathlib import Path
from typing import Final

from tarot_analysis.errors import TarotInputError

__all__ = [
    "BYTES_PER_DEAL",
    "available_bytes",
    "check_memory",
    "check_room",
    "resident_bytes",
    "size_text",
]

#: Peak bytes per deal of the runs that keep their deals: fft-4, heuristic bots, the peak
#: proportional set size (``benchmarks/peak_memory.py``) of two runs, its difference divided by
#: the difference of their deals, rounded up. ``play``: 580.7 MiB at 200,000 deals, 2,145.0 MiB
#: at 1,000,000, 2,050 bytes a deal; ``guidance`` (one seat, with rows): 501.5 MiB at 50,000,
#: 805.6 MiB at 250,000, 1,595 bytes a deal.
BYTES_PER_DEAL: Final = {
    "play": 2_100,
    "guidance": 1_700,
}
#: The share of the available memory a run may plan to take: the rest for the system, and for
#: what the estimate misses.
USABLE: Final = 0.8


def available_bytes() -> int | None:
    """The memory available for new allocations: the least of what the system has free
    (``MemAvailable`` of ``/proc/meminfo``), what this process's control group may still take
    (``memory.max`` less ``memory.current``, cgroup v2) and what its address-space limit leaves
    (``ulimit -v`` less the address space taken); ``None`` where none of them is said (then
    nothing is checked)."""
    found = [
        size for size in (_meminfo_available(), _cgroup_left(), _address_space_left())
        if size is not None
    ]  # fmt: skip
    return min(found) if found else None


def resident_bytes() -> int | None:
    """The memory this process holds now (its resident set, ``/proc/self/statm``), or
    ``None`` where the system does not say."""
    fields = (_read("/proc/self/statm") or "").split()
    if len(fields) < 2 or not fields[1].isdigit():
        return None
    return int(fields[1]) * resource.getpagesize()


def _read(path: str) -> str | None:
    try:
        return Path(path).read_text(encoding="ascii")
    except (OSError, ValueError):
        return None


def _meminfo_available() -> int | None:
    for line in (_read("/proc/meminfo") or "").splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) * 1024
    return None


def _cgroup_left() -> int | None:
    """What the control group of this process may still take (cgroup v2), if it is limited."""
    for line in (_read("/proc/self/cgroup") or "").splitlines():
        if line.startswith("0::"):
            folder = "/sys/fs/cgroup" + line[3:].strip().rstrip("/")
            limit, used = _read(f"{folder}/memory.max"), _read(f"{folder}/memory.current")
            if limit and used and limit.strip().isdigit() and used.strip().isdigit():
                return max(int(limit) - int(used), 0)
    return None


def _address_space_left() -> int | None:
    """What ``ulimit -v`` (``RLIMIT_AS``) leaves this process, if it is set."""
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        return None
    for line in (_read("/proc/self/status") or "").splitlines():
        if line.startswith("VmSize:"):
            return max(soft - int(line.split()[1]) * 1024, 0)
    return soft


def size_text(size: float) -> str:
    """``1.5 GiB``: a size in bytes, in binary units."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            return f"{size:.1f} {unit}" if unit != "B" else f"{size:.0f} B"
        size /= 1024
    raise AssertionError("unreachable")


def check_memory(
    command: str, deals: int, flat: str | None, *, runs: int = 1, available: int | None = None
) -> None:
    """Refuse ``deals`` deals of ``command`` (a key of :data:`BYTES_PER_DEAL`), ``runs`` times
    over (a guidance of two seats keeps two runs), when they would not fit in the available
    memory; ``flat`` names the option that keeps memory flat, if the command has one."""
    per_deal = BYTES_PER_DEAL[command] * runs
    other = f", or {flat} keeps memory flat" if flat else ""
    check_room(
        f"{command} --deals {deals:,}", deals * per_deal, available,
        lambda usable: f"at most {int(usable // per_deal):,} deals fit{other}",
    )  # fmt: skip


def check_room(
    what: str, needed: float, available: int | None = None,
    advice: Callable[[float], str] | None = None,
) -> None:  # fmt: skip
    """Refuse ``what`` when the ``needed`` bytes would not fit in the memory available
    (:func:`available_bytes`, or ``available``) beside the rest (:data:`USABLE`), in one line;
    ``advice(usable bytes)`` says what would fit."""
    free = available_bytes() if available is None else available
    if free is None:
        return
    usable = free * USABLE
    if needed <= usable:
        return
    then = f": {advice(usable)}" if advice else ""
    raise TarotInputError(
        f"{what} would need about {size_text(needed)} of memory and {size_text(free)} is "
        f"available{then}"
    )
