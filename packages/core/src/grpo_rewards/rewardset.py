"""Weighted reward sets: parsed from YAML or dicts, validated whole, resolved for GRPOConfig.

The public ways to build rewards (:func:`load_reward_set`, :func:`load_rewards`, :func:`get_reward`,
:func:`load_one`, :func:`reward_from_info`); each reads and builds its entries through
:mod:`grpo_rewards.building`, the one builder.
"""

from __future__ import annotations

import collections.abc as cabc
import functools
import warnings
from pathlib import Path
from typing import Any

from .backends import execution_problems
from .building import (
    ENTRY_KEYS,
    Entry,
    Resolved,
    build,
    build_one,
    column_problems,
    is_finite,
    parameter_columns,
    resolve,
)
from .concurrent import ConcurrentReward
from .errors import RewardSetError, capped, quote, read_yaml
from .execution import prepare_backend
from .local import find_reward
from .options import ENTRY_OPTIONS, RewardOptions, unknown_options
from .records import RewardInfo, required_columns
from .registry import Registry, load_registry
from .reward import Reward

__all__ = ["ENTRY_KEYS", "SET_KEYS", "Entry", "RewardSet", "get_reward", "load_one", "load_reward_set", "load_rewards",
           "name_clashes", "required_columns", "reward_from_info", "trl_name"]

#: The keys of a reward-set file: the entries, where every entry that can runs (``execution``, see
#: :class:`~grpo_rewards.backends.Execution`), and whether TRL gets the async forms (``concurrent``).
SET_KEYS = ("rewards", "execution", "concurrent")


class RewardSet:
    """A validated, weighted set of rewards ready for ``GRPOTrainer``.

    >>> from grpo_rewards import Reward  # doctest: +SKIP
    >>> rs = load_reward_set({"rewards": [{"use": "math.accuracy"}]})  # doctest: +SKIP
    >>> GRPOTrainer(..., reward_funcs=rs.reward_funcs, args=GRPOConfig(reward_weights=rs.reward_weights))  # doctest: +SKIP
    """

    def __init__(self, entries: list[Entry], rewards: list[Reward], infos: list[RewardInfo],
                 concurrent: bool | None = None) -> None:
        self.entries = entries
        self.rewards = rewards
        self.infos = infos
        #: whether :attr:`reward_funcs` gives TRL the async forms (scored concurrently in one step);
        #: None: the set does not say (false here; ``grpo-rewards train`` decides from the installed TRL)
        self.concurrent = concurrent
        self._async = [ConcurrentReward(r) for r in rewards]

    @property
    def reward_funcs(self) -> list[Reward] | list[ConcurrentReward]:
        """What ``GRPOTrainer(reward_funcs=...)`` takes: the rewards, or their async forms when :attr:`concurrent`."""
        return list(self._async) if self.concurrent else list(self.rewards)

    @property
    def reward_weights(self) -> list[float]:
        return [float(e.weight) for e in self.entries]

    @property
    def metrics(self) -> list[str]:
        """The metric name of each entry, in order."""
        return [e.metric for e in self.entries]

    def __len__(self) -> int:
        return len(self.rewards)

    def with_functions(self, *functions: Any, weights: cabc.Sequence[float] | None = None
                       ) -> tuple[list[Any], list[float]]:
        """``reward_funcs`` and ``reward_weights`` for GRPOTrainer: this set's rewards, then ``functions``.

        ``weights`` gives each added function its weight (default 1.0 each). TRL keys a reward's
        metrics by its name (``rewards/<name>/mean``) and silently merges two functions of one name
        into one series, averaging their outcome counts; a function named like one of the set's
        rewards (``grpo_rewards_math.accuracy`` beside a ``math.accuracy`` entry) is refused with a
        :class:`RewardSetError` naming both.

        >>> reward_funcs, reward_weights = rewards.with_functions(my_reward, weights=[0.5])  # doctest: +SKIP
        """
        weights = [1.0] * len(functions) if weights is None else [float(w) for w in weights]
        if len(weights) != len(functions):
            raise ValueError(f"weights: {len(weights)} weight(s) for {len(functions)} function(s)")
        problems = [f"added function {j + 1} is a {type(f).__name__} ({quote(f)}), not callable" + (
                    f" (pass the functions themselves: with_functions(*{type(f).__name__}))"
                    if isinstance(f, (list, tuple)) else "") for j, f in enumerate(functions) if not callable(f)]
        problems += [f"weight {j + 1} must be a finite number, got {quote(w)}"
                     for j, w in enumerate(weights) if not is_finite(w)]
        if problems:
            raise RewardSetError(problems, "with_functions")
        named = [(f"entry {i + 1} ({e.use}) of the set", r) for i, (e, r) in enumerate(zip(self.entries, self.rewards))]
        named += [(f"added function {j + 1}", f) for j, f in enumerate(functions)]
        problems = name_clashes(named)
        if problems:
            raise RewardSetError(problems, "with_functions")
        return [*self.reward_funcs, *functions], [*self.reward_weights, *weights]

    def prepare(self) -> list[str]:
        """Connect every execution backend the set uses (a Ray cluster), now; one line per entry saying
        where it runs. A cluster that cannot be reached raises :class:`~grpo_rewards.errors.ExecutionError`.
        """
        return [f"{reward.__name__}: {prepare_backend(reward.options)}" for reward in self.rewards]

    def start_workers(self) -> None:
        """Start the worker processes of the rewards that use them, in the background (see
        :meth:`Reward.start_workers`): a set built for training or scoring calls this."""
        for reward in self.rewards:
            reward.start_workers()

    def total(self, values: list[float | None]) -> float:
        """The weighted sum TRL computes for one sample (``None`` counts as absent)."""
        return float(sum(w * v for w, v in zip(self.reward_weights, values) if v is not None))

    def manifest(self) -> list[dict[str, Any]]:
        """Each entry with its resolved parameters, weight and the plugin version that provides it
        (and, for a reward that says what it runs on, that ``runtime``)."""

        out = []
        for entry, info in zip(self.entries, self.infos):
            params = {p.name: p.default for p in info.params.values() if not p.required}
            params.update(entry.params)
            out.append({
                "name": entry.metric,
                "use": entry.use,
                "weight": entry.weight,
                "params": params,
                "inputs": dict(entry.inputs),
                "options": {**info.options.changed(), **entry.options},  # registered, then the entry's
                "plugin": info.plugin,
                "distribution": info.distribution,
                "version": info.version,
            })
            note = info.runtime_note()
            if note:
                out[-1]["runtime"] = note
        return out


def trl_name(func: Any) -> str:
    """The name TRL keys a reward function's metrics by: a callable's ``__name__`` (through
    ``functools.partial``; a callable instance without one: its class name), a reward model's id.

    >>> trl_name(len), trl_name("org/reward-model")
    ('len', 'reward-model')
    """
    if isinstance(func, str):  # a reward model's id or folder: TRL names the loaded model by its last part
        return func.rstrip("/").split("/")[-1]
    model_id = getattr(getattr(func, "config", None), "_name_or_path", None)
    if isinstance(model_id, str) and hasattr(func, "forward"):  # a loaded reward model (a torch module)
        return model_id.rstrip("/").split("/")[-1]
    while isinstance(func, functools.partial):
        func = func.func
    return str(getattr(func, "__name__", type(func).__name__))


def name_clashes(named: cabc.Sequence[tuple[str, Any]]) -> list[str]:
    """One line for each name that two of the reward functions share; ``named`` is ``(where, function)``."""
    places: dict[str, list[str]] = {}
    for where, func in named:
        places.setdefault(trl_name(func), []).append(where)
    return [f"the reward functions {' and '.join(p)} are both named {name!r}: TRL would log them as one "
            f"rewards/{name}/* series and average their outcome counts; give one another name ('as:' in a "
            "reward set, metric= when you make the function)"
            for name, p in places.items() if len(p) > 1]


def _read_spec(spec: Any) -> tuple[list[Any], str, Path | None, dict[str, Any]]:
    """The raw entries of a reward set, its source (for messages), the folder file rewards are relative to,
    and the set's own keys (``execution``, ``concurrent``)."""
    source = "reward set"
    base = None
    settings: dict[str, Any] = {}
    if isinstance(spec, (str, Path)):
        source = str(spec) or "''"
        base = Path(spec).parent
        spec = read_yaml(spec, what="a YAML file with a 'rewards:' list", error=RewardSetError)
    if isinstance(spec, dict):
        unknown = [k for k in spec if k not in SET_KEYS]
        if unknown:
            raise RewardSetError([f"unknown top-level key(s) {capped(map(quote, unknown))} "
                                  f"(allowed: {', '.join(SET_KEYS)})"], source)
        if "rewards" not in spec:
            raise RewardSetError(["expected a 'rewards:' list"], source)
        settings = {k: spec[k] for k in SET_KEYS[1:] if k in spec}
        spec = spec["rewards"]
    if not isinstance(spec, list) or not spec:
        raise RewardSetError(["'rewards' must be a non-empty list of entries"], source)
    return spec, source, base, settings


def _set_problems(settings: dict[str, Any]) -> list[str]:
    problems = execution_problems(settings.get("execution"))
    if not isinstance(settings.get("concurrent", False), bool):
        problems.append(f"concurrent must be true or false, got {quote(settings['concurrent'])}")
    return problems


def load_reward_set(
    spec: Any, registry: Registry | None = None, columns: cabc.Iterable[str] | None = None,
    concurrent: bool | None = None,
) -> RewardSet:
    """Parse, validate and build a reward set from a YAML path or a dict/list.

    ``concurrent`` (default: the file's ``concurrent:`` key, else false) makes :attr:`RewardSet.reward_funcs`
    the async forms, which TRL scores concurrently. A set-level ``execution:`` applies to every entry
    whose reward can run there (per sample and worker-safe) and that has no ``execution:`` of its own.

    Every problem is collected and raised together as one :class:`RewardSetError` before any
    reward runs: unknown reward, unknown or ill-typed parameter, a parameter value the reward
    rejects, an option out of range, duplicate metric name, unknown or circular ``inputs``, and
    (when ``columns`` lists the dataset's columns) a column a reward needs that the dataset lacks.
    A column named like a reward's parameter is a ``UserWarning`` (the parameter wins, and another
    reward may well read that column).
    """
    raw_entries, source, base, settings = _read_spec(spec)
    registry = registry or load_registry()
    have = set(columns) if columns is not None else None
    problems: list[str] = _set_problems(settings)
    set_execution = settings.get("execution") if not problems else None
    resolved: list[Resolved] = []
    wheres: dict[str, list[str]] = {}
    def find(use: str) -> RewardInfo:
        return find_reward(registry, use, base)

    for i, raw in enumerate(raw_entries):
        one = resolve(raw, find, set_execution)
        resolved.append(one)
        where = f"entry {i + 1}" + (f" ({one.entry.use})" if one.entry is not None else "")
        if one.entry is not None:
            wheres.setdefault(one.entry.metric, []).append(where)
        problems += [f"{where}: {p}" for p in one.problems]
        if one.not_found is not None:
            problems.append(f"entry {i + 1}: {one.not_found}")
    for metric, places in wheres.items():
        if len(places) > 1:
            users = " and ".join(places) if len(places) <= 3 else f"{len(places)} entries ({capped(places, 3)})"
            problems.append(f"metric name {metric!r} is used by {users}; give each an 'as:' name")
    by_metric = {r.entry.metric: r.entry for r in resolved if r.entry is not None}
    for i, one in enumerate(resolved):
        if one.entry is None:
            continue
        for column, other in one.entry.inputs.items():
            if other not in by_metric:
                problems.append(f"entry {i + 1} ({one.entry.use}): inputs.{column} names {other!r}, "
                                "not an entry of this set")
            elif other == one.entry.metric:
                problems.append(f"entry {i + 1} ({one.entry.use}): inputs.{column} refers to the entry itself")
    problems += _cycles(by_metric)
    if have is not None:
        for i, one in enumerate(resolved):
            if one.entry is not None and one.info is not None:
                problems += [f"entry {i + 1} ({one.entry.use}): {p}"
                             for p in column_problems(one.entry, one.info, have, one.built)]
    if problems:
        raise RewardSetError(problems, source)
    for i, one in enumerate(resolved):
        if have is None or one.entry is None or one.info is None:
            continue
        warning = parameter_columns(one.info, have)
        if warning:
            warnings.warn(f"{source}: entry {i + 1} ({one.entry.use}): {warning}", UserWarning, stacklevel=2)
    checked = [one for one in resolved if one.entry is not None]
    return RewardSet([one.entry for one in checked], build(checked), [one.info for one in checked],  # type: ignore[misc]
                     settings.get("concurrent") if concurrent is None else concurrent)


def _cycles(by_metric: dict[str, Entry]) -> list[str]:
    state: dict[str, int] = {}
    problems: list[str] = []

    def visit(metric: str, path: list[str]) -> None:
        if state.get(metric) == 2 or metric not in by_metric:
            return
        if state.get(metric) == 1:
            problems.append("inputs form a cycle: " + " -> ".join([*path, metric]))
            return
        state[metric] = 1
        for other in by_metric[metric].inputs.values():
            if other != metric:
                visit(other, [*path, metric])
        state[metric] = 2

    for metric in by_metric:
        visit(metric, [])
    return problems


def load_rewards(*names: str, registry: Registry | None = None, concurrent: bool = False,
                 **options: Any) -> list[Reward] | list[ConcurrentReward]:
    """Rewards by name with default parameters, for a plain TRL script; ``options`` apply to each.
    ``concurrent=True``: their async forms, which TRL scores concurrently.

    >>> reward_funcs = load_rewards("math.accuracy", "format.boxed", on_error="none")  # doctest: +SKIP
    """
    return load_reward_set([{"use": n, **options} for n in names], registry=registry,
                           concurrent=concurrent).reward_funcs


def get_reward(name: str, registry: Registry | None = None, *,
               options: RewardOptions | cabc.Mapping[str, Any] | None = None, **params: Any) -> Reward:
    """One reward by name with parameters, validated like a reward-set entry.

    ``options`` (a :class:`RewardOptions` or a mapping of its fields) go over the registered
    ones: a mapping sets the keys it names (``{"timeout": None}`` removes a registered
    deadline); a ``RewardOptions`` sets the fields it does not leave at their default.

    >>> get_reward("math.accuracy", options=RewardOptions(timeout=2.0), rel_tol=1e-4)  # doctest: +SKIP
    """
    if isinstance(options, RewardOptions):
        options = options.changed()
    options = dict(options or {})
    problem = unknown_options(options, ENTRY_OPTIONS)
    if problem:
        raise RewardSetError([problem], name)
    return load_one(name, params, registry=registry, **options)[0]


def load_one(name: str, params: cabc.Mapping[str, Any] | None = None, registry: Registry | None = None,
             *, metric: str | None = None, **options: Any) -> tuple[Reward, RewardInfo]:
    """One reward and its registry entry, validated like a reward-set entry; its problems speak of
    the reward (``format.regex: missing required parameter 'pattern'``), not of a set's entry."""
    registry = registry or load_registry()
    return build_one(name, lambda use: find_reward(registry, use, None), params, metric, options)


def reward_from_info(info: RewardInfo, params: cabc.Mapping[str, Any] | None = None, *, metric: str | None = None,
                     options: cabc.Mapping[str, Any] | None = None,
                     inputs: cabc.Mapping[str, Reward] | None = None) -> Reward:
    """The reward ``info`` describes, with ``params``, checked like a reward-set entry (no registry
    needed: what a :class:`~grpo_rewards.RewardDefinition` builds its export with). ``inputs``
    maps a column to the reward whose values fill it."""
    return build_one(info.name, lambda use: info, params, metric, dict(options or {}), inputs)[0]
