"""Comparison outside the sandbox: program output against expected output, returned values against expected values.

``tokens`` (the default for stdin/stdout tests): the same number of lines (trailing blank lines and
trailing spaces ignored), the same number of whitespace-separated tokens on each line, and each
token equal, or both numbers of equal value. Two integers compare exactly, at any size
(``1000000008`` is not ``1000000007``); ``tolerance`` is for tokens with a decimal point or an
exponent: relative to an expected such number, but absolute only (and exact, not through floats)
when the expected token is an integer (``1000000008.0`` is not ``1000000007`` either).
``exact``: the same text after trailing whitespace at the end of each line and of the output is
removed. Never set-based: order and count matter.

>>> outputs_match("3\\n1 2\\n", "3\\n1 2", "tokens"), outputs_match("3\\n", "3\\n1 2\\n", "tokens")
(True, False)
>>> outputs_match("0.3333333\\n", "0.33333333", "tokens"), outputs_match("1 2", "2 1", "tokens")
(True, False)
>>> outputs_match("1000000008", "1000000007"), outputs_match("1000000008.0", "1000000007"), outputs_match("7.0", "7")
(False, False, True)
>>> values_match((1, [2]), [1, [2]], "json"), values_match((1, [2]), [1, [2]], "python")
(True, False)
"""

from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation
from typing import Any

from grpo_rewards.closeness import close

COMPARISONS = ("tokens", "exact")
TOLERANCE = 1e-6


_INTEGER = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _exact(token: str) -> Decimal | None:
    """The exact value of a number token (any number of digits), else None."""
    if not _DECIMAL.fullmatch(token):
        return None
    try:
        return Decimal(token)
    except InvalidOperation:
        return None


def _number(token: str) -> float | None:
    try:
        value = float(token)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _lines(text: str) -> list[str]:
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def tokens_equal(a: str, b: str, tolerance: float = TOLERANCE) -> bool:
    """Whether token ``a`` (the program's) matches the expected token ``b`` (see the module's docstring)."""
    if a == b:
        return True
    if _INTEGER.fullmatch(b):
        exact = _exact(a)
        if exact is None:
            return False
        if _INTEGER.fullmatch(a):
            return exact == Decimal(b)
        try:
            return abs(exact - Decimal(b)) <= Decimal(repr(tolerance))
        except ArithmeticError:  # an exponent past what Decimal computes with: no integer is that close
            return False
    x, y = _number(a), _number(b)
    return x is not None and y is not None and abs(x - y) <= tolerance * max(1.0, abs(y))


def outputs_match(actual: str, expected: str, comparison: str = "tokens", tolerance: float = TOLERANCE) -> bool:
    """Whether a program's ``actual`` stdout matches ``expected`` under ``comparison``."""
    a, e = _lines(actual), _lines(expected)
    if comparison == "exact":
        return a == e
    if len(a) != len(e):
        return False
    for line_a, line_e in zip(a, e):
        ta, te = line_a.split(), line_e.split()
        if len(ta) != len(te) or not all(tokens_equal(x, y, tolerance) for x, y in zip(ta, te)):
            return False
    return True


def _jsonish(value: Any) -> Any:
    """``value`` as JSON would carry it: tuples as lists, recursively."""
    if isinstance(value, (list, tuple)):
        return [_jsonish(v) for v in value]
    if isinstance(value, dict):
        return {k: _jsonish(v) for k, v in value.items()}
    return value


def _close(a: Any, b: Any, tolerance: float) -> bool:
    """``a`` (returned) matches ``b`` (expected): an expected int exactly, an expected float within ``tolerance``."""
    if (type(a) is bool) != (type(b) is bool):
        return False
    if type(b) is int:
        return type(a) in (int, float) and bool(a == b)  # exact: float(n) is not n + 1, however large n is
    if type(a) is float or type(b) is float:
        if isinstance(a, bool) or isinstance(b, bool) or not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
            return False
        # within tolerance of the expected, relatively (absolutely below 1); an infinity only matches itself and an
        # integer past a float's range is compared exactly (10**400 raised OverflowError out of the reward)
        return close(a, b, rel_tol=tolerance, abs_tol=tolerance, relative_to_expected=True)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y, tolerance) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k], tolerance) for k in a)
    return bool(a == b)


def values_match(actual: Any, expected: Any, mode: str = "python", tolerance: float = TOLERANCE) -> bool:
    """Whether a returned value (plain built-in types, decoded outside) matches the expected one.

    ``python``: Python's ``==`` (the test's own assert); ``truth``: the value's truth is ``expected``
    (``assert f(x)``, ``assert not f(x)``); ``is``: the value is the constant ``expected`` (``True``,
    ``False`` or ``None``: ``assert f(x) is True``); ``json``: as JSON carries them (tuples are
    lists) with floats within ``tolerance``; ``apps``: ``json``, or the value wrapped in a list
    (APPS and TACO store a call's expected return value as ``[value]``).

    >>> values_match([0], True, "truth"), values_match(0, False, "truth"), values_match(1, True, "is")
    (True, True, False)
    """
    if mode == "python":
        return bool(actual == expected)
    if mode == "truth":
        return bool(actual) is expected
    if mode == "is":
        return actual is expected
    a, e = _jsonish(actual), _jsonish(expected)
    if _close(a, e, tolerance):
        return True
    return mode == "apps" and isinstance(e, list) and len(e) == 1 and _close(a, e[0], tolerance)
