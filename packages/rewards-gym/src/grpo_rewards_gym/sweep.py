"""The sweep: every gym task's gold answers must score 1.0 and a nonsense answer less.

For each dataset, rows are generated, sent through a JSONL round trip (``json.dumps`` /
``json.loads`` of the whole row, as a file on disk would), and scored by ``gym.accuracy`` with the
gold answer written as a model would write it (``<answer>gold</answer>``) and with nonsense
(:data:`NONSENSE`). A dataset without gold answers (a checker scores any valid solution) is listed as
such; a scorer that pays nonsense 1.0 is a known-broken scorer (``tasks.BROKEN``). The full sweep
is recorded in ``bench/gym.md`` (``bench/bench_gym.py sweep``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

from .scoring import Accuracy
from .tasks import make_rows

NONSENSE = "definitely wrong 12345"


@dataclass
class TaskSweep:
    """What the sweep found for one dataset."""

    name: str
    rows: int = 0
    gold_scores: list[float | None] = field(default_factory=list)
    nonsense_scores: list[float | None] = field(default_factory=list)
    #: each row scored with the gold answer of another row that differs from its own
    other_gold_scores: list[float | None] = field(default_factory=list)
    no_gold: int = 0
    error: str | None = None
    seconds: float = 0.0

    @property
    def gold_ok(self) -> bool:
        return all(v == 1.0 for v in self.gold_scores)

    @property
    def pays_nonsense(self) -> bool:
        return any(v is not None and v >= 1.0 for v in self.nonsense_scores)

    @property
    def verdict(self) -> str:
        if self.error:
            return f"error: {self.error}"
        problems = []
        if self.no_gold:
            problems.append(f"no gold answer in {self.no_gold}/{self.rows} rows (a checker scores them)")
        if not self.gold_ok:
            problems.append("gold scored " + ", ".join(f"{v}" for v in self.gold_scores if v != 1.0))
        if self.pays_nonsense:
            problems.append(f"pays {max(v or 0.0 for v in self.nonsense_scores)} for {NONSENSE!r}")
        paid = [v for v in self.other_gold_scores if v is not None and v >= 1.0]
        if paid:
            problems.append(f"pays 1.0 for another row's gold answer ({len(paid)}/{len(self.other_gold_scores)})")
        return "; ".join(problems) or "ok"


def sweep_task(name: str, n: int = 3, seed: int = 0, score: Accuracy | None = None) -> TaskSweep:
    """Generate ``n`` rows of ``name`` and score gold and nonsense answers after a JSONL round trip."""
    score = score or Accuracy()
    result = TaskSweep(name)
    started = time.perf_counter()
    try:
        rows = [json.loads(json.dumps(r)) for r in make_rows(name, n, seed)]
        result.rows = len(rows)
        for row in rows:
            if row["answer"] is None:
                result.no_gold += 1
            else:
                result.gold_scores.append(score(f"<answer>{row['answer']}</answer>", **row)[0])
            result.nonsense_scores.append(score(f"<answer>{NONSENSE}</answer>", **row)[0])
        golds = [r["answer"] for r in rows if r["answer"] is not None]
        for row in rows:
            other = next((g for g in golds if g != row["answer"]), None)
            if row["answer"] is not None and other is not None:
                result.other_gold_scores.append(score(f"<answer>{other}</answer>", **row)[0])
    except Exception as exc:  # a dataset that cannot be generated: reported, the sweep goes on
        result.error = f"{type(exc).__name__}: {exc}"[:200]
    result.seconds = time.perf_counter() - started
    return result


def sweep(names: Iterable[str], n: int = 3, seed: int = 0) -> list[TaskSweep]:
    """:func:`sweep_task` for each name."""
    score = Accuracy()
    return [sweep_task(name, n, seed, score) for name in names]


def markdown(results: list[TaskSweep]) -> str:
    """The sweep as a table: the datasets with a finding first, then the clean ones in one line."""
    found = [r for r in results if r.verdict != "ok"]
    clean = [r.name for r in results if r.verdict == "ok"]
    lines = ["| dataset | rows | finding |", "|---|---|---|"]
    lines += [f"| {r.name} | {r.rows} | {r.verdict} |" for r in found]
    return "\n".join(lines) + (f"\n\n{len(clean)} datasets pay every gold answer 1.0, and nonsense and other rows' "
                                "gold answers less: " + ", ".join(clean) + "\n")
