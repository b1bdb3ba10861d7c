r"""Certified numeric comparison of exact constants: interval arithmetic at a precision chosen from
the size of the literals, so a decision is never a rounding artefact.

``interval(e, bits)`` encloses a real sympy constant in an ``mpmath.iv`` interval (``None`` when a
node is not supported: complex values, unknown functions). ``certified_equal(a, b)`` says False
when the enclosures of ``a`` and ``b`` are disjoint, True when ``a - b`` is enclosed within
``2^-(bits/2)`` around 0 at a precision of ``bits`` that is four times the bits of every literal in
both (so ``\sqrt[10^{399}]{2}``, 7e-400 away from 1, is told apart from 1, and the conjugate
radicals of ``\sqrt[3]{(2+\sqrt3)^{5000}(2-\sqrt3)^{5000}} - 1`` cancel to 0), and None otherwise.
Every step is one interval operation at a bounded precision (at most :data:`MAX_BITS`), with the
CPU budget polled between nodes.

>>> import sympy
>>> certified_equal(sympy.sqrt(8), 2 * sympy.sqrt(2)), certified_equal(sympy.sqrt(2), sympy.Rational(141, 100))
(True, False)
>>> certified_equal(sympy.Pow(2, sympy.Rational(1, 10**399)), sympy.Integer(1))
False
"""

from __future__ import annotations

import threading
from typing import Any

from .budget import check_budget

#: The highest working precision (bits); a pair that needs more is left undecided.
MAX_BITS = 8192
#: Nodes evaluated at most for one expression.
MAX_NODES = 400


class Unsupported(Exception):
    """A node the interval evaluator does not handle (the caller falls back or stays undecided)."""


def literal_bits(e: Any) -> int:
    """Bits of every integer in ``e`` (numerators, denominators, exponents) added up."""
    total = 0
    stack = [e]
    seen = 0
    while stack:
        x = stack.pop()
        seen += 1
        if seen > MAX_NODES:
            raise Unsupported("too many nodes")
        if x.is_Rational:
            total += int(x.p).bit_length() + int(x.q).bit_length()
        else:
            stack.extend(x.args)
    return total


_local = threading.local()


def _context(bits: int) -> Any:
    """This thread's own interval context (mpmath's shared ``iv`` keeps its precision globally)."""
    ctx = getattr(_local, "ctx", None)
    if ctx is None:
        from mpmath.ctx_iv import MPIntervalContext

        ctx = _local.ctx = MPIntervalContext()
    ctx.prec = bits
    return ctx


def interval(e: Any, bits: int) -> Any:
    """An ``mpmath.iv`` interval enclosing the real constant ``e`` at ``bits`` of precision."""
    return _eval(e, _context(bits), [0])


def _eval(e: Any, iv: Any, count: list[int]) -> Any:
    import sympy as sp

    count[0] += 1
    if count[0] > MAX_NODES:
        raise Unsupported("too many nodes")
    if count[0] % 16 == 0:
        check_budget()
    if e.is_Rational:
        return iv.mpf(int(e.p)) / int(e.q) if e.q != 1 else iv.mpf(int(e.p))
    if e is sp.pi:
        return iv.pi
    if e is sp.E:
        return iv.e
    if e.is_Add:
        out = iv.mpf(0)
        for a in e.args:
            out += _eval(a, iv, count)
        return out
    if e.is_Mul:
        out = iv.mpf(1)
        for a in e.args:
            out *= _eval(a, iv, count)
        return out
    if e.is_Pow:
        base, exp = e.args
        if exp.is_Integer:
            if abs(int(exp)) > 100_000:
                raise Unsupported("exponent too large")
            b = _eval(base, iv, count)
            return b ** int(exp)
        if exp.is_Rational and abs(int(exp.p)) <= 100_000:
            b = _eval(base, iv, count)
            if not b.a > 0:
                if b.b < 0 or not _exact_zero(base):
                    raise Unsupported("a root of a number that may be negative or zero")
                return iv.mpf(0)  # \\sqrt[3]{(\\sqrt2+\\sqrt3)^2-5-2\\sqrt6}: the radicand is exactly 0
            return iv.exp(iv.log(b) * int(exp.p) / int(exp.q))
        b = _eval(base, iv, count)
        x = _eval(exp, iv, count)
        if not b.a > 0:
            raise Unsupported("a real power of a number that may not be positive")
        return iv.exp(x * iv.log(b))
    name = type(e).__name__
    funcs = {"exp": iv.exp, "sin": iv.sin, "cos": iv.cos, "tan": iv.tan}
    if name in funcs:
        return funcs[name](_eval(e.args[0], iv, count))
    if name == "log" and len(e.args) == 1:
        x = _eval(e.args[0], iv, count)
        if not x.a > 0:
            raise Unsupported("log of a number that may not be positive")
        return iv.log(x)
    if name == "Abs":
        x = _eval(e.args[0], iv, count)
        if x.a >= 0:
            return x
        if x.b <= 0:
            return -x
        raise Unsupported("|x| of an interval around 0")
    raise Unsupported(f"node {name}")


def _exact_zero(e: Any) -> bool:
    """Whether a small algebraic expression expands to exactly 0 (only tried when cheap: few nodes,
    integer powers of at most 6)."""
    import sympy as sp

    try:
        if e.count_ops(visual=False) > 40 or any(p.exp.is_Integer and abs(int(p.exp)) > 6 for p in e.atoms(sp.Pow)):
            return False
        check_budget()
        return bool(sp.expand(e) == 0)
    except (TypeError, ValueError, ArithmeticError, RecursionError):
        return False


def certified_equal(a: Any, b: Any) -> bool | None:
    """True/False when interval arithmetic decides ``a == b`` for real constants, else None."""
    try:
        bits = max(128, 64 + 4 * (literal_bits(a) + literal_bits(b)))
        if bits > MAX_BITS:
            return None
        ia, ib = interval(a, bits), interval(b, bits)
    except (Unsupported, ArithmeticError, ValueError, TypeError, OverflowError):
        return None
    d = ia - ib
    if d.a > 0 or d.b < 0:
        return False
    import mpmath

    scale = max(abs(ia.a), abs(ia.b), 1)
    if (d.b - d.a) <= scale * mpmath.mpf(2) ** (-(bits // 2)):
        return True
    return None
