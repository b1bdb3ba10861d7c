"""Argument values compared after JSON normalisation, with the conventions as parameters.

Two values are equal when they are equal as JSON: an object's key order never matters, a tuple is
a list, an ``int`` equals a ``float`` of the same value, ``True`` is not ``1``. On top of that:

- ``tolerance``: two numbers within ``tolerance`` (relative, or absolute near zero) are equal;
- ``numeric_strings``: a string that reads as a number equals that number (``"5"`` and ``5``);
- ``strings``: ``exact``; ``whitespace`` (default: ends stripped, inner runs of whitespace read as
  one space); ``casefold`` (whitespace, and case ignored); ``loose`` (BFCL's rule: case ignored,
  spaces and ``, . / - _ * ^`` removed, ``'`` read as ``"``).

>>> rule = Comparison(tolerance=1e-6, numeric_strings=True, strings="casefold")
>>> rule.equal({"city": " Paris ", "days": "5"}, {"days": 5.0, "city": "paris"})
True
>>> Comparison(numeric_strings=False).equal("5", 5)
False
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from grpo_rewards.closeness import close

STRING_RULES = ("exact", "whitespace", "casefold", "loose")
_SCALARS = frozenset({str, int, float, bool})  # equal by ==, of one type (containers are not: [1] == [True])
_SPACES = re.compile(r"\s+")
_LOOSE = re.compile(r"[ ,./\-_*^]")
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def _number_in(text: str) -> float | None:
    stripped = text.strip()
    if len(stripped) > 64 or not _NUMBER.fullmatch(stripped):
        return None
    value = float(stripped)
    return value if math.isfinite(value) else None


@dataclass(frozen=True)
class DictPattern:
    """An object argument whose keys each accept several values, as BFCL's ground truth writes them
    (``{"min": [300000], "max": [400000, ""]}``: ``""`` lets the key be left out)."""

    accepted: Mapping[str, tuple[Any, ...]]
    optional: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Comparison:
    """How argument values are compared (the reward's parameters of the same names)."""

    tolerance: float = 1e-6
    numeric_strings: bool = True
    strings: str = "whitespace"

    def text(self, value: str) -> str:
        """A string as this rule compares it."""
        if self.strings == "exact":
            return value
        if self.strings == "loose":
            return _LOOSE.sub("", value).lower().replace("'", '"')
        value = _SPACES.sub(" ", value).strip()
        return value.casefold() if self.strings == "casefold" else value

    def numbers_equal(self, a: float, b: float) -> bool:
        """Whether two numbers are equal within ``tolerance``; an integer past a float's range (JSON numbers may
        have any number of digits: 4,000 raised OverflowError out of the reward) is compared exactly.

        >>> Comparison().numbers_equal(10**400, 10**400 + 1), Comparison().numbers_equal(10**400, 1.5)
        (True, False)
        """
        return close(a, b, rel_tol=self.tolerance, abs_tol=self.tolerance)

    def equal(self, a: Any, b: Any, depth: int = 0) -> bool:
        """Whether ``a`` and ``b`` are the same JSON value under this rule (nesting past 100 levels: not equal)."""
        if type(a) is type(b) and type(a) in _SCALARS and a == b:  # the common case, whatever the rule
            return True
        if depth > 100:
            return False
        if type(b) is DictPattern:
            return self.fits_pattern(a, b, depth)
        if isinstance(a, bool) or isinstance(b, bool):
            return isinstance(a, bool) and isinstance(b, bool) and a == b
        if isinstance(a, (int, float)) and isinstance(b, (int, float)):
            return self.numbers_equal(a, b)
        if isinstance(a, str) and isinstance(b, str):
            return a == b or self.text(a) == self.text(b)
        if self.numeric_strings and isinstance(a, str) != isinstance(b, str):
            text, number = (a, b) if isinstance(a, str) else (b, a)
            if isinstance(number, (int, float)):
                read = _number_in(text)
                return read is not None and self.numbers_equal(read, number)
            return False
        if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
            return len(a) == len(b) and all(self.equal(x, y, depth + 1) for x, y in zip(a, b))
        if isinstance(a, Mapping) and isinstance(b, Mapping):
            return a.keys() == b.keys() and all(self.equal(a[k], b[k], depth + 1) for k in a)
        if a is None or b is None:
            return a is None and b is None
        return False

    def fits_pattern(self, value: Any, pattern: DictPattern, depth: int = 0) -> bool:
        """Whether an object has only the pattern's keys, each with an accepted value, and every key it must have."""
        if not isinstance(value, Mapping):
            return False
        accepted = pattern.accepted
        for key, item in value.items():
            options = accepted.get(key)
            if options is None or not any(self.equal(item, option, depth + 1) for option in options):
                return False
        return all(key in value or key in pattern.optional for key in accepted)
