"""The runnable examples in the docstrings of the math package pass."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import grpo_rewards_math

MODULES = sorted(m.name for m in pkgutil.walk_packages(grpo_rewards_math.__path__, "grpo_rewards_math."))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_pass(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_the_extraction_and_reward_modules_have_examples():
    for name in ("grpo_rewards_math.extract", "grpo_rewards_math.extract.prose", "grpo_rewards_math.correctness",
                 "grpo_rewards_math.tasks"):
        assert doctest.testmod(importlib.import_module(name)).attempted > 0


def test_every_reward_docstring_states_its_unit_and_rule_with_an_example():
    for cls in (grpo_rewards_math.Accuracy, grpo_rewards_math.ReasoningAccuracy):
        doc = cls.__doc__ or ""
        assert "unit" in doc.lower() and "Exact rule" in doc and ">>>" in doc
