"""The reward contract: TRL's call, completion formats, and the errors the core raises.

A reward is ``f(prompts, completions, completion_ids=None, **columns) -> list[float | None]``,
one value per completion; ``None`` means "not applicable to this sample" (TRL turns it into NaN
and leaves it out of the mean). Completions are ``str`` or a list of chat messages.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Protocol

Message = dict[str, Any]
Completion = str | list[Message]
RewardValue = float | None

#: What a reward's lengths are measured in (``units=`` at registration).
UNITS = ("chars", "words", "tokens", "none")

#: Keyword arguments TRL passes to every reward that are not dataset columns.
TRL_CONTROL_KWARGS = frozenset({"trainer_state", "log_extra", "log_metric", "environments"})

#: Outcome labels the core counts for a per-sample reward and logs as ``outcomes/<name>/<label>``.
LOGGED_OUTCOMES = ("timeout", "error", "crashed", "too_large", "unreadable")


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



class GrpoRewardsError(Exception):
    """Base class of every error the core raises on purpose."""


class RewardNotFoundError(GrpoRewardsError, KeyError):
    """An unknown reward name (the message lists the closest names and an install hint)."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


class PluginError(GrpoRewardsError):
    """A plugin failed to load, or two plugins claim the same name."""


class RewardSetError(GrpoRewardsError):
    """A reward set failed validation; ``problems`` lists every problem found."""

    def __init__(self, problems: list[str], source: str = "reward set") -> None:
        self.problems = list(problems)
        lines = "\n".join(f"  - {p}" for p in self.problems)
        super().__init__(f"{source} has {len(self.problems)} problem(s):\n{lines}")


class RewardError(GrpoRewardsError):
    """A reward raised or returned something outside the contract, with the reward and sample."""

    def __init__(self, reward: str, message: str, index: int | None = None) -> None:
        self.reward = reward
        self.index = index
        where = f" on sample {index}" if index is not None else ""
        super().__init__(f"reward {reward!r}{where}: {message}")


def _content_text(content: Any) -> str | None:
    if content is None:
        return None
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # multimodal content parts: keep the text parts
        parts = [p.get("text") for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)]
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
