"""What a worker pool per reward costs (issue 42): three rewards sharing one pool vs a pool each.

Run: .venv/bin/python bench/bench_isolation.py   (results go to bench/core.md by hand)

Both arrangements run in this one process, side by side: ``owner=""`` is the shared pool every
reward used before (and any caller that names no owner still uses), one owner per reward is what
a :class:`~grpo_rewards.Reward` now asks for. Measured: the time to start the workers, the median
time of a training-like step (each of the three rewards scores one batch of 64 completions, one
after another), and the resident memory of the worker processes (their supervisors included).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

from bench_scorers import regex_format, trivial, word_stats  # noqa: E402

from grpo_rewards.execution import map_with_deadline  # noqa: E402
from grpo_rewards.execution.pool import WorkerPool, _pools  # noqa: E402

SCORERS = [trivial, regex_format, word_stats]
WORKERS = 2
STEPS = 40


def rss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
    except (OSError, StopIteration):
        return 0


def pools_rss_mib(pools: list[WorkerPool]) -> float:
    pids = {p for pool in pools for p in [*pool.pids, *pool.worker_pids] if p}
    return sum(rss_kib(p) for p in pids) / 1024


def run(owners: list[str]) -> dict[str, float]:
    batch = [(f"<think>step {i}</think> the answer is {i % 7}",) for i in range(64)]
    started = time.perf_counter()
    for scorer, owner in zip(SCORERS, owners):
        map_with_deadline(scorer, [("warm",)] * WORKERS, timeout=60, workers=WORKERS, owner=owner)
    start = time.perf_counter() - started
    steps = []
    for _ in range(STEPS):
        t = time.perf_counter()
        for scorer, owner in zip(SCORERS, owners):
            map_with_deadline(scorer, batch, timeout=60, workers=WORKERS, owner=owner)
        steps.append(time.perf_counter() - t)
    pools = [_pools[(WORKERS, o)] for o in dict.fromkeys(owners)]
    result = {"start_s": start, "step_ms": statistics.median(steps) * 1000, "processes": sum(
        len(p.pids) * 2 for p in pools), "rss_mib": pools_rss_mib(pools)}
    for pool in pools:
        pool.close()
    return result


def main() -> None:
    shared = run(["", "", ""])
    own = run([f"{s.__name__} as {s.__name__}" for s in SCORERS])
    print(f"{'arrangement':<22} {'start (s)':>9} {'step (ms)':>9} {'processes':>9} {'RSS (MiB)':>9}")
    for name, r in (("one shared pool", shared), ("a pool per reward", own)):
        print(f"{name:<22} {r['start_s']:>9.2f} {r['step_ms']:>9.2f} {r['processes']:>9.0f} {r['rss_mib']:>9.1f}")
    print(f"ratios (per reward / shared): start {own['start_s'] / shared['start_s']:.2f}x, "
          f"step {own['step_ms'] / shared['step_ms']:.2f}x, RSS {own['rss_mib'] / shared['rss_mib']:.2f}x")


if __name__ == "__main__":
    main()
