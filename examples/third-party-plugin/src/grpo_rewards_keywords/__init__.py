"""Keyword rewards for GRPO training with TRL (an example third-party grpo-rewards plugin).

Two per-sample scorers, registered in ``plugin.py``, and ready-made TRL reward functions:

- ``coverage`` / ``make_coverage(keywords=[...])``: the fraction of fixed keywords present;
- ``column_coverage``: the fraction of the row's own ``keywords`` column present.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from importlib import metadata
from typing import Any

from grpo_rewards import Reward, RewardDefinition

__version__ = metadata.version("grpo-rewards-keywords")  # the one literal is in pyproject.toml


def _patterns(keywords: Sequence[str], case_sensitive: bool, whole_words: bool) -> list[re.Pattern[str]]:
    flags = 0 if case_sensitive else re.IGNORECASE
    out = []
    for word in keywords:
        body = re.escape(word)
        out.append(re.compile(rf"(?<!\w){body}(?!\w)" if whole_words else body, flags))
    return out


def _as_keywords(value: Any) -> list[str]:
    """A keywords column value as a list: a list of words, or one comma-separated string."""
    if value is None:
        return []
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, (list, tuple)):
        return []
    return [str(v).strip() for v in value if str(v).strip()]


class KeywordCoverage:
    """The fraction of ``keywords`` that occur in the completion.

    Unit: none (a fraction in [0, 1]). Formula: ``|{k in keywords : k occurs in text}| / |keywords|``.
    Matching ignores case unless ``case_sensitive``; with ``whole_words`` a keyword must not be
    part of a longer word (``cat`` does not match ``concatenate``).

    >>> score = KeywordCoverage(keywords=["because", "therefore"])
    >>> score("It is 4 because 2 + 2 = 4.")
    0.5
    >>> score("Because 2 + 2 = 4, therefore 4.")
    1.0
    >>> KeywordCoverage(keywords=["cat"])("concatenate")
    0.0
    """

    def __init__(self, keywords: Sequence[str] = ("because", "therefore"), case_sensitive: bool = False,
                 whole_words: bool = True) -> None:
        if isinstance(keywords, str) or not keywords or not all(isinstance(k, str) and k.strip() for k in keywords):
            raise ValueError(f"keywords must be a non-empty list of non-empty strings, not {keywords!r}")
        self.keywords = [k.strip() for k in keywords]
        self.case_sensitive = case_sensitive
        self.whole_words = whole_words
        self._patterns = _patterns(self.keywords, case_sensitive, whole_words)

    def __call__(self, text: str, **row: Any) -> float:
        hits = sum(1 for pattern in self._patterns if pattern.search(text))
        return hits / len(self._patterns)


def score_column_coverage(text: str, *, keywords: Any, case_sensitive: bool = False,
                          whole_words: bool = True, **row: Any) -> float | None:
    """The fraction of this row's ``keywords`` column that occurs in the completion.

    Unit: none (a fraction in [0, 1]). Formula: ``|{k in row keywords : k occurs in text}| / |row keywords|``;
    ``None`` (not applicable) when the row lists no keywords. The column holds a list of words
    or a comma-separated string.

    >>> score_column_coverage("Paris is the capital.", keywords=["Paris", "France"])
    0.5
    >>> score_column_coverage("Paris is the capital.", keywords="paris, capital")
    1.0
    >>> score_column_coverage("Anything.", keywords=[]) is None
    True
    """
    words = _as_keywords(keywords)
    if not words:
        return None
    hits = sum(1 for pattern in _patterns(words, case_sensitive, whole_words) if pattern.search(text))
    return hits / len(words)


#: Each reward is defined once: ``plugin.py`` registers these definitions and the exports below are
#: built from them, so ranges, units and options are the same by name and in a plain TRL script.
COVERAGE = RewardDefinition(
    "keywords.coverage", KeywordCoverage, output_range=(0.0, 1.0),
    description="Fraction of the given keywords that occur in the completion.",
    example="{use: keywords.coverage, with: {keywords: [because, therefore]}}",
)
COLUMN_COVERAGE = RewardDefinition(
    "keywords.column_coverage", score_column_coverage, output_range=(0.0, 1.0),
    description="Fraction of the row's 'keywords' column that occurs in the completion; None if it lists none.",
    example="{use: keywords.column_coverage}  # dataset rows carry keywords: [Paris, France]",
)


def make_coverage(**params: Any) -> Reward:
    """``keywords.coverage`` with parameters, as a TRL reward function.

    >>> reward = make_coverage(keywords=["step"])
    >>> reward(prompts=["Q?", "Q?"], completions=["Step 1: add.", [{"role": "assistant", "content": "4"}]])
    [1.0, 0.0]
    """
    return COVERAGE.reward(**params)


#: ``GRPOTrainer(reward_funcs=[coverage])`` or ``trl grpo --reward_funcs grpo_rewards_keywords.coverage``.
coverage = make_coverage()
#: Reads the dataset column ``keywords``.
column_coverage = COLUMN_COVERAGE.reward()
