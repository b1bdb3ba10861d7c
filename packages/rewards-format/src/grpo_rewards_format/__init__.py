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
from .definitions import (
    BOXED,
    INVALID_VALUE,
    REASONING_STEPS,
    REGEX,
    REPETITION,
    TAG_COUNT,
    THINK,
    THINK_ANSWER,
    XML_FIELDS,
)
from .fields import XmlFields
from .patterns import RegexReward
from .repeats import Repetition
from .steps import ReasoningSteps
from .structure import TagCount, Think, ThinkAnswer

__version__ = metadata.version("grpo-rewards-format")  # the one literal is in pyproject.toml


def make_think_answer(*, metric: str | None = None, **params: Any) -> Reward:
    """``format.think_answer`` with parameters (see :class:`ThinkAnswer`); ``metric`` is the name TRL logs it under."""
    return THINK_ANSWER.reward(metric=metric, **params)


def make_think(*, metric: str | None = None, **params: Any) -> Reward:
    """``format.think`` with parameters (see :class:`Think`)."""
    return THINK.reward(metric=metric, **params)


def make_tag_count(*, metric: str | None = None, **params: Any) -> Reward:
    """``format.tag_count`` with parameters (see :class:`TagCount`)."""
    return TAG_COUNT.reward(metric=metric, **params)


def make_boxed(*, metric: str | None = None, **params: Any) -> Reward:
    """``format.boxed`` with parameters (see :class:`Boxed`)."""
    return BOXED.reward(metric=metric, **params)


def make_reasoning_steps(*, metric: str | None = None, **params: Any) -> Reward:
    """``format.reasoning_steps`` with parameters (see :class:`ReasoningSteps`)."""
    return REASONING_STEPS.reward(metric=metric, **params)


def make_repetition(*, metric: str | None = None, **params: Any) -> Reward:
    """``format.repetition`` with parameters (see :class:`Repetition`)."""
    return REPETITION.reward(metric=metric, **params)


def make_xml_fields(*, metric: str | None = None, **params: Any) -> Reward:
    """``format.xml_fields`` with parameters (see :class:`XmlFields`)."""
    return XML_FIELDS.reward(metric=metric, **params)


def make_regex(pattern: str, *, metric: str | None = None, **params: Any) -> Reward:
    """``format.regex`` for ``pattern`` (see :class:`RegexReward`); there is no default pattern.

    >>> make_regex(r"\\\\boxed\\{\\d+\\}")(prompts=[None], completions=[r"so \\boxed{4}"])
    [1.0]
    """
    return REGEX.reward(metric=metric, pattern=pattern, **params)


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
