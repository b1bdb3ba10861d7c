"""What travels between a pool and its workers (one typed message each way), and each item's :class:`Outcome`.

Parent to worker: :class:`Run` (a chunk of items, with the function when the worker lacks it) and
:class:`Stop`. Worker to parent: :class:`Ready` once, then per chunk :class:`Go` (the function is loaded)
or :class:`Fail` (it cannot be), :class:`Results` as items finish, and :class:`Running` for an item
that runs for longer than the window.
"""

from __future__ import annotations

import pickle
import traceback
from typing import Any, NamedTuple

#: ``(position in the batch, the arguments)``: one item of a chunk.
Item = tuple[int, tuple[Any, ...]]
#: ``(position, status, value)``: a finished item; ``status`` is ``ok``, ``error`` or ``memory`` (its cap was hit),
#: and when not ``ok`` the value is the error's one-line text.
ItemResult = tuple[int, str, Any]


class Outcome(NamedTuple):
    """What happened to one item: ``status`` is ``ok``, ``error``, ``memory`` (it hit the worker's memory cap),
    ``timeout`` or ``crashed``."""

    status: str
    value: Any = None
    error: str | None = None


class Run(NamedTuple):
    """Run ``items`` with the function ``key``, sending results once the oldest unsent began ``window`` s ago."""

    key: str
    payload: bytes | None  # the pickled function, when the worker does not hold ``key``
    items: list[Item]
    window: float  # 0: each result as soon as it is ready
    watch: float  # seconds between the watchdog's looks at a long item; 0: no watchdog
    paths: list[str] | None  # the parent's import path, sent with a new function
    forget: tuple[str, ...]  # functions the worker drops first, so that it holds what its pool believes
    max_memory: int = 0  # the worker's address-space cap in bytes while the chunk runs; 0: none
    cwd: str = ""  # the caller's working directory when the batch was sent, where each item runs; "": where it was


class Stop(NamedTuple):
    """Exit now."""


class Ready(NamedTuple):
    """The worker has started and waits for work."""

    pid: int


class Go(NamedTuple):
    """The chunk's function is loaded; its first item starts now."""


class Fail(NamedTuple):
    """The chunk's function cannot be loaded here; the worker does not hold it."""

    error: str


class Running(NamedTuple):
    """The item at ``position`` has run longer than the window and runs still; ``results`` are those held back
    before it (unlike :class:`Results`, they do not start the running item's deadline again)."""

    position: int
    results: list[ItemResult]


class Results(NamedTuple):
    """Finished items, in the order they ran."""

    results: list[ItemResult]


def error_text(exc: BaseException) -> str:
    """The one-line text an item's error travels as: ``ValueError: boom``."""
    return "".join(traceback.format_exception_only(type(exc), exc)).strip()


def check_timeout(timeout: float | None) -> None:
    """Refuse a per-item deadline that is not a positive number of seconds (None: no deadline)."""
    if timeout is not None and not timeout > 0:
        raise ValueError(f"timeout must be a positive number of seconds or None, got {timeout!r}")


def pickled_function(func: Any, where: str) -> bytes:
    """``func`` pickled to travel to ``where`` (``a worker process``, ``Ray``), or a TypeError saying why not."""
    try:
        return pickle.dumps(func)
    except (pickle.PicklingError, TypeError, AttributeError) as exc:
        raise TypeError(
            f"{func!r} cannot run in {where}: it must be picklable (a module-level function or an instance of a "
            f"module-level class, not a closure or lambda): {exc}") from exc
