"""Answer equivalence in increasing cost.

1. normalised text (delimiters, \\left/\\right, spacing, \\dfrac, \\boxed removed) is identical;
2. both parsed (eval-free, size-guarded) and compared by structure: sets unordered, tuples ordered,
   intervals with their ends and openness (unions merged), equations by their solution (``x = 3``
   against ``3``; proportional equations), inequalities as intervals, matrices element-wise,
   several answers as a set, ``50%`` also as 0.5, ``30^\\circ`` also as pi/6;
3. numbers: exact rationals exactly, anything written with a decimal point within ``rel_tol``
   (against an integer gold: exactly), or with ``precision`` rounded to that many decimal places;
   other constants numerically at 30 digits; expressions at four fixed points with both signs;
4. (symbolic only) ``simplify(a - b) == 0`` when evaluation at points cannot decide.

``quick_equal`` does 1-3 under size limits and a CPU-time budget, answering None when it cannot decide
(it may run in the trainer process); ``symbolic_equal`` does all of it and is meant to run in a
worker process under a hard deadline; ``is_equal`` does both in-process (tests, benchmarks).
Unevaluated towers (``9^{9^{9^9}}``, ``100000!``) are only ever compared structurally.

>>> quick_equal(r"\\frac{1}{2}", "0.5"), quick_equal("x = 3", "3"), quick_equal(r"\\{1,2\\}", "2, 1")
(True, True, True)
>>> symbolic_equal("(x+1)^2", "x^2+2x+1"), symbolic_equal(r"\\sin^2 x + \\cos^2 x", "1")
(True, True)
>>> is_equal("50\\\\%", "0.5"), is_equal("3", "4")
(True, False)
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache

from .budget import BudgetExceeded, time_budget, unbounded
from .compare import Comparer
from .latex_lexer import normalize
from .limits import DEFAULT_LIMITS, Limits
from .parse import Answer, ParseError, parse_answer

__all__ = ["ParseError", "is_equal", "quick_equal", "symbolic_equal"]


def _text_key(s: str) -> str:
    return "".join(normalize(s).split())  # every whitespace character out (as re's \s+)


def _parse_pair(gold: str, pred: str, limits: Limits) -> tuple[Answer, Answer | None]:
    g = parse_answer(gold, limits)  # ParseError for an unparsable gold goes to the caller
    try:
        p = parse_answer(pred, limits)
    except ParseError:
        p = None
    return g, p


#: a plain number: an integer or decimal without leading zeros or separators, ``a/b`` or ``\\frac{a}{b}``
_PLAIN = re.compile(r"(-?)(?:(0|[1-9]\d{0,17})(\.\d{1,12})?|([1-9]\d{0,8})/([1-9]\d{0,8})"
                    r"|\\frac\{([1-9]\d{0,8})\}\{([1-9]\d{0,8})\})")


def _plain_number(s: str) -> tuple[Fraction, bool] | None:
    """``(exact value, written with a decimal point)`` of a plain number, else None."""
    m = _PLAIN.fullmatch(s)
    if m is None:
        return None
    sign, whole, dec, num, den, fnum, fden = m.groups()
    if whole is not None:
        v = Fraction(whole + (dec or ""))
    else:
        v = Fraction(int(num or fnum), int(den or fden))
    return (-v if sign else v), dec is not None


def _plain_equal(gold: str, pred: str, rel_tol: float, precision: int | None) -> bool | None:
    """The comparison of two plain numbers without parsing (the same answer as ``Comparer`` gives:
    exact unless a side is a decimal; then within ``rel_tol``, except against an integer gold, or
    rounded to ``precision`` places); None when either side is not a plain number."""
    g, p = _plain_number(gold), _plain_number(pred)
    if g is None or p is None:
        return None
    (a, ga), (b, pa) = g, p
    if a == b:
        return True
    approx = ga or pa
    if approx and precision is not None:
        return round(a, precision) == round(b, precision)
    if not approx or a.denominator == 1:
        return False
    scale = max(abs(a), abs(b))
    return abs(a - b) <= Fraction(rel_tol) * scale * Fraction(1_000_000_001, 1_000_000_000)


#: CPU-time budget (seconds, this thread) of one uncached ``quick_equal`` call, sympy's import
#: excluded; when it is spent the answer is None (undecided) and is not cached.
QUICK_BUDGET_S = 0.015
#: predictions longer than this are not parsed in-process (after the text compare): None
QUICK_MAX_PRED_CHARS = 400


@lru_cache(maxsize=1)
def _warm_up() -> None:
    from .numeric import warm_up

    warm_up()


@lru_cache(maxsize=64)
def _comparer(rel_tol: float, symbolic: bool, precision: int | None) -> Comparer:
    """One (stateless) comparer per configuration, not one per comparison."""
    return Comparer(rel_tol, symbolic=symbolic, precision=precision)


@lru_cache(maxsize=16384)
def _quick(gold: str, pred: str, rel_tol: float, limits: Limits, precision: int | None = None) -> bool | None:
    _warm_up()  # sympy's import and lazy paths: outside the budget
    with time_budget(QUICK_BUDGET_S):
        g = parse_answer(gold, limits)  # ParseError for an unparsable gold goes to the caller
        if len(pred) > limits.max_chars:
            return False
        if _text_key(gold) == _text_key(pred):
            return True
        if len(pred) > QUICK_MAX_PRED_CHARS:
            return None  # long model output: left to the symbolic check in a worker
        try:
            p = parse_answer(pred, limits)
        except ParseError:
            return False
        return _comparer(rel_tol, False, precision).answers(g, p)


@lru_cache(maxsize=4096)
def _symbolic(gold: str, pred: str, rel_tol: float, limits: Limits, precision: int | None = None) -> bool:
    with unbounded():  # in a worker, under the core's hard deadline
        g, p = _parse_pair(gold, pred, limits)
        if p is None:
            return False
        return bool(_comparer(rel_tol, True, precision).answers(g, p))


def quick_equal(gold: str, pred: str, *, rel_tol: float = 1e-6, limits: Limits = DEFAULT_LIMITS,
                precision: int | None = None) -> bool | None:
    """Bounded check: True/False when decided cheaply, None when only symbolic work can decide.

    Bounded by the size limits and by a time budget (``QUICK_BUDGET_S``): a pair that needs more
    is None, never a wrong answer.

    Raises ParseError when ``gold`` cannot be parsed; an unparsable ``pred`` is False.
    """
    if not isinstance(gold, str):
        raise ParseError(f"gold answer must be a str, not {type(gold).__name__}")
    if not isinstance(pred, str):
        return False
    plain = _plain_equal(gold, pred, float(rel_tol), precision)
    if plain is not None:
        return plain
    try:
        return _quick(gold, pred, float(rel_tol), limits, precision)
    except BudgetExceeded:
        return None


def symbolic_equal(gold: str, pred: str, *, rel_tol: float = 1e-6, limits: Limits = DEFAULT_LIMITS,
                   precision: int | None = None) -> bool:
    """Full check (may be slow: run it under a hard deadline). Raises ParseError for an unparsable gold."""
    if not isinstance(gold, str):
        raise ParseError(f"gold answer must be a str, not {type(gold).__name__}")
    if not isinstance(pred, str):
        return False
    return _symbolic(gold, pred, float(rel_tol), limits, precision)


def is_equal(gold: str, pred: str, *, rel_tol: float = 1e-6, limits: Limits = DEFAULT_LIMITS,
             precision: int | None = None) -> bool:
    """``quick_equal`` then, when undecided, ``symbolic_equal``, in this process."""
    r = quick_equal(gold, pred, rel_tol=rel_tol, limits=limits, precision=precision)
    if r is not None:
        return r
    return symbolic_equal(gold, pred, rel_tol=rel_tol, limits=limits, precision=precision)
