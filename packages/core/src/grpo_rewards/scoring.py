"""Offline scoring: a JSONL file of completions through a reward set, with a summary table."""

from __future__ import annotations

import json
import math
import sys
import time
from collections import Counter
from pathlib import Path
from typing import IO, Any

from .protocol import GrpoRewardsError, RewardError
from .rewardset import RewardSet, load_reward_set


def _read_rows(path: Path, errors: list[str]) -> list[tuple[int, dict[str, Any]]]:
    rows = []
    with path.open(encoding="utf-8", errors="replace") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                errors.append(f"line {lineno}: not JSON ({exc.msg})")
                continue
            if not isinstance(row, dict) or "completion" not in row:
                errors.append(f"line {lineno}: expected an object with a 'completion' field")
                continue
            rows.append((lineno, row))
    return rows


class _Progress:
    def __init__(self, total: int, enabled: bool, stream: IO[str]) -> None:
        self.total, self.done, self.stream = total, 0, stream
        self.enabled = enabled and total >= 1000 and stream.isatty()
        self.started = time.monotonic()

    def update(self, n: int) -> None:
        self.done += n
        if self.enabled:
            frac = self.done / self.total
            bar = "#" * int(30 * frac)
            rate = self.done / max(1e-9, time.monotonic() - self.started)
            self.stream.write(f"\r[{bar:<30}] {self.done}/{self.total} {rate:,.0f} rows/s")
            self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")


def score_rows(reward_set: RewardSet, rows: list[dict[str, Any]], batch_size: int = 256,
               progress: _Progress | None = None) -> tuple[list[dict[str, float | None]], dict[str, Counter[str]],
                                                          list[tuple[int, str]]]:
    """Score dict rows (``completion``, optional ``prompt``, columns); returns scores, outcome counts, failures.

    A batch in which a reward raises is retried row by row so that one bad row is reported by its
    index and every other row is still scored.
    """
    names = reward_set.names
    scores: list[dict[str, float | None]] = [{} for _ in rows]
    counts: dict[str, Counter[str]] = {n: Counter() for n in names}
    failures: list[tuple[int, str]] = []
    columns = sorted({k for row in rows for k in row if k not in ("prompt", "completion")})

    def arguments(batch: list[dict[str, Any]]) -> dict[str, Any]:
        # built once per batch and shared by every reward, so results one reward reuses from
        # another (reward-set ``inputs``) are recognised as the same batch
        kwargs: dict[str, Any] = {c: [row.get(c) for row in batch] for c in columns if c != "completion_ids"}
        kwargs["prompts"] = [row.get("prompt", "") for row in batch]
        kwargs["completions"] = [row["completion"] for row in batch]
        has_ids = all(isinstance(row.get("completion_ids"), list) for row in batch)
        kwargs["completion_ids"] = [row["completion_ids"] for row in batch] if has_ids else None
        return kwargs

    for start in range(0, len(rows), batch_size):
        batch = rows[start:start + batch_size]
        shared = arguments(batch)
        for name, reward in zip(names, reward_set.rewards):
            before = Counter(reward.stats)
            try:
                values = reward(**shared)
            except RewardError:
                values = []
                for offset, row in enumerate(batch):
                    try:
                        values.extend(reward(**arguments([row])))
                    except RewardError as exc:
                        failures.append((start + offset, f"{name}: {exc}"))
                        counts[name]["error"] += 1
                        values.append(None)
            for offset, value in enumerate(values):
                scores[start + offset][name] = value
            counts[name].update(reward.stats - before)
        if progress:
            progress.update(len(batch))
    return scores, counts, failures


def _own_outcomes(reward: Any) -> Counter[str]:
    """Outcome labels a batch reward counts itself (``outcome_counts``, e.g. math.accuracy's)."""
    own = getattr(reward.impl, "outcome_counts", None)
    return own if isinstance(own, Counter) else Counter()


def _summary(values: list[float]) -> tuple[str, str, str, str]:
    if not values:
        return "-", "-", "-", "-"
    mean = sum(values) / len(values)
    std = math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))
    return f"{mean:.4f}", f"{std:.4f}", f"{min(values):.4f}", f"{max(values):.4f}"


def score_file(path: str, rewards: str, out: str | None = None, progress: bool = True,
               batch_size: int = 256, stream: IO[str] | None = None) -> int:
    """``grpo-rewards score FILE --rewards SET.yaml``: prints a table per reward; 1 if any row failed."""
    stream = stream if stream is not None else sys.stdout  # the current one, not the one at import time
    file = Path(path)
    if not file.exists():
        raise GrpoRewardsError(f"file not found: {path}")
    if not file.is_file():
        raise GrpoRewardsError(f"not a file: {path} (expected JSONL, one completion per line)")
    errors: list[str] = []
    numbered = _read_rows(file, errors)
    columns = {k for _, row in numbered for k in row} | {"prompt"}
    reward_set = load_reward_set(rewards, columns=columns)
    rows = [row for _, row in numbered]
    bar = _Progress(len(rows), progress, sys.stderr)
    started = time.perf_counter()
    scores, counts, failures = score_rows(reward_set, rows, batch_size=batch_size, progress=bar)
    bar.close()
    elapsed = time.perf_counter() - started
    for index, message in failures:
        errors.append(f"line {numbered[index][0]}: {message}")
    header = f"{'reward':<28} {'weight':>6} {'mean':>8} {'std':>8} {'min':>8} {'max':>8} {'None':>6} " \
             f"{'timeout':>7} {'errors':>6} {'seconds':>8}"
    print(f"scored {len(rows)} rows from {path} in {elapsed:.2f} s", file=stream)
    print(header, file=stream)
    for name, weight, reward in zip(reward_set.names, reward_set.reward_weights, reward_set.rewards):
        values = [s[name] for s in scores if s.get(name) is not None]
        nones = sum(1 for s in scores if s.get(name) is None)
        c = counts[name] + _own_outcomes(reward)
        mean, std, lo, hi = _summary(values)  # type: ignore[arg-type]
        print(f"{name:<28} {weight:>6g} {mean:>8} {std:>8} {lo:>8} {hi:>8} {nones:>6} "
              f"{c.get('timeout', 0):>7} {c.get('error', 0) + c.get('crashed', 0):>6} {reward.seconds:>8.3f}",
              file=stream)
    totals = [reward_set.total([s.get(n) for n in reward_set.names]) for s in scores]
    mean, std, lo, hi = _summary(totals)
    print(f"{'total (weighted)':<28} {'':>6} {mean:>8} {std:>8} {lo:>8} {hi:>8}", file=stream)
    for name, reward in zip(reward_set.names, reward_set.rewards):
        extra = _own_outcomes(reward)
        if extra:
            labels = ", ".join(f"{k} {v}" for k, v in sorted(extra.items()))
            print(f"outcomes of {name}: {labels}", file=stream)
    if out:
        with open(out, "w", encoding="utf-8") as fh:
            for row, s, total in zip(rows, scores, totals):
                line = json.dumps({**row, "rewards": s, "reward": total}, ensure_ascii=False)
                try:
                    line.encode("utf-8")
                except UnicodeEncodeError:  # a lone surrogate (valid JSON "\ud800"): keep it escaped
                    line = json.dumps({**row, "rewards": s, "reward": total})
                fh.write(line + "\n")
        print(f"wrote {out}", file=stream)
    for message in errors:
        print(f"bad row: {message}", file=sys.stderr)
    return 1 if errors else 0
