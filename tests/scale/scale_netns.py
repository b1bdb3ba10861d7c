"""Where Ray may start in the tests: inside the private network namespace that conftest.py makes."""

from __future__ import annotations

import os
import socket
import sys
import time
from typing import Any

import pytest

#: Set in the child pytest that runs inside the namespace.
INSIDE = "GRPO_REWARDS_NETNS"


def only_loopback() -> bool:
    """Whether this process's network namespace has no interface but ``lo``."""
    return [name for _, name in socket.if_nameindex()] == ["lo"]


def alive(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return f.read().rsplit(") ", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, IndexError):
        return False


def refuse_outside_namespace() -> None:
    """Raise unless this process runs where Ray may start: the namespace run, with only ``lo``."""
    if os.environ.get(INSIDE) != "1" or not only_loopback():
        raise RuntimeError("refusing to start Ray outside a private network namespace whose only interface is lo "
                           f"(interfaces: {[name for _, name in socket.if_nameindex()]})")


@pytest.fixture(scope="module", autouse=True)
def ray_disconnected_after_the_module(request: pytest.FixtureRequest) -> Any:
    """Inside the namespace, a module that leaves the driver connected to Ray once its own fixtures are torn
    down fails there, and is disconnected: the next module of the same namespace run (``ray_runs.TOGETHER``)
    starts Ray as if alone instead of every one of its tests failing on "ray.init twice". (Used by conftest.py.)"""
    yield
    if os.environ.get(INSIDE) != "1" or "ray" not in sys.modules:
        return
    import ray

    from grpo_rewards.execution import ray_backend

    if ray.is_initialized() or ray._private.worker.global_worker.connected:
        ray.shutdown()
        ray_backend._backends.clear()
        pytest.fail(f"{request.module.__name__} left the driver connected to Ray after its fixtures' teardown "
                    "(disconnected now, for the next module)")


def free_port() -> int:
    """A loopback port nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


#: What every node the tests start is given: a small object store, the dashboard's minimal head only, and neither the
#: autoscaler's monitor nor the log monitor that streams workers' output to the driver, which no test reads (~1
#: CPU-second a cluster start, and their polling while a cluster lives: ~12 CPU-seconds of a full test run).
NODE = {"include_dashboard": False, "include_log_monitor": False, "no_monitor": True, "object_store_memory": 80 * 2**20}


def start_cluster(port: int | None = None, num_cpus: int = 1, **settings: Any) -> Any:
    """A one-node Ray cluster (``num_cpus``, its GCS on ``port``, or any free one when None), as ``ray start --head
    --port=PORT`` makes one, with :data:`NODE`'s settings and ``settings``."""
    refuse_outside_namespace()
    from ray.cluster_utils import Cluster

    args: dict[str, Any] = {**NODE, "num_cpus": num_cpus, **settings}
    if port is not None:
        args["gcs_server_port"] = port
    cluster = Cluster(initialize_head=True, head_node_args=args)
    cluster.wait_for_nodes()
    return cluster


#: Seconds :func:`stop_head` waits for the driver's object references to be released.
RELEASE_TIMEOUT = 120


def wait_until_released(timeout: float = RELEASE_TIMEOUT) -> None:
    """Wait until this driver holds no object reference (the last batch's tasks have ended on the
    cluster, their arguments and results released); raise after ``timeout`` seconds, naming what is held.

    A head lost while the driver still owns an object in the head's object store ends the driver: Ray
    tries to recover the object, finds the connection to the store broken and terminates the process
    (``connection.cc``: "The connection to the plasma store is failed. Terminate the process"). On a
    busy machine a batch's last task can still be finishing when its result is already in, so the tests
    lose the head between two batches only once the last one has ended, as in a training run, where
    generation lies between two reward batches."""
    import ray

    if not ray.is_initialized():
        return
    core_worker = ray._private.worker.global_worker.core_worker
    deadline = time.monotonic() + timeout
    while held := core_worker.get_all_reference_counts():
        if time.monotonic() > deadline:
            raise RuntimeError(f"the driver still holds {len(held)} object reference(s) after {timeout:g} s: {held}")
        time.sleep(0.1)


def stop_head(cluster: Any) -> float:
    """Stop the head node's processes (its GCS, raylet and workers) while a driver is still connected to
    it, as when the head goes down under a run (``Cluster.shutdown`` refuses to, for a connected driver),
    between two batches (:func:`wait_until_released`). Returns when the stopping began (``time.monotonic()``)."""
    wait_until_released()
    began = time.monotonic()
    cluster.head_node.kill_all_processes(check_alive=False, allow_graceful=True, wait=True)
    cluster.head_node = None
    return began
