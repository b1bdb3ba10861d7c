r"""``format.boxed``: the final answer in ``\boxed{…}`` with balanced braces."""

from __future__ import annotations

from typing import Any

from .text_utils import BUILTIN_REGEX_TIMEOUT, check_bool, check_int, compiled, is_blank

BOX = "\\boxed"
_BRACE_TOKENS = r"\\.|[{}]"  # an escaped character (\{, \}, \\) or a grouping brace

#: LaTeX commands that print nothing: spacing, breaks, style switches, the delimiter commands
#: (``\left.``), and commands that only style their argument (the argument is read on its own).
SILENT_COMMANDS = frozenset({
    "quad", "qquad", "enspace", "enskip", "thinspace", "medspace", "thickspace", "negthinspace",
    "negmedspace", "negthickspace", "space", "nobreakspace", "relax", "null", "empty", "strut",
    "mathstrut", "newline", "linebreak", "nobreak", "allowbreak", "noindent", "par", "displaystyle",
    "textstyle", "scriptstyle", "scriptscriptstyle", "limits", "nolimits", "left", "right", "middle",
    "rm", "bf", "it", "sf", "tt", "normalfont", "tiny", "scriptsize", "footnotesize", "small",
    "normalsize", "large", "Large", "LARGE", "huge", "Huge", "text", "textrm", "textbf", "textit",
    "textsf", "texttt", "textnormal", "textup", "emph", "mathrm", "mathbf", "mathit", "mathsf",
    "mathtt", "mathcal", "mathbb", "mathfrak", "mathscr", "mathnormal", "boldsymbol", "bm", "mbox",
    "hbox", "operatorname", "mathop", "mathord", "mathrel", "mathbin", "mathinner", "mathpunct",
    "underline", "overline",
})
#: Commands whose first braced argument prints nothing (a phantom, a space, a colour name).
HIDDEN_ARGUMENT = frozenset({"phantom", "hphantom", "vphantom", "hspace", "vspace", "color",
                             "textcolor", "colorbox", "label"})
#: Commands followed by a dimension that prints nothing (``\kern 2em``).
DIMENSION_COMMANDS = frozenset({"kern", "mkern", "hskip", "mskip", "vskip", "mspace"})
#: Characters after a backslash that make a space or a break (``\ ``, ``\,``, ``\\``); the
#: others (``\{``, ``\%``, ``\$``, …) print themselves.
SILENT_SYMBOLS = frozenset(" \t\n,;:!>\\/-")
#: Characters that group, align, attach or space without printing (``~`` is a space).
SILENT_CHARACTERS = frozenset("{}~&^_")
_LATEX_TOKEN = r"(?s)\\([A-Za-z]+)\*?|\\(.)|(.)"
_DIMENSION = r"\s*[-+]?(?:\d+(?:\.\d*)?|\.\d+)\s*(?:pt|em|ex|mu|cm|mm|in|pc|bp|dd|cc|sp|px)"


def renders_blank(latex: str, timeout: float = BUILTIN_REGEX_TIMEOUT) -> bool:
    r"""Whether ``latex`` (the inside of a box) prints nothing visible.

    Blank: blank text (see :func:`is_blank`), grouping braces, ``~``, spacing commands (``\ ``,
    ``\,``, ``\quad``, ``\hspace{1cm}``, ``\kern 2em``), phantoms, colour names, style commands
    whose argument is blank (``\text{}``, ``\mathrm{ }``) and ``\left.\right.``. Any other command
    (``\pi``, ``\emptyset``) or character is visible. Linear time: each token is read once.

    >>> [renders_blank(s) for s in (r"\ ", "~", "{}", r"\text{}", r"\phantom{4}", r"\quad")]
    [True, True, True, True, True, True]
    >>> [renders_blank(s) for s in ("0", r"\emptyset", r"\{\}", r"\text{no}", r"\phantom{4}5")]
    [False, False, False, False, False]
    """
    token, dimension = compiled(_LATEX_TOKEN), compiled(_DIMENSION)
    pairs: dict[int, int] | None = None
    pos, end = 0, len(latex)
    while pos < end:
        m = token.match(latex, pos, timeout=timeout)
        if m is None:  # pragma: no cover - every character matches the last branch
            return False
        pos = m.end()
        name, symbol, char = m.group(1), m.group(2), m.group(3)
        if char is not None:
            if char not in SILENT_CHARACTERS and not is_blank(char):
                return False
        elif symbol is not None:
            if symbol not in SILENT_SYMBOLS and not is_blank(symbol):
                return False
        elif name in HIDDEN_ARGUMENT:
            while pos < end and latex[pos].isspace():
                pos += 1
            if pos < end and latex[pos] == "{":
                pairs = matching_braces(latex, timeout=timeout) if pairs is None else pairs
                pos = pairs.get(pos, end - 1) + 1
        elif name in DIMENSION_COMMANDS:
            found = dimension.match(latex, pos, timeout=timeout)
            pos = found.end() if found else pos
        elif name in ("left", "right", "middle") and latex.startswith(".", pos):
            pos += 1
        elif name not in SILENT_COMMANDS:
            return False
    return True


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
    one: its braces balance (escaped ``\{``/``\}`` do not count), its content prints something
    (unless ``allow_empty``; ``\boxed{\ }``, ``\boxed{\phantom{4}}``, ``\boxed{\text{}}`` print
    nothing, see :func:`renders_blank`), it starts within the last ``last_chars`` characters (when set); and
    when ``exactly_one`` (the default) it is the only ``\boxed{`` in the text (a nested box
    counts); else ``0.0``. Linear time (one brace pass), so a 1 MB completion takes milliseconds.

    >>> score = Boxed()
    >>> score(r"So the answer is \boxed{\frac{1}{2}}.")
    1.0
    >>> score(r"\boxed{1} or maybe \boxed{2}")
    0.0
    >>> score(r"The answer is \boxed{}"), score(r"The answer is \boxed{\quad}")
    (0.0, 0.0)
    >>> Boxed(exactly_one=False)(r"\boxed{1} or maybe \boxed{2}")
    1.0
    """

    def __init__(self, exactly_one: bool = True, last_chars: int | None = None, allow_empty: bool = False) -> None:
        self.exactly_one = check_bool(exactly_one, "exactly_one")
        self.last_chars = None if last_chars is None else check_int(last_chars, "last_chars")
        self.allow_empty = check_bool(allow_empty, "allow_empty")

    def __call__(self, text: str, **row: Any) -> float | tuple[float, str]:
        boxes = find_boxes(text)
        if not boxes or (self.exactly_one and len(boxes) != 1):
            return 0.0
        start, brace = boxes[-1]
        if self.last_chars is not None and start < len(text) - self.last_chars:
            return 0.0
        try:
            close = matching_braces(text, brace).get(brace)
            if close is None or (not self.allow_empty and renders_blank(text[brace + 1:close])):
                return 0.0
        except TimeoutError:
            return 0.0, "regex_timeout"
        return 1.0
