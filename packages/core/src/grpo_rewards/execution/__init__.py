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

Each reward has worker processes of its own (pools are kept per owner, :func:`~.pool.get_pool`):
rewards never share a worker's Python state, so one that patches a class or a module global
cannot change what another pays. The cost is one set of idle interpreters per reward that uses
workers (bench/core.md measures it). On the Ray backend too: a Ray worker runs each reward's
items in a worker process of that reward's own (:mod:`.ray_task`).

In a forked child (``datasets.map(num_proc=...)``) the pools forget the parent's workers without
touching them and start their own, with their own spawner thread.

Each worker runs under a supervisor that kills every process a task starts when the task ends, overruns,
crashes or the pool shuts down (:mod:`.containment`: Linux child subreapers), with a memory cap per
reward (:mod:`.memory`, the ``memory`` outcome), and puts back what a task changed in its process
(:mod:`.state`: cwd, environment, signal handlers). The code-execution rewards rely on all three. Each
item runs in the caller's working directory at the time of the call (a batch carries it), as it would in-process.

Modules: :mod:`.messages` (what travels, and :class:`Outcome`), :mod:`.worker` (the worker process),
:mod:`.batch` (the state of one call), :mod:`.pool` (the parent side and the process-wide pools),
:mod:`.containment`, :mod:`.memory`, :mod:`.state`, :mod:`.ray_backend` (the same ``map`` on a Ray cluster;
it imports ``ray`` only when a reward runs there), :mod:`.dispatch` (:func:`run_items` picks between them from a
reward's :class:`~grpo_rewards.RewardOptions`). Each name below is imported from its module on first use, so a
worker process, which imports :mod:`.worker` and the package with it, loads none of the parent's side.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_exports

#: public name -> module that defines it
_EXPORTS = {
    "STARTUP_TIMEOUT": "batch",
    "Outcome": "messages",
    "WorkerPool": "pool",
    "default_workers": "pool",
    "get_pool": "pool",
    "map_with_deadline": "dispatch",
    "prepare_backend": "dispatch",
    "run_items": "dispatch",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

__all__ = ["STARTUP_TIMEOUT", "Outcome", "WorkerPool", "default_workers", "get_pool",
           "map_with_deadline", "prepare_backend", "run_items"]

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    from .batch import STARTUP_TIMEOUT
    from .dispatch import map_with_deadline, prepare_backend, run_items
    from .messages import Outcome
    from .pool import WorkerPool, default_workers, get_pool
