"""The length plugin: registration, reward sets (inputs from another reward), set-up errors."""

import subprocess
import sys

import pytest

import grpo_rewards
import grpo_rewards_length.plugin
from grpo_rewards import RewardSetError, load_registry, load_reward_set

NAMES = ["length.cosine", "length.group_relative", "length.soft_overlong", "length.target", "length.truncated"]


class FakeAccuracy:
    """Batch reward: 1.0 for "right", 0.0 for "wrong", None otherwise; records each call."""

    calls: list[int] = []  # noqa: RUF012

    def __call__(self, prompts, completions, completion_ids=None, **kwargs):
        FakeAccuracy.calls.append(len(completions))
        return [{"right": 1.0, "wrong": 0.0}.get(c) for c in completions]


class FakeMathPlugin:
    @grpo_rewards.hookimpl
    def register_rewards(self, register):
        register("accuracy", FakeAccuracy, form="batch")


@pytest.fixture
def registry():
    plugins = grpo_rewards.get_plugins(load_entry_points=False)
    plugins.add(FakeMathPlugin(), "fake")
    plugins.add(grpo_rewards_length.plugin, "length")
    FakeAccuracy.calls = []
    return load_registry(plugins)


def test_the_plugin_registers_five_rewards_with_units(registry):
    length = {name: info for name, info in registry.rewards.items() if name.startswith("length.")}
    assert sorted(length) == NAMES
    assert {name: info.units for name, info in length.items()} == {
        "length.cosine": "tokens", "length.group_relative": "tokens", "length.soft_overlong": "tokens",
        "length.target": "chars", "length.truncated": "tokens"}
    assert length["length.group_relative"].form == "batch"
    assert length["length.soft_overlong"].params["buffer"].default == 128


def test_the_entry_point_makes_the_rewards_discoverable():
    registry = load_registry()
    assert set(NAMES) <= set(registry.rewards)
    assert registry.rewards["length.target"].distribution == "grpo-rewards-length"


def test_cosine_takes_correctness_from_another_entry_computed_once_per_batch(registry):
    rs = load_reward_set({"rewards": [
        {"use": "fake.accuracy"},
        {"use": "length.cosine", "weight": 0.5, "with": {"max_length": 100}, "inputs": {"correct": "fake.accuracy"}},
    ]}, registry=registry, columns=["prompt"])
    completions = ["right", "wrong", "unsure"]
    kwargs = {"prompts": ["p"] * 3, "completions": completions, "completion_ids": [[1] * 50] * 3}
    values = [func(**kwargs) for func in rs.reward_funcs]
    assert values == [[1.0, 0.0, None], [0.75, -0.75, None]]
    assert FakeAccuracy.calls == [3]


def test_cosine_listed_before_its_input_still_runs_the_input_once(registry):
    rs = load_reward_set({"rewards": [
        {"use": "length.cosine", "with": {"max_length": 100}, "inputs": {"correct": "fake.accuracy"}},
        {"use": "fake.accuracy"},
    ]}, registry=registry)
    kwargs = {"prompts": ["p"] * 2, "completions": ["right", "wrong"], "completion_ids": [[1] * 100] * 2}
    assert [func(**kwargs) for func in rs.reward_funcs] == [[0.5, -0.5], [1.0, 0.0]]
    # a new batch (a new completions list) is computed again, once
    kwargs["completions"] = ["wrong", "right"]
    assert [func(**kwargs) for func in rs.reward_funcs] == [[-0.5, 0.5], [0.0, 1.0]]
    assert FakeAccuracy.calls == [2, 2]


def test_group_relative_takes_correctness_from_another_entry(registry):
    rs = load_reward_set({"rewards": [
        {"use": "fake.accuracy"},
        {"use": "length.group_relative", "with": {"unit": "chars"}, "inputs": {"correct": "fake.accuracy"}},
    ]}, registry=registry)
    kwargs = {"prompts": ["p"] * 3, "completions": ["right", "wrong", "unsure!!!"]}
    assert [func(**kwargs) for func in rs.reward_funcs] == [[1.0, 0.0, None], [0.5, 0.0, None]]
    assert FakeAccuracy.calls == [3]


def test_cosine_without_inputs_needs_a_correct_column_in_the_dataset(registry):
    with pytest.raises(RewardSetError, match="needs dataset column\\(s\\) 'correct'"):
        load_reward_set([{"use": "length.cosine"}], registry=registry, columns=["prompt", "solution"])
    rs = load_reward_set([{"use": "length.cosine"}], registry=registry, columns=["prompt", "correct"])
    assert rs.metrics == ["length.cosine"]


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"use": "length.soft_overlong", "with": {"max_length": 100, "buffer": 100}},
         r"ValueError: max_length \(100\) must be greater than buffer \(100\)"),
        ({"use": "length.target", "with": {"target": -5}}, "ValueError: target must be an integer >= 0"),
        ({"use": "length.target", "with": {"unit": "bytes"}}, "parameter 'unit' must be"),
        ({"use": "length.cosine", "with": {"max_length": "long"}}, "parameter 'max_length' must be int"),
        ({"use": "length.truncated", "with": {"max_length": None}},
         "needs max_length, eos_token_ids or both"),
        ({"use": "length.group_relative", "with": {"window": 3}}, "unknown parameter 'window'"),
    ],
)
def test_bad_parameters_are_reward_set_errors_before_anything_runs(registry, entry, message):
    with pytest.raises(RewardSetError, match=message):
        load_reward_set([entry], registry=registry)


def test_yaml_parameters_reach_the_reward(registry, tmp_path):
    path = tmp_path / "set.yaml"
    path.write_text("rewards:\n  - use: length.truncated\n    with: {max_length: 3, eos_token_ids: [2]}\n")
    reward = load_reward_set(str(path), registry=registry).rewards[0]
    assert reward(prompts=["p"] * 2, completions=["x", "y"], completion_ids=[[1, 1, 1], [1, 1, 2]]) == [-1.0, 0.0]


def test_importing_the_plugin_loads_no_heavy_library():
    code = ("import sys, grpo_rewards_length.plugin, grpo_rewards_length; "
            "print(sorted(m for m in ('torch', 'sympy', 'trl', 'transformers', 'numpy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_cosine_with_the_installed_math_accuracy_in_a_reward_set():
    pytest.importorskip("grpo_rewards_math")
    rs = load_reward_set({"rewards": [
        {"use": "math.accuracy"},
        {"use": "length.cosine", "with": {"max_length": 100}, "inputs": {"correct": "math.accuracy"}},
    ]}, columns=["prompt", "solution"])
    kwargs = {"prompts": ["What is 2+2?"] * 2, "completions": ["The answer is \\boxed{4}.", "It is \\boxed{5}."],
              "completion_ids": [[1] * 50, [1] * 50], "solution": ["4", "4"]}
    assert [func(**kwargs) for func in rs.reward_funcs] == [[1.0, 0.0], [0.75, -0.75]]
