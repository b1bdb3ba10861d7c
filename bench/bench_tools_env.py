"""tools.python's ``run_python`` round trip: the warm sandbox against a fresh sandbox per call, side by side.

Each round makes one call of each kind, alternating, in a fresh rollout (``reset``), so both see the
same machine load; prints the median and quartiles of each and their ratio. Also the round trip of the
third call of a rollout (two earlier cells replayed first), and the calculator's and SQLite's tools.

    python bench/bench_tools_env.py [ROUNDS]     # results go to bench/tools.md by hand
"""

from __future__ import annotations

import statistics
import sys
import time

from grpo_rewards_tools.environments.calculator import Calculator
from grpo_rewards_tools.environments.database import SQLite
from grpo_rewards_tools.environments.python import Python
from grpo_rewards_tools.environments.tasks import make_sqlite


def quartiles(xs: list[float]) -> str:
    q = statistics.quantiles(xs, n=4)
    return f"median {statistics.median(xs) * 1000:.1f} ms (quartiles {q[0] * 1000:.1f}-{q[2] * 1000:.1f})"


def timed(call) -> float:  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


def main(rounds: int) -> None:
    warm, cold = Python(), Python(warm=False)
    warm.reset(), warm.run_python("pass")  # start the warm sandbox of this thread
    times: dict[str, list[float]] = {"warm": [], "cold": [], "warm_third": []}
    for _ in range(rounds):
        warm.reset()
        times["warm"].append(timed(lambda: warm.run_python("print(6 * 7)")))
        cold.reset()
        times["cold"].append(timed(lambda: cold.run_python("print(6 * 7)")))
        warm.run_python("y = 2")
        times["warm_third"].append(timed(lambda: warm.run_python("print(y * 21)")))
    print(f"run_python, warm sandbox:            {quartiles(times['warm'])}")
    print(f"run_python, fresh sandbox per call:  {quartiles(times['cold'])}")
    print(f"fresh / warm (medians): {statistics.median(times['cold']) / statistics.median(times['warm']):.1f}x")
    print(f"run_python, warm, 3rd call of a rollout (2 cells replayed): {quartiles(times['warm_third'])}")
    calc = Calculator()
    print(f"calculate('4821 * 376'): {quartiles([timed(lambda: calc.calculate('4821 * 376')) for _ in range(rounds)])}")
    row = make_sqlite(1, 0)[0]
    db = SQLite()
    db.reset(**row)
    print(f"sqlite reset (build the row's database): {quartiles([timed(lambda: db.reset(**row)) for _ in range(rounds)])}")
    print(f"sqlite query (gold query): {quartiles([timed(lambda: db.query(row['gold_sql'])) for _ in range(rounds)])}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 30)
