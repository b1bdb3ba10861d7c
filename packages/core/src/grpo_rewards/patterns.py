r"""Regular-expression parts the plugins share: :func:`atomic`, the one way this project writes an atomic group.

A greedy run followed by a part that may fail is, in a backtracking engine, given back one character at a time
and the rest tried again from each: on a near miss (20,000 blanks and no newline after a fence, 10,000 blanks
before no sentence end, ``(\s+)*`` before a character no token takes) that is seconds to minutes of one reward
call, which a model's completion can ask for. An atomic group keeps its run whole. Python 3.11's ``re`` writes it
``(?>...)`` or with a possessive quantifier (``*+``); this project supports Python 3.10, whose ``re`` has neither,
so the group is written with what every version reads: the run is found inside a lookahead, which the engine
never re-enters, and then consumed by a backreference to it. The ``regex`` module reads the same text alike.

>>> import re
>>> re.fullmatch(atomic("a*", "run") + "a", "aaa") is None  # the run keeps every "a": none is given back
True
>>> re.fullmatch("a*a", "aaa") is not None  # (a plain run gives one back)
True
"""

from __future__ import annotations

__all__ = ["atomic"]


def atomic(pattern: str, name: str) -> str:
    r"""``pattern`` as an atomic group named ``name``: ``(?=(?P<name>pattern))(?P=name)``.

    Whatever ``pattern`` matches first at a position is taken whole and never given back to what follows, so the
    text is read once however the rest fails. The match is the group ``name``; a pattern may hold several atomic
    groups, each with a name of its own.

    >>> atomic(r"[ \t]*", "blanks")
    '(?=(?P<blanks>[ \\t]*))(?P=blanks)'
    >>> import re
    >>> re.match(atomic(r"[ \t]*", "blanks") + "x", "  x").group("blanks")
    '  '
    """
    return f"(?=(?P<{name}>{pattern}))(?P={name})"
