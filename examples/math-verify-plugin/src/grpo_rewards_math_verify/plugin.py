r"""``math_verify.accuracy``: TRL's ``accuracy_reward`` (math-verify) as a per-sample scorer.

The same calls as ``trl.rewards.accuracy_reward``: the gold is parsed with math-verify's default
extraction; when nothing can be parsed from it the sample gets ``None`` (``gold_unparsable``);
otherwise the completion is parsed with a LaTeX extraction that tries ``\boxed{}`` first and
needs an anchor (``try_extract_without_anchor=False``, units normalised), and ``verify`` decides.
"""

from __future__ import annotations

import threading
from typing import Any

import grpo_rewards


def _timeouts() -> tuple[int | None, int | None]:
    """math-verify's timeouts use ``signal.alarm``, which works on the main thread only (as in TRL)."""
    main = threading.current_thread() is threading.main_thread()
    return (10, 5) if main else (None, None)


class MathVerifyAccuracy:
    r"""1.0 when math-verify verifies the completion's answer against the gold, else 0.0 (as TRL pays).

    Labels: ``correct``, ``wrong``, ``no_answer`` (nothing extracted from the completion, 0.0) and
    ``gold_unparsable`` (``None``: left out, as TRL does).

    >>> MathVerifyAccuracy()(r"so \boxed{\frac{1}{2}}", solution="0.5")
    (1.0, 'correct')
    """

    def __init__(self, solution_column: str = "solution") -> None:
        self.solution_column = grpo_rewards.params.column(solution_column, "solution_column")

    def _parse(self, text: str, solution: Any) -> tuple[Any, Any]:
        from latex2sympy2_extended import NormalizationConfig
        from math_verify import LatexExtractionConfig, parse

        parsing, _ = _timeouts()
        gold = parse(str(solution), parsing_timeout=parsing)
        if not gold:
            return gold, None
        config = LatexExtractionConfig(normalization_config=NormalizationConfig(units=True), boxed_match_priority=0,
                                       try_extract_without_anchor=False)
        return gold, parse(text, extraction_config=[config], extraction_mode="first_match", parsing_timeout=parsing)

    def __call__(self, text: str, **row: Any) -> tuple[float | None, str]:
        from math_verify import verify

        gold, answer = self._parse(text, row[self.solution_column])
        if not gold:
            return None, "gold_unparsable"
        if not answer:
            return 0.0, "no_answer"
        _, verifying = _timeouts()
        correct = verify(gold, answer, timeout_seconds=verifying)
        return (1.0, "correct") if correct else (0.0, "wrong")

    def explain(self, completion: Any, **row: Any) -> dict[str, Any]:
        """The parsed answer and gold, the label and the value (shown by ``grpo-rewards compare``)."""
        text = grpo_rewards.completion_text(completion)
        if text is None:
            return {"answer": None, "gold": None, "label": "unreadable", "value": 0.0}
        gold, answer = self._parse(text, row[self.solution_column])
        value, label = self(text, **row)
        return {"answer": [str(a) for a in answer or ()][-1:], "gold": [str(g) for g in gold][-1:], "label": label,
                "value": value}


@grpo_rewards.hookimpl
def register_rewards(register: Any) -> None:
    register("accuracy", MathVerifyAccuracy, output_range=(0.0, 1.0), invalid_value=0.0, worker_safe=False,
             example=r"completion '\boxed{\frac{1}{2}}' with solution '0.5' -> 1.0")
