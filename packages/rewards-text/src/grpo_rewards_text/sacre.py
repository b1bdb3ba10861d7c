"""``text.bleu`` and ``text.chrf``: sacrebleu's sentence-level BLEU and chrF, divided by 100.

The metric object is built once per reward (``sacrebleu.sentence_bleu`` builds a new one, and its
tokeniser, on every call) and its ``sentence_score`` is called per sample, so the value is
exactly ``sacrebleu.sentence_bleu(answer, [reference], ...).score / 100`` with the same options
(clipped to 1.0: a perfect BLEU is 100.00000000000004 in floating point). chrF against one
reference at a time is counted by :mod:`.chrf_stats` (sacrebleu's counts and expressions, the
reference's n-grams kept for the group's next reply): the same value as ``sentence_chrf``.
With several references, ``references="best"`` (default) scores each alone and keeps the best (the
issue's "best match counts"); ``"joint"`` passes them all to sacrebleu at once (multi-reference
BLEU/chrF, sacrebleu's own meaning of several references).
"""

from __future__ import annotations

from typing import Any

from grpo_rewards import params

from .chrf_stats import ChrfCounts
from .reference import ReferenceMetric

MULTI = ("best", "joint")
#: ``smooth_method`` of sentence BLEU (sacrebleu's names).
SMOOTHING = ("exp", "floor", "add-k", "none")


def _unit(score: float) -> float:
    """sacrebleu's percentage as a value in [0, 1] (BLEU of a reply equal to its reference is
    100.00000000000004 in floating point: clipped to 1.0)."""
    return min(1.0, float(score) / 100)


class _Sacre(ReferenceMetric):
    """The metric's options are given to the sacrebleu class; ``references`` says how several combine."""

    def __init__(self, reference_column: str, answer_format: str, answer_position: str, references: str) -> None:
        super().__init__(reference_column, answer_format, answer_position)
        self.references = params.choice(references, "references", MULTI)
        self._metric: Any = None

    def __getstate__(self) -> dict[str, Any]:
        return {**super().__getstate__(), "_metric": None}

    def _build(self) -> Any:  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    def scorer(self) -> Any:
        """The sacrebleu metric object (built on first use)."""
        if self._metric is None:
            self._metric = self._build()
        return self._metric

    def warmup(self) -> None:
        self.scorer()

    def metric(self, answer: str, reference: str) -> float:
        return _unit(self.scorer().sentence_score(answer, [reference]).score)

    def compare(self, answer: str, refs: tuple[str, ...]) -> tuple[float | None, str]:
        if self.references == "best":
            return super().compare(answer, refs)
        return _unit(self.scorer().sentence_score(answer, list(refs)).score), "ok"


class Bleu(_Sacre):
    """Sentence BLEU (sacrebleu, effective order), in [0, 1]: ``sentence_bleu(...).score / 100``.

    Unit: none (a score in its range; no length is measured).

    Parameters are sacrebleu's: ``tokenize`` (``13a`` default, ``intl``, ``zh``, ``char``, ``none``,
    ``flores101``, ``flores200``; ``ja-mecab``/``ko-mecab`` need their extras), ``smooth_method``
    (``exp`` default, ``floor``, ``add-k``, ``none``), ``smooth_value`` (for ``floor``/``add-k``),
    ``lowercase``; ``references`` (``best`` or ``joint``, see the module).

    >>> Bleu()("The cat sat on the mat.", reference="The cat sat on the mat.")
    (1.0, 'ok')
    >>> round(Bleu()("The cat is on the mat.", reference="The cat sat on the mat.")[0], 4)
    0.4889
    """

    def __init__(self, reference_column: str = "reference", answer_format: str = "any", answer_position: str = "last",
                 tokenize: str = "13a", smooth_method: str = "exp", smooth_value: float | None = None,
                 lowercase: bool = False, references: str = "best") -> None:
        super().__init__(reference_column, answer_format, answer_position, references)
        self.tokenize = params.text(tokenize, "tokenize")
        self.smooth_method = params.choice(smooth_method, "smooth_method", SMOOTHING)
        self.smooth_value = params.number(smooth_value, "smooth_value", low=0, none_ok=True)
        self.lowercase = params.boolean(lowercase, "lowercase")
        try:
            self.scorer()  # an unknown tokeniser, or one whose extra is missing, is refused here
        except (ValueError, KeyError, ImportError, RuntimeError) as exc:
            raise ValueError(f"tokenize={tokenize!r}: {exc}") from None

    def _build(self) -> Any:
        from sacrebleu.metrics import BLEU

        return BLEU(lowercase=self.lowercase, tokenize=self.tokenize, smooth_method=self.smooth_method,
                    smooth_value=self.smooth_value, effective_order=True)


class Chrf(_Sacre):
    """Sentence chrF (sacrebleu), in [0, 1]: ``sentence_chrf(...).score / 100``; ``word_order=2`` is chrF++.

    Unit: none (a score in its range; no length is measured).

    Parameters are sacrebleu's: ``char_order`` (6), ``word_order`` (0), ``beta`` (2), ``lowercase``,
    ``whitespace`` (count whitespace as characters), ``eps_smoothing``; ``references`` as for BLEU.

    >>> round(Chrf()("The cat is on the mat.", reference="The cat sat on the mat.")[0], 4)
    0.6458
    """

    def __init__(self, reference_column: str = "reference", answer_format: str = "any", answer_position: str = "last",
                 char_order: int = 6, word_order: int = 0, beta: int = 2, lowercase: bool = False,
                 whitespace: bool = False, eps_smoothing: bool = False, references: str = "best") -> None:
        super().__init__(reference_column, answer_format, answer_position, references)
        self.char_order = params.integer(char_order, "char_order", low=1, high=20)
        self.word_order = params.integer(word_order, "word_order", low=0, high=10)
        self.beta = params.integer(beta, "beta", low=0)
        self.lowercase = params.boolean(lowercase, "lowercase")
        self.whitespace = params.boolean(whitespace, "whitespace")
        self.eps_smoothing = params.boolean(eps_smoothing, "eps_smoothing")
        self._counts = ChrfCounts(self.char_order, self.word_order, self.beta, self.lowercase, self.whitespace,
                                  self.eps_smoothing)

    def metric(self, answer: str, reference: str) -> float:
        # sacrebleu's sentence chrF, the reference's n-grams kept for the group's next reply (chrf_stats)
        return _unit(self._counts.score(answer, reference))

    def _build(self) -> Any:
        from sacrebleu.metrics import CHRF

        return CHRF(char_order=self.char_order, word_order=self.word_order, beta=self.beta, lowercase=self.lowercase,
                    whitespace=self.whitespace, eps_smoothing=self.eps_smoothing)
