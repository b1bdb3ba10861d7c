"""Where a reward's items run: this machine's worker pools (a spare one for a concurrent call) or the Ray
cluster, picked from the reward's options (:func:`run_items`).

Imported by the parent side only: a worker process imports :mod:`.worker`, never this (nor the pool).
"""

from __future__ import annotations

import atexit
import contextvars
import threading
from collections.abc import Callable, Sequence
from typing import Any

from ..options import RewardOptions
from .messages import Outcome
from .pool import WorkerPool, get_pool
from .ray_backend import get_ray_backend


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
