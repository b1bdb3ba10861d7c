"""The async form of a reward: TRL gathers async reward functions concurrently within one step.

TRL's ``GRPOTrainer`` calls synchronous reward functions one after another, then awaits the
asynchronous ones together (``asyncio.gather`` on its event-loop thread; ``is_async_callable`` in
``trl/trainer/utils.py`` recognises an instance whose ``__call__`` is ``async``). A set of a code
reward, a math reward and a judge then takes about the longest of their times, not their sum.

:class:`ConcurrentReward` wraps a :class:`~grpo_rewards.Reward`: its coroutine runs the reward's
ordinary call in a thread (``asyncio.to_thread``: an in-process scorer, or a wait on the worker pool
or the Ray cluster), so the event loop is never blocked, and it makes the reward's ``log_metric`` and
``log_extra`` calls afterwards on the event loop's thread, in the order the reward made them. Values,
labels, metrics and logged columns are those of the synchronous call. A reward another one reads
through ``inputs`` is computed once even when both run at the same time (the second waits for the
first's result).

>>> import asyncio
>>> from grpo_rewards import Reward
>>> def shout(text, **row):
...     return 1.0 if text.isupper() else 0.0
>>> reward = ConcurrentReward(Reward(shout, metric="shout"))
>>> asyncio.run(reward(prompts=["p", "p"], completions=["HI", "hi"]))
[1.0, 0.0]
>>> reward.__name__, is_async(reward)
('shout', True)
"""

from __future__ import annotations

import asyncio
import functools
import inspect
from collections.abc import Callable
from typing import Any

from .execution.dispatch import concurrent_call
from .reward import Reward

__all__ = ["ConcurrentReward", "is_async", "trl_gathers_async_rewards"]

#: The keyword arguments through which a reward logs (TRL's callbacks).
LOGGING_KWARGS = ("log_metric", "log_extra")


class _Deferred:
    """Stands in for one of TRL's logging callbacks in the reward's thread: records each call."""

    def __init__(self, calls: list[tuple[Callable[..., Any], tuple[Any, ...]]], target: Callable[..., Any]) -> None:
        self.calls = calls
        self.target = target

    def __call__(self, *args: Any) -> None:
        self.calls.append((self.target, args))


class ConcurrentReward:
    """``await reward(prompts, completions, completion_ids=None, **columns)``: a :class:`Reward`'s async form.

    Same ``__name__`` (TRL's metric key) as the reward it wraps; picklable when that reward is (TRL's
    experimental async trainer sends reward functions to a spawned process). ``reward`` is the
    synchronous :class:`Reward` (its ``stats``, ``options``, ``seconds``).
    """

    def __init__(self, reward: Reward) -> None:
        if not isinstance(reward, Reward):
            raise TypeError(f"ConcurrentReward wraps a grpo_rewards.Reward, not {type(reward).__name__}")
        self.reward = reward
        self.__name__ = reward.__name__

    def __repr__(self) -> str:
        return f"<ConcurrentReward {self.__name__} ({self.reward.name})>"

    async def __call__(
        self,
        /,
        prompts: Any = None,
        completions: Any = None,
        completion_ids: Any = None,
        **kwargs: Any,
    ) -> list[float | None]:
        calls: list[tuple[Callable[..., Any], tuple[Any, ...]]] = []
        for key in LOGGING_KWARGS:
            target = kwargs.get(key)
            if callable(target):
                kwargs[key] = _Deferred(calls, target)
        call = functools.partial(self.reward, prompts, completions, completion_ids, **kwargs)
        concurrent_call.set(True)  # in this task's context, which to_thread carries into the thread
        values = await asyncio.to_thread(call)
        for target, args in calls:  # on the event loop's thread, where TRL's own code runs
            target(*args)
        return values


def is_async(func: Any) -> bool:
    """Whether calling ``func`` returns a coroutine: a coroutine function or an instance whose ``__call__`` is one."""
    while isinstance(func, functools.partial):
        func = func.func
    return inspect.iscoroutinefunction(func) or inspect.iscoroutinefunction(type(func).__call__)


def trl_gathers_async_rewards() -> bool:
    """Whether the installed TRL awaits a :class:`ConcurrentReward` (an async ``__call__`` on an instance).

    Older TRL versions tested ``inspect.iscoroutinefunction(func)`` only, which is false for an
    instance: they would take the coroutine for the values. Reads ``trl.trainer.utils.is_async_callable``.
    """
    try:
        from trl.trainer import utils
    except ImportError:
        return False
    check = getattr(utils, "is_async_callable", None)
    if not callable(check):
        return False
    probe = ConcurrentReward.__new__(ConcurrentReward)
    try:
        return bool(check(probe))
    except Exception:
        return False
