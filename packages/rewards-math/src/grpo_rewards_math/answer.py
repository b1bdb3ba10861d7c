"""The parsed form of one answer: an immutable ``Answer`` (kind + sympy objects + flags).

Kinds and their ``value``:

- ``expr``: one sympy expression;
- ``set`` / ``tuple``: a tuple of sympy expressions (sets unordered, tuples ordered);
- ``interval``: a tuple of pieces ``(lo, hi, lo_open, hi_open)`` (a union when more than one);
- ``equation``: ``(lhs, rhs)``;
- ``relation``: ``(terms, ops)`` for a chain such as ``1 < x <= 3`` (ops in ``< <= > >= !=``);
- ``matrix``: a tuple of rows, each a tuple of sympy expressions;
- ``multi``: a tuple of ``Answer`` (several answers: ``2, 3``, ``2 or 3``, ``1 \\pm \\sqrt 2``);
- ``text``: a normalised string (``yes``, ``b`` for a multiple-choice letter).

>>> Answer("text", "yes").kind
'text'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

KINDS = frozenset({"expr", "set", "interval", "tuple", "equation", "relation", "matrix", "text", "multi"})


@dataclass(frozen=True, init=False)
class Answer:
    kind: str
    value: Any
    text: str = ""  # the normalised source text
    approx: bool = False  # a decimal literal was written: numeric comparison uses the relative tolerance
    percent: bool = False  # written with a percent sign (value kept as written: 50% -> 50)
    degree: bool = False  # written with a degree sign (value kept as written: 30^\circ -> 30)
    huge: bool = False  # holds unevaluated towers/factorials: compared structurally only
    alt: Answer | None = None  # another reading of the same text (0,25: the decimal 0.25 and the list 0, 25)
    units: bool = False  # a unit word was read over after a quantity (12 cm); % and degree signs aside

    def __init__(self, kind: str, value: Any, text: str = "", approx: bool = False, percent: bool = False,
                 degree: bool = False, huge: bool = False, alt: Answer | None = None, units: bool = False) -> None:
        # frozen, but built without the nine ``object.__setattr__`` calls of a frozen dataclass's __init__
        # (the parser builds several answers per parse)
        if kind not in KINDS:
            raise ValueError(f"unknown answer kind {kind!r}")
        self.__dict__.update(kind=kind, value=value, text=text, approx=approx, percent=percent, degree=degree,
                             huge=huge, alt=alt, units=units)

    def replace(self, **changes: Any) -> Answer:
        """A copy with ``changes`` (``dataclasses.replace`` without its walk over the fields).

        >>> Answer("expr", 2, text="2").replace(text="two").text
        'two'
        """
        return Answer(**{**self.__dict__, **changes})  # __init__ checks the kind; an unknown field is a TypeError

    def exprs(self) -> tuple[Any, ...]:
        """Every sympy expression inside, flattened (for size checks and free symbols)."""
        v = self.value
        if self.kind == "expr":
            return (v,)
        if self.kind in ("set", "tuple"):
            return tuple(v)
        if self.kind == "interval":
            return tuple(e for piece in v for e in piece[:2])
        if self.kind == "equation":
            return tuple(v)
        if self.kind == "relation":
            return tuple(v[0])
        if self.kind == "matrix":
            return tuple(e for row in v for e in row)
        if self.kind == "multi":
            return tuple(e for a in v for e in a.exprs())
        return ()
