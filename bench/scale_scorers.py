"""Slow scorers for bench_concurrent.py, bench_judge_step.py and bench_ray.py (a module, so that workers and
Ray tasks import them)."""

from __future__ import annotations

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
