"""Atoms of the grammar: numbers, letters, constants, \\frac, \\sqrt, functions, groups, |x|, sets,
tuples/intervals and matrices. See grammar.py for the expression levels.
"""

from __future__ import annotations

from typing import Any

from .answer import Answer
from .grammar import FUNCS, GREEK, INVERSE, MATRIX_ENVS, WRAPPERS, Grammar
from .latex_lexer import ParseError, Token, tokenize

_CLOSE = {"(": ")", "[": "]"}


class Parser(Grammar):
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
            elems.append(self.check_scalar(self.parse_expr()))
            while self.accept(",") or self.accept(";"):
                elems.append(self.check_scalar(self.parse_expr()))
        self.expect("SETCLOSE")
        self.leave()
        return Answer("set", tuple(elems))

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
