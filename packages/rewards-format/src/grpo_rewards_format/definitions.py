"""The format rewards, each defined once: what the plugin registers and what the package exports come from here.

Each scorer is named by reference (``"grpo_rewards_format.boxes:Boxed"``), so registering the
plugin (``grpo-rewards list``) imports none of the scorers; they are imported when a reward is
first built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from grpo_rewards import RewardDefinition

from .hacks import corpus

if TYPE_CHECKING:  # the reward module (and its execution layer) is imported when a reward is built
    from grpo_rewards import Reward

#: Value for a completion with no readable text (``None``, a number, no assistant message).
INVALID_VALUE = 0.0
#: ``format.regex`` reads at most this many characters (longer: 0.0, label ``too_large``) and runs each
#: sample in a worker under this deadline (past it: 0.0, label ``timeout``): the ``regex`` module's own
#: ``timeout=`` does not stop one long linear scan (``\p{L}+\d`` over a million letters runs for seconds).
REGEX_MAX_CHARS = 100_000
REGEX_DEADLINE = 2.0

THINK_ANSWER = RewardDefinition(
    "format.think_answer", "grpo_rewards_format.structure:ThinkAnswer", invalid_value=INVALID_VALUE, hacks=corpus, output_range=(0.0, 1.0),
    example="{use: format.think_answer, with: {strict: true}}")
THINK = RewardDefinition(
    "format.think", "grpo_rewards_format.structure:Think", invalid_value=INVALID_VALUE, hacks=corpus, output_range=(0.0, 1.0),
    example="{use: format.think, with: {opening_in_prompt: false}}")
TAG_COUNT = RewardDefinition(
    "format.tag_count", "grpo_rewards_format.structure:TagCount", invalid_value=INVALID_VALUE, hacks=corpus, output_range=(0.0, 1.0),
    example="{use: format.tag_count, with: {tags: [think, answer]}}")
BOXED = RewardDefinition(
    "format.boxed", "grpo_rewards_format.boxes:Boxed", invalid_value=INVALID_VALUE, hacks=corpus, output_range=(0.0, 1.0),
    example="{use: format.boxed, with: {exactly_one: true, last_chars: 200}}")
REGEX = RewardDefinition(
    "format.regex", "grpo_rewards_format.patterns:RegexReward", invalid_value=INVALID_VALUE, hacks=corpus, max_chars=REGEX_MAX_CHARS,
    too_large_value=0.0, timeout=REGEX_DEADLINE, timeout_value=0.0,
    example="{use: format.regex, with: {pattern: '<answer>.+</answer>\\s*$', flags: [dotall]}}")
REASONING_STEPS = RewardDefinition(
    "format.reasoning_steps", "grpo_rewards_format.steps:ReasoningSteps", invalid_value=INVALID_VALUE, hacks=corpus, output_range=(0.0, 1.0),
    example="{use: format.reasoning_steps, with: {full_credit_steps: 3}}")
REPETITION = RewardDefinition(
    "format.repetition", "grpo_rewards_format.repeats:Repetition", invalid_value=INVALID_VALUE, hacks=corpus, output_range=(-1.0, 0.0),
    units="words", example="{use: format.repetition, with: {ngram_size: 3, max_penalty: -1.0}}")
XML_FIELDS = RewardDefinition(
    "format.xml_fields", "grpo_rewards_format.fields:XmlFields", invalid_value=INVALID_VALUE, hacks=corpus, output_range=(0.0, 1.0),
    example="{use: format.xml_fields, with: {fields: [think, answer]}}")

#: Every format reward, in the order the plugin registers them.
DEFINITIONS = (THINK_ANSWER, THINK, TAG_COUNT, BOXED, REGEX, REASONING_STEPS, REPETITION, XML_FIELDS)


def make_think_answer(*, metric: str | None = None, **params: Any) -> Reward:
    """``format.think_answer`` with parameters (see :class:`~grpo_rewards_format.structure.ThinkAnswer`);
    ``metric`` is the name TRL logs it under."""
    return THINK_ANSWER.reward(metric=metric, **params)


def make_think(*, metric: str | None = None, **params: Any) -> Reward:
    """``format.think`` with parameters (see :class:`~grpo_rewards_format.structure.Think`)."""
    return THINK.reward(metric=metric, **params)


def make_tag_count(*, metric: str | None = None, **params: Any) -> Reward:
    """``format.tag_count`` with parameters (see :class:`~grpo_rewards_format.structure.TagCount`)."""
    return TAG_COUNT.reward(metric=metric, **params)


def make_boxed(*, metric: str | None = None, **params: Any) -> Reward:
    """``format.boxed`` with parameters (see :class:`~grpo_rewards_format.boxes.Boxed`)."""
    return BOXED.reward(metric=metric, **params)


def make_reasoning_steps(*, metric: str | None = None, **params: Any) -> Reward:
    """``format.reasoning_steps`` with parameters (see :class:`~grpo_rewards_format.steps.ReasoningSteps`)."""
    return REASONING_STEPS.reward(metric=metric, **params)


def make_repetition(*, metric: str | None = None, **params: Any) -> Reward:
    """``format.repetition`` with parameters (see :class:`~grpo_rewards_format.repeats.Repetition`)."""
    return REPETITION.reward(metric=metric, **params)


def make_xml_fields(*, metric: str | None = None, **params: Any) -> Reward:
    """``format.xml_fields`` with parameters (see :class:`~grpo_rewards_format.fields.XmlFields`)."""
    return XML_FIELDS.reward(metric=metric, **params)


def make_regex(pattern: str, *, metric: str | None = None, **params: Any) -> Reward:
    """``format.regex`` for ``pattern`` (see :class:`~grpo_rewards_format.patterns.RegexReward`); there is no default pattern.

    >>> make_regex(r"\\\\boxed\\{\\d+\\}")(prompts=[None], completions=[r"so \\boxed{4}"])
    [1.0]
    """
    return REGEX.reward(metric=metric, pattern=pattern, **params)
