"""The runnable examples in the docstrings of the math package pass."""

from __future__ import annotations

import doctest

import pytest

import grpo_rewards_math.extract
import grpo_rewards_math.rewards
import grpo_rewards_math.tasks


@pytest.mark.parametrize("module", [grpo_rewards_math.extract, grpo_rewards_math.rewards, grpo_rewards_math.tasks])
def test_docstring_examples_pass(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0


def test_every_reward_docstring_states_its_unit_and_rule_with_an_example():
    for cls in (grpo_rewards_math.Accuracy, grpo_rewards_math.ReasoningAccuracy):
        doc = cls.__doc__ or ""
        assert "unit" in doc.lower() and "Exact rule" in doc and ">>>" in doc
