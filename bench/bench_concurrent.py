"""A TRL GRPO step with three slow rewards, synchronous vs concurrent: the time the rewards take per step.

Rewards: a code-like reward that runs a real subprocess per sample (in the worker pool, 10 s deadline),
and two in-process scorers that wait 50 ms and 80 ms a sample (a remote judge's latency). TRL calls
synchronous rewards one after another and awaits async ones together; the time of
``GRPOTrainer._calculate_rewards`` is measured for every step of both runs (same seed, same model).

    python bench/bench_concurrent.py [--steps 4] [--batch 8]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import scale_scorers

from grpo_rewards import ConcurrentReward, Reward


def rewards() -> list[Reward]:
    return [Reward(scale_scorers.program_output, metric="code_like", timeout=10.0),
            Reward(scale_scorers.sleeps_50ms, metric="judge_a"),
            Reward(scale_scorers.sleeps_80ms, metric="judge_b")]


def run(model: Path, out: Path, concurrent: bool, steps: int, batch: int) -> tuple[list[float], list[float]]:
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    reward_times: list[float] = []
    step_times: list[float] = []

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

    data = Dataset.from_list([{"prompt": f"Count the words of sentence {i}."} for i in range(64)])
    funcs = [ConcurrentReward(r) for r in rewards()] if concurrent else rewards()
    args = GRPOConfig(output_dir=str(out), per_device_train_batch_size=batch, num_generations=4,
                      max_completion_length=16, max_steps=steps, logging_strategy="no", report_to=[], save_strategy="no",
                      use_cpu=True, seed=3, disable_tqdm=True)
    Timed(model=str(model), reward_funcs=funcs, args=args, train_dataset=data).train()
    return reward_times, step_times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--batch", type=int, default=8, help="completions per step")
    args = parser.parse_args()
    from grpo_rewards.train.tiny import make_tiny_model

    with tempfile.TemporaryDirectory() as tmp:
        model = make_tiny_model(Path(tmp) / "tiny")
        results = {}
        for concurrent in (False, True, False, True):  # interleaved: the machine's load hits both alike
            rewards_s, steps_s = run(model, Path(tmp) / f"out{concurrent}", concurrent, args.steps, args.batch)
            results.setdefault(concurrent, ([], []))
            results[concurrent][0].extend(rewards_s[1:])  # the first step starts the worker pool
            results[concurrent][1].extend(steps_s[1:])
    print(f"{args.batch} completions a step, {args.steps} steps a run, 2 runs each (first step of a run left out)")
    for concurrent, (rewards_s, steps_s) in results.items():
        print(f"{'concurrent ' if concurrent else 'synchronous'}: rewards {statistics.median(rewards_s):.3f} s a step "
              f"(median of {len(rewards_s)}; min {min(rewards_s):.3f}), whole step {statistics.median(steps_s):.3f} s")
    ratio = statistics.median(results[True][0]) / statistics.median(results[False][0])
    print(f"reward time, concurrent / synchronous: {ratio:.2f}")


if __name__ == "__main__":
    main()
