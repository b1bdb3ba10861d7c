r"""Exact, bounded arithmetic on real numbers of the form ``c0 + c1·√r1 + c2·√r2 + …`` (rational ``c``,
integer radicands ``r``), each term possibly times a power of π: the values most constant answers
have (``\frac{\sqrt3}{2}``, ``2^{10}``, ``(\sqrt{2}+1)(\sqrt{2}-1)``, ``\sqrt[3]{27}``, ``\frac{5\pi}{6}``).

Every operation checks the sizes it will produce *before* it computes: at most :data:`MAX_TERMS`
terms, numerators and denominators of at most :data:`MAX_BITS` bits, exponents of at
most :data:`MAX_EXPONENT` (radicands of at most :data:`MAX_RADICAND_BITS`). Anything beyond (or anything else: ``e``, functions, a root of a
surd, a variable) is :class:`Undecidable`, never a long computation. So the cost of
:func:`evaluate` is bounded by the size of the tree alone.

Powers with the same integer exponent are multiplied base first (``a^k b^k = (ab)^k``), so the
conjugate product ``(\sqrt{N+1}+\sqrt N)^k (\sqrt{N+1}-\sqrt N)^k`` is ``1^k`` without ever
writing out a power of either factor.

Values are kept in a normal form (:class:`Surd`) in which equal numbers have equal terms, so
two values are told apart exactly, never by a rounding.

>>> from grpo_rewards_math.light import LightBuilder
>>> b = LightBuilder()
>>> evaluate(b.mul([b.number("2"), b.sqrt(b.number("8"))]))
Surd({(0, 2): Fraction(4, 1)})
>>> evaluate(b.div(b.mul([b.number("5"), b.pi]), b.number("6")))
Surd({(1, 1): Fraction(5, 6)})
"""

from __future__ import annotations

import math
from fractions import Fraction

from .light import ADD, BINOM, CONST, FACT, MUL, NUM, POW, REAL_ROOT, Node

#: Terms one value may have.
MAX_TERMS = 8
#: Bits of a numerator or denominator.
MAX_BITS = 8192
#: Bits of a radicand.
MAX_RADICAND_BITS = 2048
#: Largest |integer exponent| raised to (by repeated squaring, sizes checked at each step).
MAX_EXPONENT = 1 << 20
#: Radicands up to this are reduced to their square-free part by trial division (primes below 1000).
SQUAREFREE_UP_TO = 10**6
#: Largest |power of π| a term may carry.
MAX_PI_POWER = 64
#: Largest n! and binomial(n, k) evaluated.
MAX_FACTORIAL = 300

_PRIMES = [p for p in range(2, 1000) if all(p % q for q in range(2, math.isqrt(p) + 1))]


class Undecidable(Exception):
    """The value is not a surd within the size bounds (the caller answers "undecided")."""


class Surd:
    """``{(k, r): c}``: the sum of the terms ``c·π^k·√r`` (``r = 1``: no root; ``k = 0``: no π). Kept in
    a normal form: no zero coefficient, no radicand that is a perfect square, and no two radicands
    of one power of π whose product is a perfect square (``√8`` and ``√2`` are merged into one
    term). Square roots of integers whose products are pairwise non-squares are linearly
    independent over the rationals, and π is transcendental over the numbers they span, so two
    values are equal exactly when their normal forms are."""

    __slots__ = ("terms",)

    def __init__(self, terms: dict[tuple[int, int], Fraction]) -> None:
        if len(terms) > 4 * MAX_TERMS:
            raise Undecidable("too many terms")
        out: dict[tuple[int, int], Fraction] = {}
        for (k, r), c in terms.items():
            if r.bit_length() > MAX_RADICAND_BITS or c.numerator.bit_length() > MAX_BITS \
                    or c.denominator.bit_length() > MAX_BITS or abs(k) > MAX_PI_POWER:
                raise Undecidable("a number over the size bounds")
            if not c:
                continue
            if r != 1:
                root = math.isqrt(r)
                if root * root == r:
                    r, c = 1, c * root
            if r != 1:
                for k2, s_ in out:
                    if k2 != k or s_ == 1 or s_ == r:
                        continue
                    product = r * s_
                    root = math.isqrt(product)
                    if root * root == product:  # √r = (√(r s)/s)·√s
                        r, c = s_, c * Fraction(root, s_)
                        break
            out[k, r] = out.get((k, r), Fraction(0)) + c
        self.terms = {key: c for key, c in out.items() if c}
        if len(self.terms) > MAX_TERMS:
            raise Undecidable("too many terms")

    @classmethod
    def of(cls, q: Fraction | int, radicand: int = 1, pi_power: int = 0) -> Surd:
        return cls({(pi_power, radicand): Fraction(q)})

    def __repr__(self) -> str:
        return f"Surd({self.terms!r})"

    @property
    def rational(self) -> Fraction | None:
        if not self.terms:
            return Fraction(0)
        if set(self.terms) == {(0, 1)}:
            return self.terms[0, 1]
        return None

    def __add__(self, other: Surd) -> Surd:
        out = dict(self.terms)
        for key, c in other.terms.items():
            out[key] = out.get(key, Fraction(0)) + c
        return Surd(out)

    def __neg__(self) -> Surd:
        return Surd({key: -c for key, c in self.terms.items()})

    def __mul__(self, other: Surd) -> Surd:
        if len(self.terms) * len(other.terms) > 4 * MAX_TERMS:
            raise Undecidable("too many terms")
        out: dict[tuple[int, int], Fraction] = {}
        for (k1, r1), c1 in self.terms.items():
            for (k2, r2), c2 in other.terms.items():
                if (r1.bit_length() + r2.bit_length() > 2 * MAX_RADICAND_BITS
                        or c1.numerator.bit_length() + c2.numerator.bit_length() > MAX_BITS
                        or c1.denominator.bit_length() + c2.denominator.bit_length() > MAX_BITS):
                    raise Undecidable("a product over the size bounds")
                g = math.gcd(r1, r2)  # √r1·√r2 = g·√(r1/g · r2/g)
                square, rest = g, (r1 // g) * (r2 // g)
                root = math.isqrt(rest)
                if root * root == rest:
                    square, rest = square * root, 1
                key = (k1 + k2, rest)
                out[key] = out.get(key, Fraction(0)) + c1 * c2 * square
        return Surd(out)

    def inverse(self) -> Surd:
        q = self.rational
        if q is not None:
            if q == 0:
                raise Undecidable("division by zero")
            return Surd.of(1 / q)
        items = sorted(self.terms.items())
        if len(items) == 1:  # 1/(c π^k √r) = √r/(c r) π^-k
            ((k, r), c), = items
            return Surd({(-k, r): 1 / (c * r)})
        if len(items) == 2 and items[0][0] == (0, 1) and items[1][0][0] == 0:  # 1/(a + b√r) = (a - b√r)/(a² - b² r)
            (_, a), ((_, r), b) = items
            den = a * a - b * b * r
            if den == 0:
                raise Undecidable("a zero denominator")
            return Surd({(0, 1): a / den, (0, r): -b / den})
        raise Undecidable("the inverse of a sum of several terms")

    def power(self, k: int) -> Surd:
        if abs(k) > MAX_EXPONENT:
            raise Undecidable("an exponent over the bound")
        base = self if k >= 0 else self.inverse()
        k = abs(k)
        q = base.rational
        if q is not None:  # a rational power: its size is known before computing it
            if q not in (0, 1, -1) and k * max(q.numerator.bit_length(), q.denominator.bit_length()) > MAX_BITS:
                raise Undecidable("a power over the size bounds")
            return Surd.of(q**k)
        out = Surd.of(1)
        while k:
            if k & 1:
                out = out * base
            k >>= 1
            if k:
                base = base * base
        return out

    def float_parts(self) -> tuple[float, float]:
        """``(value, sum of |terms|)`` as floats (OverflowError when they do not fit)."""
        total = scale = 0.0
        for (k, r), c in self.terms.items():
            term = float(c) * math.sqrt(r) * math.pi**k
            total += term
            scale += abs(term)
        return total, scale


def squarefree(r: int) -> tuple[int, int, bool]:
    """``(s, f, certain)`` with ``r = s² f``; ``certain``: ``f`` is known to be square-free."""
    if r < 2:
        return 1, r, True
    root = math.isqrt(r)
    if root * root == r:
        return root, 1, True
    if r > SQUAREFREE_UP_TO:
        return 1, r, False
    s = 1
    for p in _PRIMES:
        if p * p > r:
            break
        while r % (p * p) == 0:
            r //= p * p
            s *= p
    return s, r, True


def _iroot(x: int, n: int) -> int | None:
    """The integer n-th root of ``x >= 0`` when ``x`` is a perfect n-th power, else None."""
    if x < 2:
        return x
    r = 1 << -(-x.bit_length() // n)  # >= the root
    while True:
        s = ((n - 1) * r + x // r ** (n - 1)) // n
        if s >= r:
            break
        r = s
    return r if r**n == x else None


def _root(q: Fraction, n: int) -> Surd:
    """The real n-th root of a rational: exact when it is rational, a square root as a surd."""
    if n == 1:
        return Surd.of(q)
    if q < 0:
        if n % 2 == 0:
            raise Undecidable("an even root of a negative number")
        return -_root(-q, n)
    if q.numerator.bit_length() > MAX_BITS or q.denominator.bit_length() > MAX_BITS:
        raise Undecidable("a root of a number over the size bounds")
    p, d = _iroot(q.numerator, n), _iroot(q.denominator, n)
    if p is not None and d is not None:
        return Surd.of(Fraction(p, d))
    if n != 2:
        raise Undecidable("an irrational root other than a square root")
    radicand = q.numerator * q.denominator  # √(p/q) = √(pq)/q
    s, f, _ = squarefree(radicand)
    return Surd.of(Fraction(s, q.denominator), f)


def evaluate(node: Node) -> Surd:
    """The exact value of a constant light tree, or :class:`Undecidable`."""
    op = node.op
    if op == NUM:
        return Surd.of(node.value)
    if op == CONST and node.value == "pi":
        return Surd.of(1, pi_power=1)
    if op == ADD:
        out = Surd({})
        for a in node.args:
            out = out + evaluate(a)
        return out
    if op == MUL:
        return _product(node.args)
    if op == POW:
        return _power(node.args[0], node.args[1], real_root=node.value == REAL_ROOT)
    if op == FACT:
        n = _small_integer(node.args[0])
        return Surd.of(math.factorial(n))
    if op == BINOM:
        n, k = _small_integer(node.args[0]), _small_integer(node.args[1])
        return Surd.of(math.comb(n, k) if 0 <= k <= n else 0)
    raise Undecidable(f"a {op} node")


def _bits(q: Fraction | int) -> int:
    return max(q.numerator.bit_length(), q.denominator.bit_length())


def rational(node: Node) -> Fraction | int | None:
    """The exact value of a constant light tree built only from numbers, sums, products, integer
    powers, factorials and binomials, within :func:`evaluate`'s size bounds (each checked before the
    step that would pass it); None for any other tree, or one past a bound (:func:`evaluate` then
    decides). The common case of :func:`evaluate` without its normal form: the same value, a
    fraction of the cost (integers stay Python ints).

    >>> from grpo_rewards_math.light import LightBuilder
    >>> b = LightBuilder()
    >>> rational(b.div(b.number("3"), b.pow(b.number("2"), b.number("3")))), rational(b.sqrt(b.number("2"))) is None
    (Fraction(3, 8), True)
    """
    op = node.op
    if op == NUM:
        q = node.value
        return q.numerator if q.denominator == 1 else q
    args = node.args
    if op == ADD:
        total: Fraction | int = 0
        for a in args:
            q = rational(a)
            if q is None:
                return None
            total += q
            if _bits(total) > MAX_BITS:
                return None
        return total
    if op == MUL:
        product: Fraction | int = 1
        for a in args:
            q = rational(a)
            if q is None or q.numerator.bit_length() + product.numerator.bit_length() > MAX_BITS \
                    or q.denominator.bit_length() + product.denominator.bit_length() > MAX_BITS:
                return None
            product *= q
        return product
    if op == POW:
        exponent, base = rational(args[1]), rational(args[0])
        if exponent is None or base is None or exponent.denominator != 1 or abs(exponent.numerator) > MAX_EXPONENT:
            return None
        k = exponent.numerator
        if base == 0 and k < 0:
            return None
        if base not in (0, 1, -1) and abs(k) * _bits(base) > MAX_BITS:
            return None
        return base**k if k >= 0 else Fraction(1) / base ** -k
    if op == FACT or op == BINOM:
        ints = [rational(a) for a in args]
        if any(q is None or q.denominator != 1 or not 0 <= q <= MAX_FACTORIAL for q in ints):
            return None
        if op == FACT:
            return math.factorial(int(ints[0]))  # type: ignore[arg-type]
        n, m = int(ints[0]), int(ints[1])  # type: ignore[arg-type]
        return math.comb(n, m) if 0 <= m <= n else 0
    return None


def _small_integer(node: Node) -> int:
    q = evaluate(node).rational
    if q is None or q.denominator != 1 or not 0 <= q <= MAX_FACTORIAL:
        raise Undecidable("not a small integer")
    return int(q)


def _integer_exponent(node: Node) -> int | None:
    if node.op == POW and node.args[1].op == NUM and node.args[1].value.denominator == 1:
        k = int(node.args[1].value)
        return k if abs(k) >= 2 else None
    return None


def _product(factors: tuple[Node, ...]) -> Surd:
    """Factors multiplied, powers with one integer exponent base first (``a^k b^k = (ab)^k``)."""
    by_exponent: dict[int, list[Node]] = {}
    out = Surd.of(1)
    for f in factors:
        k = _integer_exponent(f)
        if k is None:
            out = out * evaluate(f)
        else:
            by_exponent.setdefault(k, []).append(f.args[0])
    for k, bases in by_exponent.items():
        base = Surd.of(1)
        for b in bases:
            base = base * evaluate(b)
        out = out * base.power(k)
    return out


def _power(base_node: Node, exp_node: Node, real_root: bool = False) -> Surd:
    exp = evaluate(exp_node).rational
    if exp is None:
        raise Undecidable("an irrational exponent")
    if abs(exp.numerator) > MAX_EXPONENT or exp.denominator > MAX_EXPONENT:
        raise Undecidable("an exponent over the bound")
    base = evaluate(base_node)
    if exp.denominator == 1:
        if base.rational == 0 and exp < 0:
            raise Undecidable("division by zero")
        return base.power(int(exp))
    q = base.rational
    if q is None:
        raise Undecidable("a root of an irrational number")
    if q == 0:
        if exp < 0:
            raise Undecidable("division by zero")
        return Surd({})
    if q < 0 and not real_root:  # (-8)^{1/3} is sympy's principal (complex) root; \sqrt[3]{-8} is -2
        raise Undecidable("a fractional power of a negative number")
    return _root(q, exp.denominator).power(exp.numerator)
