"""The scans IFBench's checkers share (:mod:`grpo_rewards_instructions.ifbench`): the original's punctuation
stripping and whole-word search.
"""

from __future__ import annotations

import string
from typing import Any

Args = dict[str, Any]
_STRIP_PUNCTUATION = str.maketrans("", "", string.punctuation)
_EDGE = string.punctuation + " "


def _no_punctuation(value: str) -> str:
    return value.translate(_STRIP_PUNCTUATION)


def _same_case_fold(value: str) -> str:
    """``value`` lowercased character by character, its length kept (a character whose lowercase is
    longer, such as ``İ``, stays as it is)."""
    return "".join(c if len(c.lower()) != 1 else c.lower() for c in value)


def _is_word_char(char: str) -> bool:
    return char.isalnum() or char == "_"


def contains_word(value: str, word: str, *, ignore_case: bool = True) -> bool:
    r"""``re.search(r"\b" + re.escape(word) + r"\b", value, re.IGNORECASE)`` (without the flag when
    ``ignore_case`` is false), as a scan.

    >>> contains_word("Is it raining? It is.", "it"), contains_word("Italy", "it")
    (True, False)
    """
    if not word:
        return False
    hay, needle = (_same_case_fold(value), _same_case_fold(word)) if ignore_case else (value, word)
    head, tail = _is_word_char(word[0]), _is_word_char(word[-1])
    pos = hay.find(needle)
    while pos >= 0:
        end = pos + len(needle)
        before = pos > 0 and _is_word_char(value[pos - 1])
        after = end < len(value) and _is_word_char(value[end])
        if before != head and after != tail:
            return True
        pos = hay.find(needle, pos + 1)
    return False
