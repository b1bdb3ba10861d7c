"""Structural comparison of two parsed answers, in two modes.

``Comparer(symbolic=False)`` does only bounded work (exact rationals, numeric evaluation of small
constant expressions, structure) and answers True/False/None (None: needs symbolic work).
``Comparer(symbolic=True)`` also expands, evaluates at random points and simplifies; it always decides.
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from typing import Any

from .answer import Answer
from .budget import BudgetExceeded, check_budget
from .certified import certified_equal
from .numeric import EXACT_TOL, close, random_points, rational_close, rounds_equal, small_enough, to_complex
from .parse import normalize_text

Tri = bool | None
_UNORDERED = ("set", "multi")
_ORDERED = ("tuple",)


def _all(results: list[Tri]) -> Tri:
    if any(r is False for r in results):
        return False
    if any(r is None for r in results):
        return None
    return True


def _any(results: list[Tri]) -> Tri:
    if any(r is True for r in results):
        return True
    if any(r is None for r in results):
        return None
    return False


class Comparer:
    """Compares a gold answer (always the first argument) with a prediction.

    Numbers: with ``precision`` (decimal places), a side written as a decimal equals the other when
    both round to the same value at that many places; without it, decimals are within ``rel_tol``,
    except against an integer gold, which is matched exactly (``1234568.0`` is not ``1234567``).
    """

    def __init__(self, rel_tol: float, symbolic: bool, precision: int | None = None) -> None:
        import sympy

        self.sp = sympy
        self.rel_tol = rel_tol
        self.symbolic = symbolic
        self.precision = precision

    # -- answers --------------------------------------------------------------------------------
    def answers(self, g: Answer, p: Answer) -> Tri:
        check_budget()
        if g.alt is not None or p.alt is not None:
            return _any([self.answers(gv, pv) for gv in (g, g.alt) if gv is not None
                         for pv in (p, p.alt) if pv is not None and (gv, pv) != (g, p)]
                        + [self.answers(replace(g, alt=None), replace(p, alt=None))])
        if g.kind == "text" or p.kind == "text":
            if g.kind == p.kind and g.value == p.value:
                return True
            return bool(g.text) and _text_key(g.text) == _text_key(p.text)
        return _any([self.plain(gv, pv) for gv in self.variants(g) for pv in self.variants(p)])

    def variants(self, a: Answer) -> list[Answer]:
        """The answer as written, plus 50% -> 1/2 and 30 degrees -> pi/6 readings."""
        out = [a] if a.alt is None else [a, a.alt]
        if a.kind == "expr" and not a.huge:
            sp = self.sp
            if a.percent:
                out.append(replace(a, value=a.value / 100))
            if a.degree:
                out.append(replace(a, value=a.value * sp.pi / 180))
        return out

    def reduce(self, a: Answer, last_side: bool = False) -> Answer:
        """``x = 3`` -> ``3`` (an equation solved for a lone symbol or a label such as ``PQ``, ``|XY|``,
        ``m:n``, ``\\frac{XY}{YZ}``); multi element-wise. ``last_side``: any equation (chain) is its
        last side (``\\sqrt{4} = 2`` -> ``2``), as a prediction compared with a gold that is no equation."""
        if a.kind == "equation":
            lhs, rhs = a.value
            if (lhs.is_Symbol or _is_label(lhs)) and not (lhs.free_symbols & rhs.free_symbols):
                return replace(a, kind="expr", value=rhs)
            if rhs.is_Symbol and rhs not in lhs.free_symbols:
                return replace(a, kind="expr", value=lhs)
            if last_side:
                return replace(a, kind="expr", value=rhs)
        if a.kind == "multi":
            return replace(a, value=tuple(self.reduce(x, last_side) for x in a.value))
        return a

    def plain(self, g: Answer, p: Answer) -> Tri:
        if g.kind == "equation" and p.kind == "equation":
            return self.equations(g, p)
        g = self.reduce(g)
        p = self.reduce(p, last_side=not _has_equation(g))
        if g.kind == "relation" or p.kind == "relation":
            return self.relations(g, p)
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
            return self.unordered(self.elements(g), self.elements(p))
        if "interval" in (gk, pk) and "multi" in (gk, pk):
            gi, pi = self.as_interval(g), self.as_interval(p)
            if gi is not None and pi is not None:
                return self.intervals(gi, pi, g.approx or p.approx, g.huge or p.huge)
        if gk in _UNORDERED and pk == "tuple":  # a set of solutions written in parentheses
            return self.unordered(self.elements(g), self.elements(p))
        if {gk, pk} <= {"tuple", "multi"}:
            return self.ordered(self.elements(g), self.elements(p))
        if gk == "interval" or pk == "interval":
            gi, pi = self.as_interval(g), self.as_interval(p)
            if gi is None or pi is None:
                return False
            return self.intervals(gi, pi, g.approx or p.approx, g.huge or p.huge)
        if gk == "matrix" or pk == "matrix":
            return self.matrices(g, p)
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
        return replace(a, kind="set", value=roots)

    def elements(self, a: Answer) -> list[Answer]:
        if a.kind == "multi":
            return list(a.value)
        if a.kind == "expr":
            return [a]
        return [replace(a, kind="expr", value=e) for e in a.value]

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

    def ordered(self, gs: list[Answer], ps: list[Answer]) -> Tri:
        if len(gs) != len(ps):
            return False
        return _all([self.answers(a, b) for a, b in zip(gs, ps)])

    # -- intervals and relations ----------------------------------------------------------------
    def as_interval(self, a: Answer) -> tuple[Any, ...] | None:
        if a.kind == "interval":
            return a.value
        if a.kind == "tuple" and len(a.value) == 2:
            return ((a.value[0], a.value[1], True, True),)
        if a.kind == "relation":
            return self.relation_interval(a)
        if a.kind == "multi":  # x < 1 or x > 2 -> a union
            parts = [self.as_interval(x) for x in a.value]
            if any(x.kind != "tuple" for x in a.value):
                pieces: list[Any] = []
                for pc in parts:
                    if pc is None:
                        return None
                    pieces.extend(pc)
                return tuple(pieces)
        return None

    def relation_interval(self, a: Answer) -> tuple[Any, ...] | None:
        """A chain of inequalities about one quantity as interval pieces: ``1 < x <= 3``, ``0 < g(x) < 2``
        (a label-like middle), ``1 \\le |t| \\le 2`` (two mirrored pieces)."""
        sp = self.sp
        terms, ops = a.value
        syms = [t for t in terms if not t.is_number]
        if len(syms) != 1 or "!=" in ops or not (syms[0].is_Symbol or _is_label(syms[0])):
            return None
        x = syms[0]
        lo, hi, lo_open, hi_open = -sp.oo, sp.oo, True, True
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
        if type(x).__name__ == "Abs" and lo.is_number and (lo.is_nonnegative or lo == -sp.oo):
            if lo == -sp.oo or (lo == 0 and not lo_open):
                return ((-hi, hi, hi_open, hi_open),)
            return ((-hi, -lo, hi_open, lo_open), (lo, hi, lo_open, hi_open))
        return ((lo, hi, lo_open, hi_open),)

    def relations(self, g: Answer, p: Answer) -> Tri:
        gi, pi = self.as_interval(g), self.as_interval(p)
        if gi is not None and pi is not None:
            return self.intervals(gi, pi, g.approx or p.approx, g.huge or p.huge)
        if g.kind != "relation" or p.kind != "relation":
            return False
        if g.huge or p.huge:
            return g.value == p.value
        (gt, gops), (pt, pops) = g.value, p.value
        if len(gt) != 2 or len(pt) != 2:
            return gt == pt and gops == pops
        flip = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "!=": "!="}
        gd, gop = gt[0] - gt[1], gops[0]
        pd, pop = pt[0] - pt[1], pops[0]
        if gop in (">", ">="):
            gd, gop = -gd, flip[gop]
        if pop in (">", ">="):
            pd, pop = -pd, flip[pop]
        if gop != pop:
            return False
        return self.proportional(gd, pd, positive=gop != "!=")

    def intervals(self, gi: tuple[Any, ...], pi: tuple[Any, ...], approx: bool, huge: bool) -> Tri:
        if huge:
            return gi == pi
        gm, pm = self.merge(gi), self.merge(pi)
        if len(gm) != len(pm):
            return False
        results: list[Tri] = []
        for (a, b, ao, bo), (c, d, co, do) in zip(gm, pm):
            if (ao, bo) != (co, do):
                return False
            results += [self.exprs(a, c, approx, False), self.exprs(b, d, approx, False)]
        return _all(results)

    def merge(self, pieces: tuple[Any, ...]) -> list[tuple[Any, Any, bool, bool]]:
        """Canonical union of interval pieces (sorted, overlapping ones merged) when ends are real numbers."""
        sp = self.sp
        check_budget()
        if not all(e.is_number and (e.is_real or e in (sp.oo, -sp.oo)) for pc in pieces for e in pc[:2]):
            return list(pieces)
        if len(pieces) > 16 and not self.symbolic:
            raise BudgetExceeded
        try:
            sets = [sp.FiniteSet(a) if a == b and not (ao or bo) else sp.Interval(a, b, ao, bo)
                    for a, b, ao, bo in pieces]
            u = sp.Union(*sets)
        except (TypeError, ValueError):
            return list(pieces)
        parts = u.args if isinstance(u, sp.Union) else (u,)
        out = []
        for s in parts:
            if isinstance(s, sp.Interval):
                out.append((s.start, s.end, bool(s.left_open), bool(s.right_open)))
            elif isinstance(s, sp.FiniteSet):
                out.extend((e, e, False, False) for e in s.args)
            else:
                return list(pieces)
        return sorted(out, key=_lower_end)

    # -- matrices and equations -----------------------------------------------------------------
    def matrices(self, g: Answer, p: Answer) -> Tri:
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
        return _all([self.exprs(a, b, approx, g.huge or p.huge) for a, b in zip(fg[1], fp[1])])

    def equations(self, g: Answer, p: Answer) -> Tri:
        (gl, gr), (pl, pr) = g.value, p.value
        if (gl, gr) == (pl, pr) or (gl, gr) == (pr, pl):
            return True
        if g.huge or p.huge:
            return False
        if gl.is_Symbol and pl.is_Symbol and gl not in gr.free_symbols | pr.free_symbols and (
                pl not in gr.free_symbols | pr.free_symbols):  # y = 3x - 1 and g(x) = 3x - 1: the same right side
            return self.exprs(gr, pr, g.approx or p.approx, False)
        if _solved_value(g) and not _solved_value(p):  # gold x = -2: the prediction must give the value
            return False
        return self.proportional(gl - gr, pl - pr, positive=False)

    def proportional(self, a: Any, b: Any, *, positive: bool) -> Tri:
        """Whether a = c * b for a constant c != 0 (c > 0 when ``positive``): same equation / inequality."""
        if a == b:
            return True
        quick = not self.symbolic
        syms = sorted(a.free_symbols | b.free_symbols, key=str)
        if not syms or not (small_enough(a, quick) and small_enough(b, quick)):
            return None if quick else False
        ratios = []
        for pt in random_points(syms, 4):
            check_budget()
            va, vb = to_complex(a, pt), to_complex(b, pt)
            if va is None or vb is None or vb == 0:
                continue
            ratios.append(va / vb)
        if len(ratios) < 3 or ratios[0] == 0:
            return None if quick else False
        if positive and not (abs(ratios[0].imag) < 1e-12 and ratios[0].real > 0):
            return False
        return all(close(r, ratios[0], 1e-9) for r in ratios[1:])

    # -- expressions ----------------------------------------------------------------------------
    def exprs(self, a: Any, b: Any, approx: bool, huge: bool) -> Tri:
        if a == b:
            return True
        if huge:
            return _power_product(a) == _power_product(b) is not None
        sp = self.sp
        tol = self.rel_tol if approx and not (a.is_Integer and self.precision is None) else EXACT_TOL
        if a.is_number and b.is_number:
            if a.is_Rational and b.is_Rational:
                if approx and self.precision is not None:
                    return rounds_equal(to_complex(a), to_complex(b), self.precision, a, b)
                return a == b if tol == EXACT_TOL else rational_close(a, b, tol)
            if a.has(sp.oo, -sp.oo, sp.zoo, sp.nan) or b.has(sp.oo, -sp.oo, sp.zoo, sp.nan):
                return False
            if tol == EXACT_TOL and not (approx and self.precision is not None):
                exact = certified_equal(a, b)  # interval arithmetic: never a rounding artefact
                if exact is not None:
                    return exact
            quick = not self.symbolic
            if small_enough(a, quick) and small_enough(b, quick):
                check_budget()
                va, vb = to_complex(a), to_complex(b)
                if va is not None and vb is not None:
                    if approx and self.precision is not None:
                        return rounds_equal(va, vb, self.precision)
                    return close(va, vb, tol)
            return self.simplify_equal(a, b) if self.symbolic else None
        if not self.symbolic:
            if a.is_Symbol and b.is_Symbol:
                return False
            if small_enough(a, True) and small_enough(b, True):
                return self.numeric_identity(a, b, tol)
            return None
        return self.symbolic_exprs(a, b, tol)

    def symbolic_exprs(self, a: Any, b: Any, tol: float) -> bool:
        if not (small_enough(a) and small_enough(b)):
            return False
        if a - b == 0:
            return True
        r = self.numeric_identity(a, b, tol)
        if r is not None:
            return r
        return self.simplify_equal(a, b)

    def numeric_identity(self, a: Any, b: Any, tol: float) -> Tri:
        """Evaluate both at 4 points: False on a clear difference, True when all (at least 3) agree."""
        syms = sorted(a.free_symbols | b.free_symbols, key=str)
        agreed = 0
        for pt in random_points(syms, 4):
            check_budget()
            va, vb = to_complex(a, pt), to_complex(b, pt)
            if va is None or vb is None:
                continue
            if not close(va, vb, tol):
                return False
            agreed += 1
        return True if agreed >= 3 else None

    def simplify_equal(self, a: Any, b: Any) -> bool:
        try:
            return bool(self.sp.simplify(a - b) == 0)
        except (TypeError, ValueError, ArithmeticError, RecursionError, AttributeError):
            return False


def _dedupe(items: list[Answer]) -> list[Answer]:
    out: list[Answer] = []
    for it in items:
        if not any(it.kind == o.kind and it.value == o.value for o in out):
            out.append(it)
    return out


def _lower_end(piece: tuple[Any, ...]) -> float:
    lo = piece[0]
    if lo.is_infinite:
        return float("-inf") if lo.is_negative else float("inf")
    try:
        return float(lo)
    except (OverflowError, TypeError):
        return float("-inf") if lo.is_negative else float("inf")


def _text_key(s: str) -> str:
    """Plain-text key: lower case, no surrounding parentheses (choice letters: (B) == b)."""
    return normalize_text(s).strip("() ")


def sympy_one() -> Any:
    import sympy

    return sympy.Integer(1)


def _power_product(e: Any) -> tuple[tuple[int, Any], ...] | None:
    """An unevaluated product of integer powers as sorted ``(base, total exponent)`` pairs, bases as
    their smallest roots (``10^{5000000} \\cdot 10^{5000000}`` and ``100^{5000000}`` give ``((10, 10^7),)``);
    None for anything else."""
    from sympy.ntheory import perfect_power

    factors = e.args if e.is_Mul else (e,)
    if len(factors) > 16:
        return None
    total: dict[int, Any] = {}
    for f in factors:
        base, exp = f.args if f.is_Pow else (f, sympy_one())
        if not (getattr(base, "is_Integer", False) and 1 < int(base) < 10**18 and exp.is_Integer):
            return None
        root, k = perfect_power(int(base)) or (int(base), 1)
        total[root] = total.get(root, 0) + exp * k
    return tuple(sorted(total.items()))


def _has_equation(a: Answer) -> bool:
    return a.kind == "equation" or (a.kind == "multi" and any(x.kind == "equation" for x in a.value))


def _is_label(e: Any) -> bool:
    """A name for a quantity rather than a computation: symbols only, multiplied, divided, under |…|
    (``PQ``, ``|XY|``, ``m/n``, ``V_1/V_2``); no number, no sum."""
    if e.is_Symbol:
        return True
    if e.is_Number:
        return False
    if e.is_Pow:
        return e.exp == -1 and _is_label(e.base)
    if e.is_Mul or type(e).__name__ == "Abs":
        return all(_is_label(x) for x in e.args)
    return False


def _solved_value(a: Answer) -> bool:
    """``x = 3`` or ``3 = x``: an equation that states a value."""
    lhs, rhs = a.value
    return (lhs.is_Symbol and rhs.is_number) or (rhs.is_Symbol and lhs.is_number)
