"""The memory cap of a worker process: its default, its unit syntax, and how a worker applies it.

The cap is an address-space limit (``RLIMIT_AS``, the one Linux enforces at allocation time; an RSS
limit is not enforced by the kernel). A worker sets it, as its soft limit, before each chunk of a
reward's samples (a reward's pool may run items with different caps), and the processes a scorer starts
inherit it. An allocation past it raises ``MemoryError`` in the scorer, and the sample gets the
``memory`` outcome label; the worker and the process that holds the pool carry on.

The default is the smaller of 4 GiB and the machine's memory (or the container's cgroup limit)
divided by the number of workers plus one, so that every worker at its cap still leaves the
trainer a share. ``0`` means no cap.

>>> default_max_memory(1, total=8 * GIB) == 4 * GIB, default_max_memory(3, total=8 * GIB) == 2 * GIB
(True, True)
"""

from __future__ import annotations

import functools
import os

GIB = 1 << 30
#: The largest default cap.
DEFAULT_CAP = 4 * GIB
@functools.cache
def machine_memory() -> int:
    """The memory this process may use: the machine's, or its cgroup's limit when that is smaller.
    Read once per process (from files: tens of µs), though every pool ``map`` and every Ray task asks."""
    total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            with open(path, encoding="ascii") as f:
                raw = f.read().strip()
        except OSError:
            continue
        if raw.isdigit() and 0 < int(raw) < total:
            total = int(raw)
    return int(total)


def default_max_memory(workers: int, total: int | None = None) -> int:
    """The default cap for one of ``workers`` workers: min(4 GiB, memory / (workers + 1))."""
    return min(DEFAULT_CAP, (machine_memory() if total is None else total) // (max(1, workers) + 1))


def apply_limit(limit: int) -> None:
    """Set this process's address-space soft limit to ``limit`` bytes (0: no cap, up to the hard limit)."""
    import resource

    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    soft = resource.RLIM_INFINITY if limit <= 0 else limit
    if hard != resource.RLIM_INFINITY and (soft == resource.RLIM_INFINITY or soft > hard):
        soft = hard
    resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
