"""grpo-rewards-format: format and regex rewards for GRPO that resist reward hacking.

Each reward is a plain TRL reward function with default parameters (``think_answer``, ``think``,
``tag_count``, ``boxed``, ``reasoning_steps``, ``repetition``, ``xml_fields``) and a factory that
takes parameters (``make_think_answer(strict=False)``, ``make_regex(pattern)``, ...). The same
scorers are registered under the ``format`` namespace (``format.think_answer``, ...).

>>> from grpo_rewards_format import think_answer
>>> think_answer(prompts=["2 + 2?"], completions=["<think>2 + 2 = 4</think><answer>4</answer>"])
[1.0]
>>> think_answer.__name__
'format.think_answer'
"""

from __future__ import annotations

from importlib import metadata
from typing import Any

from grpo_rewards import Reward

from .boxes import Boxed
from .fields import XmlFields
from .patterns import RegexReward
from .repeats import Repetition
from .steps import ReasoningSteps
from .structure import TagCount, Think, ThinkAnswer

__version__ = metadata.version("grpo-rewards-format")  # the one literal is in pyproject.toml

#: Value for a completion with no readable text (``None``, a number, no assistant message).
INVALID_VALUE = 0.0


def _reward(scorer: Any, short: str, name: str | None, params: dict[str, Any]) -> Reward:
    return Reward(scorer, name=name or f"format.{short}", params=params, invalid_value=INVALID_VALUE)


def make_think_answer(*, name: str | None = None, **params: Any) -> Reward:
    """``format.think_answer`` with parameters (see :class:`ThinkAnswer`), named ``name``."""
    return _reward(ThinkAnswer, "think_answer", name, params)


def make_think(*, name: str | None = None, **params: Any) -> Reward:
    """``format.think`` with parameters (see :class:`Think`)."""
    return _reward(Think, "think", name, params)


def make_tag_count(*, name: str | None = None, **params: Any) -> Reward:
    """``format.tag_count`` with parameters (see :class:`TagCount`)."""
    return _reward(TagCount, "tag_count", name, params)


def make_boxed(*, name: str | None = None, **params: Any) -> Reward:
    """``format.boxed`` with parameters (see :class:`Boxed`)."""
    return _reward(Boxed, "boxed", name, params)


def make_reasoning_steps(*, name: str | None = None, **params: Any) -> Reward:
    """``format.reasoning_steps`` with parameters (see :class:`ReasoningSteps`)."""
    return _reward(ReasoningSteps, "reasoning_steps", name, params)


def make_repetition(*, name: str | None = None, **params: Any) -> Reward:
    """``format.repetition`` with parameters (see :class:`Repetition`)."""
    return _reward(Repetition, "repetition", name, params)


def make_xml_fields(*, name: str | None = None, **params: Any) -> Reward:
    """``format.xml_fields`` with parameters (see :class:`XmlFields`)."""
    return _reward(XmlFields, "xml_fields", name, params)


def make_regex(pattern: str, *, name: str | None = None, **params: Any) -> Reward:
    """``format.regex`` for ``pattern`` (see :class:`RegexReward`); there is no default pattern.

    >>> make_regex(r"\\\\boxed\\{\\d+\\}")(prompts=[None], completions=[r"so \\boxed{4}"])
    [1.0]
    """
    return _reward(RegexReward, "regex", name, {"pattern": pattern, **params})


think_answer = make_think_answer()
think = make_think()
tag_count = make_tag_count()
boxed = make_boxed()
reasoning_steps = make_reasoning_steps()
repetition = make_repetition()
xml_fields = make_xml_fields()

__all__ = [
    "INVALID_VALUE",
    "Boxed",
    "ReasoningSteps",
    "RegexReward",
    "Repetition",
    "TagCount",
    "Think",
    "ThinkAnswer",
    "XmlFields",
    "boxed",
    "make_boxed",
    "make_reasoning_steps",
    "make_regex",
    "make_repetition",
    "make_tag_count",
    "make_think",
    "make_think_answer",
    "make_xml_fields",
    "reasoning_steps",
    "repetition",
    "tag_count",
    "think",
    "think_answer",
    "xml_fields",
]
