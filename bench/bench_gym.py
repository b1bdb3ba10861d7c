"""grpo-rewards-gym: the sweep over every task, gym.accuracy's throughput, and the import cost on `list`.

Run by hand (results go into bench/gym.md):

    python bench/bench_gym.py sweep --n 5        # every gym task: golds 1.0, nonsense / other golds below
    python bench/bench_gym.py throughput --n 1000
    python bench/bench_gym.py import --repeats 7
    grpo-rewards train examples/gym_arithmetic.yaml --output-dir /tmp/gym-run && \
        python bench/bench_gym.py train /tmp/gym-run    # summarise the run, copy its reward curves to bench/

``sweep`` generates ``n`` rows of every dataset, sends them through a JSONL round trip and scores
the gold answer inside ``<answer>`` tags, nonsense, and another row's gold (``grpo_rewards_gym.sweep``).
``throughput`` scores ``n`` completions of the default ``gym:mix`` (every dataset but the
known-broken ones), half gold, a quarter another row's gold, a quarter without an answer: in
process (the scorer alone) and as TRL calls it (``grpo_rewards_gym.accuracy``: worker processes
under the 10 s deadline) in batches of 64; the first batch, which starts the workers, is timed apart.
``import`` times ``grpo-rewards list`` with every plugin and without gym, and ``import reasoning_gym``.
``train`` reads a finished (or running) run folder's ``metrics.jsonl``: the rewards and
``gym.accuracy``'s labels over the first and last 8 steps, and copies ``reward_curves.png`` to
``bench/reward_curve_gym_arithmetic.png``.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path


def run_sweep(n: int, seed: int) -> None:
    from grpo_rewards_gym import dataset_names
    from grpo_rewards_gym.sweep import markdown, sweep

    started = time.perf_counter()
    results = sweep(dataset_names(), n=n, seed=seed)
    took = time.perf_counter() - started
    print(f"### Sweep: {len(results)} datasets, {n} rows each, seed {seed} ({took:.0f} s)\n")
    print(markdown(results))
    slow = sorted(results, key=lambda r: -r.seconds)[:5]
    print("Slowest (generation + scoring): " + ", ".join(f"{r.name} {r.seconds:.1f} s" for r in slow))


def run_throughput(n: int, batch: int) -> None:
    from grpo_rewards_gym import Accuracy, accuracy, make_mix

    started = time.perf_counter()
    rows = make_mix(n, seed=0)
    made = time.perf_counter() - started
    golds = [r["answer"] for r in rows]
    completions = []
    for i, row in enumerate(rows):
        kind = i % 4
        if kind in (0, 1) and row["answer"] is not None:
            completions.append(f"<think>Working it out.</think>\n<answer>{row['answer']}</answer>")
        elif kind == 2:
            other = next((g for g in golds[i + 1:] + golds[:i] if g is not None and g != row["answer"]), "0")
            completions.append(f"<answer>{other}</answer>")
        else:
            completions.append("I am not sure.")
    datasets = len({r["gym_dataset"] for r in rows})
    print(f"### Throughput: {n} completions of gym:mix ({datasets} datasets; rows made in {made:.1f} s)\n")

    score = Accuracy()
    started = time.perf_counter()
    inproc = [score(c, **r) for c, r in zip(completions, rows)]
    first_pass = time.perf_counter() - started
    started = time.perf_counter()
    inproc = [score(c, **r) for c, r in zip(completions, rows)]
    second_pass = time.perf_counter() - started

    columns = [k for k in rows[0] if k != "prompt"]
    batches = [(rows[i:i + batch], completions[i:i + batch]) for i in range(0, n, batch)]
    values: list[float | None] = []
    times = []
    for chunk, comps in batches:
        t = time.perf_counter()
        values += accuracy(prompts=[r["prompt"] for r in chunk], completions=comps,
                           **{c: [r[c] for r in chunk] for c in columns})
        times.append(time.perf_counter() - t)
    agree = sum(v == p[0] for v, p in zip(values, inproc))
    labels: dict[str, int] = {}
    for _, label in inproc:
        labels[label] = labels.get(label, 0) + 1
    print("| how | time for all | per completion |")
    print("|---|---|---|")
    print(f"| in process, first pass (rebuilds each dataset's scorer once) | {first_pass:.2f} s | "
          f"{1000 * first_pass / n:.2f} ms |")
    print(f"| in process, second pass (scorers cached) | {second_pass:.2f} s | {1000 * second_pass / n:.2f} ms |")
    print(f"| `grpo_rewards_gym.accuracy` in workers, batches of {batch}, all | {sum(times):.2f} s | "
          f"{1000 * sum(times) / n:.2f} ms |")
    print(f"| of which the first batch (starts the workers, imports reasoning-gym) | {times[0]:.2f} s | |")
    print(f"| the other {len(times) - 1} batches | {sum(times[1:]):.2f} s | "
          f"{1000 * sum(times[1:]) / max(1, n - len(batches[0][0])):.2f} ms |")
    print(f"\nworkers agree with the in-process scorer on {agree}/{n}; labels: "
          + ", ".join(f"{k} {v}" for k, v in sorted(labels.items())))


def _time(command: list[str], env: dict[str, str], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        subprocess.run(command, env=env, check=True, capture_output=True)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def run_import(repeats: int) -> None:
    exe = str(Path(sys.executable).with_name("grpo-rewards"))
    env = dict(os.environ)
    every = _time([exe, "list"], {**env}, repeats)
    without = _time([exe, "list"], {**env, "GRPO_REWARDS_PLUGINS": "math,format,length"}, repeats)
    only = _time([exe, "list"], {**env, "GRPO_REWARDS_PLUGINS": "gym"}, repeats)
    bare = _time([sys.executable, "-c", "pass"], env, repeats)
    rg = _time([sys.executable, "-c", "import reasoning_gym"], env, max(3, repeats // 2))
    check = subprocess.run([sys.executable, "-c", "import sys; from grpo_rewards.cli import main; main(['list']); "
                            "print(sorted(m for m in ('reasoning_gym', 'sympy', 'torch') if m in sys.modules))"],
                           capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1]
    print(f"### Import cost (median of {repeats})\n")
    print("| command | wall time |")
    print("|---|---|")
    print(f"| `python -c pass` | {1000 * bare:.0f} ms |")
    print(f"| `grpo-rewards list`, every plugin (gym's 106 tasks included) | {1000 * every:.0f} ms |")
    print(f"| `GRPO_REWARDS_PLUGINS=math,format,length grpo-rewards list` | {1000 * without:.0f} ms |")
    print(f"| `GRPO_REWARDS_PLUGINS=gym grpo-rewards list` | {1000 * only:.0f} ms |")
    print(f"| `python -c 'import reasoning_gym'` (what `list` does not do) | {1000 * rg:.0f} ms |")
    print(f"\nmodules among reasoning_gym, sympy, torch loaded by `list`: {check}")


def run_train(run_dir: Path, window: int) -> None:
    import json
    import shutil

    steps = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines() if line.strip()]
    steps = [s for s in steps if "rewards/gym.accuracy/mean" in s]
    first, last = steps[:window], steps[-window:]
    keys = ["reward", *sorted(k for k in steps[0] if k.startswith("rewards/") and k.endswith("/mean"))]

    def mean(rows: list[dict], key: str) -> float:
        return statistics.mean(r.get(key, 0.0) for r in rows)

    print(f"### Training: {len(steps)} steps of `{run_dir}`\n")
    print(f"| metric | first {window} steps | last {window} steps |")
    print("|---|---|---|")
    for key in keys:
        print(f"| {key} | {mean(first, key):.3f} | {mean(last, key):.3f} |")
    labels = sorted({k for s in steps for k in s if k.startswith("outcomes/gym.accuracy/")})
    for key in labels:
        if any(s.get(key) for s in steps):
            print(f"| {key} (per step, of 8) | {mean(first, key):.2f} | {mean(last, key):.2f} |")
    times = [s["step_time"] for s in steps if "step_time" in s]
    if times:
        print(f"\nmedian step time {statistics.median(times):.1f} s")
    png = run_dir / "reward_curves.png"
    if png.is_file():
        shutil.copyfile(png, Path(__file__).with_name("reward_curve_gym_arithmetic.png"))
        print("reward curves: [reward_curve_gym_arithmetic.png](reward_curve_gym_arithmetic.png)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    s = sub.add_parser("sweep")
    s.add_argument("--n", type=int, default=5)
    s.add_argument("--seed", type=int, default=0)
    t = sub.add_parser("throughput")
    t.add_argument("--n", type=int, default=1000)
    t.add_argument("--batch", type=int, default=64)
    i = sub.add_parser("import")
    i.add_argument("--repeats", type=int, default=7)
    r = sub.add_parser("train")
    r.add_argument("run_dir", type=Path)
    r.add_argument("--window", type=int, default=8)
    args = parser.parse_args()
    print(f"<!-- {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs -->\n")
    if args.what == "sweep":
        run_sweep(args.n, args.seed)
    elif args.what == "throughput":
        run_throughput(args.n, args.batch)
    elif args.what == "train":
        run_train(args.run_dir, args.window)
    else:
        run_import(args.repeats)


if __name__ == "__main__":
    main()
