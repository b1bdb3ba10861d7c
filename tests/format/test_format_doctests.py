"""The examples in the docstrings of grpo_rewards_format run and give what they show."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["__init__", "boxes", "definitions", "fields", "hacks", "patterns", "repeats", "steps", "structure", "text_utils"]


@pytest.mark.parametrize("module", MODULES)
def test_docstring_examples_pass(module):
    name = "grpo_rewards_format" if module == "__init__" else f"grpo_rewards_format.{module}"
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert (result.failed, result.attempted > 0) == (0, True)


def test_every_reward_class_has_an_example():
    import grpo_rewards_format as fmt

    for cls in (fmt.ThinkAnswer, fmt.Think, fmt.TagCount, fmt.Boxed, fmt.RegexReward, fmt.ReasoningSteps,
                fmt.Repetition, fmt.XmlFields):
        assert ">>> " in (cls.__doc__ or ""), cls.__name__
