r"""How answers of each structure compare, whatever compares their elements: written once for both comparers.

The bounded comparer (:mod:`.bounded`, light trees, in the calling process) and the symbolic one
(:mod:`.compare`, sympy, in a worker) differ in how they compare two numbers or expressions; the
structure around them is the same and lives here: the three-valued ``and``/``or`` (``None``:
undecided), alternatives (``alt``), an equation solved for a name, text answers, collections in order, matrices and vectors element
by element, what reads as interval pieces, an inequality chain about one quantity read as an interval, unions of interval pieces
end by end. Each function takes the comparer's own element comparison as a callable.

>>> all_of([True, None]), all_of([True, None, False]), any_of([False, None]), any_of([None, True])
(None, False, None, True)
>>> choice_key("(B)"), choice_key("b")
('b', 'b')
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

from .answer import Answer
from .parse import normalize_text

__all__ = ["Tri", "all_of", "alternatives", "any_of", "as_interval", "chain_interval", "choice_key", "elements", "has_equation",
           "matrices", "ordered", "pieces_equal", "reduced", "texts"]

#: True, False, or None (undecided: the symbolic comparer's, or past the bounds)
Tri = bool | None
#: an interval piece: (lower end, upper end, lower open, upper open)
Piece = tuple[Any, Any, bool, bool]


def all_of(results: Sequence[Tri]) -> Tri:
    """False if one is False, else None if one is undecided, else True."""
    if any(r is False for r in results):
        return False
    if any(r is None for r in results):
        return None
    return True


def any_of(results: Sequence[Tri]) -> Tri:
    """True if one is True, else None if one is undecided, else False."""
    if any(r is True for r in results):
        return True
    if any(r is None for r in results):
        return None
    return False


def alternatives(g: Answer, p: Answer, answers: Callable[[Answer, Answer], Tri]) -> Tri:
    """Answers of which one side has another reading (``alt``): equal when any pairing of the readings is."""
    return any_of([answers(gv, pv) for gv in (g, g.alt) if gv is not None
                   for pv in (p, p.alt) if pv is not None and (gv, pv) != (g, p)]
                  + [answers(g.replace(alt=None), p.replace(alt=None))])


def choice_key(s: str) -> str:
    """A text answer's key: lower case, no surrounding parentheses (choice letters: ``(B)`` is ``b``)."""
    return normalize_text(s).strip("() ")


def texts(g: Answer, p: Answer) -> bool:
    """Two answers of which one is text: the same text, or the same choice key."""
    if g.kind == p.kind and g.value == p.value:
        return True
    return bool(g.text) and choice_key(g.text) == choice_key(p.text)


def elements(a: Answer) -> list[Answer]:
    """A collection's elements as answers (an expression: itself)."""
    if a.kind == "multi":
        return list(a.value)
    if a.kind == "expr":
        return [a]
    return [a.replace(kind="expr", value=e) for e in a.value]


def has_equation(a: Answer) -> bool:
    """An equation, or several answers of which one is."""
    return a.kind == "equation" or (a.kind == "multi" and any(x.kind == "equation" for x in a.value))


def reduced(a: Answer, last_side: bool, is_symbol: Callable[[Any], bool], is_name: Callable[[Any], bool],
            symbols: Callable[[Any], Any]) -> Answer:
    """``x = 3`` as ``3``: an equation solved for a lone symbol or a name (``is_name``: a label such as
    ``PQ``), several answers each; ``last_side``: any equation (chain) is its last side (``\\sqrt{4} = 2``
    as ``2``), for a prediction compared with a gold that is no equation. ``symbols(e)``: the symbols in ``e``."""
    if a.kind == "equation":
        lhs, rhs = a.value
        if is_name(lhs) and not (symbols(lhs) & symbols(rhs)):
            return a.replace(kind="expr", value=rhs)
        if is_symbol(rhs) and rhs not in symbols(lhs):
            return a.replace(kind="expr", value=lhs)
        if last_side:
            return a.replace(kind="expr", value=rhs)
    if a.kind == "multi":
        return a.replace(value=tuple(reduced(x, last_side, is_symbol, is_name, symbols) for x in a.value))
    return a


def ordered(gs: Sequence[Answer], ps: Sequence[Answer], answers: Callable[[Answer, Answer], Tri]) -> Tri:
    """Tuples: as many elements, each equal to the one in its place."""
    if len(gs) != len(ps):
        return False
    return all_of([answers(a, b) for a, b in zip(gs, ps)])


def matrices(g: Answer, p: Answer, same: Callable[[Any, Any], Tri]) -> Tri:
    """Matrices (and column or row vectors written as tuples) of one shape, element by element."""
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
    return all_of([same(a, b) for a, b in zip(fg[1], fp[1])])


def as_interval(a: Answer, relation: Callable[[Answer], tuple[Piece, ...] | None]) -> tuple[Piece, ...] | None:
    """An answer as interval pieces: an interval, a pair ``(a, b)`` (open), a relation (``relation(a)``,
    the comparer's reading of an inequality chain), several of those (``x < 1 or x > 2``: a union);
    None for anything else."""
    if a.kind == "interval":
        return a.value
    if a.kind == "tuple" and len(a.value) == 2:
        return ((a.value[0], a.value[1], True, True),)
    if a.kind == "relation":
        return relation(a)
    if a.kind == "multi" and any(x.kind != "tuple" for x in a.value):
        pieces: list[Piece] = []
        for x in a.value:
            part = as_interval(x, relation)
            if part is None:
                return None
            pieces.extend(part)
        return tuple(pieces)
    return None


def chain_interval(terms: Sequence[Any], ops: Sequence[str], x: Any, below: Any, above: Any) -> Piece | None:
    """An inequality chain about ``x`` (``1 < x <= 3``, ``5 >= x``) as one piece, its missing ends
    ``below``/``above`` (the comparer's infinities), open; None when a link does not involve ``x``."""
    lo, hi, lo_open, hi_open = below, above, True, True
    for (left, right), op in zip(itertools.pairwise(terms), ops):
        strict = op in ("<", ">")
        if op in (">", ">="):
            left, right = right, left
        if left == x:
            hi, hi_open = right, strict
        elif right == x:
            lo, lo_open = left, strict
        else:
            return None
    return lo, hi, lo_open, hi_open


def pieces_equal(gm: Sequence[Piece], pm: Sequence[Piece], end: Callable[[Any, Any], Tri]) -> Tri:
    """Two unions of pieces, each in its merged, sorted form: as many pieces, the same open ends,
    each end equal by ``end``."""
    if len(gm) != len(pm):
        return False
    results: list[Tri] = []
    for (a, b, ao, bo), (c, d, co, do) in zip(gm, pm):
        if (ao, bo) != (co, do):
            return False
        results += [end(a, c), end(b, d)]
    return all_of(results)
