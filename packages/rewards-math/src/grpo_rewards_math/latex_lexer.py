"""Text normalisation and tokenisation of LaTeX / plain-text answers (no evaluation of anything).

>>> [t.kind for t in tokenize(normalize(r"\\left( \\dfrac{1}{2}, 3 \\right]"))]
['(', 'CMD', '{', 'NUM', '}', '{', 'NUM', '}', ',', 'NUM', ']']
>>> tokenize("1,000")[0].value
'1000'
"""

from __future__ import annotations

import re
from functools import lru_cache, partial
from typing import NamedTuple

from .budget import check_budget


class ParseError(ValueError):
    """The text cannot be parsed (malformed, unsupported, or over a size limit; the message says which)."""


def numeral_parts(text: str, max_digits: int) -> tuple[str, str, int, bool]:
    """A numeral's integer digits, fraction digits, exponent, and whether it is written as a decimal or
    with an exponent (``"1.5e3"`` -> ``("1", "5", 3, True)``); refused (:class:`ParseError`) past
    ``max_digits`` digits or an exponent past it: the one digit limit of both tree builders.

    >>> numeral_parts("1.5E3", 10), numeral_parts("12", 10)
    (('1', '5', 3, True), ('12', '', 0, False))
    """
    mant, _, exp = text.lower().partition("e")
    intpart, _, frac = mant.partition(".")
    if len(intpart.lstrip("0")) + len(frac) > max_digits:
        raise ParseError(f"number with more than max_digits={max_digits} digits")
    e = int(exp) if exp else 0
    if abs(e) > max_digits:
        raise ParseError("scientific exponent over max_digits")
    return intpart, frac, e, bool(frac or exp)


class Kind:
    """The kinds of token besides punctuation (whose kind is the character itself: ``(``, ``^``, ``,``)."""

    NUMBER = "NUM"  # digits, a decimal point, separators removed: ``1000``, ``0.25``
    WORD = "WORD"  # ASCII letters: ``x``, ``cm``, ``or``
    COMMAND = "CMD"  # a LaTeX command's name without the backslash: ``frac``, ``pi``
    TEXT = "TEXT"  # the content of ``\\text{…}`` (and its kin)
    BEGIN = "BEGIN"  # ``\\begin{env}``: the value is the environment's name
    END = "END"
    ROW_END = "ROWSEP"  # ``\\\\`` between matrix rows
    SET_OPEN = "SETOPEN"  # ``\\{``
    SET_CLOSE = "SETCLOSE"  # ``\\}``
    LESS_EQUAL = "LE"  # ``<=``
    GREATER_EQUAL = "GE"  # ``>=``
    NOT_EQUAL = "NE"  # ``!=``


class Token(NamedTuple):
    """One token (a named tuple: immutable, and built at a fraction of a frozen dataclass's cost)."""

    kind: str  # one of :class:`Kind`, or the punctuation character
    value: str
    space: bool = False  # whitespace before the token


_UNICODE = {
    "−": "-", "–": "-", "×": r"\times ", "·": r"\cdot ", "÷": r"\div ", "π": r"\pi ", "√": r"\sqrt ",
    "∞": r"\infty ", "≤": r"\le ", "≥": r"\ge ", "≠": r"\ne ", "°": r"^\circ ", "∪": r"\cup ",
    "±": r"\pm ", "∓": r"\mp ", "²": "^2 ", "³": "^3 ", "½": r"\frac{1}{2}", "¼": r"\frac{1}{4}",
    "¾": r"\frac{3}{4}", "⋅": r"\cdot ", "∗": "*", "≈": r"\approx ", "∈": r"\in ", "∅": r"\emptyset ", "\u00a0": " ", "\u2009": " ", "\u202f": " ",
}
_UNICODE_RE = re.compile("|".join(map(re.escape, _UNICODE)))
_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻", "0123456789+-")
_SUBSCRIPTS = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")
_SUPER_RE = re.compile("[⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻]+")
_SUB_RE = re.compile("[₀₁₂₃₄₅₆₇₈₉]+")
_CIRCLED_RE = re.compile("[\u2460-\u2473]")  # ① .. ⑳


def _scripts(s: str) -> str:
    """Unicode superscript, subscript and circled digits as LaTeX: ``2⁴`` -> ``2^{4}``, ``x₂`` -> ``x_{2}``, ``①`` -> ``1``."""
    s = _SUPER_RE.sub(lambda m: "^{" + m.group(0).translate(_SUPERSCRIPTS) + "}", s)
    s = _SUB_RE.sub(lambda m: "_{" + m.group(0).translate(_SUBSCRIPTS) + "}", s)
    return _CIRCLED_RE.sub(lambda m: str(ord(m.group(0)) - 0x245F), s)
_DELIM_RE = re.compile(r"\\(?:left|right|bigl|bigr|Bigl|Bigr|biggl|biggr|Biggl|Biggr|big|Big|bigg|Bigg)(?![A-Za-z])\s*")
_SPACING_RE = re.compile(r"\\\\|\\q?quad|\\(?:enspace|thinspace|medspace|thickspace|displaystyle|textstyle|"
                         r"limits)(?![a-z])|\\[,;: !]|~")
_COMMA_THOUSANDS_RE = re.compile(r"(\d),\s*(?:\\!|\{\})\s*(?=\d{3}(?!\d))")
_SPACE_THOUSANDS_RE = re.compile(r"(?<![\d.,])\d{1,3}(?: \d{3})+(?![\d.,])")
_NULL_DELIM_RE = re.compile(r"\\left\.|\\right\.")
_VARIANT_FRAC_RE = re.compile(r"\\[dtc]frac(?![A-Za-z])")
_DEGREE_RE = re.compile(r"\^\s*\{\s*\\circ\s*\}|\^\s*\\circ(?![A-Za-z])")
_DOLLAR_RE = re.compile(r"\\\$|\$")
_ONE_LETTER_RE = re.compile(r"\s*[A-Za-z]\s*")


# Replacements are functions, not templates: a template with a backslash (``\1``, ``\\frac``) makes
# ``sub`` run re's Python template code on every call, match or not; a function runs only on a match.
def _first_group(m: re.Match[str]) -> str:
    return m.group(1)


def _first_group_comma(m: re.Match[str]) -> str:
    return m.group(1) + ","


def _frac(m: re.Match[str]) -> str:
    return "\\frac"


def _degree(m: re.Match[str]) -> str:
    return "\\degree "


_THIN_THOUSANDS_RE = re.compile(r"(\d)(?:\\,|\\!|\{,\}|\\ )(?=\d{3}(?!\d))")
_ALIASES = {"lvert": "|", "rvert": "|", "vert": "|", "lVert": "|", "rVert": "|", "lbrace": r"\{", "rbrace": r"\}",
            "lbrack": "[", "rbrack": "]"}
_ALIAS_RE = re.compile(r"\\(" + "|".join(_ALIASES) + r")(?![A-Za-z])\s*")
_BOXED_RE = re.compile(r"\\(?:boxed|fbox|displaystyle\s*\\boxed)\s*\{")
_WRAPPED_RE = [
    re.compile(r"^\$\$(.*)\$\$$", re.S), re.compile(r"^\$(.*)\$$", re.S),
    re.compile(r"^\\\((.*)\\\)$", re.S), re.compile(r"^\\\[(.*)\\\]$", re.S),
]

_REPEATING_RE = re.compile(r"(\d*)\.(\d*)\\overline\s*\{(\d{1,30})\}")


def _repeating_to_fraction(m: re.Match[str]) -> str:
    """0.1\\overline{6} -> \\frac{1}{6}: a repeating decimal as the exact fraction it denotes."""
    whole, fixed, rep = m.group(1) or "0", m.group(2), m.group(3)
    whole, fixed = whole[:60], fixed[:60]
    num = int(whole + fixed + rep) - int(whole + fixed)
    den = (10 ** len(rep) - 1) * 10 ** len(fixed)
    return f"\\frac{{{num}}}{{{den}}}"


TEXT_CMDS = frozenset({"text", "textbf", "textit", "textrm", "textnormal", "texttt", "textsf", "mbox",
                       "mathrm", "textup", "emph", "hbox"})


# A LaTeX command whose backslash a Python string turned into a control character ("\frac" -> form feed + "rac").
_CONTROL_RE = re.compile(r"\x0c(?=rac)|\x08(?=oxed|inom|egin|eta|ar)|\x07(?=pprox|lpha)|\x0b(?=ec|ar)"
                         r"|\t(?=ext|imes|an|heta|frac|o\b)|\r(?=ight)")
_CONTROL = {"\x0c": "\\f", "\x08": "\\b", "\x07": "\\a", "\x0b": "\\v", "\t": "\\t", "\r": "\\r"}
_DOUBLED_CMD_RE = re.compile(r"(?<!\\)\\\\(?=[A-Za-z{}()\[\]|,%$])")
_DOUBLED_KNOWN_RE = re.compile(r"(?<!\\)\\\\(?=(?:[dt]?frac|sqrt|cdot|times|pi|left|right|le|ge|leq|geq|text|mathrm|"
                               r"infty|boxed)(?![A-Za-z]))")
_SINGLE_CMD_RE = re.compile(r"(?<!\\)\\[A-Za-z]")


_CONTROL_CHARS_RE = re.compile("[" + "".join(_CONTROL) + "]")


def repair_controls(text: str) -> str:
    """Control characters that a Python string made of a LaTeX command, turned back (``"\\x08oxed"`` -> ``\\boxed``)."""
    if _CONTROL_CHARS_RE.search(text) is None:
        return text
    return _CONTROL_RE.sub(lambda m: _CONTROL[m.group(0)], text)


def undouble(text: str) -> str:
    r"""Undo escaping that datasets and models add: doubled backslashes (``\\frac`` -> ``\frac``, when
    no command has a single one), control characters that were commands (form feed + ``rac``), and a
    trailing lone backslash.

    >>> undouble(r"-3 \\le x \\le 4"), undouble("42\\"), undouble("\x0crac12")
    ('-3 \\le x \\le 4', '42', '\\frac12')
    """
    s = repair_controls(text)
    if "\\\\" not in s:  # nothing doubled (every test below needs a doubled backslash)
        pass
    elif _DOUBLED_CMD_RE.search(s) and not _SINGLE_CMD_RE.search(s):
        s = s.replace("\\\\", "\\")
    else:  # one doubled command among single ones: "\\dfrac{1}{2} + \frac{1}{72}"
        s = _DOUBLED_KNOWN_RE.sub(lambda m: "\\", s)
    stripped = s.rstrip()
    if stripped.endswith("\\") and not stripped.endswith("\\\\"):
        s = stripped[:-1]
    return s


def _alias(m: re.Match[str]) -> str:
    return _ALIASES[m.group(1)]


@lru_cache(maxsize=16384)
def normalize(text: str) -> str:
    """Formatting-only rewrites: math delimiters, \\left/\\right, spacing, unicode, \\dfrac -> \\frac."""
    s = undouble(text).strip()
    changed = True
    while changed and s[:1] in ("$", "\\"):  # every wrapper below starts with one of these
        changed = False
        s = s.rstrip(". ")
        for rx in _WRAPPED_RE:
            m = rx.match(s)
            if m:
                s, changed = m.group(1).strip(), True
        m = _BOXED_RE.match(s)
        if m:
            try:
                inner, end = _read_braced(s, m.end() - 1)
            except ParseError:
                break
            if end == len(s):
                s, changed = inner.strip(), True
    s = s.rstrip(". ")  # what the loop's last round began with
    # each rewrite below runs only when the characters its pattern needs are there (same result, less work)
    if not s.isascii():  # unicode symbols and scripts
        s = _scripts(s)
        s = _UNICODE_RE.sub(lambda m: _UNICODE[m.group(0)], s)
    backslash = "\\" in s
    if backslash:
        s = _ALIAS_RE.sub(_alias, s)
    if "," in s:
        s = _COMMA_THOUSANDS_RE.sub(_first_group_comma, s)
    if backslash or "{,}" in s:  # what a thin-space thousands separator needs
        s = _THIN_THOUSANDS_RE.sub(_first_group, s)
    if " " in s:
        s = _SPACE_THOUSANDS_RE.sub(lambda m: m.group(0).replace(" ", ""), s)
    if backslash:
        if "overline" in s:
            s = _REPEATING_RE.sub(_repeating_to_fraction, s)
        if _DELIM_RE.search(s):  # \left( ... \right), \big|: sizing is formatting
            s = _NULL_DELIM_RE.sub("", s)
            s = _DELIM_RE.sub("", s)
    if backslash or "~" in s:
        s = _SPACING_RE.sub(lambda m: m.group(0) if m.group(0) == "\\\\" else ("" if m.group(0) == r"\!" else " "), s)
    if backslash:
        if "frac" in s:
            s = _VARIANT_FRAC_RE.sub(_frac, s)
        if "circ" in s:
            s = _DEGREE_RE.sub(_degree, s)
    if "$" in s:
        s = _DOLLAR_RE.sub(" ", s)
    s = s.strip().rstrip(". ").strip()
    return s


_DIGITS = frozenset("0123456789")
_NUM_RE = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\d,])|\d*\.\d+(?:[eE][+-]?\d+)?|\d+(?:[eE][+-]?\d+(?![A-Za-z]))?")
_PLAIN_NUM_RE = re.compile(r"\d*\.\d+(?:[eE][+-]?\d+)?|\d+(?:[eE][+-]?\d+(?![A-Za-z]))?")
_WORD_RE = re.compile(r"[A-Za-z]+")
#: "or"/"and" glued to the number before it and to the answer after it ("1orW", "2andx")
_GLUED_SEPARATOR_RE = re.compile(r"(or|and)([A-Z][A-Za-z]*|[a-z])")
_CMD_RE = re.compile(r"\\([A-Za-z]+)\s*\*?")
_TWO = {"**": "^", "<=": "LE", ">=": "GE", "!=": "NE", "=<": "LE", "=>": "GE"}
_SINGLE = set("+-*/^_()[]{}|,;=<>!'&:")


def braced_group(s: str, i: int, limit: int | None = None) -> tuple[str, int] | None:
    r"""``s[i] == "{"``: the balanced content and the index after the closing brace, or ``None``.

    Backslash escapes (``\{``, ``\}``) do not count; the scan stops after ``limit`` characters.

    >>> braced_group(r"{a{b}\}c}d", 0)
    ('a{b}\\}c', 9)
    """
    depth = 0
    j = i
    end = len(s) if limit is None else min(len(s), i + limit)
    while j < end:
        c = s[j]
        if c == "\\":
            j += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return s[i + 1 : j], j + 1
        j += 1
    return None


def _read_braced(s: str, i: int) -> tuple[str, int]:
    group = braced_group(s, i)
    if group is None:
        raise ParseError("unbalanced braces")
    return group


#: ``_token((kind, value, space))`` is ``Token(kind, value, space)`` without the named tuple's ``__new__``
#: (Python code run once per token; this is the C constructor it calls)
_token = partial(tuple.__new__, Token)


def tokenize(s: str) -> list[Token]:
    """Split normalised text into tokens; raises ParseError on characters we do not understand."""
    out: list[Token] = []
    i, n = 0, len(s)
    depth = 0  # open brackets, for telling 1,000 from the pair (1,000)
    space = False
    while i < n:
        if len(out) % 32 == 31:
            check_budget()
        c = s[i]
        if c.isspace():
            space = True
            i += 1
            continue
        if c in _DIGITS or (c == "." and i + 1 < n and s[i + 1] in _DIGITS):
            m = _NUM_RE.match(s, i)
            if m is None:  # pragma: no cover - _NUM_RE matches every ASCII digit
                raise ParseError(f"unexpected number at {s[i:i + 10]!r}")
            text = m.group(0)
            if depth > 0 and text.count(",") == 1:  # (12,102) is a pair, 12,102 alone is a number
                m = _PLAIN_NUM_RE.match(s, i)
                if m is None:  # pragma: no cover
                    raise ParseError(f"unexpected number at {s[i:i + 10]!r}")
                text = m.group(0)
            out.append(_token(("NUM", text.replace(",", ""), space)))
            i = m.end()
        elif c.isalpha() and c.isascii():
            m = _WORD_RE.match(s, i)
            if m is None:  # pragma: no cover
                raise ParseError(f"unexpected letter {c!r}")
            word = m.group(0)
            glued = _GLUED_SEPARATOR_RE.match(word) if not space and out and out[-1].kind in ("NUM", ")") else None
            if glued:  # "W(x)=1orW(x)=-1": "or" glued between two answers
                out.append(_token(("WORD", glued.group(1), False)))
                word, space = glued.group(2), False
            out.append(_token(("WORD", word, space)))
            i = m.end()
        elif c == "\\":
            m = _CMD_RE.match(s, i)
            if m:
                name = m.group(1)
                i = m.end()
                if name in TEXT_CMDS:
                    while i < n and s[i].isspace():
                        i += 1
                    if i >= n or s[i] != "{":
                        raise ParseError(f"\\{name} without braces")
                    content, i = _read_braced(s, i)
                    if name == "mathrm" and _ONE_LETTER_RE.fullmatch(content):
                        out.append(_token(("WORD", content.strip(), space)))
                    else:
                        out.append(_token(("TEXT", content, space)))
                elif name in ("begin", "end"):
                    while i < n and s[i].isspace():
                        i += 1
                    if i >= n or s[i] != "{":
                        raise ParseError(f"\\{name} without environment")
                    env, i = _read_braced(s, i)
                    env = env.strip().rstrip("*")
                    if name == "begin" and env == "array":  # skip the column spec
                        while i < n and s[i].isspace():
                            i += 1
                        if i < n and s[i] == "{":
                            _, i = _read_braced(s, i)
                    out.append(_token(("BEGIN" if name == "begin" else "END", env, space)))
                elif name == "operatorname":
                    while i < n and s[i].isspace():
                        i += 1
                    if i >= n or s[i] != "{":
                        raise ParseError("\\operatorname without braces")
                    content, i = _read_braced(s, i)
                    out.append(_token(("CMD", content.strip(), space)))
                else:
                    out.append(_token(("CMD", name, space)))
                    depth += (name == "langle") - (name == "rangle")
            else:
                nxt = s[i + 1] if i + 1 < n else ""
                if not nxt:  # 185\\ : a stray backslash at the end, as a typist leaves it
                    break
                kind = {"{": "SETOPEN", "}": "SETCLOSE", "|": "|", "%": "%", "\\": "ROWSEP", "#": "#",
                        "&": "&", "_": "_"}.get(nxt)
                if kind is None or kind == "#":
                    raise ParseError(f"unsupported escape {s[i:i + 2]!r}")
                out.append(_token((kind, nxt, space)))
                depth += (kind == "SETOPEN") - (kind == "SETCLOSE")
                i += 2
        elif s[i : i + 2] in _TWO:
            out.append(_token((_TWO[s[i : i + 2]], s[i : i + 2], space)))
            i += 2
        elif c in _SINGLE or c == "%":
            out.append(_token((c, c, space)))
            depth += (c in "([{") - (c in ")]}")
            i += 1
        else:
            raise ParseError(f"unexpected character {c!r}")
        space = False
    return out
