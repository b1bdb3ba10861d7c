"""The worker process: load the function it is sent, run a chunk's items, send results in small batches.

A result is held back only while the oldest unsent work began less than the chunk's ``window`` ago
(2 ms at most), so an item never waits for a later one to finish before its result travels: the pool
can measure every item's deadline from the end of the previous one. While one item runs for longer
than the window, a watchdog thread sends what is waiting and names that item (:class:`Running`), so
that the pool pins an overrun or a crash on exactly it. (An item stuck in one C call that holds the
GIL keeps the watchdog out; the pool then re-runs the unreported items one at a time instead.)
"""

from __future__ import annotations

import importlib
import itertools
import os
import pickle
import sys
import threading
import time
import traceback
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from .messages import Fail, Go, Item, ItemResult, Ready, Results, Run, Running

#: Results sent in one message at most.
MAX_UNSENT = 256


def _worker_entry(fd: int, parent: int | None = None) -> None:
    """Entry point of a worker interpreter: serve requests on the inherited socket ``fd``."""
    if parent is not None:
        _die_with_parent(parent)
    serve(Connection(fd))


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


def serve(conn: Connection) -> None:
    """Answer :class:`Run` messages until :class:`Stop` or the parent goes away."""
    functions: dict[str, Callable[..., Any]] = {}
    out = _Outbox(conn)
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
        if not out.send(Go()) or not _run(out, func, message.items, message.window):
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
        warmup = getattr(func, "warmup", None)
        if callable(warmup):
            warmup()
        return func
    except BaseException as exc:
        return (
            f"cannot load the function in a worker: {type(exc).__name__}: {exc} "
            "(a reward run in workers must be defined in an importable module, not in __main__)"
        )


def _run(out: _Outbox, func: Callable[..., Any], items: list[Item], window: float) -> bool:
    """Run ``items``; False when the worker must exit (the parent is gone, or Ctrl-C)."""
    out.begin(window)
    try:
        for index, args in items:
            started = time.monotonic()
            out.current = (next(out.serial), index, started)
            try:
                result: ItemResult = (index, True, func(*args))
            except KeyboardInterrupt:
                return False
            except BaseException as exc:
                result = (index, False, "".join(traceback.format_exception_only(type(exc), exc)).strip())
            if not out.add(result, started):
                return False
    finally:
        out.end()
    return out.flush()


class _Outbox:
    """Everything a worker sends goes through here, one message at a time (two threads send).

    :meth:`add` holds a result back while the oldest unsent began less than the window ago; the
    watchdog thread wakes every window while a chunk runs, and once the running item has run that
    long it sends what is waiting and a :class:`Running` naming the item.
    """

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.lock = threading.Lock()
        self.unsent: list[ItemResult] = []
        self.began = 0.0  # when the oldest unsent item began
        self.window = 0.0
        self.serial = itertools.count()
        self.current: tuple[int, int, float] | None = None  # (serial, index, start) of the running item
        self.alive = True  # False once a send failed: the parent is gone
        self.running = threading.Event()  # set while a chunk with a window runs
        threading.Thread(target=self._watch, name="grpo-rewards-watchdog", daemon=True).start()

    def begin(self, window: float) -> None:
        self.window = window
        if window:
            self.running.set()

    def end(self) -> None:
        self.running.clear()
        self.current = None

    def add(self, result: ItemResult, started: float) -> bool:
        with self.lock:
            self.current = None
            if not self.unsent:
                self.began = started
            self.unsent.append(result)
            if time.monotonic() - self.began >= self.window or len(self.unsent) >= MAX_UNSENT:
                self._flush()
            return self.alive

    def flush(self) -> bool:
        with self.lock:
            self._flush()
            return self.alive

    def send(self, message: Any) -> bool:
        with self.lock:
            self._send_bytes(pickle.dumps(message))
            return self.alive

    def _watch(self) -> None:
        announced = -1
        while True:
            self.running.wait()
            time.sleep(self.window)
            with self.lock:
                current = self.current
                if current is None or current[0] == announced or time.monotonic() - current[2] < self.window:
                    continue
                announced = current[0]
                self._flush()
                self._send_bytes(pickle.dumps(Running(current[1])))

    def _flush(self) -> None:
        """Send and clear the unsent results (lock held); an unpicklable value becomes that item's error."""
        if not self.unsent:
            return
        try:
            messages = [pickle.dumps(Results(self.unsent))]
        except Exception:  # one at a time, the bad ones as errors
            messages = []
            for index, ok, value in self.unsent:
                try:
                    messages.append(pickle.dumps(Results([(index, ok, value)])))
                except Exception as exc:
                    error = f"returned an unpicklable value: {exc}"
                    messages.append(pickle.dumps(Results([(index, False, error)])))
        self.unsent.clear()
        for data in messages:
            self._send_bytes(data)

    def _send_bytes(self, data: bytes) -> None:
        if self.alive:
            try:
                self.conn.send_bytes(data)
            except (OSError, ValueError):
                self.alive = False
