"""An environment's tool calls on Ray against the same calls in this process.

Ray runs inside a private network namespace only (``unshare --net``, then ``ip link set lo up``):
this script re-executes itself there, as ``bench_ray.py`` does. On a local Ray of 2 CPUs, for
``tools.calculator`` and ``tools.sqlite`` (grpo-rewards-tools): the time of the first ``reset``
(the actor starts), then seconds per tool call, locally and on Ray (one actor per instance,
``execution: {backend: ray}``), the outputs compared.

    python bench/bench_ray_env.py [--calls 200]
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import time

INSIDE = "GRPO_REWARDS_NETNS"
DATABASE = "CREATE TABLE t(x INTEGER, y TEXT); INSERT INTO t VALUES (1, 'a'), (1, 'b'), (3, 'c');"


def in_namespace() -> bool:
    return os.environ.get(INSIDE) == "1" and [n for _, n in socket.if_nameindex()] == ["lo"]


def reexec() -> int:
    command = ["unshare", "--net", "sh", "-c", 'ip link set lo up && exec "$0" "$@"', sys.executable, *sys.argv]
    return subprocess.run(command, env={**os.environ, INSIDE: "1"}).returncode


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    import ray

    from grpo_rewards import load_registry
    from grpo_rewards.environment import EnvironmentFactory

    ray.init(address="local", num_cpus=2, include_dashboard=False, object_store_memory=80 * 2**20, logging_level="ERROR")
    registry = load_registry()
    cases = {"tools.calculator": ({}, "calculate", [{"expression": f"{i} * 12345 + 1/3"} for i in range(args.calls)]),
             "tools.sqlite": ({"database": DATABASE, "gold": "[[2]]"}, "query",
                              [{"sql": f"SELECT COUNT(*) FROM t WHERE x = {i % 4}"} for i in range(args.calls)])}
    print(f"{args.calls} calls each; local Ray of 2 CPUs; {os.cpu_count()} CPUs here")
    for name, (row, tool, calls) in cases.items():
        results = {}
        for where, execution in (("local", None), ("ray", {"backend": "ray"})):
            environment = EnvironmentFactory(registry.environment(name), execution=execution)()
            start = time.perf_counter()
            environment.reset(**row)
            first = time.perf_counter() - start
            start = time.perf_counter()
            outputs = [getattr(environment, tool)(**c) for c in calls]
            per_call = (time.perf_counter() - start) / len(calls)
            results[where] = (first, per_call, outputs)
            print(f"{name} {where}: first reset {first * 1e3:.1f} ms, {per_call * 1e3:.3f} ms per call")
        same = results["local"][2] == results["ray"][2]
        print(f"{name}: same outputs {same}; ray/local per call {results['ray'][1] / results['local'][1]:.1f}x, "
              f"+{(results['ray'][1] - results['local'][1]) * 1e3:.2f} ms per call")
    ray.shutdown()


if __name__ == "__main__":
    if not in_namespace():
        sys.exit(reexec())
    main()
