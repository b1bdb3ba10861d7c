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
    with pytest.warns(RuntimeWarning, match="state is lost; get_reward did not run"):
        result = EnvironmentReward(TALLY)(["p"], ["a"], environments=[environment])
    assert (result.values, result.labels) == ([None], ["env_error"])
    assert environment.reset(offset=1) == "total 1" and environment.add(1) == "2"
    assert environment.pid() not in (pid, os.getpid())


#: What the recording reward saw in the TRL step: (whether the environment was on Ray, its actor's pid, its reward).
SEEN: list[tuple[bool, int, float | None]] = []


def saw_environments(prompts, completions, completion_ids=None, *, environments=None, **kwargs):
    """Records each completion's environment as TRL passed it; 0.0 each."""
    from grpo_rewards.environment import call_get_reward
    from grpo_rewards.execution.ray_environment import RemoteEnvironment

    for environment in environments or []:
        SEEN.append((isinstance(environment, RemoteEnvironment), environment.pid(), call_get_reward(environment)))
    return [0.0] * len(completions)


def tally_rows(n: int, seed: int) -> list[dict]:
    return [{"prompt": [{"role": "system", "content": "Use the add tool."},
                        {"role": "user", "content": f"Add up to {i + 2}."}], "offset": i} for i in range(n)]


class TallyPlugin:
    import grpo_rewards as _g

    @_g.hookimpl
    def register_environments(self, register):
        register("tally", "scale_environments:Tally")

    @_g.hookimpl
    def register_rewards(self, register):
        register("saw", saw_environments, form="batch")

    @_g.hookimpl
    def register_tasks(self, register):
        register("rows", tally_rows)


def test_a_trl_step_runs_the_environment_on_ray(ray_start, tiny_model, tmp_path):
    import json

    from grpo_rewards.plugin.manager import get_plugins
    from grpo_rewards.train.runner import prepare, run

    plugins = get_plugins(load_entry_points=False)
    plugins.add(TallyPlugin(), "tally")
    SEEN.clear()
    config = {"model": str(tiny_model), "output_dir": str(tmp_path / "out"), "dataset": {"task": "tally:rows", "n": 4},
              "environment": {"use": "tally.tally", "execution": {"backend": "ray"}, "timeout": 60},
              "rewards": [{"use": "tally.saw", "weight": 0.5}, {"use": "tally.tally"}],
              "grpo": {"max_steps": 1, "per_device_train_batch_size": 4, "num_generations": 4,
                       "max_completion_length": 8, "logging_steps": 1, "save_strategy": "no", "report_to": "none",
                       "disable_tqdm": True, "activation_checkpointing": False}}
    (tmp_path / "run.yaml").write_text(json.dumps(config))
    trainer = run(prepare(tmp_path / "run.yaml", registry=load_registry(plugins)))
    assert trainer.reward_func_names == ["tally.saw", "tally.tally"]  # no "Tally" column of TRL's own
    assert len(SEEN) == 4 and all(remote for remote, _, _ in SEEN)
    assert len({pid for _, pid, _ in SEEN} | {os.getpid()}) == 5  # four actors, none of them this process
    logged = {k: v for entry in trainer.state.log_history for k, v in entry.items()}
    assert logged["rewards/tally.tally/mean"] == pytest.approx(sum(v for _, _, v in SEEN) / 4)
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["environments"][0]["execution"] == {"backend": "ray", "address": "auto", "num_cpus_per_task": 1.0}


def test_a_lost_actor_is_a_tool_error_until_the_next_reset(ray_start):
    import signal

    environment = EnvironmentFactory(TALLY, execution=RAY)()
    environment.reset()
    assert environment.add(3) == "3"
    pid = environment.pid()
    os.kill(pid, signal.SIGKILL)  # as when its node dies
    error = run_tool(environment, "add", {"k": 1})
    assert error["error"].startswith("environment on Ray: the environment's actor was lost (") and error[
        "error"].endswith("); this rollout's state is lost")
    assert run_tool(environment, "add", {"k": 1}) == {"error": f"{error['error']}; tool add did not run"}
    assert environment.reset() == "total 0" and environment.add(1) == "1"
    second = environment.pid()
    assert second not in (pid, os.getpid())
    os.kill(second, signal.SIGKILL)  # lost between two rollouts: the reset starts a new actor
    until = time.monotonic() + 120
    while alive(second) and time.monotonic() < until:
        time.sleep(0.2)
    assert environment.reset(offset=2) == "total 2" and environment.add(1) == "3"
    assert environment.pid() not in (pid, second, os.getpid())


def test_an_environment_that_cannot_be_built_on_the_cluster_starts_no_rollout_and_says_why(ray_start, caplog):
    import logging

    environment = EnvironmentFactory(TALLY, {"bogus": 1}, execution=RAY)()
    with caplog.at_level(logging.WARNING, logger="grpo_rewards.execution.ray_environment"):
        assert environment.reset() is None  # no exception into TRL's step
    why = ("the rollout could not start: the environment cannot be built on the cluster: TypeError: "
           "Tally.__init__() got an unexpected keyword argument 'bogus' (install the environment's package on every "
           "node)")
    assert [r.getMessage() for r in caplog.records] == [
        f"environment on Ray: {why}; its tool calls are errors and its reward None"]
    assert run_tool(environment, "add", {"k": 1}) == {"error": f"environment on Ray: {why}; tool add did not run"}
    with pytest.warns(RuntimeWarning, match="cannot be built on the cluster: TypeError"):
        result = EnvironmentReward(TALLY)(["p"], ["a"], environments=[environment])
    assert (result.values, result.labels) == ([None], ["env_error"])
