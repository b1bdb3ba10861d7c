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

from dataclasses import replace
from fractions import Fraction
from functools import lru_cache

from .answer import Answer
from .conventions import DEFAULT, Conventions
from .latex_lexer import ParseError, normalize
from .light import FUNC, MUL, POW, SYM, Node, num
from .limits import DEFAULT_LIMITS, Limits
from .parse import clear_cache as parse_cache_clear
from .parse import normalize_text, read_answer
from .surds import Surd, Undecidable, evaluate

Tri = bool | None


def _text_key(s: str) -> str:
    return "".join(normalize(s).split())


def _choice_key(s: str) -> str:
    return normalize_text(s).strip("() ")


def _any(results: list[Tri]) -> Tri:
    if True in results:
        return True
    return None if None in results else False


def _all(results: list[Tri]) -> Tri:
    if False in results:
        return False
    return None if None in results else True


def _value(node: Node) -> Surd | None:
    if node.symbols or node.has_infinity:
        return None
    try:
        return evaluate(node)
    except (Undecidable, ZeroDivisionError, OverflowError, ValueError):
        return None


def numbers(a: Node, b: Node, approx: bool, conventions: Conventions) -> Tri:
    """Two constant light trees (the gold first) compared as the worker's comparison would, when
    bounded arithmetic decides it."""
    va, vb = _value(a), _value(b)
    if va is None or vb is None:
        return None
    qa, qb = va.rational, vb.rational
    gold_integer = qa is not None and qa.denominator == 1
    if qa is not None and qb is not None:
        if approx and conventions.precision is not None:
            return round(qa, conventions.precision) == round(qb, conventions.precision)
        if not approx or gold_integer:
            return qa == qb
        return conventions.within(qa, qb, approx=True)
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
            return _any([self.answers(gv, pv) for gv in (g, g.alt) if gv is not None
                         for pv in (p, p.alt) if pv is not None and (gv, pv) != (g, p)]
                        + [self.answers(replace(g, alt=None), replace(p, alt=None))])
        if g.kind == "text" or p.kind == "text":
            if g.kind == p.kind and g.value == p.value:
                return True
            return bool(g.text) and _choice_key(g.text) == _choice_key(p.text)
        return _any([self.plain(gv, pv) for gv in self.variants(g) for pv in self.variants(p)])

    def variants(self, a: Answer) -> list[Answer | None]:
        out: list[Answer | None] = [a]
        if a.kind == "expr" and not a.huge:
            if a.percent:
                out.append(replace(a, value=Node(MUL, (a.value, num(Fraction(1, 100))))))
            if a.degree:
                out.append(None)  # 30° as pi/6: pi is the worker's
        return out

    def reduce(self, a: Answer, last_side: bool = False) -> Answer:
        if a.kind == "equation":
            lhs, rhs = a.value
            if (lhs.op == SYM or _is_label(lhs)) and not (lhs.symbols & rhs.symbols):
                return replace(a, kind="expr", value=rhs)
            if rhs.op == SYM and rhs not in lhs.symbols:
                return replace(a, kind="expr", value=lhs)
            if last_side:
                return replace(a, kind="expr", value=rhs)
        if a.kind == "multi":
            return replace(a, value=tuple(self.reduce(x, last_side) for x in a.value))
        return a

    def plain(self, g: Answer | None, p: Answer | None) -> Tri:
        if g is None or p is None:
            return None
        if g.kind == "equation" and p.kind == "equation":
            return True if g.value == p.value or g.value == p.value[::-1] else None
        if g.huge or p.huge:
            return None
        g = self.reduce(g)
        p = self.reduce(p, last_side=not _has_equation(g))
        kinds = {g.kind, p.kind}
        if "equation" in kinds:
            return False if p.kind == "equation" and kinds <= {"equation", "expr", "set", "multi"} else None
        if g.kind == "expr" and p.kind == "expr":
            return self.exprs(g.value, p.value, g.approx or p.approx)
        if kinds <= {"expr", "set", "multi"}:
            return self.unordered(_elements(g), _elements(p))
        if g.kind in ("set", "multi") and p.kind == "tuple":
            return self.unordered(_elements(g), _elements(p))
        if kinds <= {"tuple", "multi"}:
            gs, ps = _elements(g), _elements(p)
            if len(gs) != len(ps):
                return False
            return _all([self.answers(a, b) for a, b in zip(gs, ps)])
        return None  # intervals, relations, matrices: the worker's

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


def _elements(a: Answer) -> list[Answer]:
    if a.kind == "multi":
        return list(a.value)
    if a.kind == "expr":
        return [a]
    return [replace(a, kind="expr", value=e) for e in a.value]


def _has_equation(a: Answer) -> bool:
    return a.kind == "equation" or (a.kind == "multi" and any(x.kind == "equation" for x in a.value))


@lru_cache(maxsize=16384)
def _bounded(gold: str, pred: str, conventions: Conventions, limits: Limits) -> Tri:
    g = read_answer(gold, limits, conventions.log_base)  # ParseError for an unreadable gold goes to the caller
    if _text_key(gold) == _text_key(pred):
        return True
    try:
        p = read_answer(pred, limits, conventions.log_base)
    except (ParseError, RecursionError):
        return None  # the worker's parse decides (an unreadable prediction is wrong there)
    return BoundedComparer(conventions).answers(g, p)


def bounded_equal(gold: str, pred: str, conventions: Conventions = DEFAULT,
                  limits: Limits = DEFAULT_LIMITS) -> Tri:
    """True/False when bounded arithmetic decides ``gold == pred``, None when only the worker can.

    Raises ParseError when ``gold`` cannot be read; a ``pred`` it cannot read is left to the worker.
    """
    return _bounded(gold, pred, conventions, limits)



def clear_cache() -> None:
    """Forget remembered bounded comparisons and light parses."""
    _bounded.cache_clear()
    parse_cache_clear()
