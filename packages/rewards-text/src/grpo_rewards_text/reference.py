"""The shared part of the rewards that compare a reply's answer with reference texts.

A :class:`ReferenceMetric` reads the answer (:mod:`.answer`: ``answer_format``,
``answer_position``) and the references (the column ``reference_column``, one string or a list)
and returns the best of ``metric(answer, reference)`` over the references. A row without a
reference is left out (``None``, label ``no_reference``); a strict ``answer_format`` that finds no
box or tag scores 0.0 with the label ``no_answer``. Subclasses define :meth:`ReferenceMetric.metric`.
"""

from __future__ import annotations

from typing import Any

from grpo_rewards import params

from .answer import FORMATS, POSITIONS, read_answer, references, valid_text

NO_REFERENCE: tuple[float | None, str] = (None, "no_reference")
NO_ANSWER: tuple[float | None, str] = (0.0, "no_answer")


class ReferenceMetric:
    """Base of the reference rewards: parameters ``reference_column``, ``answer_format``, ``answer_position``."""

    def __init__(self, reference_column: str = "reference", answer_format: str = "any",
                 answer_position: str = "last") -> None:
        self.reference_column = params.column(reference_column, "reference_column")
        self.answer_format = params.choice(answer_format, "answer_format", FORMATS)
        self.answer_position = params.choice(answer_position, "answer_position", POSITIONS)
        self._last: tuple[Any, tuple[str, ...]] | None = None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} reference_column={self.reference_column!r} answer_format={self.answer_format!r}>"

    def warmup(self) -> None:
        """Import and build what the metric needs (the core calls it in each worker; nothing here)."""

    def answer(self, text: str) -> str | None:
        """The answer this reward reads from a reply's text."""
        answer = read_answer(text, self.answer_format, self.answer_position)
        return None if answer is None else valid_text(answer)

    def metric(self, answer: str, reference: str) -> float:  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    def label(self, value: float) -> str:
        """The outcome label of a scored sample (``ok`` unless a subclass says more)."""
        return "ok"

    def _references(self, value: Any) -> tuple[str, ...]:
        """The row's references (the last value's, remembered: a GRPO group passes one object 8 times)."""
        last = self._last
        if last is not None and last[0] is value:
            return last[1]
        refs = references(value)
        self._last = (value, refs)
        return refs

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_last": None}

    def __call__(self, text: str, **row: Any) -> tuple[float | None, str]:
        refs = self._references(row.get(self.reference_column))
        if not refs:
            return NO_REFERENCE
        answer = self.answer(text)
        if answer is None:
            return NO_ANSWER
        value = max(self.metric(answer, ref) for ref in refs)
        return value, self.label(value)
