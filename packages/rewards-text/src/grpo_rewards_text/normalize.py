"""SQuAD answer normalisation, each step a parameter, and SQuAD token F1.

The official SQuAD v1.1/v2.0 evaluation (``normalize_answer``) lowercases, removes ASCII
punctuation (``string.punctuation``), removes the articles ``a``, ``an``, ``the`` as whole words,
and collapses whitespace, in that order. :class:`Normalizer` does the same with each step a
switch, and two additions: ``punctuation="unicode"`` removes every Unicode punctuation character
(general category ``P*``: ``«»¿—``, ...; SQuAD's ASCII set keeps them), and ``articles`` may list
other words (``["le", "la", "les"]``). Token F1 is SQuAD v2.0's ``compute_f1``: two empty token
lists agree (1.0); one empty list against a non-empty one is 0.0.

>>> Normalizer()("The  Eiffel Tower!")
'eiffel tower'
>>> Normalizer(remove_articles=False, lowercase=False)("The  Eiffel Tower!")
'The Eiffel Tower'
>>> token_f1("the cat sat", "a cat sat down")
0.8
"""

from __future__ import annotations

import re
import string
import unicodedata
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from grpo_rewards import params

PUNCTUATION = ("ascii", "unicode", "keep")
_ASCII_TABLE = str.maketrans("", "", string.punctuation)
_ASCII_BYTES = string.punctuation.encode()
_ASCII_PUNCTUATION = frozenset(string.punctuation)


def _without_ascii_punctuation(text: str) -> str:
    """``text.translate(str.maketrans("", "", string.punctuation))`` (SQuAD's removal); an ASCII text goes
    through ``bytes.translate``, a C table lookup per byte, nine times faster than ``str.translate``'s dict.

    >>> _without_ascii_punctuation("It's 3.14, (roughly)!"), _without_ascii_punctuation("«Où?» dit-il.")
    ('Its 314 roughly', '«Où» ditil')
    """
    if text.isascii():
        return text.encode().translate(None, _ASCII_BYTES).decode()
    return text.translate(_ASCII_TABLE)


def _without_unicode_punctuation(text: str) -> str:
    """``text`` less SQuAD's ASCII punctuation and every character of a Unicode ``P*`` category."""
    text = _without_ascii_punctuation(text)
    if text.isascii():
        return text
    category = unicodedata.category
    return "".join(ch for ch in text if not category(ch).startswith("P"))


class Normalizer:
    """SQuAD's ``normalize_answer`` with every step a parameter (all on: SQuAD's exact behaviour).

    >>> Normalizer(punctuation="unicode")("«Bonjour» — dit-il")
    'bonjour ditil'
    """

    def __init__(self, lowercase: bool = True, punctuation: str = "ascii", remove_articles: bool = True,
                 collapse_whitespace: bool = True, articles: Sequence[str] = ("a", "an", "the")) -> None:
        self.lowercase = params.boolean(lowercase, "lowercase")
        self.punctuation = params.choice(punctuation, "punctuation", PUNCTUATION)
        self.remove_articles = params.boolean(remove_articles, "remove_articles")
        self.collapse_whitespace = params.boolean(collapse_whitespace, "collapse_whitespace")
        if isinstance(articles, str) or not all(isinstance(a, str) and a.strip() for a in articles):
            raise ValueError(f"articles must be a list of words, got {articles!r}")
        self.articles = tuple(articles)
        self._articles = (re.compile(r"\b(" + "|".join(map(re.escape, self.articles)) + r")\b")
                          if self.articles and self.remove_articles else None)
        #: the normalised text, and the token counts, of a text seen before (references: a GRPO group of
        #: replies shares one, so it is normalised once per group)
        self.remembered = lru_cache(maxsize=4096)(self.__call__)
        self.reference_tokens = lru_cache(maxsize=4096)(self._token_counts)

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k not in ("_articles", "remembered", "reference_tokens")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(**state)  # type: ignore[misc]

    def __call__(self, text: str) -> str:
        if self.lowercase:
            text = text.lower()
        if self.punctuation == "ascii":
            text = _without_ascii_punctuation(text)
        elif self.punctuation == "unicode":
            text = _without_unicode_punctuation(text)
        if self._articles is not None:
            text = self._articles.sub(" ", text)
        if self.collapse_whitespace:
            text = " ".join(text.split())
        return text

    def tokens(self, text: str) -> list[str]:
        """The normalised text split on whitespace (SQuAD's ``get_tokens``)."""
        return self(text).split()

    def _token_counts(self, text: str) -> tuple[int, Counter[str]]:
        tokens = self.tokens(text)
        return len(tokens), Counter(tokens)


def f1_of_tokens(prediction: list[str], gold: list[str]) -> float:
    """SQuAD v2.0's ``compute_f1`` on token lists."""
    return f1_of_counts(prediction, len(gold), Counter(gold))


def f1_of_counts(prediction: list[str], n_gold: int, gold: Counter[str]) -> float:
    """:func:`f1_of_tokens` with the gold tokens given as their number and counts (remembered per reference)."""
    if not prediction or not n_gold:
        return float(not prediction and not n_gold)
    # the multiset intersection's size (sum((Counter(prediction) & gold).values())), without building Counters
    remaining = dict(gold)
    same = 0
    for token in prediction:
        left = remaining.get(token)
        if left:
            same += 1
            remaining[token] = left - 1
    if same == 0:
        return 0.0
    precision = same / len(prediction)
    recall = same / n_gold
    return (2 * precision * recall) / (precision + recall)


_DEFAULT = Normalizer()


def token_f1(prediction: str, gold: str, normalizer: Normalizer = _DEFAULT) -> float:
    """Token F1 of two texts after normalisation."""
    return f1_of_tokens(normalizer.tokens(prediction), normalizer.tokens(gold))
