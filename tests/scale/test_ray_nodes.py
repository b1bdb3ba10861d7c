"""Losing a node of a two-node Ray cluster (``ray.cluster_utils.Cluster``, on loopback, inside a private
network namespace): the samples running there are ``crashed``, the others are scored, nothing hangs."""

from __future__ import annotations

import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import scale_scorers
from scale_netns import NODE, alive, start_cluster

from grpo_rewards import Reward


@pytest.fixture(scope="module")
def two_nodes() -> Any:
    import ray

    from grpo_rewards.execution import ray_backend

    # quick failure detection, so that a lost node is noticed in seconds, not half a minute
    cluster = start_cluster(_system_config={"health_check_period_ms": 500, "health_check_failure_threshold": 3,
                                            "health_check_timeout_ms": 500})
    worker = cluster.add_node(num_cpus=1, **NODE)
    ray.init(address=cluster.address, logging_level="ERROR")
    cluster.wait_for_nodes()
    yield ray, cluster, worker
    ray.shutdown()
    cluster.shutdown()
    ray_backend._backends.clear()


def _wait_for(condition: Any, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {seconds:g} s")
        time.sleep(0.05)


def test_the_samples_of_a_lost_node_are_crashed_and_the_others_are_scored(two_nodes, tmp_path):
    _, cluster, worker = two_nodes
    texts = ["a", "b"]  # one CPU per node, one CPU per task: one sample runs on each node
    reward = Reward(scale_scorers.hold, metric="hold", on_error="none", error_value=-1.0,
                    execution={"backend": "ray", "num_cpus_per_task": 1})
    result: dict[str, Any] = {}

    def score() -> None:
        result["values"] = reward(prompts=["p"] * 2, completions=texts, marker_dir=[str(tmp_path)] * 2)

    thread = threading.Thread(target=score, daemon=True)
    thread.start()
    try:
        _wait_for(lambda: all((tmp_path / f"{t}.started").exists() for t in texts), 120, "both samples starting")
        nodes = {t: (tmp_path / f"{t}.started").read_text().split() for t in texts}
        raylet = str(worker.all_processes["raylet"][0].process.pid)
        lost = [t for t in texts if nodes[t][0] == raylet]
        assert len(lost) == 1, f"expected one sample on the worker node: {nodes}, the worker node's raylet {raylet}"
        cluster.remove_node(worker, allow_graceful=False)
        # the lost sample's process must be gone before the others are released, or it could still answer
        _wait_for(lambda: not alive(int(nodes[lost[0]][1])), 60, "the lost node's worker exiting")
    finally:  # (a step left running would hold the other node's CPU, and end Ray's connection after the module)
        Path(tmp_path, "release").write_text("")
        thread.join(120)
    assert not thread.is_alive(), "the step hung after its node was lost"
    expected = [-1.0 if t in lost else 1.0 for t in texts]
    assert result["values"] == expected
    assert reward.stats == Counter({"ok": 1, "crashed": 1})


def test_after_a_node_is_lost_the_backend_keeps_scoring_on_the_nodes_left(two_nodes):
    reward = Reward(scale_scorers.sleepy, metric="after", execution={"backend": "ray"})
    texts = ["a", "bb", "ccc", "dddd"]
    assert reward(prompts=["p"] * 4, completions=texts) == [1.0, 2.0, 3.0, 4.0]
