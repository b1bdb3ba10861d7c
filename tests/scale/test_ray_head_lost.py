"""A reward on Ray whose cluster's head goes down between two batches (a real one-node cluster on
loopback, inside a private network namespace): the next batch finds it before sending anything, gives
the connection up at once (``ray.shutdown()``: Ray would otherwise end the training process after
``gcs_rpc_server_reconnect_timeout_s`` without its GCS) and raises a clear error; the process outlives
Ray's limit, and once the head is back on the same port the next batch reconnects once and scores there.
"""

from __future__ import annotations

import logging
import time
from collections import Counter

import pytest
import scale_scorers
from scale_netns import start_cluster, stop_head

from grpo_rewards import Reward
from grpo_rewards.errors import ExecutionError
from grpo_rewards.execution import pool

LOGGER = "grpo_rewards.execution.ray_backend"
#: Ray's own limit on a driver without its GCS (60 s by default), made shorter here so that the test
#: outlives it: long enough that stopping the head and the next batch's check fit in it on a busy machine
#: (with 10 s, a CI run lost the driver to Ray while the head's processes were still being stopped).
GCS_RECONNECT_TIMEOUT = 40


@pytest.fixture(autouse=True)
def short_gcs_limit(monkeypatch) -> None:
    """Ray's own limit on a driver without its GCS, made short (before ``cluster`` connects: autouse
    fixtures come first) so that the test outlives it."""
    monkeypatch.setenv("RAY_gcs_rpc_server_reconnect_timeout_s", str(GCS_RECONNECT_TIMEOUT))


def test_a_head_lost_between_two_batches_is_a_clear_error_at_once_and_the_batch_after_its_return_reconnects(
        cluster, caplog):
    import ray

    from grpo_rewards.execution.ray_backend import get_ray_backend

    port, clusters = cluster
    address = f"127.0.0.1:{port}"
    reward = Reward(scale_scorers.sleepy, metric="sleepy", on_error="none",
                    execution={"backend": "ray", "address": address})
    assert reward(prompts=["p"] * 3, completions=["a", "bb", "ccc"]) == [1.0, 2.0, 3.0]

    stopped = stop_head(clusters[0])  # the head goes down between two steps
    refused = f"nothing answers at {address} ([Errno 111] Connection refused)"
    lost = f"the cluster went away since the last batch; the Ray cluster at {address} does not answer ({refused})"
    with caplog.at_level(logging.WARNING, logger=LOGGER), pytest.raises(ExecutionError) as err:
        reward(prompts=["p"] * 2, completions=["dddd", "e"])
    assert str(err.value) == (f"lost the connection to the Ray cluster at '{address}' ({lost}) and reconnecting failed: "
                              f"ConnectionError: {refused} (the next batch tries once more; rewards never fall back "
                              "to local execution)")
    assert [r.getMessage() for r in caplog.records] == [
        f"{lost}: giving up the connection now (ray.shutdown()); the next use reconnects once",
        f"lost the connection to the Ray cluster at {address} ({lost}); reconnecting once: ray.shutdown(), then "
        f"ray.init(address='{address}')"]
    assert not ray.is_initialized()
    # this process outlives Ray's limit counted from the head's loss: it holds no connection
    time.sleep(max(0.0, stopped + GCS_RECONNECT_TIMEOUT + 10 - time.monotonic()))

    clusters.append(start_cluster(port))  # the head is back on the same port
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        assert reward(prompts=["p"] * 2, completions=["dddd", "e"]) == [4.0, 1.0]
    assert [r.getMessage() for r in caplog.records] == [
        f"lost the connection to the Ray cluster at {address} ({lost}); reconnecting once: ray.shutdown(), then "
        f"ray.init(address='{address}')",
        f"reconnected to the Ray cluster at {address}"]
    assert ray.get_runtime_context().gcs_address == address
    backend = get_ray_backend(address)
    assert (backend.stats["connects"], backend.stats["reconnects"]) == (1, 2)  # one failed while down, one worked
    assert reward.stats == Counter({"ok": 5})
    assert not pool._pools, "a local worker pool was started"
