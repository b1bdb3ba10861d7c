"""``format.repetition``: an n-gram repetition penalty over words or token ids."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from .text_utils import check_int, check_number, visible_words


def repeated_share(items: Sequence[Any], ngram_size: int) -> float:
    """``1 - distinct n-grams / n-grams`` (0.0 when there are fewer items than ``ngram_size``).

    >>> repeated_share("a b a b a b".split(), 2)
    0.6
    """
    total = len(items) - ngram_size + 1
    if total <= 0:
        return 0.0
    distinct = len(set(zip(*(items[i:] for i in range(ngram_size)))))
    return 1.0 - distinct / total


class Repetition:
    """A penalty for repeated n-grams: 0.0 for none, down to ``max_penalty`` when all repeat.

    Unit: words as a reader sees them (NFKC-normalised, case-folded, zero-width and other invisible
    characters removed, split on whitespace and blank characters: see :func:`visible_words`, so
    repeats that differ only in invisible characters are repeats) or tokens (``completion_ids``,
    compared as they are). Formula (as
    Open-R1's repetition penalty): ``max_penalty * (1 - distinct n-grams / n-grams)``, and
    ``0.0`` when the completion has fewer than ``ngram_size`` units. With ``unit="tokens"`` a
    sample without ``completion_ids`` gets ``None`` (not applicable).

    >>> score = Repetition()
    >>> score("the cat sat on the mat")
    0.0
    >>> score("I think I think I think I think")
    -0.6666666666666667
    >>> score("I think\u200b I think\u200b\u200b I think I\u3000think")
    -0.6666666666666667
    >>> Repetition(unit="tokens", ngram_size=2)("", completion_ids=[1, 2, 1, 2, 1])
    -0.5
    """

    def __init__(
        self, ngram_size: int = 3, max_penalty: float = -1.0, unit: Literal["words", "tokens"] = "words"
    ) -> None:
        self.ngram_size = check_int(ngram_size, "ngram_size")
        self.max_penalty = check_number(max_penalty, "max_penalty", high=0.0)
        if unit not in ("words", "tokens"):
            raise ValueError(f"unit must be 'words' or 'tokens', got {unit!r}")
        self.unit = unit

    def __call__(self, text: str, completion_ids: Sequence[int] | None = None, **row: Any) -> float | None:
        if self.unit == "tokens":
            if completion_ids is None:
                return None
            items: Sequence[Any] = list(completion_ids)
        else:
            items = visible_words(text)
        share = repeated_share(items, self.ngram_size)
        return self.max_penalty * share if share else 0.0
