r"""``format.boxed``: the final answer in ``\boxed{…}`` with balanced braces."""

from __future__ import annotations

from typing import Any

from .text_utils import BUILTIN_REGEX_TIMEOUT, check_bool, check_int, is_blank

BOX = "\\boxed"
_BRACE_TOKENS = r"\\.|[{}]"  # an escaped character (\{, \}, \\) or a grouping brace


def find_boxes(text: str) -> list[tuple[int, int]]:
    r"""``(start of \boxed, index of its "{")`` for every ``\boxed{`` (spaces allowed before the brace).

    >>> find_boxes(r"a \boxed{1} b \boxed {2} \boxedx{3}")
    [(2, 8), (14, 21)]
    """
    out = []
    i = text.find(BOX)
    while i >= 0:
        j = i + len(BOX)
        while j < len(text) and text[j] in " \t":
            j += 1
        if j < len(text) and text[j] == "{":
            out.append((i, j))
        i = text.find(BOX, i + len(BOX))
    return out


def matching_braces(text: str, start: int = 0, timeout: float = BUILTIN_REGEX_TIMEOUT) -> dict[int, int]:
    r"""Index of each ``{`` at or after ``start`` → index of the ``}`` that closes it, in one pass.

    Escaped braces (``\{``, ``\}``) do not group. Unclosed braces are absent. Raises
    ``TimeoutError`` past ``timeout`` seconds (the pattern is linear; the timeout is a backstop).

    >>> matching_braces(r"{a{b}\}c}")
    {2: 4, 0: 8}
    """
    import regex

    stack: list[int] = []
    pairs: dict[int, int] = {}
    for m in regex.compile(_BRACE_TOKENS).finditer(text, start, timeout=timeout):
        token = m.group()
        if token == "{":
            stack.append(m.start())
        elif token == "}" and stack:
            pairs[stack.pop()] = m.start()
    return pairs


class Boxed:
    r"""1.0 when the final answer is in one balanced, non-empty ``\boxed{…}``, else 0.0.

    Unit: none (0/1). Formula: ``1.0`` if there is at least one ``\boxed{`` and, for the last
    one: its braces balance (escaped ``\{``/``\}`` do not count), its content is not blank
    (unless ``allow_empty``), it starts within the last ``last_chars`` characters (when set); and
    when ``exactly_one`` (the default) it is the only ``\boxed{`` in the text (a nested box
    counts); else ``0.0``. Linear time (one brace pass), so a 1 MB completion takes milliseconds.

    >>> score = Boxed()
    >>> score(r"So the answer is \boxed{\frac{1}{2}}.")
    1.0
    >>> score(r"\boxed{1} or maybe \boxed{2}")
    0.0
    >>> score(r"The answer is \boxed{}")
    0.0
    >>> Boxed(exactly_one=False)(r"\boxed{1} or maybe \boxed{2}")
    1.0
    """

    def __init__(self, exactly_one: bool = True, last_chars: int | None = None, allow_empty: bool = False) -> None:
        self.exactly_one = check_bool(exactly_one, "exactly_one")
        self.last_chars = None if last_chars is None else check_int(last_chars, "last_chars")
        self.allow_empty = check_bool(allow_empty, "allow_empty")
        self.regex_timeouts = 0

    def __call__(self, text: str, **row: Any) -> float:
        boxes = find_boxes(text)
        if not boxes or (self.exactly_one and len(boxes) != 1):
            return 0.0
        start, brace = boxes[-1]
        if self.last_chars is not None and start < len(text) - self.last_chars:
            return 0.0
        try:
            close = matching_braces(text, brace).get(brace)
        except TimeoutError:
            self.regex_timeouts += 1
            return 0.0
        if close is None or (not self.allow_empty and is_blank(text[brace + 1:close])):
            return 0.0
        return 1.0
