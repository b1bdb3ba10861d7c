r"""Prompt echo: an "answer" that only repeats an expression of the question.

Asked "What is 2 + 2?", the completion "What is 2 + 2?" has the extracted answer ``2 + 2``, which
equals the gold ``4``: a grader that only compares values pays the model for repeating the
question. An answer is an echo when it is an expression (not a bare number, at least three
characters, with an operator or a LaTeX command), it occurs in the prompt (spaces and ``$``
aside), and the gold answer itself does not (a question that holds its own answer, such as "which
is larger, 1/2 or 1/3?", is left alone).

>>> echoes_prompt("2 + 2", "What is 2 + 2?", "4")
True
>>> echoes_prompt("4", "What is 2 + 2?", "4"), echoes_prompt("2+2", "Is 2+2 equal to 4?", "4")
(False, False)
"""

from __future__ import annotations

import re
from typing import Any

_NUMBER = re.compile(r"[-+]?(?:\d[\d,]*(?:\.\d*)?|\.\d+)")
_OPERATORS = frozenset("+-*/^=\\")


def _squash(text: str) -> str:
    return "".join(text.replace("$", "").split())  # every whitespace character and "$" out


def prompt_text(prompt: Any) -> str:
    """The text of a prompt: a string, or the string contents of a list of chat messages."""
    if isinstance(prompt, str):
        return prompt
    if isinstance(prompt, (list, tuple)):
        return "\n".join(m["content"] for m in prompt if isinstance(m, dict) and isinstance(m.get("content"), str))
    return ""


def echoes_prompt(answer: str, prompt: Any, gold: str) -> bool:
    """Whether ``answer`` is an expression copied from ``prompt`` that does not hold ``gold``."""
    if not _OPERATORS.intersection(answer):  # first: most answers have none (squashing drops no operator)
        return False
    squashed = _squash(answer)
    if len(squashed) < 3 or _NUMBER.fullmatch(squashed):
        return False
    question = prompt_text(prompt)
    if not squashed or squashed not in _squash(question):
        return False
    return not _holds(question, _squash(gold))


def _is_boundary(text: str, index: int) -> bool:
    return not (0 <= index < len(text) and (text[index].isalnum() or text[index] in "._"))


def _holds(question: str, gold: str) -> bool:
    """Whether ``gold`` occurs in ``question`` spaced in any way, not inside a longer word or number.

    Linear in the question's length per occurrence: a plain substring search on the squashed
    question, each hit checked for word boundaries in the original text.
    """
    if not gold:
        return False
    kept = [i for i, c in enumerate(question) if not c.isspace() and c != "$"]
    squashed = "".join(question[i] for i in kept)
    start = squashed.find(gold)
    while start != -1:
        first, last = kept[start], kept[start + len(gold) - 1]
        if _is_boundary(question, first - 1) and _is_boundary(question, last + 1):
            return True
        start = squashed.find(gold, start + 1)
    return False
