"""Linear-time text helpers shared by the format rewards: code masking, tag names, tag scanning.

Every helper here runs in time linear in the length of the text (``str.find``/``str.count`` and
one pass), so a 1 MB completion is scored in milliseconds, never parsed by a backtracking regex.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Iterable
from typing import Any

from grpo_rewards import params

FENCE = "```"

#: Seconds every built-in (linear) pattern may run before the reward gives up on the sample.
BUILTIN_REGEX_TIMEOUT = 1.0


def mask_code(text: str) -> str:
    """``text`` with every fenced code block (from a triple-backtick fence to the next, or to the
    end when unclosed) replaced by spaces of the same length, so positions still line up.

    Tags inside a code block are quoted, not structure: the rewards find tags in the masked text
    and read contents from the original.

    >>> mask_code("a ```<think>``` b") == "a " + " " * 13 + " b"
    True
    """
    if FENCE not in text:
        return text
    parts: list[str] = []
    pos = 0
    while True:
        start = text.find(FENCE, pos)
        if start < 0:
            parts.append(text[pos:])
            break
        parts.append(text[pos:start])
        end = text.find(FENCE, start + len(FENCE))
        stop = len(text) if end < 0 else end + len(FENCE)
        parts.append(" " * (stop - start))
        pos = stop
        if end < 0:
            break
    return "".join(parts)


#: Code points inside the visible categories that still render as nothing: Unicode's
#: Default_Ignorable_Code_Point set (the Hangul fillers U+115F, U+1160, U+3164, U+FFA0 are letters),
#: the braille pattern with no raised dots (U+2800) and the invisible musical symbol U+1D159 (MUSICAL
#: SYMBOL NULL NOTEHEAD); both are symbols (So).
INVISIBLE_SYMBOLS = r"[\p{White_Space}\p{Default_Ignorable_Code_Point}\u2800\U0001D159]"
#: One character that renders as visible text, defined positively by its general category: a letter
#: (L), a digit or other number (N), punctuation (P) or a symbol (S), less :data:`INVISIBLE_SYMBOLS`.
#: Everything else is not visible: separators (Z), controls (Cc), format characters (Cf, such as the
#: musical beams U+1D173..U+1D17A), surrogates (Cs), private use (Co), unassigned code points (Cn)
#: and combining marks (M: alone they sit on nothing).
VISIBLE = r"[[\p{L}\p{N}\p{P}\p{S}]--" + INVISIBLE_SYMBOLS + "]"
#: Characters that take no room in rendered text (removed before comparing words).
ZERO_WIDTH = r"[[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Default_Ignorable_Code_Point}\U0001D159]--\p{White_Space}]"
#: Characters that render as blank room (read as a word separator).
SEPARATOR = r"[\p{White_Space}\u2800]+"


@functools.cache
def compiled(pattern: str) -> Any:
    """``pattern`` compiled once per process by the ``regex`` module (Unicode properties, timeouts)."""
    import regex

    return regex.compile(pattern, regex.V1)


def is_blank(text: str) -> bool:
    """Whether ``text`` has no character that renders as visible text (see :data:`VISIBLE`).

    Only letters, numbers, punctuation and symbols are visible: whitespace, zero-width and format
    characters, controls such as NUL, combining marks on nothing, private-use and unassigned code
    points, default-ignorable fillers (U+3164 HANGUL FILLER), the blank braille pattern and the
    null notehead U+1D159 are all blank; a rule over Unicode properties, linear in the length of the text.

    >>> is_blank(" \\u200b\\ufeff\\n"), is_blank("\\u3164\\u2800\\u034f\\x00"), is_blank(" 4 ")
    (True, True, False)
    >>> is_blank("\\u0378\\ue000\\U0001d159"), is_blank("\\u20ac"), is_blank("\\u0416")
    (True, False, False)
    """
    return compiled(VISIBLE).search(text) is None


def visible_words(text: str) -> list[str]:
    """The words of ``text`` as a reader sees them: NFKC-normalised, case-folded, zero-width
    characters removed, split on whitespace and blank characters.

    >>> visible_words("\\uff34he\\u200b cat\\u2800sat\\u200b\\u200b")
    ['the', 'cat', 'sat']
    """
    text = unicodedata.normalize("NFKC", text)
    text = compiled(ZERO_WIDTH).sub("", compiled(SEPARATOR).sub(" ", text))
    return text.casefold().split()


def check_tag_name(name: object, what: str = "tag") -> str:
    """Return ``name`` if it can be an XML-like tag name, else raise ``ValueError``."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"{what} must be a non-empty string, got {name!r}")
    if any(c.isspace() or c in "<>/" for c in name):
        raise ValueError(f"{what} {name!r} must not contain whitespace, '<', '>' or '/'")
    return name


def check_tag_names(names: object, what: str = "tags") -> tuple[str, ...]:
    """Validate a non-empty list of distinct tag names."""
    if isinstance(names, str) or not isinstance(names, (list, tuple)) or not names:
        raise ValueError(f"{what} must be a non-empty list of tag names, got {names!r}")
    out = tuple(check_tag_name(n, what) for n in names)
    if len(set(out)) != len(out):
        raise ValueError(f"{what} must be distinct, got {list(out)}")
    return out


def opening(name: str) -> str:
    return f"<{name}>"


def closing(name: str) -> str:
    return f"</{name}>"


def positions(text: str, needle: str) -> list[int]:
    """Every start index of ``needle`` in ``text`` (non-overlapping), in one linear pass."""
    out: list[int] = []
    i = text.find(needle)
    while i >= 0:
        out.append(i)
        i = text.find(needle, i + len(needle))
    return out


def tag_tokens(text: str, names: Iterable[str]) -> list[tuple[int, int, str, bool]]:
    """``(start, end, name, is_closing)`` for every ``<name>``/``</name>`` in ``text``, by position."""
    tokens: list[tuple[int, int, str, bool]] = []
    for name in names:
        for tag, is_closing in ((opening(name), False), (closing(name), True)):
            tokens.extend((i, i + len(tag), name, is_closing) for i in positions(text, tag))
    tokens.sort()
    return tokens


def check_bool(value: object, what: str) -> bool:
    return params.boolean(value, what)


def check_number(value: object, what: str, low: float | None = None, high: float | None = None) -> float:
    return float(params.number(value, what, low=low, high=high))


def check_int(value: object, what: str, low: int = 1) -> int:
    return int(params.integer(value, what, low=low))
