"""The reward contract: TRL's call, completion formats, and a reward's result.

A reward is ``f(prompts, completions, completion_ids=None, **columns) -> list[float | None]``,
one value per completion; ``None`` means "not applicable to this sample" (TRL turns it into NaN
and leaves it out of the mean). Completions are ``str`` or a list of chat messages.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

Message = dict[str, Any]
Completion = str | list[Message]
RewardValue = float | None

#: What a reward's lengths are measured in (``units=`` at registration).
UNITS = ("chars", "words", "tokens", "none")

#: Keyword arguments TRL passes to every reward that are not dataset columns.
TRL_CONTROL_KWARGS = frozenset({"trainer_state", "log_extra", "log_metric", "environments"})

#: Outcome labels the core itself gives samples (a batch-form reward all but the last two: it has no
#: per-sample text to guard), besides the labels the reward reports; each is logged as
#: ``outcomes/<name>/<label>`` from the call it first occurs on (zeros included after that).
LOGGED_OUTCOMES = ("timeout", "error", "crashed", "memory", "too_large", "unreadable")


class RewardFunc(Protocol):
    """What ``GRPOTrainer(reward_funcs=[...])`` calls."""

    __name__: str

    def __call__(
        self,
        prompts: Sequence[Any],
        completions: Sequence[Completion],
        completion_ids: Sequence[Sequence[int]] | None = None,
        **kwargs: Any,
    ) -> list[RewardValue]: ...



@dataclass(frozen=True)
class RewardResult:
    """A reward's result on one batch: a value and an outcome label per sample, and the call's seconds.

    What :meth:`grpo_rewards.Reward.score` returns (``__call__`` returns its ``values`` to TRL),
    and what a batch-form reward may return instead of a plain list (its ``labels``, if any, are
    then the labels; ``seconds`` is measured by the core). The core counts the labels and logs them
    once per call as ``outcomes/<metric>/<label>``. A per-sample scorer reports a label by
    returning ``(value, "label")``.

    ``metrics`` are numbers about the call itself (a judge's latency, the tokens it used), logged
    by the core beside ``timing/<metric>`` as ``<key>/<metric>``.

    >>> RewardResult(values=[1.0, 0.0], labels=["correct", "wrong"]).values
    [1.0, 0.0]
    """

    values: list[RewardValue]
    labels: list[str] = field(default_factory=list)
    seconds: float = 0.0
    metrics: dict[str, float] = field(default_factory=dict)


def _content_text(content: Any) -> str | None:
    if content is None:
        return None
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # multimodal content parts: keep the text parts
        parts: list[str] = [p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)]
        return "".join(parts) if parts else None
    return None


def completion_text(completion: Any) -> str | None:
    """The text a reward should read from one completion, or ``None`` when there is none.

    A ``str`` is returned unchanged. For a conversational completion (a list of messages) it is
    the content of the final assistant message; when that message only calls tools, its tool
    calls rendered as JSON. Anything else (``None``, a number, a list without an assistant
    message) gives ``None``.

    >>> completion_text("The answer is 4.")
    'The answer is 4.'
    >>> completion_text([{"role": "assistant", "content": "4"}])
    '4'
    >>> completion_text([{"role": "assistant", "content": "", "tool_calls": [{"type": "function",
    ...     "function": {"name": "add", "arguments": {"a": 2}}}]},
    ...     {"role": "tool", "name": "add", "content": "4"},
    ...     {"role": "assistant", "content": "It is 4."}])
    'It is 4.'
    >>> completion_text([{"role": "user", "content": "hi"}]) is None
    True
    """
    if isinstance(completion, str):
        return completion
    if isinstance(completion, dict):
        completion = [completion]
    if not isinstance(completion, (list, tuple)):
        return None
    for message in reversed(completion):
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        text = _content_text(message.get("content"))
        if text:
            return text
        calls = message.get("tool_calls")
        if calls:
            try:
                return json.dumps(calls, sort_keys=True, default=str)
            except (TypeError, ValueError):
                return str(calls)
        return text if text is not None else ""
    return None


def message_text(message: Any) -> str | None:
    """The text of one chat message's ``content`` (a string, or the text parts of multimodal content), or ``None``.

    >>> message_text({"role": "assistant", "content": [{"type": "text", "text": "4"}]})
    '4'
    """
    return _content_text(message.get("content")) if isinstance(message, dict) else None


def trajectory_messages(completion: Any) -> list[Message]:
    """One completion as a list of message dicts, for rewards that read a whole agentic trajectory.

    A ``str`` is one assistant message; a dict is one message; in a list, items that are not dicts
    are left out. Anything else (``None``, a number) gives no messages. The tool loop's
    trajectory is kept in order: assistant messages with ``tool_calls``, ``tool`` results, the answer.

    >>> trajectory_messages("4")
    [{'role': 'assistant', 'content': '4'}]
    >>> [m["role"] for m in trajectory_messages([{"role": "assistant", "tool_calls": []}, {"role": "tool", "content": "4"}, 7])]
    ['assistant', 'tool']
    """
    if isinstance(completion, str):
        return [{"role": "assistant", "content": completion}]
    if isinstance(completion, dict):
        return [completion]
    if isinstance(completion, (list, tuple)):
        return [message for message in completion if isinstance(message, dict)]
    return []
