"""The one way a reward is built: an entry read and checked (:func:`resolve`), then built (:func:`build`).

Every public constructor ends here: ``load_reward_set``/``load_rewards`` (a set's entries),
``get_reward``/``load_one`` (one reward by name), ``reward_from_info`` and
:meth:`RewardDefinition.reward <grpo_rewards.RewardDefinition.reward>` (a plugin's export) all
read their entries with :func:`resolve` and build them with :func:`build` (:func:`build_one` for
one), which is the only code that calls ``Reward(...)`` for a registered reward. ``Reward(scorer, ...)``
itself is the unchecked form for a plain scorer that has no registry entry.

Private to the core: the names users call are in :mod:`grpo_rewards.rewardset` and
:mod:`grpo_rewards.definition`.
"""

from __future__ import annotations

import collections.abc as cabc
import math
import re
from dataclasses import dataclass, field
from typing import Any

from .backends import form_problem
from .errors import RewardSetError, capped, did_you_mean, missing_columns, quote
from .local import metric_name
from .options import ENTRY_OPTIONS, check_options
from .records import RewardInfo, column_params, required_columns
from .results import ResultCache
from .reward import Reward, build_scorer
from .signatures import type_problem

__all__ = ["ENTRY_KEYS", "Entry", "Resolved", "build", "build_one", "column_problems", "is_finite",
           "parameter_columns", "parse_entry", "resolve"]

#: The keys of a reward-set entry: these five, and the execution options (:class:`RewardOptions`).
ENTRY_KEYS = {"use", "weight", "with", "as", "inputs", *ENTRY_OPTIONS}


@dataclass
class Entry:
    """One line of a reward set: the reward it uses, its weight, parameters, metric name, inputs, options."""

    use: str
    weight: float = 1.0
    params: dict[str, Any] = field(default_factory=dict)
    metric: str = ""
    inputs: dict[str, str] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)


def parse_entry(raw: Any) -> tuple[Entry | None, list[str]]:
    """An entry and the problems of its keys (unprefixed), or ``None`` when it names no reward."""
    if isinstance(raw, str):
        raw = {"use": raw}
    if not isinstance(raw, dict):
        return None, [f"expected a mapping with 'use:', got {quote(raw)}"]
    problems = []
    use = raw.get("use")
    unknown = sorted(set(raw) - ENTRY_KEYS, key=str)
    if unknown:
        problems.append(f"unknown key(s) {capped(unknown)} (allowed: {', '.join(sorted(ENTRY_KEYS))})")
    if not isinstance(use, str) or not use:
        problems.append("'use' must name a reward, like math.accuracy")
        return None, problems
    weight = raw.get("weight", 1.0)
    if isinstance(weight, bool) or not isinstance(weight, (int, float)):
        problems.append(f"weight must be a number, got {quote(weight)}")
        weight = 1.0
    elif not is_finite(weight):  # a nan total is no score, and TRL would drop the reward silently
        problems.append(f"weight must be a finite number, got {quote(weight)}")
        weight = 1.0
    params = raw.get("with") or {}
    if not isinstance(params, dict):
        problems.append(f"'with' must be a mapping of parameters, got {quote(params)}")
        params = {}
    inputs = raw.get("inputs") or {}
    if not isinstance(inputs, dict) or not all(isinstance(v, str) for v in inputs.values()):
        problems.append("'inputs' maps a column name to another entry's name")
        inputs = {}
    options = {k: raw[k] for k in ENTRY_OPTIONS if k in raw}
    metric = raw.get("as", metric_name(use))
    if not isinstance(metric, str) or not metric:
        problems.append("'as' must be a non-empty metric name")
        metric = use
    return Entry(use=use, weight=float(weight), params=dict(params), metric=metric, inputs=dict(inputs),
                 options=options), problems


def is_finite(number: float) -> bool:
    """Whether ``number`` is a finite float (an integer too large for a float is not)."""
    try:
        return math.isfinite(float(number))
    except OverflowError:
        return False


def _param_problems(info: RewardInfo, params: dict[str, Any]) -> list[str]:
    problems = []
    for key, value in params.items():
        if key not in info.params and key in ENTRY_OPTIONS:
            problems.append(f"{key!r} is an execution option, not a parameter: give it as the entry's "
                            f"'{key}:' key (from Python, get_reward(..., options={{{key!r}: ...}}))")
        elif key not in info.params:
            known = ", ".join(sorted(info.params)) or "none"
            problems.append(f"unknown parameter {key!r}{did_you_mean(key, info.params)} (parameters: {known})")
        elif (problem := type_problem(key, value, info.params[key].annotation)) is not None:
            problems.append(problem)
    for p in info.params.values():
        if p.required and p.name not in params:
            problems.append(f"missing required parameter {p.name!r}")
    return problems


@dataclass
class Resolved:
    """One entry read and checked: the entry, its reward, the scorer built from its parameters, its problems."""

    entry: Entry | None
    info: RewardInfo | None = None
    built: Any = None
    problems: list[str] = field(default_factory=list)
    not_found: str | None = None  # why its reward cannot be found (the message names the reward itself)


def resolve(raw: Any, find: cabc.Callable[[str], RewardInfo], set_execution: Any = None) -> Resolved:
    """Read one entry, find its reward (``find(use)``) and check its parameters and options; a
    factory class is built here, once, with the entry's parameters (it validates its own values).
    ``set_execution`` (the set's ``execution:``) applies when the entry has none and its reward can
    run there (per sample, worker-safe)."""
    entry, problems = parse_entry(raw)
    resolved = Resolved(entry, problems=problems)
    if entry is None:
        return resolved
    try:
        info = resolved.info = find(entry.use)
    except Exception as exc:  # RewardNotFoundError, PluginError, a file or module reward that cannot load
        resolved.not_found = str(exc)
        return resolved
    if set_execution is not None and "execution" not in entry.options and info.form == "sample" \
            and info.options.worker_safe:
        entry.options["execution"] = set_execution
    params_problems = _param_problems(info, entry.params)
    problems += params_problems
    problems += check_options({**info.options.changed(), **entry.options})
    problem = form_problem(info.form, entry.options.get("execution"), info.name)
    if problem:
        problems.append(problem)
    if not params_problems:
        try:
            resolved.built = build_scorer(info.scorer, entry.params)
        except Exception as exc:
            problems.append(f"{type(exc).__name__}: {exc}")
    return resolved


def column_problems(entry: Entry, info: RewardInfo, have: set[str], built: Any) -> list[str]:
    missing = [c for c in required_columns(info, entry.params, built=built) if c not in have and c not in entry.inputs]
    if missing:
        text = missing_columns(missing, sorted(have), "the dataset", column_params(info.params, entry.params, built),
                               info.name if info.plugin else None)
        found = re.search(r"inputs: \{[^}]*\}", info.example or "")
        if found:  # the reward's own example fills a column from another entry
            text += f"; or fill it from another entry's values, as in {found.group(0)}"
        return [text]
    return []


def parameter_columns(info: RewardInfo, have: set[str]) -> str | None:
    """A warning for dataset columns named like one of the reward's parameters (a function's keyword
    parameters, a class's ``__init__`` ones): not an error, since another reward may read the column."""
    clash = sorted(have & set(info.params))
    if not clash:
        return None
    return (f"dataset column(s) {', '.join(map(repr, clash))} have the name of a parameter of {info.name}; this "
            "reward uses the parameter's value, not the column (rename the column if it should read it)")


def build(resolved: cabc.Sequence[Resolved], given: cabc.Mapping[str, Reward] | None = None) -> list[Reward]:
    """The rewards of checked entries (no problems), in their order, dependencies built first and shared,
    each from the scorer built when it was checked, all with one :class:`ResultCache`; ``given``
    (column -> reward) are inputs built elsewhere, for a single reward."""
    cache = ResultCache()
    given = dict(given or {})
    built: dict[str, Reward] = {}
    by_metric = {r.entry.metric: r for r in resolved if r.entry is not None}

    def one(metric: str) -> Reward:
        if metric in built:
            return built[metric]
        entry, info = by_metric[metric].entry, by_metric[metric].info
        assert entry is not None and info is not None
        inputs = {**given, **{column: one(other) for column, other in entry.inputs.items()}}
        scorer = by_metric[metric].built
        columns = tuple(c for c in required_columns(info, entry.params, built=scorer) if c not in inputs)
        built[metric] = Reward(info.scorer, metric=entry.metric, name=info.name, form=info.form, params=entry.params,
                               columns=columns, units=info.units, options=info.options.merged(entry.options),
                               inputs=inputs, cache=cache, built=scorer, declared=info.params,
                               registered=info.name if info.plugin else None)
        return built[metric]

    return [one(r.entry.metric) for r in resolved if r.entry is not None]


def build_one(name: str, find: cabc.Callable[[str], RewardInfo], params: cabc.Mapping[str, Any] | None,
              metric: str | None, options: dict[str, Any],
              inputs: cabc.Mapping[str, Reward] | None = None) -> tuple[Reward, RewardInfo]:
    """One reward and its entry, checked like a reward-set entry; its problems (a :class:`RewardSetError`)
    speak of the reward (``format.regex: missing required parameter 'pattern'``), not of a set's entry."""
    raw = {"use": name, "with": dict(params or {}), **options, **({"as": metric} if metric else {})}
    resolved = resolve(raw, find)
    problems = resolved.problems + ([resolved.not_found] if resolved.not_found is not None else [])
    if problems:
        raise RewardSetError(problems, name)
    assert resolved.info is not None
    return build([resolved], inputs)[0], resolved.info
