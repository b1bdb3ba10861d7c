"""Sets, intervals and relations: interval pieces (unions merged), inequality chains as intervals
(``1 \\le |t| \\le 2`` as two pieces), inequalities and equations compared as proportional."""

from __future__ import annotations

from typing import Any

from ..answer import Answer
from ..budget import BudgetExceeded, check_budget
from ..numeric import small_enough
from ..structure import Tri, as_interval, chain_interval, pieces_equal
from .numbers import Numbers


class Intervals:
    def __init__(self, num: Numbers) -> None:
        self.num = num
        self.sp = num.sp

    def as_interval(self, a: Answer) -> tuple[Any, ...] | None:
        return as_interval(a, self.relation_interval)

    def relation_interval(self, a: Answer) -> tuple[Any, ...] | None:
        """A chain of inequalities about one quantity as interval pieces: ``1 < x <= 3``, ``0 < g(x) < 2``
        (a label-like middle), ``1 \\le |t| \\le 2`` (two mirrored pieces)."""
        sp = self.sp
        terms, ops = a.value
        syms = [t for t in terms if not t.is_number]
        if len(syms) == 1 and "!=" not in ops and not (syms[0].is_Symbol or is_label(syms[0])):
            terms, ops = self.solved_chain(terms, ops, syms[0])  # 1 < 2x <= 3 -> 1/2 < x <= 3/2
            syms = [t for t in terms if not t.is_number]
        if len(syms) != 1 or "!=" in ops or not (syms[0].is_Symbol or is_label(syms[0])):
            return None
        x = syms[0]
        piece = chain_interval(terms, ops, x, -sp.oo, sp.oo)
        if piece is None:
            return None
        lo, hi, lo_open, hi_open = piece
        if type(x).__name__ == "Abs" and lo.is_number and (lo.is_nonnegative or lo == -sp.oo):
            if lo == -sp.oo or (lo == 0 and not lo_open):
                return ((-hi, hi, hi_open, hi_open),)
            return ((-hi, -lo, hi_open, lo_open), (lo, hi, lo_open, hi_open))
        return ((lo, hi, lo_open, hi_open),)

    def solved_chain(self, terms: tuple[Any, ...], ops: tuple[str, ...], middle: Any) -> tuple[tuple[Any, ...], tuple[str, ...]]:
        """A chain about ``a·x + b`` (numbers ``a != 0`` and ``b``) as the same chain about ``x`` (the
        order flipped when ``a < 0``); unchanged when the middle is not linear in one symbol (symbolic
        mode only: in a worker, under its deadline)."""
        sp = self.sp
        if not self.num.symbolic or len(middle.free_symbols) != 1 or not small_enough(middle):
            return terms, ops
        (x,) = middle.free_symbols
        try:
            poly = sp.Poly(middle, x)
        except (sp.PolynomialError, TypeError, ValueError):
            return terms, ops
        if poly.degree() != 1:
            return terms, ops
        a, b = poly.all_coeffs()
        if not (a.is_number and b.is_number and a.is_real and a != 0):
            return terms, ops
        new_terms = tuple(x if t is middle else (t - b) / a for t in terms)
        if a.is_negative:
            flip = {"<": ">", ">": "<", "<=": ">=", ">=": "<="}
            ops = tuple(flip[o] for o in ops)
        return new_terms, ops

    def relations(self, g: Answer, p: Answer) -> Tri:
        gi, pi = self.as_interval(g), self.as_interval(p)
        if gi is not None and pi is not None:
            return self.intervals(gi, pi, g.approx or p.approx, g.huge or p.huge)
        if g.kind != "relation" or p.kind != "relation":
            return False
        if g.huge or p.huge:
            return True if g.value == p.value else None  # past the size bound: only sameness is decided
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
        return self.num.proportional(gd, pd, positive=gop != "!=")

    def intervals(self, gi: tuple[Any, ...], pi: tuple[Any, ...], approx: bool, huge: bool) -> Tri:
        if huge:
            return gi == pi
        return pieces_equal(self.merge(gi), self.merge(pi), lambda a, b: self.num.exprs(a, b, approx, False))

    def merge(self, pieces: tuple[Any, ...]) -> list[tuple[Any, Any, bool, bool]]:
        """Canonical union of interval pieces (sorted, overlapping ones merged) when ends are real numbers."""
        sp = self.sp
        check_budget()
        if not all(e.is_number and (e.is_real or e in (sp.oo, -sp.oo)) for pc in pieces for e in pc[:2]):
            return list(pieces)
        if len(pieces) > 16 and not self.num.symbolic:
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

    def equations(self, g: Answer, p: Answer) -> Tri:
        (gl, gr), (pl, pr) = g.value, p.value
        if (gl, gr) == (pl, pr) or (gl, gr) == (pr, pl):
            return True
        if g.huge or p.huge:
            return None  # past the size bound: undecided, never a difference
        if gl.is_Symbol and pl.is_Symbol and gl not in gr.free_symbols | pr.free_symbols and (
                pl not in gr.free_symbols | pr.free_symbols):  # y = 3x - 1 and g(x) = 3x - 1: the same right side
            return self.num.exprs(gr, pr, g.approx or p.approx, False)
        if _solved_value(g) and not _solved_value(p):  # gold x = -2: the prediction must give the value,
            return self.linear_solution(g, p)  # or a linear equation in x whose one solution it is
        return self.num.proportional(gl - gr, pl - pr, positive=False)


    def linear_solution(self, g: Answer, p: Answer) -> Tri:
        """Gold ``q = 9`` against ``15 - q - 6 = 0``: a linear equation in the gold's one variable whose
        solution is the gold's value (symbolic mode only; anything else is False)."""
        if not self.num.symbolic:
            return None
        sp = self.sp
        (gl, gr), (pl, pr) = g.value, p.value
        x, value = (gl, gr) if gl.is_Symbol else (gr, gl)
        diff = pl - pr
        if diff.free_symbols != {x} or not small_enough(diff):
            return False
        try:
            poly = sp.Poly(diff, x)
        except (sp.PolynomialError, TypeError, ValueError):
            return False
        if poly.degree() != 1:
            return False
        a, b = poly.all_coeffs()
        return self.num.exprs(value, -b / a, g.approx or p.approx, False) is True


def _lower_end(piece: tuple[Any, ...]) -> float:
    lo = piece[0]
    if lo.is_infinite:
        return float("-inf") if lo.is_negative else float("inf")
    try:
        return float(lo)
    except (OverflowError, TypeError):
        return float("-inf") if lo.is_negative else float("inf")


def is_label(e: Any) -> bool:
    """A name for a quantity rather than a computation: symbols only, multiplied, divided, under |…|
    (``PQ``, ``|XY|``, ``m/n``, ``V_1/V_2``); no number, no sum."""
    if e.is_Symbol:
        return True
    if e.is_Number:
        return False
    if e.is_Pow:
        return e.exp == -1 and is_label(e.base)
    if e.is_Mul or type(e).__name__ == "Abs":
        return all(is_label(x) for x in e.args)
    return False


def _solved_value(a: Answer) -> bool:
    """``x = 3`` or ``3 = x``: an equation that states a value."""
    lhs, rhs = a.value
    return (lhs.is_Symbol and rhs.is_number) or (rhs.is_Symbol and lhs.is_number)
