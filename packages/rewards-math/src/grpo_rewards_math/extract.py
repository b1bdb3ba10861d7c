"""Answer extraction: the final answer of a completion, and the gold answer of a dataset row.

Rules for a completion, tried in this priority order (the first that finds something wins):

1. ``boxed``: the last ``\\boxed{…}`` / ``\\fbox{…}`` with balanced braces (also ``\\boxed 5``);
2. ``answer_tag``: the last ``<answer>…</answer>`` (its content is read again by rules 3-5);
3. ``gsm8k``: the last GSM8K marker ``#### 42``;
4. ``phrase``: the last "final answer: …", "the answer is …" or "Answer: …" (up to the end of
   the sentence or the line; a ``$…$`` inside it is unwrapped); with ``accept``, a phrase
   answer it rejects (prose the parser cannot read) is passed over;
5. ``math``: the last ``$…$``, ``$$…$$``, ``\\(…\\)`` or ``\\[…\\]`` expression;
6. ``last_number``: the last number in the text (within its last 64 KiB), when
   ``fallback_last_number`` is true.

With ``delimiter`` (e.g. ``"</think>"``) only the text after its last occurrence is read, and a
text without it has no answer. Every rule is linear in the text length: braces are scanned by
hand (at most :data:`MAX_ANSWER_CHARS` per candidate) and the regular expressions run with a
timeout (a rule that times out finds nothing), so a 1 MB completion is safe.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import regex

from .latex_lexer import braced_group

#: The longest answer the extractor returns; a longer candidate is not an answer.
MAX_ANSWER_CHARS = 10_000
#: Seconds each regular-expression rule may run before it gives up.
REGEX_TIMEOUT = 0.25
#: The last-number fallback reads only this many characters at the end of the text.
NUMBER_TAIL_CHARS = 65_536
#: Candidate ``\boxed`` commands tried (from the last) before giving up on rule 1.
MAX_BOX_CANDIDATES = 16

RULES = ("boxed", "answer_tag", "gsm8k", "phrase", "math", "last_number")

_BOX_COMMANDS = ("\\boxed", "\\fbox")
_PHRASE = regex.compile(
    r"(?:\bfinal\s+answer\s*(?:is\b)?\s*[:：]?|\bthe\s+(?:final\s+|correct\s+)?answer\s+is\b\s*[:：]?|\banswer\s*[:：])"
    r"[ \t]*",
    regex.IGNORECASE,
)
_SENTENCE_END = regex.compile(r"\.(?=\s|$)|\s+(?:because|since|as|which)\b", regex.IGNORECASE)
_NUMBER = regex.compile(
    r"(?:(?<![\w)\]}])-\s?)?(?<![\w.,])\d+(?:,\d{3})*(?:\.\d+)?(?:\s?/\s?\d+)?(?:\s?%)?"
)


@dataclass(frozen=True)
class Extraction:
    """An extracted answer and the rule (one of :data:`RULES`) that found it."""

    answer: str
    rule: str


def _clean(answer: str) -> str:
    """Strip whitespace, markdown bold, surrounding ``$`` and a trailing full stop."""
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
        if answer == before:
            break
    return answer


def _braced(text: str, start: int) -> tuple[str, int] | None:
    """The content of the brace group opening at ``text[start] == "{"`` and the index after it."""
    return braced_group(text, start, limit=MAX_ANSWER_CHARS + 2)


def _box_content(text: str, at: int, command: str) -> tuple[str, int] | None:
    """The content of the box command at ``text[at]`` and the index after it."""
    i = at + len(command)
    if i < len(text) and text[i].isalpha():
        return None  # another command, e.g. \boxedtext
    while i < len(text) and text[i] in " \t":
        i += 1
    if i < len(text) and text[i] == "{":
        return _braced(text, i)
    j = i  # \boxed 5: one token
    while j < len(text) and j - i <= MAX_ANSWER_CHARS and not text[j].isspace() and text[j] != "$":
        j += 1
    return (text[i:j], j) if j > i else None


def last_boxed(text: str) -> str | None:
    r"""The content of the last complete ``\boxed{…}`` or ``\fbox{…}`` (nested boxes unwrapped).

    An empty or cut-off last box is skipped for the one before it.

    >>> last_boxed(r"so \boxed{1} or rather \boxed{\frac{1}{2}}.")
    '\\frac{1}{2}'
    >>> last_boxed(r"\boxed{\{1, 2\}}")
    '\\{1, 2\\}'
    >>> last_boxed(r"\boxed{3} and then \boxed{4")
    '3'
    >>> last_boxed(r"\boxed{\boxed{5}}")
    '5'
    """
    end = len(text)
    for _ in range(MAX_BOX_CANDIDATES):
        at, command = max((text.rfind(c, 0, end), c) for c in _BOX_COMMANDS)
        if at < 0:
            return None
        found = _box_content(text, at, command)
        if found is not None and found[0].strip():
            inner = found[0].strip()
            while True:  # \boxed{\boxed{5}}
                nested = next((c for c in _BOX_COMMANDS if inner.startswith(c)), None)
                again = _box_content(inner, 0, nested) if nested else None
                if again is None or again[1] != len(inner) or not again[0].strip():
                    break
                inner = again[0].strip()
            return inner
        end = at
    return None


def _answer_tag(text: str) -> str | None:
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
    inner = _find(content, fallback_last_number=False, rules=("phrase", "math"))
    answer = inner.answer if inner else _clean(content)
    return answer or None


def _gsm8k(text: str) -> str | None:
    at = text.rfind("####")
    if at < 0:
        return None
    line = text[at + 4:].lstrip("# \t").split("\n", 1)[0]
    answer = _clean(line)
    return answer if answer and len(answer) <= MAX_ANSWER_CHARS else None


def _phrase(text: str) -> str | None:
    heads: list[int] = []
    try:
        for match in _PHRASE.finditer(text, timeout=REGEX_TIMEOUT):
            heads.append(match.end())
    except TimeoutError:
        return None
    last = None
    for end in heads[-MAX_BOX_CANDIDATES:][::-1]:  # the last phrase followed by something
        stop = text.find("\n", end)
        rest = text[end:stop if stop >= 0 else len(text)]
        if rest.strip():
            last = rest[:MAX_ANSWER_CHARS + 1]
            break
    if last is None:
        return None
    rest = last.strip()
    if "$" in rest:
        inside = _last_math(rest, first=True)
        if inside:
            return inside
    if rest.startswith(("\\(", "\\[")):
        inside = _last_math(rest, first=True)
        if inside:
            return inside
    try:
        cut = _SENTENCE_END.search(rest, timeout=REGEX_TIMEOUT)
    except TimeoutError:
        cut = None
    if cut:
        rest = rest[:cut.start()]
    answer = _clean(rest)
    return answer if answer and len(answer) <= MAX_ANSWER_CHARS else None


def _dollar_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of the content of every complete ``$…$`` / ``$$…$$`` pair, left to right."""
    spans: list[tuple[int, int]] = []
    i, n = 0, len(text)
    opened: tuple[int, int] | None = None  # (content start, delimiter width)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "$":
            width = 2 if text.startswith("$$", i) else 1
            if opened is None:
                opened = (i + width, width)
            elif width >= opened[1]:
                spans.append((opened[0], i))
                opened = None
            else:  # a single $ inside $$…$$
                pass
            i += width
            continue
        i += 1
    return spans


def _last_math(text: str, *, first: bool = False) -> str | None:
    """The last (or first) ``$…$`` / ``\\(…\\)`` / ``\\[…\\]`` expression's content."""
    candidates: list[tuple[int, str]] = []
    spans = _dollar_spans(text)
    if spans:
        s, e = spans[0] if first else spans[-1]
        candidates.append((e if not first else -s, text[s:e]))
    for left, right in (("\\(", "\\)"), ("\\[", "\\]")):
        if first:
            s = text.find(left)
            e = text.find(right, s + 2) if s >= 0 else -1
        else:
            e = text.rfind(right)
            s = text.rfind(left, 0, e) if e >= 0 else -1
        if s >= 0 and e > s:
            candidates.append((e if not first else -s, text[s + 2:e]))
    for _, content in sorted(candidates, reverse=True):
        answer = _clean(content)
        if answer and len(answer) <= MAX_ANSWER_CHARS:
            return answer
    return None


def _last_number(text: str) -> str | None:
    """The last number in the last :data:`NUMBER_TAIL_CHARS` of the text (windows doubling from the end)."""
    size = 4096
    floor = max(0, len(text) - NUMBER_TAIL_CHARS)
    while True:
        start = max(floor, len(text) - size)
        last = None
        try:
            for match in _NUMBER.finditer(text, start, timeout=REGEX_TIMEOUT):
                last = match
        except TimeoutError:
            return None
        if last is not None and (last.start() > start or start == floor):
            answer = last.group(0)
            return None if len(answer) > MAX_ANSWER_CHARS else regex.sub(r"\s+", "", answer)
        if start == floor:
            return None
        size *= 2


_RULE_FUNCS = {
    "boxed": last_boxed,
    "answer_tag": _answer_tag,
    "gsm8k": _gsm8k,
    "phrase": _phrase,
    "math": _last_math,
    "last_number": _last_number,
}


def _find(text: str, *, fallback_last_number: bool, rules: tuple[str, ...] = RULES,
          accept: Callable[[str], bool] | None = None) -> Extraction | None:
    for rule in rules:
        if rule == "last_number" and not fallback_last_number:
            continue
        answer = _RULE_FUNCS[rule](text)
        if answer and (rule != "phrase" or accept is None or accept(answer)):
            return Extraction(answer, rule)
    return None


def find_answer(text: Any, *, fallback_last_number: bool = True, delimiter: str | None = None,
                accept: Callable[[str], bool] | None = None) -> Extraction | None:
    r"""The final answer of a completion and the rule that found it, or ``None``.

    ``accept``: when given, an answer found by the (fuzzy) ``phrase`` rule that it rejects is
    passed over for the later rules: "the answer is obtained by adding 7 and 5, giving 12"
    then yields ``12`` rather than prose. The rewards pass "the parser can read it".

    >>> find_answer(r"7 + 5 = 12, so the answer is \boxed{12}.")
    Extraction(answer='12', rule='boxed')
    >>> find_answer("Natalia sold 48/2 = 24 clips in May.\n#### 72")
    Extraction(answer='72', rule='gsm8k')
    >>> find_answer("Final Answer: The final answer is $\\frac{3}{4}$. I hope it is correct.")
    Extraction(answer='\\frac{3}{4}', rule='phrase')
    >>> find_answer("<think>2+2=4</think> 4", delimiter="</think>")
    Extraction(answer='4', rule='last_number')
    >>> find_answer("The answer is found by adding 7 and 5, giving 12.", accept=str.isdigit)
    Extraction(answer='12', rule='last_number')
    >>> find_answer("no digits here") is None
    True
    """
    if not isinstance(text, str):
        return None
    if delimiter:
        at = text.rfind(delimiter)
        if at < 0:
            return None
        text = text[at + len(delimiter):]
    return _find(text, fallback_last_number=fallback_last_number, accept=accept)


def extract_answer(text: Any, *, fallback_last_number: bool = True, delimiter: str | None = None,
                   accept: Callable[[str], bool] | None = None) -> str | None:
    r"""The final answer of a completion (see the module docstring for the rules), or ``None``.

    >>> extract_answer(r"<answer>The answer is $x = 3$.</answer>")
    'x = 3'
    """
    found = find_answer(text, fallback_last_number=fallback_last_number, delimiter=delimiter, accept=accept)
    return found.answer if found else None


def extract_gold(solution: Any) -> str | None:
    r"""The gold answer in a dataset column: a bare answer, a MATH solution or a GSM8K solution.

    A GSM8K solution gives the text after its last ``####``; a MATH-style solution its last
    ``\boxed{…}``; an ``<answer>`` tag its content; anything else is the bare answer itself
    (numbers are turned into text). ``None`` or an empty answer gives ``None``.

    >>> extract_gold("She has 3 + 4 = <<3+4=7>>7 apples.\n#### 7")
    '7'
    >>> extract_gold(r"The sum is $1+2=\boxed{3}$.")
    '3'
    >>> extract_gold(r"$\frac{1}{2}$")
    '\\frac{1}{2}'
    >>> extract_gold(42)
    '42'
    """
    if solution is None or isinstance(solution, bool):
        return None
    if isinstance(solution, numbers.Real):  # int, float, numpy scalars from a dataframe
        return str(solution)
    if not isinstance(solution, str):
        return None
    for rule in ("gsm8k", "boxed", "answer_tag"):
        if rule == "gsm8k" and "####" not in solution:
            continue
        answer = _RULE_FUNCS[rule](solution)
        if answer:
            return answer
    answer = _clean(solution)
    return answer or None
