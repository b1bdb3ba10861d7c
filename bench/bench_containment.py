"""The execution layer before and after process containment (issue 20), side by side in one run.

Run: .venv/bin/python bench/bench_containment.py [REV]   (REV default: main)

REV's core (``git archive``) and the working tree's each run in a child interpreter whose import path
starts with that core (their workers inherit it); the children alternate, ROUNDS times each, so that
load on the machine hits both alike. Each child times batches of 512 completions through
``Reward(scorer, timeout=5)`` (two workers), a deadline kill and replacement, and measures the memory
its workers hold (with the supervisors, after containment).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).parent
ROOT = HERE.parent
ROUNDS = 3
BATCHES = 40

CHILD = r"""
import json, os, statistics, sys, time
sys.path.insert(0, {bench!r})
from bench_scorers import SCORERS, pause
import grpo_rewards
from grpo_rewards import Reward
from grpo_rewards.execution import get_pool

assert grpo_rewards.__file__.startswith({core!r}), grpo_rewards.__file__
out = {{"batches": {{}}}}

def tree(pid):
    kids = []
    for tid in os.listdir(f"/proc/{{pid}}/task"):
        kids += [int(p) for p in open(f"/proc/{{pid}}/task/{{tid}}/children").read().split()]
    return [pid] + [q for k in kids for q in tree(k)]

completions = [f"Step 1: {{i}} + {{i % 7}} = {{i + i % 7}}. The answer is \\boxed{{{{{{i + i % 7}}}}}}." for i in range(512)]
out["cpu"] = {{}}
pool = get_pool(2)

def ticks():
    total = 0
    for w in pool.pids:
        for p in tree(w):
            fields = open(f"/proc/{{p}}/stat").read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
    return total

for name in ("trivial (len)", "regex format", "word bigrams"):
    reward = Reward(SCORERS[name], name=name, timeout=5.0, workers=2)
    times = []
    reward(prompts=["p"] * 512, completions=list(completions))
    own, workers = time.process_time(), ticks()
    for run in range({batches}):
        batch = list(completions)
        t = time.perf_counter()
        reward(prompts=["p"] * len(batch), completions=batch)
        times.append(time.perf_counter() - t)
    out["cpu"][name] = ((ticks() - workers) / os.sysconf("SC_CLK_TCK") / {batches} * 1000,
                        (time.process_time() - own) / {batches} * 1000)
    out["batches"][name] = statistics.median(times) * 1000

def rss(pid):
    try:
        for line in open(f"/proc/{{pid}}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0

out["worker_rss_kib"] = sum(rss(p) for w in pool.pids for p in tree(w)) / len(pool.pids)
t = time.perf_counter()
outcomes = pool.map(pause, [(3.0,), (0.0,), (0.0,), (0.0,)], timeout=0.5, chunk_size=1)
out["deadline_kill_s"] = time.perf_counter() - t
assert [o.status for o in outcomes] == ["timeout", "ok", "ok", "ok"], outcomes
print(json.dumps(out))
"""


def main() -> None:
    rev = sys.argv[1] if len(sys.argv) > 1 else "main"
    folder = Path(tempfile.mkdtemp(prefix="bench-containment-"))
    subprocess.run(f"git archive {rev} packages/core/src | tar -x -C {folder}", shell=True, check=True, cwd=ROOT)
    cores = {f"before ({rev})": str(folder / "packages/core/src"), "after (working tree)": str(ROOT / "packages/core/src")}
    results: dict[str, list[dict]] = {label: [] for label in cores}
    for _ in range(ROUNDS):
        for label, core in cores.items():
            code = CHILD.format(bench=str(HERE), core=core, batches=BATCHES)
            env = {"PYTHONPATH": core, "PATH": "/usr/bin:/bin"}
            done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
            results[label].append(json.loads(done.stdout.strip().splitlines()[-1]))
    before, after = cores
    print(f"{ROUNDS} rounds of each, alternating; medians over rounds (each round: {BATCHES} batches; wall: their median)\n")
    print("| measure | before | after | after / before |")
    print("|---|---|---|---|")
    for name in results[before][0]["batches"]:
        b = statistics.median(r["batches"][name] for r in results[before])
        a = statistics.median(r["batches"][name] for r in results[after])
        print(f"| batch of 512, {name}: wall | {b:.2f} ms | {a:.2f} ms | {a / b:.2f}x |")
        for i, whose in enumerate(("workers' CPU", "caller's CPU")):
            b = statistics.median(r["cpu"][name][i] for r in results[before])
            a = statistics.median(r["cpu"][name][i] for r in results[after])
            print(f"| batch of 512, {name}: {whose} | {b:.2f} ms | {a:.2f} ms | {a / b:.2f}x |")
    for key, unit, what in (("worker_rss_kib", "MiB", "memory per worker (RSS, with its supervisor)"),
                            ("deadline_kill_s", "s", "one 0.5 s deadline kill + replacement, 3 more items")):
        b = statistics.median(r[key] for r in results[before])
        a = statistics.median(r[key] for r in results[after])
        scale = 1024 if unit == "MiB" else 1
        print(f"| {what} | {b / scale:.2f} {unit} | {a / scale:.2f} {unit} | {a / b:.2f}x |")


if __name__ == "__main__":
    main()
