"""Each first-party reward is defined once: its TRL export and its registration come from one definition."""

from __future__ import annotations

import pytest

import grpo_rewards_format
import grpo_rewards_length
import grpo_rewards_math
from grpo_rewards import load_registry
from grpo_rewards.cli.listing import reward_json

REGISTRY = load_registry()

#: every ready-made export of the first-party packages, by the name it is registered under
EXPORTS = {
    **{f"length.{n}": getattr(grpo_rewards_length, n)
       for n in ("target", "soft_overlong", "cosine", "group_relative", "truncated")},
    **{f"format.{n}": getattr(grpo_rewards_format, n)
       for n in ("think_answer", "think", "tag_count", "boxed", "reasoning_steps", "repetition", "xml_fields")},
    "math.accuracy": grpo_rewards_math.accuracy,
    "math.reasoning_accuracy": grpo_rewards_math.reasoning_accuracy,
}


@pytest.mark.parametrize("name", sorted(EXPORTS))
def test_the_export_is_the_registered_reward(name):
    reward, info = EXPORTS[name], REGISTRY.rewards[name]
    assert (reward.__name__, reward.name, reward.form, reward.units) == (name, name, info.form, info.units)
    assert reward.options == info.options
    assert type(reward.scorer) is info.scorer  # the registered class, built with default parameters


def test_every_registered_first_party_reward_but_regex_is_exported():
    first_party = {n for n, i in REGISTRY.rewards.items() if i.plugin in ("length", "format", "math")}
    assert first_party - set(EXPORTS) == {"format.regex"}  # it has no default pattern: make_regex(pattern)


def test_repetition_counts_words_as_registered():
    assert grpo_rewards_format.repetition.units == REGISTRY.rewards["format.repetition"].units == "words"


def test_a_reward_registered_by_reference_is_described_the_same_before_and_after_it_loads():
    registry = load_registry()
    info = registry.rewards["math.accuracy"]
    assert info.reference == "grpo_rewards_math.rewards:Accuracy" and not info.loaded
    before = reward_json(info)
    assert info.scorer is grpo_rewards_math.Accuracy and info.loaded
    assert reward_json(info) == before
