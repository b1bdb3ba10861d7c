"""grpo-rewards-format: format and regex rewards for GRPO that resist reward hacking.

Each reward is a plain TRL reward function with default parameters (``think_answer``, ``think``,
``tag_count``, ``boxed``, ``reasoning_steps``, ``repetition``, ``xml_fields``) and a factory that
takes parameters (``make_think_answer(strict=False)``, ``make_regex(pattern)``, ...). The same
scorers are registered under the ``format`` namespace (``format.think_answer``, ...). Importing
this package is light: each name is imported from its module on first use (so the plugin's
registration loads no scorer code).

>>> from grpo_rewards_format import think_answer
>>> think_answer(prompts=["2 + 2?"], completions=["<think>2 + 2 = 4</think><answer>4</answer>"])
[1.0]
>>> think_answer.__name__
'format.think_answer'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from grpo_rewards.lazy import lazy_exports

#: public name -> module that defines it
_EXPORTS = {
    "Boxed": "boxes",
    "ReasoningSteps": "steps",
    "RegexReward": "patterns",
    "Repetition": "repeats",
    "TagCount": "structure",
    "Think": "structure",
    "ThinkAnswer": "structure",
    "XmlFields": "fields",
    "INVALID_VALUE": "definitions",
    "make_think_answer": "definitions",
    "make_think": "definitions",
    "make_tag_count": "definitions",
    "make_boxed": "definitions",
    "make_reasoning_steps": "definitions",
    "make_repetition": "definitions",
    "make_xml_fields": "definitions",
    "make_regex": "definitions",
}
#: the ready-made rewards with default parameters, built once on first use
_BUILT = {
    "think_answer": "definitions:make_think_answer",
    "think": "definitions:make_think",
    "tag_count": "definitions:make_tag_count",
    "boxed": "definitions:make_boxed",
    "reasoning_steps": "definitions:make_reasoning_steps",
    "repetition": "definitions:make_repetition",
    "xml_fields": "definitions:make_xml_fields",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, built=_BUILT, distribution="grpo-rewards-format")

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

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    __version__: str
    from grpo_rewards import Reward

    from .boxes import Boxed
    from .definitions import (
        INVALID_VALUE,
        make_boxed,
        make_reasoning_steps,
        make_regex,
        make_repetition,
        make_tag_count,
        make_think,
        make_think_answer,
        make_xml_fields,
    )
    from .fields import XmlFields
    from .patterns import RegexReward
    from .repeats import Repetition
    from .steps import ReasoningSteps
    from .structure import TagCount, Think, ThinkAnswer

    think_answer: Reward
    think: Reward
    tag_count: Reward
    boxed: Reward
    reasoning_steps: Reward
    repetition: Reward
    xml_fields: Reward
