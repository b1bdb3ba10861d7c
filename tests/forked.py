"""Run a function in a child forked from the test's process, as ``multiprocessing``'s fork start method and
``datasets.map(num_proc=...)`` do: the tests that a forked child neither hangs nor shares what it must not.

>>> Forked(lambda: 6 * 7).result()
42
"""

from __future__ import annotations

import contextlib
import multiprocessing
from collections.abc import Callable
from typing import Any

#: seconds a child may take before it counts as hung
HANG_SECONDS = 120.0


class Forked:
    """``target()`` started at once in a forked child (``while_starting`` held around the fork); :meth:`result`
    waits for its value, a small one (it must fit a pipe's buffer: the child ends only when it is written).
    ``pid``: the child's."""

    def __init__(self, target: Callable[[], Any], while_starting: contextlib.AbstractContextManager[Any] | None = None) -> None:
        context = multiprocessing.get_context("fork")
        self._out = context.Queue()
        self._process = context.Process(target=lambda: self._out.put(target()))
        with while_starting or contextlib.nullcontext():
            self._process.start()
        self.pid = self._process.pid

    def result(self, timeout: float = HANG_SECONDS) -> Any:
        """The child's value; fails the test when the child is still running after ``timeout`` seconds (it is
        killed first: no process is left behind) or ended without one."""
        self._process.join(timeout)
        if self._process.is_alive():
            self._process.kill()
            self._process.join()
        assert self._process.exitcode == 0, (
            f"the forked child ended with {self._process.exitcode} (-9: killed, still running after {timeout:g} s)")
        return self._out.get(timeout=10)
