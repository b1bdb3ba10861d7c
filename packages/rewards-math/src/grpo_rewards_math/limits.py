"""Size guards applied before any evaluation of a parsed answer.

Every number the parser would evaluate exactly is checked against these limits first; what is
over a limit is either rejected (:class:`~grpo_rewards_math.parse.ParseError`) or kept as an
unevaluated sympy object that the equivalence checker only compares structurally.

>>> DEFAULT_LIMITS.max_depth
60
>>> Limits(max_chars=100).max_chars
100
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any


class CacheKey:
    """A frozen dataclass that keys remembered results: its hash is worked out once, at construction
    (a remembered parse or comparison hashes its key on every lookup), and again in a process that
    unpickles it (the hash of a ``str`` field differs between processes). A subclass's body says
    ``__hash__ = CacheKey.__hash__`` (``dataclass`` keeps only a hash the class body defines).
    """

    _hash: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "_hash", hash(self._fields()))

    def _fields(self) -> tuple[Any, ...]:
        return tuple(getattr(self, f.name) for f in fields(self))  # type: ignore[arg-type]

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return type(self), self._fields()


@dataclass(frozen=True)
class Limits(CacheKey):
    """Bounds on the work spent parsing and evaluating one answer string."""

    __hash__ = CacheKey.__hash__

    max_chars: int = 2000  # of one answer string handed to the parser
    max_depth: int = 60  # nesting depth of groups/braces/parentheses
    # plain arithmetic (numbers, + - * /, brackets) is read by an iterative, linear-time path instead,
    # up to this many characters and at any depth (max_chars, max_depth and max_nodes do not apply)
    max_plain_chars: int = 50_000
    max_digits: int = 400  # digits of one integer literal
    max_exponent: int = 10_000  # |exponent| evaluated exactly; larger towers stay symbolic
    max_factorial: int = 1000
    max_nodes: int = 5000
    # digits of one exactly evaluated power/factorial, and of all of them in one answer together
    max_result_digits: int = 20_000
    max_total_digits: int = 80_000


DEFAULT_LIMITS = Limits()
