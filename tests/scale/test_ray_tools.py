"""Environments whose tool calls run on a real local Ray cluster (2 CPUs), inside a private network namespace.

The tools of an environment on Ray give the outputs and rewards they give locally, from another
process (one actor per environment instance, its state kept across a rollout's calls); a call
past its deadline kills the actor and is a tool error, and the rollout's later calls are errors
until the next reset.
"""

from __future__ import annotations

import os
import time

import pytest
from scale_netns import alive

from grpo_rewards import load_registry
from grpo_rewards.env_reward import EnvironmentReward, _reward_of, run_tool
from grpo_rewards.environment import EnvironmentFactory, EnvironmentInfo

RAY = {"backend": "ray"}
TALLY = EnvironmentInfo("test.tally", "scale_environments:Tally")


@pytest.fixture(scope="module")
def registry():
    return load_registry()


def _pid(environment) -> int:
    return environment._grpo_remote_pid()


def test_calculator_on_ray_gives_the_local_outputs_from_another_process(ray_start, registry):
    info = registry.environment("tools.calculator")
    local, remote = EnvironmentFactory(info)(), EnvironmentFactory(info, execution=RAY)()
    assert type(remote).__name__ == type(local).__name__ == "Calculator"
    calls = [("calculate", {"expression": "123456 * 789"}), ("calculate", {"expression": "1/3 + 1/6"}),
             ("calculate", {"expression": "2 **"}), ("calculate", {"expression": "1/0"}),
             ("calculate", {}), ("missing", {"x": 1})]
    local.reset(prompt="p")
    remote.reset(prompt="p")
    outputs = [run_tool(remote, name, args) for name, args in calls]
    assert outputs == [run_tool(local, name, args) for name, args in calls]
    assert outputs[:2] == ["97406784", "1/2"]
    pid = _pid(remote)
    assert pid != os.getpid() and alive(pid)


def test_sqlite_on_ray_gives_the_local_results_and_reward(ray_start, registry):
    info = registry.environment("tools.sqlite")
    row = {"database": "CREATE TABLE t(x INTEGER, y TEXT); INSERT INTO t VALUES (1, 'a'), (1, 'b'), (3, 'c');",
           "gold": "[[2]]"}
    queries = ["SELECT x, y FROM t WHERE x = 1 ORDER BY y", "DELETE FROM t", "SELECT COUNT(*) FROM t WHERE x = 1"]
    results = []
    for execution in (None, RAY):
        environment = EnvironmentFactory(info, execution=execution)()
        environment.reset(**row)
        results.append(([run_tool(environment, "query", {"sql": q}) for q in queries], _reward_of(environment)))
    assert results[1] == results[0]
    assert results[1][0][:2] == ['columns: ["x", "y"]\n[1, "a"]\n[1, "b"]', "error: not authorized"]
    assert results[1][1] == (1.0, "correct")


def test_each_instance_keeps_its_state_in_an_actor_of_its_own(ray_start):
    factory = EnvironmentFactory(TALLY, {"start": 10}, execution=RAY)
    first, second = factory(), factory()
    assert first.reset(offset=1) == "total 11" and second.reset() == "total 10"
    assert [first.add(2), second.add(5), first.add(3)] == ["13", "15", "16"]
    pids = {first.pid(), second.pid(), os.getpid()}
    assert len(pids) == 3
    # the core's reward of the environment (TRL's environments=), with the environment's own outcome labels
    result = EnvironmentReward(TALLY)(["p", "p"], ["a", "b"], environments=[first, second])
    assert (result.values, result.labels) == ([16.0, 15.0], ["even", "odd"])
    # a new rollout on the same instance: the same actor, its state reset
    pid = first.pid()
    assert first.reset() == "total 10" and first.add(1) == "11" and first.pid() == pid


def test_an_environment_error_is_the_local_tool_error(ray_start):
    local, remote = EnvironmentFactory(TALLY)(), EnvironmentFactory(TALLY, execution=RAY)()
    local.reset()
    remote.reset()
    assert run_tool(remote, "fail", {}) == run_tool(local, "fail", {}) == {"error": "no such thing"}
    assert run_tool(remote, "add", {"k": 4}) == "4"  # the actor lives on after its environment's error


def test_a_call_past_its_deadline_kills_the_actor_and_loses_the_rollout(ray_start):
    environment = EnvironmentFactory(TALLY, execution=RAY, timeout=3)()
    environment.reset()
    assert environment.add(2) == "2"
    pid = environment.pid()
    assert run_tool(environment, "wait", {"seconds": 600}) == {
        "error": "environment on Ray: tool wait exceeded its 3 s deadline; the environment's actor was killed and "
                 "this rollout's state is lost"}
    until = time.monotonic() + 120
    while alive(pid) and time.monotonic() < until:
        time.sleep(0.2)
    assert not alive(pid)
    assert run_tool(environment, "add", {"k": 1}) == {
        "error": "environment on Ray: tool wait exceeded its 3 s deadline; the environment's actor was killed and "
                 "this rollout's state is lost; tool add did not run"}
    with pytest.raises(RuntimeError, match="state is lost; get_reward did not run"):
        _reward_of(environment)
    assert environment.reset(offset=1) == "total 1" and environment.add(1) == "2"
    assert environment.pid() not in (pid, os.getpid())
