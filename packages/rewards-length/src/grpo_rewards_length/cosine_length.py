"""``length.cosine``: correctness-conditioned cosine length scaling."""

from __future__ import annotations

import math
from typing import Any

from grpo_rewards import params

from ._units import MeasuredIn, Unit, check_fallback, check_length, check_unit, measure, read_correct
from .overlong import DEFAULT_MAX_LENGTH


class CosineLength(MeasuredIn):
    """Cosine length scaling conditioned on correctness (Appendix C.1 of arXiv:2502.03373):
    short correct answers score best, short wrong answers worst.

    Unit: ``unit`` — ``"tokens"`` (default, ``len(completion_ids)``), ``"chars"`` or ``"words"``.
    With ``L`` the length, ``p = min(L / max_length, 1)`` (clamped: past ``max_length`` the cosine
    does not wrap back up) and ``c = cos(p * pi)``:

    - correct: ``min_value_correct + 0.5 * (max_value_correct - min_value_correct) * (1 + c)``
      (``max_value_correct`` at length 0, ``min_value_correct`` at ``max_length`` and beyond);
    - wrong: ``max_value_wrong + 0.5 * (min_value_wrong - max_value_wrong) * (1 + c)``
      (``min_value_wrong`` at length 0, ``max_value_wrong`` at ``max_length`` and beyond);
    - correctness unknown (``None`` or NaN): ``None``.

    The same formula as TRL's ``get_cosine_scaled_reward``, but correctness is not recomputed:
    it is read from the per-sample column ``correct_column`` (default ``"correct"``): a bool, or a
    number counted correct when ``>= correct_threshold`` (default 1.0). In a reward set, fill it
    from another entry without computing it twice: ``inputs: {correct: math.accuracy}``; in a
    script, ``make_cosine(correctness=grpo_rewards_math.accuracy)``.

    >>> from grpo_rewards_length import make_cosine
    >>> reward = make_cosine(max_length=100)
    >>> reward(prompts=["p"] * 4, completions=["a"] * 4, completion_ids=[[1] * 50] * 3 + [[1] * 300],
    ...        correct=[1.0, 0.0, None, True])
    [0.75, -0.75, None, 0.5]
    """

    def __init__(
        self,
        max_length: int = DEFAULT_MAX_LENGTH,
        min_value_wrong: float = -1.0,
        max_value_wrong: float = -0.5,
        min_value_correct: float = 0.5,
        max_value_correct: float = 1.0,
        unit: Unit = "tokens",
        correct_column: str = "correct",
        correct_threshold: float = 1.0,
        fallback_chars_per_token: float | None = None,
    ) -> None:
        self.max_length = check_length("max_length", max_length, minimum=1)
        values = {"min_value_wrong": min_value_wrong, "max_value_wrong": max_value_wrong,
                  "min_value_correct": min_value_correct, "max_value_correct": max_value_correct}
        for key, value in values.items():
            params.number(value, key)
        self.min_value_wrong = float(min_value_wrong)
        self.max_value_wrong = float(max_value_wrong)
        self.min_value_correct = float(min_value_correct)
        self.max_value_correct = float(max_value_correct)
        self.unit = check_unit(unit)
        self.correct_column = params.column(correct_column, "correct_column")
        self.correct_threshold = float(correct_threshold)
        self.fallback_chars_per_token = check_fallback(fallback_chars_per_token)

    def __call__(self, text: str, **row: Any) -> float | None:
        if self.correct_column not in row:
            raise ValueError(f"length.cosine reads correctness from column {self.correct_column!r}, which is missing")
        correct = read_correct(row[self.correct_column], self.correct_threshold, self.correct_column)
        if correct is None:
            return None
        length = measure(text, self.unit, row.get("completion_ids"), self.fallback_chars_per_token, "length.cosine")
        cosine = math.cos(min(length / self.max_length, 1.0) * math.pi)
        if correct:
            low, high = self.min_value_correct, self.max_value_correct
        else:
            low, high = self.max_value_wrong, self.min_value_wrong
        return low + 0.5 * (high - low) * (1.0 + cosine)
