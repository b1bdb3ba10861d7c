"""The reward contract, checked: what ``assert_reward_contract`` and ``grpo-rewards check`` run.

Every call of the reward runs in a worker process under a hard deadline (in a thread when the
reward cannot be pickled), so a reward that hangs is reported as hanging instead of hanging the
check. Each problem is one line that starts with the contract point it breaks, for example
``"empty batch: returned [0.0] for no completions, expected []"``.

>>> def shout(prompts, completions, completion_ids=None, **kwargs):
...     return [1.0 if str(c).isupper() else 0.0 for c in completions]
>>> for problem in contract_problems(shout, pathological=False):  # not in an importable module
...     print(problem.split(" (")[0])
pickle round trip: cannot be pickled
"""

from __future__ import annotations

import argparse
import copy
import math
import pickle
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .protocol import TRL_CONTROL_KWARGS
from .protocol import UNITS as UNITS_ALLOWED

NAME = "name"
COUNT = "one value per completion"
TYPES = "float or None"
STANDARD = "string completions"
CONVERSATIONAL = "conversational completions"
EMPTY_BATCH = "empty batch"
EMPTY = "empty completion"
HUGE = "huge completion"
MUTATION = "no mutation"
PICKLE = "pickle round trip"
DETERMINISM = "determinism"
COLUMNS = "columns"
UNITS = "units"
RANGE = "output range"
PATHOLOGICAL = "pathological inputs"
POINTS = (NAME, COUNT, TYPES, STANDARD, CONVERSATIONAL, EMPTY_BATCH, EMPTY, HUGE, MUTATION, PICKLE,
          DETERMINISM, COLUMNS, UNITS, RANGE, PATHOLOGICAL)

GENERIC_NAMES = frozenset({"reward", "reward_func", "reward_fn", "__call__", "score", "func", "f", "fn"})
#: Values given to the columns a reward reads when the caller gives none (other columns get "4").
DEFAULT_COLUMN_VALUE = "4"
COLUMN_VALUES: dict[str, Any] = {"solution": "4", "answer": "4", "correct": True}
MEGABYTE = 1_000_000
EXTRA_COLUMN = "some_other_column"
TEXTS = ("The answer is 4.", "<think>2 + 2 = 4</think>\n<answer>4</answer>", "I think it is \\boxed{5}.")

#: Inputs no reward may raise on or hang on: ``(label, completion)``.
PATHOLOGICAL_INPUTS: tuple[tuple[str, Any], ...] = (
    ("None", None),
    ("a number (42)", 42),
    ("a message list without an assistant message", [{"role": "user", "content": "hi"}]),
    ("an assistant message whose content is None", [{"role": "assistant", "content": None}]),
    ("unicode", "ẞ 🙂 \u200b\u202e ﷽ 数学 e\u0301 \x00 \ud800"),
    ("nested tags", "<think><answer><think>" * 2000 + "</answer></think>" * 2000),
    ("1 MB of digits", "9" * MEGABYTE),
    ("deep braces", "\\boxed{" * 20_000 + "\\frac{1}{" * 5_000 + "}" * 25_000),
    ("unbalanced braces", "{" * 100_000 + "[(" * 10_000),
    ("a power tower", "The answer is \\boxed{9^{9^{9^{9}}}} = 9**9**9**9."),
)


def _noop(*args: Any, **kwargs: Any) -> None:
    """Stands in for TRL's ``log_metric`` and ``log_extra``."""


def _ids(completion: Any) -> list[int]:
    text = completion if isinstance(completion, str) else str(completion)
    return [ord(c) % 50_000 for c in text[:4096]]


def _conversation(text: str) -> list[dict[str, str]]:
    return [{"role": "assistant", "content": text}]


@dataclass
class Case:
    """One call of the reward and the contract point it speaks for."""

    point: str
    label: str
    completions: list[Any]
    ids: bool = True
    extra: dict[str, Any] = field(default_factory=dict)
    repeat: bool = False  # call again on fresh copies of the inputs (determinism)
    conversational_prompts: bool = False

    def arguments(self, columns: Mapping[str, Any]) -> tuple[Any, ...]:
        n = len(self.completions)
        if self.conversational_prompts:
            prompts: list[Any] = [[{"role": "user", "content": f"Question {i}?"}] for i in range(n)]
        else:
            prompts = [f"Question {i}?" for i in range(n)]
        ids = [_ids(c) for c in self.completions] if self.ids else None
        kwargs = {name: [copy.deepcopy(value) for _ in range(n)] for name, value in columns.items()}
        kwargs.update(copy.deepcopy(self.extra))
        return prompts, list(self.completions), ids, kwargs, self.repeat


class Runner:
    """Picklable: calls the reward on one case (twice for determinism), in a worker process."""

    def __init__(self, reward: Any) -> None:
        self.reward = reward

    def _call(self, reward: Any, args: tuple[Any, ...]) -> Any:
        prompts, completions, ids, kwargs = copy.deepcopy(args)
        values = reward(prompts=prompts, completions=completions, completion_ids=ids, **kwargs)
        return list(values) if isinstance(values, (list, tuple)) else values

    def __call__(self, prompts: Any, completions: Any, ids: Any, kwargs: dict[str, Any], repeat: bool) -> dict:
        snapshot = copy.deepcopy((prompts, completions, ids, kwargs))
        try:
            values = self.reward(prompts=prompts, completions=completions, completion_ids=ids, **kwargs)
        except Exception as exc:
            return {"error": _error_line(exc)}
        result: dict[str, Any] = {"values": list(values) if isinstance(values, (list, tuple)) else values}
        changed = [name for name, before, after in zip(
            ("prompts", "completions", "completion_ids", "columns"), snapshot, (prompts, completions, ids, kwargs))
            if before != after]
        result["mutated"] = changed
        if repeat:
            try:
                result["again"] = self._call(self.reward, snapshot)
            except Exception as exc:
                result["again_error"] = _error_line(exc)
        try:
            pickle.dumps(result)
        except Exception:
            result = {"values": repr(result["values"])[:200], "unpicklable": True, "mutated": changed}
        return result


def _error_line(exc: BaseException) -> str:
    """``"IndexError: string index out of range"``: the scorer's own error when the core wrapped it."""
    from .protocol import RewardError

    while isinstance(exc, RewardError) and exc.__cause__ is not None:
        exc = exc.__cause__
    text = str(exc).strip().split("\n")[0]
    return f"{type(exc).__name__}: {text}"[:300] if text else type(exc).__name__


def _cases(units: str, pathological: bool) -> list[Case]:
    texts = list(TEXTS)
    huge = ("The answer is 4. " * (MEGABYTE // 17 + 1))[:MEGABYTE]
    cases = [
        Case(STANDARD, "three string completions", texts, repeat=True),
        Case(CONVERSATIONAL, "three conversational completions", [_conversation(t) for t in texts],
             repeat=True, conversational_prompts=True),
        Case(EMPTY_BATCH, "an empty batch", []),
        Case(EMPTY, "empty completions", ["", _conversation("")]),
        Case(HUGE, "a 1 MB completion", [huge]),
        Case(COLUMNS, "TRL's keyword arguments and an extra column", texts,
             extra={"trainer_state": None, "log_metric": _noop, "log_extra": _noop,
                    EXTRA_COLUMN: ["x", "y", "z"]}),
    ]
    if units != "tokens":
        cases.append(Case(UNITS, "completion_ids=None", texts, ids=False))
    if pathological:
        cases += [Case(PATHOLOGICAL, label, [value]) for label, value in PATHOLOGICAL_INPUTS]
    return cases


def _run_threads(runner: Runner, items: list[tuple[Any, ...]], deadline: float) -> list[Any]:
    from .execution import Outcome

    outcomes = []
    for args in items:
        box: dict[str, Any] = {}

        def target(args: tuple[Any, ...] = args, box: dict[str, Any] = box) -> None:
            try:
                box["value"] = runner(*args)
            except Exception as exc:
                box["error"] = _error_line(exc)

        thread = threading.Thread(target=target, daemon=True)
        thread.start()
        thread.join(deadline)
        if thread.is_alive():
            outcomes.append(Outcome("timeout", None, f"exceeded its {deadline:g} s deadline"))
        elif "error" in box:
            outcomes.append(Outcome("error", None, box["error"]))
        else:
            outcomes.append(Outcome("ok", box["value"]))
    return outcomes


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return bool(a == b)


def _name_problems(reward: Any, other_names: Iterable[str]) -> list[str]:
    name = getattr(reward, "__name__", None)
    if name is None:
        return [f"{NAME}: has no __name__ (TRL logs each reward as rewards/<__name__>/mean)"]
    if not isinstance(name, str) or not name or any(c.isspace() for c in name):
        return [f"{NAME}: __name__ {name!r} must be a non-empty string without spaces"]
    problems = []
    qualname = getattr(reward, "__qualname__", "") or ""
    if "<lambda>" in name or "<lambda>" in qualname:
        problems.append(f"{NAME}: __name__ {name!r} is a lambda; use a module-level function or a Reward")
    elif "<locals>" in qualname:
        problems.append(f"{NAME}: {qualname!r} is a closure; use a module-level function or a Reward")
    if name in GENERIC_NAMES:
        problems.append(f"{NAME}: __name__ {name!r} is generic; TRL merges the metrics of rewards with the same name")
    if name in set(other_names):
        problems.append(f"{NAME}: __name__ {name!r} is not unique: another reward has it too")
    if getattr(reward, "__name__", None) != name:
        problems.append(f"{NAME}: __name__ is not stable: it changes between reads")
    return problems


def _value_problems(values: Any, n: int, label: str, output_range: tuple[float, float] | None) -> list[str]:
    if not isinstance(values, list):
        return [f"{COUNT}: returned {type(values).__name__} {values!r:.60} for {label}, expected a list"]
    if len(values) != n:
        return [f"{COUNT}: returned {len(values)} values for {n} completions ({label})"]
    problems = []
    for i, v in enumerate(values):
        if v is None:
            continue
        if isinstance(v, bool) or not isinstance(v, (int, float)) or math.isnan(v) or math.isinf(v):
            problems.append(f"{TYPES}: value {i} for {label} is {v!r:.60} ({type(v).__name__}), expected a float or None")
            break
        if output_range is not None and not output_range[0] <= v <= output_range[1]:
            problems.append(f"{RANGE}: value {i} for {label} is {v!r}, outside the declared range "
                            f"[{output_range[0]}, {output_range[1]}]")
            break
    return problems


def _column_problem(error: str, declared: Sequence[str]) -> str | None:
    """An error that shows the reward reads a column it does not declare."""
    import re

    found = re.search(r"KeyError: '(\w+)'|unexpected keyword argument '(\w+)'|required keyword-only argument: '(\w+)'",
                      error)
    if not found:
        return None
    column = next(g for g in found.groups() if g)
    if column in TRL_CONTROL_KWARGS or column == EXTRA_COLUMN:
        return (f"{COLUMNS}: does not accept the keyword arguments TRL passes (trainer_state, log_metric, "
                f"every dataset column); add **kwargs: {error}")
    listed = ", ".join(declared) or "none"
    return f"{COLUMNS}: reads column {column!r}, which it does not declare (declared: {listed}): {error}"


#: Points reported once: the first call that shows the problem speaks for the rest.
ONCE = (COUNT, TYPES, RANGE, DETERMINISM, PICKLE, MUTATION)


def _compare_original(here: Any, there: Any) -> list[str]:
    if here.status != "ok" or there.status != "ok" or "error" in here.value or "error" in there.value:
        return []
    if not _same(there.value.get("again"), there.value["values"]):
        return []
    if not _same(here.value["values"], there.value["values"]):
        return [f"{PICKLE}: the unpickled copy gave {there.value['values']!r:.80} instead of "
                f"{here.value['values']!r:.80}"]
    return []


def _outcome_problems(cases: list[Case], outcomes: list[Any], declared: Sequence[str], deadline: float,
                      output_range: tuple[float, float] | None) -> list[str]:
    problems: list[str] = []
    failing: dict[str, list[str]] = {}  # pathological error -> input labels
    for case, outcome in zip(cases, outcomes):
        where = f"{case.point}: {case.label}: " if case.point == PATHOLOGICAL else f"{case.point}: "
        if outcome.status == "ok" and "error" in outcome.value:
            outcome = type(outcome)("error", None, outcome.value["error"])
        if outcome.status == "timeout":
            problems.append(f"{where}hangs (no result within {deadline:g} s)")
            continue
        if outcome.status in ("crashed", "error"):
            error = outcome.error or ""
            if case.point == PATHOLOGICAL:
                failing.setdefault(error if outcome.status == "error" else "crashed the worker process", []).append(
                    case.label)
                continue
            problems.append(f"{where}raised {error}" if outcome.status == "error"
                            else f"{where}crashed the worker process ({error})")
            if case.point == UNITS:
                problems[-1] += (" with completion_ids=None; a reward that reads completion_ids must declare "
                                 "units='tokens'")
            if error.startswith("RewardError") and "expected a" in error:  # the core checked the values
                problems.append(f"{TYPES}: {error}")
            elif error.startswith("RewardError") and " values for " in error:
                problems.append(f"{COUNT}: {error}")
            if case.point in (STANDARD, COLUMNS):
                column = _column_problem(error, declared)
                if column:
                    problems.append(column)
            continue
        result = outcome.value
        got = result["values"]
        if result.get("unpicklable"):
            problems.append(f"{TYPES}: returned values that cannot be pickled ({got})")
            continue
        if case.point == EMPTY_BATCH:
            if got != []:
                problems.append(f"{EMPTY_BATCH}: returned {got!r:.60} for no completions, expected []")
            continue
        problems += _value_problems(got, len(case.completions), case.label, output_range)
        if result["mutated"]:
            problems.append(f"{MUTATION}: changed its input {' and '.join(result['mutated'])} ({case.label})")
        if case.repeat:
            if "again_error" in result:
                problems.append(f"{DETERMINISM}: raised {result['again_error']} on the second call ({case.label})")
            elif not _same(result["again"], got):
                problems.append(f"{DETERMINISM}: the same inputs gave {got!r:.80} then {result['again']!r:.80}")
    for error, labels in failing.items():
        verb = error if error.startswith("crashed") else f"raised {error}"
        problems.append(f"{PATHOLOGICAL}: {verb} on {len(labels)} input(s): {', '.join(labels)}")
    once: set[str] = set()
    kept = []
    for problem in dict.fromkeys(problems):
        point = problem.split(":")[0]
        if point in ONCE:
            if point in once:
                continue
            once.add(point)
        kept.append(problem)
    return kept

@dataclass
class ContractResult:
    """What :func:`run_contract` found: the points it checked and one line per problem."""

    name: str
    points: list[str]
    problems: list[str]

    def failed(self, point: str) -> list[str]:
        return [p for p in self.problems if p.startswith(point + ":")]


def run_contract(
    reward: Any,
    *,
    columns: Mapping[str, Any] | Sequence[str] | None = None,
    units: str | None = None,
    output_range: tuple[float, float] | None = None,
    params: Mapping[str, Any] | None = None,
    other_names: Iterable[str] = (),
    deadline: float = 10.0,
    pathological: bool = True,
    registry: Any = None,
) -> ContractResult:
    """Check ``reward`` (a TRL reward callable, a ``Reward``, or a registered name) against the contract.

    ``columns`` gives sample values of dataset columns (``{"solution": "4"}``); columns the reward
    declares and the caller does not give get a value from ``COLUMN_VALUES`` (``"4"`` otherwise).
    ``units`` and ``output_range`` default to what the registry or the reward declares.
    ``deadline`` is the hard limit per call in seconds.
    """
    info = None
    if isinstance(reward, str):
        from .rewardset import load_reward_set

        registry = registry or _load_registry()
        built = load_reward_set([{"use": reward, "with": dict(params or {})}], registry=registry)
        reward, info = built.rewards[0], built.infos[0]
        other_names = set(other_names) | (set(registry.rewards) - {info.name})
    values = dict(columns) if isinstance(columns, Mapping) else {c: DEFAULT_COLUMN_VALUE for c in columns or ()}
    declared = list(getattr(reward, "columns", None) or (info.columns if info else ()))
    for column in declared:
        values.setdefault(column, COLUMN_VALUES.get(column, DEFAULT_COLUMN_VALUE))
    declared = list(values)
    units = units or (info.units if info else getattr(reward, "units", None)) or "none"
    if output_range is None and info is not None:
        output_range = info.output_range
    problems = _name_problems(reward, other_names)
    if units not in UNITS_ALLOWED:
        problems.append(f"{UNITS}: declared units {units!r}, expected one of {', '.join(UNITS_ALLOWED)}")
    runner = Runner(reward)
    try:
        twin = pickle.loads(pickle.dumps(reward))
    except Exception as exc:
        problems.append(f"{PICKLE}: cannot be pickled ({_error_line(exc)}); TRL and worker processes need it")
        twin = None
    if twin is not None and getattr(twin, "__name__", None) != getattr(reward, "__name__", None):
        problems.append(f"{NAME}: __name__ is not stable: {getattr(reward, '__name__', None)!r} becomes "
                        f"{getattr(twin, '__name__', None)!r} after a pickle round trip")
    cases = _cases(units, pathological)
    items = [case.arguments(values) for case in cases]
    if twin is not None:
        from .execution import map_with_deadline

        outcomes = map_with_deadline(runner, items, timeout=deadline)
    else:
        outcomes = _run_threads(runner, items, deadline)
    if twin is not None:  # the original, in this process, against the copy the workers unpickled
        here = _run_threads(runner, [items[0]], deadline)[0]
        problems += _compare_original(here, outcomes[0])
    problems += _outcome_problems(cases, outcomes, declared, deadline, output_range)
    points = list(POINTS)
    name = getattr(reward, "__name__", repr(reward))
    return ContractResult(str(name), points, problems)


def contract_problems(reward: Any, **options: Any) -> list[str]:
    """The contract problems of ``reward``: one line each, ``[]`` when it keeps the contract.

    Takes the options of :func:`run_contract`.
    """
    return run_contract(reward, **options).problems


def _load_registry() -> Any:
    from .registry import load_registry

    return load_registry()


def _key_values(pairs: list[str], what: str) -> dict[str, Any]:
    import yaml

    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise SystemExit(f"grpo-rewards check: {what} expects key=value, got {pair!r}")
        try:
            out[key] = yaml.safe_load(raw)
        except yaml.YAMLError:
            out[key] = raw
    return out


def check_command(argv: list[str]) -> int:
    """``grpo-rewards check NAME [--with key=value ...] [--column key=value ...] [--deadline S]``."""
    parser = argparse.ArgumentParser(
        prog="grpo-rewards check", description="Run the reward contract checks against one installed reward.")
    parser.add_argument("name", help="a reward name, like math.accuracy")
    parser.add_argument("--with", dest="params", action="append", default=[], metavar="KEY=VALUE",
                        help="a reward parameter (value read as YAML: 3, true, [a, b])")
    parser.add_argument("--column", dest="columns", action="append", default=[], metavar="KEY=VALUE",
                        help="a sample value for a dataset column the reward reads (default: '4')")
    parser.add_argument("--deadline", type=float, default=10.0, help="seconds allowed per call (default 10)")
    args = parser.parse_args(argv)
    result = run_contract(args.name, params=_key_values(args.params, "--with"),
                          columns=_key_values(args.columns, "--column"), deadline=args.deadline)
    print(f"{result.name}: {len(result.points)} contract points")
    for point in result.points:
        failed = result.failed(point)
        print(f"  {'ok  ' if not failed else 'FAIL'}  {point}")
        for problem in failed:
            print(f"          {problem[len(point) + 2:]}")
    if result.problems:
        print(f"{len(result.problems)} problem(s)")
        return 1
    print("all contract points pass")
    return 0
