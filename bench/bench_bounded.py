"""In-process work of math.accuracy on hostile answers, and the first symbolic case after start-up.

1. For every family of tests/math/adversarial_answers.py (the conjugate-surd family of issue 21,
   nested radicals and powers with large integers, conjugate products, many radicals, factorials,
   towers, deep nesting, long sums), ``--n`` generated answers per family and outcome: the CPU time
   (``time.thread_time``) of the calling process's part of one sample, ``Accuracy.quick`` (extraction,
   gold reading, bounded comparison), every cache cleared before each sample. Target: at most
   50 ms for every answer. ``decided`` counts the samples decided there (the rest go to a worker).
2. The first symbolic sample after a reward set is built: in a fresh interpreter, once without
   and once with ``RewardSet.start_workers()`` (what training and scoring call) followed by
   ``--wait`` seconds standing in for the model load.

    python bench/bench_bounded.py [--n 40] [--seed 2026] [--wait 10]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "math"))

FIRST_CASE = r"""
import sys, time
from grpo_rewards import load_reward_set
reward_set = load_reward_set({"rewards": [{"use": "math.accuracy"}]})
if sys.argv[1] == "start":
    reward_set.start_workers()
    time.sleep(float(sys.argv[2]))
reward = reward_set.rewards[0]
t = time.perf_counter()
values = reward(completions=[r"\boxed{(x+1)^2}"], solution=["x^2+2x+1"])
print(values[0], time.perf_counter() - t)
"""


def sweep(n: int, seed: int) -> None:
    from adversarial_answers import FAMILIES, case

    from grpo_rewards_math.correctness import Accuracy, clear_cache

    score = Accuracy()
    print("| family | answers | decided in-process | in-process CPU median (ms) | max (ms) | slowest answer (first 60 chars) |")
    print("|---|---|---|---|---|---|")
    worst = 0.0
    for family in FAMILIES:
        times, decided, slowest = [], 0, ("", 0.0)
        for i in range(n):
            for equal in (True, False):
                pred, gold, _ = case(family, seed + i, equal)
                clear_cache()
                text = rf"The answer is \boxed{{{pred}}}."
                t = time.thread_time()
                got = score.quick(text, solution=gold)
                cpu = time.thread_time() - t
                times.append(cpu)
                decided += got is not None
                if cpu > slowest[1]:
                    slowest = (pred, cpu)
        worst = max(worst, max(times))
        print(f"| {family} | {len(times)} | {decided} | {statistics.median(times) * 1000:.2f} | {max(times) * 1000:.2f} "
              f"| `{slowest[0][:60]}` |")
    print(f"\nMaximum in-process CPU per answer: {worst * 1000:.1f} ms (target <= 50 ms): "
          f"{'met' if worst <= 0.050 else 'NOT met'}")


def first_case(wait: float) -> None:
    env = dict(os.environ)
    print("\n| first symbolic sample after the reward set is built | value | seconds |")
    print("|---|---|---|")
    for mode, label in (("cold", "no start_workers (the worker starts on the first call)"),
                        ("start", f"start_workers(), then {wait:g} s of other work (the model load)")):
        out = subprocess.run([sys.executable, "-c", FIRST_CASE, mode, str(wait)], capture_output=True, text=True,
                             env=env, check=True).stdout.split()
        print(f"| {label} | {out[0]} | {float(out[1]):.3f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=40, help="answers per family and outcome")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--wait", type=float, default=10.0, help="seconds between start_workers() and the call")
    args = parser.parse_args()
    print(f"load average at the start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs\n")
    sweep(args.n, args.seed)
    first_case(args.wait)


if __name__ == "__main__":
    main()
