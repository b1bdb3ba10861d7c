"""judge.rubric: requests per second at concurrency 1, 4 and 16, and its hack corpus, against local servers.

Starts ``transformers serve`` on a free 127.0.0.1 port (offline, ``--threads`` torch threads, one
as the tests use) serving the embedded SmolLM2-135M-Instruct, and the tests' scripted judge
(a fixed 0.2 s per answer: what the client overlaps when the server does not limit it). Each
concurrency scores its own distinct completions with a fresh reward, so no reply comes from the
cache. Then runs ``judge.rubric``'s hack corpus against the SmolLM2 judge with the default rubric.

    python bench/bench_judge.py [--requests 32] [--max-tokens 16] [--threads 1] [--parts scripted,serve,hacks]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "judge"))


def throughput(base_url: str, model: str, requests: int, concurrency: int, max_tokens: int, tag: str) -> dict:
    from grpo_rewards_judge import Rubric

    rubric = Rubric(model=model, base_url=base_url, max_concurrency=concurrency, max_tokens=max_tokens,
                    request_timeout=600)
    completions = [f"Answer {tag}-{concurrency}-{i}: the capital of France is Paris." for i in range(requests)]
    started = time.perf_counter()
    result = rubric(prompts=["What is the capital of France?"] * requests, completions=completions)
    seconds = time.perf_counter() - started
    return {"concurrency": concurrency, "seconds": seconds, "rps": requests / seconds,
            "latency": result.metrics["judge_latency"], "labels": sorted(set(result.labels))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=32)
    parser.add_argument("--max-tokens", type=int, default=16)
    parser.add_argument("--threads", type=int, default=1, help="OMP_NUM_THREADS of the server")
    parser.add_argument("--parts", default="scripted,serve,hacks", help="which of scripted,serve,hacks to run")
    args = parser.parse_args()
    parts = set(args.parts.split(","))

    from judge_servers import Script, ScriptedJudge, TransformersServe

    from grpo_rewards.hacks import run_hacks
    from grpo_rewards.train.model import ensure_embedded

    model = str(ensure_embedded(log=False))
    levels = (1, 4, 16)
    print(f"{args.requests} requests per level, max_tokens {args.max_tokens}, server OMP_NUM_THREADS={args.threads}")
    if "scripted" in parts:
        with ScriptedJudge([Script("Score: 8", delay=0.2)]) as judge:
            rows = [throughput(judge.base_url, "scripted", args.requests, c, args.max_tokens, "s") for c in levels]
        print("\nscripted judge (0.2 s per answer)\n\n| concurrency | seconds | requests/s | vs 1 |\n|---|---|---|---|")
        for r in rows:
            print(f"| {r['concurrency']} | {r['seconds']:.2f} | {r['rps']:.2f} | {r['rps'] / rows[0]['rps']:.2f}x |",
                  flush=True)

    if not parts & {"serve", "hacks"}:
        return
    with tempfile.TemporaryDirectory() as tmp:
        server = TransformersServe(Path(tmp) / "serve.log", threads=args.threads)
        try:
            server.chat(model, [{"role": "user", "content": "hi"}], max_tokens=1)  # loads the model
            rows = [throughput(server.base_url, model, args.requests, c, args.max_tokens, "t") for c in levels
                    ] if "serve" in parts else []
            print("\ntransformers serve, SmolLM2-135M-Instruct on CPU\n\n"
                  "| concurrency | seconds | requests/s | vs 1 | mean latency s | labels |\n|---|---|---|---|---|---|")
            for r in rows:
                print(f"| {r['concurrency']} | {r['seconds']:.2f} | {r['rps']:.2f} | {r['rps'] / rows[0]['rps']:.2f}x "
                      f"| {r['latency']:.2f} | {', '.join(r['labels'])} |")
            if "hacks" in parts:  # the corpus with the grade-line defence on (the default), then off
                for reject in (True, False):
                    started = time.perf_counter()
                    report = run_hacks("judge.rubric", params={"base_url": server.base_url, "model": model,
                                                               "request_timeout": 600, "reject_grade_lines": reject},
                                       deadline=3600)
                    print(f"\nhack corpus against SmolLM2-135M-Instruct, default rubric, reject_grade_lines: "
                          f"{str(reject).lower()} ({time.perf_counter() - started:.0f} s)"
                          "\n\n| entry | paid | max | overpaid |\n|---|---|---|---|")
                    for r in report.results:
                        paid = "None" if r.paid is None else f"{r.paid:.3f}"
                        bound = "-" if r.bound is None else f"{r.bound:.3f}" + (" (reference)" if r.from_reference else "")
                        print(f"| {r.hack.name} | {paid} | {bound} | {'OVER' if r.overpaid else 'no'}"
                              f"{' ' + r.error if r.error else ''} |", flush=True)
        finally:
            server.close()


if __name__ == "__main__":
    main()
