"""Offline scoring: a JSONL file of completions through a reward set, as training would score it.

Rows are batched by prompt, as GRPO batches a prompt's group of completions: all rows of one
prompt go to a reward in the same call, even when they outnumber ``batch_size``, so group rewards
(``length.group_relative``) see the same groups they see in training. Rows without a ``prompt``
are batched in file order. Three kinds of trouble are kept apart in the report:

- *bad rows*: input that cannot be scored (not UTF-8, not JSON, no usable ``completion``); each is
  left out and the other rows of its prompt are still scored together as one group;
- *missing columns*: rows without a column a reward reads; that reward scores them ``None``;
- *reward errors*: a reward raised on rows that are fine as input; a failing call is retried one
  prompt group at a time (one row at a time for a per-sample reward), so only the rows it fails
  on get ``None``.
"""

from __future__ import annotations

import json
import math
import sys
import time
from collections import Counter
from pathlib import Path
from typing import IO, Any

from .errors import GrpoRewardsError, RewardError
from .execution.threads import call_with_deadline
from .local import scorer_files
from .outcomes import Tally
from .outfile import every_jsonl_row
from .protocol import ROW_FIELDS, UNLOGGED_LABELS
from .reward import Reward
from .rewardset import RewardSet, load_reward_set
from .scorer_hooks import explainer
from .scoring_input import RESERVED_COLUMNS, TokenIds, atomic_writer, check_out, dump_row, read_rows, unit

#: Seconds a scorer's ``explain`` may take for one row (``score --explain``, ``compare``).
EXPLAIN_DEADLINE = 10.0


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


def _group_key(row: dict[str, Any], index: int) -> tuple[Any, ...]:
    if "prompt" not in row:
        return ("row", index)
    prompt = row["prompt"]
    if isinstance(prompt, str):
        return ("prompt", prompt)
    return ("prompt", json.dumps(prompt, sort_keys=True, default=str))


def prompt_batches(rows: list[dict[str, Any]], batch_size: int) -> list[list[list[int]]]:
    """Row indices in batches of whole prompt groups: ``[[group, group, ...], ...]``.

    Groups are filled into a batch in order of first appearance until the next group would take
    it past ``batch_size``; a group larger than ``batch_size`` is a batch of its own.

    >>> rows = [{"prompt": "a"}, {"prompt": "b"}, {"prompt": "a"}, {"prompt": "c"}, {"prompt": "c"}]
    >>> prompt_batches(rows, 2)
    [[[0, 2]], [[1]], [[3, 4]]]
    >>> prompt_batches(rows, 1)
    [[[0, 2]], [[1]], [[3, 4]]]
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, not {batch_size}")
    groups: dict[tuple[Any, ...], list[int]] = {}
    for i, row in enumerate(rows):
        groups.setdefault(_group_key(row, i), []).append(i)
    batches: list[list[list[int]]] = []
    current: list[list[int]] = []
    size = 0
    for members in groups.values():
        if current and size + len(members) > batch_size:
            batches.append(current)
            current, size = [], 0
        current.append(members)
        size += len(members)
    if current:
        batches.append(current)
    return batches


def _needed_columns(reward: Any) -> set[str]:
    """Columns a reward reads, its ``inputs:`` dependencies' included."""
    needed = set(getattr(reward, "columns", ()))
    for dependency in getattr(reward, "inputs", {}).values():
        needed |= _needed_columns(dependency)
    return needed - set(getattr(reward, "inputs", {}))


def arguments(batch: list[dict[str, Any]], wanted: set[str]) -> dict[str, Any]:
    """TRL's keyword arguments for one batch: prompts, completions, completion_ids and the columns.

    Only the columns these rows have (and those a reward needs) are built, so rows with many
    distinct keys cost what they hold, not rows x every key in the file.
    """
    columns = set(wanted)
    for row in batch:
        columns.update(row)
    kwargs: dict[str, Any] = {
        c: [row.get(c) for row in batch] for c in sorted(columns - ROW_FIELDS - RESERVED_COLUMNS)
    }
    kwargs["prompts"] = [row.get("prompt", "") for row in batch]
    kwargs["completions"] = [row["completion"] for row in batch]
    ids = [row.get("completion_ids") for row in batch]
    kwargs["completion_ids"] = ids if any(i is not None for i in ids) else None
    return kwargs


def reason(exc: BaseException) -> str:
    """What went wrong, without naming the reward or the sample (a report names both itself)."""
    if isinstance(exc, RewardError):
        return exc.message
    if isinstance(exc, GrpoRewardsError):
        return str(exc)
    return f"raised {type(exc).__name__}: {exc}" if str(exc) else f"raised {type(exc).__name__}"


def score_groups(reward: Reward, rows: list[dict[str, Any]], groups: list[list[int]], wanted: set[str],
                 first: dict[str, Any] | None = None) -> tuple[dict[int, tuple[float | None, str]],
                                                              list[tuple[int, BaseException]]]:
    """Score the rows of ``groups`` (lists of row indices, one per prompt) with ``reward``.

    One call for all of them (with ``first`` as its arguments when given, so the rewards of one
    set share a batch); when it raises, one call per prompt group, and for a per-sample reward a
    failing group row by row (a batch reward keeps its group whole), so one bad row fails alone.
    Returns ``{row: (value, label)}`` for the rows scored and ``(row, error)`` for the others.
    """
    scored: dict[int, tuple[float | None, str]] = {}
    failed: list[tuple[int, BaseException]] = []

    def attempt(part: list[int], kwargs: dict[str, Any] | None = None) -> BaseException | None:
        try:
            result = reward.score(**(kwargs or arguments([rows[i] for i in part], wanted)))
        except Exception as exc:
            return exc
        scored.update(zip(part, zip(result.values, result.labels)))
        return None

    if attempt([i for group in groups for i in group], first) is None:
        return scored, failed
    for group in groups:
        error = attempt(group)
        if error is None:
            continue
        if len(group) > 1 and reward.form != "batch":
            for i in group:
                single = attempt([i])
                if single is not None:
                    failed.append((i, single))
        else:
            failed.extend((i, error) for i in group)
    return scored, failed


def score_rows(reward_set: RewardSet, rows: list[dict[str, Any]], batch_size: int = 256,
               progress: _Progress | None = None, labels: list[dict[str, str]] | None = None,
               ) -> tuple[list[dict[str, float | None]], dict[str, Counter[str]], list[tuple[int, str, str]]]:
    """Score dict rows (``completion``, optional ``prompt``, columns) batched by prompt.

    Returns the values per row, each reward's outcome counts (the labels of its results), and
    ``(row index, metric, reason)`` for each row a reward failed on. ``labels``, when given (one
    dict per row), receives each row's outcome label per metric (``error`` where a reward failed).
    """
    metrics = reward_set.metrics
    rewards = reward_set.rewards
    labels = labels if labels is not None else [{} for _ in rows]
    scores: list[dict[str, float | None]] = [{} for _ in rows]
    tallies = {m: Tally() for m in metrics}  # the label each row ends with (the rewards' own stats count calls)
    failures: list[tuple[int, str, str]] = []
    wanted = set().union(*(_needed_columns(r) for r in rewards)) if rewards else set()
    for groups in prompt_batches(rows, batch_size):
        shared = arguments([rows[i] for group in groups for i in group], wanted)  # one batch: dependencies reused
        for metric, reward in zip(metrics, rewards):
            scored, failed = score_groups(reward, rows, groups, wanted, shared)
            ended = []
            for i, (value, label) in scored.items():
                scores[i][metric] = value
                labels[i][metric] = label
                ended.append(label)
            for i, error in failed:
                scores[i][metric] = None
                labels[i][metric] = "error"
                ended.append("error")
                failures.append((i, metric, reason(error)))
            tallies[metric].add(0.0, ended)
        if progress:
            progress.update(sum(len(group) for group in groups))
    failures.sort(key=lambda f: f[0])
    return scores, {m: tally.counts for m, tally in tallies.items()}, failures


def _summary(values: list[float]) -> tuple[str, str, str, str]:
    if not values:
        return "-", "-", "-", "-"
    mean = sum(values) / len(values)
    std = math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))
    return f"{mean:.4f}", f"{std:.4f}", f"{min(values):.4f}", f"{max(values):.4f}"


def line_ranges(lines: list[int], limit: int = 12) -> str:
    """``[1, 2, 3, 7]`` as ``"1-3, 7"`` (at most ``limit`` pieces, then how many more).

    >>> line_ranges([1, 2, 3, 7, 9, 10])
    '1-3, 7, 9-10'
    """
    pieces: list[str] = []
    for n in sorted(set(lines)):
        if pieces and pieces[-1].split("-")[-1] == str(n - 1):
            pieces[-1] = f"{pieces[-1].split('-')[0]}-{n}"
        else:
            pieces.append(str(n))
    if len(pieces) > limit:
        return ", ".join(pieces[:limit]) + f" and {len(pieces) - limit} more"
    return ", ".join(pieces)


def _missing_columns(reward_set: RewardSet, rows: list[dict[str, Any]]) -> dict[tuple[str, str], list[int]]:
    """``(metric name, column) -> row indices`` of rows without a column the reward reads."""
    missing: dict[tuple[str, str], list[int]] = {}
    for name, reward in zip(reward_set.metrics, reward_set.rewards):
        for column in sorted(_needed_columns(reward)):
            lacking = [i for i, row in enumerate(rows) if column not in row]
            if lacking:
                missing[(name, column)] = lacking
    return missing


def explain_row(reward: Reward, row: dict[str, Any]) -> dict[str, Any] | None:
    """What the reward's scorer says about one row through its ``explain(completion, **row)`` (the
    answer it read, the reference, why it paid), or ``None`` when it has no such method; a failure
    of the explanation is shown in it, never raised."""
    target = explainer(reward.scorer)
    if target is None:
        return None
    columns = {k: v for k, v in row.items() if k not in ("completion", "completion_ids")}
    try:
        return dict(call_with_deadline(lambda: target(row["completion"], **columns), EXPLAIN_DEADLINE))
    except Exception as exc:  # an explanation is a courtesy; its failure is shown, never fatal
        return {"explain_error": f"{type(exc).__name__}: {exc}"[:200]}


def _reward_set_spec(rewards: str) -> Any:
    """What ``--rewards`` names: a reward-set file, or (not a file, no .yaml) one reward by its name."""
    if Path(rewards).exists() or rewards.endswith((".yaml", ".yml")):
        return rewards
    return {"rewards": [rewards]}


#: whether an existing ``--out`` file is one score wrote (each line a row with its ``rewards``, ``labels`` and
#: ``reward``): replaceable
_written_by_score = every_jsonl_row(lambda row: isinstance(row.get("rewards"), dict)
                                    and isinstance(row.get("labels"), dict) and "reward" in row)


def score_file(path: str, rewards: str, out: str | None = None, progress: bool = True,
               batch_size: int = 256, stream: IO[str] | None = None, tokenizer: str | None = None,
               explain: bool = False) -> int:
    """``grpo-rewards score FILE --rewards SET.yaml`` (or ``--rewards math.accuracy``): prints a table per
    reward, then one last line saying it is done.

    ``--out`` rows carry ``rewards`` (each metric's value), ``labels`` (each metric's outcome label)
    and ``reward`` (the weighted total); with ``explain``, also ``explain`` (what each reward that
    can explain itself says about the row). Returns 1 when a row was bad, lacked a column or made a
    reward fail; 0 otherwise.
    """
    stream = stream if stream is not None else sys.stdout  # the current one, not the one at import time
    err = sys.stderr
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, not {batch_size}")
    numbered, bad = read_rows(path)
    out_path = check_out(out, inputs={"input file": path, "reward-set file": rewards}) if out else None
    columns = {k for row in numbered for k in row.data} | {"prompt"}
    if tokenizer:
        columns.add("completion_ids")
    reward_set = load_reward_set(_reward_set_spec(rewards), columns=columns)
    if out:  # again with the scorer modules the set imported: files the run reads too
        out_path = check_out(out, inputs={"input file": path, "reward-set file": rewards,
                                          **scorer_files(reward_set.rewards)}, command="score",
                             written_here=_written_by_score)
    reward_set.start_workers()
    if tokenizer:
        TokenIds(tokenizer).fill(numbered)
    rows = [row.data for row in numbered]
    reserved = sorted({k for row in rows for k in row} & RESERVED_COLUMNS)
    bar = _Progress(len(rows), progress, err)
    started = time.perf_counter()
    labels: list[dict[str, str]] = [{} for _ in rows]
    scores, counts, failures = score_rows(reward_set, rows, batch_size=batch_size, progress=bar, labels=labels)
    bar.close()
    elapsed = time.perf_counter() - started
    missing = _missing_columns(reward_set, rows)
    for (name, _column), indices in missing.items():
        for i in indices:
            scores[i][name] = None
            labels[i][name] = "missing_column"

    print(f"scored {len(rows)} rows from {path} in {elapsed:.2f} s", file=stream)
    print(f"{'reward':<28} {'weight':>6} {'mean':>8} {'std':>8} {'min':>8} {'max':>8} {'None':>6} "
          f"{'timeout':>7} {'errors':>6} {'seconds':>8}", file=stream)
    for name, weight, reward in zip(reward_set.metrics, reward_set.reward_weights, reward_set.rewards):
        values = [s[name] for s in scores if s.get(name) is not None]
        nones = sum(1 for s in scores if s.get(name) is None)
        c = counts[name]
        errors = c.get("error", 0) + c.get("crashed", 0)
        mean, std, lo, hi = _summary(values)  # type: ignore[arg-type]
        print(f"{name:<28} {weight:>6g} {mean:>8} {std:>8} {lo:>8} {hi:>8} {nones:>6} "
              f"{c.get('timeout', 0):>7} {errors:>6} {reward.seconds:>8.3f}", file=stream)
    totals = [reward_set.total([s.get(n) for n in reward_set.metrics]) for s in scores]
    mean, std, lo, hi = _summary(totals)
    print(f"{'total (weighted)':<28} {'':>6} {mean:>8} {std:>8} {lo:>8} {hi:>8}", file=stream)
    for name in reward_set.metrics:
        shown = {k: v for k, v in counts[name].items() if k not in UNLOGGED_LABELS and v}
        if shown:
            print(f"outcomes of {name}: " + ", ".join(f"{k} {v}" for k, v in sorted(shown.items())), file=stream)
    if out_path is not None:
        explaining = [(m, r) for m, r in zip(reward_set.metrics, reward_set.rewards)
                      if explain and explainer(r.scorer) is not None]
        with atomic_writer(out_path) as fh:
            for row, s, lab, total in zip(rows, scores, labels, totals):
                record = {**row, "rewards": s, "labels": lab, "reward": total}
                if explain:
                    record["explain"] = {m: explain_row(r, row) for m, r in explaining}
                fh.write(dump_row(record) + "\n")

    where = unit(path)  # what the numbers count: JSONL lines, a table's rows
    for line, message in bad:
        print(f"bad row: {where} {line}: {message}", file=err)
    for (name, column), indices in missing.items():
        print(f"missing column: {name} reads {column!r}, which {len(indices)} row(s) lack "
              f"(scored None): {where}s {line_ranges([numbered[i].line for i in indices])}", file=err)
    by_reason: dict[tuple[str, str], list[int]] = {}
    for index, metric, why in failures:
        by_reason.setdefault((metric, why), []).append(numbered[index].line)
    for (metric, why), lines in by_reason.items():
        print(f"reward error: {metric} failed on {len(lines)} row(s) ({where}s {line_ranges(lines)}): {why}",
              file=err)
    if reserved:
        print(f"note: column(s) {', '.join(map(repr, reserved))} not passed to the rewards "
              "(the names of the reward call's own arguments)", file=err)
    said = {i for indices in missing.values() for i in indices} | {index for index, _, _ in failures}
    unscored = [numbered[i].line for i, s in enumerate(scores)
                if i not in said and all(s.get(n) is None for n in reward_set.metrics)]
    if unscored:  # (a mixed dataset's task without a reward of its own in the set: TRL's warning, said here first)
        print(f"note: {len(unscored)} row(s) got None from every reward ({where}s {line_ranges(unscored)}): TRL "
              "counts them 0.0 and warns; is the reward for their task missing from the set?", file=err)
    troubles = [f"{n} {what}" for n, what in ((len(bad), "bad rows"), (len(missing), "missing columns"),
                                              (len(failures), "reward errors")) if n]
    err.flush()
    print(f"done: scored {len(rows)} rows" + (f", wrote {out}" if out_path is not None else "")
          + (f"; {', '.join(troubles)} (above)" if troubles else ""), file=stream)  # the last line, on success only
    return 1 if bad or missing or failures else 0
