"""The state of one ``WorkerPool.map`` call: the chunks not yet handed out, the outcomes so far, and what
each worker holds; three moves change it: :meth:`Batch.assign`, :meth:`Batch.receive`, :meth:`Batch.expire`.
"""

from __future__ import annotations

import os
import pickle
import sys
import time
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from itertools import islice
from typing import Any, Protocol, cast

from .messages import Fail, Go, Item, ItemResult, Outcome, Ready, Results, Run, Running

#: Seconds a new worker may take to start (imports included), or to load a function, before it counts as stuck.
STARTUP_TIMEOUT = 120.0
#: Functions a worker keeps loaded; its pool tells it which to drop, so both sides always agree.
CACHED_FUNCTIONS = 64


def _cwd() -> str:
    """This process's working directory, where the batch's items run; "" when it was removed."""
    try:
        return os.getcwd()
    except OSError:
        return ""


class Connection(Protocol):
    def send_bytes(self, buf: bytes) -> None: ...


@dataclass
class WorkerState:
    """What a pool knows of one worker: started yet, the functions it holds, the items it has not reported."""

    ready: bool = False
    pid: int = 0  # the worker's own pid (its supervisor's child), once it said Ready
    functions: OrderedDict[str, None] = field(default_factory=OrderedDict)  # least recently used first
    tasks: int = 0
    chunk: deque[Item] = field(default_factory=deque)
    isolated: bool = False
    clock: float = 0.0  # when its current item could start (the last report, or Go); 0 while loading
    running: int | None = None  # the item it last said runs long (Running)
    assigned: float = 0.0
    born: float = field(default_factory=time.monotonic)

    def plan(self, key: str) -> tuple[bool, tuple[str, ...]]:
        """Whether ``key`` must be sent to the worker, and the keys it must drop to make room."""
        if key in self.functions:
            return False, ()
        return True, tuple(islice(self.functions, max(0, len(self.functions) + 1 - CACHED_FUNCTIONS)))

    def holds(self, key: str, forget: tuple[str, ...]) -> None:
        """The worker was sent ``key`` (or used it again) after dropping ``forget``."""
        for old in forget:
            del self.functions[old]
        self.functions[key] = None
        self.functions.move_to_end(key)

    def deadline(self, timeout: float | None, slack: float) -> float | None:
        """When this worker counts as stuck (not started, loading, or its current item overdue); None: never."""
        if not self.ready:
            return self.born + STARTUP_TIMEOUT
        if not self.chunk:
            return None
        if not self.clock:
            return self.assigned + STARTUP_TIMEOUT
        return None if timeout is None else self.clock + timeout + slack


@dataclass
class Chunk:
    items: list[Item]
    isolated: bool  # report each item as it finishes (after a failure: pins the next one on one item)


class Batch:
    """One call's items, split into chunks; each item is settled exactly once, with an :class:`Outcome`."""

    def __init__(self, key: str, payload: bytes, items: list[tuple[Any, ...]], timeout: float | None,
                 chunk_size: int, max_memory: int = 0) -> None:
        self.key = key
        self.max_memory = max_memory
        self.cwd = _cwd()
        self.payload = payload
        self.timeout = timeout
        n = len(items)
        self.outcomes: list[Outcome | None] = [None] * n
        self.left = n
        self.pending: deque[Chunk] = deque(
            Chunk([(i, items[i]) for i in range(start, min(n, start + chunk_size))], False)
            for start in range(0, n, chunk_size)
        )
        self.window = 0.002 if timeout is None else min(0.002, timeout / 20)
        # an item begins at most one window after the report before it: the deadline allows for that
        self.slack = 2 * self.window
        # how often a worker's watchdog looks for a long item: its Running comes well before the kill
        self.watch = 0.1 if timeout is None else min(0.1, timeout / 4)

    @property
    def finished(self) -> bool:
        return self.left == 0

    def result(self) -> list[Outcome]:
        """Every item's outcome, in order (once :attr:`finished`)."""
        assert self.finished
        return cast("list[Outcome]", self.outcomes)

    def settle(self, index: int, outcome: Outcome) -> None:
        self.outcomes[index] = outcome
        self.left -= 1

    def assign(self, w: WorkerState, conn: Connection) -> None:
        """Send the next chunk to the idle worker ``w``; OSError/ValueError if its socket is gone (the chunk
        is then back in the queue). A sample that cannot be pickled is settled as an error here."""
        chunk = self.pending.popleft()
        fresh, forget = w.plan(self.key)
        data = self._pack(chunk, fresh, forget)
        if data is None:  # every item of the chunk was unpicklable and is settled
            return
        try:
            conn.send_bytes(data)
        except (OSError, ValueError):
            self.pending.appendleft(chunk)
            raise
        w.holds(self.key, forget)
        w.chunk.extend(chunk.items)
        w.isolated = chunk.isolated
        w.running = None
        w.clock = 0.0
        w.assigned = time.monotonic()

    def _pack(self, chunk: Chunk, fresh: bool, forget: tuple[str, ...]) -> bytes | None:
        """The :class:`Run` for ``chunk``, pickled; samples that cannot be pickled are settled as errors and
        left out (None when none is left)."""
        try:
            return self._run_message(chunk, fresh, forget)
        except Exception:
            kept = []
            for index, args in chunk.items:
                try:
                    pickle.dumps(args)
                    kept.append((index, args))
                except Exception as exc:
                    self.settle(index, Outcome("error", None, f"cannot send the sample to a worker: {exc}"))
            chunk.items = kept
            return self._run_message(chunk, fresh, forget) if kept else None

    def _run_message(self, chunk: Chunk, fresh: bool, forget: tuple[str, ...]) -> bytes:
        window, watch = (0.0, 0.0) if chunk.isolated else (self.window, self.watch)
        return pickle.dumps(Run(self.key, self.payload if fresh else None, chunk.items, window, watch,
                                list(sys.path) if fresh else None, forget, self.max_memory, self.cwd))

    def receive(self, w: WorkerState, message: Any) -> None:
        """Apply one message from worker ``w``."""
        if isinstance(message, Results):  # the most frequent first
            self._take(w, message.results)
            w.clock = time.monotonic()
        elif isinstance(message, Running):
            self._take(w, message.results)
            w.running = message.position
        elif isinstance(message, Go):
            w.clock = time.monotonic()
        elif isinstance(message, Ready):
            w.ready = True
            w.pid = message.pid
        elif isinstance(message, Fail):  # the worker does not hold the function: each item gets the error
            w.functions.pop(self.key, None)
            while w.chunk:
                self.settle(w.chunk.popleft()[0], Outcome("error", None, message.error))

    def _take(self, w: WorkerState, results: list[ItemResult]) -> None:
        for index, status, value in results:
            w.chunk.popleft()
            self.settle(index, Outcome("ok", value) if status == "ok" else Outcome(status, None, value))
        w.tasks += len(results)

    def expire(self, w: WorkerState, now: float) -> str | None:
        """If ``w`` is past its deadline, settle or requeue what it holds and say why it must be killed:
        ``timeout`` (an item overran), ``loading`` (the function did not load in time) or ``starting``."""
        deadline = w.deadline(self.timeout, self.slack)
        if deadline is None or now <= deadline:
            return None
        if not w.ready:
            return "starting"
        if not w.clock:
            while w.chunk:
                self.settle(w.chunk.popleft()[0],
                            Outcome("timeout", None, "the function did not load in a worker in time"))
            return "loading"
        self.lose(w, "timeout", f"exceeded its {self.timeout:g} s deadline")
        return "timeout"

    def abandon(self, status: str, error: str) -> None:
        """Settle every queued item with ``status``: no worker can start to run them."""
        while self.pending:
            for index, _ in self.pending.popleft().items:
                self.settle(index, Outcome(status, None, error))

    def lose(self, w: WorkerState, status: str, error: str) -> None:
        """The worker is gone mid-chunk: pin the failure on one item, or re-run the unreported ones alone.

        The failure belongs to the first unreported item when the worker said that item was running
        (:class:`Running`), in an isolated chunk, or when it is the only one left. Otherwise (the item
        failed within the window, or held the GIL so that the watchdog could not speak) the culprit is
        one of the unreported items: they run again, each reported as it finishes.
        """
        if w.chunk and (w.isolated or len(w.chunk) == 1 or w.running == w.chunk[0][0]):
            self.settle(w.chunk.popleft()[0], Outcome(status, None, error))
            if w.chunk:
                self.pending.appendleft(Chunk(list(w.chunk), False))
        elif w.chunk:
            self.pending.appendleft(Chunk(list(w.chunk), True))
        w.chunk.clear()
