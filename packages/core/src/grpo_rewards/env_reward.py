"""The reward of an environment that owns one: scored under the environment's name, in training and offline.

In training, TRL passes ``environments=`` (one instance per completion, after its rollout) and
:class:`EnvironmentReward` asks each for ``get_reward()`` (TRL's own copy of that reward is hidden
by :class:`~grpo_rewards.environment.EnvironmentFactory`, so it is counted once). Offline
(``grpo-rewards score`` on recorded trajectories, no live environments), it *replays* each
trajectory into a fresh instance: ``reset(**row)``, then every recorded tool call in order, each
result compared with the recorded ``tool`` message, then ``get_reward()``; so offline scores are
the scores training gave. A replay whose tool output differs from the recording scores ``None``
(label ``replay_mismatch``): the environment is not deterministic and the recorded reward cannot
be reproduced.

Labels: the environment's own (``self.outcome`` set by ``get_reward``), else ``ok``/``none``;
``env_error`` where the environment raised or ``get_reward`` returned what TRL cannot take as a reward (text,
infinity, an integer past a float's range; with a warning naming it), ``other_environment`` for a rollout of
another environment (a run mixing environments; offline, a row whose ``environment`` column is empty, which
trained without tools); an ``outcome`` that is not a label (a space, a ``/``) is ``ok``/``none`` with a warning,
its value kept as TRL keeps it. ``get_reward`` returns a reward as TRL reads it: a number (a bool is 1.0 or 0.0),
or ``None`` or NaN for none.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import math
import warnings
from collections.abc import Sequence
from typing import Any

from . import jsontext
from .environment import TAG, EnvironmentFactory, EnvironmentInfo, call_get_reward, tool_methods
from .errors import RewardError
from .options import RewardOptions
from .protocol import TRL_CONTROL_KWARGS, RewardResult, batch_columns
from .records import RewardInfo
from .values import check_label, check_value

__all__ = ["EnvironmentReward", "environment_reward_info", "replay"]

def tool_calls_of(message: Any) -> list[tuple[str, Any]]:
    """``(name, arguments)`` of each tool call an assistant message made (OpenAI's format, as TRL
    records it; ``arguments`` may be JSON text). A call that names no function gives ``("", None)``."""
    out: list[tuple[str, Any]] = []
    for call in message.get("tool_calls") or [] if isinstance(message, dict) else []:
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            out.append(("", None))
            continue
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            try:
                arguments = jsontext.loads(arguments)
            except ValueError:  # the tool call fails as TRL's would (nested too deeply included: a RecursionError)
                pass
        out.append((function["name"], arguments))
    return out


def run_tool(environment: Any, name: str, arguments: Any) -> Any:
    """One tool call as TRL's loop makes it: the tool's result, or ``{"error": ...}`` where it fails."""
    tools = {t.__name__: t for t in tool_methods(environment)}
    try:
        if name not in tools:
            raise ValueError(f"Tool {name} not found.")
        if not isinstance(arguments, dict):
            raise TypeError(f"arguments of {name} are not a JSON object: {arguments!r}")
        result = tools[name](**arguments)
        if inspect.isawaitable(result):
            result = asyncio.run(_awaited(result))
        return result
    except Exception as exc:
        return {"error": str(exc)}


async def _awaited(value: Any) -> Any:
    return await value


def replay(environment: Any, row: dict[str, Any], completion: Any) -> tuple[bool, list[str]]:
    """Reset ``environment`` with ``row`` and make every tool call recorded in ``completion`` (a list
    of messages) in order. Returns whether every tool output matched the recorded ``tool`` message
    that follows its call (a recording without tool messages matches), and the outputs."""
    environment.reset(**row)
    messages = completion if isinstance(completion, list) else []
    outputs: list[str] = []
    same = True
    for i, message in enumerate(messages):
        calls = tool_calls_of(message) if isinstance(message, dict) and message.get("role") == "assistant" else []
        if not calls:
            continue
        recorded = []
        for follower in messages[i + 1:]:
            if not isinstance(follower, dict) or follower.get("role") != "tool":
                break
            recorded.append(follower.get("content"))
        for k, (name, arguments) in enumerate(calls):
            result = run_tool(environment, name, arguments)
            text = result if isinstance(result, list) else str(result)
            outputs.append(text if isinstance(text, str) else json.dumps(text, default=str))
            if k < len(recorded) and recorded[k] != text:
                same = False
    return same, outputs


def _reward_of(environment: Any, name: str = "environment", index: int = 0) -> tuple[float | None, str]:
    value = call_get_reward(environment)
    if inspect.isawaitable(value):
        value = asyncio.run(_awaited(value))
    label = getattr(environment, "outcome", None)
    if isinstance(value, bool):  # TRL's float tensor of the rewards takes a bool
        value = float(value)
    elif isinstance(value, float) and math.isnan(value):  # TRL reads NaN as it reads None: no reward
        value = None
    value = check_value(f"{name}.get_reward", value, index)  # a RewardError (env_error) for text, inf, 10**400
    if not isinstance(label, str) or not label:
        label = "none" if value is None else "ok"
    return value, label


class EnvironmentReward:
    """The batch reward of an environment that owns one (``get_reward``); its parameters are the
    environment's (used to build the fresh instances of a replay)."""

    def __init__(self, info: EnvironmentInfo) -> None:
        self.name = info.name
        self.info = info
        self._warned: set[str] = set()

    def __getstate__(self) -> dict[str, Any]:
        return {"name": self.name, "info": self.info, "_warned": set()}

    def _warn(self, cause: str) -> None:
        if cause not in self._warned and len(self._warned) < 16:
            self._warned.add(cause)
            warnings.warn(f"environment {self.name}: {cause}", RuntimeWarning, stacklevel=3)

    def __call__(self, prompts: Sequence[Any], completions: Sequence[Any], completion_ids: Any = None,
                 **kwargs: Any) -> RewardResult:
        environments = kwargs.pop("environments", None)  # TRL's (not a keyword parameter: the core binds those)
        params = {k: kwargs.pop(k) for k in list(kwargs) if k in self.info.params}
        prompts, completions, kwargs = batch_columns(prompts, completions, kwargs)
        n = len(completions)
        columns = {k: v for k, v in kwargs.items()
                   if k not in TRL_CONTROL_KWARGS and type(v) in (list, tuple) and len(v) == n}
        values: list[float | None] = [None] * n
        labels = ["none"] * n
        for i in range(n):
            try:
                if environments is not None:
                    environment = environments[i]
                    tag = getattr(environment, TAG, self.name)
                    if tag != self.name:
                        labels[i] = "other_environment"
                        continue
                elif "environment" in columns and columns["environment"][i] is None:
                    labels[i] = "other_environment"  # a row without an environment: trained without tools
                    continue
                else:
                    environment = EnvironmentFactory(self.info, params, hide_reward=False)()
                    row = {"prompt": prompts[i], **{k: v[i] for k, v in columns.items()}}
                    same, _ = replay(environment, row, completions[i])
                    if not same:
                        labels[i] = "replay_mismatch"
                        self._warn("a replayed tool call gave another output than the recording; the recorded "
                                   "reward cannot be reproduced (is the environment deterministic?)")
                        continue
                values[i], labels[i] = _reward_of(environment, self.name, i)
                try:
                    check_label(f"{self.name}.outcome", labels[i], i)  # (a label checked before returns at once)
                except RewardError as exc:  # TRL pays the value whatever the label: so does the reward
                    labels[i] = "none" if values[i] is None else "ok"
                    self._warn(str(exc))
            except Exception as exc:
                values[i], labels[i] = None, "env_error"
                self._warn(f"raised {type(exc).__name__}: {exc}")
        return RewardResult(values, labels)


def environment_reward_info(info: EnvironmentInfo) -> RewardInfo:
    """The reward record of an environment that owns one: its name, a batch scorer, its parameters,
    run in this process (the environments TRL passes cannot travel to a worker)."""
    return RewardInfo(
        info.name,
        EnvironmentReward(info),
        form="batch",
        description=f"the reward environment {info.name} gives a rollout (its get_reward)",
        params=dict(info.params),
        columns=(),
        options=RewardOptions(worker_safe=False),
        example=info.example,
        hacks=info.hacks,
        plugin=info.plugin,
        distribution=info.distribution,
        version=info.version,
    )
