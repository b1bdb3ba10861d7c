"""The format rewards, each defined once: what the plugin registers and what the package exports come from here."""

from __future__ import annotations

from grpo_rewards import RewardDefinition

from .boxes import Boxed
from .fields import XmlFields
from .hacks import corpus
from .patterns import RegexReward
from .repeats import Repetition
from .steps import ReasoningSteps
from .structure import TagCount, Think, ThinkAnswer

#: Value for a completion with no readable text (``None``, a number, no assistant message).
INVALID_VALUE = 0.0

THINK_ANSWER = RewardDefinition(
    "format.think_answer", ThinkAnswer, invalid_value=INVALID_VALUE, hacks=corpus, output_range=(0.0, 1.0),
    example="{use: format.think_answer, with: {strict: true}}")
THINK = RewardDefinition(
    "format.think", Think, invalid_value=INVALID_VALUE, hacks=corpus, output_range=(0.0, 1.0),
    example="{use: format.think, with: {opening_in_prompt: false}}")
TAG_COUNT = RewardDefinition(
    "format.tag_count", TagCount, invalid_value=INVALID_VALUE, hacks=corpus, output_range=(0.0, 1.0),
    example="{use: format.tag_count, with: {tags: [think, answer]}}")
BOXED = RewardDefinition(
    "format.boxed", Boxed, invalid_value=INVALID_VALUE, hacks=corpus, output_range=(0.0, 1.0),
    example="{use: format.boxed, with: {exactly_one: true, last_chars: 200}}")
REGEX = RewardDefinition(
    "format.regex", RegexReward, invalid_value=INVALID_VALUE, hacks=corpus,
    example="{use: format.regex, with: {pattern: '<answer>.+</answer>\\s*$', flags: [dotall]}}")
REASONING_STEPS = RewardDefinition(
    "format.reasoning_steps", ReasoningSteps, invalid_value=INVALID_VALUE, hacks=corpus, output_range=(0.0, 1.0),
    example="{use: format.reasoning_steps, with: {full_credit_steps: 3}}")
REPETITION = RewardDefinition(
    "format.repetition", Repetition, invalid_value=INVALID_VALUE, hacks=corpus, output_range=(-1.0, 0.0),
    units="words", example="{use: format.repetition, with: {ngram_size: 3, max_penalty: -1.0}}")
XML_FIELDS = RewardDefinition(
    "format.xml_fields", XmlFields, invalid_value=INVALID_VALUE, hacks=corpus, output_range=(0.0, 1.0),
    example="{use: format.xml_fields, with: {fields: [think, answer]}}")

#: Every format reward, in the order the plugin registers them.
DEFINITIONS = (THINK_ANSWER, THINK, TAG_COUNT, BOXED, REGEX, REASONING_STEPS, REPETITION, XML_FIELDS)
