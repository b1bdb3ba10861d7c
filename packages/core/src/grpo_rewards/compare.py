"""``grpo-rewards compare``: audit a grader on your own data before a GPU hour is spent.

Scores the rows of a JSONL file with two sides and shows where they disagree. A side is a reward
name (``math.accuracy``), a reward-set file (``set.yaml``: each entry is a side) or one entry of
one (``set.yaml:metric_name``), or a column of the file holding a verdict (``label``: true/false,
1/0, "correct"/"wrong"). A value *pays* when it is at least ``--threshold`` (0.5); ``None`` (not
applicable) is left out of the tables. Printed: the agreement, the confusion table (both pay, only
A, only B, neither), the same per outcome label of each reward, and, against a label column,
precision, recall and the false-positive and false-negative rates of each reward; then the rows
where the sides disagree, each with what ``explain(completion, **row)`` says when a reward has it
(``math.accuracy``: the extracted answer, the gold, the label). The disagreeing rows are written
to ``--out`` (default ``<file>.disagreements.jsonl``); an existing file is replaced only when an earlier
compare wrote it.

>>> pays(0.5, 0.5), pays(0.0, 0.5), pays(None, 0.5)
(True, False, None)
>>> verdict("correct"), verdict(0), verdict("maybe") is None
(1.0, 0.0, True)
"""

from __future__ import annotations

import math
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from . import params
from .errors import GrpoRewardsError, capped, quote
from .local import scorer_files
from .outfile import every_jsonl_row
from .protocol import ROW_FIELDS, UNLOGGED_LABELS, completion_text
from .registry import Registry, load_registry
from .reward import Reward
from .rewardset import get_reward, load_reward_set
from .scoring import explain_row, prompt_batches, reason, score_groups
from .scoring_input import atomic_writer, check_out, dump_row, read_rows, unit

_TRUE = frozenset({"true", "yes", "correct", "right", "1", "1.0", "pass", "passed"})
_FALSE = frozenset({"false", "no", "wrong", "incorrect", "0", "0.0", "fail", "failed"})


def verdict(value: Any) -> float | None:
    """A label column's value as 1.0 / 0.0, or ``None`` when it says neither."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        if value != value:
            return None
        try:
            return float(value)
        except OverflowError:  # an integer past a float's range (a JSON label of 400 digits): beyond any threshold
            return math.inf if value > 0 else -math.inf
    if isinstance(value, str):
        text = value.strip().lower()
        return 1.0 if text in _TRUE else 0.0 if text in _FALSE else None
    return None


def _verdict_problem(column: str, rows: list[dict[str, Any]]) -> str | None:
    """Why ``column`` is no column of verdicts (no row's value is one), or None when some row's is."""
    values = [row.get(column) for row in rows]
    if any(verdict(v) is not None for v in values):
        return None
    shown = next((v for v in values if v is not None), None)
    return (f"column {column!r} holds no verdict (e.g. {quote(shown)}): a verdict is true/false, 1/0, yes/no, "
            "correct/wrong or pass/fail, or a number")


def pays(value: float | None, threshold: float) -> bool | None:
    """Whether a value pays (``>= threshold``); ``None`` when it is not applicable."""
    return None if value is None else value >= threshold


@dataclass
class Side:
    """One side of a comparison: a built reward, or a column of verdicts."""

    name: str
    reward: Reward | None = None
    column: str | None = None
    values: list[float | None] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)

    def explain(self, row: dict[str, Any]) -> dict[str, Any] | None:
        """What the reward's ``explain(completion, **row)`` says about one row (``None`` without one)."""
        return None if self.reward is None else explain_row(self.reward, row)


def _sides(specs: list[str], columns: set[str], registry: Registry) -> list[Side]:
    sides: list[Side] = []
    for spec in specs:
        found = re.fullmatch(r"(.+\.ya?ml)(?::(.+))?", spec)
        if found:
            path, entry = found.group(1), found.group(2)
            built = load_reward_set(path, registry=registry, columns=columns | {"prompt"})
            chosen = [(m, r) for m, r in zip(built.metrics, built.rewards) if not entry or m == entry]
            if not chosen:
                raise GrpoRewardsError(f"--rewards {spec}: the set has no entry named {entry!r} "
                                       f"(its entries: {', '.join(built.metrics)})")
            sides += [Side(name, reward=reward) for name, reward in chosen]
        elif spec in columns and spec not in registry.rewards:
            sides.append(Side(spec, column=spec))
        else:
            sides.append(Side(spec, reward=get_reward(spec, registry=registry)))
    if len(sides) != 2:
        names = ", ".join(s.name for s in sides) or "none"
        raise GrpoRewardsError(f"compare needs exactly two sides (two rewards, two reward-set entries, or a reward "
                               f"and a label column); --rewards gave {len(sides)}: {names}")
    if sides[0].name == sides[1].name:
        raise GrpoRewardsError(f"both sides are {sides[0].name!r}; compare two different rewards or entries")
    return sides


def _score(side: Side, rows: list[dict[str, Any]], batch_size: int) -> list[str]:
    """Fill ``side.values`` and ``side.labels``; returns ``"name: row N: reason"`` for rows that failed.

    Rows are scored in batches that keep each prompt's rows together, as ``grpo-rewards score``
    scores them (:func:`grpo_rewards.scoring.score_groups`: a failing batch is retried prompt group
    by prompt group, and row by row for a per-sample reward); a row that fails is labelled ``error``.
    """
    if side.column is not None:
        side.values = [verdict(row.get(side.column)) for row in rows]
        side.labels = ["pays" if v == 1.0 else "none" if v is None else "does_not_pay" for v in side.values]
        return []
    assert side.reward is not None
    values: list[float | None] = [None] * len(rows)
    labels: list[str] = ["error"] * len(rows)
    failures: list[str] = []
    wanted = set(side.reward.columns)
    for groups in prompt_batches(rows, batch_size):
        scored, failed = score_groups(side.reward, rows, groups, wanted)
        for i, (value, label) in scored.items():
            values[i], labels[i] = value, label
        failures += [f"{side.name}: row {i + 1}: {reason(error).splitlines()[0][:200]}" for i, error in failed]
    side.values, side.labels = values, labels
    return failures


@dataclass
class Comparison:
    """Two scored sides over the same rows, and what follows from them."""

    a: Side
    b: Side
    threshold: float = 0.5

    def cells(self) -> list[str | None]:
        """Per row: ``both``, ``only_a``, ``only_b``, ``neither``, or ``None`` (a side not applicable)."""
        out: list[str | None] = []
        for va, vb in zip(self.a.values, self.b.values):
            pa, pb = pays(va, self.threshold), pays(vb, self.threshold)
            out.append(None if pa is None or pb is None else
                       "both" if pa and pb else "only_a" if pa else "only_b" if pb else "neither")
        return out

    def table(self, rows: list[int] | None = None) -> Counter[str]:
        cells = self.cells()
        return Counter(c for i, c in enumerate(cells) if c is not None and (rows is None or i in rows))

    def disagreements(self) -> list[int]:
        return [i for i, c in enumerate(self.cells()) if c in ("only_a", "only_b")]


def rates(reward: Side, truth: Side, threshold: float) -> dict[str, float | None]:
    """Precision, recall, false-positive and false-negative rates of ``reward`` against ``truth``."""
    c: Counter[str] = Counter()
    for v, t in zip(reward.values, truth.values):
        p, real = pays(v, threshold), pays(t, 0.5)
        if p is not None and real is not None:
            c[("tp" if real else "fp") if p else ("fn" if real else "tn")] += 1

    def ratio(x: int, y: int) -> float | None:
        return x / y if y else None

    return {"precision": ratio(c["tp"], c["tp"] + c["fp"]), "recall": ratio(c["tp"], c["tp"] + c["fn"]),
            "false_positive_rate": ratio(c["fp"], c["fp"] + c["tn"]),
            "false_negative_rate": ratio(c["fn"], c["fn"] + c["tp"]), "rows": float(sum(c.values()))}


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _print_tables(cmp: Comparison, stream: IO[str]) -> None:
    a, b = cmp.a.name, cmp.b.name
    table = cmp.table()
    scored = sum(table.values())
    agree = table["both"] + table["neither"]
    print(f"agreement: {_fmt(agree / scored if scored else None)} ({agree} of {scored} rows"
          + (f"; {len(cmp.cells()) - scored} left out: a side is None)" if len(cmp.cells()) > scored else ")"),
          file=stream)
    width, cell = len(a) + len(" does not") + 2, len(b) + len(" does not") + 2
    print(f"\n{'':<{width}}{b + ' pays':>{cell}}{b + ' does not':>{cell}}", file=stream)
    print(f"{a + ' pays':<{width}}{table['both']:>{cell}}{table['only_a']:>{cell}}", file=stream)
    print(f"{a + ' does not':<{width}}{table['only_b']:>{cell}}{table['neither']:>{cell}}", file=stream)
    for side in (cmp.a, cmp.b):
        if side.column is not None or set(side.labels) <= UNLOGGED_LABELS:
            continue
        print(f"\nby outcome label of {side.name}:", file=stream)
        print(f"  {'label':<20} {'rows':>6} {'both':>6} {'only ' + a:>{len(a) + 5}} {'only ' + b:>{len(b) + 5}} "
              f"{'neither':>8}", file=stream)
        for label, count in sorted(Counter(side.labels).items(), key=lambda kv: (-kv[1], kv[0])):
            sub = cmp.table([i for i, x in enumerate(side.labels) if x == label])
            print(f"  {label:<20} {count:>6} {sub['both']:>6} {sub['only_a']:>{len(a) + 5}} "
                  f"{sub['only_b']:>{len(b) + 5}} {sub['neither']:>8}", file=stream)


def _print_rates(cmp: Comparison, truth: Side, stream: IO[str]) -> None:
    print(f"\nagainst the label column {truth.name!r}:", file=stream)
    print(f"  {'reward':<28} {'precision':>9} {'recall':>7} {'FP rate':>8} {'FN rate':>8} {'rows':>6}", file=stream)
    for side in (cmp.a, cmp.b):
        if side is truth or side.reward is None:
            continue
        r = rates(side, truth, cmp.threshold)
        print(f"  {side.name:<28} {_fmt(r['precision']):>9} {_fmt(r['recall']):>7} "
              f"{_fmt(r['false_positive_rate']):>8} {_fmt(r['false_negative_rate']):>8} {int(r['rows'] or 0):>6}",
              file=stream)


def _shorten(value: Any, limit: int = 100) -> str:
    text = value if isinstance(value, str) else repr(value)
    text = text.replace("\n", "\\n")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _disagreement(cmp: Comparison, i: int, row: dict[str, Any], line: int) -> dict[str, Any]:
    out: dict[str, Any] = {"line": line}
    for key, side in (("a", cmp.a), ("b", cmp.b)):
        out[key] = {"name": side.name, "value": side.values[i], "label": side.labels[i]}
        explained = side.explain(row)
        if explained is not None:
            out[key]["explain"] = explained
    return out


#: whether an existing ``--out`` file is one compare wrote (each line a row with its ``compare`` record): replaceable
_written_by_compare = every_jsonl_row(lambda row: isinstance(row.get("compare"), dict))


def compare_file(path: str, specs: list[str], *, out: str | None = None, threshold: float = 0.5,
                 label_column: str | None = None, show: int = 10, batch_size: int = 256,
                 stream: IO[str] | None = None, registry: Registry | None = None) -> int:
    """``grpo-rewards compare FILE --rewards A --rewards B``: prints the report; 1 if a row failed.

    ``label_column`` names the column of true verdicts (an error when the file has no such column, or
    when none of its values is a verdict); None: ``label`` when the file has one and one of its values is a
    verdict (else the report says why it has no rates).
    """
    stream = stream if stream is not None else sys.stdout
    try:  # (NaN: nothing would pay on either side, and every table would read as agreement)
        threshold = params.number(threshold, "threshold")
    except ValueError as exc:
        raise GrpoRewardsError(str(exc)) from None
    target = Path(out) if out else Path(f"{path}.disagreements.jsonl")
    sets = {f"reward-set file {spec}": re.sub(r"(\.ya?ml):.+$", r"\1", spec) for spec in specs}
    if not out and target.exists() and not _written_by_compare(target):
        raise GrpoRewardsError(f"{target} exists and was not written by compare; give --out FILE for the "
                               f"disagreeing rows")
    check_out(str(target), inputs={"input file": path, **sets})  # before any scoring; inputs by identity
    numbered, bad = read_rows(path)  # (an error when no row can be read)
    rows = [r.data for r in numbered]
    where = unit(path)  # what the numbers count: JSONL lines, a table's rows
    columns = {k for row in rows for k in row} - ROW_FIELDS
    registry = registry or load_registry()
    if label_column is not None and label_column not in columns:
        raise GrpoRewardsError(f"--label {label_column}: {path} has no column {label_column!r} "
                               f"(its columns: {capped(sorted(columns))})")
    a, b = _sides(specs, columns, registry)
    named, label_column = label_column is not None, label_column or "label"
    side_columns = {s.column for s in (a, b) if s.column}
    use_label = not side_columns and label_column in columns
    verdict_columns = side_columns | ({label_column} if use_label and named else set())
    problems = [problem for column in sorted(verdict_columns) if (problem := _verdict_problem(column, rows))]
    if problems:  # before any scoring: every row would be left out, or no rate computed, and the report read as fine
        raise GrpoRewardsError("; ".join(problems))
    # a column that is only called label may hold something else (a category): no rates, and the report says why
    label_note = _verdict_problem(label_column, rows) if use_label and not named else None
    check_out(str(target), inputs={"input file": path, **sets,  # and the scorer modules the sides imported
                                   **scorer_files([s.reward for s in (a, b) if s.reward is not None])},
              command="compare", written_here=_written_by_compare)
    failures = _score(a, rows, batch_size) + _score(b, rows, batch_size)
    cmp = Comparison(a, b, threshold)
    print(f"compared {len(rows)} rows of {path}: A = {a.name}, B = {b.name} (pays: value >= {threshold:g})",
          file=stream)
    _print_tables(cmp, stream)
    truth = a if a.column else b if b.column else Side(label_column, column=label_column) \
        if use_label and label_note is None else None
    if label_note is not None:
        print(f"\nno precision or recall: {label_note} (--label names the column of true verdicts)", file=stream)
    if truth is not None:
        if truth not in (a, b):
            _score(truth, rows, batch_size)
        _print_rates(cmp, truth, stream)
    disagreeing = cmp.disagreements()
    print(f"\n{len(disagreeing)} disagreeing rows" + (f" (first {min(show, len(disagreeing))}):" if disagreeing
                                                     else ""), file=stream)
    records = [_disagreement(cmp, i, rows[i], numbered[i].line) for i in disagreeing]
    for record, i in list(zip(records, disagreeing))[:show]:
        text = completion_text(rows[i]["completion"])
        print(f"  {where} {record['line']}: {_shorten(rows[i]['completion'] if text is None else text)}", file=stream)
        for key in ("a", "b"):
            side = record[key]
            note = f"  {_shorten(side['explain'], 160)}" if "explain" in side else ""
            print(f"    {side['name']}: {side['value']} ({side['label']}){note}", file=stream)
    with atomic_writer(target) as fh:
        for record, i in zip(records, disagreeing):
            fh.write(dump_row({**rows[i], "compare": record}) + "\n")
    print(f"wrote {len(disagreeing)} disagreeing rows to {target}", file=stream)
    for line, problem in bad:
        print(f"bad row: {where} {line}: {problem}", file=sys.stderr)
    for problem in failures:
        print(f"reward error: {problem}", file=sys.stderr)
    return 1 if bad or failures else 0
