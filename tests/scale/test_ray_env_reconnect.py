"""An environment on Ray whose cluster goes away mid-run and comes back (a real one-node cluster on
loopback, inside a private network namespace).

While the head is down, a tool call is a tool error that says the cluster does not answer (at once,
not after the call's deadline), the connection is given up at once (``ray.shutdown()``: Ray would
otherwise end the training process after ``gcs_rpc_server_reconnect_timeout_s`` without its GCS), a
``reset`` starts no rollout (None, its calls errors, its reward None with ``env_error``); once the head
is back on the same port, the next ``reset`` reconnects once and gets a new actor with correct results;
a cluster lost between two rollouts is found by the next ``reset``, which starts no rollout.
"""

from __future__ import annotations

import logging
import os
import time

import pytest
from scale_netns import start_cluster, stop_head

from grpo_rewards.env_reward import EnvironmentReward, run_tool
from grpo_rewards.environment import EnvironmentFactory, EnvironmentInfo

TALLY = EnvironmentInfo("test.tally", "scale_environments:Tally")
BACKEND_LOG = "grpo_rewards.execution.ray_backend"
ENVIRONMENT_LOG = "grpo_rewards.execution.ray_environment"
#: Ray's own limit on a driver without its GCS (60 s by default), made shorter here so that the test
#: outlives it: long enough that stopping the head and the next call's check fit in it on a busy machine
#: (test_ray_head_lost.py lost its driver to Ray on a busy CI run with 10 s).
GCS_RECONNECT_TIMEOUT = 40


@pytest.fixture(autouse=True)
def short_gcs_limit(monkeypatch) -> None:
    """Ray's own limit on a driver without its GCS, made short (before ``cluster`` connects: autouse
    fixtures come first) so that the test outlives it."""
    monkeypatch.setenv("RAY_gcs_rpc_server_reconnect_timeout_s", str(GCS_RECONNECT_TIMEOUT))


def _messages(caplog, logger: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == logger]


def test_a_lost_cluster_is_a_tool_error_and_once_it_is_back_the_next_reset_gets_a_new_actor(cluster, caplog):
    import ray

    from grpo_rewards.execution.ray_backend import get_ray_backend

    port, clusters = cluster
    address = f"127.0.0.1:{port}"
    factory = EnvironmentFactory(TALLY, execution={"backend": "ray", "address": address}, timeout=600)
    environment, idle = factory(), factory()
    assert environment.reset(offset=1) == "total 1" and environment.add(2) == "3"
    assert idle.reset() == "total 0"
    pid = environment.pid()

    stopped = stop_head(clusters[0])  # the head goes down mid-rollout
    with caplog.at_level(logging.WARNING):
        error = run_tool(environment, "add", {"k": 1})  # at once: not after the call's 600 s deadline
    lost = (f"the environment's actor was lost (ActorDiedError); the Ray cluster at {address} does not answer "
            f"(nothing answers at {address} ([Errno 111] Connection refused))")
    assert error == {"error": f"environment on Ray: {lost}; this rollout's state is lost"}
    assert _messages(caplog, BACKEND_LOG) == [
        f"{lost}: giving up the connection now (ray.shutdown()); the next use reconnects once"]
    assert not ray.is_initialized()
    assert run_tool(environment, "add", {"k": 1}) == {
        "error": f"environment on Ray: {lost}; this rollout's state is lost; tool add did not run"}
    # an instance that was between two calls: its actor went with the connection
    assert run_tool(idle, "add", {"k": 1}) == {
        "error": "environment on Ray: the connection to the Ray cluster its actor was on is gone; this rollout's "
                 "state is lost; tool add did not run"}
    with pytest.warns(RuntimeWarning, match="this rollout's state is lost; get_reward did not run"):
        result = EnvironmentReward(TALLY)(["p"], ["a"], environments=[environment])
    assert (result.values, result.labels) == ([None], ["env_error"])

    # a reset while the cluster is down starts no rollout: no hang, no exception into TRL
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        assert idle.reset(offset=4) is None
    failed = (f"lost the connection to the Ray cluster at '{address}' ({lost}) and reconnecting failed: "
              f"ConnectionError: nothing answers at {address} ([Errno 111] Connection refused) (the next batch tries "
              "once more; rewards never fall back to local execution)")
    assert _messages(caplog, ENVIRONMENT_LOG) == [
        f"environment on Ray: the rollout could not start: {failed}; its tool calls are errors and its reward None"]
    assert run_tool(idle, "add", {"k": 1}) == {
        "error": f"environment on Ray: the rollout could not start: {failed}; tool add did not run"}
    with pytest.warns(RuntimeWarning, match="the rollout could not start: lost the connection"):
        result = EnvironmentReward(TALLY)(["p"], ["a"], environments=[idle])
    assert (result.values, result.labels) == ([None], ["env_error"])

    # this process outlives Ray's own limit on a driver without its GCS (it holds no connection)
    time.sleep(max(0.0, stopped + GCS_RECONNECT_TIMEOUT + 10 - time.monotonic()))
    assert not ray.is_initialized()

    clusters.append(start_cluster(port))  # the head is back on the same port
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        assert environment.reset(offset=2) == "total 2" and environment.add(5) == "7"
    assert _messages(caplog, BACKEND_LOG) == [
        f"lost the connection to the Ray cluster at {address} ({lost}); reconnecting once: ray.shutdown(), then "
        f"ray.init(address='{address}')",
        f"reconnected to the Ray cluster at {address}"]
    assert ray.get_runtime_context().gcs_address == address
    assert environment.pid() not in (pid, os.getpid())
    assert idle.reset(offset=3) == "total 3" and idle.add(2) == "5"
    assert environment.pid() != idle.pid()
    result = EnvironmentReward(TALLY)(["p", "p"], ["a", "b"], environments=[environment, idle])
    assert (result.values, result.labels) == ([7.0, 5.0], ["odd", "odd"])
    backend = get_ray_backend(address)
    assert (backend.stats["connects"], backend.stats["reconnects"]) == (1, 2)  # one failed while down, one worked

    # lost again, now between two rollouts: the next reset finds it, starts no rollout, and raises nothing
    stop_head(clusters[1])
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        assert environment.reset(offset=6) is None
    assert not ray.is_initialized()
    lost_again = (f"the environment's actor was lost (ActorDiedError); the Ray cluster at {address} does not answer "
                  f"(nothing answers at {address} ([Errno 111] Connection refused)); this rollout's state is lost")
    assert _messages(caplog, ENVIRONMENT_LOG) == [
        f"environment on Ray: the rollout could not start: {lost_again}; its tool calls are errors and its reward None"]
    assert run_tool(environment, "add", {"k": 1}) == {
        "error": f"environment on Ray: the rollout could not start: {lost_again}; tool add did not run"}
