"""Numeric helpers for equivalence: bounded evaluation of sympy numbers and closeness tests.

>>> import sympy
>>> close(to_complex(sympy.sqrt(2)), 1.41421356, 1e-6)
True
"""

from __future__ import annotations

import cmath
import random
from fractions import Fraction
from functools import lru_cache
from typing import Any

EVAL_DIGITS = 30
EXACT_TOL = 1e-12  # relative tolerance when neither side was written with a decimal
_MAX_OPS_NUMERIC = 400
_MAX_OPS_QUICK = 60
_MAX_DEPTH_QUICK = 8


def to_complex(e: Any, subs: dict[Any, Any] | None = None) -> complex | None:
    """Evaluate a sympy expression to a complex number, or None when it is not a finite number."""
    try:
        if e.is_Rational and not subs:
            return complex(int(e.p) / int(e.q)) if abs(int(e.p)).bit_length() < 1000 else None
        v = e.evalf(EVAL_DIGITS, subs=subs, maxn=200) if subs else e.evalf(EVAL_DIGITS, maxn=200)
        if not v.is_number:
            return None
        c = complex(v)
    except (TypeError, ValueError, ArithmeticError, AttributeError, RecursionError):
        return None
    if not (cmath.isfinite(c)):
        return None
    return c


def close(a: complex | None, b: complex | None, tol: float) -> bool:
    if a is None or b is None:
        return False
    scale = max(abs(a), abs(b))
    if scale == 0:
        return True
    return abs(a - b) <= tol * scale or abs(a - b) < 1e-300


def rounds_equal(a: complex | None, b: complex | None, places: int, ra: Any = None, rb: Any = None) -> bool:
    """Whether ``a`` and ``b`` round to the same value at ``places`` decimal places (real and imaginary
    parts; ``ra``/``rb``: the exact sympy Rationals, rounded exactly when given).

    >>> rounds_equal(2 / 3, 0.67, 2), rounds_equal(2 / 3, 0.67, 4)
    (True, False)
    """
    if ra is not None and rb is not None:
        fa, fb = Fraction(int(ra.p), int(ra.q)), Fraction(int(rb.p), int(rb.q))
        return round(fa, places) == round(fb, places)
    if a is None or b is None:
        return False
    return round(a.real, places) == round(b.real, places) and round(a.imag, places) == round(b.imag, places)


def rational_close(a: Any, b: Any, tol: float, abs_tol: float = 0.0) -> bool:
    """Exact relative comparison of two sympy Rationals (no float overflow for huge values); with
    ``abs_tol``, also equal when they differ by at most that much."""
    fa, fb = Fraction(int(a.p), int(a.q)), Fraction(int(b.p), int(b.q))
    if abs_tol and abs(fa - fb) <= Fraction(abs_tol) * Fraction(1_000_000_001, 1_000_000_000):
        return True
    scale = max(abs(fa), abs(fb))
    return scale == 0 or abs(fa - fb) <= Fraction(tol) * scale * Fraction(1_000_000_001, 1_000_000_000)


def small_enough(e: Any, quick: bool = False) -> bool:
    """Whether numeric evaluation of ``e`` is cheap enough (``quick``: for the bounded in-process check)."""
    try:
        if quick and _depth(e) > _MAX_DEPTH_QUICK:
            return False
        return e.count_ops(visual=False) <= (_MAX_OPS_QUICK if quick else _MAX_OPS_NUMERIC)
    except (TypeError, ValueError, RecursionError):
        return False


def _depth(e: Any) -> int:
    if not e.args:
        return 0
    return 1 + max(_depth(a) for a in e.args)


def random_points(symbols: list[Any], n: int, seed: int = 20240607) -> list[dict[Any, Any]]:
    """``n`` deterministic points with values of both signs, away from 0 and +-1."""
    values = _point_values(len(symbols), n, seed)
    return [dict(zip(symbols, row)) for row in values]


_SIGNS = ((1, -1, 1, -1), (1, 1, -1, -1), (1, -1, -1, 1))  # rows of a Hadamard matrix, all-plus row left out


@lru_cache(maxsize=64)
def _point_values(k: int, n: int, seed: int) -> tuple[tuple[Any, ...], ...]:
    """Random magnitudes in [0.3, 2.7] away from 1; signs such that every variable, and every product of
    two variables, is negative at some of the first four points (|x| and x, |xy| and -xy differ there)."""
    import sympy

    rng = random.Random(seed + k)
    rows = []
    for j in range(n):
        row = []
        for i in range(k):
            mag = rng.uniform(0.3, 2.7)
            while abs(mag - 1) < 0.05:
                mag = rng.uniform(0.3, 2.7)
            sign = _SIGNS[i % 3][j % 4]
            row.append(sympy.Rational(round(sign * mag * 10**6), 10**6))
        rows.append(tuple(row))
    return tuple(rows)


@lru_cache(maxsize=1)
def warm_up() -> None:
    """Load sympy's lazily imported evaluation paths once, outside any time budget."""
    import sympy

    x = sympy.Symbol("x")
    to_complex(sympy.sqrt(x) + sympy.sin(x) + sympy.log(x) + sympy.exp(x), {x: sympy.Rational(1, 2)})
    to_complex(sympy.sqrt(2) + sympy.pi)
    sympy.Union(sympy.Interval(0, 1), sympy.Interval(2, 3))
    sympy.expand((sympy.sqrt(2) + sympy.sqrt(3)) ** 2 - 5 - 2 * sympy.sqrt(6))  # certified.py's exact zeros
    from .certified import certified_equal

    certified_equal(sympy.sqrt(8), 2 * sympy.sqrt(2))
