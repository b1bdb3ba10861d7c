"""The math plugin: discovery of its rewards and tasks, validation through reward sets, light import."""

from __future__ import annotations

import subprocess
import sys

import pytest

from grpo_rewards import RewardSetError, get_reward, load_registry, load_reward_set


@pytest.fixture(scope="module")
def registry():
    return load_registry()


def test_rewards_are_registered_with_their_parameters(registry):
    info = registry.reward("math.accuracy")
    assert info.form == "sample"
    assert info.output_range == (0.0, 1.0)
    assert set(info.params) == {"solution_column", "rel_tol", "fallback_last_number", "precision", "answer_format",
                                "answer_position", "abs_tol", "trailing_units", "log_base"}
    assert (info.options.timeout, info.options.timeout_value) == (1.0, 0.0)  # the core's deadline, in its workers
    assert set(registry.reward("math.reasoning_accuracy").params) >= {"delimiter", "solution_column"}


def test_tasks_are_registered_with_default_rewards(registry):
    for name in ("math:arithmetic", "math:fractions", "math:linear"):
        task = registry.task(name)
        assert task.columns == ("prompt", "solution")
        assert task.default_rewards == [  # strict, as the prompts ask for a box (and as the embedded default)
            {"use": "math.accuracy", "weight": 1.0, "with": {"answer_format": "boxed"}},
            {"use": "format.boxed", "weight": 0.2},
        ]
    rows = registry.task("math:arithmetic").factory(3, 0)
    assert rows[0] == {"prompt": "What is 18 + 1? Put the final answer in \\boxed{}.", "solution": "19"}


def test_a_reward_set_without_the_gold_column_is_told_to_set_solution_column(registry):
    with pytest.raises(RewardSetError) as info:
        load_reward_set({"rewards": [{"use": "math.accuracy"}]}, registry=registry, columns=["prompt", "answer"])
    assert info.value.problems == [
        "entry 1 (math.accuracy): needs dataset column(s) 'solution'; the dataset has: answer, prompt. To read "
        "another column, set solution_column (with: {solution_column: NAME} in a reward set, solution_column=NAME "
        "in Python)"]


def test_reward_set_checks_the_gold_column_exists(registry):
    with pytest.raises(RewardSetError, match="needs dataset column\\(s\\) 'answer'"):
        load_reward_set({"rewards": [{"use": "math.accuracy", "with": {"solution_column": "answer"}}]},
                        registry=registry, columns=["prompt", "solution"])


def test_reward_set_rejects_bad_parameter_values(registry):
    with pytest.raises(RewardSetError, match="rel_tol must be a number in"):
        load_reward_set({"rewards": [{"use": "math.accuracy", "with": {"rel_tol": -1.0}}]}, registry=registry)
    with pytest.raises(RewardSetError, match=r"entry 1 \(math.accuracy\): timeout must be a positive number"):
        load_reward_set({"rewards": [{"use": "math.accuracy", "timeout": -1.0}]}, registry=registry)


def test_an_entrys_timeout_reaches_the_symbolic_check(registry):
    rs = load_reward_set({"rewards": [{"use": "math.accuracy", "timeout": 5.0, "workers": 1}]}, registry=registry)
    assert (rs.rewards[0].options.timeout, rs.rewards[0].options.workers) == (5.0, 1)


def test_discovered_reward_scores_like_the_importable_one(registry):
    reward = get_reward("math.accuracy", registry=registry, rel_tol=1e-3)
    assert reward(prompts=["q", "q"], completions=[r"\boxed{0.3333}", r"\boxed{0.4}"], solution=["1/3"] * 2) == [1.0, 0.0]


def test_importing_the_plugin_does_not_import_sympy():
    code = "import sys, grpo_rewards_math.plugin; sys.exit('sympy' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def test_a_dataset_column_named_like_a_parameter_of_math_accuracy_is_reported(registry):
    with pytest.warns(UserWarning) as caught:
        load_reward_set({"rewards": [{"use": "math.accuracy"}]}, registry=registry,
                        columns=["prompt", "solution", "rel_tol"])
    assert [str(w.message) for w in caught] == [
        "reward set: entry 1 (math.accuracy): dataset column(s) 'rel_tol' have the name of a parameter of "
        "math.accuracy; this reward uses the parameter's value, not the column (rename the column if it should "
        "read it)"]
