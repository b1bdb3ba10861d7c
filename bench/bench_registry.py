"""How long ``grpo-rewards list`` takes, and how registration and lookup scale to 100,000 rewards.

Each measurement runs in a fresh interpreter, so imports count. This checkout and a baseline run the
same scripts side by side in one run: ``--baseline-src`` is another commit's source tree (``git archive
REV packages | tar -x -C DIR``), put first on ``PYTHONPATH`` of this venv's interpreter.

    git archive 48448de packages | tar -x -C /tmp/base48
    .venv/bin/python bench/bench_registry.py --baseline-src /tmp/base48

1. ``grpo-rewards list`` with the installed first-party plugins: median wall time and CPU time
   (user + system, of the child) of ``--runs`` runs, with the bytecode cache as an installed wheel
   has it (compiled once first), and with ``--no-cache`` also compiling every module each run (what
   ``PYTHONDONTWRITEBYTECODE=1`` on a fresh source tree gives: every run pays the compile).
   ``--baseline-src`` may be given more than once.
2. A plugin registering ``--rewards`` rewards (one module-level scorer under distinct names):
   ``list --json`` and ``score`` (4 rows, one reward) in process, seconds each.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
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
    return run_timed(python, code, env)[0], run_timed.last


def run_timed(python: str, code: str, env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child) of ``python -c code``; its last output line in ``.last``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, env=env, check=True, timeout=600)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    run_timed.last = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else ""  # type: ignore[attr-defined]
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def list_times(envs: dict[str, dict[str, str]], runs: int) -> None:
    """Median wall and CPU time of ``grpo-rewards list`` per source tree, runs interleaved."""
    times: dict[str, list[tuple[float, float]]] = {label: [] for label in envs}
    for _ in range(runs):  # interleaved: both see the same load
        for label, label_env in envs.items():
            times[label].append(run_timed(sys.executable, LIST, label_env))
    print("| code | wall median | wall min | CPU median | CPU min |\n|---|---|---|---|---|")
    for label, measured in times.items():
        walls, cpus = sorted(m[0] for m in measured), sorted(m[1] for m in measured)
        print(f"| {label} | {statistics.median(walls):.3f} s | {walls[0]:.3f} s | "
              f"{statistics.median(cpus):.3f} s | {cpus[0]:.3f} s |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline-src", action="append", default=[],
                        help="another commit's source tree (its packages/ folder's parent); repeatable")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--rewards", type=int, default=100_000)
    parser.add_argument("--no-cache", action="store_true", help="also time list compiling every module each run")
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items()
           if k not in ("GRPO_REWARDS_PLUGINS", "PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
    envs = {"this checkout": env}
    for baseline in args.baseline_src:
        src = [str(p) for p in sorted(Path(baseline, "packages").glob("*/src"))]
        envs[f"baseline {Path(baseline).name}"] = {**env, "PYTHONPATH": os.pathsep.join(src)}
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    for label_env in envs.values():  # the bytecode cache an installed wheel has
        run_timed(sys.executable, LIST, label_env)
    print(f"\n## grpo-rewards list, bytecode cached (median of {args.runs} runs, fresh interpreter each)\n")
    list_times(envs, args.runs)
    if args.no_cache:
        with tempfile.TemporaryDirectory() as empty:
            uncached = {label: {**e, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPYCACHEPREFIX": empty}
                        for label, e in envs.items()}
            print(f"\n## grpo-rewards list, every module compiled each run (median of {args.runs} runs)\n")
            list_times(uncached, args.runs)
    print(f"\nload average after: {os.getloadavg()[0]:.1f}")
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
