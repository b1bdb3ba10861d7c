"""``execution:`` of an environment entry: the plan, the manifest, and the stand-in TRL sees (no cluster needed)."""

from __future__ import annotations

import inspect

import pytest

from grpo_rewards import load_registry
from grpo_rewards.environment import EnvironmentFactory, EnvironmentInfo
from grpo_rewards.errors import PluginError
from grpo_rewards.train.environment import plan_environment


@pytest.fixture(scope="module")
def registry():
    return load_registry()


def _trl_tools(environment):
    """The tools as TRL's GRPOTrainer collects them: functions of the class but reset/get_reward/_private."""
    return [getattr(environment, n) for n, _ in inspect.getmembers(type(environment), predicate=inspect.isfunction)
            if n not in ("reset", "get_reward") and not n.startswith("_")]


@pytest.mark.parametrize("name", ["tools.calculator", "tools.sqlite"])
def test_trl_sees_the_same_tools_and_schemas_on_ray_as_locally(registry, name):
    from transformers.utils import get_json_schema

    info = registry.environment(name)
    local, remote = EnvironmentFactory(info)(), EnvironmentFactory(info, execution={"backend": "ray"})()
    assert [get_json_schema(t) for t in _trl_tools(remote)] == [get_json_schema(t) for t in _trl_tools(local)]
    members = {n for n, _ in inspect.getmembers(type(remote), predicate=inspect.isfunction)}
    assert "reset" in members and "get_reward" not in members  # TRL does not score it a second time
    assert type(remote).__name__ == type(local).__name__


def test_an_environment_entry_takes_execution_and_a_timeout_and_the_manifest_records_them(registry):
    plan, problems = plan_environment({"use": "tools.calculator", "execution": {"backend": "ray", "address": "h:6379"},
                                       "timeout": 5}, registry)
    assert problems == [] and plan is not None
    factory = plan.factory
    assert (factory.execution.backend, factory.execution.address, factory.timeout) == ("ray", "h:6379", 5.0)
    assert plan.manifest()[0]["execution"] == {"backend": "ray", "address": "h:6379", "num_cpus_per_task": 1.0}
    assert plan.manifest()[0]["timeout"] == 5.0
    local, _ = plan_environment({"use": "tools.calculator"}, registry)
    assert local is not None and not local.factory.execution.remote and "execution" not in local.manifest()[0]


@pytest.mark.parametrize(("entry", "problem"), [
    ({"execution": {"backend": "spark"}}, "environment.execution.backend must be one of local, ray, got 'spark'"),
    ({"execution": {"backend": "ray"}, "timeout": -1}, "environment.timeout"),
    ({"timeout": 5}, "environment.timeout: a deadline per tool call applies to an environment on Ray"),
    ({"where": 1}, "environment: unknown key(s) where; an environment entry has use:, with:, execution:, timeout:"),
])
def test_a_bad_execution_of_an_environment_is_a_config_problem(registry, entry, problem):
    plan, problems = plan_environment({"use": "tools.calculator", **entry}, registry)
    assert plan is None and len(problems) == 1 and problems[0].startswith(problem)


def test_an_environment_built_by_a_function_cannot_run_on_ray():
    def make():
        return object()

    with pytest.raises(PluginError, match="execution backend ray needs an environment registered as a class"):
        EnvironmentFactory(EnvironmentInfo("demo.made", make), execution={"backend": "ray"})()
