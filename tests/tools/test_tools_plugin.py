"""The tools plugin: registration, discovery, reward sets, importable callables, pickling, docstrings."""

from __future__ import annotations

import doctest
import importlib
import pickle
import subprocess
import sys

import pytest

import grpo_rewards
import grpo_rewards_tools as tools

NAMES = ["tools.call_match", "tools.schema_valid"]
MODULES = ["__init__", "arguments", "calls", "definitions", "hacks", "matching", "prepare", "rewards", "rows", "schemas",
           "validation"]


@pytest.fixture(scope="module")
def registry():
    return grpo_rewards.load_registry()


def test_the_plugin_registers_every_tools_reward_from_its_distribution(registry):
    assert sorted(n for n in registry.rewards if n.startswith("tools.")) == NAMES
    assert {registry.reward(n).distribution for n in NAMES} == {"grpo-rewards-tools"}


def test_registered_parameters_come_from_the_signatures(registry):
    assert {n: p.default for n, p in registry.reward("tools.call_match").params.items()} == {
        "mode": "f1", "tolerance": 1e-6, "numeric_strings": True, "strings": "whitespace", "max_calls": 64}
    assert {n: p.default for n, p in registry.reward("tools.schema_valid").params.items()} == {
        "mode": "all", "allow_extra_arguments": False}


def test_every_importable_reward_is_named_after_its_registered_reward():
    assert [tools.call_match.__name__, tools.schema_valid.__name__] == NAMES


def test_a_reward_set_with_bad_parameters_reports_every_problem():
    with pytest.raises(grpo_rewards.RewardSetError) as info:
        grpo_rewards.load_reward_set({"rewards": [
            {"use": "tools.call_match", "with": {"mode": "loose"}},
            {"use": "tools.call_match", "as": "cm2", "with": {"strings": "upper"}},
            {"use": "tools.schema_valid", "with": {"mode": "some"}}]})
    assert len(info.value.problems) == 3


def test_rewards_survive_a_pickle_round_trip_and_still_score():
    reward = pickle.loads(pickle.dumps(tools.make_call_match(mode="exact", metric="exact_calls")))
    assert reward.__name__ == "exact_calls"
    assert reward(prompts=[None, None], completions=["add(a=1)", "add(a=2)"],
                  gold_calls=[[{"name": "add", "arguments": {"a": 1}}]] * 2) == [1.0, 0.0]


def test_importing_the_package_and_registering_loads_no_scorer_code():
    code = ("import sys, grpo_rewards; grpo_rewards.load_registry(); import grpo_rewards_tools; "
            "print(sorted(m for m in sys.modules if m.startswith('grpo_rewards_tools') or m == 'jsonschema'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['grpo_rewards_tools', 'grpo_rewards_tools.definitions', 'grpo_rewards_tools.environments', " \
                          "'grpo_rewards_tools.environments.hacks', 'grpo_rewards_tools.environments.registration', " \
                          "'grpo_rewards_tools.environments.tasks', 'grpo_rewards_tools.hacks', " \
                          "'grpo_rewards_tools.plugin']"  # the environments' corpus and task factories: data, no env code


@pytest.mark.parametrize("module", MODULES)
def test_docstring_examples_pass(module):
    name = "grpo_rewards_tools" if module == "__init__" else f"grpo_rewards_tools.{module}"
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert (result.failed, result.attempted > 0) == (0, True)


def test_every_reward_class_has_an_example():
    for cls in (tools.CallMatch, tools.SchemaValid):
        assert ">>> " in (cls.__doc__ or ""), cls.__name__


def test_training_refuses_rows_the_rewards_cannot_read_naming_reward_and_row():
    from grpo_rewards.train.runner import _scorer_notes

    reward_set = grpo_rewards.load_reward_set({"rewards": [{"use": "tools.call_match"}, {"use": "tools.schema_valid"}]})
    tool = {"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {}}}}
    rows = [{"tools": [tool], "gold_calls": [{"name": "f", "arguments": {}}]}, {"tools": [tool], "gold_calls": "{oops"},
            {"gold_calls": []}]
    assert _scorer_notes(reward_set, rows, None) == [  # (row 2, without tools, is not schema_valid's to score)
        "dataset: tools.call_match: row 1: gold_calls is not JSON",
        "dataset: tools.schema_valid: row 1: gold_calls is not JSON"]
