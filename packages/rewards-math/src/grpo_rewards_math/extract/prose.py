r"""The last stated result in prose: the whole expression around the text's last number.

A number is never cut out of a larger expression: "So the result is \frac{7}{4}" gives
``\frac{7}{4}``, not ``4``; "so x = \sqrt{11}" gives ``x = \sqrt{11}``; "7 + 5 = 12" gives ``12``
(a computation's left side, one that holds a number, is dropped at its last ``=``).

The expression is grown from the last digit over what can belong to a formula: digits, operators,
brackets, LaTeX commands with their braced arguments, single letters, function names; a space is
crossed only next to an operator (``x = 5``, never ``a 5``). Linear in the text read.

>>> last_result("We get \\frac{7}{4}.")
'\\frac{7}{4}'
>>> last_result("The value is sqrt(2)/2")
'sqrt(2)/2'
>>> last_result("7 + 5 = 12 apples")
'12'
>>> last_result("It ends at 2:05 p.m. sharp")
'2:05 p.m.'
>>> last_result("The area is 12 cm^{2}.")
'12 cm^{2}'
"""

from __future__ import annotations

import re

from ..grammar.vocabulary import GREEK, UNITS
from .spans import MAX_ANSWER_CHARS, math_spans

#: The fallback reads only this many characters at the end of the text.
NUMBER_TAIL_CHARS = 65_536

_MATH_WORDS = frozenset({"sqrt", "pi", "sin", "cos", "tan", "cot", "sec", "csc", "log", "ln", "exp", "arcsin",
                         "arccos", "arctan", "frac", "infty"})
#: Unicode operators the lexer reads (U+2212 minus, ×, ·, ÷, ≤, ≥, ≠, ±, ≈; not the en dash of prose)
_UNICODE_OPERATORS = frozenset("\u2212×·÷⋅∗≤≥≠±∓≈")
#: Unicode symbols the lexer reads that stand for a value or a suffix (π, √, ∞, ², ³, °)
_UNICODE_SYMBOLS = frozenset("π√∞²³°")
_OPERATORS = set("+-*/^_=<>") | _UNICODE_OPERATORS
_OP_COMMANDS = frozenset({"cdot", "times", "div", "le", "leq", "ge", "geq", "ne", "neq", "pm", "mp", "approx",
                          "lt", "gt", "cup", "cap"})
_MATH_CHARS = set("0123456789.+-*/^_=<>()[]{}|!%:'") | _UNICODE_OPERATORS | _UNICODE_SYMBOLS
_CLOSERS = {")": "(", "]": "[", "}": "{"}
#: what extends a number to the right when written right after it (``(``, ``!``, ``%``, ``'``, ``²``, ...)
_EXTENDS_RIGHT = frozenset("({[!%'") | _UNICODE_SYMBOLS
_PM_RE = re.compile(r"\s*(?:[ap]\.\s?m\.|[AP]\.\s?M\.|[ap]m\b|[AP]M\b)")
_TIME_RE = re.compile(r"\d{1,2}:\d\d(?::\d\d)?$")
_SPACE_THOUSANDS_RE = re.compile(r"(?<![\d.,])\d{1,3}(?: \d{3})+$")
#: commands that stand for a value (``\\pi``, Greek letters): a space after one may be crossed to a
#: one-letter factor (``2\\pi r``)
_SYMBOL_COMMANDS = GREEK | {"pi"}
#: operators and one-letter symbols, ``pi`` or commands after the last number, up to the end or a full stop
_SYMBOL_TAIL_RE = re.compile(r"(?:(?:[ \t]*[-+*/^][ \t]*)?(?:(?:[A-Za-z]|pi)(?![A-Za-z])|\\[A-Za-z]+(?:\{[^{}\d]*\})*))+"
                             r"(?=[ \t]*(?:[.,;!?)]|$))")
#: the same, where a command may be followed by a space and a one-letter factor (kept only when each
#: such command is in :data:`_SYMBOL_COMMANDS`, checked with ``_SPACED_COMMAND_RE``)
_SPACED_SYMBOL_TAIL_RE = re.compile(r"(?:(?:[ \t]*[-+*/^][ \t]*)?(?:(?:[A-Za-z]|pi)(?![A-Za-z])"
                                    r"|\\[A-Za-z]+(?![A-Za-z{])[ \t]+(?=[A-Za-z](?![A-Za-z]))"
                                    r"|\\[A-Za-z]+(?:\{[^{}\d]*\})*))+(?=[ \t]*(?:[.,;!?)]|$))")
_COMMAND_NAME_RE = re.compile(r"\\([A-Za-z]+)")
_SPACED_COMMAND_RE = re.compile(r"\\([A-Za-z]+)[ \t]")
#: a number, then a unit raised to a power ("12 m^2", "12 cm^{2}", "5\text{ m}^3", "9.8 m/s^2"): the last digit
#: is the power's
_UNIT_POWER_RE = re.compile(r"\d\s*(?:\\(?:text|mathrm)\s*\{\s*)?((?:[A-Za-z]{1,3}\s*/\s*)?[A-Za-z]{1,3})\s*\}?\s*"
                            r"\^\s*\{?\s*[23]\s*\}?$")


def _command_start(text: str, j: int) -> int:
    """``text[j]`` is a letter: the index of the backslash of the command it ends, or -1."""
    k = j
    while k > 0 and text[k - 1].isalpha():
        k -= 1
    return k - 1 if k > 0 and text[k - 1] == "\\" else -1


def _word_start(text: str, j: int) -> int:
    k = j
    while k > 0 and text[k - 1].isalpha():
        k -= 1
    return k


def _opening(text: str, i: int, floor: int) -> int:
    """``text[i]`` closes a group: the index of the bracket that opens it, or -1."""
    depth = 0
    k = i
    while k >= max(floor, i - MAX_ANSWER_CHARS):
        c = text[k]
        if c in _CLOSERS and text[k - 1:k] != "\\":
            depth += 1
        elif c in "([{" and text[k - 1:k] != "\\":
            depth -= 1
            if depth == 0:
                return k
        k -= 1
    return -1


def _grow_left(text: str, j: int, floor: int) -> int:
    """Start index of the expression that ends at ``text[j]``."""
    start = j + 1
    i = j
    while i >= floor:
        c = text[i]
        if c in _CLOSERS:  # a whole group: jump to its opening bracket
            k = _opening(text, i, floor)
            if k < 0:
                break
            start = i = k
            i -= 1
            continue
        if c.isdigit() or c in _MATH_CHARS or c == "\\":
            if c == "." and not (i + 1 < len(text) and text[i + 1].isdigit()):
                break
            if c == ":" and not (i > 0 and text[i - 1].isdigit()):
                break
            start = i
            i -= 1
            continue
        if c == "," and i > 0 and text[i - 1].isdigit() and i + 1 < len(text) and text[i + 1].isdigit():
            start = i  # 1,234 or a decimal comma 3,40
            i -= 1
            continue
        if c.isalpha() and c.isascii():
            cmd = _command_start(text, i)
            if cmd >= floor:
                start = i = cmd
                i -= 1
                continue
            w = _word_start(text, i)
            word = text[w:i + 1]
            if len(word) == 1 or word.lower() in _MATH_WORDS:
                start = w
                i = w - 1
                continue
            break
        if c in " \t":
            k = i
            while k >= floor and text[k] in " \t":
                k -= 1
            if k < floor:
                break
            before, after = text[k], text[start] if start < len(text) else ""
            if _joins(text, k, before, after, start):
                i = k  # text[k] is read by the next round (a bracket it closes is jumped over there)
                continue
            break
        break
    return start


def _is_operator_end(text: str, k: int) -> bool:
    """``text[k]`` ends an operator (``=``, ``+``, ``\\le``, ...)."""
    c = text[k]
    if c in _OPERATORS:
        return True
    if c.isalpha():
        cmd = _command_start(text, k)
        return cmd >= 0 and text[cmd + 1:k + 1] in _OP_COMMANDS
    return False


def _joins(text: str, k: int, before: str, after: str, start: int) -> bool:
    """May a space between ``text[k]`` and ``text[start]`` be crossed?"""
    if _is_operator_end(text, k):
        return True
    if after in _OPERATORS:
        return True
    if after == "\\":
        m = _COMMAND_NAME_RE.match(text, start, start + 12)
        if m and m.group(1) in _OP_COMMANDS:
            return True
    cmd = _command_start(text, k) if before.isalpha() else -1
    if cmd >= 0 and after and not after.isalpha():
        return True  # \sqrt 2
    if cmd >= 0 and after.isalpha() and text[cmd + 1:k + 1] in _SYMBOL_COMMANDS:
        return not text[start + 1:start + 2].isalpha()  # \pi r: a symbol times a one-letter factor
    return False


def _balanced_span(s: str) -> str:
    """Trim unmatched brackets off both ends (a span grown out of "(so x = 3)")."""
    if "(" not in s and ")" not in s and "[" not in s and "]" not in s:  # (braces are never trimmed)
        return s.strip()
    for _ in range(8):
        before = s
        depth: dict[str, int] = {"(": 0, "[": 0, "{": 0}
        for c in s:
            if c in depth:
                depth[c] += 1
            elif c in _CLOSERS:
                depth[_CLOSERS[c]] -= 1
        if depth["("] > 0 and s.startswith("("):
            s = s[1:]
        elif depth["("] < 0 and s.endswith(")"):
            s = s[:-1]
        elif depth["["] > 0 and s.startswith("["):
            s = s[1:]
        elif depth["["] < 0 and s.endswith("]"):
            s = s[:-1]
        s = s.strip()
        if s == before:
            break
    return s


def _parens_balanced(s: str) -> bool:
    depth = 0
    for c in s:
        depth += (c == "(") - (c == ")")
        if depth < 0:
            return False
    return depth == 0


def _trim(s: str) -> str:
    s = s.strip()
    while s and (s[-1] in "=+*/^_<>:,(" or (s[-1] == "." and not s[-2:-1].isdigit())):
        s = s[:-1].rstrip()
    while s and s[0] in "=*/^_<>:,)":
        s = s[1:].lstrip()
    s = _balanced_span(s)
    if s.startswith("(") and s.endswith(")") and "=" in s and _parens_balanced(s[1:-1]):
        s = s[1:-1].strip()  # "(so x = 5)": the statement inside the parentheses
    return s


def _after_last_equals(s: str) -> str:
    """``7 + 5 = 12`` -> ``12``; ``x = \\sqrt{11}`` stays (its left side is a label, not a computation)."""
    if "=" not in s:
        return s
    depth = 0
    cut = -1
    for i, c in enumerate(s):
        depth += (c in "([{") - (c in ")]}")
        if c == "=" and depth == 0 and s[i - 1:i] not in ("<", ">", "!"):
            cut = i
    if cut < 0:
        return s
    left = s[:cut]
    if any(map(str.isdigit, left)) and s[cut + 1:].strip():
        return s[cut + 1:].strip()
    return s


_PI_RE = re.compile(r"(?:\\pi|(?<![A-Za-z\\])pi|π)(?![A-Za-z])")


def _last_pi(text: str, floor: int) -> int | None:
    """Index of the last character of the last ``pi``, ``\\pi`` or ``π`` (a whole word) at or after ``floor``."""
    end = -1
    for match in _PI_RE.finditer(text, floor):
        end = match.end()
    return None if end < 0 else end - 1


#: everything up to the last ASCII digit (matched from the end back: linear, in the regex engine)
_LAST_DIGIT_RE = re.compile(r".*[0-9]", re.DOTALL)


def _last_digit(text: str, floor: int) -> int:
    """Index of the last ASCII digit of ``text`` at or after ``floor``, -1 when there is none."""
    m = _LAST_DIGIT_RE.match(text, floor)
    return -1 if m is None else m.end() - 1


#: everything up to the last character that is not an ASCII digit (matched from the end back)
_BEFORE_DIGITS_RE = re.compile(r".*[^0-9]", re.DOTALL)
#: separators :func:`_bare_run` follows (1,000,000,000.99 has four); past them the growth reads the number
_MAX_SEPARATORS = 8
#: take :func:`_bare_run`'s shortcut (tests/math/test_fast_paths.py compares it with the growth)
BARE_RUNS = True


def _bare_run(text: str, j: int, floor: int) -> int:
    """The start of the number that ends at ``text[j]`` (runs of ASCII digits, each ``.`` or ``,``
    between two digits), when nothing on either side extends it (no operator, bracket, letter, unit
    or symbol tail), else -1: the span :func:`_grow_left` and the growth to the right would find, in
    a few steps ("The answer is 42.", "共300分钟", "costs 1,000.99€"). The left side is tested first:
    it fails most often."""
    before = _BEFORE_DIGITS_RE.match(text, floor, j + 1)
    separators = 0
    while before is not None:  # 1,000.99: a "." or "," between two digits joins the run before it
        separator = before.end() - 1
        if not (text[separator] in ".," and separator > floor and text[separator - 1].isdigit()):
            break
        separators += 1
        if separators > _MAX_SEPARATORS:  # (each step is a match from the floor: a bounded number of them)
            return -1
        before = _BEFORE_DIGITS_RE.match(text, floor, separator)
    if before is None:
        start = floor
    else:
        start = before.end()
        c = text[start - 1]
        if c in _MATH_CHARS or c == "\\" or c == ",":  # an operator, a bracket, a decimal point, a command
            return -1
        if c == " " or c == "\t":  # crossed only after an operator or a command (``x = 42``, ``\sqrt 2``)
            k = start - 2
            while k >= floor and text[k] in " \t":
                k -= 1
            if k >= floor:
                c = text[k]
                if c in _OPERATORS or (c.isalpha() and "\\" in text and _command_start(text, k) >= 0):
                    return -1
        elif c.isdigit() or (c.isascii() and c.isalpha()):
            return -1
    end = j + 1
    if end < len(text):
        c = text[end]
        if (c in _EXTENDS_RIGHT or c.isdigit() or (c in ".:" and text[end + 1:end + 2].isdigit())
                or (c.isascii() and c.isalpha() and not text[end + 1:end + 2].isalpha())):
            return -1
    if _SPACED_SYMBOL_TAIL_RE.match(text, end):  # "42 + x."
        return -1
    return start


def last_result(text: str) -> str | None:
    """The expression around the last number in the last :data:`NUMBER_TAIL_CHARS` of ``text``."""
    floor = max(0, len(text) - NUMBER_TAIL_CHARS)
    j = _last_digit(text, floor)
    digit = j >= 0
    if not digit:  # no digit at all: a result of pi alone ("So x = π.") is read at its last pi
        pi = _last_pi(text, floor)
        if pi is None:
            return None
        j = pi
    power = _UNIT_POWER_RE.search(text, max(floor, j - 40), j + 1 + (text[j + 1:j + 2] == "}"))
    if power and all(u.strip().lower() in UNITS for u in power.group(1).split("/")):
        # the number before the unit with its power, not the power
        j, end = power.start(), power.end()
        start = -1
    else:
        end = j + 1
        start = _bare_run(text, j, floor) if BARE_RUNS and digit else -1
    bare = start >= 0  # a number nothing around it extends: the span the growth below would find
    if not bare:
        start = _grow_left(text, j, floor)
        depth = 0
        for c in text[start:end]:
            depth += (c in "({[") - (c in ")}]")
        n = len(text)
        while end < n and end - start <= MAX_ANSWER_CHARS:  # grow right: close what is open, then suffixes
            c = text[end]
            if c in "({[":
                depth += 1
            elif c in ")}]":
                if depth <= 0:
                    break
                depth -= 1
            elif depth <= 0 and not (c.isdigit() or c in "!%'" or c in _UNICODE_SYMBOLS
                                     or (c in ".:" and text[end + 1:end + 2].isdigit())
                                     or (c.isascii() and c.isalpha() and not text[end + 1:end + 2].isalpha()
                                         and not text[end - 1].isalpha())):
                break
            end += 1
        if depth <= 0:  # "x = 5 + y": the expression goes on past the number with symbols (no digits are left)
            more = _SPACED_SYMBOL_TAIL_RE.match(text, end)
            if more and not all(name in _SYMBOL_COMMANDS for name in _SPACED_COMMAND_RE.findall(more.group())):
                more = _SYMBOL_TAIL_RE.match(text, end)
            if more:
                end = more.end()
    if end - start > MAX_ANSWER_CHARS:
        return None
    span = text[start:end]
    pm = _PM_RE.match(text, end)
    if pm and _TIME_RE.search(span):
        span += pm.group(0)
        return span.strip()
    thousands = _SPACE_THOUSANDS_RE.search(text, max(floor, start - 12), end)
    if thousands and thousands.start() < start and thousands.end() == end:
        span = text[thousands.start():end]
    if bare:  # digits and their separators, or spaced thousands: nothing to trim
        return span
    span = _after_last_equals(_trim(span))
    if not any(map(str.isdigit, span)) and _last_pi(span, 0) is None:
        return None
    if all(c.isdigit() or c in " ,./%-" for c in span):
        span = span.replace(" ", "") if "/" in span or "%" in span else span
    return span or None


def last_digit_after_math(text: str) -> bool:
    """Whether the text's last digit comes in a later sentence than its last ``$…$`` / ``\\(…\\)`` / ``\\[…\\]``."""
    floor = max(0, len(text) - NUMBER_TAIL_CHARS)
    j = _last_digit(text, floor)
    if j < 0:
        return False
    spans = math_spans(text[floor:])
    if not spans:
        return False
    end = floor + spans[-1][1] + 1
    if end >= j:
        return False
    between = text[end:j]  # only a later sentence counts: "$12$ square units (see Figure 1)" keeps 12
    return ". " in between or "\n" in between or ".\n" in between
