"""Structural comparison of two parsed answers, in two modes.

``Comparer(symbolic=False)`` does only bounded work (exact rationals, numeric evaluation of small
constant expressions, structure) and answers True/False/None (None: needs symbolic work).
``Comparer(symbolic=True)`` also expands, evaluates at random points and simplifies; it decides every
answer within the size bounds, and past them (a tower kept unevaluated, an expression too large to evaluate)
only what structure shows (:func:`.numbers.huge_equal`): the rest is None, undecided, never a difference.
"""

from __future__ import annotations

from typing import Any

from ..answer import Answer
from ..budget import check_budget
from ..conventions import Conventions
from ..numeric import small_enough
from ..structure import Tri, alternatives, any_of, elements, has_equation, matrices, ordered, reduced, texts
from .intervals import Intervals, is_label
from .numbers import Numbers

__all__ = ["Comparer", "Tri"]

_UNORDERED = ("set", "multi")


class Comparer:
    """Compares a gold answer (always the first argument) with a prediction.

    Numbers: with ``precision`` (decimal places), a side written as a decimal equals the other when
    both round to the same value at that many places; without it, decimals are within ``rel_tol``,
    except against an integer gold, which is matched exactly (``1234568.0`` is not ``1234567``).
    """

    def __init__(self, conventions: Conventions, symbolic: bool) -> None:
        self.conventions = conventions
        self.num = Numbers(conventions, symbolic)
        self.sets = Intervals(self.num)
        self.sp = self.num.sp
        self.symbolic = symbolic
        self.exprs = self.num.exprs
        self.as_interval = self.sets.as_interval

    def answers(self, g: Answer, p: Answer) -> Tri:
        check_budget()
        if self.conventions.trailing_units == "match" and g.units != p.units:
            return False  # 12 cm against the bare 12 (or the other way round), when units must match
        if g.alt is not None or p.alt is not None:
            return alternatives(g, p, self.answers)
        if g.kind == "text" or p.kind == "text":
            return texts(g, p)
        return any_of([self.plain(gv, pv) for gv in self.variants(g) for pv in self.variants(p)])

    def variants(self, a: Answer) -> list[Answer]:
        """The answer as written, plus 50% -> 1/2 and 30 degrees -> pi/6 readings."""
        out = [a] if a.alt is None else [a, a.alt]
        if a.kind == "expr" and not a.huge:
            sp = self.sp
            if a.percent:
                out.append(a.replace(value=a.value / 100))
            if a.degree:
                out.append(a.replace(value=a.value * sp.pi / 180))
        return out

    def reduce(self, a: Answer, last_side: bool = False) -> Answer:
        """``x = 3`` -> ``3`` (an equation solved for a lone symbol or a label such as ``PQ``, ``|XY|``,
        ``m:n``, ``\\frac{XY}{YZ}``); multi element-wise. ``last_side``: any equation (chain) is its
        last side (``\\sqrt{4} = 2`` -> ``2``), as a prediction compared with a gold that is no equation."""
        return reduced(a, last_side, _is_symbol, _is_name, _symbols)

    def plain(self, g: Answer, p: Answer) -> Tri:
        if g.kind == "equation" and p.kind == "equation":
            return self.sets.equations(g, p)
        g = self.reduce(g)
        p = self.reduce(p, last_side=not has_equation(g))
        if g.kind == "relation" or p.kind == "relation":
            return self.sets.relations(g, p)
        if (g.kind == "equation") != (p.kind == "equation") and {g.kind, p.kind} <= {"equation", "expr", "set", "multi"}:
            if p.kind == "equation":
                return False
            roots = self.solved(g)  # gold x^2 = 4 against "2, -2": by its solutions
            if roots is None:
                return None if not self.symbolic else False
            g = roots
        gk, pk = g.kind, p.kind
        if gk == "expr" and pk == "expr":
            return self.exprs(g.value, p.value, g.approx or p.approx, g.huge or p.huge)
        if {gk, pk} <= {"expr", "set", "multi"}:  # 3 vs {3} vs "3, 3": collections of one
            return self.unordered(elements(g), elements(p))
        if "interval" in (gk, pk) and "multi" in (gk, pk):
            gi, pi = self.as_interval(g), self.as_interval(p)
            if gi is not None and pi is not None:
                return self.sets.intervals(gi, pi, g.approx or p.approx, g.huge or p.huge)
        if gk in _UNORDERED and pk == "tuple":  # a set of solutions written in parentheses
            return self.unordered(elements(g), elements(p))
        if {gk, pk} <= {"tuple", "multi"}:
            return ordered(elements(g), elements(p), self.answers)
        if gk == "interval" or pk == "interval":
            gi, pi = self.as_interval(g), self.as_interval(p)
            if gi is None or pi is None:
                return False
            return self.sets.intervals(gi, pi, g.approx or p.approx, g.huge or p.huge)
        if gk == "matrix" or pk == "matrix":
            approx, huge = g.approx or p.approx, g.huge or p.huge
            return matrices(g, p, lambda a, b: self.num.exprs(a, b, approx, huge))
        return False  # different kinds: an equation against a tuple, a set against an interval, ...

    def solved(self, a: Answer) -> Answer | None:
        """A one-variable polynomial equation (degree <= 4) as the set of its roots (symbolic mode only)."""
        if a.kind != "equation":
            return a
        if not self.symbolic or a.huge:
            return None
        sp = self.sp
        lhs, rhs = a.value
        syms = (lhs - rhs).free_symbols
        if len(syms) != 1 or not (small_enough(lhs) and small_enough(rhs)):
            return None
        try:
            poly = sp.Poly(lhs - rhs, *syms)
            if not 1 <= poly.degree() <= 4:
                return None
            roots = tuple(sp.roots(poly, multiple=True))
        except (sp.PolynomialError, TypeError, ValueError, ArithmeticError):
            return None
        if len(roots) != poly.degree():
            return None
        return a.replace(kind="set", value=roots)

    def unordered(self, gs: list[Answer], ps: list[Answer]) -> Tri:
        gs, ps = _dedupe(gs), _dedupe(ps)
        if len(gs) != len(ps):
            return False
        if len(gs) > 64:
            return sorted(map(repr, gs)) == sorted(map(repr, ps)) or (None if not self.symbolic else False)
        used: set[int] = set()
        undecided = False
        for ga in gs:
            found = False
            for j, pa in enumerate(ps):
                if j in used:
                    continue
                r = self.answers(ga, pa)
                if r is True:
                    used.add(j)
                    found = True
                    break
                if r is None:
                    undecided = True
            if not found:
                return None if undecided else False
        return True


def _dedupe(items: list[Answer]) -> list[Answer]:
    out: list[Answer] = []
    for it in items:
        if not any(it.kind == o.kind and it.value == o.value for o in out):
            out.append(it)
    return out


def _is_symbol(e: Any) -> bool:
    return bool(e.is_Symbol)


def _is_name(e: Any) -> bool:
    return bool(e.is_Symbol or is_label(e))


def _symbols(e: Any) -> Any:
    return e.free_symbols
