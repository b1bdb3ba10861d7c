"""``grpo-rewards plot`` at 50,000 steps for 3 rewards: the moving average before (a window re-summed at
every step: quadratic) and now (a running sum: linear), side by side in one run (issue 42).

Run: .venv/bin/python bench/bench_plot.py   (results go to bench/core.md by hand)
"""

from __future__ import annotations

import math
import random
import tempfile
import time
from pathlib import Path

from grpo_rewards.train import plot


def quadratic_smooth(values: list[float], window: int) -> list[float]:
    """The moving average as it was before issue 42 (kept here only to time it)."""
    out, acc = [], []
    for v in values:
        acc.append(v)
        if len(acc) > window:
            acc.pop(0)
        finite = [a for a in acc if not math.isnan(a)]
        out.append(sum(finite) / len(finite) if finite else math.nan)
    return out


def history(steps: int) -> list[dict[str, float]]:
    rng = random.Random(0)
    return [{"step": s, "rewards/a/mean": rng.random(), "rewards/b/mean": rng.random(),
             "rewards/c/mean": rng.random(), "reward": rng.random()} for s in range(1, steps + 1)]


def main() -> None:
    linear = plot._smooth
    with tempfile.TemporaryDirectory() as tmp:
        for steps in (5_000, 50_000):
            log = history(steps)
            times = {}
            for name, smooth in (("before (quadratic)", quadratic_smooth), ("now (running sum)", linear)):
                plot._smooth = smooth  # type: ignore[assignment]
                started = time.perf_counter()
                plot.draw(log, Path(tmp) / "curve.png", names=["a", "b", "c"])
                times[name] = time.perf_counter() - started
            plot._smooth = linear
            before, now = times.values()
            print(f"{steps:>6} steps: before {before:6.2f} s, now {now:6.2f} s, {before / now:5.1f}x faster")


if __name__ == "__main__":
    main()
