"""RewardDefinition: one definition gives the plugin's registration and the TRL export alike."""

from __future__ import annotations

import pickle

import pytest

import grpo_rewards
from grpo_rewards import RewardDefinition, RewardOptions
from grpo_rewards.testing import plugin_registered


def shout(text: str, *, min_ratio: float = 0.5, **row) -> float:
    """1.0 when at least min_ratio of the letters are upper case."""
    letters = [c for c in text if c.isalpha()]
    return float(bool(letters) and sum(c.isupper() for c in letters) / len(letters) >= min_ratio)


class Longest:
    """Batch form with a parameter: 1.0 for the longest completion of the call, else ``other``."""

    def __init__(self, other: float = 0.0) -> None:
        if other > 1.0:
            raise ValueError(f"other must be at most 1.0, got {other}")
        self.other = other

    def __call__(self, prompts, completions, completion_ids=None, **kwargs):
        longest = max(len(c) for c in completions)
        return [1.0 if len(c) == longest else self.other for c in completions]


SHOUT = RewardDefinition("shout.shout", shout, output_range=(0.0, 1.0), units="chars", timeout=3.0, max_chars=50)
LONGEST = RewardDefinition("shout.longest", Longest, form="batch", output_range=(0.0, 1.0))


class ShoutPlugin:
    @grpo_rewards.hookimpl
    def register_rewards(self, register):
        SHOUT.register(register)
        LONGEST.register(register)


def test_the_export_carries_the_registered_options_and_metadata():
    reward = SHOUT.reward()
    assert reward.__name__ == "shout.shout"
    assert reward.options.timeout == 3.0 and reward.options.max_chars == 50
    assert reward.units == "chars"
    assert reward(prompts=["p"] * 3, completions=["HI", "hi", "H" * 51]) == [1.0, 0.0, None]  # too long: not parsed


def test_the_registration_and_the_export_agree():
    with plugin_registered(ShoutPlugin(), "shout") as registry:
        info = registry.rewards["shout.shout"]
        assert info.output_range == (0.0, 1.0) and info.units == "chars"
        assert info.options == SHOUT.reward().options
        from grpo_rewards import get_reward

        by_name = get_reward("shout.shout", min_ratio=0.9)
    exported = SHOUT.reward(min_ratio=0.9)
    completions = ["HI there", "HELLO", "a"]
    assert by_name(prompts=["p"] * 3, completions=completions) == exported(prompts=["p"] * 3,
                                                                         completions=completions) == [0.0, 1.0, 0.0]


def test_a_batch_reward_with_parameters_is_a_class():
    reward = LONGEST.reward(other=0.25)
    assert reward(prompts=["p"] * 3, completions=["a", "abc", "ab"]) == [0.25, 1.0, 0.25]
    assert pickle.loads(pickle.dumps(reward))(prompts=["p"], completions=["x"]) == [1.0]


def test_bad_parameters_of_an_export_are_one_clear_error():
    with pytest.raises(ValueError, match=r"^shout\.shout: unknown parameter 'ratio' \(did you mean 'min_ratio'\?\) \(parameters: min_ratio\)$"):
        SHOUT.reward(ratio=0.1)
    with pytest.raises(ValueError, match=r"other must be at most 1\.0, got 2\.0"):
        LONGEST.reward(other=2.0)


def test_a_definition_needs_a_namespaced_name():
    with pytest.raises(ValueError, match=r"name must be 'namespace\.reward'"):
        RewardDefinition("shout", shout)
    assert RewardDefinition("a.b", shout, options=RewardOptions(workers=2)).options.workers == 2


def test_the_kit_gives_the_fixtures_the_guide_names(tmp_path):
    """`pytest_plugins = ["grpo_rewards.testing"]` gives `assert_reward_contract` (the guide's name)
    and `reward_contract` (kept as an alias) as fixtures, and the function is importable too."""
    import subprocess
    import sys

    (tmp_path / "conftest.py").write_text('pytest_plugins = ["grpo_rewards.testing"]\n')
    (tmp_path / "test_guide_names.py").write_text(
        "from grpo_rewards.testing import assert_reward_contract as imported\n\n"
        "def zero_everywhere(prompts, completions, completion_ids=None, **kwargs):\n"
        "    return [0.0 for _ in completions]\n\n"
        "def test_names(assert_reward_contract, reward_contract, registered_plugin, make_completions):\n"
        "    assert assert_reward_contract is reward_contract is imported\n"
        "    assert_reward_contract(zero_everywhere, pathological=False)\n")
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "2 passed" in run.stdout  # make_completions runs the test once per completion format
