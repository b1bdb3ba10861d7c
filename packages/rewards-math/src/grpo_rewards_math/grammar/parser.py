"""Recursive-descent grammar: tokens -> sympy objects (through the guarded :class:`Builder`).

    answer := group ((';' | and | or) group)*   equal groups of several items are tuples (a=3, b=1; a=5, b=1)
    group  := item (SEP item)*            SEP: , or and \\text{ or }
    item   := expr (RELOP expr)* [\\approx expr] | struct (\\cup struct)* | struct '=' struct
    expr   := term (('+' | '-' | \\pm | \\mp) term)*      (literal matrices add element-wise)
    term   := unary (('*' | \\cdot | \\times | '/' | \\div) unary | implicit power | unit)*
    unary  := ('-' | '+' | \\pm | \\mp) unary | power
    power  := postfix ('^' exponent)?
    postfix:= atom ('!' | '%' | degree)*
    atom   := number | letter | constant | \\frac | \\sqrt | function | group | |x| | set | tuple | matrix

One class, :class:`Parser`, holds the whole grammar (answer level, expressions, atoms).
"""

from __future__ import annotations

from typing import Any

from ..answer import Answer
from ..build import Builder
from ..latex_lexer import Kind, ParseError, Token
from ..light import LightBuilder
from .atoms import AtomReader
from .matrices import matrix_product, matrix_sum
from .vocabulary import (
    ATOM_CMDS,
    FUNCTION_NAMES,
    MULT_CMDS,
    RELOPS,
    SEPARATOR_WORDS,
)

#: tokens no rule below the expression continues on, right after one atom
_ENDS_AFTER_ATOM = frozenset({"}", ")", "]", ",", ";", "="})


class Parser(AtomReader):
    """The whole grammar: tokens in, an :class:`Answer` list out (sympy objects built by ``builder``)."""

    def __init__(self, tokens: list[Token], builder: Builder | LightBuilder) -> None:
        super().__init__(tokens, builder.limits.max_depth)
        self.build = builder
        self.abs_depth = 0
        self.in_exponent = 0
        self.percent = False
        self.degree = False
        self.in_trig = 0
        self.power_ended_at = -1  # the token index right after the last power read (``2^6``)
        self.plus_minus = builder.dummy("pm")  # \\pm a: a placeholder sign, expanded to two answers

    # -- answer level -------------------------------------------------------------------------
    def at_separator(self) -> bool:
        tok = self.peek()
        if tok is None:
            return False
        if tok.kind in (",", ";"):
            return True
        if tok.kind == Kind.WORD and tok.value.lower() in SEPARATOR_WORDS:
            return True
        return tok.kind == Kind.TEXT and tok.value.strip().strip(",").strip().lower() in SEPARATOR_WORDS | {""}

    def parse_items(self) -> list[Answer]:
        """Items divided by separators; ``a=3, b=1; a=5, b=1`` (``;``, "and" or "or" between groups
        of as many items each, more than one) gives one tuple per group: ``(3, 1), (5, 1)``."""
        groups: list[list[Answer]] = [[self.parse_item()]]
        while self.at_separator():
            between = False
            while self.at_separator():
                between |= self.next().kind != ","  # ';', 'and', 'or', \text{ and }
            if self.peek() is None:
                break
            if between:
                groups.append([])
            groups[-1].append(self.parse_item())
        tok = self.peek()
        if tok is not None:
            raise ParseError(f"unexpected {tok.value!r}")
        sizes = {len(g) for g in groups}
        if len(groups) > 1 and len(sizes) == 1 and sizes != {1}:  # p=5, q=2 and p=7, q=2: two pairs
            return [self.group_tuple(g) for g in groups]
        return [it for g in groups for it in g]

    def group_tuple(self, items: list[Answer]) -> Answer:
        """One ``;`` group as a tuple of its values (``a=3, b=1`` -> ``(3, 1)``)."""
        values = []
        for it in items:
            if it.kind == "equation" and it.value[0].is_Symbol:
                values.append(it.value[1])
            elif it.kind == "expr":
                values.append(it.value)
            else:
                raise ParseError(f"a {it.kind} inside a ';' group")
        return Answer("tuple", tuple(values)) if len(values) > 1 else Answer("expr", values[0])

    def function_lhs(self) -> Any:
        """``f(x) =`` at the start of an item: skip it and return the symbol ``f`` (None otherwise)."""
        t0, t1 = self.peek(), self.peek(1)
        if not (t0 and t1 and t0.kind == Kind.WORD and t0.value in FUNCTION_NAMES and t1.kind == "("):
            return None
        depth, j = 0, self.i + 1
        while j < len(self.toks):
            k = self.toks[j].kind
            depth += (k == "(") - (k == ")")
            if depth == 0:
                break
            j += 1
        if j + 1 < len(self.toks) and self.toks[j + 1].kind == "=":
            self.i = j + 1
            return self.build.symbol(t0.value)
        return None

    def parse_item(self) -> Answer:
        while self.at("=") or self.at(Kind.COMMAND, "approx"):  # "= 5", "\approx 2.72": a value written after its '='
            self.next()
        first = self.function_lhs()
        if first is None:
            first = self.parse_expr()
        if isinstance(first, Answer):
            if first.kind == "tuple" and self.accept("="):  # (x, y) = (1, 2): the value is the right side
                rhs = self.parse_expr()
                if not isinstance(rhs, Answer):
                    raise ParseError("a tuple equal to a scalar")
                return self.parse_union(rhs)
            return self.parse_union(first)
        chain: list[Any] = [first]
        ops: list[str] = []
        while True:
            tok = self.peek()
            op = RELOPS.get(tok.value if tok and tok.kind == Kind.COMMAND else tok.kind) if tok else None
            if tok is not None and tok.kind == Kind.COMMAND and tok.value == "in":
                self.next()
                rhs = self.parse_expr()
                if not isinstance(rhs, Answer):
                    raise ParseError("\\in needs a set or interval")
                return self.parse_union(rhs)
            if op is None:
                break
            if tok is not None and tok.kind == Kind.COMMAND and tok.value == "approx" and (ops or not chain[0].is_Symbol):  # "= 1/3 \approx 0.33": the exact value counts
                self.next()
                self.parse_expr()
                continue
            self.next()
            rhs = self.parse_expr()
            if isinstance(rhs, Answer):
                if op == "=" and self.peek() is None:
                    return rhs
                raise ParseError("relation with a set")
            chain.append(rhs)
            ops.append(op)
        if not ops:
            return Answer("expr", first)
        if all(op == "=" for op in ops):
            return Answer("equation", (chain[0], chain[-1]))
        if "=" in ops:
            raise ParseError("mixed equation and inequality")
        return Answer("relation", (tuple(chain), tuple(ops)))

    def parse_union(self, first: Answer) -> Answer:
        pieces = [first]
        while self.accept(Kind.COMMAND, "cup"):
            nxt = self.parse_expr()
            if not isinstance(nxt, Answer):
                raise ParseError("\\cup needs sets or intervals")
            pieces.append(nxt)
        if len(pieces) == 1:
            return first
        if all(p.kind == "set" for p in pieces):
            return Answer("set", tuple(e for p in pieces for e in p.value))
        out = []
        for p in pieces:
            if p.kind == "interval":
                out.extend(p.value)
            elif p.kind == "set":
                out.extend((e, e, False, False) for e in p.value)
            elif p.kind == "tuple" and len(p.value) == 2:
                out.append((p.value[0], p.value[1], True, True))
            else:
                raise ParseError(f"\\cup of a {p.kind}")
        return Answer("interval", tuple(out))

    # -- expressions --------------------------------------------------------------------------
    #: read one number or one letter right before a token in :data:`_ENDS_AFTER_ATOM` without the
    #: descent through term, unary, power and postfix (none of which continues on those tokens);
    #: tests/math/test_fast_paths.py compares it with the full descent
    atom_shortcut = True

    def parse_expr(self) -> Any:
        toks, i = self.toks, self.i
        n = len(toks)
        if self.atom_shortcut and i < n and (i + 1 == n or toks[i + 1].kind in _ENDS_AFTER_ATOM):
            atom = toks[i]
            if atom.kind == Kind.NUMBER:
                self.i = i + 1
                return self.build.number(atom.value)
            if atom.kind == Kind.WORD and len(atom.value) == 1:
                self.i = i + 1
                return self.word(atom)
        terms = [self.parse_term()]
        while True:
            tok = self.peek()
            if tok is None:
                break
            if tok.kind == "+":
                self.next()
                terms.append(self.parse_term())
            elif tok.kind == "-":
                self.next()
                terms.append(self.build.neg(self.check_scalar(self.parse_term())))
            elif tok.kind == Kind.COMMAND and tok.value in ("pm", "mp"):
                self.next()
                sign = self.plus_minus if tok.value == "pm" else -self.plus_minus
                terms.append(self.build.mul([sign, self.check_scalar(self.parse_term())]))
            else:
                break
        if len(terms) == 1:
            return terms[0]
        if any(isinstance(t, Answer) and t.kind == "matrix" for t in terms):
            return matrix_sum(self.build, terms)
        return self.build.add([self.check_scalar(t) for t in terms])

    def starts_implicit(self, tok: Token) -> bool:
        k = tok.kind
        if k in (Kind.NUMBER, "(", "{", Kind.BEGIN):
            return True
        if k == Kind.WORD:
            return tok.value.lower() not in SEPARATOR_WORDS
        if k == "|":
            return self.abs_depth == 0
        if k == Kind.COMMAND:
            return tok.value in ATOM_CMDS
        return False

    def parse_term(self) -> Any:
        factors = [self.parse_unary()]
        while True:
            tok = self.peek()
            if tok is None:
                break
            if self.in_exponent == 0 and len(factors) >= 1 and self.is_unit(tok):
                if tok.kind == Kind.TEXT and tok.value.strip().lower() in SEPARATOR_WORDS | {""}:
                    break
                self.skip_unit()
                continue
            if tok.kind == "*" or (tok.kind == Kind.COMMAND and tok.value in MULT_CMDS):
                self.next()
                factors.append(self.parse_unary())
            elif tok.kind in ("/", ":") or (tok.kind == Kind.COMMAND and tok.value == "div"):
                self.next()
                den = self.check_scalar(self.parse_unary())
                num = self.build.mul([self.check_scalar(f) for f in factors])
                factors = [self.build.div(num, den)]
            elif self.starts_implicit(tok):
                if tok.kind == Kind.NUMBER and not self.in_exponent and not self.power_follows_power(tok):
                    mixed = self.mixed_number(factors)
                    if mixed is None:
                        raise ParseError("two numbers side by side")
                    factors = [mixed]
                    continue
                factors.append(self.parse_power())
            else:
                break
        if len(factors) == 1:
            return factors[0]
        if any(isinstance(f, Answer) and f.kind == "matrix" for f in factors):
            return matrix_product(self.build, factors)
        return self.build.mul([self.check_scalar(f) for f in factors])

    def mixed_number(self, factors: list[Any]) -> Any:
        """``2 1/3`` (a whole number, a space, a proper fraction of integers) is 7/3; None otherwise."""
        nxt, slash, den = self.peek(), self.peek(1), self.peek(2)
        if not (len(factors) == 1 and nxt is not None and nxt.space and slash is not None and slash.kind == "/"
                and den is not None and den.kind == Kind.NUMBER and self.peek(3) is None):
            return None
        whole = factors[0]
        num, d = self.build.number(nxt.value), self.build.number(den.value)
        if not (whole.is_Integer and num.is_Integer and d.is_Integer and 0 < num < d):
            return None
        self.i += 3
        frac = self.build.div(num, d)
        return self.build.add([whole, frac]) if whole >= 0 else self.build.add([whole, -frac])

    def parse_unary(self) -> Any:
        tok = self.peek()
        if tok is not None and (tok.kind in ("-", "+") or (tok.kind == Kind.COMMAND and tok.value in ("pm", "mp"))):
            self.next()
            self.enter()
            x = self.check_scalar(self.parse_unary())
            self.leave()
            if tok.kind == "-":
                return self.build.neg(x)
            if tok.kind == "+":
                return x
            return self.build.mul([self.plus_minus if tok.value == "pm" else -self.plus_minus, x])
        return self.parse_power()

    def parse_power(self) -> Any:
        base = self.parse_postfix()
        if self.accept("^"):
            exp = self.parse_exponent()
            base = self.build.pow(self.check_scalar(base), exp)
            base = self.parse_postfix_ops(base)
            self.power_ended_at = self.i
        return base

    def power_follows_power(self, tok: Token) -> bool:
        """``2^6 3^5``: a number raised to a power right after a power is a factor, as a typist means it
        (two bare numbers side by side stay an error)."""
        nxt = self.peek(1)
        return tok.space and self.power_ended_at == self.i and nxt is not None and nxt.kind == "^"

    def parse_exponent(self) -> Any:
        self.enter()
        self.in_exponent += 1
        try:
            if self.accept("-"):
                return self.build.neg(self.parse_exponent())
            self.accept("+")
            x = self.check_scalar(self.parse_postfix())
            if self.accept("^"):
                x = self.build.pow(x, self.parse_exponent())
            return x
        finally:
            self.in_exponent -= 1
            self.leave()

    def parse_postfix(self) -> Any:
        return self.parse_postfix_ops(self.parse_atom())

    def parse_postfix_ops(self, x: Any) -> Any:
        while True:
            tok = self.peek()
            if tok is None:
                return x
            if tok.kind == "!":
                self.next()
                x = self.build.factorial(self.check_scalar(x))
            elif tok.kind == "%":
                self.next()
                self.percent = True
            elif tok.kind == Kind.COMMAND and tok.value in ("degree", "circ"):
                self.next()
                if self.in_trig:  # \cos(90^\circ - t): this term is in degrees, the rest is not
                    x = self.build.mul([self.check_scalar(x), self.build.div(self.build.pi, self.build.integer(180))])
                else:
                    self.degree = True
            elif tok.kind == "'":
                raise ParseError("derivatives are not supported")
            else:
                return x
