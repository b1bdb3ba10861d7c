"""The shared part of the rewards that compare a reply's answer with reference texts.

A :class:`ReferenceMetric` reads the answer (:mod:`.answer`: ``answer_format``,
``answer_position``) and the references (the column ``reference_column``, one string or a list: :func:`.answer.references`)
and returns the best of ``metric(answer, reference)`` over the references. A row without a
reference is left out (``None``, label ``no_reference``); a strict ``answer_format`` that finds no
box or tag scores 0.0 with the label ``no_answer``. Subclasses define :meth:`ReferenceMetric.metric`.

The batch-form rewards (``text.fuzzy``, ``text.similarity``) read the replies themselves, so they
apply the core's effective options for a reply they do not read (:class:`BatchOptions`): the core
passes them as ``reward_options``, and a reply is unreadable or too large exactly as the core's
per-sample path decides it.
"""

from __future__ import annotations

from typing import Any

from grpo_rewards import RewardOptions, completion_text, params

from .answer import FORMATS, POSITIONS, read_answer, references, valid_text

NO_REFERENCE: tuple[float | None, str] = (None, "no_reference")
NO_ANSWER: tuple[float | None, str] = (0.0, "no_answer")


class BatchOptions:
    """The core's effective options in a batch-form text reward, as the per-sample path applies them.

    :attr:`registered_as` names the reward's definition in :mod:`.definitions`; the core passes the
    effective options (those registered, with a reward set entry's or ``get_reward``'s options over
    them) as ``reward_options``, and a direct call without them applies the registered ones.
    """

    #: the name of the reward's :class:`~grpo_rewards.RewardDefinition` in :mod:`.definitions`
    registered_as = ""

    @property
    def options(self) -> RewardOptions:
        """The reward's registered options: what a call without ``reward_options`` applies."""
        from . import definitions

        options: RewardOptions = getattr(definitions, self.registered_as).options
        return options

    def effective_options(self, reward_options: RewardOptions | None) -> RewardOptions:
        """``reward_options`` as the core passed them, else the registered ones."""
        return reward_options if reward_options is not None else self.options

    @staticmethod
    def reply(completion: Any, options: RewardOptions) -> str | tuple[float | None, str]:
        """The text of a reply to read, else its ``(value, label)`` as the core's per-sample path gives it
        under ``options``: no text, ``(invalid_value, "unreadable")``; more than ``max_chars`` characters,
        ``(too_large_value, "too_large")``.

        >>> options = RewardOptions(invalid_value=0.0, max_chars=5, too_large_value=0.25)
        >>> BatchOptions.reply("Paris", options), BatchOptions.reply(None, options), BatchOptions.reply("Lyon!!", options)
        ('Paris', (0.0, 'unreadable'), (0.25, 'too_large'))
        """
        text = completion if type(completion) is str else completion_text(completion)
        if text is None:
            return options.invalid_value, "unreadable"
        if options.max_chars is not None and len(text) > options.max_chars:
            return options.too_large_value, "too_large"
        return text


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

    def compare(self, answer: str, refs: tuple[str, ...]) -> tuple[float | None, str]:
        """The value and label of an answer against a row's references (at least one): the best
        :meth:`metric` over them (a subclass may combine them otherwise)."""
        value = self.metric(answer, refs[0]) if len(refs) == 1 else max(self.metric(answer, ref) for ref in refs)
        return value, self.label(value)

    def __call__(self, text: str, **row: Any) -> tuple[float | None, str]:
        refs = self._references(row.get(self.reference_column))
        if not refs:
            return NO_REFERENCE
        answer = self.answer(text)
        if answer is None:
            return NO_ANSWER
        return self.compare(answer, refs)
