"""``text.fuzzy``: rapidfuzz string similarity against reference answers."""

from __future__ import annotations

from typing import Any

from grpo_rewards import params

from .reference import ReferenceMetric

#: ``scorer``: the ``rapidfuzz.fuzz`` functions, by name.
SCORERS = ("ratio", "partial_ratio", "token_sort_ratio", "token_set_ratio", "token_ratio", "partial_token_sort_ratio",
           "partial_token_set_ratio", "partial_token_ratio", "WRatio", "QRatio")
#: ``processor``: none, or ``rapidfuzz.utils.default_process`` (lowercase, non-alphanumerics to spaces, trimmed).
PROCESSORS = ("none", "default")


class Fuzzy(ReferenceMetric):
    """``rapidfuzz.fuzz.<scorer>(answer, reference, processor=...) / 100``, the best over the references.

    ``scorer`` is one of :data:`SCORERS` (default ``ratio``: the normalised Indel similarity);
    ``processor`` ``"none"`` (default) or ``"default"`` (``rapidfuzz.utils.default_process``). With
    ``threshold`` (in [0, 1]) the reward is 1.0 when that value reaches it and 0.0 below (labels
    ``match``/``no_match``), as OpenAI's ``text_similarity`` grader passes at ``pass_threshold``.

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
