r"""Plain arithmetic, however long or deep, read in one pass without recursion.

An answer made only of numbers, ``+ - * /`` (``\cdot``, ``\times``, ``\div``), and matching
brackets (``( )``, ``[ ]``, ``{ }``) is evaluated exactly with an operator stack (shunting-yard):
linear in its length, at any depth, with every intermediate value's size checked
(:data:`MAX_BITS`). The grammar refuses such answers past its depth and length limits
(``max_depth``, ``max_chars``); this path reads them: 300 parentheses around ``7`` are 7, and a
3,000-term ``1+1+…+1`` is 3000.

>>> plain_value("(" * 300 + "7" + ")" * 300)
(Fraction(7, 1), False)
>>> plain_value("+".join(["1"] * 3000))
(Fraction(3000, 1), False)
>>> plain_value(r"2 \cdot (0.5 + 1)"), plain_value("2x") is None, plain_value("(1, 2)") is None
((Fraction(3, 1), True), True, True)
"""

from __future__ import annotations

import re
from fractions import Fraction

#: Bits of a numerator or denominator of any intermediate value.
MAX_BITS = 4096

_TOKEN_RE = re.compile(r"\s*(?:(\d+(?:\.\d*)?|\.\d+)|(\\cdot|\\times|\\div|[-+*/()\[\]{}]))")
_CHARS_RE = re.compile(r"(?:[\d\s.+\-*/()\[\]{}]|\\cdot|\\times|\\div)+")
_OPS = {"+": 1, "-": 1, "*": 2, "/": 2, "\\cdot": 2, "\\times": 2, "\\div": 2, "neg": 3}
_OPEN = {"(": ")", "[": "]", "{": "}"}


class _Refused(Exception):
    pass


def _apply(op: str, values: list[Fraction]) -> None:
    if op == "neg":
        if not values:
            raise _Refused
        values[-1] = -values[-1]
        return
    if len(values) < 2:
        raise _Refused
    b, a = values.pop(), values.pop()
    if op == "+":
        r = a + b
    elif op == "-":
        r = a - b
    elif op in ("/", "\\div"):
        if b == 0:
            raise _Refused
        r = a / b
    else:
        r = a * b
    if r.numerator.bit_length() > MAX_BITS or r.denominator.bit_length() > MAX_BITS:
        raise _Refused
    values.append(r)


def plain_value(text: str) -> tuple[Fraction, bool] | None:
    """``(exact value, a decimal point was written)`` of plain arithmetic, else None."""
    if _CHARS_RE.fullmatch(text) is None:
        return None
    values: list[Fraction] = []
    ops: list[str] = []
    approx = False
    expect_operand = True
    pos, n = 0, len(text)
    try:
        while pos < n:
            m = _TOKEN_RE.match(text, pos)
            if m is None:
                if text[pos:].strip():
                    return None
                break
            pos = m.end()
            number, sym = m.groups()
            if number is not None:
                if not expect_operand or len(number) > 400:
                    return None
                approx |= "." in number
                values.append(Fraction(number))
                expect_operand = False
            elif sym in _OPEN:
                if not expect_operand:
                    return None  # 2(3): an implicit product is the grammar's
                ops.append(sym)
            elif sym in (")", "]", "}"):
                if expect_operand:
                    return None
                while ops and ops[-1] not in _OPEN:
                    _apply(ops.pop(), values)
                if not ops or _OPEN[ops.pop()] != sym:
                    return None
            elif expect_operand:
                if sym == "-":
                    ops.append("neg")
                elif sym != "+":
                    return None
            else:
                while ops and ops[-1] not in _OPEN and _OPS[ops[-1]] >= _OPS[sym]:
                    _apply(ops.pop(), values)
                ops.append(sym)
                expect_operand = True
        if expect_operand:
            return None
        while ops:
            op = ops.pop()
            if op in _OPEN:
                return None
            _apply(op, values)
    except _Refused:
        return None
    if len(values) != 1:
        return None
    return values[0], approx
