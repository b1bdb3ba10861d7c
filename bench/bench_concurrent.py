"""A TRL GRPO step with three slow rewards, synchronous vs concurrent: the time the rewards take per step.

Rewards: ``code.tests_passed`` (grpo-rewards-code: each completion's last ``python`` block run against its
``code:stdio`` row's 5 tests in the sandbox, in the worker pool, its registered options), and two
in-process scorers that wait 50 ms and 80 ms a sample (a remote judge's latency). TRL calls
synchronous rewards one after another and awaits async ones together; the time of
``GRPOTrainer._calculate_rewards`` is measured for every step of both runs (same seed, same model).

The model is the embedded SmolLM2-135M-Instruct by default: the tiny random model writes no fenced
code, so the code reward would find none to run (``no_code``) and cost nothing; SmolLM2 answers the
``code:stdio`` prompts with ``python`` blocks. ``--model tiny`` runs the tiny model instead. The code
reward's labels are printed, to show how many completions ran in the sandbox.

    python bench/bench_concurrent.py [--steps 4] [--batch 8] [--max-completion-length 128] [--model embedded]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import os
from collections import Counter

import scale_scorers

from grpo_rewards import ConcurrentReward, Reward, get_reward

#: the code reward's labels over every run
CODE_LABELS: Counter[str] = Counter()


def rewards() -> list[Reward]:
    return [get_reward("code.tests_passed"),
            Reward(scale_scorers.sleeps_50ms, metric="judge_a"),
            Reward(scale_scorers.sleeps_80ms, metric="judge_b")]


def run(model: Path, out: Path, concurrent: bool, steps: int, batch: int,
        length: int) -> tuple[list[float], list[float]]:
    from datasets import Dataset
    from trl import GRPOConfig

    reward_times: list[float] = []
    step_times: list[float] = []

    Timed = scale_scorers.timed_trainer(reward_times, step_times)

    from grpo_rewards_code.tasks import make_stdio

    data = Dataset.from_list(make_stdio(64, 0))
    plain = rewards()
    funcs = [ConcurrentReward(r) for r in plain] if concurrent else plain
    args = GRPOConfig(output_dir=str(out), per_device_train_batch_size=batch, num_generations=4,
                      max_completion_length=length, max_steps=steps, logging_strategy="no", report_to=[], save_strategy="no",
                      use_cpu=True, seed=3, disable_tqdm=True)
    Timed(model=str(model), reward_funcs=funcs, args=args, train_dataset=data).train()
    CODE_LABELS.update(plain[0].stats)
    return reward_times, step_times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--batch", type=int, default=8, help="completions per step")
    parser.add_argument("--max-completion-length", type=int, default=128)
    parser.add_argument("--model", choices=["embedded", "tiny"], default="embedded")
    args = parser.parse_args()
    from grpo_rewards.train.model import ensure_embedded
    from grpo_rewards.train.tiny import make_tiny_model

    print(f"load average at the start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        model = make_tiny_model(Path(tmp) / "tiny") if args.model == "tiny" else ensure_embedded(log=False)
        results: dict[bool, tuple[list[float], list[float]]] = {}
        for concurrent in (False, True, False, True):  # interleaved: the machine's load hits both alike
            rewards_s, steps_s = run(Path(model), Path(tmp) / f"out{concurrent}", concurrent, args.steps, args.batch,
                                     args.max_completion_length)
            scale_scorers.add_run(results, concurrent, rewards_s, steps_s)
    print(f"model {args.model}, {args.batch} completions of at most {args.max_completion_length} tokens a step, "
          f"{args.steps} steps a run, 2 runs each (first step of a run left out)")
    print(f"code.tests_passed labels over all runs: {dict(sorted(CODE_LABELS.items()))}")
    scale_scorers.report_runs(results)


if __name__ == "__main__":
    main()
