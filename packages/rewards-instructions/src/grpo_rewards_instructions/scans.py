r"""Linear-time scans that give what some of the original's regular expressions give.

Three of IFEval's patterns backtrack quadratically on hostile text (a megabyte of ``[`` with no
``]``, of ``<`` with no ``>>``, or of blank lines): ``\[.*?\]``, ``<<[^\n]+>>`` and
``^\s*\*[^\*].*$`` / ``^\s*-.*$`` (multiline). Each scan here returns what ``re.findall`` returns
(or its count) with the original pattern, in one pass; ``tests/instructions/test_instructions_scans.py``
checks that on generated text.

>>> count_placeholders("[name] and [address] and [x")
2
>>> titles("<<Song of Joy>>\nLa la la.")
['<<Song of Joy>>']
>>> count_line_starts("* one\n* two\n- three\n**bold**", "*"), count_line_starts("- three", "-")
(2, 1)
"""

from __future__ import annotations

import re

_VISIBLE = re.compile(r"\S")


def count_placeholders(text: str) -> int:
    r"""``len(re.findall(r"\[.*?\]", text))``."""
    count, pos, n = 0, 0, len(text)
    while pos < n:
        start = text.find("[", pos)
        if start < 0:
            break
        newline = text.find("\n", start)
        line_end = n if newline < 0 else newline
        close = text.find("]", start + 1, line_end)
        if close >= 0:
            count += 1
            pos = close + 1
        else:  # no "]" before the line ends: no "[" of this line can close
            pos = line_end + 1
    return count


def titles(text: str) -> list[str]:
    r"""``re.findall(r"<<[^\n]+>>", text)``: per line, from the first ``<<`` to the last ``>>`` after it."""
    found = []
    for line in text.split("\n"):
        start = line.find("<<")
        if start < 0:
            continue
        end = line.rfind(">>")
        if end >= start + 3:  # at least one character between
            found.append(line[start:end + 2])
    return found


def count_line_starts(text: str, marker: str) -> int:
    r"""For ``marker`` ``"*"``: ``len(re.findall(r"^\s*\*[^\*].*$", text, re.M))``; for ``"-"``:
    ``len(re.findall(r"^\s*-.*$", text, re.M))``. A match starts at a line start, skips whitespace
    (newlines included) and needs the marker (for ``*``, followed by any character but ``*``)."""
    count, pos, n = 0, 0, len(text)
    while True:
        found = _VISIBLE.search(text, pos)  # re's own \s, so the scan skips what the pattern skips
        if found is None:
            break
        q = found.start()
        matched = text[q] == marker and (marker != "*" or (q + 1 < n and text[q + 1] != "*"))
        count += matched
        # a match runs to the end of its last line: for "*", the line of the character after it (the
        # next line when that is a newline); a start that fails fails for every line start up to q
        end = text.find("\n", q + 2 if matched and marker == "*" and text[q + 1] == "\n" else q)
        if end < 0:
            break
        pos = end + 1
    return count
