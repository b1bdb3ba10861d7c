"""A TRL GRPO step with ``judge.rubric`` against a local ``transformers serve``, synchronous vs concurrent.

Starts ``transformers serve`` on a free 127.0.0.1 port (offline, one torch thread, as the judge tests
do) serving the embedded SmolLM2-135M-Instruct as the judge, and trains the tiny random model for a
few steps with three rewards: ``judge.rubric`` (a short yes/no rubric, ``max_tokens`` 8, a fresh
in-memory cache per run, so no reply comes from a cache: the tiny model's completions repeat from run
to run with the same seed) and the two sleeping scorers of ``bench_concurrent.py`` (50 ms and 80 ms a
sample). TRL calls synchronous rewards one after another and awaits async ones together; the time of
``GRPOTrainer._calculate_rewards`` is measured for every step, the first step of each run left out.

    python bench/bench_judge_step.py [--steps 4] [--batch 8]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests" / "judge"))

import scale_scorers  # noqa: E402

from grpo_rewards import ConcurrentReward, Reward, get_reward  # noqa: E402

YES_NO = "Question: {prompt}\nAnswer: {completion}\nIs the answer correct? Reply yes or no."
JUDGE_LABELS: Counter[str] = Counter()


def rewards(base_url: str, judge: str) -> list[Reward]:
    return [get_reward("judge.rubric", base_url=base_url, model=judge, template=YES_NO, score_format="yes_no",
                       max_tokens=8, system=None, request_timeout=300),
            Reward(scale_scorers.sleeps_50ms, metric="judge_a"),
            Reward(scale_scorers.sleeps_80ms, metric="judge_b")]


def run(model: Path, base_url: str, judge: str, out: Path, concurrent: bool, steps: int,
        batch: int) -> tuple[list[float], list[float]]:
    from datasets import Dataset
    from trl import GRPOConfig

    reward_times: list[float] = []
    step_times: list[float] = []

    Timed = scale_scorers.timed_trainer(reward_times, step_times)

    data = Dataset.from_list([{"prompt": f"What is {i} + {i}?"} for i in range(64)])
    plain = rewards(base_url, judge)
    funcs = [ConcurrentReward(r) for r in plain] if concurrent else plain
    args = GRPOConfig(output_dir=str(out), per_device_train_batch_size=batch, num_generations=4,
                      max_completion_length=16, max_steps=steps, logging_strategy="no", report_to=[],
                      save_strategy="no", use_cpu=True, seed=3, disable_tqdm=True)
    Timed(model=str(model), reward_funcs=funcs, args=args, train_dataset=data).train()
    JUDGE_LABELS.update(plain[0].stats)
    return reward_times, step_times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--batch", type=int, default=8, help="completions per step")
    args = parser.parse_args()
    from judge_servers import TransformersServe

    from grpo_rewards.train.model import ensure_embedded
    from grpo_rewards.train.tiny import make_tiny_model

    print(f"load average at the start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    judge = str(ensure_embedded(log=False))
    with tempfile.TemporaryDirectory() as tmp:
        server = TransformersServe(Path(tmp) / "serve.log")
        try:
            server.chat(judge, [{"role": "user", "content": "hi"}], max_tokens=1, temperature=0.0)  # loads it
            model = make_tiny_model(Path(tmp) / "tiny")
            results: dict[bool, tuple[list[float], list[float]]] = {}
            for concurrent in (False, True, False, True):  # interleaved: the machine's load hits both alike
                rewards_s, steps_s = run(model, server.base_url, judge, Path(tmp) / f"out{concurrent}", concurrent,
                                         args.steps, args.batch)
                scale_scorers.add_run(results, concurrent, rewards_s, steps_s)
        finally:
            server.close()
    print(f"tiny model, {args.batch} completions a step, {args.steps} steps a run, 2 runs each (first step of a run "
          "left out); judge: SmolLM2-135M-Instruct on transformers serve, 1 thread")
    print(f"judge.rubric labels over all runs: {dict(sorted(JUDGE_LABELS.items()))}")
    scale_scorers.report_runs(results)


if __name__ == "__main__":
    main()
