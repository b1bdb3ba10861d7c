"""The atoms of the grammar: numbers, letters and words, commands (``\\frac``, ``\\sqrt``, functions,
``\\sum``), groups and structures (brackets, intervals, set literals, matrices).

:class:`AtomReader` is the part of the :class:`~grpo_rewards_math.grammar.parser.Parser` below
the operators; it calls back into the expression rules (``parse_expr``, ``parse_term``,
``parse_power``, ``parse_exponent``) that the parser defines.
"""

from __future__ import annotations

from typing import Any

from ..answer import Answer
from ..build import Builder
from ..latex_lexer import Kind, ParseError, Token, tokenize
from ..light import LightBuilder
from .units import UnitReader
from .vocabulary import FUNCS, GREEK, INVERSE, MATRIX_ENVS, WRAPPERS

_CLOSE = {"(": ")", "[": "]"}


class AtomReader(UnitReader):
    """Atoms, commands and structures; the expression rules come from the parser."""

    build: Builder | LightBuilder
    plus_minus: Any
    abs_depth: int
    in_exponent: int
    in_trig: int

    def parse_expr(self) -> Any:
        raise NotImplementedError

    def parse_term(self) -> Any:
        raise NotImplementedError

    def parse_power(self) -> Any:
        raise NotImplementedError

    def parse_exponent(self) -> Any:
        raise NotImplementedError

    def parse_postfix_ops(self, x: Any) -> Any:
        raise NotImplementedError

    def check_scalar(self, x: Any) -> Any:
        if isinstance(x, Answer):
            raise ParseError(f"arithmetic on a {x.kind}")
        return x

    # -- atoms -----------------------------------------------------------------------------------
    def parse_atom(self) -> Any:
        tok = self.next()
        k = tok.kind
        if k == Kind.NUMBER:
            x = self.build.number(tok.value)
            if self.at("_") and x.is_Integer:  # 1011_2: a numeral in another base, compared as written
                self.next()
                self.subscript()
            if not self.in_exponent and x.is_Integer and self.at(Kind.COMMAND, "frac"):
                self.next()
                num, den = self.read_arg(), self.read_arg()
                frac = self.build.div(num, den)
                if num.is_Integer and den.is_Integer and 0 < num < den and x >= 0:
                    return self.build.add([x, frac])
                return self.build.mul([x, frac])
            return x
        if k == Kind.WORD:
            return self.word(tok)
        if k == Kind.COMMAND:
            return self.command(tok)
        if k in ("(", "["):
            return self.bracket(k)
        if k == "{":
            return self.brace_group()
        if k == Kind.SET_OPEN:
            return self.set_literal()
        if k == "|":
            self.enter()
            self.abs_depth += 1
            x = self.check_scalar(self.parse_expr())
            self.expect("|")
            self.abs_depth -= 1
            self.leave()
            return self.build.func("abs", x)
        if k == Kind.BEGIN:
            return self.matrix(tok.value)
        if k == Kind.TEXT:
            inner = tokenize(tok.value)
            if not inner:
                raise ParseError("empty \\text{}")
            self.toks[self.i : self.i] = inner
            return self.parse_atom()
        raise ParseError(f"unexpected {tok.value!r}")

    # -- letters and words ----------------------------------------------------------------------
    def word(self, tok: Token) -> Any:
        w = tok.value
        low = w.lower()
        if low in FUNCS:
            return self.function(low)
        if low == "sqrt":
            return self.build.sqrt(self.check_scalar(self.read_arg()))
        if low == "pi":
            return self.build.pi
        if low in ("infty", "inf", "infinity"):
            return self.build.infinity
        if len(w) > 1:  # implicit product of letters: push the rest back
            self.toks[self.i : self.i] = [Token(Kind.WORD, w[1:], False)]
            w = w[0]
        return self.symbol(w)

    def symbol(self, name: str) -> Any:
        if self.accept("_"):
            name = f"{name}_{self.subscript()}"
        elif name == "e":
            return self.build.e
        elif name == "i":
            return self.build.imaginary_unit
        self.build.tick()
        return self.build.symbol(name)

    def subscript(self) -> str:
        tok = self.next()
        if tok.kind == "{":
            parts = []
            while not self.at("}"):
                t = self.next()
                if t.kind not in (Kind.NUMBER, Kind.WORD, Kind.COMMAND, ",", "+", "-"):
                    raise ParseError("unsupported subscript")
                parts.append(t.value)
            self.next()
            return "".join(parts)
        if tok.kind in (Kind.NUMBER, Kind.WORD):
            return tok.value
        if tok.kind == Kind.COMMAND and tok.value in GREEK:
            return tok.value
        raise ParseError("unsupported subscript")

    # -- commands -------------------------------------------------------------------------------
    def command(self, tok: Token) -> Any:
        name = tok.value
        if name == "langle":
            return self.bracket("langle")
        if name == "frac":
            num, den = self.check_scalar(self.read_arg()), self.check_scalar(self.read_arg())
            return self.build.div(num, den)
        if name == "sqrt":
            n = None
            if self.accept("["):
                n = self.check_scalar(self.parse_expr())
                self.expect("]")
            return self.build.sqrt(self.check_scalar(self.read_arg()), n)
        if name == "binom":
            n, r = self.check_scalar(self.read_arg()), self.check_scalar(self.read_arg())
            return self.build.binomial(n, r)
        if name in ("sum", "prod"):
            return self.big_operator(name)
        if name in ("pi",):
            return self.build.pi
        if name in ("infty", "infin"):
            return self.build.infinity
        if name == "imath":
            return self.build.imaginary_unit
        if name in GREEK:
            self.build.tick()
            return self.symbol(name)
        if name in FUNCS:
            return self.function(name)
        if name in ("lfloor", "lceil"):
            self.enter()
            x = self.check_scalar(self.parse_expr())
            self.expect(Kind.COMMAND)
            self.leave()
            return self.build.func("floor" if name == "lfloor" else "ceil", x)
        if name in ("emptyset", "varnothing"):
            return Answer("set", ())
        if name == "mathbb":
            self.expect("{")
            letter = self.expect(Kind.WORD).value
            self.expect("}")
            if letter != "R":
                raise ParseError(f"unsupported set \\mathbb{{{letter}}}")
            infinity = self.build.infinity
            return Answer("interval", ((self.build.neg(infinity), infinity, True, True),))
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
        return self.build.big_operator(name, body, var, lo, hi)

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
        if tok.kind in (Kind.NUMBER, Kind.WORD) and len(tok.value) > 1:
            self.toks[self.i : self.i + 1] = [Token(tok.kind, tok.value[0], tok.space),
                                              Token(tok.kind, tok.value[1:], False)]
        if tok.kind in (Kind.NUMBER, Kind.WORD, Kind.COMMAND):
            return self.parse_atom()
        raise ParseError(f"unexpected {tok.value!r} as an argument")

    def function(self, name: str) -> Any:
        build = self.build
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
        out = build.log(arg, base) if base is not None else build.func(name, arg)
        return build.pow(out, power) if power is not None else out

    def function_argument(self) -> Any:
        build = self.build
        if self.at("(") or self.at("{"):
            arg = self.check_scalar(self.parse_atom())
        else:
            factors = [self.check_scalar(self.parse_power())]
            while True:
                t = self.peek()
                if t is None or not (t.kind in (Kind.NUMBER, Kind.WORD) or (t.kind == Kind.COMMAND and (t.value in GREEK
                                                                                        or t.value == "pi"))):
                    break
                if t.kind == Kind.WORD and t.value.lower() in FUNCS | {"or", "and"}:
                    break
                factors.append(self.check_scalar(self.parse_power()))
            arg = build.mul(factors)
        return arg

    # -- groups and structures ------------------------------------------------------------------
    def brace_group(self) -> Any:
        self.enter()
        elems = [self.parse_expr()]
        if self.accept(Kind.COMMAND, "over"):  # {1 \over 2}
            den = self.check_scalar(self.parse_expr())
            elems = [self.build.div(self.check_scalar(elems[0]), den)]
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
        if opener == "langle" or (tok.kind == Kind.COMMAND and tok.value == "rangle"):
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
        infinite = any(self.build.is_infinite(e) for e in elems)
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
        if not self.at(Kind.SET_CLOSE):
            elems.append(self.set_element(self.parse_expr()))
            while self.accept(",") or self.accept(";"):
                elems.append(self.set_element(self.parse_expr()))
        self.expect(Kind.SET_CLOSE)
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
            if self.accept(Kind.END):
                break
            rows[-1].append(self.check_scalar(self.parse_expr()))
            if self.accept("&"):
                continue
            if self.accept(Kind.ROW_END):
                if self.at(Kind.END):
                    continue
                rows.append([])
                continue
            self.expect(Kind.END)
            break
        self.leave()
        rows = [r for r in rows if r]
        if not rows or len({len(r) for r in rows}) != 1:
            raise ParseError("ragged or empty matrix")
        return Answer("matrix", tuple(tuple(r) for r in rows))
