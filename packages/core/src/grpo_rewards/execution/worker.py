"""The worker process: load the function it is sent, run a chunk's items, send results in small batches.

A result is held back only while the oldest unsent work began less than the chunk's ``window`` ago
(2 ms at most), so an item never waits for a later one to finish before its result travels: the pool
can measure every item's deadline from the end of the previous one. While one item runs for longer
than the window, a watchdog thread names it (:class:`Running`, sent well before the deadline) with the
results held back, so that the pool pins an overrun or a crash on exactly that item. (An item stuck
in one C call that holds the GIL keeps the watchdog out; the pool then re-runs the unreported items
one at a time instead.)
"""

from __future__ import annotations

import importlib
import os
import pickle
import sys
import threading
import time
from collections.abc import Callable
from functools import partial
from multiprocessing.connection import Connection
from typing import Any

from ..scorer_hooks import warm_up
from . import containment, memory
from .messages import Fail, Go, ItemResult, Ready, Results, Run, Running, error_text
from .state import ProcessState, watch_signals

#: Results sent in one message at most.
MAX_UNSENT = 256


def _worker_entry(fd: int, parent: int | None = None, *, subreaper: bool = False) -> None:
    """Entry point of a worker (started by its supervisor, :mod:`.containment`): serve requests on socket ``fd``.

    ``subreaper``: the supervisor is one, so this worker becomes one too and holds every process its
    tasks start.
    """
    if parent is not None:
        _die_with_parent(parent)
    if subreaper:
        containment.become_subreaper()
    serve(Connection(fd))


def _die_with_parent(parent: int) -> None:
    """Ask Linux to SIGKILL this worker when its parent dies, even mid-sample (PR_SET_PDEATHSIG)."""
    containment.die_with_parent()
    if os.getppid() != parent:  # the parent died before the request was in place
        os._exit(0)


def serve(conn: Connection) -> None:
    """Answer :class:`Run` messages until :class:`Stop` or the parent goes away."""
    functions: dict[str, Callable[..., Any]] = {}
    out = _Outbox(conn)
    global _clean
    _clean = ProcessState.capture()
    containment.contains_tasks = True
    watch_signals()
    out.send(Ready(os.getpid()))
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError, KeyboardInterrupt):
            return
        if not isinstance(message, Run):  # Stop
            return
        for key in message.forget:
            functions.pop(key, None)
        func = functions.get(message.key)
        if func is None:
            loaded = _load_function(message)
            if isinstance(loaded, str):
                out.send(Fail(loaded))
                continue
            func = functions[message.key] = loaded
        if not out.send(Go()) or not _run(out, func, message):
            return


def _load_function(message: Run) -> Callable[..., Any] | str:
    """The function a :class:`Run` carries, warmed up; or why it cannot be loaded here."""
    try:
        if message.payload is None:
            raise LookupError("the pool sent no copy of a function this worker does not hold")
        missing = [p for p in message.paths or () if p not in sys.path]
        if missing:  # the parent's import path grew since this worker started
            sys.path[:0] = missing
            importlib.invalidate_caches()
        func: Callable[..., Any] = pickle.loads(message.payload)
        warm_up(func)
        return func
    except BaseException as exc:
        return (
            f"cannot load the function in a worker: {type(exc).__name__}: {exc} "
            "(a reward run in workers must be defined in an importable module, not in __main__)"
        )


#: The process state each task starts from (taken when the worker starts), and the memory cap in force.
_clean: ProcessState | None = None
_limit: int | None = None


def _after_task() -> None:
    """Kill what the task left running and put back what it changed (:mod:`.containment`, :mod:`.state`)."""
    if containment.has_children():
        containment.kill_descendants()
    if _clean is not None:
        _clean.restore()


def _run(out: _Outbox, func: Callable[..., Any], message: Run) -> bool:
    """Run the chunk's items; False when the worker must exit (the parent is gone, or Ctrl-C).

    The loop touches no lock: only this thread changes ``unsent``; the watchdog copies from it.
    """
    global _limit
    window, unsent, monotonic = message.window, out.unsent, time.monotonic
    if message.max_memory != _limit:
        memory.apply_limit(message.max_memory)
        _limit = message.max_memory
    if message.cwd and _clean is not None and message.cwd != _clean.cwd:
        _clean.move(message.cwd)
    out.begin(window, message.watch)
    try:
        now = began = monotonic()
        for index, args in message.items:
            out.current = (index, now)
            if not unsent:
                began = now
            try:
                unsent.append((index, "ok", func(*args)))
            except KeyboardInterrupt:
                return False
            except MemoryError:
                unsent.append((index, "memory", f"exceeded the worker's memory cap of {(_limit or 0) / 2**20:.0f} MiB"))
            except BaseException as exc:
                unsent.append((index, "error", error_text(exc)))
            _after_task()
            now = monotonic()
            if (now - began >= window or len(unsent) >= MAX_UNSENT) and not out.flush():
                return False
    finally:
        out.end()
    return out.flush()


class _Outbox:
    """Everything a worker sends goes through here, one message at a time (two threads send).

    The item loop appends to ``unsent`` and sends it (:meth:`flush`) once the oldest began the window
    ago. While a chunk runs, the watchdog thread looks every ``watch`` seconds (a tenth of a second at
    most, a quarter of the deadline when that is shorter, so well before the pool's kill); once the
    running item has run for longer than the window it sends a :class:`Running` naming the item, with
    the results held back so far (``ahead`` counts them, so that :meth:`flush` does not send them again).
    """

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.lock = threading.Lock()
        self.unsent: list[ItemResult] = []
        self.ahead = 0  # how many of ``unsent`` the watchdog has sent already
        self.window = self.watch = 0.0
        self.current: tuple[int, float] | None = None  # (position, start) of the running item
        self.alive = True  # False once a send failed: the parent is gone
        self.running = threading.Event()  # set while a watched chunk runs
        threading.Thread(target=self._watch, name="grpo-rewards-watchdog", daemon=True).start()

    def begin(self, window: float, watch: float) -> None:
        self.window, self.watch = window, watch
        if watch:
            self.running.set()

    def end(self) -> None:
        self.running.clear()
        self.current = None

    def flush(self) -> bool:
        """Send the results not sent yet; False if the parent is gone."""
        with self.lock:
            if len(self.unsent) > self.ahead:
                self._send_bytes(_encode(Results, self.unsent[self.ahead:]))
            self.unsent.clear()
            self.ahead = 0
            return self.alive

    def send(self, message: Any) -> bool:
        with self.lock:
            self._send_bytes(pickle.dumps(message))
            return self.alive

    def _watch(self) -> None:
        announced = None
        while True:
            self.running.wait()
            time.sleep(self.watch)
            with self.lock:
                current = self.current
                # an item that ran the window has its result sent as soon as it ends, so while the pool has
                # not had that result, the item named here is the one running
                if current is None or current is announced or time.monotonic() - current[1] < self.window:
                    continue
                announced = current
                held = self.unsent[self.ahead:]
                self.ahead += len(held)
                self._send_bytes(_encode(partial(Running, current[0]), held))

    def _send_bytes(self, data: bytes) -> None:
        if self.alive:
            try:
                self.conn.send_bytes(data)
            except (OSError, ValueError):
                self.alive = False


def _encode(message: Callable[[list[ItemResult]], Any], results: list[ItemResult]) -> bytes:
    """``message(results)`` pickled; a value that cannot be pickled becomes its item's error."""
    try:
        return pickle.dumps(message(results))
    except Exception:
        return pickle.dumps(message([_picklable(result) for result in results]))


def _picklable(result: ItemResult) -> ItemResult:
    try:
        pickle.dumps(result)
        return result
    except Exception as exc:
        return result[0], "error", f"returned an unpicklable value: {exc}"
