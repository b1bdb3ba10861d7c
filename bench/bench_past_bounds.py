"""math.accuracy past the size bounds (issue 42): labels and the worst time of one call on generated families.

    python bench/bench_past_bounds.py --n 50

Three families, seeded: ``x^n - x^n`` against 0 (x = a + sqrt(b), n from 10,001 to 500,000), a k-th root of
``m^{kn}`` against ``m^n``, and the same root of ``m^{kn+1}`` (different). Each pair is scored by the full call
(bounded checks, then the symbolic check, in this process; caches cleared before each), and the label counts
and the call of each family that took the most CPU time (and its wall time) are printed. The first two must never be ``wrong``, the third never
``correct``.
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter

from grpo_rewards_math.correctness import Accuracy, clear_cache


def families(n: int, seed: int = 42) -> dict[str, list[tuple[str, str]]]:
    rng = random.Random(seed)
    zero, root, other = [], [], []
    for _ in range(n):
        a, b, e = rng.randint(1, 9), rng.choice([2, 3, 5, 6, 7, 10, 11, 13]), rng.randint(10_001, 500_000)
        x = rf"({a}+\sqrt{{{b}}})^{{{e}}}"
        zero.append(("0", f"{x}-{x}"))
        m, k, p = rng.randint(2, 99), rng.randint(2, 5), rng.randint(2_001, 40_000)
        root.append((f"{m}^{{{p}}}", rf"\sqrt[{k}]{{{m}^{{{k * p}}}}}"))
        other.append((f"{m}^{{{p}}}", rf"\sqrt[{k}]{{{m}^{{{k * p + 1}}}}}"))
    return {"x^n - x^n vs 0": zero, "root of m^(kn) vs m^n": root, "root of m^(kn+1) vs m^n (different)": other}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=50)
    args = parser.parse_args()
    score = Accuracy()
    score(r"\boxed{x^2}", solution="x^2")  # imports before the first timed call
    for name, pairs in families(args.n).items():
        labels: Counter[str] = Counter()
        worst = (0.0, 0.0, "", "")
        for gold, pred in pairs:
            clear_cache()
            started, cpu = time.perf_counter(), time.process_time()
            _, label = score(rf"the answer is \boxed{{{pred}}}", solution=gold)
            seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
            labels[label] += 1
            worst = max(worst, (cpu, seconds, gold, pred))
        print(f"{name}: {dict(labels)}; most CPU {worst[0] * 1000:.1f} ms ({worst[1] * 1000:.1f} ms wall) for "
              f"{worst[2]} vs {worst[3]}")


if __name__ == "__main__":
    main()
