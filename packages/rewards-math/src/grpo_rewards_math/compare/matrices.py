"""Matrices (and column/row vectors written as tuples) compared element by element."""

from __future__ import annotations

from typing import Any

from ..answer import Answer
from .numbers import Numbers, Tri, all_of


def matrices(g: Answer, p: Answer, num: Numbers) -> Tri:
    def flat(a: Answer) -> tuple[tuple[int, int], list[Any]] | None:
        if a.kind == "matrix":
            return (len(a.value), len(a.value[0])), [e for row in a.value for e in row]
        if a.kind == "tuple":
            return (len(a.value), 1), list(a.value)
        return None

    fg, fp = flat(g), flat(p)
    if fg is None or fp is None:
        return False
    (gr, gc), (pr, pc) = fg[0], fp[0]
    vector = min(gr, gc) == 1 and min(pr, pc) == 1
    if not ((gr, gc) == (pr, pc) or (vector and len(fg[1]) == len(fp[1]))):
        return False
    approx = g.approx or p.approx
    return all_of([num.exprs(a, b, approx, g.huge or p.huge) for a, b in zip(fg[1], fp[1])])
