r"""The comparison the calling process may run: bounded by the size of its input, by construction.

**The rule.** Code in the calling process (the trainer, TRL's reward loop) runs only work whose
cost is bounded by the size of the answers *before* it starts: no sympy at all, so no assumption
query, simplification, expansion or evaluation of untrusted structure. It reads both answers with
light trees (:func:`~grpo_rewards_math.parse.read_answer`: the grammar, recording nodes) and
decides what bounded arithmetic can: plain numbers, long plain arithmetic
(:mod:`~grpo_rewards_math.plain`), exact rationals and square roots within size caps
(:mod:`~grpo_rewards_math.surds`), text answers, and collections and ``x = …`` of those.
Everything else is undecided (None) and goes to the symbolic check in a worker process, under
the core's hard deadline. There is no time budget to poll here: a step either has a size bound
checked before it runs, or it is not taken.

>>> bounded_equal(r"\frac{\sqrt{3}}{2}", r"\frac{1}{2}\sqrt{3}"), bounded_equal("x = 3", "3")
(True, True)
>>> bounded_equal(r"\{1, 2\}", "2, 1"), bounded_equal("0.5", r"\frac{1}{3}")
(True, False)
>>> bounded_equal("x^2 - 1", "(x-1)(x+1)") is None  # symbolic: the worker's
True
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from functools import lru_cache
from typing import Any

from .answer import Answer
from .conventions import DEFAULT, Conventions
from .latex_lexer import ParseError, normalize
from .light import CONST, FUNC, MUL, POW, SYM, Node, num
from .limits import DEFAULT_LIMITS, Limits
from .parse import clear_cache as parse_cache_clear
from .parse import read_answer
from .structure import (
    Tri,
    alternatives,
    any_of,
    as_interval,
    chain_interval,
    elements,
    has_equation,
    matrices,
    ordered,
    pieces_equal,
    reduced,
    texts,
)
from .surds import Surd, Undecidable, evaluate, rational


def _text_key(s: str) -> str:
    return "".join(normalize(s).split())


def _value(node: Node) -> Surd | None:
    if node.symbols or node.has_infinity:
        return None
    q = rational(node)
    if q is not None:
        return Surd.of(q)
    try:
        return evaluate(node)
    except (Undecidable, ZeroDivisionError, OverflowError, ValueError):
        return None


def numbers(a: Node, b: Node, approx: bool, conventions: Conventions) -> Tri:
    """Two constant light trees (the gold first) compared as the worker's comparison would, when
    bounded arithmetic decides it."""
    if not (a.symbols or a.has_infinity or b.symbols or b.has_infinity):
        qa, qb = rational(a), rational(b)  # two rationals (most answers): compared without normal forms
        if qa is not None and qb is not None:
            return _rationals(qa, qb, approx, conventions)
    va, vb = _value(a), _value(b)
    if va is None or vb is None:
        return _far_apart(a, b, va, vb)
    qa, qb = va.rational, vb.rational
    gold_integer = qa is not None and qa.denominator == 1
    if qa is not None and qb is not None:
        return _rationals(qa, qb, approx, conventions)
    tolerant = approx and not (gold_integer and conventions.precision is None)
    diff = va + (-vb)
    if not tolerant and not (approx and conventions.precision is not None):
        return not diff.terms  # normal forms: equal values have equal terms (surds.Surd)
    if approx and conventions.precision is not None:
        return None
    try:
        (x, sx), (y, sy), (d, sd) = va.float_parts(), vb.float_parts(), diff.float_parts()
    except OverflowError:
        return None
    noise = 1e-12 * (sx + sy + sd) + 1e-300
    bound = max(conventions.rel_tol * max(abs(x), abs(y)), conventions.abs_tol)
    if abs(d) + noise < bound * (1 - 1e-9):
        return True
    if abs(d) - noise > bound * (1 + 1e-9):
        return False
    return None


def _rationals(qa: Fraction | int, qb: Fraction | int, approx: bool, conventions: Conventions) -> bool:
    """Two exact rational values (the gold first) compared under the conventions."""
    if approx and conventions.precision is not None:
        return round(qa, conventions.precision) == round(qb, conventions.precision)
    if not approx or qa.denominator == 1:
        return qa == qb
    return conventions.within(qa, qb, approx=True)


#: log10 of a magnitude no exact value within the surds' size bounds reaches (8192-bit numerators)
_HUGE_LOG10 = 5000.0


def _log10_lower(e: Node) -> float | None:
    """A lower bound of log10(value) for a positive constant built from numbers, products, powers
    with a base above 1 and factorials (``9^{9^{9^9}}``, ``100000!``), or None. Floats only, one step
    per node: a tower's bound is ``inf``, never a computation."""
    op = e.op
    if op == "num":
        return math.log10(e.value) if e.value > 0 else None
    if op == "pow":
        base, exp = _log10_lower(e.args[0]), _log10_lower(e.args[1])
        if base is None or exp is None or base <= 0:
            return None
        try:
            return base * 10.0**exp
        except OverflowError:
            return math.inf
    if op == "mul":
        parts = [_log10_lower(a) for a in e.args]
        return None if any(p is None for p in parts) else sum(p for p in parts if p is not None)
    if op == "factorial":
        n = _log10_lower(e.args[0])
        if n is None or n < 1:
            return None
        try:
            value = 10.0**n
        except OverflowError:
            return math.inf
        return value * (math.log10(value) - math.log10(math.e))  # n! >= (n/e)^n
    return None


def _far_apart(a: Node, b: Node, va: Surd | None, vb: Surd | None) -> Tri:
    """False when one side is a bounded exact value and the other is known to be astronomically
    larger (a tower or a huge factorial against ``4``: what the worker's structural comparison of
    towers says); None otherwise."""
    for huge, exact in ((a, vb), (b, va)):
        if exact is None:
            continue
        bound = _log10_lower(huge)
        if bound is not None and bound > _HUGE_LOG10:
            return False
    return None


def _is_label(e: Node) -> bool:
    if e.op == SYM:
        return True
    if e.op == POW:
        return e.args[1] == -1 and _is_label(e.args[0])
    if e.op == MUL or (e.op == FUNC and e.value == "abs"):
        return all(_is_label(x) for x in e.args)
    return False


class BoundedComparer:
    """:class:`~grpo_rewards_math.compare.Comparer`'s decisions on the answers it can make without
    sympy; None for the rest."""

    def __init__(self, conventions: Conventions) -> None:
        self.conventions = conventions

    def answers(self, g: Answer, p: Answer) -> Tri:
        if self.conventions.trailing_units == "match" and g.units != p.units:
            return False
        if g.alt is not None or p.alt is not None:
            return alternatives(g, p, self.answers)
        if g.kind == "text" or p.kind == "text":
            return texts(g, p)
        return any_of([self.plain(gv, pv) for gv in self.variants(g) for pv in self.variants(p)])

    def variants(self, a: Answer) -> list[Answer | None]:
        out: list[Answer | None] = [a]
        if a.kind == "expr" and not a.huge:
            if a.percent:
                out.append(a.replace(value=Node(MUL, (a.value, num(Fraction(1, 100))))))
            if a.degree:
                out.append(a.replace(value=Node(MUL, (a.value, _PI, num(Fraction(1, 180))))))
        return out

    def reduce(self, a: Answer, last_side: bool = False) -> Answer:
        return reduced(a, last_side, _is_symbol, _is_name, _symbols)

    def plain(self, g: Answer | None, p: Answer | None) -> Tri:
        if g is None or p is None:
            return None
        if g.kind == "equation" and p.kind == "equation":
            return True if g.value == p.value or g.value == p.value[::-1] else None
        if (g.huge or p.huge) and not (g.kind == p.kind == "expr"):
            return None  # towers inside structures: compared structurally by the worker
        g = self.reduce(g)
        p = self.reduce(p, last_side=not has_equation(g))
        kinds = {g.kind, p.kind}
        if "relation" in kinds:
            return self.relations(g, p)
        if "equation" in kinds:
            return False if p.kind == "equation" and kinds <= {"equation", "expr", "set", "multi"} else None
        if g.kind == "expr" and p.kind == "expr":
            return self.exprs(g.value, p.value, g.approx or p.approx)
        if kinds <= {"expr", "set", "multi"}:
            return self.unordered(elements(g), elements(p))
        if g.kind in ("set", "multi") and p.kind == "tuple":
            return self.unordered(elements(g), elements(p))
        if "interval" in kinds and "multi" in kinds:
            gi, pi = self.as_interval(g), self.as_interval(p)
            if gi is not None and pi is not None:
                return self.intervals(gi, pi, g.approx or p.approx)
            return None
        if kinds <= {"tuple", "multi"}:
            return ordered(elements(g), elements(p), self.answers)
        if "interval" in kinds:
            gi, pi = self.as_interval(g), self.as_interval(p)
            if gi is None or pi is None:
                return None
            return self.intervals(gi, pi, g.approx or p.approx)
        if "matrix" in kinds:
            return self.matrices(g, p)
        return None

    # -- intervals, relations, matrices (constant ends and elements only) -----------------------
    def as_interval(self, a: Answer) -> tuple[tuple[Node, Node, bool, bool], ...] | None:
        return as_interval(a, self.relation_interval)

    def relation_interval(self, a: Answer) -> tuple[tuple[Node, Node, bool, bool], ...] | None:
        """A chain about one symbol with constant bounds (``1 < x <= 3``, ``5 >= x``) as one piece;
        None for anything else (a label, ``|t|``, ``2x``: the worker's)."""
        terms, ops = a.value
        syms = [t for t in terms if t.symbols]
        if len(syms) != 1 or "!=" in ops or syms[0].op != SYM:
            return None
        piece = chain_interval(terms, ops, syms[0], -_INFINITY, _INFINITY)
        return None if piece is None else (piece,)

    def relations(self, g: Answer, p: Answer) -> Tri:
        gi, pi = self.as_interval(g), self.as_interval(p)
        if gi is not None and pi is not None:
            return self.intervals(gi, pi, g.approx or p.approx)
        if g.kind == "relation" and p.kind == "relation" and g.value == p.value:
            return True
        return None

    def intervals(self, gi: tuple[Any, ...], pi: tuple[Any, ...], approx: bool) -> Tri:
        """Unions of pieces with constant ends, when each side's pieces are disjoint (so the union is
        written in its merged form; otherwise merging is the worker's)."""
        gm, pm = _sorted_pieces(gi), _sorted_pieces(pi)
        if gm is None or pm is None:
            return None
        return pieces_equal(gm, pm, lambda a, b: self.end(a, b, approx))

    def end(self, a: Node, b: Node, approx: bool) -> Tri:
        if a.has_infinity or b.has_infinity:
            return a == b if _infinite(a) and _infinite(b) else (False if _infinite(a) or _infinite(b) else None)
        return self.exprs(a, b, approx)

    def matrices(self, g: Answer, p: Answer) -> Tri:
        approx = g.approx or p.approx
        return matrices(g, p, lambda a, b: self.exprs(a, b, approx))

    def exprs(self, a: Node, b: Node, approx: bool) -> Tri:
        if a == b:
            return True
        if a.symbols or b.symbols:
            return False if a.op == SYM and b.op == SYM else None
        if a.has_infinity or b.has_infinity:
            return None
        return numbers(a, b, approx, self.conventions)

    def unordered(self, gs: list[Answer], ps: list[Answer]) -> Tri:
        """Collections compared as sets, when every element is a constant with an exact value (as
        the worker's ``unordered``: duplicates merged, then matched one to one)."""
        keyed = []
        for side in (gs, ps):
            keys = []
            for a in side:
                if a.kind != "expr" or a.approx or a.percent or a.degree or a.huge or a.alt is not None:
                    return None
                v = _value(a.value)
                if v is None:
                    return None
                keys.append(frozenset(v.terms.items()))
            keyed.append(set(keys))
        return keyed[0] == keyed[1]


def _is_symbol(e: Node) -> bool:
    return e.op == SYM


def _is_name(e: Node) -> bool:
    return e.op == SYM or _is_label(e)


def _symbols(e: Node) -> Any:
    return e.symbols


_PI = Node(CONST, value="pi")
_INFINITY = Node(CONST, value="oo")


def _infinite(e: Node) -> bool:
    return e.op == CONST and e.value in ("oo", "-oo")


def _float(e: Node) -> float | None:
    """An end's value as a float (for ordering pieces), or None."""
    if _infinite(e):
        return float("inf") if e.value == "oo" else float("-inf")
    v = _value(e)
    if v is None:
        return None
    try:
        return v.float_parts()[0]
    except OverflowError:
        return None


def _sorted_pieces(pieces: tuple[Any, ...]) -> list[tuple[Any, ...]] | None:
    """Pieces sorted by their lower end when every end is a constant and they are clearly apart
    (a gap of more than rounding between one piece's upper end and the next one's lower end)."""
    keyed = []
    for piece in pieces:
        lo, hi = _float(piece[0]), _float(piece[1])
        if lo is None or hi is None or not lo < hi:
            return None  # a point, an empty or reversed piece, or an end we cannot place: the worker's
        a, b, a_open, b_open = piece
        keyed.append((lo, hi, (a, b, a_open or _infinite(a), b_open or _infinite(b))))  # an infinite end is open
    keyed.sort(key=lambda k: k[0])
    for (_, hi, _), (lo, _, _) in itertools.pairwise(keyed):
        if not hi < lo - 1e-9 * max(1.0, abs(lo)):
            return None  # touching or overlapping pieces: merging is the worker's
    return [piece for _, _, piece in keyed]


@lru_cache(maxsize=16384)
def _bounded(gold: str, pred: str, conventions: Conventions, limits: Limits) -> Tri:
    g = read_answer(gold, limits, conventions.log_base)  # ParseError for an unreadable gold goes to the caller
    if _text_key(gold) == _text_key(pred):
        return True
    try:
        p = read_answer(pred, limits, conventions.log_base)
    except ParseError:
        return False  # the worker's parse refuses it too (the light parse refuses no more than it does)
    except RecursionError:
        return None
    return BoundedComparer(conventions).answers(g, p)


def bounded_equal(gold: str, pred: str, conventions: Conventions = DEFAULT,
                  limits: Limits = DEFAULT_LIMITS) -> Tri:
    """True/False when bounded arithmetic decides ``gold == pred``, None when only the worker can.

    Raises ParseError when ``gold`` cannot be read; an unreadable ``pred`` is False.
    """
    return _bounded(gold, pred, conventions, limits)



def clear_cache() -> None:
    """Forget remembered bounded comparisons and light parses."""
    _bounded.cache_clear()
    parse_cache_clear()
