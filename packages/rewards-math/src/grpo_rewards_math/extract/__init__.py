"""Answer extraction: the final answer of a completion, and the gold answer of a dataset row.

Rules for a completion, tried in this priority order (the first that finds something wins):

1. ``boxed``: (unless a "final answer" phrase follows the last box) the last ``\\boxed{…}`` / ``\\fbox{…}`` with balanced braces (also ``\\boxed 5``),
   joined with the boxes right before it when only separators stand between them
   (``\\boxed{2}, \\boxed{5}`` is ``2, 5``);
2. ``answer_tag``: the last ``<answer>…</answer>`` (its content is read again by rules 4-6);
3. ``gsm8k``: the last GSM8K marker ``#### 42``;
4. ``phrase``: the last "final answer: …", "the answer is …" or "Answer: …" (to the end of its
   sentence; see :mod:`.phrases`); with ``accept``, a reading it rejects (prose the parser cannot
   read) gives way to the next reading of the phrase ("the smallest $k$ is 17" -> ``17``), then
   to the later rules;
5. ``math``: the last ``$…$``, ``$$…$$``, ``\\(…\\)`` or ``\\[…\\]`` expression (joined with the
   pieces before it that only separators divide from it);
6. ``last_number``: the last stated result (also before rule 5 when the text's last number comes
   after its last math piece): the whole expression around the last number (within
   the last 64 KiB; "so x = \\sqrt{11}" gives ``x = \\sqrt{11}``, never ``11``), when
   ``fallback_last_number`` is true.

``answer_position="first"`` reads the first answer of rules 1 and 2 instead of the last: the first
group of joined boxes (``\\boxed{2}, \\boxed{5}`` before any other box), the first ``<answer>`` tag;
the rule order stays (a box still beats a tag), and rules 3-6 read as before. ``answer_format``
(:data:`FORMATS`) ``"boxed"`` or ``"answer_tag"`` is the strict mode: only that rule is read (no
final-answer phrase after a box, no fallback), so an answer in any other form is no answer.

With ``delimiter`` (e.g. ``"</think>"``) only the text after its last occurrence is read, and a
text without it has no answer. Rules 4-6 read the last :data:`TAIL_CHARS` characters. Every rule
is linear in the text length: braces are scanned by
hand (at most :data:`MAX_ANSWER_CHARS` per candidate) and the regular expressions run with a
timeout (a rule that times out finds nothing), so a 1 MB completion is safe.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Callable
from typing import Any, NamedTuple

from ..latex_lexer import repair_controls
from .boxes import (
    BOX_COMMANDS,
    MAX_BOX_CANDIDATES,
    boxed_answer,
    boxed_answer_at,
    first_boxed_answer,
    last_boxed,
    open_box,
)
from .phrases import REGEX_TIMEOUT, answer_tag, final_phrase_after, gsm8k, phrase_rest, readings
from .prose import NUMBER_TAIL_CHARS, last_digit_after_math, last_result
from .spans import MAX_ANSWER_CHARS, clean, last_math

__all__ = ["FORMATS", "MAX_ANSWER_CHARS", "MAX_BOX_CANDIDATES", "NUMBER_TAIL_CHARS", "POSITIONS", "REGEX_TIMEOUT",
           "RULES", "Extraction", "Reading",
           "extract_answer", "extract_gold", "find_answer", "last_boxed", "plain_words", "read", "reading"]

RULES = ("boxed", "answer_tag", "gsm8k", "phrase", "math", "last_number")
#: ``answer_format``: every rule (``any``), or only the box or only the ``<answer>`` tag (strict).
FORMATS = ("any", "boxed", "answer_tag")
#: ``answer_position``: which box / tag counts when a completion has several.
POSITIONS = ("last", "first")
#: Rule names an :class:`Extraction` may carry: :data:`RULES`, and ``whole`` (a short completion
#: that is an answer by itself, read when ``accept`` takes it, before the last-number fallback).


class Extraction(NamedTuple):
    """An extracted answer and the rule (one of :data:`RULES`) that found it, as :func:`find_answer`
    returns it (the rules themselves pass a plain ``(answer, rule)`` tuple)."""

    answer: str
    rule: str


def _answer_tag(text: str, first: bool = False) -> str | None:
    content = answer_tag(text, first=first)
    if content is None:
        return None
    inner = _find(content, _TAG_READING)
    answer = inner[0] if inner else clean(content)
    return answer or None


_RULE_FUNCS: dict[str, Callable[[str], str | None]] = {
    "boxed": boxed_answer,
    "answer_tag": _answer_tag,
    "gsm8k": gsm8k,
    "math": last_math,
    "last_number": last_result,
}


#: what an answer of these rules needs in the text (a text without it has none: the rule is not run)
_MARKS = {"answer_tag": "<answer>", "gsm8k": "####"}


#: A completion this short is read whole when the parser accepts it (``\\mathrm{E}``, a bare matrix).
WHOLE_CHARS = 300


_MATH_WORDS = frozenset({"sin", "cos", "tan", "cot", "sec", "csc", "log", "ln", "exp", "sqrt", "pi", "or", "and",
                         "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "infty", "inf", "mod"})
_COMMAND_RE = re.compile(r"\\(?:text[a-z]*|mathrm|mbox|operatorname|begin|end)\s*\{[^{}]*\}|\\[A-Za-z]+")
_WORDS_RE = re.compile(r"[A-Za-z]{2,}")
_GLUED_SEPARATOR_RE = re.compile(r"(?<=[0-9)])(or|and)(?=[A-Z]|[a-z](?![A-Za-z]))")


def _spaced(m: re.Match[str]) -> str:
    return f" {m.group(1)} "  # a function, not the template r" \1 ": re runs a template's Python code on every call


def _formula_like(text: str) -> bool:
    """A formula, not prose: no word of two letters or more outside LaTeX commands (``E``,
    ``\\mathrm{E}``, ``f'``, a bare matrix), except function names."""
    bare = _GLUED_SEPARATOR_RE.sub(_spaced, _COMMAND_RE.sub(" ", text))  # 1orW(x): "or" between two answers
    return all(w.lower() in _MATH_WORDS for w in _WORDS_RE.findall(bare))


_PLAIN_WORDS_RE = re.compile(r"[A-Za-z]{2,30}(?:[ \t-]{1,3}[A-Za-z]{1,30}){0,2}\.?")


def plain_words(text: str) -> str | None:
    """A completion of one to three plain words and nothing else (``yes``, ``North East.``), stripped,
    else ``None``: a text answer by itself, read only against a text gold (``\\text{yes}``).

    >>> plain_words(" Yes."), plain_words("x = 3"), plain_words("I think the answer is yes")
    ('Yes.', None, None)
    """
    text = text.strip()
    return text if _PLAIN_WORDS_RE.fullmatch(text) else None


#: The phrase and math rules read only this many characters at the end of a text (from a line start).
TAIL_CHARS = 32_768


def _tail(text: str) -> str:
    if len(text) <= TAIL_CHARS:
        return text
    start = len(text) - TAIL_CHARS
    line = text.find("\n", start, start + 4096)
    return text[line + 1 if line >= 0 else start:]


class Reading(NamedTuple):
    """How answers are read: the rules tried and the options of :func:`find_answer`, worked out once
    (a reward makes its own when it is built; :func:`read` and :func:`find_answer` apply one)."""

    rules: tuple[str, ...]
    fallback_last_number: bool
    accept: Callable[[str], bool] | None = None
    first: bool = False
    strict: bool = False
    delimiter: str | None = None
    #: a bare numeral is its own answer (what the rules find), read without running them
    numeral: bool = False


def reading(fallback_last_number: bool = True, delimiter: str | None = None,
            accept: Callable[[str], bool] | None = None, answer_position: str = "last",
            answer_format: str = "any") -> Reading:
    """The :class:`Reading` of :func:`find_answer`'s options (checked: a ``ValueError`` names a bad one).

    >>> read(r"so \\boxed{4}", reading(answer_format="boxed")), read("so 4", reading(answer_format="boxed"))
    ('4', None)
    """
    if answer_format not in FORMATS:
        raise ValueError(f"answer_format must be one of {', '.join(FORMATS)}, not {answer_format!r}")
    if answer_position not in POSITIONS:
        raise ValueError(f"answer_position must be one of {', '.join(POSITIONS)}, not {answer_position!r}")
    strict = answer_format != "any"
    return Reading((answer_format,) if strict else RULES, fallback_last_number and not strict, accept,
                   answer_position == "first", strict, delimiter,
                   fallback_last_number and delimiter is None and not strict)


def after_delimiter(text: str, delimiter: str) -> str | None:
    """The text after the last ``delimiter`` (``"</think>"``), or None when the text has none."""
    at = text.rfind(delimiter)
    return None if at < 0 else text[at + len(delimiter):]


def _find(text: str, how: Reading) -> tuple[str, str] | None:
    """``(answer, rule)`` of ``text`` read as ``how`` says (a plain tuple: :func:`find_answer` makes the
    :class:`Extraction`), or None."""
    if how.delimiter:
        cut = after_delimiter(text, how.delimiter)
        if cut is None:
            return None
        text = cut
    full = repair_controls(text)
    text = _tail(full)
    fallback_last_number, accept = how.fallback_last_number, how.accept
    for rule in how.rules:
        if rule == "last_number" and not fallback_last_number:
            continue
        if how.first and rule in ("boxed", "answer_tag"):
            answer = first_boxed_answer(full) if rule == "boxed" else _answer_tag(full, first=True)
            if answer:
                return (answer, rule)
            continue
        if rule == "boxed":  # found from the end by rfind: the whole text
            boxed = boxed_answer_at(full)
            if boxed is None:
                continue
            if not how.strict:
                final = final_phrase_after(full, boxed[1])
                if final is not None and (accept is None or accept(final)):  # \\boxed{255} ... Final answer: 10,455
                    return (final, "phrase")
            return (boxed[0], rule)
        if rule in _MARKS:  # found from the end by rfind: the whole text (one with its mark)
            if _MARKS[rule] in full:
                answer = _RULE_FUNCS[rule](full)
                if answer:
                    return (answer, rule)
            continue
        if rule == "phrase":
            rest = phrase_rest(text)  # None for most texts: no readings to make
            if rest is not None:
                for candidate in readings(rest):
                    if accept is None or accept(candidate):
                        return (candidate, rule)
            continue
        if rule == "math" and fallback_last_number and last_digit_after_math(text):
            answer = last_result(text)  # "... $d = \\frac{90}{n}$ ... there are 12 sequences."
            if answer:
                return (answer, "last_number")
        if rule == "last_number" and accept is not None and len(text) <= WHOLE_CHARS:
            whole = clean(text)
            if whole and _formula_like(whole) and accept(whole):
                return (whole, "whole")
        answer = _RULE_FUNCS[rule](text)
        if answer and (rule != "math" or accept is None or not fallback_last_number or accept(answer)):
            return (answer, rule)  # (an unreadable last $…$ gives way to the last stated result)
    return None


#: the readings of an ``<answer>`` tag's content, and of a reference solution (with its ``accept``)
_TAG_READING = Reading(("phrase", "math"), False)
_SOLUTION_RULES = ("phrase", "math", "last_number")


def find_answer(text: Any, *, fallback_last_number: bool = True, delimiter: str | None = None,
                accept: Callable[[str], bool] | None = None, answer_position: str = "last",
                answer_format: str = "any") -> Extraction | None:
    r"""The final answer of a completion and the rule that found it, or ``None``.

    ``accept``: when given, a reading of the (fuzzy) ``phrase`` rule that it rejects is passed over
    for the next reading, then for the later rules: "the answer is obtained by adding 7 and 5,
    giving 12" then yields ``12`` rather than prose. The rewards pass "the parser can read it".

    >>> find_answer(r"7 + 5 = 12, so the answer is \boxed{12}.")
    Extraction(answer='12', rule='boxed')
    >>> find_answer("Natalia sold 48/2 = 24 clips in May.\n#### 72")
    Extraction(answer='72', rule='gsm8k')
    >>> find_answer("Final Answer: The final answer is $\\frac{3}{4}$. I hope it is correct.")
    Extraction(answer='\\frac{3}{4}', rule='phrase')
    >>> find_answer("<think>2+2=4</think> 4", delimiter="</think>")
    Extraction(answer='4', rule='last_number')
    >>> find_answer("The answer is found by adding 7 and 5, giving 12.", accept=str.isdigit)
    Extraction(answer='12', rule='phrase')
    >>> find_answer("no digits here") is None
    True
    >>> find_answer(r"\boxed{3} or maybe \boxed{4}", answer_position="first")
    Extraction(answer='3', rule='boxed')
    >>> find_answer("The answer is 4.", answer_format="boxed") is None
    True
    """
    if not isinstance(text, str):
        return None
    found = _find(text, reading(fallback_last_number, delimiter, accept, answer_position, answer_format))
    return None if found is None else Extraction(*found)


def extract_answer(text: Any, *, fallback_last_number: bool = True, delimiter: str | None = None,
                   accept: Callable[[str], bool] | None = None, answer_position: str = "last",
                   answer_format: str = "any") -> str | None:
    r"""The final answer of a completion (see the module docstring for the rules), or ``None``.

    >>> extract_answer(r"<answer>The answer is $x = 3$.</answer>")
    'x = 3'
    """
    if not isinstance(text, str):
        return None
    return read(text, reading(fallback_last_number, delimiter, accept, answer_position, answer_format))


def read(text: str, how: Reading) -> str | None:
    """:func:`extract_answer` of a ``str`` read as ``how`` says (a reward makes its :class:`Reading`
    once, when it is built).

    >>> read(r"so \\boxed{4}", reading())
    '4'
    """
    if how.numeral and _is_numeral(text):
        return text  # a bare numeral: what the rules find (the last number), without running them
    found = _find(text, how)
    return found[0] if found else None


_NUMERAL_RE = re.compile(r"-?[0-9]{1,60}(?:\.[0-9]{1,30})?")


def _is_numeral(text: str) -> bool:
    """A short decimal numeral and nothing else (no space, sign ``+``, separator or exponent)."""
    return _NUMERAL_RE.fullmatch(text) is not None


#: what each of the gold's marked forms needs: ``####``, a box command, an ``<answer>`` tag
_GOLD_MARKERS_RE = re.compile("|".join(map(re.escape, (*_MARKS.values(), *BOX_COMMANDS))))


def _is_prose(text: str) -> bool:
    """Whether a gold reads as sentences (a reference solution), not as a damaged formula or a text
    answer ("none of the above"): four words, and math or a full stop."""
    if not ("$" in text or "\\" in text or any(map(str.isdigit, text)) or text.rstrip().endswith((".", "!", "?"))):
        return False  # (map: the characters are read in C, not one generator step each)
    words = 0
    for word in text.split():
        if len(word) >= 2 and word.strip(".,;:!?").isalpha():
            words += 1
            if words >= 4:
                return True
    return False


def extract_gold(solution: Any, *, accept: Callable[[str], bool] | None = None) -> str | None:
    r"""The gold answer in a dataset column: a bare answer, a MATH solution or a GSM8K solution.

    A GSM8K solution gives the text after its last ``####``; a MATH-style solution its boxes
    (as for a completion: ``\boxed{2}, \boxed{5}`` is ``2, 5``); an ``<answer>`` tag its content;
    anything else is the bare answer itself (numbers are turned into text). With ``accept``, a bare
    text of sentences (four words or more) is read as a whole reference solution: its announced
    answer ("the answer is …"), last math or last stated result that ``accept`` takes, else ``None``.
    ``None``, NaN or an empty answer gives ``None``.

    >>> extract_gold("She has 3 + 4 = <<3+4=7>>7 apples.\n#### 7")
    '7'
    >>> extract_gold(r"The sum is $1+2=\boxed{3}$.")
    '3'
    >>> extract_gold(r"$\frac{1}{2}$")
    '\\frac{1}{2}'
    >>> extract_gold(42), extract_gold(float("nan"))
    ('42', None)
    >>> extract_gold("Adding both gives 40 + 2, so the answer is 42.", accept=lambda a: "," not in a)
    '42'
    """
    if type(solution) is not str:  # (most golds are): the checks below never take a str
        if solution is None or isinstance(solution, bool):
            return None
        if isinstance(solution, numbers.Real):  # int, float, numpy scalars from a dataframe
            if isinstance(solution, numbers.Integral):
                return str(int(solution))
            value = float(solution)
            if not math.isfinite(value):
                return None
            return repr(value) if not value.is_integer() or abs(value) >= 1e16 else str(value)
        if not isinstance(solution, str):
            return None
    if _is_numeral(solution):  # a bare numeral is its own answer (what the rules below give)
        return solution
    solution = repair_controls(solution)
    if _GOLD_MARKERS_RE.search(solution) is not None:  # (most bare answers have none of them)
        for rule in ("gsm8k", "boxed", "answer_tag"):
            if rule == "gsm8k" and "####" not in solution:
                continue
            answer = _RULE_FUNCS[rule](solution)
            if answer:
                return answer
        cut_off = open_box(solution)  # "\\boxed{W(n) = 1 \\text{ and } W(n) = -1": a lost closing brace
        if cut_off is not None and (accept is None or accept(cut_off)):
            return cut_off
    answer = clean(solution)
    if not answer or answer.lower() in ("nan", "none", "null"):
        return None
    if accept is not None and _is_prose(solution.strip()):  # a reference solution, or a sentence with no answer
        found = _find(solution, Reading(_SOLUTION_RULES, True, accept))
        return found[0] if found is not None and accept(found[0]) else None
    return answer
