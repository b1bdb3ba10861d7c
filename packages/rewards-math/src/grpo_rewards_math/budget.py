"""A per-thread CPU-time budget for the bounded in-process work (``quick_equal``, ``parse_answer``).

CPU time of the calling thread (``time.thread_time``) measures the work done, not the machine's load.

Parsing and structural comparison poll :func:`check_budget`; when the budget is spent they raise
:class:`BudgetExceeded` and ``quick_equal`` answers None ("undecided"), which sends the pair to the
symbolic check in a worker. The budget never changes a decided answer, only who decides it.

>>> with time_budget(10.0):
...     check_budget()
>>> check_budget()  # no budget outside the context: never raises
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

_local = threading.local()


class BudgetExceeded(Exception):
    """The in-process time budget is spent (not a ValueError: never mistaken for a ParseError)."""


@contextmanager
def time_budget(seconds: float) -> Iterator[None]:
    previous = getattr(_local, "deadline", None)
    _local.deadline = time.thread_time() + seconds
    try:
        yield
    finally:
        _local.deadline = previous


def budget_active() -> bool:
    """Whether this thread runs under a budget (or under :func:`unbounded`)."""
    return getattr(_local, "deadline", None) is not None


@contextmanager
def unbounded() -> Iterator[None]:
    """No budget inside (the symbolic check in a worker, which runs under a hard deadline instead)."""
    with time_budget(float("inf")):
        yield


def check_budget() -> None:
    deadline = getattr(_local, "deadline", None)
    if deadline is not None and time.thread_time() > deadline:
        raise BudgetExceeded
