"""How long ``grpo-rewards list`` takes, and how registration and lookup scale to 100,000 rewards.

Each measurement runs in a fresh interpreter, so imports count. This checkout and a baseline run the
same scripts side by side in one run: ``--baseline-src`` is another commit's source tree (``git archive
REV packages | tar -x -C DIR``), put first on ``PYTHONPATH`` of this venv's interpreter.

    git archive 48448de packages | tar -x -C /tmp/base48
    .venv/bin/python bench/bench_registry.py --baseline-src /tmp/base48

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
    """Wall seconds of ``python -c code`` and its last line of output."""
    started = time.perf_counter()
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, env=env, check=True, timeout=600)
    return time.perf_counter() - started, out.stdout.strip().splitlines()[-1] if out.stdout.strip() else ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline-src", help="another commit's source tree (its packages/ folder's parent)")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--rewards", type=int, default=100_000)
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if k not in ("GRPO_REWARDS_PLUGINS", "PYTHONPATH")}
    envs = {"this checkout": env}
    if args.baseline_src:
        src = [str(p) for p in sorted(Path(args.baseline_src, "packages").glob("*/src"))]
        envs["baseline"] = {**env, "PYTHONPATH": os.pathsep.join(src)}
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    print(f"\n## grpo-rewards list (median of {args.runs} runs, fresh interpreter each)\n")
    times: dict[str, list[float]] = {label: [] for label in envs}
    for _ in range(args.runs):  # interleaved: both see the same load
        for label, label_env in envs.items():
            times[label].append(run(sys.executable, LIST, label_env)[0])
    medians = {}
    for label, measured in times.items():
        measured.sort()
        medians[label] = statistics.median(measured)
        print(f"- {label}: {medians[label]:.3f} s (min {measured[0]:.3f}, max {measured[-1]:.3f})")
    if len(medians) == 2:
        print(f"- ratio baseline / this checkout: {medians['baseline'] / medians['this checkout']:.2f}x")
    with tempfile.TemporaryDirectory() as tmp:
        rows = Path(tmp) / "rows.jsonl"
        rows.write_text("".join(json.dumps({"completion": f"x{i}"}) + "\n" for i in range(4)))
        rewards = Path(tmp) / "set.yaml"
        rewards.write_text(f"rewards:\n  - use: many.r{args.rewards - 1}\n")
        code = MANY.format(n=args.rewards, rows=rows, rewards=rewards)
        print(f"\n## a plugin registering {args.rewards:,} rewards (seconds, in process)\n")
        print("| code | register | list --json | score (4 rows, 1 reward) |\n|---|---|---|---|")
        for label, label_env in envs.items():
            _, line = run(sys.executable, code, label_env)
            registered, listed, scored = line.split()
            print(f"| {label} | {registered} | {listed} | {scored} |")


if __name__ == "__main__":
    main()
