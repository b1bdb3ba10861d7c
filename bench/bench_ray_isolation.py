"""What keeping each reward in processes of its own costs on the Ray backend.

Ray runs inside a private network namespace only: this script re-executes itself there
(``unshare --net``, then ``ip link set lo up``) and starts a local Ray of 2 CPUs. The same 4 items
(a ~1 µs scorer) go through the Ray backend as 8 different rewards (owners), twice: the first round
starts each reward's worker process in the Ray workers, the second finds them warm. For the
side-by-side, the same 8 batches with one shared owner (what every reward got before isolation).

    python bench/bench_ray_isolation.py [--rewards 8]
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

INSIDE = "GRPO_REWARDS_NETNS"


def in_namespace() -> bool:
    return os.environ.get(INSIDE) == "1" and [n for _, n in socket.if_nameindex()] == ["lo"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rewards", type=int, default=8)
    args = parser.parse_args()
    if not in_namespace():
        command = ["unshare", "--net", "sh", "-c", 'ip link set lo up && exec "$0" "$@"', sys.executable, *sys.argv]
        return subprocess.run(command, env={**os.environ, INSIDE: "1"}).returncode
    import ray
    import scale_scorers

    from grpo_rewards.execution.calls import SampleCall
    from grpo_rewards.execution.ray_backend import get_ray_backend

    ray.init(address="local", num_cpus=2, include_dashboard=False, object_store_memory=80 * 2**20, logging_level="ERROR")
    backend = get_ray_backend("auto", 1.0)
    backend.connect()
    func = SampleCall(scale_scorers.length)
    items = [(t, {}) for t in ["a", "bb", "ccc", "dddd"]]
    for mode in ("shared", "per reward"):
        rounds = []
        for _ in range(2):
            started = time.perf_counter()
            for k in range(args.rewards):
                outcomes = backend.map(func, items, timeout=60.0, owner="" if mode == "shared" else f"reward {k}")
                assert [o.value for o in outcomes] == [1.0, 2.0, 3.0, 4.0], outcomes
            rounds.append(time.perf_counter() - started)
        print(f"{mode:>10}: {args.rewards} rewards x 4 items, first round {rounds[0]:.2f} s, second {rounds[1]:.2f} s",
              flush=True)
    ray.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
