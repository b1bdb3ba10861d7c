"""Worker processes with a hard per-item deadline.

A per-sample reward that may run forever (a regex, a symbolic simplification, ``9**9**9``) is run
in a worker process; an item that overruns its deadline is abandoned by killing the worker
(SIGKILL, not a signal handler: those only work on the main thread and cannot interrupt one long
C call), the pool replaces the worker, and the item gets ``Outcome("timeout")``. Workers start
as fresh interpreters (spawn semantics), never ``fork``: the trainer process holds torch threads.

Work is sent in chunks. A worker holds a result back only while the oldest unsent one began less
than 2 ms ago (a twentieth of the deadline, if that is shorter), so each item's deadline is measured
from the end of the one before it: the pool adds twice that window, so that every item gets at least
its full deadline. An item that runs longer than that window is named to the pool by a watchdog
thread in the worker (within a tenth of a second, or a quarter of the deadline if shorter), so an
overrun or a crash is pinned on it and nothing runs twice; when the
worker could not say (a crash within the window, or one C call holding the GIL), its unreported
items run again one at a time, which pins the failure on exactly one item.

In a forked child (``datasets.map(num_proc=...)``) the pools forget the parent's workers without
touching them and start their own, with their own spawner thread.

Each worker runs under a supervisor that kills every process a task starts when the task ends, overruns,
crashes or the pool shuts down (:mod:`.containment`: Linux child subreapers), with a memory cap per
reward (:mod:`.memory`, the ``memory`` outcome), and puts back what a task changed in its process
(:mod:`.state`: cwd, environment, signal handlers). The code-execution rewards rely on all three.

Modules: :mod:`.messages` (what travels, and :class:`Outcome`), :mod:`.worker` (the worker process),
:mod:`.batch` (the state of one call), :mod:`.pool` (the parent side and the process-wide pools),
:mod:`.containment`, :mod:`.memory`, :mod:`.state`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .batch import STARTUP_TIMEOUT
from .messages import Outcome
from .pool import WorkerPool, default_workers, get_pool

__all__ = ["STARTUP_TIMEOUT", "Outcome", "WorkerPool", "default_workers", "get_pool",
           "map_with_deadline"]


def map_with_deadline(
    func: Callable[..., Any],
    items: Sequence[tuple[Any, ...]],
    timeout: float | None = 1.0,
    workers: int | None = None,
    max_memory: int | str | None = None,
) -> list[Outcome]:
    """Run ``func(*args)`` for each item in the shared worker pool, each under a hard deadline.

    ``func`` must be picklable (a module-level function or an instance of a module-level class).
    Safe to call from any thread, including TRL's async event-loop thread, and in a forked child
    (``datasets.map(num_proc=...)``), which gets workers of its own.

    >>> from operator import add
    >>> [o.value for o in map_with_deadline(add, [(1, 2), (3, 4)], timeout=30)]
    [3, 7]
    """
    return get_pool(workers).map(func, items, timeout=timeout, max_memory=max_memory)
