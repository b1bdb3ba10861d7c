"""`grpo-rewards score` time against the number of rows, when every row has a key of its own.

Each row is scored once per reward call with only the columns its batch holds, so the time grows
with the rows, not with rows x distinct keys (it was quadratic: 5,000 rows 3.5 s, 1,000 0.26 s).

Run by hand: .venv/bin/python bench/bench_score.py   (results: bench/score.md)
"""

from __future__ import annotations

import io
import json
import sys
import tempfile
import time
from pathlib import Path

from grpo_rewards.scoring import score_file


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        rewards = Path(tmp) / "set.yaml"
        rewards.write_text("rewards:\n  - use: format.boxed\n  - use: length.target\n    with: {target: 5}\n")
        for n in (1_000, 5_000, 20_000):
            rows = Path(tmp) / f"rows{n}.jsonl"
            rows.write_text("".join(json.dumps({"completion": "\\boxed{4}", f"key{i}": i}) + "\n" for i in range(n)))
            started = time.perf_counter()
            score_file(str(rows), str(rewards), progress=False, stream=io.StringIO())
            print(f"{n:>6} rows, one distinct key each: {time.perf_counter() - started:.2f} s", file=sys.stdout)


if __name__ == "__main__":
    main()
