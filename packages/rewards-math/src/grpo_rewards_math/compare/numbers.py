"""Numbers and expressions: exact rationals, certified constants, decimals within ``rel_tol`` or
rounded to ``precision`` places, expressions at random points, proportional equations, and (in
symbolic mode) ``simplify``."""

from __future__ import annotations

from typing import Any

from ..budget import check_budget
from ..certified import certified_equal
from ..conventions import Conventions
from ..numeric import EXACT_TOL, close, random_points, rational_close, rounds_equal, small_enough, to_complex

Tri = bool | None


def all_of(results: list[Tri]) -> Tri:
    if any(r is False for r in results):
        return False
    if any(r is None for r in results):
        return None
    return True


def any_of(results: list[Tri]) -> Tri:
    if any(r is True for r in results):
        return True
    if any(r is None for r in results):
        return None
    return False


class Numbers:
    """Compares two sympy expressions (the gold first); ``symbolic=False`` does only bounded work and
    may answer None (undecided)."""

    def __init__(self, conventions: Conventions, symbolic: bool) -> None:
        import sympy

        self.sp = sympy
        self.rel_tol = conventions.rel_tol
        self.abs_tol = conventions.abs_tol
        self.symbolic = symbolic
        self.precision = conventions.precision

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
                if tol == EXACT_TOL:
                    return a == b
                return rational_close(a, b, tol, self.abs_tol)
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
                    return close(va, vb, tol) or (tol != EXACT_TOL and abs(va - vb) <= self.abs_tol)
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
