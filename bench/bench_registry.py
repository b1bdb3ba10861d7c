"""How long ``grpo-rewards list`` takes, and how registration and lookup scale to 100,000 rewards.

Each measurement runs in a fresh interpreter, so imports count. Two interpreters side by side (this
checkout's and, with ``--baseline``, another checkout's venv) run the same scripts in one run.

    .venv/bin/python bench/bench_registry.py --baseline /work/main/.venv/bin/python

1. ``grpo-rewards list`` with the installed first-party plugins: median wall time of ``--runs`` runs.
2. A plugin registering ``--rewards`` rewards (one module-level scorer under distinct names):
   ``list --json`` and ``score`` (4 rows, one reward) in process, seconds each.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LIST = "from grpo_rewards.cli import main; main(['list'])"

MANY = '''
import io, json, sys, time, contextlib
import grpo_rewards
from grpo_rewards import hookimpl
from grpo_rewards.registry import Registry, use_registry
from grpo_rewards.cli import main

def score(text, **row):
    return 1.0

N = {n}

class Many:
    @hookimpl
    def register_rewards(self, register):
        for i in range(N):
            register(f"r{{i}}", score, description="one of many")

sys.modules["__main__"].score = score
started = time.perf_counter()
plugins = grpo_rewards.get_plugins(load_entry_points=False)
plugins.add(Many(), "many")
registry = Registry(plugins)
registered = time.perf_counter() - started
with use_registry(registry):
    out = io.StringIO()
    started = time.perf_counter()
    with contextlib.redirect_stdout(out):
        main(["list", "--json"])
    listed = time.perf_counter() - started
    assert len(json.loads(out.getvalue())["plugins"][0]["rewards"]) == N
    started = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        main(["score", "{rows}", "--rewards", "{rewards}", "--no-progress"])
    scored = time.perf_counter() - started
print(f"{{registered:.2f}} {{listed:.2f}} {{scored:.2f}}")
'''


def run(python: str, code: str, env: dict[str, str]) -> tuple[float, str]:
    started = time.perf_counter()
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, env=env, check=True, timeout=600)
    return time.perf_counter() - started, out.stdout.strip().splitlines()[-1] if out.stdout.strip() else ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", help="another venv's python to compare with (same scripts, same run)")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--rewards", type=int, default=100_000)
    args = parser.parse_args()
    pythons = {"this checkout": sys.executable}
    if args.baseline:
        pythons["baseline"] = args.baseline
    env = {k: v for k, v in os.environ.items() if k != "GRPO_REWARDS_PLUGINS"}
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    print(f"\n## grpo-rewards list (median of {args.runs} runs, fresh interpreter each)\n")
    medians = {}
    for label, python in pythons.items():
        times = sorted(run(python, LIST, env)[0] for _ in range(args.runs))
        medians[label] = statistics.median(times)
        print(f"- {label}: {medians[label]:.3f} s (min {times[0]:.3f}, max {times[-1]:.3f})")
    if len(medians) == 2:
        print(f"- ratio baseline / this checkout: {medians['baseline'] / medians['this checkout']:.2f}x")
    with tempfile.TemporaryDirectory() as tmp:
        rows = Path(tmp) / "rows.jsonl"
        rows.write_text("".join(json.dumps({"completion": f"x{i}"}) + "\n" for i in range(4)))
        rewards = Path(tmp) / "set.yaml"
        rewards.write_text(f"rewards:\n  - use: many.r{args.rewards - 1}\n")
        code = MANY.format(n=args.rewards, rows=rows, rewards=rewards)
        print(f"\n## a plugin registering {args.rewards:,} rewards (seconds, in process)\n")
        print("| python | register | list --json | score (4 rows, 1 reward) |\n|---|---|---|---|")
        for label, python in pythons.items():
            _, line = run(python, code, env)
            registered, listed, scored = line.split()
            print(f"| {label} | {registered} | {listed} | {scored} |")


if __name__ == "__main__":
    main()
