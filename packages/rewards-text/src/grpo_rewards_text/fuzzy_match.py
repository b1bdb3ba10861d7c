"""``text.fuzzy``: rapidfuzz string similarity against reference answers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from grpo_rewards import RewardOptions, RewardResult, params

from .answer import read_answer, references, valid_text
from .reference import NO_ANSWER, NO_REFERENCE, BatchOptions, ReferenceMetric

#: ``scorer``: the ``rapidfuzz.fuzz`` functions, by name.
SCORERS = ("ratio", "partial_ratio", "token_sort_ratio", "token_set_ratio", "token_ratio", "partial_token_sort_ratio",
           "partial_token_set_ratio", "partial_token_ratio", "WRatio", "QRatio")
#: The scorers that align the shorter text along the longer one, in time that grows with the cube of the shorter
#: (``partial_ratio`` on two texts of 8,000 characters: 23 s; ``WRatio`` takes that path for texts of unequal length).
ALIGNING = frozenset({"partial_ratio", "partial_token_sort_ratio", "partial_token_set_ratio", "partial_token_ratio",
                      "WRatio"})
#: With an :data:`ALIGNING` scorer, an answer and a reference both longer than this are not compared (a needle of
#: 1,000 characters in a 200,000-character text: 0.1 s).
ALIGN_MAX_CHARS = 1_000
#: the value and label of such a pair
TOO_LONG: tuple[float | None, str] = (None, "too_long")
#: ``processor``: none, or ``rapidfuzz.utils.default_process`` (lowercase, non-alphanumerics to spaces, trimmed).
PROCESSORS = ("none", "default")


class Fuzzy(ReferenceMetric):
    """``rapidfuzz.fuzz.<scorer>(answer, reference, processor=...) / 100``, the best over the references.

    Unit: none (a score in its range; no length is measured).

    ``scorer`` is one of :data:`SCORERS` (default ``ratio``: the normalised Indel similarity);
    ``processor`` ``"none"`` (default) or ``"default"`` (``rapidfuzz.utils.default_process``). With
    ``threshold`` (in [0, 1]) the reward is 1.0 when that value reaches it and 0.0 below (labels
    ``match``/``no_match``), as OpenAI's ``text_similarity`` grader passes at ``pass_threshold``.
    The ``partial_*`` scorers and ``WRatio`` look for the shorter text inside the longer one: an answer longer
    than 1,000 characters (:data:`ALIGN_MAX_CHARS`) against a reference longer than that is not compared
    (``None``, label ``too_long``; their time grows with the cube of the shorter text).

    >>> Fuzzy()("Eifel Tower", reference="Eiffel Tower")
    (0.9565217391304348, 'ok')
    >>> Fuzzy(scorer="token_sort_ratio", threshold=0.9)("Tower Eiffel", reference="Eiffel Tower")
    (1.0, 'match')
    """

    def __init__(self, reference_column: str = "reference", answer_format: str = "any", answer_position: str = "last",
                 scorer: str = "ratio", processor: str = "none", threshold: float | None = None) -> None:
        super().__init__(reference_column, answer_format, answer_position)
        self.scorer = params.choice(scorer, "scorer", SCORERS)
        self.processor = params.choice(processor, "processor", PROCESSORS)
        self.threshold = params.number(threshold, "threshold", low=0, high=1, none_ok=True)
        self._function: Any = None

    def __getstate__(self) -> dict[str, Any]:
        return {**super().__getstate__(), "_function": None}

    def _fuzz(self) -> Any:
        if self._function is None:
            from rapidfuzz import fuzz, utils

            function = getattr(fuzz, self.scorer)
            processor = utils.default_process if self.processor == "default" else None
            self._function = (function, processor)
        return self._function

    def too_long(self, answer: str, refs: Sequence[str]) -> bool:
        """Whether an :data:`ALIGNING` scorer would align an answer and a reference both past :data:`ALIGN_MAX_CHARS`."""
        return (self.scorer in ALIGNING and len(answer) > ALIGN_MAX_CHARS
                and any(len(ref) > ALIGN_MAX_CHARS for ref in refs))

    def compare(self, answer: str, refs: tuple[str, ...]) -> tuple[float | None, str]:
        if self.too_long(answer, refs):
            return TOO_LONG
        return super().compare(answer, refs)

    def metric(self, answer: str, reference: str) -> float:
        function, processor = self._fuzz()
        value = function(answer, reference, processor=processor) / 100
        if self.threshold is not None:
            return float(value >= self.threshold)
        return float(value)

    def label(self, value: float) -> str:
        if self.threshold is None:
            return "ok"
        return "match" if value == 1.0 else "no_match"

    def warmup(self) -> None:
        self._fuzz()


#: The markers ``answer_format="any"`` looks for; a batch with none of them reads each whole reply.
_MARKERS = ("\\boxed", "\\fbox", "<answer>")
#: The row fields the core's per-sample path gives a scorer besides the columns (a column of that name is not read).
_ROW_FIELDS = ("prompt", "completion", "completion_ids")


class BatchFuzzy(Fuzzy, BatchOptions):
    """Fuzzy string similarity (rapidfuzz) of the answer to the best reference, in [0, 1]; optional ``threshold``.

    Unit: none (a score in its range; no length is measured).

    ``text.fuzzy`` as registered, scoring a whole batch at once. ``scorer`` is one of :data:`SCORERS`
    (``rapidfuzz.fuzz.<scorer>(answer, reference, processor=...) / 100``; default ``ratio``, the normalised
    Indel similarity); ``processor`` ``"none"`` (default) or ``"default"`` (``rapidfuzz.utils.default_process``);
    with ``threshold`` (in [0, 1]) the reward is 1.0 when the value reaches it and 0.0 below (labels
    ``match``/``no_match``), as OpenAI's ``text_similarity`` grader passes at ``pass_threshold``.

    The same parameters and the same value and label per sample as :class:`Fuzzy` run sample by
    sample through the core with the reward's options, which the core passes as ``reward_options``
    (the registered ones, :attr:`options`, with a reward set entry's or ``get_reward``'s options over
    them; called directly, the registered ones): a reply longer than their ``max_chars`` gets their
    ``too_large_value``, label ``too_large``; an unreadable one their ``invalid_value``, label
    ``unreadable``; ``no_reference`` None; ``no_answer`` 0.0. But every (answer, reference) pair is
    scored in one ``rapidfuzz.process.cpdist`` call (float64, so each score is the one ``fuzz.<scorer>``
    returns) and a batch whose replies have no box or tag is read without a scan per reply: the
    per-sample path cost 50 times rapidfuzz's own work (bench/text.md).

    >>> result = BatchFuzzy()(prompts=[None] * 3, completions=["Eifel Tower", None, "<answer>Eiffel Tower</answer>"],
    ...                       reference=["Eiffel Tower", "Eiffel Tower", ["Tower", "Eiffel Tower"]])
    >>> result.values, result.labels
    ([0.9565217391304348, 0.0, 1.0], ['ok', 'unreadable', 'ok'])
    """

    registered_as = "FUZZY"

    def __call__(self, prompts: Sequence[Any], completions: Sequence[Any],  # type: ignore[override]
                 completion_ids: Any = None, *, reward_options: RewardOptions | None = None,
                 **columns: Any) -> RewardResult:
        n = len(completions)
        column = self._column(prompts, completions, completion_ids, columns, n)
        options = self.effective_options(reward_options)
        fast = self._common_case(completions, column, options.max_chars)
        if fast is not None:
            return fast
        values: list[float | None] = [None] * n
        labels = ["none"] * n
        texts: list[str] = []
        todo: list[int] = []
        for i in range(n):
            read = self.reply(completions[i], options)
            if isinstance(read, str):
                texts.append(read)
                todo.append(i)
            else:
                values[i], labels[i] = read
        joined = "\0".join(texts)
        answers = self._answers(texts, self._marked(joined))
        if not _encodable(joined):  # (else valid_text changes nothing)
            answers = [None if a is None else valid_text(a) for a in answers]
        pairs_a: list[str] = []
        pairs_r: list[str] = []
        spans: list[tuple[int, int, int]] = []  # (sample, first pair, pair count)
        last: Any = _NOTHING
        refs: tuple[str, ...] = ()
        for i, answer in zip(todo, answers):
            value = column[i]
            if value is not last:  # a GRPO group passes one reference object for its replies
                last, refs = value, references(value)
            if not refs:
                values[i], labels[i] = NO_REFERENCE
            elif answer is None:
                values[i], labels[i] = NO_ANSWER
            elif self.too_long(answer, refs):
                values[i], labels[i] = TOO_LONG
            else:
                spans.append((i, len(pairs_a), len(refs)))
                pairs_a.extend([answer] * len(refs))
                pairs_r.extend(refs)
        if spans:
            scores = self._scores(pairs_a, pairs_r).tolist()
            threshold = self.threshold
            label = self.label
            for i, start, count in spans:
                best = max(scores[start:start + count]) if count > 1 else scores[start]
                value = float(best >= threshold) if threshold is not None else best
                values[i], labels[i] = value, label(value)
        return RewardResult(values, labels)

    def _common_case(self, completions: Sequence[Any], column: Sequence[Any],
                     max_chars: int | None) -> RewardResult | None:
        """The batch scored without a loop per sample, when every reply is a string of at most ``max_chars``
        and every reference one string, none with a lone surrogate, and every reply has an answer; else None.

        Each check is one C-level pass over the batch (bench/text.md): ``join`` raises unless every item is
        a ``str``; the joined replies are at most ``max_chars`` long only when each reply is; a joined text
        that encodes to UTF-8 has no lone surrogate, so :func:`valid_text` would change none of its parts.
        """
        if not completions:
            return None
        try:
            joined = "\0".join(completions)
            joined_refs = "\0".join(column)
        except TypeError:  # a reply that is not a string (a conversation, None) or a list of references
            return None
        if max_chars is not None and len(joined) > max_chars and max(map(len, completions)) > max_chars:
            return None
        if (self.scorer in ALIGNING and len(joined) > ALIGN_MAX_CHARS and max(map(len, completions)) > ALIGN_MAX_CHARS
                and max(map(len, column)) > ALIGN_MAX_CHARS):  # some pair may be too long to align: read each
            return None
        if not (_encodable(joined) and _encodable(joined_refs)):
            return None
        marked = self._marked(joined)
        answers = self._answers(completions, marked)  # (valid_text changes none: checked)
        if marked and None in answers:  # only a box or a tag can leave a reply without an answer
            return None
        scores = self._scores(answers, column)  # (no answer is None: checked)
        if self.threshold is None:
            return RewardResult(scores, ["ok"] * len(scores))
        threshold, label = self.threshold, self.label
        values: list[Any] = [float(s >= threshold) for s in scores.tolist()]
        return RewardResult(values, [label(v) for v in values])

    def _column(self, prompts: Sequence[Any], completions: Sequence[Any], completion_ids: Any,
                columns: dict[str, Any], n: int) -> Sequence[Any]:
        """The reference column's values, as the per-sample path reads them (a missing column is an error)."""
        name = self.reference_column
        if name in _ROW_FIELDS:
            fields = {"prompt": prompts, "completion": completions, "completion_ids": completion_ids}
            found = fields[name]
            return found if found is not None else [None] * n
        column = columns.get(name)
        if not isinstance(column, (list, tuple)) or len(column) != n:
            have = sorted(k for k, v in columns.items() if isinstance(v, (list, tuple)) and len(v) == n)
            raise ValueError(f"text.fuzzy needs the dataset column {name!r} (one value per completion); the batch has: "
                             f"{', '.join(have) or 'none'}. To read another column, set reference_column")
        return column

    def _marked(self, joined: str) -> bool:
        """Whether the answer is read from a box or a tag in some text of ``joined`` (else each whole text, stripped)."""
        if self.answer_format == "whole":
            return False
        if self.answer_format != "any":
            return True
        # one C scan for each marker's first character before the slower search for the markers themselves
        return ("\\" in joined or "<" in joined) and any(m in joined for m in _MARKERS)

    def _answers(self, texts: Sequence[str], marked: bool) -> list[str | None]:
        """Each text's answer, as :meth:`ReferenceMetric.answer` reads it before :func:`valid_text`; ``marked``:
        :meth:`_marked` of the joined texts (when False, each text is read whole, stripped)."""
        if not marked:
            return list(map(str.strip, texts))  # what read_answer gives without a box or tag
        return [read_answer(t, self.answer_format, self.answer_position) for t in texts]

    def _scores(self, answers: Sequence[str | None], refs: Sequence[str]) -> Any:
        """``fuzz.<scorer>(answer, reference, processor=...) / 100`` for each pair, in one rapidfuzz call: a float64
        numpy array, which a batch result may carry as its values (the core makes the list TRL gets in one call)."""
        import numpy as np
        from rapidfuzz import process

        function, processor = self._fuzz()
        scores = process.cpdist(answers, refs, scorer=function, processor=processor, dtype=np.float64)
        scores /= 100  # (in place: the same division, one array less)
        return scores


_NOTHING = object()


def _encodable(text: str) -> bool:
    """Whether ``text`` is valid UTF-8 (no lone surrogate), so that :func:`valid_text` returns it unchanged."""
    if text.isascii():  # (a flag of the string: no scan)
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
