r"""The conventions graders disagree on, as one frozen value: each a parameter of ``math.accuracy``
with a documented default.

- ``rel_tol`` (1e-6): a number written with a decimal point equals the other within this relative
  tolerance (against an integer gold: exactly);
- ``abs_tol`` (0.0): ... or within this absolute difference (several graders compare within 1e-3
  or 1e-6); it applies where ``rel_tol`` does;
- ``precision`` (None): with a number of decimal places, a decimal equals the other when both
  round to the same value at that many places (``rel_tol`` and ``abs_tol`` then unused);
- ``log_base`` (None, natural): the base of a bare ``\log`` (10 or 2 as school curricula and
  some graders read it; ``\ln`` is always natural and ``\log_{b}`` always base b);
- ``trailing_units`` (``"ignore"``): a unit after a number (``12 cm``, ``-5.5°C``, ``30^\circ inches``)
  is read over, so it equals the bare gold ``12``; ``"match"``: an answer with a unit word
  against a gold without one (or the other way round) is wrong.

>>> Conventions(abs_tol=1e-3).within(1000.0004, 1000.0, approx=True)
True
>>> Conventions().within(1000.0004, 1000.0, approx=True)
True
>>> Conventions().within(1.0004, 1.0, approx=True), Conventions(abs_tol=1e-3).within(1.0004, 1.0, approx=True)
(False, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .limits import CacheKey

UNITS = ("ignore", "match")
LOG_BASES = ("e", "10", "2")

#: 1 + 1e-9: the slack every tolerance comparison allows for the rounding of a tolerance written in decimal
_SLACK = Fraction(1_000_000_001, 1_000_000_000)


@dataclass(frozen=True)
class Conventions(CacheKey):
    """How two answers are compared (see the module docstring for each field)."""

    __hash__ = CacheKey.__hash__

    rel_tol: float = 1e-6
    abs_tol: float = 0.0
    precision: int | None = None
    log_base: int | None = None
    trailing_units: str = "ignore"

    def within(self, a: Any, b: Any, *, approx: bool) -> bool:
        """Whether the numbers ``a`` and ``b`` (Fractions, ints or floats) are equal under the tolerances;
        ``approx``: a side was written with a decimal point (else exact)."""
        fa, fb = Fraction(a), Fraction(b)
        if fa == fb:
            return True
        if not approx:
            return False
        diff = abs(fa - fb)
        if self.abs_tol and diff <= Fraction(self.abs_tol) * _SLACK:
            return True
        return diff <= Fraction(self.rel_tol) * max(abs(fa), abs(fb)) * _SLACK


DEFAULT = Conventions()


def log_base_value(log_base: Any) -> int | None:
    """The reward's ``log_base`` parameter (``"e"``, ``10``, ``"10"``, ``2``) as the parser's base (None: e)."""
    text = str(log_base)
    if text not in LOG_BASES:
        raise ValueError(f"log_base must be one of e, 10, 2, not {log_base!r}")
    return None if text == "e" else int(text)
