"""The core's share of ``math.accuracy``'s per-call time, in ``run.py``'s conditions.

Run by hand, from the repository root in the project's venv::

    python bench/peers/core_share.py            # interleaved with math-verify, as run.py measures
    python bench/peers/core_share.py --no-mv    # ours alone

It runs ``bench/peers/run.py`` unchanged (one completion per call, each after math-verify's call on
the case before) and times the scorer's ``quick`` inside each call as well. Over the cases decided
in the calling process (``quick`` answered, under 0.4 ms), it prints the medians of the whole call,
of ``quick``, and of the difference: the core's own path (rows, labels, stats, the result cache,
TRL's ``log_metric``/``log_extra``), with the caches as the math code before it left them.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import run  # bench/peers/run.py


def main(argv: list[str]) -> int:
    from grpo_rewards_math.correctness import Accuracy

    spent: list[float] = []
    quick = Accuracy.quick

    def timed(self: Accuracy, text: str, **row: Any) -> Any:
        started = time.perf_counter()
        try:
            return quick(self, text, **row)
        finally:
            spent.append(time.perf_counter() - started)

    calls: list[tuple[float, float]] = []
    ours = run.ours

    def measured(pred: str, gold: Any, params: dict[str, Any]) -> tuple[float | None, str, float, float]:
        spent.clear()
        out = ours(pred, gold, params)
        calls.append((out[2], spent[0] if spent else 0.0))
        return out

    Accuracy.quick = timed  # type: ignore[method-assign]
    run.ours = measured
    try:
        run.main(["--no-mv"] if "--no-mv" in argv else [])
    finally:
        Accuracy.quick, run.ours = quick, ours  # type: ignore[method-assign]
    decided = [c for c in calls[1:] if c[1] and c[0] < 4e-4]  # [0]: run.py's warm-up call
    print(f"\n{len(decided)} cases decided in the calling process; medians (µs): whole call "
          f"{statistics.median(c[0] for c in decided) * 1e6:.1f}, quick {statistics.median(c[1] for c in decided) * 1e6:.1f}, "
          f"the core's path {statistics.median(c[0] - c[1] for c in decided) * 1e6:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
