"""The Ray backend against the local worker pool: overhead per task, and throughput of a code reward.

Ray runs inside a private network namespace only (``unshare --net``, then ``ip link set lo up``):
this script re-executes itself there. Three clusters, one after another, each started here:
a local Ray of 2 CPUs, a local Ray of 1 CPU, and a simulated 2-node cluster
(``ray.cluster_utils.Cluster``, 1 CPU a node). On each, the same items go through the Ray backend;
the local pool (1 and 2 workers) runs them as well, in the same process, for the side-by-side.

- overhead: a ~1 µs scorer (the text's length) on 400 items: seconds per item;
- code reward: ``code.tests_passed`` (``grpo-rewards-code``, its sandbox in each worker) on ``code:stdio``
  rows, 5 tests a sample: samples per second on 64 samples.

    python bench/bench_ray.py [--items 400] [--code 64]
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import scale_scorers  # noqa: E402

INSIDE = "GRPO_REWARDS_NETNS"


def in_namespace() -> bool:
    return os.environ.get(INSIDE) == "1" and [n for _, n in socket.if_nameindex()] == ["lo"]


def reexec() -> int:
    command = ["unshare", "--net", "sh", "-c", 'ip link set lo up && exec "$0" "$@"', sys.executable, *sys.argv]
    return subprocess.run(command, env={**os.environ, INSIDE: "1"}).returncode


def code_items(n: int) -> tuple[Any, list[tuple[Any, ...]], str]:
    """``(function, items, what)`` of the code reward: ``code.tests_passed``'s scorer as the backends run
    it (``SampleCall``, what ``Reward`` sends), one item per sample: ``code:stdio`` rows (5 tests each)
    and programs that pass, fail, or raise, in turn."""
    from grpo_rewards import get_reward
    from grpo_rewards.execution.calls import SampleCall
    from grpo_rewards_code.tasks import make_stdio

    reward = get_reward("code.tests_passed")
    rows = make_stdio(n, 0, families=["sum", "max"])
    programs = {"sum": "```python\nprint(sum(map(int, input().split())))\n```",
                "max": "```python\nprint(max(map(int, input().split())))\n```"}
    wrong = ["```python\nprint(0)\n```", "```python\nraise ValueError(input())\n```"]
    items = []
    for i, row in enumerate(rows):
        text = programs[row["family"]] if i % 3 == 0 else wrong[i % 2] if i % 3 == 1 else programs["sum"]
        items.append((text, {"prompt": row["prompt"], "completion": text, "completion_ids": None, "family": row["family"],
                             "tests": row["tests"]}))
    return SampleCall(reward.scorer), items, "code.tests_passed on code:stdio rows (5 tests a sample, in its sandbox)"


def timed(run: Any) -> float:
    started = time.perf_counter()
    outcomes = run()
    elapsed = time.perf_counter() - started
    bad = [o for o in outcomes if o.status != "ok" or (isinstance(o.value, tuple) and o.value[1] == "sandbox_error")]
    assert not bad, bad[:3]
    return elapsed


def measure(label: str, backend: Any, items: int, code: int, rows: list[str]) -> None:
    from grpo_rewards.execution.calls import SampleCall

    trivial = SampleCall(scale_scorers.length)
    small = [(f"text {i}", {}) for i in range(items)]
    func, code_args, _ = code_items(code)
    backend.map(trivial, small[:8], timeout=30.0)  # start the workers, load the function
    backend.map(func, code_args[:4], timeout=30.0)
    per_task = min(timed(lambda: backend.map(trivial, small, timeout=30.0)) for _ in range(2)) / items
    throughput = code / min(timed(lambda: backend.map(func, code_args, timeout=30.0)) for _ in range(2))
    rows.append(f"| {label} | {per_task * 1e3:.2f} ms | {throughput:.1f} |")
    print(rows[-1], flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=400)
    parser.add_argument("--code", type=int, default=64)
    args = parser.parse_args()
    if not in_namespace():
        sys.exit(reexec())
    import ray
    from ray.cluster_utils import Cluster

    from grpo_rewards.execution import WorkerPool, ray_backend

    rows = ["| backend | per task (trivial scorer) | code reward, samples/s |", "|---|---|---|"]
    print(f"load average at the start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    print(f"code reward: {code_items(1)[2]}; {args.items} trivial items, {args.code} code samples", flush=True)
    for workers in (1, 2):
        pool = WorkerPool(workers)
        measure(f"local pool, {workers} worker{'s' if workers > 1 else ''}", pool, args.items, args.code, rows)
        pool.close()
    for cpus in (1, 2):
        ray.init(address="local", num_cpus=cpus, include_dashboard=False, object_store_memory=80 * 2**20, logging_level="ERROR")
        measure(f"Ray, local, {cpus} CPU{'s' if cpus > 1 else ''} ({cpus} worker process{'es' if cpus > 1 else ''})",
                ray_backend.RayBackend("auto", 1.0), args.items, args.code, rows)
        ray.shutdown()
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False,
                                                            "object_store_memory": 80 * 2**20})
    cluster.add_node(num_cpus=1, object_store_memory=80 * 2**20)
    ray.init(address=cluster.address, logging_level="ERROR")
    cluster.wait_for_nodes()
    measure("Ray, simulated 2-node cluster (1 CPU a node)", ray_backend.RayBackend("auto", 1.0), args.items,
            args.code, rows)
    ray.shutdown()
    cluster.shutdown()
    print("\n".join(rows))
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
