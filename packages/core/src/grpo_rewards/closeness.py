"""Two numbers within a tolerance, as ``math.isclose`` says, and exactly where a float cannot hold one of them.

A reward comparing a model's number with a gold one meets integers of any size (JSON and Python read 4,000
digits), where ``float()`` and ``a - b`` raise ``OverflowError``, and infinities, where a tolerance relative to
an infinite value accepts anything. :func:`close` is the one comparison for both: an infinity or NaN equals
only itself (NaN nothing), and an integer past a float's range is compared through :class:`fractions.Fraction`.

>>> close(10**400, 10**400 + 1, rel_tol=1e-9), close(10**400, 1.5, rel_tol=1e-9), close(5.0, float("inf"), rel_tol=0.1)
(True, False, False)
>>> close(1.0000001, 1.0, rel_tol=1e-6), close(0.0, 1e-7, abs_tol=1e-6), close(3, 3.0)
(True, True, True)
"""

from __future__ import annotations

import math
from fractions import Fraction

__all__ = ["close"]


def close(a: int | float, b: int | float, *, rel_tol: float = 0.0, abs_tol: float = 0.0,
          relative_to_expected: bool = False) -> bool:
    """Whether ``|a - b| <= max(rel_tol * scale, abs_tol)``, the scale being the larger of ``|a|`` and ``|b|``
    (``math.isclose``'s rule) or, with ``relative_to_expected``, ``|b|`` alone (``b`` the expected number); equal
    numbers always are, a non-finite one only when equal. ``a`` and ``b`` are ints or floats (not bools: the
    caller decides what a bool is)."""
    try:
        x, y = float(a), float(b)
    except OverflowError:  # an integer past a float's range: the same rule, exactly
        if any(isinstance(v, float) and not math.isfinite(v) for v in (a, b)):
            return False
        exact_a, exact_b = Fraction(a), Fraction(b)
        difference = abs(exact_a - exact_b)
        exact_scale = abs(exact_b) if relative_to_expected else max(abs(exact_a), abs(exact_b))
        return difference <= Fraction(rel_tol) * exact_scale or difference <= Fraction(abs_tol)
    if x == y:
        return True
    if not (math.isfinite(x) and math.isfinite(y)):
        return False
    scale = abs(y) if relative_to_expected else max(abs(x), abs(y))
    return abs(x - y) <= max(rel_tol * scale, abs_tol)
