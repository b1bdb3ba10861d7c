"""Slow scorers for bench_concurrent.py, bench_judge_step.py and bench_ray.py (a module, so that workers and
Ray tasks import them)."""

from __future__ import annotations

import os
import statistics
import time


def sleeps_50ms(text: str, **row: object) -> float:
    """Waits 50 ms a sample (a remote judge's latency), then scores the length."""
    time.sleep(0.05)
    return min(1.0, len(text) / 100)


def sleeps_80ms(text: str, **row: object) -> float:
    """Waits 80 ms a sample, then scores the word count."""
    time.sleep(0.08)
    return min(1.0, len(text.split()) / 20)


def length(text: str, **row: object) -> float:
    """~1 µs: the length in characters (for the per-task overhead)."""
    return float(len(text))


def timed_trainer(reward_times: list[float], step_times: list[float]) -> type:
    """TRL's ``GRPOTrainer`` that appends each step's reward time (``_calculate_rewards``) and
    whole ``training_step`` time, in seconds, to the two lists (the step benchmarks' one timer)."""
    from trl import GRPOTrainer

    class Timed(GRPOTrainer):
        def _calculate_rewards(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            started = time.perf_counter()
            try:
                return super()._calculate_rewards(*args, **kwargs)
            finally:
                reward_times.append(time.perf_counter() - started)

        def training_step(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            started = time.perf_counter()
            try:
                return super().training_step(*args, **kwargs)
            finally:
                step_times.append(time.perf_counter() - started)

    return Timed


def add_run(results: dict[bool, tuple[list[float], list[float]]], concurrent: bool, rewards_s: list[float],
            steps_s: list[float]) -> None:
    """Add one run's reward and step times to ``results[concurrent]``, its first step left out (it starts
    the worker pool or the judge's connections)."""
    results.setdefault(concurrent, ([], []))
    results[concurrent][0].extend(rewards_s[1:])
    results[concurrent][1].extend(steps_s[1:])


def report_runs(results: dict[bool, tuple[list[float], list[float]]]) -> None:
    """Print each form's median reward and step time, the concurrent / synchronous ratio and the load."""
    for concurrent, (rewards_s, steps_s) in results.items():
        print(f"{'concurrent ' if concurrent else 'synchronous'}: rewards {statistics.median(rewards_s):.3f} s a step "
              f"(median of {len(rewards_s)}; min {min(rewards_s):.3f}), whole step {statistics.median(steps_s):.3f} s")
    ratio = statistics.median(results[True][0]) / statistics.median(results[False][0])
    print(f"reward time, concurrent / synchronous: {ratio:.2f}")
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
