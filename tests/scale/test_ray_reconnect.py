"""After a lost connection the Ray backend reconnects once per batch (``ray.shutdown()``, then ``ray.init``
to the address it had connected to, logged), or fails loudly; it never falls back to local execution.

A real local cluster (``ray.cluster_utils.Cluster``, on loopback, inside a private network namespace):
the driver's connection is lost (``ray.shutdown()`` in the driver), the cluster is stopped and started
again on the same port, and the next batch scores on the new one; with no cluster to go back to, the
batch raises :class:`~grpo_rewards.errors.ExecutionError`, every batch after it too.
"""

from __future__ import annotations

import logging
from collections import Counter

import pytest
import scale_scorers
from forked import Forked
from scale_netns import start_cluster

from grpo_rewards import Reward
from grpo_rewards.errors import ExecutionError
from grpo_rewards.execution import pool

LOGGER = "grpo_rewards.execution.ray_backend"
TEXTS = ["a", "bb", "ccc"]


def _reward(port: int) -> Reward:
    return Reward(scale_scorers.sleepy, metric="sleepy", on_error="none", error_value=-1.0,
                  execution={"backend": "ray", "address": f"127.0.0.1:{port}"})


def test_after_the_connection_is_lost_and_the_cluster_restarted_the_next_batch_reconnects_and_logs_it(
        cluster, caplog):
    import ray

    from grpo_rewards.execution.ray_backend import get_ray_backend

    port, clusters = cluster
    reward = _reward(port)
    assert reward(prompts=["p"] * 3, completions=TEXTS) == [1.0, 2.0, 3.0]
    backend = get_ray_backend(f"127.0.0.1:{port}", 1.0)
    assert backend.connected_address == f"127.0.0.1:{port}"
    ray.shutdown()  # the driver's connection is gone ...
    clusters[0].shutdown()  # ... and so is the cluster; a new one starts on the same port
    clusters.append(start_cluster(port))
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        values = reward(prompts=["p"] * 3, completions=["dddd", "e", "ff"])
    assert values == [4.0, 1.0, 2.0]
    assert reward.stats == Counter({"ok": 6})
    messages = [r.getMessage() for r in caplog.records if r.name == LOGGER]
    assert messages == [
        f"lost the connection to the Ray cluster at 127.0.0.1:{port} (Ray was shut down in this process); "
        f"reconnecting once: ray.shutdown(), then ray.init(address='127.0.0.1:{port}')",
        f"reconnected to the Ray cluster at 127.0.0.1:{port}"]
    assert backend.stats["reconnects"] == 1 and backend.stats["connects"] == 1
    assert ray.get_runtime_context().gcs_address == f"127.0.0.1:{port}"
    assert not pool._pools, "a local worker pool was started"


def test_with_no_cluster_to_reconnect_to_every_batch_fails_loudly_and_nothing_runs_locally(cluster):
    import ray

    port, clusters = cluster
    reward = _reward(port)
    assert reward(prompts=["p"] * 3, completions=TEXTS) == [1.0, 2.0, 3.0]
    ray.shutdown()
    clusters[0].shutdown()
    clusters.clear()
    for _ in range(2):  # one reconnect per batch, each as loud
        with pytest.raises(ExecutionError) as err:
            reward(prompts=["p"] * 3, completions=["dddd", "e", "ff"])
        message = str(err.value)
        assert message.startswith(f"lost the connection to the Ray cluster at '127.0.0.1:{port}' (Ray was shut down in "
                                  "this process) and reconnecting failed: ConnectionError: nothing answers at "
                                  f"127.0.0.1:{port}")
        assert message.endswith("rewards never fall back to local execution)")
    assert reward.stats == Counter({"ok": 3})
    assert not pool._pools, "a local worker pool was started"


def test_a_process_forked_after_connecting_fails_loudly_instead_of_waiting_for_ever(cluster):
    # Ray does not survive fork(): a child's first call waited for ever (seen with length.target on Ray)
    import os

    port, _ = cluster
    reward = _reward(port)
    assert reward(prompts=["p"] * 3, completions=TEXTS) == [1.0, 2.0, 3.0]

    def child():
        try:
            return "scored", reward(prompts=["p"], completions=["dddd"]), bool(pool._pools)
        except ExecutionError as exc:
            return "raised", str(exc), bool(pool._pools)

    forked = Forked(child)
    what, message, local_pool = forked.result()  # (the hang this test is about fails there, nothing left behind)
    assert (what, local_pool) == ("raised", False)
    assert message.startswith(f"execution backend ray cannot run in this process (pid {forked.pid}): it was forked "
                              f"from process {os.getpid()}, which had connected to Ray")
    assert reward(prompts=["p"], completions=["dddd"]) == [4.0]  # the parent goes on
