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
(:mod:`.state`: cwd, environment, signal handlers). The code-execution rewards rely on all three.

Modules: :mod:`.messages` (what travels, and :class:`Outcome`), :mod:`.worker` (the worker process),
:mod:`.batch` (the state of one call), :mod:`.pool` (the parent side and the process-wide pools),
:mod:`.containment`, :mod:`.memory`, :mod:`.state`, :mod:`.ray_backend` (the same ``map`` on a Ray cluster;
it imports ``ray`` only when a reward runs there). :func:`run_items` picks between them from a
reward's :class:`~grpo_rewards.RewardOptions`.
"""

from __future__ import annotations

import atexit
import contextvars
import threading
from collections.abc import Callable, Sequence
from typing import Any

from ..options import RewardOptions
from .batch import STARTUP_TIMEOUT
from .messages import Outcome
from .pool import WorkerPool, default_workers, get_pool
from .ray_backend import get_ray_backend

__all__ = ["STARTUP_TIMEOUT", "Outcome", "WorkerPool", "default_workers", "get_pool",
           "map_with_deadline", "prepare_backend", "run_items"]


def map_with_deadline(
    func: Callable[..., Any],
    items: Sequence[tuple[Any, ...]],
    timeout: float | None = 1.0,
    workers: int | None = None,
    max_memory: int | str | None = None,
    owner: str = "",
) -> list[Outcome]:
    """Run ``func(*args)`` for each item in ``owner``'s worker pool, each under a hard deadline.

    ``owner`` names whose work it is (a reward); each owner's items run in worker processes of
    its own, never in one that ran another owner's code (see :func:`~.pool.get_pool`).

    ``func`` must be picklable (a module-level function or an instance of a module-level class).
    Safe to call from any thread, including TRL's async event-loop thread, and in a forked child
    (``datasets.map(num_proc=...)``), which gets workers of its own.

    >>> from operator import add
    >>> [o.value for o in map_with_deadline(add, [(1, 2), (3, 4)], timeout=30)]
    [3, 7]
    """
    shared = get_pool(workers, owner)
    if not concurrent_call.get():
        return shared.map(func, items, timeout=timeout, max_memory=max_memory)
    pool = _claim_free_pool(shared)
    try:
        return pool.map(func, items, timeout=timeout, max_memory=max_memory)
    finally:
        with _spare_lock:
            _claimed.discard(id(pool))


_spare_pools: dict[tuple[int, str], list[WorkerPool]] = {}
_spare_lock = threading.Lock()
#: ids of the pools concurrent calls have chosen and not yet finished with (under ``_spare_lock``)
_claimed: set[int] = set()
#: Set (by :class:`~grpo_rewards.ConcurrentReward`) in a call scored concurrently with others.
concurrent_call: contextvars.ContextVar[bool] = contextvars.ContextVar("grpo_rewards_concurrent_call", default=False)


def _claim_free_pool(shared: WorkerPool) -> WorkerPool:
    """For a concurrent call: the shared pool if no batch holds or has claimed it, else a spare pool.

    A pool runs one batch at a time. Rewards scored concurrently (their async forms, awaited together
    by TRL) would take turns in the shared pool; each instead gets a pool of its own while the shared
    one is busy, so their samples run at the same time. The choice and the claim happen under one
    lock, so two calls starting together never both pick the same pool; the caller releases the claim
    when its batch ends. Spare pools are kept for the next step. Other calls (synchronous ones, worker
    start-up) wait for the shared pool.
    """
    with _spare_lock:
        spares = _spare_pools.setdefault((shared.size, shared.owner), [])
        for pool in [shared, *spares]:
            if id(pool) not in _claimed and not pool._lock.locked():
                break
        else:
            pool = WorkerPool(shared.size, owner=shared.owner)
            spares.append(pool)
        _claimed.add(id(pool))
        return pool


@atexit.register
def _close_spare_pools() -> None:
    for pools in _spare_pools.values():
        for pool in pools:
            pool.close()
    _spare_pools.clear()


def run_items(func: Callable[..., Any], items: Sequence[tuple[Any, ...]], options: RewardOptions,
              owner: str = "") -> list[Outcome]:
    """Run ``func(*args)`` for each item where ``options.execution`` says, under ``options.timeout``
    (in ``owner``'s own worker processes, on either backend).

    ``local``: this machine's worker pool (``options.workers`` processes); ``ray``: one task per item
    on the Ray cluster (:mod:`.ray_backend`). Either way one :class:`Outcome` per item, in order.
    """
    execution = options.execution
    if execution.backend == "ray":
        return get_ray_backend(execution.address or "auto", execution.num_cpus_per_task or 1.0).map(
            func, items, timeout=options.timeout, max_memory=options.max_memory, owner=owner)
    return map_with_deadline(func, items, timeout=options.timeout, workers=options.workers,
                             max_memory=options.max_memory, owner=owner)


def prepare_backend(options: RewardOptions) -> str:
    """Connect to the backend ``options`` names, now, and describe it (``local``, ``ray (address ...)``).

    A Ray cluster that cannot be reached raises :class:`~grpo_rewards.errors.ExecutionError` here,
    so a training run stops before its model loads rather than at its first step.
    """
    execution = options.execution
    if execution.backend == "ray":
        get_ray_backend(execution.address or "auto", execution.num_cpus_per_task or 1.0).connect()
    return execution.describe()
