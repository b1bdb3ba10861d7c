"""Each first-party reward is defined once: its TRL export and its registration come from one definition."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import grpo_rewards
import grpo_rewards_code
import grpo_rewards_format
import grpo_rewards_gym
import grpo_rewards_instructions
import grpo_rewards_judge
import grpo_rewards_length
import grpo_rewards_math
import grpo_rewards_tools
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
    "code.tests_passed": grpo_rewards_code.tests_passed,
    "code.all_passed": grpo_rewards_code.all_passed,
    "code.sql_match": grpo_rewards_code.sql_match,
    "gym.accuracy": grpo_rewards_gym.accuracy,
    "tools.call_match": grpo_rewards_tools.call_match,
    "tools.schema_valid": grpo_rewards_tools.schema_valid,
    "instructions.followed": grpo_rewards_instructions.followed,
    "instructions.all_followed": grpo_rewards_instructions.all_followed,
}
FIRST_PARTY = ("length", "format", "math", "code", "gym", "judge", "tools", "instructions")
PACKAGES = (grpo_rewards, grpo_rewards_length, grpo_rewards_format, grpo_rewards_math, grpo_rewards_code,
            grpo_rewards_gym, grpo_rewards_judge, grpo_rewards_tools, grpo_rewards_instructions)


@pytest.mark.parametrize("name", sorted(EXPORTS))
def test_the_export_is_the_registered_reward(name):
    reward, info = EXPORTS[name], REGISTRY.rewards[name]
    assert (reward.__name__, reward.name, reward.form, reward.units) == (name, name, info.form, info.units)
    assert reward.options == info.options
    assert type(reward.scorer) is info.scorer  # the registered class, built with default parameters


def test_every_registered_first_party_reward_but_regex_is_exported():
    first_party = {n for n, i in REGISTRY.rewards.items() if i.plugin in FIRST_PARTY}
    # format.regex has no default pattern (make_regex(pattern)); the judges need their server or model
    assert first_party - set(EXPORTS) == {"format.regex", "judge.rubric", "judge.pairwise", "judge.reward_model"}


def test_repetition_counts_words_as_registered():
    assert grpo_rewards_format.repetition.units == REGISTRY.rewards["format.repetition"].units == "words"


@pytest.mark.parametrize("name", sorted(n for n, i in REGISTRY.rewards.items() if i.plugin in FIRST_PARTY))
def test_a_reward_registered_by_reference_is_described_the_same_before_and_after_it_loads(name):
    """``list --json`` and ``show`` read a scorer's parameters from its source until it is imported
    (constants its defaults name, ``Literal`` choices, a base class's ``__init__``): the same text either way."""
    registry = load_registry()
    info = registry.rewards[name]
    assert info.reference is not None and not info.loaded
    before = reward_json(info)
    module, _, attribute = info.reference.partition(":")
    assert info.scorer is getattr(importlib.import_module(module), attribute) and info.loaded
    assert reward_json(info) == before


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.__name__)
def test_a_public_name_still_means_the_same_once_every_submodule_is_imported(package):
    """A package's names are imported on first use, and importing a submodule first sets an attribute
    of the same name on the package: no public name may also be a submodule's (``grpo_rewards_length``
    had ``target``, ``cosine`` and ``truncated``). In a fresh interpreter, every submodule first."""
    code = f"""
import importlib, pkgutil, types
package = importlib.import_module({package.__name__!r})
for found in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
    if not found.name.startswith(("grpo_rewards.train", "grpo_rewards.cli.__main__")):
        importlib.import_module(found.name)
names = sorted({{*getattr(package, "__all__", ()), *getattr(package, "_EXPORTS", ()), *getattr(package, "_BUILT", ())}})
print([n for n in names if isinstance(getattr(package, n), types.ModuleType)])
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines()[-1] == "[]"
