"""sacrebleu's sentence chrF against one reference, with the reference's n-grams kept for the next reply.

``CHRF.sentence_score(reply, [reference])`` extracts the reference's character (and word) n-grams
again on every call; a GRPO group's eight replies share one reference. :class:`ChrfCounts` counts
exactly what sacrebleu 2.x counts (``extract_all_char_ngrams``, ``_remove_punctuation``,
``extract_word_ngrams``, ``_get_match_statistics``: integers, so any way of counting gives the same
ones) and computes the score with ``CHRF._compute_f_score``'s expressions in its order, so the
value is the same float; ``tests/text/test_text_metrics.py`` checks it against sacrebleu on
generated pairs for every option.

>>> counts = ChrfCounts(char_order=6, word_order=0, beta=2, lowercase=False, whitespace=False, eps_smoothing=False)
>>> round(counts.score("The cat is on the mat.", "The cat sat on the mat."), 4)
64.5817
"""

from __future__ import annotations

from collections import Counter

#: sacrebleu's ``CHRF._PUNCTS``
PUNCTUATION = frozenset('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~')
_Grams = list[Counter[str]]


class ChrfCounts:
    """chrF with sacrebleu's ``CHRF`` options; :meth:`score` is ``sentence_score(hyp, [ref]).score``."""

    def __init__(self, char_order: int, word_order: int, beta: int, lowercase: bool, whitespace: bool,
                 eps_smoothing: bool) -> None:
        self.char_order, self.word_order, self.beta = char_order, word_order, beta
        self.lowercase, self.whitespace, self.eps_smoothing = lowercase, whitespace, eps_smoothing
        self._reference: tuple[str, _Grams] | None = None

    def __getstate__(self) -> dict[str, object]:
        return {**self.__dict__, "_reference": None}

    def grams(self, text: str) -> _Grams:
        """The character n-grams of orders 1..``char_order``, then the word n-grams of orders
        1..``word_order``, each counted (``CHRF._extract_reference_info``'s list for one segment)."""
        if self.lowercase:
            text = text.lower()
        line = text if self.whitespace else "".join(text.split())
        size = len(line)
        grams = [Counter([line[i:i + n] for i in range(size - n + 1)]) for n in range(1, self.char_order + 1)]
        if self.word_order:
            words = _words(text)
            for n in range(1, self.word_order + 1):
                grams.append(Counter([" ".join(words[i:i + n]) for i in range(len(words) - n + 1)]))
        return grams

    def _reference_grams(self, reference: str) -> _Grams:
        last = self._reference
        if last is not None and (last[0] is reference or last[0] == reference):
            return last[1]
        grams = self.grams(reference)
        self._reference = (reference, grams)
        return grams

    def statistics(self, hypothesis: str, reference: str) -> list[int]:
        """``[hyp, ref, match]`` counts of each order, as ``CHRF._compute_segment_statistics`` gives them."""
        stats: list[int] = []
        for hyp, ref in zip(self.grams(hypothesis), self._reference_grams(reference)):
            match = 0
            for gram in hyp.keys() & ref.keys():
                a, b = hyp[gram], ref[gram]
                match += a if a < b else b
            stats += (hyp.total() if ref else 0, ref.total(), match)
        return stats

    def score(self, hypothesis: str, reference: str) -> float:
        """``CHRF(...).sentence_score(hypothesis, [reference]).score`` (0 to 100)."""
        return self.f_score(self.statistics(hypothesis, reference))

    def f_score(self, statistics: list[int]) -> float:
        """``CHRF._compute_f_score``: the same expressions, in the same order."""
        eps = 1e-16
        score = 0.0
        effective_order = 0
        factor = self.beta ** 2
        avg_prec, avg_rec = 0.0, 0.0
        order = self.char_order + self.word_order
        for i in range(order):
            n_hyp, n_ref, n_match = statistics[3 * i: 3 * i + 3]
            prec = n_match / n_hyp if n_hyp > 0 else eps
            rec = n_match / n_ref if n_ref > 0 else eps
            denom = factor * prec + rec
            score += ((1 + factor) * prec * rec / denom) if denom > 0 else eps
            if n_hyp > 0 and n_ref > 0:
                avg_prec += prec
                avg_rec += rec
                effective_order += 1
        if self.eps_smoothing:
            return 100 * score / order
        if effective_order == 0:
            avg_prec = avg_rec = 0.0
        else:
            avg_prec /= effective_order
            avg_rec /= effective_order
        if avg_prec + avg_rec:
            score = (1 + factor) * avg_prec * avg_rec
            score /= ((factor * avg_prec) + avg_rec)
            return 100 * score
        return 0.0


def _words(text: str) -> list[str]:
    """``CHRF._remove_punctuation``: the words, one punctuation mark split off the end (else the start)."""
    words: list[str] = []
    for w in text.split():
        if len(w) == 1:
            words.append(w)
        elif w[-1] in PUNCTUATION:
            words += (w[:-1], w[-1])
        elif w[0] in PUNCTUATION:
            words += (w[0], w[1:])
        else:
            words.append(w)
    return words
