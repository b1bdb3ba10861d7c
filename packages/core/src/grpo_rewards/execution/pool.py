"""The parent side: worker processes, the pool that runs batches on them, and the process-wide pools.

A pool belongs to the process that started it. After a fork the child forgets the parent's workers
(it closes its copies of their sockets, and never stops or kills them) and starts its own, with its own
spawner thread, when it first needs one.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import warnings
import weakref
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.connection import Connection, wait
from typing import Any

from .. import params
from . import containment
from .batch import STARTUP_TIMEOUT, Batch, WorkerState
from .memory import default_max_memory
from .messages import Outcome, Stop, check_timeout, pickled_function

#: Workers in a row that may fail to start before a batch's queued items are given up as ``crashed``.
START_ATTEMPTS = 3


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def default_workers() -> int:
    """Workers per process: the CPUs this rank may use, shared among local ranks (torchrun); 1 in a pool's worker.

    A pool made inside a worker (a reward scored by a task of another pool: ``grpo-rewards check``, the reward
    contract, a reward that calls a reward) starts one worker unless told otherwise: the outer pool already spreads
    its tasks over the CPUs, and each nested worker of its own would be one more interpreter per outer worker.
    """
    if containment.contains_tasks:
        return 1
    return max(1, min(8, usable_cpus() // local_ranks()))


def capped_workers(workers: int) -> int:
    """``workers``, at most twice the CPUs this process may use (with a warning when it asked for more):
    more processes than that only compete for the same CPUs."""
    cap = 2 * usable_cpus()
    if workers > cap:
        warnings.warn(f"workers={workers} is more than twice the {cap // 2} CPU(s) this process may use; "
                      f"starting {cap} worker processes", RuntimeWarning, stacklevel=3)
        return cap
    return workers


def local_ranks() -> int:
    """The processes of this run on this machine (torchrun's ``LOCAL_WORLD_SIZE``), 1 when unset; a value that is not
    a whole number of processes counts as 1, with a warning (it divides the CPUs, never stops a run)."""
    raw = os.environ.get("LOCAL_WORLD_SIZE", "").strip()
    if not raw:
        return 1
    try:
        ranks = int(raw)
    except ValueError:
        ranks = 0
    if ranks < 1:
        warnings.warn(f"LOCAL_WORLD_SIZE={raw!r} is not a whole number of processes (1 or more); "
                      "reward workers count this process as the only one", RuntimeWarning, stacklevel=3)
        return 1
    return ranks


def _worker_env() -> dict[str, str]:
    env = dict(os.environ)
    paths = [p for p in sys.path if p and os.path.isdir(p)]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    env.setdefault("OMP_NUM_THREADS", "1")
    env.setdefault("MKL_NUM_THREADS", "1")
    env.setdefault("TOKENIZERS_PARALLELISM", "false")
    return env


def _worker_command(fd: int, parent: int) -> list[str]:
    """The command line of a worker's supervisor: the :mod:`.containment` script, never a fork of this process.

    ``-S``: the supervisor imports only the standard library, so it skips ``site`` (the ``.pth`` files of
    site-packages and ``sitecustomize``, ~10-20 ms of each worker's start); the worker it executes starts a normal
    interpreter, ``site`` and all.
    """
    return [sys.executable, "-S", containment.__file__, str(fd), str(parent)]


class _Worker:
    """One worker: a fresh interpreter (spawn semantics, never fork) talking over a socket pair.

    A fresh interpreter is used rather than ``multiprocessing``'s spawn/forkserver so that the
    user's ``__main__`` (a training script without a main guard) is never re-imported. ``process`` is
    the worker's supervisor (:mod:`.containment`), which forks the worker and outlives it only to
    kill what it left behind.
    """

    def __init__(self) -> None:
        parent_sock, child_sock = socket.socketpair()
        self.process = subprocess.Popen(
            _worker_command(child_sock.fileno(), os.getpid()),
            pass_fds=(child_sock.fileno(),),
            stdin=subprocess.DEVNULL,
            env=_worker_env(),
            close_fds=True,
        )
        child_sock.close()
        self.conn = Connection(parent_sock.detach())
        self.state = WorkerState()

    @property
    def pid(self) -> int:
        return self.process.pid

    def exit_code(self) -> int | None:
        try:
            return self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover - the socket closed but the process lives on
            return None

    def kill(self) -> None:
        """Kill the worker and every process below it: SIGTERM makes the supervisor do it (SIGKILL after 5 s)."""
        try:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:  # pragma: no cover - a supervisor stuck in the kernel
                self.process.kill()
                self.process.wait(timeout=5)
        except Exception:  # pragma: no cover - already gone
            pass
        self.conn.close()

    def stop(self) -> None:
        try:
            self.conn.send(Stop())
            self.process.wait(timeout=1)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            pass
        if self.process.poll() is None:
            self.kill()
        else:
            self.conn.close()


# -- what belongs to one process: a fork starts afresh ----------------------------------------
_owner = os.getpid()
_spawner_executor: ThreadPoolExecutor | None = None
_spawner_lock = threading.Lock()
_pools: dict[tuple[int, str], WorkerPool] = {}
_pools_lock = threading.Lock()
_live_pools: weakref.WeakSet[WorkerPool] = weakref.WeakSet()


def _after_fork() -> None:
    """In a forked child: new locks and spawner, and every pool forgets the parent's workers."""
    global _owner, _spawner_executor, _spawner_lock, _pools_lock
    _owner = os.getpid()
    _spawner_executor = None
    _spawner_lock = threading.Lock()
    _pools_lock = threading.Lock()
    for pool in list(_live_pools):
        pool._forget_workers()


def _check_fork() -> None:
    """Notice a changed pid even when the fork bypassed ``os.fork`` (and so its at-fork hook)."""
    if _owner != os.getpid():
        _after_fork()


os.register_at_fork(after_in_child=_after_fork)


def _spawner() -> ThreadPoolExecutor:
    """One long-lived thread that starts every worker.

    Linux delivers a worker's parent-death signal when the *thread* that started it exits, so
    workers are never started from the caller's thread (which may be a short-lived one).
    """
    global _spawner_executor
    _check_fork()
    with _spawner_lock:
        if _spawner_executor is None:
            _spawner_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="grpo-rewards-spawner")
        return _spawner_executor


class WorkerPool:
    """A reusable pool of worker processes that enforces a hard deadline per item.

    >>> pool = WorkerPool(workers=1)
    >>> pool.map(divmod, [(7, 2), (9, 3)], timeout=10.0)
    [Outcome(status='ok', value=(3, 1), error=None), Outcome(status='ok', value=(3, 0), error=None)]
    >>> pool.close()
    """

    def __init__(self, workers: int | None = None, max_tasks_per_worker: int = 20_000, owner: str = "") -> None:
        if workers is not None and workers < 0:
            raise ValueError(f"workers must be 1 or more (0 or None: one per CPU), got {workers}")
        self.size = workers or default_workers()
        #: whose work this pool runs (a reward's name; "" for any caller): see :func:`get_pool`
        self.owner = owner
        self.max_tasks = max_tasks_per_worker
        self._workers: list[_Worker] = []
        self._lock = threading.Lock()
        self.stats = {"spawned": 0, "killed_timeout": 0, "crashed": 0, "recycled": 0}
        self._failed_starts = 0
        _live_pools.add(self)

    # -- lifecycle ---------------------------------------------------------------------------
    def close(self) -> None:
        _check_fork()
        with self._lock:
            for w in self._workers:
                w.stop()
            self._workers = []

    def _forget_workers(self) -> None:
        """After a fork: drop the parent's workers, touching nothing but this process's socket copies."""
        for w in self._workers:
            w.conn.close()
        self._workers = []
        self._lock = threading.Lock()
        self.stats = dict.fromkeys(self.stats, 0)
        self._failed_starts = 0

    @property
    def pids(self) -> list[int]:
        """The process ids of the workers' supervisors (this process's children)."""
        return [w.pid for w in self._workers]

    @property
    def worker_pids(self) -> list[int]:
        """The process ids of the processes that run the tasks (each a child of its supervisor; 0 until started)."""
        return [w.state.pid for w in self._workers]

    def _spawn(self) -> None:
        self.stats["spawned"] += 1
        worker = _spawner().submit(_Worker).result()
        if containment.contains_tasks:  # a pool inside a worker: its workers outlive the task that made them
            containment.keep_across_tasks(worker.pid)
        self._workers.append(worker)

    def _fill(self, wanted: int) -> None:
        while len(self._workers) < min(self.size, wanted):
            self._spawn()

    def _replace(self, worker: _Worker, *, kill: bool) -> None:
        if kill:
            worker.kill()
        else:
            worker.stop()
        self._workers.remove(worker)
        self._spawn()

    # -- work --------------------------------------------------------------------------------
    def map(
        self,
        func: Callable[..., Any],
        items: Sequence[tuple[Any, ...]],
        timeout: float | None = 1.0,
        chunk_size: int | None = None,
        max_memory: int | str | None = None,
    ) -> list[Outcome]:
        """Run ``func(*args)`` for every ``args`` in ``items``; one :class:`Outcome` each, in order.

        ``timeout`` bounds each item, measured from the end of the one before it in the same worker.
        ``max_memory`` caps each worker's address space while it runs these items (bytes or a size such
        as ``"2 GiB"``; None: :func:`~.memory.default_max_memory`; 0: no cap); an item past it gets
        ``Outcome("memory")``.
        """
        check_timeout(timeout)
        if not items:
            return []
        payload = pickled_function(func, "a worker process")
        _check_fork()
        size = chunk_size or max(1, min(64, -(-len(items) // (self.size * 4))))
        cap = default_max_memory(self.size) if max_memory is None else params.size(max_memory, "max_memory")
        batch = Batch(hashlib.sha1(payload).hexdigest(), payload, list(items), timeout, size, cap)
        with self._lock:
            try:
                self._run(batch)
            except BaseException:  # Ctrl-C or a bug: no worker may keep a chunk the next batch would misread
                for w in [w for w in self._workers if w.state.chunk]:
                    w.kill()
                    self._workers.remove(w)
                raise
        return batch.result()

    def _run(self, batch: Batch) -> None:
        self._fill(len(batch.pending))
        while not batch.finished:
            for w in list(self._workers):  # hand out chunks to idle, started workers
                # (a chunk whose samples cannot be pickled is settled, not sent: the worker is still idle)
                while batch.pending and w.state.ready and not w.state.chunk:
                    try:
                        batch.assign(w.state, w.conn)
                    except (OSError, ValueError):
                        self._replace(w, kill=True)
                        break
            if batch.finished:  # the last chunks were settled as they were packed
                break
            watched = {w.conn: w for w in self._workers if not w.state.ready or w.state.chunk}
            if not watched:  # every item is settled, queued or held by a worker: this cannot happen
                raise RuntimeError(f"worker pool: {batch.left} item(s) unaccounted for")
            deadlines = [d for w in watched.values()
                         if (d := w.state.deadline(batch.timeout, batch.slack)) is not None]
            wait_for = max(0.0, min(deadlines) - time.monotonic()) if deadlines else None
            for conn in wait(list(watched), timeout=wait_for):
                if batch.finished:  # given up on (workers cannot start): later news is the next batch's
                    break
                self._receive(batch, watched[conn])  # type: ignore[index]
            now = time.monotonic()
            for w in list(self._workers):
                why = batch.expire(w.state, now)
                if why == "timeout":
                    self.stats["killed_timeout"] += 1
                elif why == "starting":
                    self._start_failed(batch, f"did not start within {STARTUP_TIMEOUT:g} s")
                if why:
                    self._replace(w, kill=True)

    def _start_failed(self, batch: Batch, what: str) -> None:
        """A worker failed to start; after :data:`START_ATTEMPTS` in a row the items still queued give up."""
        self._failed_starts += 1
        if self._failed_starts >= START_ATTEMPTS:
            batch.abandon("crashed", f"a worker process {what} {self._failed_starts} times in a row (its error "
                                     "output is this process's stderr)")

    def _receive(self, batch: Batch, w: _Worker) -> None:
        try:
            while True:
                batch.receive(w.state, w.conn.recv())
                if not w.conn.poll():
                    break
        except (EOFError, OSError):  # the worker died
            self.stats["crashed"] += 1
            if w.state.ready:
                batch.lose(w.state, "crashed", f"worker process died (exit code {w.exit_code()})")
            else:
                self._start_failed(batch, f"exited before it was ready (exit code {w.exit_code()})")
            self._replace(w, kill=True)
            return
        if w.state.ready:
            self._failed_starts = 0
        if not w.state.chunk and w.state.tasks >= self.max_tasks:
            self.stats["recycled"] += 1
            self._replace(w, kill=False)


def get_pool(workers: int | None = None, owner: str = "") -> WorkerPool:
    """The process-wide pool of ``workers`` processes for ``owner`` (started lazily, reused across batches).

    Each owner (a reward: its name and metric) gets pools of its own, so that rewards never share a
    worker process's Python state: one reward that patches a class or sets a module global cannot
    change what another pays. Callers that name no owner share the ``""`` pools.
    """
    size = capped_workers(workers) if workers else default_workers()
    _check_fork()
    with _pools_lock:
        pool = _pools.get((size, owner))
        if pool is None:
            pool = _pools[(size, owner)] = WorkerPool(size, owner=owner)
        return pool


@atexit.register
def _close_pools() -> None:
    _check_fork()
    for pool in list(_pools.values()):
        pool.close()
    _pools.clear()
