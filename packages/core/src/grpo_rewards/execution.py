"""Worker processes with a hard per-item deadline.

A per-sample reward that may run forever (a regex, a symbolic simplification, ``9**9**9``) is run
in a worker process; an item that overruns its deadline is abandoned by killing the worker
(SIGKILL, not a signal handler: those only work on the main thread and cannot interrupt one long
C call), the pool replaces the worker, and the item gets ``Outcome("timeout")``. Workers start
as fresh interpreters (spawn semantics), never ``fork``: the trainer process holds torch threads. Work is sent in chunks; a worker reports each item as it finishes, so the deadline of
every item is measured from the end of the previous one.
"""

from __future__ import annotations

import atexit
import hashlib
import importlib
import os
import pickle
import socket
import subprocess
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.connection import Connection, wait
from typing import Any, NamedTuple

#: Seconds a new worker may take to start (imports included) before it counts as crashed.
STARTUP_TIMEOUT = 120.0


class Outcome(NamedTuple):
    """What happened to one item: ``status`` is ``ok``, ``error``, ``timeout`` or ``crashed``."""

    status: str
    value: Any = None
    error: str | None = None


# -- worker side ------------------------------------------------------------------------------
def _worker_main(conn: Connection) -> None:
    funcs: dict[str, Callable[..., Any]] = {}
    conn.send(("ready", os.getpid()))
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError, KeyboardInterrupt):
            return
        if message[0] == "stop":
            return
        _, key, payload, items, flush_after, paths = message
        if key not in funcs:
            try:
                missing = [p for p in paths or () if p not in sys.path]
                if missing:  # the parent's import path grew since this worker started
                    sys.path[:0] = missing
                    importlib.invalidate_caches()
                func = pickle.loads(payload)
                warmup = getattr(func, "warmup", None)
                if callable(warmup):
                    warmup()
            except BaseException as exc:
                error = (
                    f"cannot load the function in a worker: {type(exc).__name__}: {exc} "
                    "(a reward run in workers must be defined in an importable module, not in __main__)"
                )
                conn.send(("fail", error))
                continue
            if len(funcs) > 64:
                funcs.clear()
            funcs[key] = func
        func = funcs[key]
        conn.send(("go",))
        buffer: list[tuple[bool, int, Any]] = []
        first = 0.0
        for index, args in items:
            try:
                buffer.append((True, index, func(*args)))
            except BaseException as exc:
                if isinstance(exc, KeyboardInterrupt):
                    return
                detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
                buffer.append((False, index, detail))
            now = time.monotonic()
            if len(buffer) == 1:
                first = now
            if now - first >= flush_after or len(buffer) >= 256:
                if not _flush(conn, buffer):
                    return
        if buffer and not _flush(conn, buffer):
            return


def _flush(conn: Connection, buffer: list[tuple[bool, int, Any]]) -> bool:
    try:
        conn.send(("res", buffer[:]))
    except (OSError, ValueError):  # the parent is gone
        return False
    except Exception:  # an unpicklable value: send them one by one, the bad one as an error
        for ok, index, value in buffer:
            try:
                conn.send(("res", [(ok, index, value)]))
            except (OSError, ValueError):
                return False
            except Exception as exc:
                conn.send(("res", [(False, index, f"returned an unpicklable value: {exc}")]))
    buffer.clear()
    return True


# -- parent side ------------------------------------------------------------------------------
def default_workers() -> int:
    """Workers per process: the CPUs this rank may use, shared among local ranks (torchrun)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cpus = os.cpu_count() or 1
    local_ranks = int(os.environ.get("LOCAL_WORLD_SIZE", "1") or 1)
    return max(1, min(8, cpus // max(1, local_ranks)))


def _worker_env() -> dict[str, str]:
    env = dict(os.environ)
    paths = [p for p in sys.path if p and os.path.isdir(p)]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    env.setdefault("OMP_NUM_THREADS", "1")
    env.setdefault("MKL_NUM_THREADS", "1")
    env.setdefault("TOKENIZERS_PARALLELISM", "false")
    return env


def _die_with_parent(parent: int) -> None:
    """Ask Linux to SIGKILL this worker when its parent dies, even mid-sample (PR_SET_PDEATHSIG)."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            import signal

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
        except (OSError, AttributeError):  # pragma: no cover - no libc prctl
            pass
    if os.getppid() != parent:  # the parent died before the request was in place
        os._exit(0)


def _worker_entry(fd: int, parent: int | None = None) -> None:
    """Entry point of a worker interpreter: serve requests on the inherited socket ``fd``."""
    if parent is not None:
        _die_with_parent(parent)
    _worker_main(Connection(fd))


class _Worker:
    """One worker: a fresh interpreter (spawn semantics, never fork) talking over a socket pair.

    A fresh ``python -c`` is used rather than ``multiprocessing``'s spawn/forkserver so that the
    user's ``__main__`` (a training script without a main guard) is never re-imported.
    """

    def __init__(self) -> None:
        parent_sock, child_sock = socket.socketpair()
        code = (
            "from grpo_rewards.execution import _worker_entry; "
            f"_worker_entry({child_sock.fileno()}, {os.getpid()})"
        )
        self.process = subprocess.Popen(
            [sys.executable, "-c", code],
            pass_fds=(child_sock.fileno(),),
            stdin=subprocess.DEVNULL,
            env=_worker_env(),
            close_fds=True,
        )
        child_sock.close()
        self.conn = Connection(parent_sock.detach())
        self.ready = False
        self.loaded: set[str] = set()
        self.tasks = 0
        self.items: deque[tuple[int, tuple[Any, ...]]] = deque()
        self.isolated = False
        self.started = 0.0  # when the current item started; 0 while waiting for "go"
        self.assigned = 0.0  # when the current chunk was sent
        self.born = time.monotonic()

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def exitcode(self) -> int | None:
        return self.process.poll()

    def kill(self) -> None:
        try:
            self.process.kill()
            self.process.wait(timeout=5)
        except Exception:  # pragma: no cover - already gone
            pass
        self.conn.close()

    def stop(self) -> None:
        try:
            self.conn.send(("stop",))
            self.process.wait(timeout=1)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            pass
        if self.process.poll() is None:
            self.kill()
        else:
            self.conn.close()


_spawner_executor: ThreadPoolExecutor | None = None
_spawner_lock = threading.Lock()


def _spawner() -> ThreadPoolExecutor:
    """One long-lived thread that starts every worker.

    Linux delivers a worker's parent-death signal when the *thread* that started it exits, so
    workers are never started from the caller's thread (which may be a short-lived one).
    """
    global _spawner_executor
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

    def __init__(self, workers: int | None = None, max_tasks_per_worker: int = 20_000) -> None:
        self.size = workers or default_workers()
        self.max_tasks = max_tasks_per_worker
        self._workers: list[_Worker] = []
        self._lock = threading.Lock()
        self.stats = {"spawned": 0, "killed_timeout": 0, "crashed": 0, "recycled": 0}

    # -- lifecycle ---------------------------------------------------------------------------
    def _spawn(self) -> _Worker:
        self.stats["spawned"] += 1
        return _spawner().submit(_Worker).result()

    def close(self) -> None:
        with self._lock:
            for w in self._workers:
                w.stop()
            self._workers = []

    @property
    def pids(self) -> list[int]:
        return [w.pid for w in self._workers]

    def _replace(self, worker: _Worker, *, kill: bool) -> None:
        if kill:
            worker.kill()
        else:
            worker.stop()
        self._workers.remove(worker)

    # -- work --------------------------------------------------------------------------------
    def map(
        self,
        func: Callable[..., Any],
        items: Sequence[tuple[Any, ...]],
        timeout: float | None = 1.0,
        chunk_size: int | None = None,
    ) -> list[Outcome]:
        """Run ``func(*args)`` for every ``args`` in ``items``; one :class:`Outcome` each, in order."""
        if not items:
            return []
        try:
            payload = pickle.dumps(func)
        except (pickle.PicklingError, TypeError, AttributeError) as exc:
            raise TypeError(
                f"{func!r} cannot run in a worker process: it must be picklable (a module-level function or an "
                f"instance of a module-level class, not a closure or lambda): {exc}"
            ) from exc
        key = hashlib.sha1(payload).hexdigest()
        with self._lock:
            return self._map(payload, key, list(items), timeout, chunk_size)

    def _map(
        self, payload: bytes, key: str, items: list[tuple[Any, ...]], timeout: float | None, chunk_size: int | None
    ) -> list[Outcome]:
        n = len(items)
        results: list[Outcome | None] = [None] * n
        size = chunk_size or max(1, min(64, -(-n // (self.size * 4))))
        # (items, isolated): an isolated chunk reports each item as it finishes, so a hang or crash is
        # pinned on exactly one item; normal chunks batch their results (a few ms at a time).
        pending: deque[tuple[list[tuple[int, tuple[Any, ...]]], bool]] = deque(
            ([(i, items[i]) for i in range(start, min(n, start + size))], False) for start in range(0, n, size)
        )
        flush_after = 0.002 if timeout is None else min(0.002, timeout / 20)
        while len(self._workers) < min(self.size, len(pending)):
            self._workers.append(self._spawn())
        busy: dict[Connection, _Worker] = {}
        state = {"done": 0}

        def settle(index: int, outcome: Outcome) -> None:
            results[index] = outcome
            state["done"] += 1

        def lose(w: _Worker, status: str, error: str) -> None:
            """The worker is gone mid-chunk: pin the failure on one item or re-run the rest isolated."""
            if w.items and (w.isolated or len(w.items) == 1):
                index, _ = w.items.popleft()
                settle(index, Outcome(status, None, error))
                if w.items:
                    pending.appendleft((list(w.items), False))
            elif w.items:
                pending.appendleft((list(w.items), True))
            w.items.clear()

        while state["done"] < n:
            for w in list(self._workers):  # hand out chunks to idle, started workers
                if not pending:
                    break
                if w.ready and not w.items and w.conn not in busy:
                    chunk, isolated = pending.popleft()
                    w.items.extend(chunk)
                    w.isolated = isolated
                    w.started = 0.0
                    w.assigned = time.monotonic()
                    try:
                        fresh = key not in w.loaded
                        w.conn.send(("run", key, payload if fresh else None, chunk,
                                     0.0 if isolated else flush_after, list(sys.path) if fresh else None))
                    except (OSError, ValueError):
                        w.items.clear()
                        pending.appendleft((chunk, isolated))
                        self._replace(w, kill=True)
                        self._workers.append(self._spawn())
                        continue
                    w.loaded.add(key)
                    busy[w.conn] = w
            waiting = {w.conn: w for w in self._workers if not w.ready}
            watch = {**busy, **waiting}
            if not watch:  # every worker died at once: start them again
                while len(self._workers) < min(self.size, len(pending)) or not self._workers:
                    self._workers.append(self._spawn())
                continue
            now = time.monotonic()
            deadlines = [w.started + timeout for w in busy.values() if w.started and timeout is not None]
            deadlines += [w.assigned + STARTUP_TIMEOUT for w in busy.values() if not w.started]
            deadlines += [w.born + STARTUP_TIMEOUT for w in waiting.values()]
            wait_for = max(0.0, min(deadlines) - now) if deadlines else None
            for conn in wait(list(watch), timeout=wait_for):
                w = watch[conn]
                try:
                    while True:
                        message = conn.recv()
                        kind = message[0]
                        if kind == "ready":
                            w.ready = True
                        elif kind == "go":
                            w.started = time.monotonic()
                        elif kind == "fail":  # the function cannot be unpickled there
                            while w.items:
                                settle(w.items.popleft()[0], Outcome("error", None, message[1]))
                            w.loaded.discard(key)
                        else:
                            for ok, index, value in message[1]:
                                w.items.popleft()
                                settle(index, Outcome("ok", value) if ok else Outcome("error", None, value))
                            w.tasks += len(message[1])
                            w.started = time.monotonic()
                        if not conn.poll():
                            break
                except (EOFError, OSError):  # the worker died
                    self.stats["crashed"] += 1
                    code = w.process.wait(timeout=5) if w.process.poll() is None else w.process.poll()
                    lose(w, "crashed", f"worker process died (exit code {code})")
                    busy.pop(conn, None)
                    self._replace(w, kill=True)
                    self._workers.append(self._spawn())
                    continue
                if not w.items:
                    busy.pop(conn, None)
                    if w.tasks >= self.max_tasks:
                        self.stats["recycled"] += 1
                        self._replace(w, kill=False)
                        self._workers.append(self._spawn())
            now = time.monotonic()
            for conn, w in list(busy.items()):
                overdue = timeout is not None and w.started and now - w.started > timeout
                stuck = not w.started and now - w.assigned > STARTUP_TIMEOUT
                if (overdue or stuck) and w.items:
                    if overdue:
                        self.stats["killed_timeout"] += 1
                        lose(w, "timeout", f"exceeded its {timeout:g} s deadline")
                    else:  # loading the function (or its warmup) hung
                        while w.items:
                            settle(w.items.popleft()[0],
                                   Outcome("timeout", None, "the function did not load in a worker in time"))
                    busy.pop(conn)
                    self._replace(w, kill=True)
                    self._workers.append(self._spawn())
            for w in list(self._workers):
                if not w.ready and now - w.born > STARTUP_TIMEOUT:
                    self._replace(w, kill=True)
                    self._workers.append(self._spawn())
        return results  # type: ignore[return-value]


_pools: dict[int, WorkerPool] = {}
_pools_lock = threading.Lock()


def get_pool(workers: int | None = None) -> WorkerPool:
    """The process-wide pool of ``workers`` processes (started lazily, reused across batches)."""
    size = workers or default_workers()
    with _pools_lock:
        pool = _pools.get(size)
        if pool is None:
            pool = _pools[size] = WorkerPool(size)
        return pool


@atexit.register
def _close_pools() -> None:
    for pool in list(_pools.values()):
        pool.close()
    _pools.clear()


def map_with_deadline(
    func: Callable[..., Any],
    items: Sequence[tuple[Any, ...]],
    timeout: float | None = 1.0,
    workers: int | None = None,
) -> list[Outcome]:
    """Run ``func(*args)`` for each item in the shared worker pool, each under a hard deadline.

    ``func`` must be picklable (a module-level function or an instance of a module-level class).
    Safe to call from any thread, including TRL's async event-loop thread.

    >>> from operator import add
    >>> [o.value for o in map_with_deadline(add, [(1, 2), (3, 4)], timeout=30)]
    [3, 7]
    """
    return get_pool(workers).map(func, items, timeout=timeout)
