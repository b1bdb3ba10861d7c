r"""Answers announced in words: "the answer is …", "Final answer: …", ``<answer>…</answer>``, ``#### 42``.

A phrase is read to the end of its sentence (a full stop outside ``$…$``, "because", …) and gives
candidates, best first: its math when nothing numeric follows the math; the whole sentence; what
follows its last "is" / "=" ("the smallest $k$ is 17" -> ``17``).

>>> phrase_candidates("Final Answer: The final answer is $\\frac{3}{4}$. I hope it is correct.")[0]
'\\frac{3}{4}'
>>> phrase_candidates("Final answer: the smallest $k$ is 17.")
['the smallest $k$ is 17', '17']
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from typing import Any

import regex

from grpo_rewards.patterns import atomic

from .prose import last_result
from .spans import MAX_ANSWER_CHARS, clean, last_math, math_spans

#: Seconds each regular-expression rule may run before it gives up, on a text longer than
#: :data:`TIMED_CHARS` (the regex module's timeout costs 7-20 µs a call; on a shorter text these
#: patterns' cost is linear in its length: well under a millisecond at 2,048 characters). The timeout is
#: a guard only: on 40,000 characters of any text tried, the slowest pattern took under 10 ms.
REGEX_TIMEOUT = 0.25
TIMED_CHARS = 2048


def _limit(text: str) -> float | None:
    """The timeout for a regular expression run on ``text``: None (no timer) for a short text."""
    return REGEX_TIMEOUT if len(text) > TIMED_CHARS else None


#: ``\s`` as the ``regex`` module reads it on ASCII text (``re``'s ``\s`` also takes \x1c-\x1f)
_ASCII_SPACE = r"[\t\n\x0b\x0c\r ]"


class _Rule:
    r"""A case-insensitive pattern of the phrase rules, run by the ``regex`` module (with a timeout on a
    text longer than :data:`TIMED_CHARS`), and by the standard ``re`` module on a short ASCII text,
    where the two match alike (``\w`` and ``\b`` agree on ASCII; ``\s`` is written out as ``regex``
    reads it; tests/math/test_fast_paths.py compares them). Why: right after other work (a training
    step, another grader) the ``regex`` module's first search in a call costs 5-20 µs, ``re``'s 1-2 µs
    (bench/math.md, seventh round); most completions that announce an answer are short ASCII text.

    >>> [m.group() for m in _Rule(r"\bis\s").finditer("It is so. This is", timeout=None)]
    ['is ']
    """

    def __init__(self, pattern: str) -> None:
        self.timed = regex.compile(pattern, regex.IGNORECASE)
        self.ascii = re.compile(pattern.replace(r"\s", _ASCII_SPACE), re.IGNORECASE)

    def _fast(self, text: str, timeout: float | None) -> bool:
        return timeout is None and text.isascii()  # (no timeout: a text of at most TIMED_CHARS)

    def search(self, text: str, pos: int = 0, endpos: int = sys.maxsize, *, timeout: float | None) -> Any:
        """The first match in ``text[pos:endpos]``; :class:`TimeoutError` past ``timeout`` seconds."""
        if self._fast(text, timeout):
            return self.ascii.search(text, pos, endpos)
        return self.timed.search(text, pos, endpos, timeout=timeout)

    def match(self, text: str, pos: int = 0, endpos: int = sys.maxsize, *, timeout: float | None) -> Any:
        """The match that starts at ``pos`` in ``text[:endpos]``; :class:`TimeoutError` past ``timeout`` seconds."""
        if self._fast(text, timeout):
            return self.ascii.match(text, pos, endpos)
        return self.timed.match(text, pos, endpos, timeout=timeout)

    def finditer(self, text: str, *, timeout: float | None) -> Iterator[Any]:
        """Every match in ``text``; :class:`TimeoutError` past ``timeout`` seconds."""
        if self._fast(text, timeout):
            return self.ascii.finditer(text)
        return self.timed.finditer(text, timeout=timeout)


#: Phrase heads tried (from the last) for one followed by an answer on its line.
MAX_PHRASES = 16

_PHRASE = _Rule(
    r"(?:\bfinal\s+answer\s*(?:is\b)?\s*[:：]?|\bthe\s+(?:final\s+|correct\s+)?answer\s+is\b\s*[:：]?|\banswer\s*[:：])"
    r"[ \t]*"
)
_CLAUSE_WORD = r"(?:because|since|as|which|where)\b"
#: The first sentence end from where it is matched, group ``end``: a full stop before a blank or the end, or
#: a blank run before a clause word (what ``\.(?=\s|$)|\s+(?:because|since|as|which|where)\b`` searches
#: for). The text before it is skipped in pieces that cannot start one, without backtracking: letters
#: and signs, a full stop followed by more, a whole blank run not followed by a clause word (no part of
#: it starts an end then). Searched for, that pattern read a blank run again from each of its
#: characters: 10,000 blanks took seconds, so a timeout, not the text, decided where the sentence ended.
#: The skipped text and each blank run in it are atomic groups (:func:`grpo_rewards.patterns.atomic`).
_SENTENCE_END = _Rule(atomic(r"(?:(?:(?!\s)[^.])+|\.(?!\s|$)|" + atomic(r"\s+", "blanks") + "(?!" + _CLAUSE_WORD + "))*",
                             "skip") + r"(?P<end>\.(?=\s|$)|\s+" + _CLAUSE_WORD + ")")
_IS = _Rule(r"\b(?:is|are|equals|be|of)\b|=|:")


def _outside_math(text: str) -> list[tuple[int, int]]:
    """The gaps between the math pieces of ``text`` (delimiters count as math)."""
    gaps, at = [], 0
    for s, e in math_spans(text):
        gaps.append((at, max(at, s - 2)))
        at = e + 1
    gaps.append((at, len(text)))
    return gaps


def _sentence(rest: str) -> str:
    """``rest`` up to the end of its first sentence (a full stop inside ``$…$`` does not count)."""
    try:
        for gap_start, gap_end in _outside_math(rest):
            cut = _SENTENCE_END.match(rest, gap_start, gap_end, timeout=_limit(rest))
            if cut:
                return rest[:cut.start("end")]
    except TimeoutError:
        pass
    return rest


def _announces(text: str) -> bool:
    """Whether ``text`` can hold a phrase: every phrase holds the word "answer" (case-folded, as
    IGNORECASE folds ſ to s); a text without it needs no regular expression run."""
    return "answer" in text.casefold()


def phrase_rest(text: str) -> str | None:
    """What follows the last announced-answer phrase on its line (stripped), or None (no phrase)."""
    if not _announces(text):
        return None
    heads: list[int] = []
    try:
        for match in _PHRASE.finditer(text, timeout=_limit(text)):
            heads.append(match.end())
    except TimeoutError:
        return None
    for end in heads[-MAX_PHRASES:][::-1]:  # the last phrase followed by something
        stop = text.find("\n", end)
        rest = text[end:stop if stop >= 0 else len(text)]
        if rest.strip():
            return rest[:MAX_ANSWER_CHARS + 1].strip()
    return None


def phrase_candidates(text: str) -> list[str]:
    """Readings of the last announced answer, best first (empty when there is no phrase)."""
    return list(iter_phrase_candidates(text))


def iter_phrase_candidates(text: str) -> Iterator[str]:
    """:func:`phrase_candidates` one at a time: a caller that takes the first it accepts never
    computes the later readings."""
    rest = phrase_rest(text)
    return iter(()) if rest is None else readings(rest)


def readings(rest: str) -> Iterator[str]:
    """The candidates of a phrase whose :func:`phrase_rest` is ``rest``, best first."""
    sentence = rest.split(". ", 1)[0]
    rest = _sentence(rest)
    seen: list[str] = []

    def new(candidate: str | None) -> bool:
        if candidate and len(candidate) <= MAX_ANSWER_CHARS and candidate not in seen:
            seen.append(candidate)
            return True
        return False

    spans = math_spans(rest)
    if spans:
        after = rest[spans[-1][1]:]
        if not any(map(str.isdigit, after)):
            math = last_math(rest)
            if new(math):
                yield math  # type: ignore[misc]
    whole = clean(rest)
    if new(whole):
        yield whole
    m = None
    try:
        for found in _IS.finditer(rest, timeout=_limit(rest)):
            m = found
    except TimeoutError:
        m = None
    if m and m.end() < len(rest):
        after_is = clean(rest[m.end():])
        if new(after_is):
            yield after_is
    result = last_result(sentence)  # "Final Answer: Jane started growing Sphere 3 hours ago."
    if new(result):
        yield result  # type: ignore[misc]


_FINAL = _Rule(r"\bfinal\s+answer\b")


def final_phrase_after(text: str, at: int) -> str | None:
    """The reading of a "final answer" phrase that comes after ``text[at]``, or None."""
    tail = text[at:at + 4 * MAX_ANSWER_CHARS]
    if not _announces(tail):  # (most texts after a box)
        return None
    try:
        if not _FINAL.search(tail, timeout=_limit(tail)):
            return None
    except TimeoutError:
        return None
    for candidate in iter_phrase_candidates(tail):  # math only: "Final answer: the box above" keeps the box
        if any(c.isdigit() or c == "\\" for c in candidate):
            return candidate
    return None


def phrase(text: str) -> str | None:
    return next(iter_phrase_candidates(text), None)


def gsm8k(text: str) -> str | None:
    at = text.rfind("####")
    if at < 0:
        return None
    line = text[at + 4:].lstrip("# \t").split("\n", 1)[0]
    answer = clean(line)
    return answer if answer and len(answer) <= MAX_ANSWER_CHARS else None


def answer_tag(text: str, *, first: bool = False) -> str | None:
    """The content of the last ``<answer>…</answer>`` (or of a cut-off last ``<answer>``); ``first``:
    of the first ``<answer>`` (to its ``</answer>``, or to the end when it is cut off)."""
    if first:
        open_ = text.find("<answer>")
        if open_ < 0:
            return None
        close = text.find("</answer>", open_)
        content = text[open_ + len("<answer>"):close if close >= 0 else len(text)]
        return content if len(content) <= MAX_ANSWER_CHARS else None
    close = text.rfind("</answer>")
    if close >= 0:
        open_ = text.rfind("<answer>", 0, close)
        if open_ < 0:
            return None
        content = text[open_ + len("<answer>"):close]
    else:
        open_ = text.rfind("<answer>")
        if open_ < 0:
            return None
        content = text[open_ + len("<answer>"):]  # truncated generation
    if len(content) > MAX_ANSWER_CHARS:
        return None
    return content
