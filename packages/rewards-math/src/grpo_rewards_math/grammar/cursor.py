"""A cursor over the token list: look ahead, consume, expect, and count the nesting depth."""

from __future__ import annotations

from ..latex_lexer import ParseError, Token


class TokenCursor:
    """Reads a token list left to right; ``enter``/``leave`` bound the nesting depth."""

    def __init__(self, tokens: list[Token], max_depth: int) -> None:
        self.toks = tokens
        self.i = 0
        self.depth = 0
        self.max_depth = max_depth

    def peek(self, k: int = 0) -> Token | None:
        try:  # the index is never negative: past the end is the only miss
            return self.toks[self.i + k]
        except IndexError:
            return None

    def next(self) -> Token:
        i = self.i
        try:
            tok = self.toks[i]
        except IndexError:
            raise ParseError("unexpected end of input") from None
        self.i = i + 1
        return tok

    def at(self, kind: str, value: str | None = None) -> bool:
        toks, i = self.toks, self.i  # peek() inlined: the parser's hottest test
        if i >= len(toks):
            return False
        tok = toks[i]
        return tok.kind == kind and (value is None or tok.value == value)

    def accept(self, kind: str, value: str | None = None) -> Token | None:
        toks, i = self.toks, self.i  # at() inlined
        if i < len(toks):
            tok = toks[i]
            if tok.kind == kind and (value is None or tok.value == value):
                self.i = i + 1
                return tok
        return None

    def expect(self, kind: str) -> Token:
        tok = self.peek()
        if tok is None or tok.kind != kind:
            raise ParseError(f"expected {kind!r}, found {tok.value if tok else 'end of input'!r}")
        return self.next()

    def enter(self) -> None:
        self.depth += 1
        if self.depth > self.max_depth:
            raise ParseError(f"nesting deeper than max_depth={self.max_depth}")

    def leave(self) -> None:
        self.depth -= 1
