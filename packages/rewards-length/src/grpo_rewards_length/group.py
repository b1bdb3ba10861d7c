"""``length.group_relative``: Kimi k1.5's length reward, relative to the completion's group."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from grpo_rewards import completion_text, params

from ._units import MeasuredIn, Unit, check_fallback, check_unit, measure, read_correct


def group_key(prompt: Any) -> str:
    """What identifies a group: the prompt text, or a conversational prompt's messages by content."""
    if isinstance(prompt, str):
        return "s:" + prompt
    return "j:" + json.dumps(prompt, sort_keys=True, default=str)


class GroupRelativeLength(MeasuredIn):
    """Kimi k1.5's length reward (arXiv:2501.12599, section 2.3.3): within each group of
    completions for the same prompt, shorter than the group's midpoint is rewarded, longer is
    penalised, and a wrong answer is never rewarded for being short.

    Unit: ``unit`` — ``"tokens"`` (default, ``len(completion_ids)``), ``"chars"`` or ``"words"``.
    For a completion of length ``L`` in a group whose lengths run from ``min`` to ``max``:
    ``lam = 0.5 - (L - min) / (max - min)``; reward ``lam`` when correct, ``min(0, lam)`` when
    wrong, ``None`` when correctness is unknown; ``0`` for every member of a group whose lengths
    are all equal (a one-element group included). Range ``[-0.5, 0.5]``.

    Groups: completions whose prompts are equal (a conversational prompt compared by its
    messages' content) form one group, wherever they sit in the batch; a batch may hold several
    groups. ``min`` and ``max`` are taken over the group's members present in this call whose
    text is readable (correct, wrong or unknown alike). TRL computes rewards on each process
    before gathering, so when a group is split across processes each part is scored against its
    own ``min``/``max`` (a part of one completion gets 0); for exact group statistics make
    ``per_device_train_batch_size * gradient_accumulation_steps`` a multiple of
    ``num_generations`` on one process. Without prompts, the whole batch is one group. A
    completion without readable text gets ``None`` and is left out of its group's statistics.

    Correctness comes from the per-sample column ``correct_column`` (default ``"correct"``; a bool,
    or a number counted correct when ``>= correct_threshold``), e.g. filled in a reward set by
    ``inputs: {correct: math.accuracy}``; ``correct_column=None`` treats every answer as correct
    (a pure brevity reward).

    >>> from grpo_rewards_length import make_group_relative
    >>> reward = make_group_relative(unit="chars")
    >>> reward(prompts=["p", "p", "p", "p", "q"], completions=["a", "a", "aaa", "aaaaa", "a"],
    ...        correct=[1, 0, 1, 0, 1])
    [0.5, 0.0, 0.0, -0.5, 0.0]
    """

    def __init__(
        self,
        unit: Unit = "tokens",
        correct_column: str | None = "correct",
        correct_threshold: float = 1.0,
        fallback_chars_per_token: float | None = None,
    ) -> None:
        self.unit = check_unit(unit)
        self.correct_column = params.column(correct_column, "correct_column", none_ok=True)
        self.correct_threshold = float(correct_threshold)
        self.fallback_chars_per_token = check_fallback(fallback_chars_per_token)

    def _correctness(self, n: int, kwargs: dict[str, Any]) -> list[bool | None]:
        if self.correct_column is None:
            return [True] * n
        values = kwargs.get(self.correct_column)
        if not isinstance(values, (list, tuple)) or len(values) != n:
            have = sorted(k for k, v in kwargs.items() if isinstance(v, (list, tuple)) and len(v) == n)
            raise ValueError(
                f"length.group_relative reads correctness from column {self.correct_column!r}, which this call "
                f"lacks (per-sample columns: {', '.join(have) or 'none'}); fill it in a reward set with "
                f"inputs: {{{self.correct_column}: math.accuracy}}, or set correct_column=None to ignore correctness"
            )
        return [read_correct(v, self.correct_threshold, self.correct_column) for v in values]

    def __call__(
        self,
        prompts: Sequence[Any] | None,
        completions: Sequence[Any],
        completion_ids: Sequence[Sequence[int]] | None = None,
        **kwargs: Any,
    ) -> list[float | None]:
        n = len(completions)
        prompts = list(prompts) if prompts is not None else [None] * n
        correct = self._correctness(n, kwargs)
        lengths: list[int | None] = []
        groups: dict[str, list[int]] = {}
        for i, completion in enumerate(completions):
            text = completion_text(completion)
            if text is None:
                lengths.append(None)
                continue
            ids = completion_ids[i] if completion_ids is not None else None
            lengths.append(measure(text, self.unit, ids, self.fallback_chars_per_token, "length.group_relative"))
            groups.setdefault(group_key(prompts[i]), []).append(i)
        rewards: list[float | None] = [None] * n
        for members in groups.values():
            group_lengths = [lengths[i] for i in members]
            low, high = min(group_lengths), max(group_lengths)  # type: ignore[type-var]
            for i in members:
                if correct[i] is None:
                    continue
                lam = 0.0 if high == low else 0.5 - (lengths[i] - low) / (high - low)  # type: ignore[operator]
                rewards[i] = lam if correct[i] else min(0.0, lam)
        return rewards
