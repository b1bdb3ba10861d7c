"""Eval-free parsing of an extracted answer string into an :class:`Answer` of sympy objects.

The text is normalised and tokenised by :mod:`latex_lexer` and parsed by our own recursive-descent
grammar (:mod:`.grammar`: ``grammar/parser.py`` for operators, ``grammar/atoms.py`` for atoms,
``grammar/units.py`` for units) that constructs sympy objects directly through a size-guarded
:class:`~grpo_rewards_math.build.Builder`. Nothing here hands text to ``sympify``, ``parse_expr``,
``eval`` or ``exec``.

>>> parse_answer(r"\\frac{1}{2}").value
1/2
>>> parse_answer(r"x = 3").kind, parse_answer(r"(1, 2]").kind, parse_answer(r"\\text{Yes.}").value
('equation', 'interval', 'yes')
>>> parse_answer(r"1 \\pm \\sqrt{2}").kind
'multi'
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from .answer import KINDS, Answer
from .budget import BudgetExceeded, budget_active, time_budget
from .build import Builder
from .grammar import FUNCS, GREEK, Parser
from .latex_lexer import ParseError, normalize, tokenize
from .light import LightBuilder
from .limits import DEFAULT_LIMITS, Limits
from .numeric import warm_up
from .plain import plain_value

__all__ = ["KINDS", "Answer", "ParseError", "parse_answer", "read_answer"]

_WHOLE_TEXT_RE = re.compile(r"^\\(?:text|textbf|textit|textrm|mbox|mathrm|textnormal)\s*\{(.*)\}$", re.S)
_PLAIN_TEXT_RE = re.compile(r"[A-Za-z][A-Za-z'\- ]*[!?]?")
_CHOICE_RE = re.compile(r"\(?\s*([A-Z])\s*\)?|\(?\s*([a-e])\s*\)")
_MATH_WORDS = FUNCS | {"pi", "sqrt", "inf", "infty", "infinity", "or", "and"} | GREEK


def _balanced(s: str) -> bool:
    depth = 0
    for c in s:
        depth += {"{": 1, "}": -1}.get(c, 0)
        if depth < 0:
            return False
    return depth == 0


_SPACES_RE = re.compile(r"\s+")
_LETTERS_RE = re.compile(r"[A-Za-z]+")


def normalize_text(s: str) -> str:
    """Normalised form of a plain-text answer: lower case, single spaces, no end punctuation."""
    s = _SPACES_RE.sub(" ", s.strip().lower())
    return s.strip(" .!?;:")


def _text_words(s: str) -> bool:
    """Plain words, one of two letters or more that is no math word (``no``, ``north east``)."""
    return _PLAIN_TEXT_RE.fullmatch(s) is not None and any(
        len(w) >= 2 and w.lower() not in _MATH_WORDS for w in _LETTERS_RE.findall(s))


def _as_text(s: str) -> str | None:
    m = _CHOICE_RE.fullmatch(s)
    if m:
        return (m.group(1) or m.group(2)).lower()
    if _PLAIN_TEXT_RE.fullmatch(s):
        words = _LETTERS_RE.findall(s)
        if any(len(w) >= 3 and w.lower() not in _MATH_WORDS for w in words):
            return normalize_text(s)
    return None


def _max_bracket_depth(s: str) -> int:
    depth = best = 0
    for c in s:
        if c in "([{":
            depth += 1
            best = max(best, depth)
        elif c in ")]}":
            depth -= 1
    return best


def _expand_pm(ans: Answer, pm: Any) -> Answer:
    """Replace the ``\\pm`` placeholder by +1 and -1: one answer becomes a ``multi`` of two."""
    if "\\pm" not in ans.text and "\\mp" not in ans.text:  # the placeholder is only built for these commands
        return ans
    if not any(pm in e.free_symbols for e in ans.exprs()):
        return ans
    if ans.huge:
        raise ParseError("\\pm together with an unevaluated tower")
    out = []
    for sign in (1, -1):
        def sub(e: Any, sign: int = sign) -> Any:
            return e.subs(pm, sign)

        v = ans.value
        if ans.kind == "expr":
            nv: Any = sub(v)
        elif ans.kind in ("set", "tuple", "equation"):
            nv = tuple(sub(e) for e in v)
        elif ans.kind == "interval":
            nv = tuple((sub(a), sub(b), lo, hi) for a, b, lo, hi in v)
        elif ans.kind == "relation":
            nv = (tuple(sub(e) for e in v[0]), v[1])
        elif ans.kind == "matrix":
            nv = tuple(tuple(sub(e) for e in row) for row in v)
        else:  # pragma: no cover - multi is expanded item by item
            raise ParseError("\\pm inside a nested answer")
        out.append(ans.replace(value=nv))
    return Answer("multi", tuple(out), text=ans.text, approx=ans.approx, percent=ans.percent,
                  degree=ans.degree, units=ans.units)


_TIME_RE = re.compile(r"(\d{1,2}):(\d\d)(?::(\d\d))?\s*(?:\\(?:text|mathrm)\{\s*)?"
                      r"(?:([ap])\.?\s?m\.?)?\}?", re.IGNORECASE)
_CASES_RE = re.compile(r"\\begin\{(cases|aligned|align\*?|gathered|gather\*?|array)\}(.*)\\end\{\1\}", re.S)
_PRIMED_RE = re.compile(r"[A-Za-z]'+")
_RELATION_RE = re.compile(r"[<>]|\\(?:le|ge|ne|lt|gt|leq|geq|neq)(?![A-Za-z])")
_DECIMAL_COMMA_RE = re.compile(r"-?\d+,\d+")
_THOUSANDS_RE = re.compile(r"-?[1-9]\d{0,2}(?:,\d{3})+")


def _time(s: str) -> Answer | None:
    """``14:05``, ``14:05:00``, ``2:05 p.m.``: a time of day, compared as ``time HH:MM:SS``."""
    m = _TIME_RE.fullmatch(s)
    if not m:
        return None
    h, mi, sec = int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)
    half = (m.group(4) or "").lower()
    if half and not 1 <= h <= 12:
        return None
    if half == "p" and h != 12:
        h += 12
    elif half == "a" and h == 12:
        h = 0
    if h > 24 or mi > 59 or sec > 59:
        return None
    return Answer("text", f"time {h:02d}:{mi:02d}:{sec:02d}", text=s)


#: CPU seconds one parse may take when no other budget is running (in-process callers such as the
#: reward's "can the parser read this answer?"); a parse over it is a ParseError there. The symbolic
#: check in a worker parses without this bound (under its hard deadline instead).
PARSE_BUDGET_S = 0.015


def parse_answer(text: str, limits: Limits = DEFAULT_LIMITS, log_base: int | None = None) -> Answer:
    """Parse one extracted answer; raises :class:`ParseError` when it cannot (message says why).

    ``log_base``: the base of a bare ``\\log`` (None: e, natural; 10 or 2 as some curricula read it).
    Bounded: outside any budget, a parse gets :data:`PARSE_BUDGET_S` of CPU time.
    """
    if budget_active():
        return _parse_answer(text, limits, log_base)
    warm_up()  # sympy's import and lazy paths: outside the budget
    try:
        with time_budget(PARSE_BUDGET_S):
            return _parse_answer(text, limits, log_base)
    except BudgetExceeded as exc:
        raise ParseError(f"parsing took more than {PARSE_BUDGET_S * 1000:.0f} ms of CPU time") from exc


def read_answer(text: str, limits: Limits = DEFAULT_LIMITS, log_base: int | None = None) -> Answer:
    """The same parse as :func:`parse_answer` with light trees (:mod:`grpo_rewards_math.light`) for
    values: no sympy, nothing evaluated, so bounded by the size of the text by construction (what
    the calling process may run). Raises :class:`ParseError` like :func:`parse_answer`, give or take
    the errors only sympy's evaluation finds (a zero denominator hidden in an expression).

    >>> read_answer(r"\\frac{1}{2}").value
    mul(1, pow(2, -1))
    """
    return _parse_answer(text, limits, log_base, True)


def clear_cache() -> None:
    """Forget remembered parses."""
    _parse_answer.cache_clear()


@lru_cache(maxsize=8192)
def _parse_answer(text: str, limits: Limits = DEFAULT_LIMITS, log_base: int | None = None,
                  light: bool = False) -> Answer:
    if not isinstance(text, str) or len(text) > limits.max_chars:
        return _unchecked(text, limits, light)
    s = normalize(text)
    # each special form below is tried only when the character it needs is there (same result, less work)
    cases = _CASES_RE.fullmatch(s) if "\\begin" in s else None
    if cases and "\\begin" not in cases.group(2):  # a system written as cases: its rows are its items
        rows = cases.group(2).replace("&", " ").replace("\\\\", ",").strip().rstrip(",")
        return _parse(rows, limits, log_base, light)
    if "'" in s and _PRIMED_RE.fullmatch(s):  # g'': a symbol answer, compared as text
        return Answer("text", s, text=s)
    if len(s) <= 40 and (":" in s or "," in s):
        clock = _time(s) if ":" in s else None
        if clock is not None:  # 7:32 may also be a ratio
            try:
                return clock.replace(alt=_parse(text, limits, log_base, light))
            except ParseError:
                return clock
        if _DECIMAL_COMMA_RE.fullmatch(s) and not _THOUSANDS_RE.fullmatch(s):  # 0,25: a decimal comma
            decimal = _parse(s.replace(",", "."), limits, log_base, light)
            return decimal.replace(alt=_parse(s, limits, log_base, light))
    try:
        return _parse_normalized(text, s, limits, log_base, light)
    except ParseError:
        rest = _after_last_equals(s)
        if rest is None:
            raise
        try:
            return _parse(rest, limits, log_base, light)  # \\lim_{x \\to 0} \\frac{\\sin x}{x} = 1: the computed value
        except ParseError:
            pass
        raise


def _after_last_equals(s: str) -> str | None:
    """The text after the last ``=`` outside any group, or None."""
    depth, cut = 0, -1
    for i, c in enumerate(s):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "=" and depth == 0 and s[i - 1:i] not in ("<", ">", "!", "\\"):
            cut = i
    rest = s[cut + 1:].strip() if cut > 0 else ""
    if _RELATION_RE.search(rest):
        return None
    return rest or None


#: an unsigned or negative decimal numeral in ASCII digits and nothing else (no separators, exponent or unit)
_BARE_NUMBER_RE = re.compile(r"-?(?:[0-9]+(?:\.[0-9]+)?|\.[0-9]+)")


def _plain(text: str, limits: Limits, light: bool) -> Answer | None:
    """Long or deep but plain arithmetic (``((((7))))``, ``1+1+…+1``), read by the iterative
    :func:`~grpo_rewards_math.plain.plain_value` up to ``limits.max_plain_chars``; None otherwise."""
    if len(text) > limits.max_plain_chars:
        return None
    s = normalize(text)
    found = plain_value(s)
    if found is None:
        return None
    value, approx = found
    return Answer("expr", (LightBuilder if light else Builder)(limits).rational(value), text=s, approx=approx)


def _bare_number(s: str, limits: Limits, light: bool = False) -> Answer:
    """What the grammar gives a bare numeral (the builder's digit limits included), built directly."""
    builder = (LightBuilder if light else Builder)(limits)
    value = builder.number(s.lstrip("-"))
    if s.startswith("-"):
        value = -value  # a sympy number's negation: the grammar's evaluated (-1)*value, without Mul's work
    return Answer("expr", value, text=s, approx=builder.approx)


def _unchecked(text: Any, limits: Limits, light: bool) -> Answer:
    """What is not a string within ``max_chars``: a long plain arithmetic answer, else a ParseError."""
    if not isinstance(text, str):
        raise ParseError(f"answer must be a str, not {type(text).__name__}")
    plain = _plain(text, limits, light)
    if plain is not None:
        return plain
    raise ParseError(f"answer longer than max_chars={limits.max_chars}")


def _parse(text: str, limits: Limits, log_base: int | None = None, light: bool = False) -> Answer:
    if not isinstance(text, str) or len(text) > limits.max_chars:
        return _unchecked(text, limits, light)
    return _parse_normalized(text, normalize(text), limits, log_base, light)


def _parse_normalized(text: str, s: str, limits: Limits, log_base: int | None, light: bool) -> Answer:
    """:func:`_parse` of a checked ``text`` whose :func:`normalize` is ``s``."""
    if not s:
        raise ParseError("empty answer")
    if _BARE_NUMBER_RE.fullmatch(s):  # '12', '-0.5': the value the grammar builds, without tokens
        return _bare_number(s, limits, light)
    m = _WHOLE_TEXT_RE.match(s) if s[0] == "\\" else None
    if m and _balanced(m.group(1)):
        inner = m.group(1).strip()
        if not inner:
            raise ParseError("empty \\text{}")
        if not s.startswith("\\mathrm") and _text_words(inner):  # \text{no}: the word, not n*o
            return Answer("text", normalize_text(inner), text=inner)
        return _parse(inner, limits, log_base, light)
    as_text = _as_text(s) if s[0] == "(" or s[0].isalpha() else None  # both of its forms start so
    if as_text is not None:
        return Answer("text", as_text, text=s)
    if s.count("(") + s.count("[") + s.count("{") > limits.max_depth and _max_bracket_depth(s) > limits.max_depth:
        plain = _plain(text, limits, light)
        if plain is not None:
            return plain
        raise ParseError(f"nesting deeper than max_depth={limits.max_depth}")
    tokens = tokenize(s)
    if len(tokens) > limits.max_nodes:
        plain = _plain(text, limits, light)
        if plain is not None:
            return plain
        raise ParseError(f"more than max_nodes={limits.max_nodes} tokens")
    if len(tokens) == 1 and tokens[0].kind == "NUM":  # '1,000.99', '1.5e3': what the grammar builds of one number
        number = _bare_number(tokens[0].value, limits, light)
        return number.replace(text=s)
    builder = (LightBuilder if light else Builder)(limits, log_base)
    parser = Parser(tokens, builder)
    try:
        items = parser.parse_items()
    except RecursionError as exc:  # pragma: no cover - depth guard should fire first
        raise ParseError("nesting too deep") from exc
    except (TypeError, AttributeError, ZeroDivisionError, OverflowError, ValueError) as exc:
        if isinstance(exc, ParseError):
            raise
        raise ParseError(f"cannot build the expression: {exc}") from exc
    flags = (builder.approx, parser.percent, parser.degree, builder.huge)
    items = [_expand_pm(Answer(it.kind, it.value, s, *flags, alt=it.alt, units=parser.units_read), parser.plus_minus)
             for it in items]
    if len(items) == 1:
        return items[0]
    flat: list[Answer] = []
    for it in items:
        flat.extend(it.value if it.kind == "multi" else (it,))
    return Answer("multi", tuple(flat), text=s, approx=builder.approx, percent=parser.percent,
                  degree=parser.degree, huge=builder.huge, units=parser.units_read)
