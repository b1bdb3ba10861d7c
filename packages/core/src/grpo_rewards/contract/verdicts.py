"""From what the calls gave to :class:`Problem`\\ s: one per broken point, each naming its point."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .. import params
from ..protocol import TRL_CONTROL_KWARGS
from ..protocol import UNITS as UNITS_ALLOWED
from .cases import (
    COLUMNS,
    COUNT,
    DETERMINISM,
    EMPTY,
    EMPTY_BATCH,
    EXTRA_COLUMN,
    MUTATION,
    NAME,
    PATHOLOGICAL,
    PICKLE,
    RANGE,
    STANDARD,
    TYPES,
    UNITS,
    Case,
)

GENERIC_NAMES = frozenset({"reward", "reward_func", "reward_fn", "__call__", "score", "func", "f", "fn"})
#: Points reported once: the first call that shows the problem speaks for the rest.
ONCE = (COUNT, TYPES, RANGE, DETERMINISM, PICKLE, MUTATION)


@dataclass(frozen=True)
class Problem:
    """One broken contract point: ``point`` (one of ``POINTS``) and what was seen.

    >>> print(Problem("empty batch", "returned [0.0] for no completions, expected []"))
    empty batch: returned [0.0] for no completions, expected []
    """

    point: str
    text: str

    def __str__(self) -> str:
        return f"{self.point}: {self.text}"


@dataclass
class Call:
    """What one call of the reward gave; built in the worker and sent back."""

    values: Any = None
    error: str | None = None  # "IndexError: ...": the reward (or the core checking it) raised
    core_point: str | None = None  # COUNT or TYPES when the core's Reward refused the values
    mutated: list[str] = field(default_factory=list)
    repeated: bool = False
    again: Any = None
    again_error: str | None = None
    unpicklable: bool = False  # values holds their repr


@dataclass
class ContractResult:
    """What a contract run found: the points it checked, the problems, and warnings that fail nothing."""

    name: str
    points: list[str]
    problems: list[Problem]
    warnings: list[str] = field(default_factory=list)
    #: the sample rows the dataset columns were taken from (given, or filled with default values)
    rows: list[dict[str, Any]] = field(default_factory=list)

    def failed(self, point: str) -> list[Problem]:
        return [p for p in self.problems if p.point == point]


def name_problems(reward: Any, other_names: Iterable[str]) -> list[Problem]:
    """The ``name`` point: TRL logs a reward as ``rewards/<__name__>/mean``."""
    name = getattr(reward, "__name__", None)
    if name is None:
        return [Problem(NAME, "has no __name__ (TRL logs each reward as rewards/<__name__>/mean)")]
    if not isinstance(name, str) or not name or any(c.isspace() for c in name):
        return [Problem(NAME, f"__name__ {name!r} must be a non-empty string without spaces")]
    problems = []
    qualname = getattr(reward, "__qualname__", "") or ""
    if "<lambda>" in name or "<lambda>" in qualname:
        problems.append(Problem(NAME, f"__name__ {name!r} is a lambda; use a module-level function or a Reward"))
    elif "<locals>" in qualname:
        problems.append(Problem(NAME, f"{qualname!r} is a closure; use a module-level function or a Reward"))
    if name in GENERIC_NAMES:
        problems.append(Problem(NAME, f"__name__ {name!r} is generic; TRL merges the metrics of rewards with the "
                                      "same name"))
    if name in set(other_names):
        problems.append(Problem(NAME, f"__name__ {name!r} is not unique: another reward has it too"))
    if getattr(reward, "__name__", None) != name:
        problems.append(Problem(NAME, "__name__ is not stable: it changes between reads"))
    return problems


def units_problems(units: str) -> list[Problem]:
    if units in UNITS_ALLOWED:
        return []
    return [Problem(UNITS, f"declared units {units!r}, expected one of {', '.join(UNITS_ALLOWED)}")]


#: How far the unpickled copy's floats may be from the original's: a float32 model (text.similarity's
#: embeddings) gives values that differ in the last bits between processes with other thread counts
#: or load (measured: 1e-8); a copy that lost its state differs by far more.
PICKLE_TOLERANCE = 1e-6


def same(a: Any, b: Any, rel_tol: float = 0.0) -> bool:
    """Equal, with NaN equal to NaN (inside lists too); floats within ``rel_tol`` (relative, and absolute
    near zero) when it is given."""
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y, rel_tol) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) and math.isnan(b):
            return True
        if rel_tol and math.isclose(a, b, rel_tol=rel_tol, abs_tol=rel_tol):
            return True
    return bool(a == b)


def value_problems(values: Any, n: int, label: str, output_range: tuple[float, float] | None) -> list[Problem]:
    if not isinstance(values, list):
        return [Problem(COUNT, f"returned {type(values).__name__} {values!r:.60} for {label}, expected a list")]
    if len(values) != n:
        return [Problem(COUNT, f"returned {len(values)} values for {n} completions ({label})")]
    for i, v in enumerate(values):
        if v is None:
            continue
        if not params.finite(v):
            return [Problem(TYPES, f"value {i} for {label} is {v!r:.60} ({type(v).__name__}), expected a float or None")]
        if output_range is not None and not output_range[0] <= v <= output_range[1]:
            return [Problem(RANGE, f"value {i} for {label} is {v!r}, outside the declared range "
                                   f"[{output_range[0]}, {output_range[1]}]")]
    return []


_UNDECLARED = re.compile(r"KeyError: '(\w+)'|unexpected keyword argument '(\w+)'|required keyword-only argument: '(\w+)'")


def column_problem(error: str, declared: Sequence[str]) -> Problem | None:
    """An error that shows the reward reads a column it does not declare."""
    found = _UNDECLARED.search(error)
    if not found:
        return None
    column = next(g for g in found.groups() if g)
    if column in TRL_CONTROL_KWARGS or column == EXTRA_COLUMN:
        return Problem(COLUMNS, "does not accept the keyword arguments TRL passes (trainer_state, log_metric, "
                                f"every dataset column); add **kwargs: {error}")
    listed = ", ".join(declared) or "none"
    return Problem(COLUMNS, f"reads column {column!r}, which it does not declare (declared: {listed}): {error}")


def compare_original(here: Call | None, there: Call | None) -> list[Problem]:
    """The reward in this process against its unpickled copy in a worker, on the same call."""
    if here is None or there is None or here.error or there.error or there.unpicklable or here.unpicklable:
        return []
    if not same(there.again, there.values):  # not deterministic: determinism reports it
        return []
    if not same(here.values, there.values, rel_tol=PICKLE_TOLERANCE):
        return [Problem(PICKLE, f"the unpickled copy gave {there.values!r:.80} instead of {here.values!r:.80}")]
    return []


def _failure(case: Case, status: str, call: Call | None, error: str, deadline: float,
             declared: Sequence[str]) -> list[Problem]:
    """Problems of a call that hung, crashed or raised (not for pathological inputs)."""
    if status == "timeout":
        return [Problem(case.point, f"hangs (no result within {deadline:g} s)")]
    if status == "crashed":
        return [Problem(case.point, f"crashed the worker process ({error})")]
    text = f"raised {error}"
    if case.point == UNITS:
        text += " with completion_ids=None; a reward that reads completion_ids must declare units='tokens'"
    problems = [Problem(case.point, text)]
    if call is not None and call.core_point:  # the core's Reward checked the values and refused them
        problems.append(Problem(call.core_point, error))
    if case.point in (STANDARD, COLUMNS):
        column = column_problem(error, declared)
        if column:
            problems.append(column)
    return problems


def judge(cases: list[Case], outcomes: list[Any], declared: Sequence[str], deadline: float,
          output_range: tuple[float, float] | None) -> list[Problem]:
    """Every problem the calls show; ``outcomes`` are ``execution.Outcome``\\ s holding :class:`Call`\\ s."""
    problems: list[Problem] = []
    failing: dict[str, list[str]] = {}  # pathological failure -> input labels
    for case, outcome in zip(cases, outcomes):
        call: Call | None = outcome.value if outcome.status == "ok" else None
        status, error = outcome.status, outcome.error or ""
        if call is not None and call.error is not None:
            status, error = "error", call.error
        if status != "ok":
            if case.point == PATHOLOGICAL:
                how = f"raised {error}" if status == "error" else (
                    "hangs" if status == "timeout" else "crashed the worker process")
                failing.setdefault(how, []).append(case.label)
                continue
            problems += _failure(case, status, call, error, deadline, declared)
            continue
        assert call is not None
        if call.unpicklable:
            problems.append(Problem(TYPES, f"returned values that cannot be pickled ({call.values})"))
            continue
        if case.point == EMPTY_BATCH:
            if call.values != []:
                problems.append(Problem(EMPTY_BATCH, f"returned {call.values!r:.60} for no completions, expected []"))
            continue
        problems += value_problems(call.values, len(case.completions), case.label, output_range)
        if call.mutated:
            problems.append(Problem(MUTATION, f"changed its input {' and '.join(call.mutated)} ({case.label})"))
        if call.repeated:
            if call.again_error is not None:
                problems.append(Problem(DETERMINISM, f"raised {call.again_error} on the second call ({case.label})"))
            elif not same(call.again, call.values):
                problems.append(Problem(DETERMINISM, f"the same inputs gave {call.values!r:.80} then {call.again!r:.80}"))
    for how, labels in failing.items():
        if how == "hangs":
            problems += [Problem(PATHOLOGICAL, f"{label}: hangs (no result within {deadline:g} s)") for label in labels]
        else:
            problems.append(Problem(PATHOLOGICAL, f"{how} on {len(labels)} input(s): {', '.join(labels)}"))
    return once_per_point(problems)


def once_per_point(problems: list[Problem]) -> list[Problem]:
    """Drop repeated problems, and all but the first of a point in :data:`ONCE`."""
    seen: set[str] = set()
    kept = []
    for problem in dict.fromkeys(problems):
        if problem.point in ONCE:
            if problem.point in seen:
                continue
            seen.add(problem.point)
        kept.append(problem)
    return kept


def all_none_warning(cases: list[Case], outcomes: list[Any]) -> str | None:
    """A warning when every value of every call with completions (pathological ones aside) was None:
    the checks of values then said nothing about the reward's real scores."""
    values = [v for case, outcome in zip(cases, outcomes)
              if case.point not in (PATHOLOGICAL, EMPTY_BATCH, EMPTY) and outcome.status == "ok"
              and outcome.value.error is None and isinstance(outcome.value.values, list)
              for v in outcome.value.values]
    if not values or any(v is not None for v in values):
        return None
    return (f"returned None for every completion of every call ({len(values)} values): the checks of its values "
            "said nothing; give the dataset columns it reads (--column key=value) or parameters it scores with")
