r"""Reading a reply's answer and a row's references, the same way for every text reward.

The answer is read with the math package's parameter names and values (``answer_format``,
``answer_position``), plus one value of its own, ``whole``:

- ``any`` (default): the last ``\boxed{…}``/``\fbox{…}`` when the reply has one, else the last
  ``<answer>…</answer>``, else the whole reply (a box beats a tag, as in ``math.accuracy``);
- ``boxed`` / ``answer_tag``: only that form counts (strict: a reply without it has no answer);
- ``whole``: the whole reply, stripped.

``answer_position="first"`` reads the first box or tag instead of the last. A box holding one
``\text{…}`` (or ``\textbf``, ``\mathrm``, ``\mbox``) is read as its content. A reply cut off inside
its last ``<answer>`` tag is read to its end (as math reads it when no closed tag comes before).

References come from a column (``reference`` unless a parameter names another): one string or a
list of acceptable strings, the best match counting (numbers, SQuAD's and TriviaQA's answer objects are
read too: :func:`references`). A text that is not valid UTF-8 (lone surrogates,
as ``surrogateescape`` decoding leaves them) has each bad code point replaced by U+FFFD.

>>> read_answer(r"I think it is \boxed{\text{Paris}}.", "any", "last")
'Paris'
>>> read_answer("<answer> Paris </answer> or <answer>Lyon</answer>", "any", "first")
'Paris'
>>> read_answer("Paris, I believe.", "any", "last"), read_answer("Paris", "boxed", "last")
('Paris, I believe.', None)
>>> references(["Paris", "City of Paris"]), references("Paris"), references([]), references(None)
(('Paris', 'City of Paris'), ('Paris',), (), ())
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Mapping
from typing import Any

from grpo_rewards.protocol import as_column

#: ``answer_format``: math's values (``any``, ``boxed``, ``answer_tag``) and ``whole``.
FORMATS = ("any", "boxed", "answer_tag", "whole")
#: ``answer_position``: which box or tag counts when a reply has several.
POSITIONS = ("last", "first")
#: A box or tag content longer than this is no answer (a reply cut off after ``\boxed{``).
MAX_ANSWER_CHARS = 100_000
_BOXES = ("\\boxed", "\\fbox")
_WRAPPERS = re.compile(r"\\(?:text|textbf|textit|textrm|mathrm|mathbf|mbox)\s*\{([^{}]*)\}")
_SURROGATES = re.compile("[\ud800-\udfff]")


def valid_text(text: str) -> str:
    """``text`` with every lone surrogate (invalid UTF-8 decoded with ``surrogateescape``) replaced by U+FFFD.

    >>> valid_text("caf\\udce9") == "caf\\ufffd"
    True
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATES.sub("\ufffd", text)
    return text


def _braced(text: str, start: int) -> tuple[str, int] | None:
    r"""The content of the ``{…}`` group opening at ``text[start]`` and the index after it (balanced braces;
    ``\{`` and ``\}`` are characters, as in TeX).

    The math package's ``latex_lexer.braced_group`` is the same scan. It stays written twice on purpose:
    a reward package may not import another's internals, and the core's public names hold no LaTeX.
    What the two packages build on it differs (their answer contracts): math joins a run of boxes
    (``\boxed{2}, \boxed{5}`` is ``2, 5``), reads ``\boxed 5``, skips an empty last box and reads the last
    closed ``<answer>`` before a cut-off one; a text answer is the last (or first) box alone,
    ``\text{…}`` unwrapped, and the last ``<answer>`` read to its end.

    >>> _braced(r"{a\}b}c", 0), _braced("{a{b}", 0)
    (('a\\}b', 6), None)
    """
    depth = 0
    end = min(len(text), start + MAX_ANSWER_CHARS + 2)
    i = start
    while i < end:
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return text[start + 1:i], i + 1
        i += 1
    return None


def _closings(text: str) -> dict[int, int]:
    r"""Where each ``{`` of ``text`` closes, as :func:`_braced` would find it from there: one left-to-right
    scan (``\{`` and ``\}`` are characters), a group longer than :data:`MAX_ANSWER_CHARS` left out.

    The brace of a box is where :func:`_braced` starts, and a scan from the text's start reaches it as
    the start of a token (the character before it is a letter or a blank that no backslash escapes),
    so the scans agree from there on.

    >>> _closings(r"{a{b}\}c}d{")
    {2: 4, 0: 8}
    """
    closes: dict[int, int] = {}
    opened: list[int] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "{":
            opened.append(i)
        elif ch == "}" and opened:
            start = opened.pop()
            if i < start + MAX_ANSWER_CHARS + 2:
                closes[start] = i
        i += 1
    return closes


def _box_brace(text: str, at: int, command: str) -> int | None:
    """The index of the ``{`` that opens the box whose command starts at ``at``, or None (no brace)."""
    i = at + len(command)
    if i < len(text) and text[i].isalpha():
        return None  # another command (\boxedtext)
    while i < len(text) and text[i] in " \t":
        i += 1
    if i >= len(text) or text[i] != "{":
        return None
    return i


def boxed(text: str, first: bool = False) -> str | None:
    r"""The content of the last (or first) complete ``\boxed{…}``/``\fbox{…}``, or None.

    Linear in the text: a box that never closes sends the search to the one before (or after) it, and
    once one has, every other box's group is read from one scan (:func:`_closings`), not scanned again
    from its brace (``\boxed{`` repeated was quadratic: minutes for 200,000 characters).

    >>> boxed(r"\boxed{1} then \boxed{\frac{1}{2}}"), boxed(r"\boxed{1} then \boxed{2}", first=True)
    ('\\frac{1}{2}', '1')
    """
    if "\\boxed" not in text and "\\fbox" not in text:
        return None
    found = []
    closes: dict[int, int] | None = None
    for command in _BOXES:
        at = text.find(command) if first else text.rfind(command)
        while at >= 0:
            brace = _box_brace(text, at, command)
            if brace is not None:
                if closes is None:
                    group = _braced(text, brace)
                    if group is not None:
                        found.append((at, group[0]))
                        break
                    closes = _closings(text)  # a box left open: no box is scanned again
                elif brace in closes:
                    found.append((at, text[brace + 1:closes[brace]]))
                    break
            at = text.find(command, at + 1) if first else text.rfind(command, 0, at)
    if not found:
        return None
    at, content = min(found) if first else max(found)
    content = content.strip()
    match = _WRAPPERS.fullmatch(content)
    return match.group(1).strip() if match else content


def answer_tag(text: str, first: bool = False) -> str | None:
    """The content of the last (or first) ``<answer>…</answer>``; a last tag cut off is read to the end.

    >>> answer_tag("<answer>4</answer> <answer>5"), answer_tag("no tag") is None
    ('5', True)
    """
    if "<answer>" not in text:
        return None
    if first:
        open_ = text.find("<answer>")
        close = text.find("</answer>", open_)
        content = text[open_ + 8:close if close >= 0 else len(text)]
    else:
        open_ = text.rfind("<answer>")
        close = text.find("</answer>", open_)
        content = text[open_ + 8:close if close >= 0 else len(text)]
    return content.strip() if len(content) <= MAX_ANSWER_CHARS else None


def read_answer(text: str, answer_format: str = "any", answer_position: str = "last") -> str | None:
    """The answer a text reward reads from ``text`` (see the module), or None when it has none."""
    first = answer_position == "first"
    if answer_format == "whole":
        return text.strip()
    if answer_format != "answer_tag":
        box = boxed(text, first)
        if box is not None or answer_format == "boxed":
            return box
    tag = answer_tag(text, first)
    if tag is not None or answer_format == "answer_tag":
        return tag
    return text.strip()


def references(value: Any) -> tuple[str, ...]:
    """The acceptable references of one row's column value, as datasets carry them: a string; a number (its
    decimal text, a float with an integral value as that integer: a numeric column with gaps, read through
    pandas, holds 42 as 42.0); a list, tuple or numpy array of those; SQuAD's ``answers`` (``{"text": [...],
    "answer_start": [...]}``, as SQuAD v2, XQuAD, MLQA and TyDi QA carry them; without text, SQuAD v2's
    unanswerable question, the reference ``""``, as its official script reads it) and TriviaQA's ``answer``
    (``{"value": ..., "aliases": [...]}``). Anything else (None, a bool, another mapping, nested lists) gives
    none: the row is ``no_reference``.

    >>> references(42), references(42.0), references(0.5), references(True)
    (('42',), ('42',), ('0.5',), ())
    >>> references({"text": ["Denver Broncos", "Broncos"], "answer_start": [177, 184]})
    ('Denver Broncos', 'Broncos')
    """
    if isinstance(value, str):
        return (valid_text(value),)
    if isinstance(value, Mapping):
        if "text" in value:  # SQuAD; no text is SQuAD v2's unanswerable question, whose gold evaluate-v2.0.py reads as ""
            return references(value["text"]) or ("",)
        if "aliases" in value or "value" in value:  # TriviaQA
            return tuple(dict.fromkeys(references(value.get("value")) + references(value.get("aliases"))))
        return ()
    if not isinstance(value, (list, tuple)):
        items = as_column(value)  # a numpy array (pandas' list cells), as the core reads a column
        if items is None:
            number = _number_text(value)
            return () if number is None else (number,)
        value = items
    found: list[str] = []
    for item in value:
        text = valid_text(item) if isinstance(item, str) else _number_text(item)
        if text is not None:
            found.append(text)
    return tuple(found)


def _number_text(value: Any) -> str | None:
    """A number's text as a reference (see :func:`references`); None for anything else (a bool is no number)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return None
    if isinstance(value, numbers.Integral):
        return str(int(value))
    number = float(value)
    if not math.isfinite(number):
        return None
    return str(int(number)) if number.is_integer() and abs(number) < 2 ** 53 else repr(number)
