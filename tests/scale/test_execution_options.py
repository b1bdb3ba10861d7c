"""``execution:``, per entry and per set: checked with the other options, applied where it can run,
and never importing Ray until a reward runs on it."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
import scale_scorers

from grpo_rewards import Reward, RewardOptions, load_reward_set
from grpo_rewards.backends import Execution
from grpo_rewards.errors import RewardSetError

RAY = {"backend": "ray"}


def test_a_ray_execution_fills_in_the_default_address_and_task_size():
    assert RewardOptions(execution=RAY).execution == Execution("ray", "auto", 1.0)
    assert RewardOptions(execution={"backend": "ray", "address": "ray://head:10001", "num_cpus_per_task": 0.5}) \
        .execution.describe() == "ray (address ray://head:10001, 0.5 CPU per task)"
    assert RewardOptions().execution.describe() == "local"


def test_execution_shows_in_the_changed_options_as_the_file_writes_it():
    assert RewardOptions(timeout=2.0, execution=RAY).changed() == {
        "timeout": 2.0, "execution": {"backend": "ray", "address": "auto", "num_cpus_per_task": 1.0}}


@pytest.mark.parametrize(("execution", "problem"), [
    ({"backend": "spark"}, "execution.backend must be one of local, ray, got 'spark'"),
    ({"backend": "ray", "cpus": 2}, "execution: unknown key(s) cpus (keys: backend, address, num_cpus_per_task)"),
    ({"backend": "ray", "num_cpus_per_task": 0}, "execution.num_cpus_per_task must be a positive number or None, "
                                                 "got 0"),
    ({"address": "auto"}, "execution.address is a Ray setting; it needs backend: ray"),
    ("ray cluster", "execution.backend must be one of local, ray, got 'ray cluster'"),
    (["ray"], "execution must be a mapping such as {backend: ray}, got ['ray']"),
])
def test_a_bad_execution_value_is_one_clear_problem(execution, problem):
    with pytest.raises(RewardSetError) as err:
        load_reward_set([{"use": "length.target", "execution": execution}])
    assert err.value.problems == [f"entry 1 (length.target): {problem}"]


def test_ray_is_refused_for_a_batch_reward_and_with_workers():
    with pytest.raises(RewardSetError) as err:
        load_reward_set([{"use": "length.group_relative", "execution": RAY},
                         {"use": "length.target", "execution": RAY, "workers": 2}])
    assert err.value.problems == [
        "entry 1 (length.group_relative): execution backend ray runs per-sample rewards, and length.group_relative "
        "is a batch reward: use backend: local",
        "entry 2 (length.target): workers counts this machine's worker processes; with execution backend ray the "
        "cluster's CPUs and num_cpus_per_task set the parallelism: remove workers",
    ]


def test_ray_is_refused_for_a_reward_that_is_not_worker_safe():
    with pytest.raises(ValueError, match="registered worker_safe=False"):
        RewardOptions(worker_safe=False, execution=RAY)
    with pytest.raises(ValueError, match="is a batch reward"):
        Reward(scale_scorers.sleepy, metric="b", form="batch", execution=RAY)


def test_a_set_level_execution_applies_to_every_entry_that_can_run_there_and_entries_keep_their_own():
    rs = load_reward_set({
        "execution": {"backend": "ray", "address": "head:6379"},
        "rewards": [{"use": "length.target"},
                    {"use": "length.group_relative"},  # a batch reward: stays local
                    {"use": "format.think", "execution": {"backend": "local"}}],
    })
    assert [r.options.execution.describe() for r in rs.rewards] == [
        "ray (address head:6379, 1 CPU per task)", "local", "local"]
    assert [m["options"].get("execution") for m in rs.manifest()] == [
        {"backend": "ray", "address": "head:6379"}, None, {"backend": "local"}]


def test_a_bad_set_level_execution_or_concurrent_is_reported_with_the_entries_problems():
    with pytest.raises(RewardSetError) as err:
        load_reward_set({"execution": {"backend": "dask"}, "concurrent": "yes",
                         "rewards": [{"use": "length.target", "weight": "x"}]})
    assert err.value.problems == ["execution.backend must be one of local, ray, got 'dask'",
                                  "concurrent must be true or false, got 'yes'",
                                  "entry 1 (length.target): weight must be a number, got 'x'"]


def test_validating_and_building_a_ray_set_does_not_import_ray():
    code = ("import sys; from grpo_rewards import load_reward_set; "
            "rs = load_reward_set({'execution': {'backend': 'ray'}, 'rewards': ['length.target', 'math.accuracy']}); "
            "from grpo_rewards.cli import main; main(['list']); print('ray' in sys.modules)")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    env.pop("GRPO_REWARDS_PLUGINS", None)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.splitlines()[-1] == "False"


def test_without_ray_installed_the_backend_says_how_to_install_it():
    code = ("import sys; sys.modules['ray'] = None\n"
            "from grpo_rewards.execution.ray_backend import RayBackend\n"
            "try:\n    RayBackend().connect()\nexcept Exception as exc:\n    print(type(exc).__name__, exc)")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.startswith("ExecutionError execution backend ray needs Ray, which is not installed here (")
    assert out.stdout.rstrip().endswith("pip install 'grpo-rewards[ray]'")
