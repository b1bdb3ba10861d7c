"""Guarded construction of sympy objects from parse-tree pieces.

Numbers are built from digit strings we checked (never from text handed to sympy's parsers); powers,
factorials and binomials are evaluated only when the size of the result is known to be small.
Anything larger is kept unevaluated (``evaluate=False``) and the builder is marked ``huge``; from
then on every node is built unevaluated, so nothing downstream multiplies a tower out.

>>> b = Builder(DEFAULT_LIMITS)
>>> b.pow(b.number("2"), b.number("10"))
1024
>>> b.pow(b.number("10"), b.pow(b.number("10"), b.number("7"))), b.huge
(10**10000000, True)
"""

from __future__ import annotations

import math
from typing import Any

from .budget import check_budget
from .latex_lexer import ParseError, numeral_parts
from .limits import DEFAULT_LIMITS, Limits


def sympy() -> Any:
    import sympy as sp

    return sp


def _digits(n: int) -> int:
    """Upper bound of the number of decimal digits of |n| (cheap, no str())."""
    return int(abs(n).bit_length() * 0.30103) + 1


def _fold(values: list[Any], op: Any) -> Any:
    result = values[0]
    for value in values[1:]:
        result = op(result, value)
    return result


class Builder:
    """Builds sympy objects under size limits; one per parse (not shared between threads)."""

    def __init__(self, limits: Limits = DEFAULT_LIMITS, log_base: int | None = None) -> None:
        self.limits = limits
        self.log_base = log_base  # the base of a bare \\log (None: natural)
        self.sp = sympy()
        self.huge = False
        self.approx = False
        self.total_digits = 0
        self.nodes = 0
        # the constants and names the grammar asks for (it never touches sympy itself)
        sp = self.sp
        self.pi, self.infinity, self.e, self.imaginary_unit = sp.pi, sp.oo, sp.E, sp.I

    def symbol(self, name: str) -> Any:
        return self.sp.Symbol(name)

    def dummy(self, name: str) -> Any:
        """A symbol no answer can write (the placeholder sign of ``\\pm``)."""
        return self.sp.Dummy(name)

    def is_infinite(self, x: Any) -> bool:
        return x in (self.sp.oo, -self.sp.oo)

    # -- bookkeeping -------------------------------------------------------------------------
    def tick(self, k: int = 1) -> None:
        check_budget()
        self.nodes += k
        if self.nodes > self.limits.max_nodes:
            raise ParseError(f"more than max_nodes={self.limits.max_nodes} nodes")

    def _spend(self, digits: float) -> bool:
        """Reserve result digits for one exact evaluation; False when over a limit."""
        if digits > self.limits.max_result_digits or self.total_digits + digits > self.limits.max_total_digits:
            return False
        self.total_digits += int(digits)
        return True

    @property
    def ev(self) -> bool:
        return not self.huge

    # -- leaves ------------------------------------------------------------------------------
    def number(self, text: str) -> Any:
        """A literal like '12', '0.25', '1.5e3' as an exact sympy Rational."""
        self.tick()
        sp = self.sp
        intpart, frac, e, decimal = numeral_parts(text, self.limits.max_digits)
        if decimal:
            self.approx = True
        num = int((intpart or "0") + frac)
        den = 10 ** len(frac)
        if e >= 0:
            num *= 10**e
        else:
            den *= 10 ** (-e)
        return sp.Integer(num) if den == 1 else sp.Rational(num, den)

    def integer(self, k: int) -> Any:
        return self.sp.Integer(k)

    def rational(self, q: Any) -> Any:
        """An exact value computed elsewhere (a ``Fraction``), as a sympy Rational."""
        return self.sp.Rational(q.numerator, q.denominator)

    # -- operators ---------------------------------------------------------------------------
    def _no_infinity(self, args: list[Any], what: str) -> None:
        """Infinity is an interval end or an answer, never an operand (sympy's oo arithmetic is slow)."""
        sp = self.sp
        if any(a.has(sp.oo, sp.zoo, sp.nan) for a in args):
            raise ParseError(f"infinity inside {what}")

    def add(self, terms: list[Any]) -> Any:
        self.tick(len(terms))
        if len(terms) == 1:
            return terms[0]
        if self.ev and all(getattr(t, "is_Rational", False) for t in terms):
            return _fold(terms, lambda x, y: x + y)  # exact: what Add evaluates to, without its work
        self._no_infinity(terms, "a sum")
        return self.sp.Add(*terms, evaluate=self.ev)

    def mul(self, factors: list[Any]) -> Any:
        self.tick(len(factors))
        if len(factors) == 1:
            return factors[0]
        sp = self.sp
        if len(factors) == 2 and factors[0] == -1 and factors[1] in (sp.oo, -sp.oo):
            return -factors[1]
        if self.ev and all(getattr(f, "is_Rational", False) for f in factors):
            return _fold(factors, lambda x, y: x * y)  # exact: what Mul evaluates to, without its work
        self._no_infinity(factors, "a product")
        return sp.Mul(*factors, evaluate=self.ev)

    def neg(self, a: Any) -> Any:
        return self.mul([self.sp.Integer(-1), a])

    def div(self, a: Any, b: Any) -> Any:
        sp = self.sp
        if b == 0 and a.is_number:
            raise ParseError("division by zero")
        if self.ev and a.is_Rational and b.is_Rational:
            self.tick()
            return a / b
        return self.mul([a, self.pow(b, sp.Integer(-1))])

    def pow(self, base: Any, exp: Any) -> Any:
        self.tick()
        sp = self.sp
        self._no_infinity([base, exp], "a power")
        if self.huge:
            return sp.Pow(base, exp, evaluate=False)
        if exp.is_Rational and exp.is_number:
            p = abs(int(exp.p))
            if base.is_Rational:
                if base in (0, 1) or (base == -1 and exp.is_Integer):
                    return sp.Pow(base, exp) if not (base == 0 and exp < 0) else sp.zoo
                size = max(_digits(int(base.p)), _digits(int(base.q)))
                if p > self.limits.max_exponent or not self._spend(p * size / int(exp.q)):
                    return self._mark_huge(self._canonical_pow(base, exp))
                return sp.Pow(base, exp)
            if p > self.limits.max_exponent:
                return self._mark_huge(sp.Pow(base, exp, evaluate=False))
            if base.is_number and not self._spend(p * 4):
                return self._mark_huge(sp.Pow(base, exp, evaluate=False))
            return sp.Pow(base, exp)
        if exp.is_number and base.is_number and not exp.is_Rational:
            # e.g. 2^{\pi} or 10^{10^7 \pi}: keep unevaluated when the magnitude could be huge
            try:
                mag = abs(complex(exp.evalf(15, maxn=30)))
            except (TypeError, ValueError, ArithmeticError):
                return self._mark_huge(sp.Pow(base, exp, evaluate=False))
            if not math.isfinite(mag) or mag > self.limits.max_exponent:
                return self._mark_huge(sp.Pow(base, exp, evaluate=False))
        return sp.Pow(base, exp)

    def _canonical_pow(self, base: Any, exp: Any) -> Any:
        """Unevaluated b^e with b written as its smallest root (100^{5*10^6} -> 10^{10^7}), so that equal
        towers compare equal structurally; only for small integer bases (cheap to test)."""
        sp = self.sp
        if base.is_Integer and exp.is_Integer and 1 < base < 10**18:
            from sympy.ntheory import perfect_power

            pp = perfect_power(int(base))
            if pp:
                root, k = pp
                return sp.Pow(sp.Integer(root), exp * k, evaluate=False)
        return sp.Pow(base, exp, evaluate=False)

    def _mark_huge(self, obj: Any) -> Any:
        self.huge = True
        return obj

    def sqrt(self, x: Any, n: Any = None) -> Any:
        sp = self.sp
        if n is None:
            return self.pow(x, sp.Rational(1, 2))
        if n.is_Integer and n != 0:
            k = int(n)
            if k % 2 == 1 and not self.huge and x.is_number and x.is_negative:  # \sqrt[3]{-27} = -3
                return self.neg(self.pow(self.neg(x), sp.Rational(1, k)))
            return self.pow(x, sp.Rational(1, k))
        return self.pow(x, self.pow(n, sp.Integer(-1)))

    def factorial(self, x: Any) -> Any:
        self.tick()
        sp = self.sp
        if self.huge:
            return sp.factorial(x, evaluate=False)
        if x.is_Integer:
            k = int(x)
            if k < 0:
                raise ParseError("factorial of a negative integer")
            if self.huge or k > self.limits.max_factorial or not self._spend(_factorial_digits(k)):
                return self._mark_huge(sp.factorial(x, evaluate=False))
            return sp.Integer(math.factorial(k))
        if x.is_number and x.is_Rational:
            raise ParseError("factorial of a fraction")
        return sp.factorial(x, evaluate=self.ev)

    def binomial(self, n: Any, k: Any) -> Any:
        self.tick()
        sp = self.sp
        if self.huge:
            return sp.binomial(n, k, evaluate=False)
        if n.is_Integer and k.is_Integer:
            if self.huge or int(n) > self.limits.max_factorial or not self._spend(_factorial_digits(int(n))):
                return self._mark_huge(sp.binomial(n, k, evaluate=False))
            return sp.Integer(math.comb(int(n), int(k))) if 0 <= int(k) <= int(n) else sp.Integer(0)
        return sp.binomial(n, k, evaluate=self.ev)

    #: Terms a sum or product with integer bounds is expanded into at most; a longer one stays unevaluated.
    MAX_BIG_OPERATOR_TERMS = 200

    def big_operator(self, name: str, body: Any, var: Any, lo: Any, hi: Any) -> Any:
        """``Sum``/``Product`` of ``body`` for ``var`` from ``lo`` to ``hi``: added or multiplied out when the
        bounds are integers at most :data:`MAX_BIG_OPERATOR_TERMS` apart, else kept unevaluated (and ``huge``:
        compared structurally only, never evaluated numerically)."""
        self.tick()
        sp = self.sp
        if not self.huge and lo.is_Integer and hi.is_Integer and 0 <= int(hi) - int(lo) < self.MAX_BIG_OPERATOR_TERMS:
            terms = [body.subs(var, sp.Integer(k)) for k in range(int(lo), int(hi) + 1)]
            self.tick(len(terms))
            return self.add(terms) if name == "sum" else self.mul(terms)
        cls = sp.Sum if name == "sum" else sp.Product
        return self._mark_huge(cls(body, (var, lo, hi)))

    def func(self, name: str, arg: Any) -> Any:
        """Apply a named elementary function (sin, arctan, ln, exp, abs, floor, ...)."""
        self.tick()
        sp = self.sp
        self._no_infinity([arg], "a function")
        table = {
            "sin": sp.sin, "cos": sp.cos, "tan": sp.tan, "cot": sp.cot, "sec": sp.sec, "csc": sp.csc,
            "arcsin": sp.asin, "arccos": sp.acos, "arctan": sp.atan, "arccot": sp.acot, "arcsec": sp.asec,
            "arccsc": sp.acsc, "sinh": sp.sinh, "cosh": sp.cosh, "tanh": sp.tanh, "coth": sp.coth,
            "ln": sp.log, "log": sp.log, "exp": sp.exp, "abs": sp.Abs, "floor": sp.floor,
            "ceil": sp.ceiling, "sgn": sp.sign,
        }
        f = table[name]
        if name == "exp":
            return self.pow(sp.E, arg)
        if name == "log" and self.log_base is not None:
            return self.log(arg, sp.Integer(self.log_base))
        if name in ("floor", "ceil") and arg.is_number and not self.huge:
            # bounded: floor of a number whose magnitude we can estimate
            return f(arg)
        return f(arg, evaluate=self.ev)

    def log(self, x: Any, base: Any) -> Any:
        self.tick()
        sp = self.sp
        if self.huge:
            return sp.Mul(sp.log(x, evaluate=False), sp.Pow(sp.log(base, evaluate=False), -1, evaluate=False),
                          evaluate=False)
        return sp.log(x, base)


def _factorial_digits(k: int) -> float:
    return math.lgamma(k + 1) / math.log(10) + 1 if k > 1 else 1


def new_builder(limits: Limits | None = None) -> Builder:
    return Builder(limits or DEFAULT_LIMITS)
