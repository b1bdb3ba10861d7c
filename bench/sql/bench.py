"""SQL queries per second through ``code.sql_match`` against plain ``sqlite3`` in process (the cost of isolation).

The workload: the 190 mined Spider dev rows (tests/code/data/spider/mined.jsonl: a real model's predictions on
flight_2, pets_1 and tvshow), each prediction run and compared with its gold's rows. Side by side, interleaved
over ``--rounds`` rounds, in one thread:

- ``sqlite3``: the prediction run in this process on the database opened read-only, its rows fetched and
  compared with the gold's (``results_match``), no isolation, no time limit;
- ``reward``: the scorer ``SqlMatch`` called as the reward calls it (the query through the warm sandbox: a fresh
  supervisor and a forked runner per query, the authorizer and the progress handler);
- ``reward_batch``: TRL's call of the registered reward (``get_reward("code.sql_match")``) on all 190 rows
  at once (the core's execution layer included).

The gold rows are computed before timing, in both (the reward caches its gold per process), so both measure one
query a sample. ``python bench/sql/bench.py --rounds 5``.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "code" / "data" / "spider"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    from grpo_rewards import get_reward
    from grpo_rewards_code.sandbox import get_sandbox
    from grpo_rewards_code.sql import SqlMatch
    from grpo_rewards_code.sql_rows import normalise_sql_row, results_match

    rows = [json.loads(line) for line in (DATA / "mined.jsonl").read_text(encoding="utf-8").splitlines()]
    folder = str(DATA / "database")
    for row in rows:
        row["database_dir"] = folder
    completions = [f"```sql\n{r['predicted']}\n```" for r in rows]

    def connect(db_id: str) -> sqlite3.Connection:
        conn = sqlite3.connect(f"file:{folder}/{db_id}/{db_id}.sqlite?mode=ro", uri=True)
        conn.text_factory = lambda b: b.decode("utf-8", "replace")
        return conn

    gold = {}
    for row in rows:
        with connect(row["db_id"]) as conn:
            gold[row["line"]] = conn.execute(row["query"]).fetchall()
    ordered = {r["line"]: normalise_sql_row(r).ordered for r in rows}

    def plain() -> int:
        matched = 0
        for row in rows:
            conn = connect(row["db_id"])
            try:
                got = conn.execute(row["predicted"]).fetchall()
                matched += results_match(gold[row["line"]], got, ordered[row["line"]])
            except sqlite3.Error:
                pass
            finally:
                conn.close()
        return matched

    score = SqlMatch()

    def reward() -> int:
        return sum(score(c, **r)[0] == 1.0 for c, r in zip(completions, rows))

    batch = get_reward("code.sql_match")
    columns = {k: [r.get(k) for r in rows] for k in ("db_id", "query", "database_dir")}

    def reward_batch() -> int:
        return sum(v == 1.0 for v in batch(prompts=["p"] * len(rows), completions=completions, **columns))

    print(f"sandbox: {get_sandbox().description}", file=sys.stderr)
    print(f"python {sys.version.split()[0]}, sqlite {sqlite3.sqlite_version}, load {os.getloadavg()[0]:.1f}")
    sides = {"sqlite3": plain, "reward": reward, "reward_batch": reward_batch}
    counts = {name: fn() for name, fn in sides.items()}  # warm-up: golds cached, the warm sandbox and workers started
    print("matched per side:", counts)
    rates: dict[str, list[float]] = {name: [] for name in sides}
    for _ in range(args.rounds):
        for name, fn in sides.items():
            start = time.perf_counter()
            fn()
            rates[name].append(len(rows) / (time.perf_counter() - start))
    for name, values in rates.items():
        print(f"{name:>13}: {statistics.median(values):9.1f} queries/s (min {min(values):.1f}, max {max(values):.1f})")
    base = statistics.median(rates["sqlite3"])
    for name in ("reward", "reward_batch"):
        print(f"sqlite3 / {name}: {base / statistics.median(rates[name]):.0f}x")
    print(f"load after: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
