"""Arithmetic on literal matrices written as an answer (``A + B``, ``2A``, ``AB``), built element-wise."""

from __future__ import annotations

from typing import Any

from ..answer import Answer
from ..build import Builder
from ..latex_lexer import ParseError
from ..light import LightBuilder


def matrix_sum(b: Builder | LightBuilder, terms: list[Any]) -> Answer:
    """``A + B`` with literal matrices of one shape: the matrix of the sums."""
    if not all(isinstance(t, Answer) and t.kind == "matrix" for t in terms):
        raise ParseError("a matrix plus a scalar")
    shape = {(len(t.value), len(t.value[0])) for t in terms}
    if len(shape) != 1:
        raise ParseError("a sum of matrices of different shapes")
    rows = zip(*(t.value for t in terms))
    return Answer("matrix", tuple(tuple(b.add(list(cells)) for cells in zip(*row)) for row in rows))

def matrix_product(b: Builder | LightBuilder, factors: list[Any]) -> Answer:
    """Scalars and literal matrices multiplied in order (shapes must agree)."""
    scalar: Any = b.integer(1)
    out: tuple[tuple[Any, ...], ...] | None = None
    for f in factors:
        if not isinstance(f, Answer):
            scalar = b.mul([scalar, f])
            continue
        if f.kind != "matrix":
            raise ParseError(f"a product with a {f.kind}")
        if out is None:
            out = f.value
            continue
        if len(out[0]) != len(f.value):
            raise ParseError("a product of matrices of mismatched shapes")
        b.tick(len(out) * len(f.value[0]) * len(f.value))
        cols = list(zip(*f.value))
        out = tuple(tuple(b.add([b.mul([a, c]) for a, c in zip(row, col)]) for col in cols)
                    for row in out)
    assert out is not None
    return Answer("matrix", tuple(tuple(b.mul([scalar, e]) for e in row) for row in out))
