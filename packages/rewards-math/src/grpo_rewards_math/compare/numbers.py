"""Numbers and expressions: exact rationals, certified constants, decimals within ``rel_tol`` or
rounded to ``precision`` places, expressions at random points, proportional equations, and (in
symbolic mode) ``simplify``."""

from __future__ import annotations

from typing import Any

from ..budget import check_budget
from ..certified import certified_equal
from ..conventions import Conventions
from ..numeric import EXACT_TOL, close, random_points, rational_close, rounds_equal, small_enough, to_complex
from ..structure import Tri


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
        if not syms:
            return None if quick else False
        if not (small_enough(a, quick) and small_enough(b, quick)):
            return None  # past the size bound: undecided
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
            return huge_equal(a, b)
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

    def symbolic_exprs(self, a: Any, b: Any, tol: float) -> Tri:
        if not (small_enough(a) and small_enough(b)):
            return None  # past the size bound: undecided, never a difference
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


def huge_equal(a: Any, b: Any) -> Tri:
    """Two expressions past the size bounds (a tower kept unevaluated), compared without evaluating them.

    True when they are the same sum of terms once like terms are collected (``x^{99999} - x^{99999}`` and
    ``0``), or the same product of powers of integers (``\\sqrt[3]{10^{15000}}`` and ``10^{5000}``, ``100^{n}`` and
    ``2^{2n} 5^{2n}``: compared by their prime factorisations, which decide both ways), or factorials of the
    same integer; False when those factorisations or integers differ; None (undecided) for everything else
    (``\\sum_{k=1}^{10^9} k`` against 1), never a difference that was not shown.

    >>> import sympy
    >>> big = sympy.Pow(10, 15000, evaluate=False)
    >>> huge_equal(sympy.Pow(big, sympy.Rational(1, 3), evaluate=False), sympy.Pow(10, 5000, evaluate=False))
    True
    >>> huge_equal(big, sympy.Pow(10, 15001, evaluate=False)), huge_equal(big, 1 + sympy.sqrt(2))
    (False, None)
    """
    terms = _terms(a)
    if terms is not None and terms == _terms(b):
        return True
    na, nb = _factorial_argument(a), _factorial_argument(b)
    if na is not None and nb is not None:  # n! is one-to-one for n >= 1
        return max(na, 1) == max(nb, 1)
    fa, fb = _prime_powers(a, b)
    if fa is None and fb is None:
        return None
    if fa is None or fb is None:  # 0 against a product of powers (never 0) differs; anything else is undecided
        return False if (a if fa is None else b) == 0 else None
    return fa == fb


def _factorial_argument(e: Any) -> int | None:
    """``n`` of ``n!`` written with a non-negative integer ``n``, else None."""
    if type(e).__name__ == "factorial" and len(e.args) == 1 and e.args[0].is_Integer and e.args[0] >= 0:
        return int(e.args[0])
    return None


def _terms(e: Any, budget: list[int] | None = None) -> dict[Any, Any] | None:
    """``e`` as ``{term: rational coefficient}`` with like terms collected and zeros dropped, read from its
    structure alone (nested sums flattened; at most 64 terms); None past that."""
    budget = [64] if budget is None else budget
    out: dict[Any, Any] = {}
    for term in (e.args if e.is_Add else (e,)):
        if term.is_Add:
            inner = _terms(term, budget)
            if inner is None:
                return None
            for key, c in inner.items():
                out[key] = out.get(key, 0) + c
            continue
        budget[0] -= 1
        if budget[0] < 0:
            return None
        c, rest = term.as_coeff_Mul()
        if not c.is_Rational:
            return None
        out[rest] = out.get(rest, 0) + c
    return {k: v for k, v in out.items() if v != 0}


#: integer bases below this are factorised; a larger one only has the other side's primes divided out of it
_FACTOR_BELOW = 10**18


def _prime_powers(*exprs: Any) -> list[tuple[int, dict[Any, Any]] | None]:
    """For each expression, ``(sign, {prime: rational exponent})`` when it is a product of rational powers of
    integers (``(10^{15000})^{1/3}`` gives ``(1, {2: 5000, 5: 5000})``), else None (also for 0). Bases below
    ``10^18`` are factorised; from a larger one (an evaluated ``10^{5000}``) the primes of every small base of
    the expressions are divided out, and one that keeps another factor is None."""
    from sympy import Integer, factorint, multiplicity

    read: list[list[tuple[int, Any]] | None] = []
    for e in exprs:
        found: list[tuple[int, Any]] = []
        read.append(found if _powers_of(e, Integer(1), found, [16]) else None)
    small = {abs(b) for pairs in read if pairs is not None for b, _ in pairs if 1 < abs(b) < _FACTOR_BELOW}
    factorised = {b: factorint(b) for b in small}
    known = sorted({p for f in factorised.values() for p in f})

    def primes_of(base: int) -> dict[Any, int] | None:
        if base in factorised:
            return factorised[base]
        found_primes: dict[Any, int] = {}
        for p in known:  # a big base: only the small bases' primes are divided out
            k = multiplicity(p, base)
            if k:
                base //= p**k
                found_primes[p] = k
        return found_primes if base == 1 else None

    out: list[tuple[int, dict[Any, Any]] | None] = []
    for pairs in read:
        sign, total = 1, {}  # type: tuple[int, dict[Any, Any]]
        for base, exponent in pairs or [(0, 1)]:
            if base < 0:  # (-b)^n with an integer n (_powers_of keeps no root of a negative base)
                sign *= -1 if int(exponent) % 2 else 1
                base = -base
            primes = primes_of(base) if base > 0 else None
            if primes is None:
                out.append(None)
                break
            for p, k in primes.items():
                total[p] = total.get(p, 0) + k * exponent
        else:
            out.append((sign, {p: k for p, k in total.items() if k != 0}))
    return out


def _powers_of(e: Any, exponent: Any, out: list[tuple[int, Any]], budget: list[int]) -> bool:
    """Append ``(integer base, rational exponent)`` for each factor of ``e ** exponent``; False when ``e`` is
    not a product of rational powers of integers (or has more than ``budget`` factors), or when a root
    (a fractional power) is taken of a negative base, whose principal value is not the product's."""
    from sympy import Integer

    if e.is_Mul:
        return all(_powers_of(f, exponent, out, budget) for f in e.args)
    if e.is_Pow:
        base, k = e.args
        if not k.is_Rational:
            return False
        inner: list[tuple[int, Any]] = []
        if not _powers_of(base, exponent * k, inner, budget):
            return False
        if not k.is_Integer and any(b < 0 for b, _ in inner):  # (b^m)^k = b^(mk) for an integer k or b > 0
            return False
        out.extend(inner)
        return True
    if e.is_Rational and not e.is_Integer:
        return _powers_of(Integer(e.p), exponent, out, budget) and _powers_of(Integer(e.q), -exponent, out, budget)
    if not e.is_Integer:
        return False
    budget[0] -= 1
    if budget[0] < 0 or (int(e) < 0 and not exponent.is_Integer):
        return False
    out.append((int(e), exponent))
    return True
