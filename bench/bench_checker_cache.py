"""bench/code.md, "A checker compiled once": one row's testlib checker judging G completions, the compile cache
emptied before every verdict (what every verdict cost before compile_cache) against kept, alternating.

    .venv/bin/python bench/bench_checker_cache.py [--completions 8] [--rounds 2]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from grpo_rewards_code import TestsPassed
from grpo_rewards_code.compile_cache import CACHE

DATA = Path(__file__).resolve().parents[1] / "tests" / "code" / "data" / "testlib"
#: testlib's own checkers/ncmp.cpp with testlib.h in place of its include (a `checker` column carries no headers)
NCMP = (DATA / "ncmp.cpp").read_text(encoding="utf-8").replace('#include "testlib.h"',
                                                                  (DATA / "testlib.h").read_text(encoding="utf-8"))
TESTS = [{"input": "2 2\n", "output": "4\n"}, {"input": "3 4\n", "output": "7\n"}, {"input": "5 1\n", "output": "6\n"}]
REPLY = "```python\na, b = map(int, input().split())\nprint(a + b)\n```"


def verdicts(reward: TestsPassed, completions: int, keep: bool) -> list[float]:
    """Seconds per completion's verdict."""
    CACHE.clear()
    seconds = []
    for _ in range(completions):
        if not keep:
            CACHE.clear()
        start = time.perf_counter()
        assert reward(REPLY, tests=TESTS, checker=NCMP) == (1.0, "passed")
        seconds.append(time.perf_counter() - start)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--completions", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    reward = TestsPassed()
    reward(REPLY, tests=TESTS)  # the warm sandbox started before timing
    print("| round | way | first verdict (s) | median of the rest (s) | all G verdicts (s) |")
    print("|---|---|---|---|---|")
    for r in range(args.rounds):
        for keep in (False, True):
            s = verdicts(reward, args.completions, keep)
            print(f"| {r + 1} | {'kept' if keep else 'compiled every time'} | {s[0]:.2f} | "
                  f"{statistics.median(s[1:]):.3f} | {sum(s):.1f} |")


if __name__ == "__main__":
    main()
