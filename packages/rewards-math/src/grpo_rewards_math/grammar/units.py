"""The units sub-grammar: a word after a number that names a unit (``12 cm``, ``3.5 km/h``, ``4\\text{ cm}``,
``-5.5°C``) is read over, not multiplied in; percent and degree words set the answer's flags.

:class:`UnitReader` is the part of the :class:`~grpo_rewards_math.grammar.parser.Parser` that
decides whether the next token starts a unit and skips it (with its power, ``m^2``, and a unit
after a slash, ``m/s``). It records that a unit was read (``units_read``), for the reward's
``units`` convention.
"""

from __future__ import annotations

from ..latex_lexer import Kind, Token
from .cursor import TokenCursor
from .vocabulary import DEGREE_WORDS, FUNCS, GREEK, PERCENT_WORDS, SEPARATOR_WORDS, TEMPERATURE_LETTERS, UNITS

#: the token kinds that end a unit's run (a unit is a unit only when nothing else follows it)
_AFTER_UNIT = frozenset({",", ";", ")", "]", "=", "<", ">", Kind.LESS_EQUAL, Kind.GREATER_EQUAL, Kind.NOT_EQUAL})


class UnitReader(TokenCursor):
    """Recognises and skips units after a quantity (the parser's ``term`` rule asks it)."""

    percent = False
    degree = False
    units_read = False  # a unit word (not % or a degree sign) was read over

    def is_unit(self, tok: Token) -> bool:
        if tok.kind == Kind.TEXT:
            return True
        if tok.kind != Kind.WORD or tok.value.lower() in SEPARATOR_WORDS:
            return False
        w = tok.value
        if self.degree and w in TEMPERATURE_LETTERS and self.unit_position():  # -5.5°C: the scale, not a variable
            return True
        # a word right after a degree sign is spaced from it (the lexer eats the space after ``\\circ``)
        spaced = tok.space or (self.i > 0 and self.toks[self.i - 1].kind == Kind.COMMAND
                               and self.toks[self.i - 1].value in ("degree", "circ"))
        if w.lower() in UNITS and (len(w) > 1 or spaced or self.after_measure()):
            return self.unit_position()
        return len(w) >= 3 and spaced and w.lower() not in FUNCS and w not in GREEK and self.unit_position()

    def unit_position(self) -> bool:
        """A word is a unit only when nothing but units/exponents/separators follows it."""
        j = self.i + 1
        while j < len(self.toks):
            t = self.toks[j]
            if self.power_end(j) > j:  # m^2, m^{2}
                j = self.power_end(j)
                continue
            if t.kind in (Kind.WORD, Kind.TEXT, "^", Kind.NUMBER, "/"):
                if t.kind == Kind.WORD and t.value.lower() in SEPARATOR_WORDS:
                    return True
                j += 1
                continue
            return t.kind in _AFTER_UNIT
        return True

    def skip_unit(self) -> None:
        tok = self.next()
        word = tok.value.strip().lower()
        if word in PERCENT_WORDS:
            self.percent = True
        elif word in DEGREE_WORDS:
            self.degree = True
        elif not (self.degree and tok.value in TEMPERATURE_LETTERS):
            self.units_read = True
        self.i = self.power_end(self.i)
        while self.at("/") and self.slash_unit(self.peek(1)):  # m/s^2, km/h: one unit
            self.i = self.power_end(self.i + 2)

    @staticmethod
    def slash_unit(tok: Token | None) -> bool:
        """A word after a unit's ``/`` that is a unit too (``s`` in ``m/s``)."""
        return tok is not None and tok.kind == Kind.WORD and tok.value.lower() in UNITS

    def power_end(self, j: int) -> int:
        """The index after a unit's power ``^2`` or ``^{2}`` starting at token ``j``, else ``j``."""
        t = self.toks
        if j < len(t) and t[j].kind == "^":
            if j + 1 < len(t) and t[j + 1].kind == Kind.NUMBER:
                return j + 2
            if j + 3 < len(t) and t[j + 1].kind == "{" and t[j + 2].kind == Kind.NUMBER and t[j + 3].kind == "}":
                return j + 4
        return j

    def after_measure(self) -> bool:
        """Whether the answer so far is one number written as a measure (a decimal point, or four digits or
        more): a one-letter unit glued to it is a unit (``1,000.99m²``, ``2.5m``), not a variable (``2m``,
        ``x + 2.5m``)."""
        start = 1 if self.toks[0].kind == "-" else 0
        if self.i != start + 1:
            return False
        number = self.toks[start]
        return number.kind == Kind.NUMBER and ("." in number.value or len(number.value) >= 4)
