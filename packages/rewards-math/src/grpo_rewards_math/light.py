r"""Light parse trees: what the grammar builds in the calling process, without sympy.

:class:`LightBuilder` has the :class:`~grpo_rewards_math.build.Builder`'s interface, but each
method only records a :class:`Node` (an operator and its arguments; numbers as exact
``Fraction``\ s of literals the digit limits already checked). Nothing is evaluated, simplified
or asked about its sign: building costs a constant per node, and the parse as a whole is bounded
by the size of the text. :mod:`grpo_rewards_math.bounded` then decides what it can from these
trees with bounded arithmetic (:mod:`grpo_rewards_math.surds`); the worker's sympy parse does
the rest.

>>> b = LightBuilder()
>>> tree = b.add([b.number("1"), b.sqrt(b.number("2"))])
>>> tree.op, tree.is_number, tree.args[1].op
('add', True, 'pow')
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import Any

from .budget import check_budget
from .latex_lexer import ParseError, numeral_parts
from .limits import DEFAULT_LIMITS, Limits

NUM, SYM, CONST, ADD, MUL, POW, FUNC, LOG, FACT, BINOM, BIG = (
    "num", "sym", "const", "add", "mul", "pow", "func", "log", "factorial", "binomial", "big")
_INFINITE = frozenset({"oo", "-oo", "zoo"})
_NO_SYMBOLS: frozenset[Any] = frozenset()
#: the value of a POW node written as an odd root (``\\sqrt[3]{-27}`` is -3, the real root)
REAL_ROOT = "real root"


class Node:
    """One node of a light tree: ``op`` (one of the names above), ``args`` (child nodes) and
    ``value`` (a number's ``Fraction``, a symbol's or constant's or function's name)."""

    __slots__ = ("_hash", "args", "has_infinity", "op", "symbols", "value")
    has_infinity: bool
    symbols: frozenset[Node]

    def __init__(self, op: str, args: tuple[Node, ...] = (), value: Any = None) -> None:
        self.op, self.args, self.value = op, args, value
        self._hash: int | None = None  # computed when first asked (most nodes are never hashed)
        if not args:  # a leaf
            self.symbols = frozenset((self,)) if op == SYM else _NO_SYMBOLS
            self.has_infinity = op == CONST and value in _INFINITE
            return
        symbols = _NO_SYMBOLS
        infinite = False
        for a in args:
            if a.symbols:
                symbols = symbols | a.symbols
            infinite = infinite or a.has_infinity
        if op == BIG:  # the index variable is bound
            symbols = symbols - args[1].symbols
        self.symbols = symbols
        self.has_infinity = infinite

    # -- what the grammar asks of a value ----------------------------------------------------
    @property
    def is_Integer(self) -> bool:
        return self.op == NUM and self.value.denominator == 1

    @property
    def is_Rational(self) -> bool:
        return self.op == NUM

    @property
    def is_Symbol(self) -> bool:
        return self.op == SYM

    @property
    def is_number(self) -> bool:
        return not self.symbols

    @property
    def free_symbols(self) -> frozenset[Node]:
        return self.symbols

    def _number(self, other: Any) -> Fraction:
        if self.op != NUM:
            raise TypeError("only numbers are ordered")
        return self.value

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Node):
            if self is other:
                return True
            if self._hash is not None and other._hash is not None and self._hash != other._hash:
                return False
            return self.op == other.op and self.value == other.value and self.args == other.args
        if isinstance(other, (int, Fraction)) and not isinstance(other, bool):
            return self.op == NUM and self.value == other
        return NotImplemented

    def __hash__(self) -> int:
        h = self._hash
        if h is None:
            h = self._hash = hash((self.op, self.value, self.args))
        return h

    def __lt__(self, other: Any) -> bool:
        return self._number(self) < _value(other)

    def __le__(self, other: Any) -> bool:
        return self._number(self) <= _value(other)

    def __gt__(self, other: Any) -> bool:
        return self._number(self) > _value(other)

    def __ge__(self, other: Any) -> bool:
        return self._number(self) >= _value(other)

    def __neg__(self) -> Node:
        if self.op == NUM:
            return Node(NUM, value=-self.value)
        if self.op == CONST and self.value in ("oo", "-oo"):
            return Node(CONST, value="-oo" if self.value == "oo" else "oo")
        return Node(MUL, (Node(NUM, value=Fraction(-1)), self))

    def subs(self, old: Node, new: Any) -> Node:
        """This tree with the node ``old`` replaced by the integer ``new``."""
        if self == old:
            return Node(NUM, value=Fraction(new))
        if old not in self.symbols:
            return self
        return Node(self.op, tuple(a.subs(old, new) for a in self.args), self.value)

    def __repr__(self) -> str:
        if self.op in (NUM, SYM, CONST):
            return str(self.value)
        return f"{self.op}{self.args!r}" if self.value is None else f"{self.value}{self.args!r}"


def _value(x: Any) -> Fraction:
    if isinstance(x, Node):
        return x._number(x)
    return Fraction(x)


def num(value: Fraction | int) -> Node:
    return Node(NUM, value=Fraction(value))


_MINUS_ONE, _HALF = num(-1), num(Fraction(1, 2))


@lru_cache(maxsize=4096)
def _integer_node(digits: str) -> Node:
    """The node of an integer literal (nodes are immutable: one per literal text, shared)."""
    return Node(NUM, value=Fraction(int(digits)))


@lru_cache(maxsize=64)
def _dummy(name: str) -> Node:
    """The placeholder symbol ``name`` (one node per name, shared: nodes are immutable)."""
    return Node(SYM, value="\x00" + name)  # no answer can write this name


class LightBuilder:
    """The builder the grammar uses in the calling process: records nodes, evaluates nothing."""

    MAX_BIG_OPERATOR_TERMS = 200

    def __init__(self, limits: Limits = DEFAULT_LIMITS, log_base: int | None = None) -> None:
        self.limits = limits
        self.log_base = log_base
        self.huge = False
        self.approx = False
        self.nodes = 0

    #: the constants the grammar asks for (shared: nodes are immutable)
    pi, infinity, e, imaginary_unit = (Node(CONST, value=name) for name in ("pi", "oo", "e", "i"))

    def tick(self, k: int = 1) -> None:
        nodes = self.nodes + k
        self.nodes = nodes
        if nodes > self.limits.max_nodes:
            raise ParseError(f"more than max_nodes={self.limits.max_nodes} nodes")
        if (nodes - k) >> 5 != nodes >> 5:  # the budget polled every 32 nodes, as tokenize polls it every 32 tokens
            check_budget()

    def symbol(self, name: str) -> Node:
        return Node(SYM, value=name)

    def dummy(self, name: str) -> Node:
        return _dummy(name)

    def is_infinite(self, x: Any) -> bool:
        return isinstance(x, Node) and x.op == CONST and x.value in ("oo", "-oo")

    def number(self, text: str) -> Node:
        """A literal like '12', '0.25', '1.5e3' (the Builder's digit limits)."""
        self.tick()
        intpart, frac, e, decimal = numeral_parts(text, self.limits.max_digits)
        if not decimal:
            return _integer_node(intpart)
        self.approx = True
        digits = int((intpart or "0") + frac)
        shift = e - len(frac)
        return num(Fraction(digits * 10**shift) if shift >= 0 else Fraction(digits, 10**-shift))

    def integer(self, k: int) -> Node:
        return num(k)

    def rational(self, q: Fraction) -> Node:
        return num(q)

    def _no_infinity(self, args: list[Any], what: str) -> None:
        for a in args:  # (a loop, not any() over a generator: this runs for every sum, product and power)
            if a.has_infinity:
                raise ParseError(f"infinity inside {what}")

    def add(self, terms: list[Any]) -> Node:
        self.tick(len(terms))
        if len(terms) == 1:
            return terms[0]
        self._no_infinity(terms, "a sum")
        return Node(ADD, tuple(terms))

    def mul(self, factors: list[Any]) -> Node:
        self.tick(len(factors))
        if len(factors) == 1:
            return factors[0]
        if len(factors) == 2 and factors[0] == -1 and self.is_infinite(factors[1]):
            return -factors[1]
        self._no_infinity(factors, "a product")
        return Node(MUL, tuple(factors))

    def neg(self, a: Any) -> Node:
        return self.mul([_MINUS_ONE, a])

    def div(self, a: Any, b: Any) -> Node:
        if b == 0 and a.is_number:
            raise ParseError("division by zero")
        self.tick()
        return self.mul([a, self.pow(b, _MINUS_ONE)])

    def pow(self, base: Any, exp: Any) -> Node:
        self.tick()
        self._no_infinity([base, exp], "a power")
        if base == 0 and exp.op == NUM and exp.value < 0:
            return Node(CONST, value="zoo")
        if exp.op == NUM and abs(exp.value.numerator) > self.limits.max_exponent:
            self.huge = True  # as the Builder marks 10^{10^7} (towers it computes first are not marked here)
        return Node(POW, (base, exp))

    def sqrt(self, x: Any, n: Any = None) -> Node:
        if n is None:
            return self.pow(x, _HALF)
        if n.op == NUM and n.value.denominator == 1 and n.value != 0:
            root = self.pow(x, num(Fraction(1, int(n.value))))
            return Node(POW, root.args, REAL_ROOT) if root.op == POW and n.value % 2 else root
        return self.pow(x, self.pow(n, _MINUS_ONE))

    def factorial(self, x: Any) -> Node:
        self.tick()
        if x.op == NUM:
            if x.value.denominator != 1:
                raise ParseError("factorial of a fraction")
            if x.value < 0:
                raise ParseError("factorial of a negative integer")
            if x.value > self.limits.max_factorial:
                self.huge = True
        return Node(FACT, (x,))

    def binomial(self, n: Any, k: Any) -> Node:
        self.tick()
        return Node(BINOM, (n, k))

    def big_operator(self, name: str, body: Any, var: Any, lo: Any, hi: Any) -> Node:
        self.tick()
        return Node(BIG, (body, var, lo, hi), name)

    def func(self, name: str, arg: Any) -> Node:
        self.tick()
        self._no_infinity([arg], "a function")
        if name == "exp":
            return self.pow(self.e, arg)
        if name == "log" and self.log_base is not None:
            return self.log(arg, num(self.log_base))
        return Node(FUNC, (arg,), "log" if name == "ln" else name)

    def log(self, x: Any, base: Any) -> Node:
        self.tick()
        return Node(LOG, (x, base))

