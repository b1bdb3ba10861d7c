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
from ..latex_lexer import ParseError, Token, tokenize
from .cursor import TokenCursor
from .matrices import matrix_product, matrix_sum
from .vocabulary import (
    ATOM_CMDS,
    DEGREE_WORDS,
    FUNCS,
    FUNCTION_NAMES,
    GREEK,
    INVERSE,
    MATRIX_ENVS,
    MULT_CMDS,
    PERCENT_WORDS,
    RELOPS,
    SEPARATOR_WORDS,
    UNITS,
    WRAPPERS,
)

_CLOSE = {"(": ")", "[": "]"}


class Parser(TokenCursor):
    """The whole grammar: tokens in, an :class:`Answer` list out (sympy objects built by ``builder``)."""

    def __init__(self, tokens: list[Token], builder: Builder) -> None:
        super().__init__(tokens, builder.limits.max_depth)
        self.b = builder
        self.sp = builder.sp
        self.abs_depth = 0
        self.in_exponent = 0
        self.percent = False
        self.degree = False
        self.in_trig = 0
        self.pm = self.sp.Dummy("pm")

    # -- answer level -------------------------------------------------------------------------
    def at_separator(self) -> bool:
        tok = self.peek()
        if tok is None:
            return False
        if tok.kind in (",", ";"):
            return True
        if tok.kind == "WORD" and tok.value.lower() in SEPARATOR_WORDS:
            return True
        return tok.kind == "TEXT" and tok.value.strip().strip(",").strip().lower() in SEPARATOR_WORDS | {""}

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
        if not (t0 and t1 and t0.kind == "WORD" and t0.value in FUNCTION_NAMES and t1.kind == "("):
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
            return self.sp.Symbol(t0.value)
        return None

    def parse_item(self) -> Answer:
        while self.at("=") or self.at("CMD", "approx"):  # "= 5", "\approx 2.72": a value written after its '='
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
            op = RELOPS.get(tok.value if tok and tok.kind == "CMD" else tok.kind) if tok else None
            if tok is not None and tok.kind == "CMD" and tok.value == "in":
                self.next()
                rhs = self.parse_expr()
                if not isinstance(rhs, Answer):
                    raise ParseError("\\in needs a set or interval")
                return self.parse_union(rhs)
            if op is None:
                break
            if tok is not None and tok.kind == "CMD" and tok.value == "approx" and (ops or not chain[0].is_Symbol):  # "= 1/3 \approx 0.33": the exact value counts
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
        while self.accept("CMD", "cup"):
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
    def parse_expr(self) -> Any:
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
                terms.append(self.b.neg(self.check_scalar(self.parse_term())))
            elif tok.kind == "CMD" and tok.value in ("pm", "mp"):
                self.next()
                sign = self.pm if tok.value == "pm" else -self.pm
                terms.append(self.b.mul([sign, self.check_scalar(self.parse_term())]))
            else:
                break
        if len(terms) == 1:
            return terms[0]
        if any(isinstance(t, Answer) and t.kind == "matrix" for t in terms):
            return matrix_sum(self.b, terms)
        return self.b.add([self.check_scalar(t) for t in terms])

    def check_scalar(self, x: Any) -> Any:
        if isinstance(x, Answer):
            raise ParseError(f"arithmetic on a {x.kind}")
        return x

    def starts_implicit(self, tok: Token) -> bool:
        k = tok.kind
        if k in ("NUM", "(", "{", "BEGIN"):
            return True
        if k == "WORD":
            return tok.value.lower() not in SEPARATOR_WORDS
        if k == "|":
            return self.abs_depth == 0
        if k == "CMD":
            return tok.value in ATOM_CMDS
        return False

    def is_unit(self, tok: Token) -> bool:
        if tok.kind == "TEXT":
            return True
        if tok.kind != "WORD" or tok.value.lower() in SEPARATOR_WORDS:
            return False
        w = tok.value
        if w.lower() in UNITS and (len(w) > 1 or tok.space or self.after_measure()):
            return self.unit_position()
        return len(w) >= 3 and tok.space and w.lower() not in FUNCS and w not in GREEK and self.unit_position()

    def unit_position(self) -> bool:
        """A word is a unit only when nothing but units/exponents/separators follows it."""
        j = self.i + 1
        while j < len(self.toks):
            t = self.toks[j]
            if self.power_end(j) > j:  # m^2, m^{2}
                j = self.power_end(j)
                continue
            if t.kind in ("WORD", "TEXT", "^", "NUM", "/"):
                if t.kind == "WORD" and t.value.lower() in SEPARATOR_WORDS:
                    return True
                j += 1
                continue
            return t.kind in (",", ";", ")", "]") or t.kind in ("=", "<", ">", "LE", "GE", "NE")
        return True

    def skip_unit(self) -> None:
        tok = self.next()
        word = tok.value.strip().lower()
        if word in PERCENT_WORDS:
            self.percent = True
        elif word in DEGREE_WORDS:
            self.degree = True
        self.i = self.power_end(self.i)
        while self.at("/") and self.slash_unit(self.peek(1)):  # m/s^2, km/h: one unit
            self.i = self.power_end(self.i + 2)

    @staticmethod
    def slash_unit(tok: Token | None) -> bool:
        """A word after a unit's ``/`` that is a unit too (``s`` in ``m/s``)."""
        return tok is not None and tok.kind == "WORD" and tok.value.lower() in UNITS

    def power_end(self, j: int) -> int:
        """The index after a unit's power ``^2`` or ``^{2}`` starting at token ``j``, else ``j``."""
        t = self.toks
        if j < len(t) and t[j].kind == "^":
            if j + 1 < len(t) and t[j + 1].kind == "NUM":
                return j + 2
            if j + 3 < len(t) and t[j + 1].kind == "{" and t[j + 2].kind == "NUM" and t[j + 3].kind == "}":
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
        return number.kind == "NUM" and ("." in number.value or len(number.value) >= 4)

    def parse_term(self) -> Any:
        factors = [self.parse_unary()]
        while True:
            tok = self.peek()
            if tok is None:
                break
            if self.in_exponent == 0 and len(factors) >= 1 and self.is_unit(tok):
                if tok.kind == "TEXT" and tok.value.strip().lower() in SEPARATOR_WORDS | {""}:
                    break
                self.skip_unit()
                continue
            if tok.kind == "*" or (tok.kind == "CMD" and tok.value in MULT_CMDS):
                self.next()
                factors.append(self.parse_unary())
            elif tok.kind in ("/", ":") or (tok.kind == "CMD" and tok.value == "div"):
                self.next()
                den = self.check_scalar(self.parse_unary())
                num = self.b.mul([self.check_scalar(f) for f in factors])
                factors = [self.b.div(num, den)]
            elif self.starts_implicit(tok):
                if tok.kind == "NUM" and not self.in_exponent:
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
            return matrix_product(self.b, factors)
        return self.b.mul([self.check_scalar(f) for f in factors])

    def mixed_number(self, factors: list[Any]) -> Any:
        """``2 1/3`` (a whole number, a space, a proper fraction of integers) is 7/3; None otherwise."""
        nxt, slash, den = self.peek(), self.peek(1), self.peek(2)
        if not (len(factors) == 1 and nxt is not None and nxt.space and slash is not None and slash.kind == "/"
                and den is not None and den.kind == "NUM" and self.peek(3) is None):
            return None
        whole = factors[0]
        num, d = self.b.number(nxt.value), self.b.number(den.value)
        if not (whole.is_Integer and num.is_Integer and d.is_Integer and 0 < num < d):
            return None
        self.i += 3
        frac = self.b.div(num, d)
        return self.b.add([whole, frac]) if whole >= 0 else self.b.add([whole, -frac])

    def parse_unary(self) -> Any:
        tok = self.peek()
        if tok is not None and (tok.kind in ("-", "+") or (tok.kind == "CMD" and tok.value in ("pm", "mp"))):
            self.next()
            self.enter()
            x = self.check_scalar(self.parse_unary())
            self.leave()
            if tok.kind == "-":
                return self.b.neg(x)
            if tok.kind == "+":
                return x
            return self.b.mul([self.pm if tok.value == "pm" else -self.pm, x])
        return self.parse_power()

    def parse_power(self) -> Any:
        base = self.parse_postfix()
        if self.accept("^"):
            exp = self.parse_exponent()
            base = self.b.pow(self.check_scalar(base), exp)
            base = self.parse_postfix_ops(base)
        return base

    def parse_exponent(self) -> Any:
        self.enter()
        self.in_exponent += 1
        try:
            if self.accept("-"):
                return self.b.neg(self.parse_exponent())
            self.accept("+")
            x = self.check_scalar(self.parse_postfix())
            if self.accept("^"):
                x = self.b.pow(x, self.parse_exponent())
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
                x = self.b.factorial(self.check_scalar(x))
            elif tok.kind == "%":
                self.next()
                self.percent = True
            elif tok.kind == "CMD" and tok.value in ("degree", "circ"):
                self.next()
                if self.in_trig:  # \cos(90^\circ - t): this term is in degrees, the rest is not
                    x = self.b.mul([self.check_scalar(x), self.sp.pi / 180])
                else:
                    self.degree = True
            elif tok.kind == "'":
                raise ParseError("derivatives are not supported")
            else:
                return x

    # -- atoms -----------------------------------------------------------------------------------
    def parse_atom(self) -> Any:
        tok = self.next()
        k = tok.kind
        if k == "NUM":
            x = self.b.number(tok.value)
            if self.at("_") and x.is_Integer:  # 1011_2: a numeral in another base, compared as written
                self.next()
                self.subscript()
            if not self.in_exponent and x.is_Integer and self.at("CMD", "frac"):
                self.next()
                num, den = self.read_arg(), self.read_arg()
                frac = self.b.div(num, den)
                if num.is_Integer and den.is_Integer and 0 < num < den and x >= 0:
                    return self.b.add([x, frac])
                return self.b.mul([x, frac])
            return x
        if k == "WORD":
            return self.word(tok)
        if k == "CMD":
            return self.command(tok)
        if k in ("(", "["):
            return self.bracket(k)
        if k == "{":
            return self.brace_group()
        if k == "SETOPEN":
            return self.set_literal()
        if k == "|":
            self.enter()
            self.abs_depth += 1
            x = self.check_scalar(self.parse_expr())
            self.expect("|")
            self.abs_depth -= 1
            self.leave()
            return self.b.func("abs", x)
        if k == "BEGIN":
            return self.matrix(tok.value)
        if k == "TEXT":
            inner = tokenize(tok.value)
            if not inner:
                raise ParseError("empty \\text{}")
            self.toks[self.i : self.i] = inner
            return self.parse_atom()
        raise ParseError(f"unexpected {tok.value!r}")

    # -- letters and words ----------------------------------------------------------------------
    def word(self, tok: Token) -> Any:
        w = tok.value
        sp = self.sp
        low = w.lower()
        if low in FUNCS:
            return self.function(low)
        if low == "sqrt":
            return self.b.sqrt(self.check_scalar(self.read_arg()))
        if low == "pi":
            return sp.pi
        if low in ("infty", "inf", "infinity"):
            return sp.oo
        if len(w) > 1:  # implicit product of letters: push the rest back
            self.toks[self.i : self.i] = [Token("WORD", w[1:], False)]
            w = w[0]
        return self.symbol(w)

    def symbol(self, name: str) -> Any:
        sp = self.sp
        if self.accept("_"):
            name = f"{name}_{self.subscript()}"
        elif name == "e":
            return sp.E
        elif name == "i":
            return sp.I
        self.b.tick()
        return sp.Symbol(name)

    def subscript(self) -> str:
        tok = self.next()
        if tok.kind == "{":
            parts = []
            while not self.at("}"):
                t = self.next()
                if t.kind not in ("NUM", "WORD", "CMD", ",", "+", "-"):
                    raise ParseError("unsupported subscript")
                parts.append(t.value)
            self.next()
            return "".join(parts)
        if tok.kind in ("NUM", "WORD"):
            return tok.value
        if tok.kind == "CMD" and tok.value in GREEK:
            return tok.value
        raise ParseError("unsupported subscript")

    # -- commands -------------------------------------------------------------------------------
    def command(self, tok: Token) -> Any:
        name = tok.value
        sp = self.sp
        if name == "langle":
            return self.bracket("langle")
        if name == "frac":
            num, den = self.check_scalar(self.read_arg()), self.check_scalar(self.read_arg())
            return self.b.div(num, den)
        if name == "sqrt":
            n = None
            if self.accept("["):
                n = self.check_scalar(self.parse_expr())
                self.expect("]")
            return self.b.sqrt(self.check_scalar(self.read_arg()), n)
        if name == "binom":
            n, r = self.check_scalar(self.read_arg()), self.check_scalar(self.read_arg())
            return self.b.binomial(n, r)
        if name in ("sum", "prod"):
            return self.big_operator(name)
        if name in ("pi",):
            return sp.pi
        if name in ("infty", "infin"):
            return sp.oo
        if name == "imath":
            return sp.I
        if name in GREEK:
            self.b.tick()
            return self.symbol(name)
        if name in FUNCS:
            return self.function(name)
        if name in ("lfloor", "lceil"):
            self.enter()
            x = self.check_scalar(self.parse_expr())
            self.expect("CMD")
            self.leave()
            return self.b.func("floor" if name == "lfloor" else "ceil", x)
        if name in ("emptyset", "varnothing"):
            return Answer("set", ())
        if name == "mathbb":
            self.expect("{")
            letter = self.expect("WORD").value
            self.expect("}")
            if letter != "R":
                raise ParseError(f"unsupported set \\mathbb{{{letter}}}")
            return Answer("interval", ((-sp.oo, sp.oo, True, True),))
        if name in WRAPPERS:
            if name == "displaystyle":
                return self.parse_atom()
            return self.read_arg()
        raise ParseError(f"unsupported command \\{name}")

    def big_operator(self, name: str) -> Any:
        """``\\sum_{k=a}^{b} term`` / ``\\prod_{k=a}^{b} term`` (the term: the product that follows)."""
        self.expect("_")
        self.expect("{")
        var = self.check_scalar(self.parse_atom())
        if not var.is_Symbol:
            raise ParseError(f"\\{name} needs an index variable")
        self.expect("=")
        lo = self.check_scalar(self.parse_expr())
        self.expect("}")
        self.expect("^")
        hi = self.check_scalar(self.read_arg())
        self.enter()
        body = self.check_scalar(self.parse_term())
        self.leave()
        return self.b.big_operator(name, body, var, lo, hi)

    def read_arg(self) -> Any:
        """One macro argument: a {group}, one digit, one letter or one command."""
        tok = self.peek()
        if tok is None:
            raise ParseError("missing argument")
        if tok.kind == "{":
            self.next()
            return self.brace_group()
        if tok.kind == "(":
            self.next()
            return self.bracket("(")
        if tok.kind in ("NUM", "WORD") and len(tok.value) > 1:
            self.toks[self.i : self.i + 1] = [Token(tok.kind, tok.value[0], tok.space),
                                              Token(tok.kind, tok.value[1:], False)]
        if tok.kind in ("NUM", "WORD", "CMD"):
            return self.parse_atom()
        raise ParseError(f"unexpected {tok.value!r} as an argument")

    def function(self, name: str) -> Any:
        b = self.b
        base = None
        power = None
        if name == "log" and self.accept("_"):
            if self.at("{"):
                self.next()
                base = self.check_scalar(self.brace_group())
            else:
                base = self.check_scalar(self.parse_atom())
        if self.accept("^"):
            power = self.parse_exponent()
            if power == -1 and name in INVERSE:
                name, power = INVERSE[name], None
        self.in_trig += name in INVERSE
        try:
            arg = self.function_argument()
        finally:
            self.in_trig -= name in INVERSE
        out = b.log(arg, base) if base is not None else b.func(name, arg)
        return b.pow(out, power) if power is not None else out

    def function_argument(self) -> Any:
        b = self.b
        if self.at("(") or self.at("{"):
            arg = self.check_scalar(self.parse_atom())
        else:
            factors = [self.check_scalar(self.parse_power())]
            while True:
                t = self.peek()
                if t is None or not (t.kind in ("NUM", "WORD") or (t.kind == "CMD" and (t.value in GREEK
                                                                                        or t.value == "pi"))):
                    break
                if t.kind == "WORD" and t.value.lower() in FUNCS | {"or", "and"}:
                    break
                factors.append(self.check_scalar(self.parse_power()))
            arg = b.mul(factors)
        return arg

    # -- groups and structures ------------------------------------------------------------------
    def brace_group(self) -> Any:
        self.enter()
        elems = [self.parse_expr()]
        if self.accept("CMD", "over"):  # {1 \over 2}
            den = self.check_scalar(self.parse_expr())
            elems = [self.b.div(self.check_scalar(elems[0]), den)]
        while self.accept(","):
            elems.append(self.check_scalar(self.parse_expr()))
        self.expect("}")
        self.leave()
        if len(elems) == 1:
            return elems[0]
        return Answer("multi", tuple(Answer("expr", e) for e in elems))  # {1,3} renders as the list 1,3

    def bracket(self, opener: str) -> Any:
        self.enter()
        elems = [self.parse_expr()]
        while self.accept(",") or self.accept(";"):
            elems.append(self.parse_expr())
        tok = self.next()
        self.leave()
        if opener == "langle" or (tok.kind == "CMD" and tok.value == "rangle"):
            if opener != "langle" or tok.value != "rangle":
                raise ParseError("mismatched angle brackets")
            if len(elems) == 1:
                return self.check_scalar(elems[0])
            return Answer("tuple", tuple(self.check_scalar(e) for e in elems))
        if tok.kind not in (")", "]"):
            raise ParseError(f"expected a closing bracket, found {tok.value!r}")
        if len(elems) == 1:
            if tok.kind != _CLOSE[opener]:
                raise ParseError("mismatched brackets")
            return elems[0]
        elems = [self.check_scalar(e) for e in elems]
        sp = self.sp
        infinite = any(e in (sp.oo, -sp.oo) for e in elems)
        if len(elems) == 2 and (opener == "[" or tok.kind == "]" or infinite):
            return Answer("interval", ((elems[0], elems[1], opener == "(", tok.kind == ")"),))
        if opener != "(" or tok.kind != ")":
            if opener == "[" and tok.kind == "]":
                return Answer("tuple", tuple(elems))
            raise ParseError("mismatched brackets")
        return Answer("tuple", tuple(elems))

    def set_literal(self) -> Answer:
        self.enter()
        elems = []
        if not self.at("SETCLOSE"):
            elems.append(self.set_element(self.parse_expr()))
            while self.accept(",") or self.accept(";"):
                elems.append(self.set_element(self.parse_expr()))
        self.expect("SETCLOSE")
        self.leave()
        if any(isinstance(e, Answer) for e in elems):  # \{(9,-1),(11,-7)\}: a set of points
            if not all(isinstance(e, Answer) for e in elems):
                raise ParseError("a set mixing points and numbers")
            return elems[0] if len(elems) == 1 else Answer("multi", tuple(elems))
        return Answer("set", tuple(elems))

    def set_element(self, x: Any) -> Any:
        """A number or expression, or a point (a tuple): ``\\{(1, 2), (3, 4)\\}``."""
        if isinstance(x, Answer) and x.kind == "tuple":
            return x
        return self.check_scalar(x)

    def matrix(self, env: str) -> Answer:
        if env not in MATRIX_ENVS:
            raise ParseError(f"unsupported environment {env!r}")
        self.enter()
        rows: list[list[Any]] = [[]]
        while True:
            if self.accept("END"):
                break
            rows[-1].append(self.check_scalar(self.parse_expr()))
            if self.accept("&"):
                continue
            if self.accept("ROWSEP"):
                if self.at("END"):
                    continue
                rows.append([])
                continue
            self.expect("END")
            break
        self.leave()
        rows = [r for r in rows if r]
        if not rows or len({len(r) for r in rows}) != 1:
            raise ParseError("ragged or empty matrix")
        return Answer("matrix", tuple(tuple(r) for r in rows))
