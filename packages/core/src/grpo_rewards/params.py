"""Parameter checks for reward authors: one line each, one clear ``ValueError`` message each.

A reward class checks its parameters in ``__init__`` with these, so a bad value in a reward set
is reported at validation (``entry 2 (length.target): ValueError: target must be an integer >= 0,
got -1``) before any model loads. Each check returns the value, converted where it says so.

>>> from grpo_rewards import params
>>> params.integer(3, "max_length", low=1)
3
>>> params.number(1, "penalty")
1.0
>>> params.integer(0, "max_length", low=1)
Traceback (most recent call last):
...
ValueError: max_length must be an integer >= 1, got 0
>>> params.choice("pages", "unit", ("chars", "words", "tokens"))
Traceback (most recent call last):
...
ValueError: unit must be one of chars, words, tokens, got 'pages'
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any, TypeGuard, TypeVar, cast

from .errors import quote

T = TypeVar("T")


def _fail(name: str, wanted: str, value: Any, none_ok: bool) -> ValueError:
    return ValueError(f"{name} must be {wanted}{' or None' if none_ok else ''}, got {quote(value)}")


def _within(kind: str, low: float | None, high: float | None, unbounded: str, spec: str = "") -> str:
    """What a value within ``[low, high]`` is called in an error: ``"an integer >= 1"`` (bounds in ``spec``)."""
    if low is not None and high is not None:
        return f"{kind} in [{low:{spec}}, {high:{spec}}]"
    if low is not None:
        return f"{kind} >= {low:{spec}}"
    if high is not None:
        return f"{kind} <= {high:{spec}}"
    return unbounded


def _is_number(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float))


def finite(value: Any) -> TypeGuard[int | float]:
    """Whether ``value`` is a number (an int or a float, not a bool) that a float holds: not NaN, not infinite, and
    not an integer past a float's range (``math.isfinite`` raises ``OverflowError`` on one; JSON may hold it).

    >>> finite(3), finite(2.5), finite(float("nan")), finite(10 ** 400), finite(True), finite("3")
    (True, True, False, False, False, False)
    """
    if not _is_number(value):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def number(value: Any, name: str, *, low: float | None = None, high: float | None = None,
           positive: bool = False, none_ok: bool = False) -> Any:
    """A finite number (returned as ``float``) within ``[low, high]`` (and ``> 0`` when ``positive``).

    >>> number(0.5, "threshold", low=0, high=1)
    0.5
    >>> number(None, "fallback", positive=True, none_ok=True) is None
    True
    """
    if value is None and none_ok:
        return None
    wanted = "a positive number" if positive else _within("a number", low, high, "a finite number", "g")
    if not finite(value):
        raise _fail(name, wanted, value, none_ok)
    if (positive and not value > 0) or (low is not None and value < low) or (high is not None and value > high):
        raise _fail(name, wanted, value, none_ok)
    return float(value)


def integer(value: Any, name: str, *, low: int | None = None, high: int | None = None,
            none_ok: bool = False) -> Any:
    """An ``int`` (not a bool) within ``[low, high]``.

    >>> integer(None, "workers", low=1, none_ok=True) is None
    True
    """
    if value is None and none_ok:
        return None
    wanted = _within("an integer", low, high, "an integer")
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail(name, wanted, value, none_ok)
    if (low is not None and value < low) or (high is not None and value > high):
        raise _fail(name, wanted, value, none_ok)
    return value


def boolean(value: Any, name: str) -> bool:
    """``True`` or ``False`` (not 0/1, not ``"yes"``).

    >>> boolean(True, "strict")
    True
    """
    if not isinstance(value, bool):
        raise _fail(name, "true or false", value, False)
    return value


def choice(value: Any, name: str, choices: Sequence[T]) -> T:
    """One of ``choices``.

    >>> choice("words", "unit", ("chars", "words"))
    'words'
    """
    try:
        ok = value in choices
    except TypeError:  # an unhashable value against a set
        ok = False
    if not ok:
        raise _fail(name, "one of " + ", ".join(map(str, choices)), value, False)
    return cast(T, value)


def text(value: Any, name: str, *, none_ok: bool = False) -> Any:
    """A non-empty string.

    >>> text("</think>", "delimiter")
    '</think>'
    """
    if value is None and none_ok:
        return None
    if not isinstance(value, str) or not value:
        raise _fail(name, "a non-empty string", value, none_ok)
    return value


def column(value: Any, name: str, *, none_ok: bool = False) -> Any:
    """The name of a dataset column (a non-empty string).

    >>> column("solution", "solution_column")
    'solution'
    >>> column("", "correct_column", none_ok=True)
    Traceback (most recent call last):
    ...
    ValueError: correct_column must name a column or be None, got ''
    """
    if value is None and none_ok:
        return None
    if not isinstance(value, str) or not value:
        raise ValueError(f"{name} must name a column{' or be None' if none_ok else ''}, got {quote(value)}")
    return value


def integers(value: Any, name: str, *, low: int | None = None) -> list[int]:
    """A non-empty list of integers (a single integer is read as a list of one).

    >>> integers(2, "eos_token_ids")
    [2]
    """
    if isinstance(value, int) and not isinstance(value, bool):
        value = [value]
    if (not isinstance(value, (list, tuple)) or not value
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
            or (low is not None and min(value) < low)):
        bound = f" >= {low}" if low is not None else ""
        raise _fail(name, f"a non-empty list of integers{bound}", value, False)
    return list(value)


__all__ = ["boolean", "choice", "column", "finite", "integer", "integers", "number", "text"]


_UNITS = {"": 1, "b": 1, "k": 1000, "kb": 1000, "m": 1000**2, "mb": 1000**2, "g": 1000**3, "gb": 1000**3,
          "t": 1000**4, "tb": 1000**4, "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40}
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$")


def size(value: Any, name: str) -> int:
    """A number of bytes: an integer >= 0, or a string with a unit (``"512 MiB"``, ``"2GB"``), returned as ``int``.

    >>> size("512 MiB", "max_memory"), size("2GB", "max_memory"), size(1024, "max_memory")
    (536870912, 2000000000, 1024)
    >>> size("lots", "max_memory")
    Traceback (most recent call last):
    ...
    ValueError: max_memory must be a number of bytes >= 0 or a size such as '2 GiB' (units B, KB, MB, GB, TB, KiB, \
MiB, GiB, TiB), got 'lots'
    """
    if _is_number(value) and value == int(value) and value >= 0:
        return int(value)
    match = _SIZE.match(value) if isinstance(value, str) else None
    unit = match.group(2).lower() if match else ""
    if match is None or unit not in _UNITS:
        raise ValueError(f"{name} must be a number of bytes >= 0 or a size such as '2 GiB' (units B, KB, MB, GB, TB, "
                         f"KiB, MiB, GiB, TiB), got {quote(value)}")
    return int(float(match.group(1)) * _UNITS[unit])
