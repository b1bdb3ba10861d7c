"""tools.python's ``run_python`` round trip: the warm sandbox against a fresh sandbox per call, side by side.

Each round makes one call of each kind, alternating, in a fresh rollout (``reset``), so both see the
same machine load; prints the median and quartiles of each and their ratio. Also the round trip of the
third call of a rollout (two earlier cells replayed first), and the calculator's and SQLite's tools.

    python bench/bench_tools_env.py [ROUNDS]     # results go to bench/tools_env.md by hand

``--against COMMIT`` instead compares the warm round trip with this checkout's sandbox harness and with
COMMIT's (its harness files, from ``git show``), alternating in one process, each in a warm sandbox of
its own (the host side is this checkout's for both):

    python bench/bench_tools_env.py 100 --against main
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
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


def against(commit: str, rounds: int) -> None:
    """Warm ``run_python`` round trips with this checkout's harness and with ``commit``'s, alternating."""
    from grpo_rewards_code import languages
    from grpo_rewards_code import sandbox_command as sandbox_module
    from grpo_rewards_code.harness import PARTS, source

    with tempfile.TemporaryDirectory() as directory:
        for part in PARTS:
            shown = subprocess.run(["git", "show", f"{commit}:packages/rewards-code/src/grpo_rewards_code/{part}"],
                                   check=True, capture_output=True, text=True).stdout
            with open(os.path.join(directory, part), "w") as f:
                f.write(shown)
        sources = {commit: source(directory), "this checkout": sandbox_module._harness_source()}
    own_binds = languages.binds
    variant = [commit]
    # one more read-only bind for the old harness: another warm-sandbox key, so each harness keeps its own sandbox
    languages.binds = lambda: own_binds() + (("/usr/share",) if variant[0] == commit else ())  # type: ignore[assignment]
    env = Python()

    def call(name: str) -> float:
        variant[0] = name
        sandbox_module._harness_source = lambda: sources[name]  # type: ignore[assignment]  # read when a sandbox starts
        env.reset()
        started = time.perf_counter()
        out = env.run_python("print(6 * 7)")
        elapsed = time.perf_counter() - started
        assert out == "42\n", out
        return elapsed

    times: dict[str, list[float]] = {name: [] for name in sources}
    for name in sources:
        call(name)  # start each warm sandbox
    for i in range(rounds):
        for name in (list(sources) if i % 2 == 0 else list(sources)[::-1]):
            times[name].append(call(name))
    for name, values in times.items():
        print(f"run_python, warm sandbox, harness of {name}: {quartiles(values)}")
    old, new = (statistics.median(times[name]) for name in sources)
    print(f"this checkout / {commit} (medians): {new / old:.2f}")


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 30
    if "--against" in sys.argv:
        against(sys.argv[sys.argv.index("--against") + 1], count)
    else:
        main(count)
