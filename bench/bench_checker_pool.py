"""bench/code.md, "A checker compiled once by the whole pool": a batch of R rows, each with its own testlib checker
(testlib's ncmp.cpp, a comment naming the row: R different programs), G different completions each, through the core's
worker pool (W workers, started in the call), the binaries shared by the workers (the default) against kept by
each worker alone (``GRPO_REWARDS_CODE_COMPILED=off``), each in a fresh process, alternating.

    .venv/bin/python bench/bench_checker_pool.py [--rows 2] [--completions 4] [--workers 2] [--rounds 2]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
from pathlib import Path

ONE = r"""
import sys, time
sys.path.insert(0, {bench!r})
from bench_checker_cache import NCMP, REPLY, TESTS
from grpo_rewards import get_reward
reward = get_reward("code.tests_passed", options={{"workers": {workers}}})
g, r = {completions}, {rows}
checkers = [NCMP + f"\n// row {{k}}\n" for k in range(r) for _ in range(g)]
start = time.perf_counter()
# (distinct replies: the core scores identical samples once)
replies = [REPLY.replace("```python\n", f"```python\n# reply {{i}}\n") for i in range(g * r)]
values = reward(prompts=["p"] * g * r, completions=replies, tests=[TESTS] * g * r, checker=checkers)
seconds = time.perf_counter() - start
assert values == [1.0] * g * r, values
print(f"{{seconds:.1f}}")
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=2)
    parser.add_argument("--completions", type=int, default=4)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    script = ONE.format(bench=str(Path(__file__).resolve().parent), workers=args.workers, completions=args.completions,
                           rows=args.rows)
    env = {k: v for k, v in os.environ.items() if k != "GRPO_REWARDS_CODE_COMPILED"}
    print(f"| round | binaries | {args.rows} rows x {args.completions} completions, {args.workers} workers: the call (s) | "
          "CPU of the whole process tree (s) |")
    print("|---|---|---|---|")
    for r in range(args.rounds):
        for way, extra in (("each worker's own", {"GRPO_REWARDS_CODE_COMPILED": "off"}), ("shared", {})):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            out = subprocess.run([sys.executable, "-c", script], env={**env, **extra}, capture_output=True, text=True,
                                 check=True).stdout.strip()
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            print(f"| {r + 1} | {way} | {out} | {cpu:.1f} |")


if __name__ == "__main__":
    main()
