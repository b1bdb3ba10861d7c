"""Benchmark of the default training run: time per step, share of each step spent in rewards, reward curve.

Runs ``grpo-rewards train`` with the embedded default (SmolLM2-135M-Instruct on math:arithmetic, the
default reward set and GRPO settings) in this process, timing every step with a TrainerCallback, and
reads the rewards' own time per step from the ``timing/<name>`` metrics that each reward logs through
TRL's ``log_metric``. Writes bench/train.md and copies the run's reward curves to
bench/reward_curve_default.png.

    OMP_NUM_THREADS=1 python bench/bench_train.py   # the full default run (40 steps, ~8-12 min on 2 cores)
    python bench/bench_train.py --max-steps 3       # a quick look (does not overwrite the recorded figures)
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import shutil
import statistics
import time
from pathlib import Path

HERE = Path(__file__).parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-steps", type=int, default=None, help="steps (default: the default config's)")
    parser.add_argument("--output-dir", default="/tmp/grpo-rewards-bench-train", help="run directory (overwritten)")
    parser.add_argument("--write", action="store_true",
                        help="write bench/train.md and the PNG even with --max-steps")
    parser.add_argument("--report", default=str(HERE / "train.md"),
                        help="markdown report to write (the PNG goes beside it as reward_curve_default.png)")
    parser.add_argument("overrides", nargs="*", metavar="KEY=VALUE", help="config overrides, as for grpo-rewards train")
    args = parser.parse_args()

    from transformers import TrainerCallback

    from grpo_rewards.train.config import DEFAULT_CONFIG
    from grpo_rewards.train.runner import prepare, run

    class StepClock(TrainerCallback):
        def __init__(self) -> None:
            self.begin: float | None = None
            self.ends: list[float] = []

        def on_train_begin(self, *a, **k) -> None:
            self.begin = time.perf_counter()

        def on_step_end(self, *a, **k) -> None:
            self.ends.append(time.perf_counter())

    started = time.perf_counter()
    # overwrite only a run folder that exists: the runner refuses to clear one it did not write (with
    # --overwrite, a folder created during start-up has no run id yet and would be refused)
    plan = prepare(None, args.overrides, output_dir=args.output_dir, max_steps=args.max_steps,
                   overwrite=Path(args.output_dir).exists())
    prepared = time.perf_counter()
    clock = StepClock()
    trainer = run(plan, callbacks=[clock])
    finished = time.perf_counter()

    marks = [clock.begin, *clock.ends]
    walls = [b - a for a, b in itertools.pairwise(marks)]
    logs = [h for h in trainer.state.log_history if "reward" in h]
    names = plan.reward_set.metrics
    per_reward = {n: [h.get(f"timing/{n}", 0.0) for h in logs] for n in names}
    reward_total = [sum(per_reward[n][i] for n in names) for i in range(len(logs))]
    shares = [r / w for r, w in zip(reward_total, walls)]
    steady = slice(1, None) if len(walls) > 1 else slice(0, None)
    first_curve = {n: logs[0][f"rewards/{n}/mean"] for n in names} | {"total": logs[0]["reward"]}
    k = max(1, len(logs) // 5)
    last_curve = {n: statistics.mean(h[f"rewards/{n}/mean"] for h in logs[-k:]) for n in names}
    last_curve["total"] = statistics.mean(h["reward"] for h in logs[-k:])
    first_k = {n: statistics.mean(h[f"rewards/{n}/mean"] for h in logs[:k]) for n in names}
    first_k["total"] = statistics.mean(h["reward"] for h in logs[:k])

    env = "".join(f"{k}={os.environ[k]} " for k in ("OMP_NUM_THREADS",) if k in os.environ)
    cpu = os.cpu_count()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    full = args.max_steps is None
    rows = [
        ("steps", f"{len(walls)}"),
        ("wall time, whole command", f"{finished - started:.0f} s (checks and dataset {prepared - started:.1f} s)"),
        ("time per step (median; min–max)", f"{statistics.median(walls):.1f} s; {min(walls):.1f}–{max(walls):.1f} s"),
        ("reward time per step, steady state (median)",
         f"{statistics.median(reward_total[steady]) * 1000:.1f} ms"),
        ("share of a step in rewards, steady state (median; max)",
         f"{statistics.median(shares[steady]) * 100:.2f} %; {max(shares[steady]) * 100:.2f} %"),
        ("share in rewards, first step (worker pool start-up)", f"{shares[0] * 100:.2f} %"),
        ("share in rewards, whole run (sum/sum)", f"{sum(reward_total) / sum(walls) * 100:.2f} %"),
    ]
    per_name = [(n, statistics.median(per_reward[n][steady]) * 1000, sum(per_reward[n])) for n in names]
    report = [
        "# Training benchmark: the embedded default run",
        "",
        f"Reproduce: `{env}python bench/bench_train.py{''.join(' ' + o for o in args.overrides)}` "
        "(the default `grpo-rewards train`: "
        f"{DEFAULT_CONFIG['grpo']['max_steps']} steps, SmolLM2-135M-Instruct, "
        f"{DEFAULT_CONFIG['grpo']['per_device_train_batch_size'] // DEFAULT_CONFIG['grpo']['num_generations']} "
        f"prompts x {DEFAULT_CONFIG['grpo']['num_generations']} completions x at most "
        f"{DEFAULT_CONFIG['grpo']['max_completion_length']} tokens per step, math:arithmetic a + b).",
        "",
        f"Machine: {platform.processor() or platform.machine()}, {cpu} cores, torch threads "
        f"{__import__('torch').get_num_threads()}, load average at the end {load:.1f}. The machine was shared with "
        "other jobs while this ran, so absolute times are pessimistic; the shares are ratios within one run.",
        "",
        "| measure | value |",
        "|---|---|",
        *[f"| {a} | {b} |" for a, b in rows],
        "",
        "Reward functions, time per step (steady-state median) and over the whole run:",
        "",
        "| reward | per step | whole run |",
        "|---|---|---|",
        *[f"| {n} | {ms:.2f} ms | {total:.2f} s |" for n, ms, total in per_name],
        "",
        f"Reward curve (mean of the first {k} steps → mean of the last {k} steps):",
        "",
        "| metric | start | end |",
        "|---|---|---|",
        *[f"| {n} | {first_k[n]:.3f} | {last_curve[n]:.3f} |" for n in [*names, "total"]],
        "",
        f"First logged step: {json.dumps({n: round(v, 3) for n, v in first_curve.items()})}",
        "",
        "![reward curves of the default run](reward_curve_default.png)",
        "",
        "Time per step is the wall time between TrainerCallback.on_step_end calls (generation, reward scoring, "
        "forward and backward); reward time is the sum of the `timing/<name>` metrics the rewards log per step.",
    ]
    text = "\n".join(report) + "\n"
    print(text)
    if full or args.write:
        report = Path(args.report)
        report.parent.mkdir(parents=True, exist_ok=True)
        report.write_text(text)
        shutil.copyfile(plan.run_dir / "reward_curves.png", report.parent / "reward_curve_default.png")
        print(f"wrote {report} and {report.parent / 'reward_curve_default.png'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
