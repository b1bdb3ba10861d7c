"""Runs the contract: calls the reward on every case in worker processes under a hard deadline.

A reward that cannot be pickled runs in threads instead (it fails the pickle point anyway), so
a reward that hangs is reported as hanging instead of hanging the check.
"""

from __future__ import annotations

import copy
import functools
import pickle
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..errors import RewardError
from ..execution import Outcome, map_with_deadline
from ..execution.threads import run_in_thread
from ..registry import Registry, load_registry
from ..rewardset import load_one
from ..scorer_hooks import own_units
from .cases import (
    COLUMN_VALUES,
    COUNT,
    DEFAULT_COLUMN_VALUE,
    NAME,
    PICKLE,
    TYPES,
    Arguments,
    build_cases,
    points_run,
)
from .verdicts import (
    Call,
    ContractResult,
    Problem,
    all_none_warning,
    compare_original,
    judge,
    name_problems,
    units_problems,
)


def error_line(exc: BaseException) -> str:
    """``"IndexError: string index out of range"``: the scorer's own error when the core wrapped it."""
    while isinstance(exc, RewardError) and exc.__cause__ is not None:
        exc = exc.__cause__
    text = str(exc).strip().split("\n")[0]
    return f"{type(exc).__name__}: {text}"[:300] if text else type(exc).__name__


def _core_point(exc: BaseException) -> str | None:
    """COUNT or TYPES when ``exc`` is the core's ``Reward`` refusing what its scorer returned."""
    if not isinstance(exc, RewardError) or exc.__cause__ is not None:
        return None
    text = exc.message
    return TYPES if "expected a" in text else COUNT if " values for " in text else None


class Runner:
    """Picklable: calls the reward on one case (twice for determinism), in a worker process."""

    def __init__(self, reward: Any) -> None:
        self.reward = reward

    def _values(self, args: tuple[Any, ...]) -> Any:
        prompts, completions, ids, kwargs = args
        values = self.reward(prompts=prompts, completions=completions, completion_ids=ids, **kwargs)
        return list(values) if isinstance(values, (list, tuple)) else values

    def __call__(self, prompts: Any, completions: Any, ids: Any, kwargs: dict[str, Any], repeat: bool) -> Call:
        snapshot = copy.deepcopy((prompts, completions, ids, kwargs))
        try:
            values = self._values((prompts, completions, ids, kwargs))
        except Exception as exc:
            return Call(error=error_line(exc), core_point=_core_point(exc))
        changed = [name for name, before, after in zip(
            ("prompts", "completions", "completion_ids", "columns"), snapshot, (prompts, completions, ids, kwargs))
            if before != after]
        call = Call(values=values, mutated=changed, repeated=repeat)
        if repeat:
            try:
                call.again = self._values(copy.deepcopy(snapshot))
            except Exception as exc:
                call.again_error = error_line(exc)
        try:
            pickle.dumps(call)
        except Exception:
            call = Call(values=repr(values)[:200], unpicklable=True, mutated=changed)
        return call


def run_threads(runner: Runner, items: list[Arguments], deadline: float) -> list[Any]:
    """Like ``execution.map_with_deadline``, in daemon threads: for a reward that cannot be pickled."""
    outcomes = []
    for args in items:
        finished, value, error = run_in_thread(functools.partial(runner, *args), deadline)
        if not finished:
            outcomes.append(Outcome("timeout", None, f"exceeded its {deadline:g} s deadline"))
        elif isinstance(error, Exception):
            outcomes.append(Outcome("error", None, error_line(error)))
        elif error is not None:  # Ctrl-C or SystemExit inside the reward: the caller's to handle
            raise error
        else:
            outcomes.append(Outcome("ok", value))
    return outcomes


def built_units(reward: Any, registered: str | None) -> str:
    """What the reward measures lengths in: the built instance's ``units`` when it says (its
    parameters may change them), else the registered units, else ``"none"``."""
    instance = own_units(getattr(reward, "scorer", None))  # a Reward's built scorer
    if instance is not None:
        return instance
    if registered:
        return registered
    return own_units(reward) or "none"


def sample_rows(columns: Mapping[str, Any] | Sequence[Mapping[str, Any]] | Sequence[str] | None) -> list[dict[str, Any]]:
    """The sample rows a contract run takes its dataset columns from (fresh dicts, at least one).

    >>> sample_rows({"solution": "4"}), sample_rows([{"solution": "4"}, {"solution": "12"}]), sample_rows(["k"])
    ([{'solution': '4'}], [{'solution': '4'}, {'solution': '12'}], [{'k': '4'}])
    """
    if isinstance(columns, Mapping):
        return [dict(columns)]
    items: list[Any] = list(columns or ())
    if items and all(isinstance(item, Mapping) for item in items):
        return [dict(item) for item in items]
    if all(isinstance(item, str) for item in items):
        return [{name: DEFAULT_COLUMN_VALUE for name in items}]
    raise TypeError("columns: expected {column: value}, a list of sample rows [{column: value}, ...] or column names")


def run_contract(
    reward: Any,
    *,
    columns: Mapping[str, Any] | Sequence[Mapping[str, Any]] | Sequence[str] | None = None,
    units: str | None = None,
    output_range: tuple[float, float] | None = None,
    params: Mapping[str, Any] | None = None,
    other_names: Iterable[str] = (),
    deadline: float = 10.0,
    pathological: bool = True,
    registry: Registry | None = None,
) -> ContractResult:
    """Check ``reward`` (a TRL reward callable, a ``Reward``, or a registered name) against the contract.

    ``columns`` gives sample values of dataset columns: one value each (``{"solution": "4"}``), or a
    few sample rows (``[{"solution": "4"}, {"solution": "12"}]``, taken in turn by the completions of
    each call); columns the reward declares and the caller does not give get a value from
    ``COLUMN_VALUES`` (``"4"`` otherwise).
    ``units`` defaults to what the built reward says (see :func:`built_units`), ``output_range``
    to what the registry declares. ``deadline`` is the hard limit per call in seconds. The result
    lists only the points this run checked.
    """
    info = None
    if isinstance(reward, str):
        registry = registry or load_registry()
        reward, info = load_one(reward, params, registry=registry)
        other_names = set(other_names) | (set(registry.rewards) - {info.name})
    rows = sample_rows(columns)
    for column in [*(getattr(reward, "columns", None) or (info.columns if info else ())), *(k for r in rows for k in r)]:
        for row in rows:
            row.setdefault(column, COLUMN_VALUES.get(column, DEFAULT_COLUMN_VALUE))
    units = units or built_units(reward, info.units if info else None)
    if output_range is None and info is not None:
        output_range = info.output_range
    problems = name_problems(reward, other_names) + units_problems(units)
    runner = Runner(reward)
    try:
        twin = pickle.loads(pickle.dumps(reward))
    except Exception as exc:
        problems.append(Problem(PICKLE, f"cannot be pickled ({error_line(exc)}); TRL and worker processes need it"))
        twin = None
    if twin is not None and getattr(twin, "__name__", None) != getattr(reward, "__name__", None):
        problems.append(Problem(NAME, f"__name__ is not stable: {getattr(reward, '__name__', None)!r} becomes "
                                      f"{getattr(twin, '__name__', None)!r} after a pickle round trip"))
    cases = build_cases(units, pathological)
    items = [case.arguments(rows) for case in cases]
    if twin is not None:
        outcomes = map_with_deadline(runner, items, timeout=deadline)
        here = run_threads(runner, [items[0]], deadline)[0]  # the original, against the workers' copy
        problems += compare_original(here.value if here.status == "ok" else None,
                                     outcomes[0].value if outcomes[0].status == "ok" else None)
    else:
        outcomes = run_threads(runner, items, deadline)
    problems += judge(cases, outcomes, list(rows[0]), deadline, output_range)
    warning = all_none_warning(cases, outcomes)
    name = getattr(reward, "__name__", repr(reward))
    return ContractResult(str(name), points_run(cases, output_range), problems, [warning] if warning else [], rows)


def contract_problems(reward: Any, **options: Any) -> list[str]:
    """The contract problems of ``reward``: one line each (``"point: what"``), ``[]`` when it keeps it.

    Takes the options of :func:`run_contract`.
    """
    return [str(problem) for problem in run_contract(reward, **options).problems]
