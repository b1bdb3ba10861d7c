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

_local = threading.local()


class BudgetExceeded(Exception):
    """The in-process time budget is spent (not a ValueError: never mistaken for a ParseError)."""


class time_budget:  # lower-case: used as a function, ``with time_budget(0.015):``
    """``seconds`` of this thread's CPU time from entry, the previous budget restored at exit
    (a class, not a generator: it runs once per parse and per comparison, so it must cost little)."""

    __slots__ = ("previous", "seconds")

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.previous: float | None = None

    def __enter__(self) -> None:
        self.previous = getattr(_local, "deadline", None)
        _local.deadline = time.thread_time() + self.seconds

    def __exit__(self, *exc: object) -> None:
        _local.deadline = self.previous


def budget_active() -> bool:
    """Whether this thread runs under a budget (or under :func:`unbounded`)."""
    return getattr(_local, "deadline", None) is not None


def unbounded() -> time_budget:
    """No budget inside (the symbolic check in a worker, which runs under a hard deadline instead)."""
    return time_budget(float("inf"))


def check_budget() -> None:
    deadline = getattr(_local, "deadline", None)
    if deadline is not None and time.thread_time() > deadline:
        raise BudgetExceeded
