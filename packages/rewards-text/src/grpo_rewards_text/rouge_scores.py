"""``text.rouge``: Google's ``rouge-score`` (ROUGE-1/2/L/Lsum), one measure, the best over the references.

ROUGE-N and ROUGE-L are computed here with rouge-score's definitions, value for value (its tokeniser's
rule, its n-gram counts, its precision, recall and F-measure expressions), but with less work per
reply than ``RougeScorer.score``, which tokenises both texts and fills a quadratic LCS table in Python
on every call:

- a reference's tokens (and, for ROUGE-L, where each token occurs in it) are kept for the next reply:
  a GRPO group's replies share their prompt's reference;
- rouge-score's tokeniser (lowercase; runs of ``[a-z0-9]`` after every other character becomes a
  space) is one ``re.findall`` of ``[a-z0-9]+`` over the lowercased text, and the Porter stem of
  each word is remembered;
- the length of the longest common subsequence (an integer: any exact algorithm gives the same one)
  is computed with bit-parallel words (Hyyrö's algorithm over Python integers: one addition, one
  subtraction and three logic operations per token of the reply) instead of the table.

``rougeLsum`` (summary-level LCS, whose union of LCS paths depends on the table's backtracking) is
rouge-score's own ``RougeScorer``.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from grpo_rewards import params

from .definitions import ROUGE_MAX_CHARS
from .reference import ReferenceMetric

KINDS = ("rouge1", "rouge2", "rougeL", "rougeLsum")
MEASURES = ("f", "precision", "recall")
TOKENIZERS = ("default", "whitespace")
_FIELDS = {"f": "fmeasure", "precision": "precision", "recall": "recall"}
#: rouge-score's token once ``[^a-z0-9]+`` became a space and the text was split on whitespace
_TOKEN = re.compile(r"[a-z0-9]+")
_VALID = re.compile(r"^[a-z0-9]+$")  # rouge-score's VALID_TOKEN_RE, applied after stemming as it does
#: a ``rougeLsum`` row whose reference is longer than the reply's bound: not compared
REFERENCE_TOO_LONG: tuple[float | None, str] = (None, "reference_too_long")
#: stems remembered per scorer (a vocabulary); the memo is cleared when it grows past this
STEM_MEMO = 100_000


class WhitespaceTokenizer:
    """Lowercase and split on whitespace: ROUGE for scripts the default tokeniser drops (it keeps only ``[a-z0-9]``)."""

    def tokenize(self, text: str) -> list[str]:
        return text.lower().split()


class Rouge(ReferenceMetric):
    """``RougeScorer([kind], use_stemmer=...).score(reference, answer)[kind].<measure>``, the best over the references.

    Unit: none (a score in its range; no length is measured).

    ``kind``: ``rouge1``, ``rouge2``, ``rougeL`` (default), ``rougeLsum`` (sentences split on
    newlines, or by nltk with ``split_summaries``); ``measure``: ``f`` (default), ``precision``,
    ``recall``; ``use_stemmer`` (Porter stemmer, off by default). ``tokenizer="default"`` is
    rouge-score's own, which lowercases and keeps only ``[a-z0-9]`` runs, so a reply in Chinese,
    Russian or Greek has no tokens and scores 0.0; ``"whitespace"`` lowercases and splits on
    whitespace instead (a value rouge-score gives with that tokeniser, not its default one).
    ``rougeLsum`` fills rouge-score's quadratic tables in Python, so a reference longer than the reply's bound
    (:data:`~grpo_rewards_text.definitions.ROUGE_MAX_CHARS`, 20,000 characters; one of 200,000 took 30 s a reply)
    is not compared: ``None``, label ``reference_too_long`` (the other kinds read any reference in linear or
    bit-parallel time).

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
        self._n = int(self.kind[5:]) if self.kind[5:].isdigit() else 0
        self._scorer: Any = None
        self._stemmer: Any = None
        self._stems: dict[str, str] = {}
        self._reference: tuple[str, Any] | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {**super().__getstate__(), "_scorer": None, "_stemmer": None, "_stems": {}, "_reference": None}

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
        if self.use_stemmer and self.tokenizer == "default":
            self._stem("running")

    def _stem(self, word: str) -> str:
        stems = self._stems
        stem = stems.get(word)
        if stem is None:
            if self._stemmer is None:
                from nltk.stem import porter

                self._stemmer = porter.PorterStemmer()  # rouge-score's DefaultTokenizer(use_stemmer=True)
            if len(stems) >= STEM_MEMO:
                stems.clear()
            stem = stems[word] = str(self._stemmer.stem(word))
        return stem

    def tokens(self, text: str) -> list[str]:
        """The tokens rouge-score's tokeniser gives ``text`` (``rouge_score.tokenize.tokenize``, or the
        whitespace tokeniser).

        >>> Rouge(use_stemmer=True).tokens("The runners' running-shoes, 2 pairs!")
        ['the', 'runner', 'run', 'shoe', '2', 'pair']
        """
        if self.tokenizer == "whitespace":
            return text.lower().split()
        words = _TOKEN.findall(text.lower())
        if not self.use_stemmer:
            return words
        stem = self._stem
        stemmed = [stem(w) if len(w) > 3 else w for w in words]
        return [w for w in stemmed if _VALID.match(w)]

    def _prepared(self, reference: str) -> Any:
        """The reference's tokens, and what ROUGE-N or ROUGE-L needs of them (the last reference's, kept)."""
        last = self._reference
        if last is not None and (last[0] is reference or last[0] == reference):
            return last[1]
        tokens = self.tokens(reference)
        prepared: Any
        if self._n:
            prepared = (len(tokens), _ngrams(tokens, self._n))
        else:  # for each token, the bits of the positions where it occurs
            masks: dict[str, int] = {}
            for i, token in enumerate(tokens):
                masks[token] = masks.get(token, 0) | (1 << i)
            prepared = (len(tokens), masks)
        self._reference = (reference, prepared)
        return prepared

    def compare(self, answer: str, refs: tuple[str, ...]) -> tuple[float | None, str]:
        if self.kind == "rougeLsum" and any(len(ref) > ROUGE_MAX_CHARS for ref in refs):
            return REFERENCE_TOO_LONG
        return super().compare(answer, refs)

    def metric(self, answer: str, reference: str) -> float:
        if self.kind == "rougeLsum":
            return float(getattr(self.scorer().score(reference, answer)[self.kind], self._field))
        size, table = self._prepared(reference)
        tokens = self.tokens(answer)
        if self._n:
            predicted = _ngrams(tokens, self._n)
            common = sum(min(count, predicted[gram]) for gram, count in table.items())
            # rouge-score's _score_ngrams: the counts are n-gram totals, at least 1 as divisors
            precision = common / max(sum(predicted.values()), 1)
            recall = common / max(sum(table.values()), 1)
        else:
            if not size or not tokens:
                return 0.0  # rouge-score's _score_lcs: Score(0, 0, 0)
            common = _lcs_length(size, table, tokens)
            precision = common / len(tokens)
            recall = common / size
        if self.measure == "precision":
            return float(precision)
        if self.measure == "recall":
            return float(recall)
        return _fmeasure(precision, recall)


def _ngrams(tokens: list[str], n: int) -> Counter[tuple[str, ...]]:
    """rouge-score's ``_create_ngrams``: each n-gram (a tuple) and its count."""
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def _fmeasure(precision: float, recall: float) -> float:
    """``rouge_score.scoring.fmeasure``, the same expression."""
    if precision + recall > 0:
        return float(2 * precision * recall / (precision + recall))
    return 0.0


def _lcs_length(size: int, masks: dict[str, int], tokens: list[str]) -> int:
    """The length of the longest common subsequence of a reference (``size`` tokens, ``masks``: each
    token's positions as bits) and ``tokens`` (Hyyrö 2004: bit ``i`` of ``v`` clears when reference
    position ``i`` ends a longer common subsequence; the length is the number of cleared bits).

    >>> _lcs_length(4, {"a": 0b0101, "b": 0b0010, "c": 0b1000}, ["b", "a", "c", "a"])
    3
    """
    full = (1 << size) - 1
    v = full
    get = masks.get
    for token in tokens:
        u = v & get(token, 0)
        if u:
            v = ((v + u) | (v - u)) & full
    return size - v.bit_count()
