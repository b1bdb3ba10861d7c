"""What one worker's start costs: a pool of one worker started, one item run, the pool closed, again and again.

The CPU is the supervisor's and the worker's together (``RUSAGE_CHILDREN``: the pool waits for each supervisor, and
each supervisor for its worker), so it counts both interpreters' start-up and everything the worker imports; the
item is the scorer of ``math.accuracy`` on one completion, so the worker imports it as a training run's worker does.
To compare two checkouts, run it once with each on ``PYTHONPATH`` (their sources compiled: ``compileall``), pairs
alternating:

    python bench/bench_worker_start.py --starts 20
"""

from __future__ import annotations

import argparse
import functools
import resource
import statistics
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=20)
    args = parser.parse_args()
    from grpo_rewards.execution import WorkerPool
    from grpo_rewards_math.correctness import Accuracy

    scorer = functools.partial(Accuracy(), solution="4")
    walls = []
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    for _ in range(args.starts):
        started = time.perf_counter()
        pool = WorkerPool(workers=1, owner="bench")
        (outcome,) = pool.map(scorer, [(r"\boxed{4}",)], timeout=30.0)
        pool.close()
        walls.append(time.perf_counter() - started)
        assert outcome.status == "ok" and outcome.value == (1.0, "correct"), outcome
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) / args.starts
    print(f"{args.starts} starts: wall median {statistics.median(walls) * 1000:.0f} ms, "
          f"CPU of supervisor + worker {cpu * 1000:.0f} ms a start")


if __name__ == "__main__":
    main()
