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

``quick_equal`` decides what bounded arithmetic can, without sympy, and answers None for the rest
(it runs in the calling process: the rule is in :mod:`grpo_rewards_math.bounded`);
``symbolic_equal`` does all of it and is meant to run in a worker process under a hard deadline;
``is_equal`` does both in-process (tests, benchmarks).
Unevaluated towers (``9^{9^{9^9}}``, ``100000!``) are only ever compared structurally: past the size bounds
``symbolic_equal`` answers None (undecided) where structure shows neither sameness nor a difference, so
``(1+\\sqrt2)^{99999}-(1+\\sqrt2)^{99999}`` is 0, and an answer it cannot evaluate is never called wrong.

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

from .bounded import bounded_equal
from .budget import unbounded
from .compare import Comparer
from .conventions import Conventions
from .latex_lexer import normalize
from .limits import DEFAULT_LIMITS, Limits
from .parse import Answer, ParseError, parse_answer

__all__ = ["ParseError", "is_equal", "quick_equal", "symbolic_equal"]


def _text_key(s: str) -> str:
    return "".join(normalize(s).split())  # every whitespace character out (as re's \s+)


def _parse_pair(gold: str, pred: str, limits: Limits, log_base: int | None) -> tuple[Answer, Answer | None]:
    g = parse_answer(gold, limits, log_base)  # ParseError for an unparsable gold goes to the caller
    try:
        p = parse_answer(pred, limits, log_base)
    except ParseError:
        p = None
    return g, p


#: a plain number: an integer or decimal without leading zeros or separators (``.5`` is ``0.5``),
#: ``a/b`` or ``\\frac{a}{b}``
_PLAIN = re.compile(r"(-?)(?:(0|[1-9]\d{0,17}|(?=\.\d))(\.\d{1,12})?|([1-9]\d{0,8})/([1-9]\d{0,8})"
                    r"|\\frac\{([1-9]\d{0,8})\}\{([1-9]\d{0,8})\})")


def _plain_number(s: str) -> tuple[int, int, bool] | None:
    """``(numerator, denominator, written with a decimal point)`` of a plain number (the fraction as
    written, not reduced; the denominator positive), else None."""
    m = _PLAIN.fullmatch(s)
    if m is None:
        return None
    sign, whole, dec, num, den, fnum, fden = m.groups()
    if whole is not None:  # digits over a power of ten: what Fraction("12.5") computes, without its regex
        n, d = (int(whole + dec[1:]), 10 ** (len(dec) - 1)) if dec else (int(whole), 1)
    else:
        n, d = int(num or fnum), int(den or fden)
    return (-n if sign else n), d, dec is not None


def is_plain_number(s: str) -> bool:
    """Whether :func:`_plain_number` reads ``s`` (without building its value)."""
    return _PLAIN.fullmatch(s) is not None


def _plain_equal(gold: str, pred: str, conventions: Conventions) -> bool | None:
    """The comparison of two plain numbers without parsing (the same answer as ``Comparer`` gives:
    exact unless a side is a decimal; then within ``rel_tol`` or ``abs_tol``, except against an
    integer gold, or rounded to ``precision`` places); None when either side is not a plain number.
    Exact equality is decided on the integers as written (no Fraction is built unless a tolerance
    or a rounding has to decide)."""
    if gold == pred:  # one text: equal when it is a plain number (its value equals itself)
        return True if is_plain_number(gold) else None
    g, p = _plain_number(gold), _plain_number(pred)
    if g is None or p is None:
        return None
    (gn, gd, g_approx), (pn, pd, p_approx) = g, p
    if gn * pd == pn * gd:
        return True
    if not (g_approx or p_approx):
        return False
    a, b = Fraction(gn, gd), Fraction(pn, pd)
    if conventions.precision is not None:
        return round(a, conventions.precision) == round(b, conventions.precision)
    if a.denominator == 1:
        return False
    return conventions.within(a, b, approx=True)


@lru_cache(maxsize=64)
def _comparer(conventions: Conventions) -> Comparer:
    """One (stateless) symbolic comparer per configuration, not one per comparison."""
    return Comparer(conventions, symbolic=True)


@lru_cache(maxsize=4096)
def _symbolic(gold: str, pred: str, conventions: Conventions, limits: Limits) -> bool | None:
    with unbounded():  # in a worker, under the core's hard deadline
        g, p = _parse_pair(gold, pred, limits, conventions.log_base)
        if p is None:
            return False
        decided = _comparer(conventions).answers(g, p)
        return None if decided is None else bool(decided)  # None: past the size bounds, undecided


def conventions_of(rel_tol: float = 1e-6, precision: int | None = None, abs_tol: float = 0.0,
                   log_base: int | None = None, trailing_units: str = "ignore") -> Conventions:
    """The :class:`~grpo_rewards_math.conventions.Conventions` of these keyword arguments."""
    return Conventions(float(rel_tol), float(abs_tol), precision, log_base, trailing_units)


def quick_equal(gold: str, pred: str, *, rel_tol: float = 1e-6, limits: Limits = DEFAULT_LIMITS,
                precision: int | None = None, abs_tol: float = 0.0, log_base: int | None = None,
                trailing_units: str = "ignore") -> bool | None:
    """Bounded check: True/False when decided by bounded arithmetic, None when only symbolic work
    can decide (:mod:`grpo_rewards_math.bounded`: no sympy, cost bounded by the input's size).

    Raises ParseError when ``gold`` cannot be parsed.
    """
    return decide(gold, pred, conventions_of(rel_tol, precision, abs_tol, log_base, trailing_units), limits)


def decide(gold: str, pred: str, conventions: Conventions, limits: Limits = DEFAULT_LIMITS) -> bool | None:
    """:func:`quick_equal` with the conventions as one value (what the reward calls, per sample)."""
    if not isinstance(gold, str):
        raise ParseError(f"gold answer must be a str, not {type(gold).__name__}")
    if not isinstance(pred, str):
        return False
    plain = _plain_equal(gold, pred, conventions)
    if plain is not None:
        return plain
    return bounded_equal(gold, pred, conventions, limits)


def symbolic_equal(gold: str, pred: str, *, rel_tol: float = 1e-6, limits: Limits = DEFAULT_LIMITS,
                   precision: int | None = None, abs_tol: float = 0.0, log_base: int | None = None,
                   trailing_units: str = "ignore") -> bool | None:
    """Full check (may be slow: run it under a hard deadline): True or False, or None when the answers are past
    the size bounds and their structure decides nothing (undecided). Raises ParseError for an unparsable gold."""
    if not isinstance(gold, str):
        raise ParseError(f"gold answer must be a str, not {type(gold).__name__}")
    if not isinstance(pred, str):
        return False
    conventions = conventions_of(rel_tol, precision, abs_tol, log_base, trailing_units)
    decided = quick_equal(gold, pred, rel_tol=rel_tol, limits=limits, precision=precision, abs_tol=abs_tol,
                          log_base=log_base, trailing_units=trailing_units)
    if decided is not None:  # what bounded arithmetic decides exactly (the conjugate surds of bounded.py)
        return decided
    return _symbolic(gold, pred, conventions, limits)


def is_equal(gold: str, pred: str, *, rel_tol: float = 1e-6, limits: Limits = DEFAULT_LIMITS,
             precision: int | None = None, abs_tol: float = 0.0, log_base: int | None = None,
             trailing_units: str = "ignore") -> bool | None:
    """``quick_equal`` then, when undecided, ``symbolic_equal``, in this process (None: past the size bounds)."""
    return symbolic_equal(gold, pred, rel_tol=rel_tol, limits=limits, precision=precision, abs_tol=abs_tol,
                          log_base=log_base, trailing_units=trailing_units)
