"""How much code one ``math.accuracy`` call runs: distinct bytecode instructions per call (its footprint).

Run by hand, from the repository root in the project's venv::

    python bench/peers/footprint.py              # the median and mean over the mined cases
    python bench/peers/footprint.py --top 40     # also the functions that run the most distinct instructions
    python bench/peers/footprint.py --fit        # also: cold time per case against footprint (interleaved with math-verify)

Each mined case (``cases.jsonl``) is scored as ``bench/peers/run.py`` scores it (one completion per
call, with TRL's ``log_metric``/``log_extra`` callbacks, the caches as a single pass leaves them),
under a tracer that records every bytecode instruction executed (``f_trace_opcodes``); a call's
footprint is the number of distinct (code object, offset) pairs. It counts code, not time, so no
machine's speed or load changes it.

Why it matters: a call that runs right after another grader's (run.py's interleaving, or a reward
after a training step) finds its code and data evicted from the caches, and its time follows how
much distinct code it runs rather than how many instructions: ``--fit`` measures each case's median
time over three interleaved passes and fits time against footprint (about 80 ns per distinct
instruction on the 2-core KVM machine of 2026-12-04, r = 0.87).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def _call(reward: Any, pred: str, gold: Any) -> None:
    labels: dict[str, Any] = {}
    metrics: dict[str, float] = {}
    reward(prompts=[""], completions=[pred], solution=[gold], log_extra=labels.__setitem__,
           log_metric=metrics.__setitem__)


def footprints(rows: list[dict[str, Any]]) -> tuple[list[int], Counter[tuple[str, str, int]]]:
    """Distinct instructions of each case's call, and per function over all calls."""
    import grpo_rewards_math

    reward = grpo_rewards_math.make_accuracy(metric="math.accuracy")
    _call(reward, r"\boxed{x^2-1}", "(x-1)(x+1)")  # imports and the worker pool, as run.py's warm-up
    seen: set[tuple[Any, int]] = set()

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        frame.f_trace_opcodes = True
        if event == "opcode":
            seen.add((frame.f_code, frame.f_lasti))
        return tracer

    totals: list[int] = []
    per_function: Counter[tuple[str, str, int]] = Counter()
    for row in rows:
        seen.clear()
        sys.settrace(tracer)
        try:
            _call(reward, row["pred"], row["gold"])
        finally:
            sys.settrace(None)
        totals.append(len(seen))
        for code, _ in seen:
            per_function[(code.co_filename, code.co_name, code.co_firstlineno)] += 1
    return totals, per_function


def cold_times(rows: list[dict[str, Any]], passes: int = 3) -> list[float]:
    """Each case's median seconds over ``passes`` interleaved passes (math-verify's call before each)."""
    sys.path.insert(0, str(HERE))
    import run  # bench/peers/run.py

    from grpo_rewards_math.correctness import clear_cache

    run.ours(r"\boxed{x^2-1}", "(x-1)(x+1)", {})
    run.theirs("$1$", "$1$", {}, "", 3)
    times: list[list[float]] = [[] for _ in rows]
    for _ in range(passes):
        clear_cache()
        for i, row in enumerate(rows):
            run.theirs(row["pred"], row["gold"], row["config"], row["project"], 3)
            started = time.perf_counter()
            run.ours(row["pred"], row["gold"], {})
            times[i].append(time.perf_counter() - started)
    return [statistics.median(t) for t in times]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=Path, default=HERE / "cases.jsonl")
    parser.add_argument("--top", type=int, default=0, help="list the functions with the largest footprint")
    parser.add_argument("--fit", action="store_true", help="fit interleaved time per case against footprint")
    args = parser.parse_args(argv)
    rows = [json.loads(line) for line in args.cases.read_text(encoding="utf-8").splitlines() if line.strip()]
    totals, per_function = footprints(rows)
    print(f"{len(rows)} cases: distinct bytecode instructions per call, median {statistics.median(totals):.0f}, "
          f"mean {statistics.mean(totals):.0f}")
    if args.top:
        print("\n| per call (mean) | function |\n|---|---|")
        for (path, name, line), count in per_function.most_common(args.top):
            print(f"| {count / len(rows):.1f} | `{Path(path).name}:{name}` (line {line}) |")
    if args.fit:
        seconds = cold_times(rows)
        pairs = [(x, s * 1e6) for x, s in zip(totals, seconds) if s < 6e-4]  # decided in-process
        xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
        fit = statistics.linear_regression(xs, ys)
        print(f"\nInterleaved time per case (median of 3 passes), {len(pairs)} cases under 0.6 ms: "
              f"{fit.intercept:.1f} µs + {fit.slope * 1000:.1f} ns per distinct instruction, "
              f"r = {statistics.correlation(xs, ys):.2f}; median time {statistics.median(s * 1e6 for s in seconds):.1f} µs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
