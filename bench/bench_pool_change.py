"""The worker pool before and after a change, side by side in one run (same machine, same moment).

Run: .venv/bin/python bench/bench_pool_change.py [REV]
REV (default 019c70e, the last single-module pool) must hold packages/core/src/grpo_rewards/execution.py;
it is copied into a temporary module whose workers import it, and timed against the working tree.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

from bench_scorers import SCORERS, pause  # noqa: E402

import grpo_rewards.execution as after  # noqa: E402
from grpo_rewards import Reward  # noqa: E402

RUNS = 25


def load_before(rev: str) -> Any:
    source = subprocess.run(["git", "show", f"{rev}:packages/core/src/grpo_rewards/execution.py"], check=True,
                            capture_output=True, text=True, cwd=HERE).stdout
    source = source.replace("from grpo_rewards.execution import _worker_entry", "from pool_before import _worker_entry")
    folder = Path(tempfile.mkdtemp(prefix="pool-before-"))
    (folder / "pool_before.py").write_text(source)
    sys.path.insert(0, str(folder))
    import pool_before

    return pool_before


def _ticks(pids: list[int]) -> int:
    """User + system CPU clock ticks the processes ``pids`` have used."""
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total


def main() -> None:
    rev = sys.argv[1] if len(sys.argv) > 1 else "019c70e"
    before = load_before(rev)
    pools = {"before": before.get_pool(), "after": after.get_pool()}
    new_map = after.map_with_deadline
    print(f"before: {rev}; after: the working tree; {pools['after'].size} workers each\n")
    completions = [f"Step 1: {i} + {i % 7} = {i + i % 7}. The answer is \\boxed{{{i + i % 7}}}." for i in range(512)]
    print(f"Median of {RUNS} batches of 512 completions (the fastest in brackets), each batch a new list\n")
    print("| scorer | in-process batch | before: workers batch | after: workers batch | after / before |")
    print("|---|---|---|---|---|")
    for name, scorer in SCORERS.items():
        inproc, worker = Reward(scorer, metric=name), Reward(scorer, metric=name, timeout=5.0)
        times: dict[str, list[float]] = {"in-process": [], "before": [], "after": []}
        for run in range(RUNS + 1):  # interleaved, so that load on the machine hits both alike; run 0 warms up
            for label in ("in-process", "before", "after"):
                after.map_with_deadline = before.map_with_deadline if label == "before" else new_map
                reward = inproc if label == "in-process" else worker
                batch = list(completions)
                t = time.perf_counter()
                reward(prompts=["p"] * len(batch), completions=batch)
                if run:
                    times[label].append(time.perf_counter() - t)
        after.map_with_deadline = new_map
        med = {k: statistics.median(v) * 1000 for k, v in times.items()}
        low = {k: min(v) * 1000 for k, v in times.items()}
        cells = " | ".join(f"{med[k]:.2f} ms ({low[k]:.2f})" for k in ("in-process", "before", "after"))
        print(f"| {name} | {cells} | {med['after'] / med['before']:.2f}x ({low['after'] / low['before']:.2f}x) |")
    print("\nCPU time a batch of 512 (the work, whatever the load): the calling process, and its two workers\n")
    print("| scorer | batches | before: caller | after: caller | before: workers | after: workers |")
    print("|---|---|---|---|---|---|")
    for name, batches in (("trivial (len)", 200), ("sympy expand", 20)):
        call, items = SCORERS[name], [(text,) for text in completions]
        cpu: dict[str, list[float]] = {}
        for label, module in (("before", before), ("after", after)):
            pool = module.WorkerPool(workers=2, max_tasks_per_worker=10**9)
            pool.map(call, items, timeout=5.0)
            own, workers = time.process_time(), _ticks(pool.pids)
            for _ in range(batches):
                pool.map(call, items, timeout=5.0)
            cpu[label] = [(time.process_time() - own) / batches * 1000,
                          (_ticks(pool.pids) - workers) / os.sysconf("SC_CLK_TCK") / batches * 1000]
            pool.close()
        print(f"| {name} | {batches} | {cpu['before'][0]:.2f} ms | {cpu['after'][0]:.2f} ms | "
              f"{cpu['before'][1]:.2f} ms | {cpu['after'][1]:.2f} ms |")
    print("\nDeadline per item: 16 items of 0.6 s under a 1 s deadline, one worker\n")
    print("| pool | wall time | workers killed |")
    print("|---|---|---|")
    for label, module in (("before", before), ("after", after)):
        pool = module.WorkerPool(workers=1)
        pool.map(pause, [(0.0,)], timeout=60)
        t = time.perf_counter()
        outcomes = pool.map(pause, [(0.6,)] * 16, timeout=1.0)
        wall = time.perf_counter() - t
        assert [o.status for o in outcomes] == ["ok"] * 16
        print(f"| {label} | {wall:.1f} s | {pool.stats['killed_timeout']} |")
        pool.close()


if __name__ == "__main__":
    main()
