r"""Delimited pieces of a text: ``$…$``, ``$$…$$``, ``\(…\)``, ``\[…\]``, and the rule that joins
neighbouring pieces into one answer when nothing but separators stands between them.

>>> last_math(r"We get $x = 2$ and $y = 5$.")
'x = 2, y = 5'
>>> last_math(r"so \(\sqrt{2}\) works")
'\\sqrt{2}'
>>> clean(" **$42$.** ")
'42'
"""

from __future__ import annotations

import re

#: The longest answer the extractor returns; a longer candidate is not an answer.
MAX_ANSWER_CHARS = 10_000
#: Pieces joined into one answer at most (``\boxed{1}, \boxed{2}, …``).
MAX_JOINED = 16

# What may stand between two boxes or two $…$ of one answer: punctuation, "and"/"or", spacing
# commands, math delimiters, and short labels such as "x =", "x_1 =", "PQ =" (a label is dropped).
_SEPARATOR_RE = re.compile(
    r"(?:\s|[,;&$]|\\[()\[\]]|\\\\|\\(?:quad|qquad|text\s*\{[^{}$]{0,40}\})|\band\b|\bor\b"
    r"|(?<![A-Za-z])[A-Za-z]{1,3}(?:_\{?\w{1,3}\}?)?\s*(?:=|:)(?=\s*(?:\\\(|\$|\\boxed|\\fbox))"
    r"|\\[A-Za-z]{1,8}\s*=(?=\s*(?:\\\(|\$|\\boxed|\\fbox)))*"
)


_AND_GAP_RE = re.compile(r"[\s,;$]*(?:[A-Za-z]{1,12}\s+){0,2}and[\s,;$]*")


def only_separators(text: str) -> bool:
    """Whether ``text`` holds nothing but separators between two pieces of one answer.

    >>> only_separators(r"$, and $"), only_separators(" y = "), only_separators(" but rather ")
    (True, True, False)
    """
    if len(text) > 80:
        return False
    if not text.strip():
        return True
    if _AND_GAP_RE.fullmatch(text):  # "\\boxed{1} papers and \\boxed{2} bins"
        return True
    return _SEPARATOR_RE.fullmatch(text + "$") is not None or _SEPARATOR_RE.fullmatch(text) is not None


#: an answer with nothing to strip at either end (most answers): no space, ``*`` or ``$`` first or last,
#: no ``\(`` or ``\[`` first, no ``.``, ``,`` or ``;`` last (``\s`` is ``str.isspace`` in ``re``)
_BARE_ENDS_RE = re.compile(r"(?![\s*$]|\\[(\[]).*(?<![\s*$.,;])", re.DOTALL)


def clean(answer: str) -> str:
    """Strip whitespace, markdown bold, surrounding ``$`` and a trailing full stop."""
    if _BARE_ENDS_RE.fullmatch(answer) is not None:  # what the full loop returns, unchanged
        return answer
    dollars = answer.strip()
    if len(dollars) >= 2 and dollars[0] == "$" and dollars[-1] == "$":
        inner = dollars.strip("$")
        if _BARE_ENDS_RE.fullmatch(inner) is not None:  # "$42$", " $$x$$ ": the loop's first round, its last
            return inner
    return strip_wrappers(answer)


def strip_wrappers(answer: str) -> str:
    """:func:`clean` without its shortcut: every rewrite tried, up to three rounds."""
    answer = answer.strip()
    for _ in range(3):
        before = answer
        answer = answer.strip().strip("*").strip()
        if len(answer) >= 2 and answer.startswith("$") and answer.endswith("$"):
            answer = answer.strip("$").strip()
        if answer.startswith("\\(") and answer.endswith("\\)"):
            answer = answer[2:-2].strip()
        if answer.startswith("\\[") and answer.endswith("\\]"):
            answer = answer[2:-2].strip()
        if answer.endswith(".") and not answer.endswith(".."):
            answer = answer[:-1].rstrip()
        if answer.endswith(",") or answer.endswith(";"):
            answer = answer[:-1].rstrip()
        if answer == before:
            break
    return answer


#: what the scan for ``$`` pairs stops at: an escape (``\\$`` is no delimiter; the escaped character is
#: skipped), ``$$`` or ``$``; everything between is content (the scan runs in the regex engine)
_DOLLAR_RE = re.compile(r"\\(?s:.)|\$\$|\$")


def dollar_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of the content of every complete ``$…$`` / ``$$…$$`` pair, left to right."""
    spans: list[tuple[int, int]] = []
    if "$" not in text:
        return spans
    opened: tuple[int, int] | None = None  # (content start, delimiter width)
    for m in _DOLLAR_RE.finditer(text):
        start, end = m.span()
        width = end - start
        if text[start] == "\\":
            continue
        if opened is None:
            opened = (end, width)
        elif width >= opened[1]:
            spans.append((opened[0], start))
            opened = None
    return spans


def _paired_spans(text: str, left: str, right: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    i = 0
    while True:
        s = text.find(left, i)
        if s < 0:
            return spans
        e = text.find(right, s + 2)
        if e < 0:
            return spans
        spans.append((s + 2, e))
        i = e + 2


#: the text :func:`math_spans` last read and its spans (the rules ask twice about one text in a row)
_last_spans: tuple[str, tuple[tuple[int, int], ...]] = ("", ())


def math_spans(text: str) -> tuple[tuple[int, int], ...]:
    """Content spans of every delimited math piece (``$``, ``$$``, ``\\(``, ``\\[``), left to right."""
    global _last_spans
    last = _last_spans  # one read: another thread may replace it meanwhile
    if last[0] is text:
        return last[1]
    spans = dollar_spans(text)
    if "\\(" in text:
        spans += _paired_spans(text, "\\(", "\\)")
    if "\\[" in text:
        spans += _paired_spans(text, "\\[", "\\]")
    if not spans:
        return ()
    spans.sort()
    out: list[tuple[int, int]] = []
    for s, e in spans:  # drop pieces nested in an earlier one
        if out and s < out[-1][1]:
            continue
        out.append((s, e))
    found = tuple(out)
    _last_spans = (text, found)
    return found


def _delimiter_width(text: str, start: int, end: int) -> tuple[int, int]:
    """Widths of the delimiters around the content ``text[start:end]``."""
    left = 2 if start >= 2 and text[start - 2:start] in ("$$", "\\(", "\\[") else 1
    right = 2 if text[end:end + 2] in ("$$", "\\)", "\\]") else 1
    return left, right


def join_run(text: str, spans: list[tuple[int, int]], contents: list[str]) -> str | None:
    """The last piece joined (``", "``) with the pieces before it that only separators divide from it.

    ``spans`` are the ``(start, end)`` of each whole piece (delimiters included) in ``text``.
    """
    if not contents:
        return None
    run = [contents[-1]]
    k = len(spans) - 1
    while k > 0 and len(run) < MAX_JOINED and only_separators(text[spans[k - 1][1]:spans[k][0]]):
        k -= 1
        run.append(contents[k])
    run = [r for r in run if r]
    if not run:
        return None
    answer = ", ".join(reversed(run))
    return answer if len(answer) <= MAX_ANSWER_CHARS else None


def last_math(text: str, *, first: bool = False) -> str | None:
    """The last (``first``: the first) delimited math piece, joined with its neighbours (see :func:`join_run`)."""
    spans = math_spans(text)
    if not spans:
        return None
    if first:
        answer = clean(text[spans[0][0]:spans[0][1]])
        return answer if answer and len(answer) <= MAX_ANSWER_CHARS else None
    whole: list[tuple[int, int]] = []
    contents: list[str] = []
    for s, e in spans[-MAX_JOINED:]:
        lw, rw = _delimiter_width(text, s, e)
        whole.append((s - lw, e + rw))
        contents.append(clean(text[s:e]))
    while contents and not contents[-1]:
        contents.pop()
        whole.pop()
    return join_run(text, whole, contents)
