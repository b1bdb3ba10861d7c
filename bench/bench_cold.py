"""What slows a reward call that follows other work: a do-nothing per-sample reward through the core.

Run by hand from the repository root in the project's venv::

    python bench/bench_cold.py            # 200 calls after each kind of 1 ms of other work
    python bench/bench_cold.py --mv       # also: right after a math-verify call on each mined case

The reward's scorer decides every sample at once (``quick`` returns 1.0), so what is measured is the
core's own path (``Reward.score``: rows, labels, stats, the result cache, TRL's ``log_metric`` and
``log_extra`` callbacks), as ``bench/peers/run.py`` calls it: one completion per call. Between two
calls the script runs 1 ms of: nothing; a spin loop (bytecode, no data); allocating small dicts;
sympy ``simplify``; a walk over a 2-million-element list (data and TLB eviction); a sleep.

With ``--mv``, each mined case's math-verify call is followed (in random order, each after its own
math-verify call) by the core's call and by ``flat``: the same bookkeeping written as one flat
function (the row, the scorer's call, the label check, the counts under a lock, a ``RewardResult``
kept for the batch, ``log_metric`` and ``log_extra``), the floor a leaner core path could reach.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


class _Decided:
    def quick(self, text: str, **row: Any) -> tuple[float, str]:
        return 1.0, "correct"

    def __call__(self, text: str, **row: Any) -> tuple[float, str]:
        return 1.0, "correct"


def _timed(reward: Callable[..., Any]) -> Callable[[str, str], float]:
    """``(pred, gold) -> seconds`` of one call of ``reward`` as TRL makes it (with its log callbacks)."""
    def call(pred: str, gold: str) -> float:
        labels: dict[str, Any] = {}
        metrics: dict[str, float] = {}
        started = time.perf_counter()
        reward(prompts=[""], completions=[pred], solution=[gold], log_extra=labels.__setitem__,
               log_metric=metrics.__setitem__)
        return time.perf_counter() - started
    return call


def _reward() -> Callable[[str, str], float]:
    from grpo_rewards import Reward

    reward = Reward(_Decided(), metric="decided", columns=("solution",), timeout=1.0)

    return _timed(reward)


def _flat() -> Callable[[str, str], float]:
    """The core's bookkeeping for one sample in one flat function (no options, plugins or checks)."""
    from grpo_rewards import RewardResult

    scorer, stats, seen, lock, kept = _Decided(), Counter[str](), set(), threading.Lock(), {}

    def reward(prompts: list[Any], completions: list[Any], **kwargs: Any) -> list[float]:
        started = time.perf_counter()
        row = {"solution": kwargs["solution"][0], "prompt": prompts[0], "completion": completions[0]}
        value, label = scorer.quick(completions[0], **row)
        seconds = time.perf_counter() - started
        with lock:
            stats[label] += 1
            seen.add(label)
        kept["decided"] = (completions, list(map(id, completions)), RewardResult([value], [label], seconds, {}))
        kwargs["log_metric"]("timing/decided", seconds)
        kwargs["log_metric"]("outcomes/decided/" + label, 1.0)
        kwargs["log_extra"]("decided/outcome", [label])
        return [value]

    return _timed(reward)


def _for(seconds: float, step: Callable[[], Any]) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        step()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--mv", action="store_true", help="also time calls right after math-verify calls")
    args = parser.parse_args(argv)
    import sympy

    call = _reward()
    x = sympy.symbols("x")
    big = [[i] for i in range(2_000_000)]
    kept: list[Any] = []
    between: dict[str, Callable[[], None]] = {
        "nothing": lambda: None,
        "spin loop": lambda: _for(0.001, lambda: None),
        "allocating dicts": lambda: _for(0.001, lambda: kept.append({"a": [1, 2, 3]})),
        "sympy simplify": lambda: _for(0.001, lambda: sympy.simplify((x + 1) ** 2 - x**2 - 2 * x)),
        "walking a 2M-element list": lambda: _for(0.001, lambda: sum(1 for _ in big[::7])),
        "sleep": lambda: time.sleep(0.001),
    }
    call("x", "1")
    print("| 1 ms of this before each call | median per call (µs) |\n|---|---|")
    for name, work in between.items():
        times = []
        for _ in range(args.calls):
            work()
            times.append(call("x", "1"))
        kept.clear()
        print(f"| {name} | {statistics.median(times) * 1e6:.1f} |")
    if args.mv:
        sys.path.insert(0, str(HERE / "peers"))
        import run  # bench/peers/run.py: math-verify called as its tests call it

        rows = [json.loads(line) for line in (HERE / "peers" / "cases.jsonl").read_text().splitlines() if line]
        run.theirs("$1$", "$1$", {}, "", 3)
        calls = {"the core": call, "flat": _flat()}
        calls["flat"]("x", "1")
        times: dict[str, list[float]] = {name: [] for name in calls}
        rng = random.Random(0)
        for row in rows:
            for name in rng.sample(list(calls), len(calls)):
                run.theirs(row["pred"], row["gold"], row["config"], row["project"], 3)
                times[name].append(calls[name](row["pred"], str(row["gold"])))
        for name, spent in times.items():
            print(f"| a math-verify call on each of the {len(rows)} mined cases, then {name} | "
                  f"{statistics.median(spent) * 1e6:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
