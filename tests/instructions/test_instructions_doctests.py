"""The examples in the docstrings of grpo_rewards_instructions run and give what they show."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["__init__", "constraints", "rewards", "hacks", "ifeval", "ifevalg", "scans", "tasks", "text", "language",
           "ifbench", "ifbench_common", "ifbench_count", "ifbench_custom", "ifbench_format"]


@pytest.mark.parametrize("module", MODULES)
def test_docstring_examples_pass(module):
    name = "grpo_rewards_instructions" if module == "__init__" else f"grpo_rewards_instructions.{module}"
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert (result.failed, result.attempted > 0) == (0, True)


def test_every_reward_class_has_an_example():
    import grpo_rewards_instructions as ins

    for cls in (ins.Followed, ins.AllFollowed):
        assert ">>> " in (cls.__doc__ or ""), cls.__name__
