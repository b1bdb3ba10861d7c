"""Recursive-descent grammar: tokens -> sympy objects (through the guarded :class:`Builder`).

    answer := item (SEP item)*            SEP: , ; or and \\text{ or }
    item   := expr (RELOP expr)* | struct (\\cup struct)*
    expr   := term (('+' | '-' | \\pm | \\mp) term)*
    term   := unary (('*' | \\cdot | \\times | '/' | \\div) unary | implicit power | unit)*
    unary  := ('-' | '+' | \\pm | \\mp) unary | power
    power  := postfix ('^' exponent)?
    postfix:= atom ('!' | '%' | degree)*
    atom   := number | letter | constant | \\frac | \\sqrt | function | group | |x| | set | tuple | matrix
"""

from __future__ import annotations

from typing import Any

from .answer import Answer
from .build import Builder
from .latex_lexer import ParseError, Token

FUNCS = frozenset({"sin", "cos", "tan", "cot", "sec", "csc", "arcsin", "arccos", "arctan", "arccot", "arcsec",
                   "arccsc", "sinh", "cosh", "tanh", "coth", "ln", "log", "exp", "abs", "sgn"})
INVERSE = {"sin": "arcsin", "cos": "arccos", "tan": "arctan", "cot": "arccot", "sec": "arcsec", "csc": "arccsc"}
GREEK = frozenset("""alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi
    rho varrho sigma tau upsilon phi varphi chi psi omega Gamma Delta Theta Lambda Xi Sigma Phi Psi Omega""".split())
WRAPPERS = frozenset({"boxed", "fbox", "mathbf", "boldsymbol", "mathit", "bm", "vec", "overline", "mathsf",
                      "underline", "displaystyle", "mathnormal", "ensuremath"})
RELOPS = {"=": "=", "<": "<", ">": ">", "LE": "<=", "GE": ">=", "NE": "!=", "le": "<=", "leq": "<=",
          "leqslant": "<=", "ge": ">=", "geq": ">=", "geqslant": ">=", "ne": "!=", "neq": "!=", "lt": "<",
          "gt": ">", "approx": "=", "equiv": "=", "cong": "="}
MATRIX_ENVS = frozenset({"pmatrix", "bmatrix", "Bmatrix", "vmatrix", "Vmatrix", "matrix", "array", "smallmatrix"})
UNITS = frozenset("""cm m km mm kg g mg ft in mi yd hr hrs h min mins sec secs s ml l oz lb lbs sq cu mph kph
    units unit""".split())
SEPARATOR_WORDS = frozenset({"or", "and"})
FUNCTION_NAMES = frozenset("fghpqFGHPQ")
PERCENT_WORDS = frozenset({"percent", "pct", "percentage", "per cent", "%"})
DEGREE_WORDS = frozenset({"degree", "degrees", "deg"})
MULT_CMDS = frozenset({"cdot", "times", "ast"})
ATOM_CMDS = frozenset({"frac", "sqrt", "pi", "infty", "binom", "lfloor", "lceil", "emptyset", "varnothing",
                       "imath", "infin", "mathbb", "langle"}) | FUNCS | GREEK | WRAPPERS


class Grammar:
    def __init__(self, tokens: list[Token], builder: Builder) -> None:
        self.toks = tokens
        self.i = 0
        self.b = builder
        self.sp = builder.sp
        self.depth = 0
        self.abs_depth = 0
        self.in_exponent = 0
        self.percent = False
        self.degree = False
        self.in_trig = 0
        self.pm = self.sp.Dummy("pm")

    # -- token helpers ------------------------------------------------------------------------
    def peek(self, k: int = 0) -> Token | None:
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else None

    def next(self) -> Token:
        tok = self.peek()
        if tok is None:
            raise ParseError("unexpected end of input")
        self.i += 1
        return tok

    def at(self, kind: str, value: str | None = None) -> bool:
        tok = self.peek()
        return tok is not None and tok.kind == kind and (value is None or tok.value == value)

    def accept(self, kind: str, value: str | None = None) -> Token | None:
        if self.at(kind, value):
            return self.next()
        return None

    def expect(self, kind: str) -> Token:
        tok = self.peek()
        if tok is None or tok.kind != kind:
            raise ParseError(f"expected {kind!r}, found {tok.value if tok else 'end of input'!r}")
        return self.next()

    def enter(self) -> None:
        self.depth += 1
        if self.depth > self.b.limits.max_depth:
            raise ParseError(f"nesting deeper than max_depth={self.b.limits.max_depth}")

    def leave(self) -> None:
        self.depth -= 1

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
        """Items divided by separators; ``a=3, b=1; a=5, b=1`` (``;`` between groups of several
        items) gives one tuple per group: ``(3, 1), (5, 1)``."""
        groups: list[list[Answer]] = [[self.parse_item()]]
        while self.at_separator():
            semicolon = False
            while self.at_separator():
                semicolon |= self.next().kind == ";"
            if self.peek() is None:
                break
            if semicolon:
                groups.append([])
            groups[-1].append(self.parse_item())
        tok = self.peek()
        if tok is not None:
            raise ParseError(f"unexpected {tok.value!r}")
        if len(groups) > 1 and any(len(g) > 1 for g in groups):
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
            return self.matrix_sum(terms)
        return self.b.add([self.check_scalar(t) for t in terms])

    def matrix_sum(self, terms: list[Any]) -> Answer:
        """``A + B`` with literal matrices of one shape: the matrix of the sums."""
        if not all(isinstance(t, Answer) and t.kind == "matrix" for t in terms):
            raise ParseError("a matrix plus a scalar")
        shape = {(len(t.value), len(t.value[0])) for t in terms}
        if len(shape) != 1:
            raise ParseError("a sum of matrices of different shapes")
        rows = zip(*(t.value for t in terms))
        return Answer("matrix", tuple(tuple(self.b.add(list(cells)) for cells in zip(*row)) for row in rows))

    def matrix_product(self, factors: list[Any]) -> Answer:
        """Scalars and literal matrices multiplied in order (shapes must agree)."""
        scalar: Any = self.sp.Integer(1)
        out: tuple[tuple[Any, ...], ...] | None = None
        for f in factors:
            if not isinstance(f, Answer):
                scalar = self.b.mul([scalar, f])
                continue
            if f.kind != "matrix":
                raise ParseError(f"a product with a {f.kind}")
            if out is None:
                out = f.value
                continue
            if len(out[0]) != len(f.value):
                raise ParseError("a product of matrices of mismatched shapes")
            self.b.tick(len(out) * len(f.value[0]) * len(f.value))
            cols = list(zip(*f.value))
            out = tuple(tuple(self.b.add([self.b.mul([a, c]) for a, c in zip(row, col)]) for col in cols)
                        for row in out)
        assert out is not None
        return Answer("matrix", tuple(tuple(self.b.mul([scalar, e]) for e in row) for row in out))

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
        if w.lower() in UNITS and (len(w) > 1 or tok.space):
            return self.unit_position()
        return len(w) >= 3 and tok.space and w.lower() not in FUNCS and w not in GREEK and self.unit_position()

    def unit_position(self) -> bool:
        """A word is a unit only when nothing but units/exponents/separators follows it."""
        j = self.i + 1
        while j < len(self.toks):
            t = self.toks[j]
            if t.kind in ("WORD", "TEXT", "^", "NUM", "/"):
                if t.kind == "WORD" and t.value.lower() in SEPARATOR_WORDS:
                    return True
                j += 1
                continue
            return t.kind in (",", ";") or t.kind in ("=", "<", ">", "LE", "GE", "NE")
        return True

    def skip_unit(self) -> None:
        tok = self.next()
        word = tok.value.strip().lower()
        if word in PERCENT_WORDS:
            self.percent = True
        elif word in DEGREE_WORDS:
            self.degree = True
        after = self.peek(1)
        if self.at("^") and after is not None and after.kind == "NUM":
            self.i += 2

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
            return self.matrix_product(factors)
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

    def parse_atom(self) -> Any:  # defined in atoms.py (kept apart to keep modules small)
        raise NotImplementedError
