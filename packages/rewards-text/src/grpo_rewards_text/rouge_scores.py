"""``text.rouge``: Google's ``rouge-score`` (ROUGE-1/2/L/Lsum), one measure, the best over the references."""

from __future__ import annotations

from typing import Any

from grpo_rewards import params

from .reference import ReferenceMetric

KINDS = ("rouge1", "rouge2", "rougeL", "rougeLsum")
MEASURES = ("f", "precision", "recall")
TOKENIZERS = ("default", "whitespace")
_FIELDS = {"f": "fmeasure", "precision": "precision", "recall": "recall"}


class WhitespaceTokenizer:
    """Lowercase and split on whitespace: ROUGE for scripts the default tokeniser drops (it keeps only ``[a-z0-9]``)."""

    def tokenize(self, text: str) -> list[str]:
        return text.lower().split()


class Rouge(ReferenceMetric):
    """``RougeScorer([kind], use_stemmer=...).score(reference, answer)[kind].<measure>``, the best over the references.

    ``kind``: ``rouge1``, ``rouge2``, ``rougeL`` (default), ``rougeLsum`` (sentences split on
    newlines, or by nltk with ``split_summaries``); ``measure``: ``f`` (default), ``precision``,
    ``recall``; ``use_stemmer`` (Porter stemmer, off by default). ``tokenizer="default"`` is
    rouge-score's own, which lowercases and keeps only ``[a-z0-9]`` runs, so a reply in Chinese,
    Russian or Greek has no tokens and scores 0.0; ``"whitespace"`` lowercases and splits on
    whitespace instead (a value rouge-score gives with that tokeniser, not its default one).

    >>> Rouge(kind="rouge1")("the cat sat", reference="the cat sat on the mat")
    (0.6666666666666666, 'ok')
    """

    def __init__(self, reference_column: str = "reference", answer_format: str = "any", answer_position: str = "last",
                 kind: str = "rougeL", measure: str = "f", use_stemmer: bool = False, split_summaries: bool = False,
                 tokenizer: str = "default") -> None:
        super().__init__(reference_column, answer_format, answer_position)
        self.kind = params.choice(kind, "kind", KINDS)
        self.measure = params.choice(measure, "measure", MEASURES)
        self.use_stemmer = params.boolean(use_stemmer, "use_stemmer")
        self.split_summaries = params.boolean(split_summaries, "split_summaries")
        self.tokenizer = params.choice(tokenizer, "tokenizer", TOKENIZERS)
        self._field = _FIELDS[self.measure]
        self._scorer: Any = None

    def __getstate__(self) -> dict[str, Any]:
        return {**super().__getstate__(), "_scorer": None}

    def scorer(self) -> Any:
        """The ``rouge_score.rouge_scorer.RougeScorer`` (built on first use)."""
        if self._scorer is None:
            from rouge_score import rouge_scorer

            tokenizer = WhitespaceTokenizer() if self.tokenizer == "whitespace" else None
            self._scorer = rouge_scorer.RougeScorer([self.kind], use_stemmer=self.use_stemmer,
                                                    split_summaries=self.split_summaries, tokenizer=tokenizer)
        return self._scorer

    def warmup(self) -> None:
        self.scorer()

    def metric(self, answer: str, reference: str) -> float:
        return float(getattr(self.scorer().score(reference, answer)[self.kind], self._field))
