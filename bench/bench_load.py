"""Load: ``grpo-rewards score`` over 100,000 completions with the project's default reward set.

1. Writes a JSONL of generated completions (a realistic mix: right and wrong math answers, answers
   only a symbolic check can decide, format hacks, long and huge reasoning, strings and
   conversations, with ``solution`` and ``completion_ids``).
2. Runs ``grpo-rewards score FILE --rewards SET.yaml`` in a subprocess while a sampler reads /proc
   every 50 ms: peak RSS of the main process and of every worker process, the number of worker
   processes, their pids (recycling). Throughput per reward from the command's own table.
3. In process: ``grpo_rewards.scoring.score_rows`` over a slice of the same rows, several passes,
   counting open file descriptors, child processes and RSS after each pass (no growth expected).

The reward set is the ``rewards:`` list of examples/default.yaml (what ``grpo-rewards train`` runs by
default). Results go to ``bench/load.md``.

    .venv/bin/python bench/bench_load.py                       # 100,000 rows
    .venv/bin/python bench/bench_load.py --rows 5000 --out /tmp/load.md
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

SYMBOLIC = [("x^2+{a}x+{b}", "(x+{r})(x+{s})"), ("\\frac{{{a}}}{{{b}}}x", "{a}x/{b}"), ("\\sqrt{{{sq}}}", "{root}"),
            ("{a}\\sqrt{{2}}", "\\sqrt{{{two}}}"), ("\\sin^2 x + \\cos^2 x", "1")]
HACKS = ["<think><think>{a}+{b}</think></think><answer>\\boxed{{{c}}}</answer>", "\\boxed{{}}\\boxed{{{c}}}",
         "\\boxed{{{c}", "The answer is \\boxed{{{c}}} or \\boxed{{{w}}}", "<answer>{c}</answer>", "{c}{c}{c}{c}{c}",
         "\\boxed{{\\boxed{{{c}}}}}"]
NOTES = "<!-- notes: kept when the tables above are regenerated -->"
FILLER = "Let me think step by step about the sum of these numbers and check it twice. "


def make_row(rng: random.Random) -> dict[str, Any]:
    a, b = rng.randint(0, 99), rng.randint(0, 99)
    c, w = a + b, a + b + rng.choice([-2, -1, 1, 3, 10])
    kind = rng.random()
    if kind < 0.40:  # right
        text = f"<think>{a} + {b} = {c}</think> The answer is \\boxed{{{c}}}."
        solution = str(c)
    elif kind < 0.65:  # wrong
        text = f"<think>{a} + {b} = {w}</think> \\boxed{{{w}}}"
        solution = str(c)
    elif kind < 0.68:  # a long answer (over 400 chars): only the symbolic check in a worker reads it
        text = f"\\boxed{{{rng.choice([c, w])}" + " + 0" * rng.randint(100, 250) + "}"
        solution = str(c)
    elif kind < 0.70:  # needs the symbolic check (in worker processes when the quick checks cannot decide)
        r, s = rng.randint(1, 9), rng.randint(1, 9)
        gold, pred = rng.choice(SYMBOLIC)
        fill = {"a": r + s, "b": r * s, "r": r, "s": s, "sq": r * r * 2, "root": f"{r}\\sqrt{{2}}", "two": 2 * (r + s) ** 2}
        solution, text = gold.format(**fill), f"So the result is \\boxed{{{pred.format(**fill)}}}"
    elif kind < 0.80:  # format hacks
        text, solution = rng.choice(HACKS).format(a=a, b=b, c=c, w=w), str(c)
    elif kind < 0.85:  # no answer
        text, solution = rng.choice(["I don't know.", "", "<think>hmm</think>", "Let me think..."]), str(c)
    elif kind < 0.9995:  # long reasoning, 2 to 8 kB
        text = FILLER * rng.randint(25, 100) + f"\\boxed{{{rng.choice([c, w])}}}"
        solution = str(c)
    else:  # huge, 200 kB to 1 MB
        text = FILLER * rng.randint(2_600, 13_000) + f"\\boxed{{{c}}}"
        solution = str(c)
    completion: Any = text
    if rng.random() < 0.3:
        completion = [{"role": "assistant", "content": text}]
    n_ids = min(max(1, len(text) // 4), 512)  # generation stops at max_completion_length
    return {"prompt": f"What is {a} + {b}?", "completion": completion, "solution": solution,
            "completion_ids": [rng.randrange(50_000) for _ in range(n_ids)]}


def write_rows(path: Path, n: int, seed: int) -> dict[str, float]:
    rng = random.Random(seed)
    chars = 0
    with path.open("w", encoding="utf-8") as fh:
        for _ in range(n):
            row = make_row(rng)
            content = row["completion"] if isinstance(row["completion"], str) else row["completion"][0]["content"]
            chars += len(content)
            fh.write(json.dumps(row) + "\n")
    return {"rows": n, "mean_chars": chars / n, "mb": path.stat().st_size / 1e6}


# -- /proc sampling ---------------------------------------------------------------------------
def _stat(pid: int) -> tuple[int, str] | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return int(fields[1]), fields[0]


def descendants(root: int) -> list[int]:
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            info = _stat(int(entry))
            if info:
                parents.setdefault(info[0], []).append(int(entry))
    out, todo = [], [root]
    while todo:
        for child in parents.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def rss_mib(pid: int | str) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def is_worker(pid: int) -> bool:
    """A worker interpreter after its exec (a child caught between fork and exec shows the parent's RSS)."""
    try:
        return b"_worker_entry" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


class Sampler(threading.Thread):
    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid, self.stop = pid, threading.Event()
        self.main_peak = self.worker_peak = self.workers_total_peak = 0.0
        self.max_workers, self.worker_pids = 0, set()

    def run(self) -> None:
        while not self.stop.is_set():
            self.main_peak = max(self.main_peak, rss_mib(self.pid))
            kids = [k for k in descendants(self.pid) if is_worker(k)]
            rss = [rss_mib(k) for k in kids]
            self.worker_pids.update(kids)
            self.max_workers = max(self.max_workers, len(kids))
            if rss:
                self.worker_peak = max(self.worker_peak, max(rss))
                self.workers_total_peak = max(self.workers_total_peak, sum(rss))
            time.sleep(0.05)


def run_score(rows_file: Path, rewards_file: Path, out_file: Path) -> dict[str, Any]:
    command = [str(Path(sys.executable).parent / "grpo-rewards"), "score", str(rows_file), "--rewards",
               str(rewards_file), "--out", str(out_file), "--no-progress"]
    started = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sampler = Sampler(proc.pid)
    sampler.start()
    stdout, stderr = proc.communicate()
    sampler.stop.set()
    sampler.join()
    wall = time.perf_counter() - started
    seconds = {}
    for line in stdout.splitlines():
        parts = line.split()
        if len(parts) >= 10 and re.fullmatch(r"\d+\.\d+", parts[-1]) and not line.startswith("total"):
            seconds[parts[0]] = float(parts[-1])
    return {"command": " ".join(["grpo-rewards", *command[1:]]), "returncode": proc.returncode, "wall": wall,
            "stdout": stdout, "stderr_lines": len(stderr.splitlines()), "seconds": seconds, "sampler": sampler}


def in_process_passes(rows_file: Path, rewards_file: Path, n: int, passes: int) -> list[dict[str, float]]:
    from grpo_rewards import load_reward_set
    from grpo_rewards.scoring import score_rows

    with rows_file.open(encoding="utf-8") as fh:
        rows = [json.loads(next(fh)) for _ in range(n)]
    reward_set = load_reward_set(str(rewards_file), columns=set(rows[0]))
    me = os.getpid()
    out = []
    for i in range(passes + 1):  # pass 0 starts the worker pool
        try:
            from grpo_rewards_math.correctness import clear_cache
        except ImportError:  # pragma: no cover
            clear_cache = None
        if clear_cache:
            clear_cache()  # every pass does its symbolic checks in the workers again
        started = time.perf_counter()
        score_rows(reward_set, [dict(r) for r in rows])
        out.append({"pass": i, "seconds": time.perf_counter() - started, "fds": len(os.listdir("/proc/self/fd")),
                    "children": len(descendants(me)), "rss": rss_mib("self")})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--inprocess-rows", type=int, default=5_000)
    parser.add_argument("--passes", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=str(ROOT / "bench" / "load.md"))
    args = parser.parse_args(argv)

    import yaml

    default = yaml.safe_load((ROOT / "examples" / "default.yaml").read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory(prefix="grpo-load-") as tmp:
        rows_file, rewards_file, out_file = Path(tmp) / "rows.jsonl", Path(tmp) / "rewards.yaml", Path(tmp) / "scored.jsonl"
        rewards_file.write_text(yaml.safe_dump({"rewards": default["rewards"]}, sort_keys=False))
        data = write_rows(rows_file, args.rows, args.seed)
        print(f"wrote {args.rows} rows ({data['mb']:.0f} MB)", flush=True)
        score = run_score(rows_file, rewards_file, out_file)
        print(score["stdout"], flush=True)
        scored = sum(1 for _ in out_file.open(encoding="utf-8")) if out_file.exists() else 0
        passes = in_process_passes(rows_file, rewards_file, min(args.inprocess_rows, args.rows), args.passes)
    s = score["sampler"]
    names = [e.get("as", e["use"]) for e in default["rewards"]]
    lines = [
        "# Load: `grpo-rewards score` over 100,000 completions (`bench/bench_load.py`)",
        "",
        "Reproduce (from the repository root, in the project's venv):",
        "",
        "```bash",
        f"python bench/bench_load.py --rows {args.rows} --passes {args.passes} --seed {args.seed}",
        "```",
        "",
        f"{args.rows:,} generated rows ({data['mb']:.0f} MB of JSONL, mean completion {data['mean_chars']:,.0f} chars): "
        "40% right and 25% wrong a + b answers, 3% long answers (over 400 chars: the quick in-process checks "
        "leave them to the symbolic check in worker processes), 2% symbolic identities, 10% format hacks, 5% no answer, 15% long reasoning (2–8 kB), 0.05% huge (200 kB – 1 MB); up to 512 token ids each; "
        "30% as conversations; `solution` and `completion_ids` columns. Reward set: the `rewards:` of "
        f"examples/default.yaml ({', '.join(names)}). Python {platform.python_version()}, {platform.machine()}, "
        f"{os.cpu_count()} CPUs shared with other jobs.",
        "",
        f"Command: `{score['command'].replace(tmp, '$TMP')}` — exit code {score['returncode']}, "
        f"{score['wall']:.1f} s wall (reading and writing the JSONL included), {scored:,} rows written.",
        "",
        "The command's own output:",
        "",
        "```",
        *[line.replace(tmp, "$TMP") for line in score["stdout"].splitlines()],
        "```",
        "",
        "## Throughput per reward",
        "",
        "| reward | seconds (the command's table) | rows/s |",
        "|---|---|---|",
    ]
    for name in names:
        sec = score["seconds"].get(name)
        lines.append(f"| {name} | {sec:.2f} | {args.rows / sec:,.0f} |" if sec else f"| {name} | - | - |")
    lines += [
        "",
        "## Memory and processes during the command (sampled every 50 ms from /proc)",
        "",
        "| measure | value |",
        "|---|---|",
        f"| peak RSS, main process | {s.main_peak:.0f} MiB |",
        f"| peak RSS, one worker | {s.worker_peak:.0f} MiB |",
        f"| peak RSS, all workers together | {s.workers_total_peak:.0f} MiB |",
        f"| most worker processes at once | {s.max_workers} |",
        f"| distinct worker pids over the run | {len(s.worker_pids)} |",
        "",
        f"## No growth across batches (in process: `score_rows` over {min(args.inprocess_rows, args.rows):,} rows, "
        f"{args.passes} passes after a warm-up pass, symbolic cache cleared before each)",
        "",
        "| pass | seconds | open fds | child processes | RSS MiB |",
        "|---|---|---|---|---|",
    ]
    lines += [f"| {p['pass']}{' (warm-up)' if p['pass'] == 0 else ''} | {p['seconds']:.2f} | {p['fds']} | "
              f"{p['children']} | {p['rss']:.0f} |" for p in passes]
    steady = passes[1:]
    grew = {k: steady[-1][k] - steady[0][k] for k in ("fds", "children", "rss")}
    lines += ["", f"From pass 1 to pass {args.passes}: open fds {grew['fds']:+d}, child processes "
              f"{grew['children']:+d}, RSS {grew['rss']:+.0f} MiB.", ""]
    out = Path(args.out)
    notes = ""
    if out.exists() and NOTES in out.read_text(encoding="utf-8"):
        notes = out.read_text(encoding="utf-8").split(NOTES, 1)[1]
    out.write_text("\n".join(lines) + ("\n" + NOTES + notes if notes else ""), encoding="utf-8")
    print("\n".join(lines))
    return 0 if score["returncode"] == 0 and grew["fds"] <= 0 and grew["children"] <= 0 else 1


if __name__ == "__main__":
    sys.exit(main())
