"""Core benchmarks: start-up time of the command and the package, and worker vs in-process cost.

Run: .venv/bin/python bench/bench_core.py   (results go to bench/core.md by hand)
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

from bench_scorers import SCORERS  # noqa: E402

from grpo_rewards import Reward  # noqa: E402
from grpo_rewards.execution import get_pool  # noqa: E402


def wall(cmd: list[str], runs: int = 7) -> tuple[float, float]:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        times.append(time.perf_counter() - t)
    return statistics.median(times), min(times)


def per_batch(reward: Reward, completions: list[str], runs: int = 7) -> float:
    times = []
    for _ in range(runs):
        batch = list(completions)  # a new list: the result cache keys on the list's identity
        t = time.perf_counter()
        reward(prompts=["p"] * len(batch), completions=batch)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    py = sys.executable
    exe = str(Path(py).parent / "grpo-rewards")
    print("## Start-up (median of 7 runs, min in brackets)\n")
    for label, cmd in (
        ("python -c pass", [py, "-c", "pass"]),
        ("python -c 'import grpo_rewards'", [py, "-c", "import grpo_rewards"]),
        ("python -c 'from grpo_rewards import hookimpl'", [py, "-c", "from grpo_rewards import hookimpl"]),
        ("grpo-rewards list", [exe, "list"]),
    ):
        med, low = wall(cmd)
        print(f"- `{label}`: {med * 1000:.0f} ms ({low * 1000:.0f} ms)")
    print("\n## Worker processes vs in-process, one batch of 512 short completions\n")
    completions = [f"Step 1: {i} + {i % 7} = {i + i % 7}. The answer is \\boxed{{{i + i % 7}}}." for i in range(512)]
    pool = get_pool()
    print(f"workers: {pool.size}\n")
    print("| scorer | cost per sample in-process | in-process batch | workers batch | workers / in-process |")
    print("|---|---|---|---|---|")
    for name, scorer in SCORERS.items():
        inproc = Reward(scorer, metric=name)
        worker = Reward(scorer, metric=name, timeout=5.0)
        worker(prompts=["p"] * 8, completions=completions[:8])  # start the pool and load the scorer
        a = per_batch(inproc, completions)
        b = per_batch(worker, completions)
        print(f"| {name} | {a / 512 * 1e6:.1f} µs | {a * 1000:.2f} ms | {b * 1000:.2f} ms | {b / a:.2f}x |")


if __name__ == "__main__":
    main()
