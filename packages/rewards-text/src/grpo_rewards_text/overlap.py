"""``text.exact_match`` and ``text.f1``: SQuAD exact match and token F1 against reference answers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .answer import references
from .normalize import Normalizer, f1_of_counts
from .reference import ReferenceMetric


class ExactMatch(ReferenceMetric):
    """1.0 when the answer equals a reference after SQuAD normalisation, else 0.0 (labels ``match``, ``no_match``).

    Unit: none (a score in its range; no length is measured).

    Normalisation (each step a parameter, all on by default as in SQuAD's ``normalize_answer``):
    ``lowercase``, ``punctuation`` (``"ascii"``: SQuAD's ``string.punctuation``; ``"unicode"``: also
    every Unicode punctuation character; ``"keep"``), ``remove_articles`` (the words ``articles``),
    ``collapse_whitespace``. The answer is read by ``answer_format`` (default: the last box or
    ``<answer>`` tag, else the whole reply); the references are the column ``reference`` (a string
    or a list: any match counts). As SQuAD v2.0's evaluation, a reference that normalises to nothing
    (``"The"``, ``"."``) is set aside when another does not; ``[""]`` is SQuAD v2.0's unanswerable
    question (only an answer that normalises to nothing matches); an empty list is no reference.

    >>> em = ExactMatch()
    >>> em("<answer>The Eiffel Tower.</answer>", reference=["Eiffel tower", "Tour Eiffel"])
    (1.0, 'match')
    >>> em("Paris", reference="Lyon"), em("Paris", reference=[])
    ((0.0, 'no_match'), (None, 'no_reference'))
    """

    def __init__(self, reference_column: str = "reference", answer_format: str = "any", answer_position: str = "last",
                 lowercase: bool = True, punctuation: str = "ascii", remove_articles: bool = True,
                 collapse_whitespace: bool = True, articles: Sequence[str] = ("a", "an", "the")) -> None:
        super().__init__(reference_column, answer_format, answer_position)
        self.normalizer = Normalizer(lowercase, punctuation, remove_articles, collapse_whitespace, articles)

    def metric(self, answer: str, reference: str) -> float:
        return float(self.normalizer(answer) == self.normalizer.remembered(reference))

    def _references(self, value: Any) -> tuple[str, ...]:
        """The row's references less those that normalise to nothing, unless all do (SQuAD v2.0's
        ``get_raw_scores``), remembered for the last value."""
        last = self._last
        if last is not None and last[0] is value:
            return last[1]
        found = references(value)
        kept = tuple(r for r in found if self.normalizer.remembered(r)) or found
        self._last = (value, kept)
        return kept

    def label(self, value: float) -> str:
        return "match" if value == 1.0 else "no_match"


class F1(ExactMatch):
    """Token F1 of the answer against the best reference, after SQuAD normalisation (SQuAD v2.0's ``compute_f1``).

    Unit: none (a score in its range; no length is measured).

    Tokens are the whitespace-separated words of the normalised text; the value is
    ``2·P·R/(P+R)`` over the multiset of shared tokens; two empty token lists give 1.0, one empty
    list 0.0. Parameters as :class:`ExactMatch`.

    >>> F1()("the cat sat", reference=["a cat sat down", "dog"])
    (0.8, 'ok')
    """

    def metric(self, answer: str, reference: str) -> float:
        return f1_of_counts(self.normalizer.tokens(answer), *self.normalizer.reference_tokens(reference))

    def label(self, value: float) -> str:
        return "ok"
