"""The grammar of answers: one recursive-descent :class:`Parser` (``parser.py``) over the lexer's
tokens, with its vocabulary (``vocabulary.py``), its token cursor (``cursor.py``) and the
arithmetic of literal matrices (``matrices.py``)."""

from .parser import Parser
from .vocabulary import FUNCS, GREEK

__all__ = ["FUNCS", "GREEK", "Parser"]
