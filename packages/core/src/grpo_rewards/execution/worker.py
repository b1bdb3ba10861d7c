"""The worker process: load the function it is sent, run a chunk's items, send results in small batches.

A result is held back only while the oldest unsent work began less than the chunk's ``window`` ago
(2 ms at most), so an item never waits for a later one to finish before its result travels: the pool
can measure every item's deadline from the end of the previous one.
"""

from __future__ import annotations

import importlib
import os
import pickle
import sys
import time
import traceback
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from .messages import Fail, Go, Item, ItemResult, Ready, Results, Run

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
    conn.send(Ready(os.getpid()))
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
                conn.send(Fail(loaded))
                continue
            func = functions[message.key] = loaded
        conn.send(Go())
        if not _run(conn, func, message.items, message.window):
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


def _run(conn: Connection, func: Callable[..., Any], items: list[Item], window: float) -> bool:
    """Run ``items``; False when the worker must exit (the parent is gone, or Ctrl-C)."""
    unsent: list[ItemResult] = []
    began = 0.0  # when the oldest unsent item began
    for index, args in items:
        if not unsent:
            began = time.monotonic()
        try:
            unsent.append((index, True, func(*args)))
        except KeyboardInterrupt:
            return False
        except BaseException as exc:
            unsent.append((index, False, "".join(traceback.format_exception_only(type(exc), exc)).strip()))
        if (time.monotonic() - began >= window or len(unsent) >= MAX_UNSENT) and not _send(conn, unsent):
            return False
    return not unsent or _send(conn, unsent)


def _send(conn: Connection, unsent: list[ItemResult]) -> bool:
    """Send and clear ``unsent``; an unpicklable value becomes that item's error. False if the parent is gone."""
    try:
        messages = [pickle.dumps(Results(unsent))]
    except Exception:  # one at a time, the bad ones as errors
        messages = []
        for index, ok, value in unsent:
            try:
                messages.append(pickle.dumps(Results([(index, ok, value)])))
            except Exception as exc:
                messages.append(pickle.dumps(Results([(index, False, f"returned an unpicklable value: {exc}")])))
    unsent.clear()
    try:
        for data in messages:
            conn.send_bytes(data)
    except (OSError, ValueError):
        return False
    return True
