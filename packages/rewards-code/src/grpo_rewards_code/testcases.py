"""The three kinds of test a row's tests become, and the error a tests column that cannot be read raises.

:mod:`grpo_rewards_code.formats` reads them from the datasets' columns (the Python asserts with
:mod:`grpo_rewards_code.asserts`) and names them too; :mod:`grpo_rewards_code.runner` runs them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class TestFormatError(ValueError):
    """A tests column that cannot be read."""

    __test__ = False  # not a pytest class


@dataclass(frozen=True)
class StdioTest:
    """Feed ``input`` on stdin, compare stdout with ``output``."""

    __test__ = False
    input: str
    output: str

    @property
    def size(self) -> int:
        return len(self.input)


@dataclass(frozen=True)
class CallTest:
    """Call ``fn(*args)`` in the sandbox; compare the returned value with ``expected`` outside (``mode``:
    see :func:`grpo_rewards_code.compare.values_match`)."""

    __test__ = False
    fn: str
    args: tuple[Any, ...]
    expected: Any
    mode: str = "python"

    @property
    def size(self) -> int:
        return len(repr(self.args))


@dataclass(frozen=True)
class AssertTest:
    """Trusted test code (``setup`` then ``source``) run where the program cannot reach it; the names in
    ``proxies`` call the program's functions, whose values come back as plain data."""

    __test__ = False
    source: str
    setup: str = ""
    proxies: tuple[str, ...] = ()

    @property
    def size(self) -> int:
        return len(self.source)


Test = StdioTest | CallTest | AssertTest
