"""Weighted reward sets: parsed from YAML or dicts, validated whole, resolved for GRPOConfig."""

from __future__ import annotations

import collections.abc as cabc
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import RewardSetError, quote, read_yaml
from .local import find_reward, metric_name
from .options import ENTRY_OPTIONS, RewardOptions, check_options
from .registry import Registry, RewardInfo, load_registry
from .reward import ResultCache, Reward, make_reward

#: The keys of a reward-set entry: these five, and the execution options (:class:`RewardOptions`).
ENTRY_KEYS = {"use", "weight", "with", "as", "inputs", *ENTRY_OPTIONS}


def _matches(value: Any, annotation: Any) -> bool:
    """Whether a config value fits a parameter annotation (unknown annotations accept anything)."""
    if annotation is None or annotation is typing.Any or isinstance(annotation, str):
        return True
    if isinstance(annotation, tuple):
        return any(_matches(value, a) for a in annotation)
    if annotation is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if annotation is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if annotation in (str, bool, dict, list, tuple):
        return isinstance(value, (list, tuple)) if annotation in (list, tuple) else isinstance(value, annotation)
    if annotation is type(None):
        return value is None
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        return any(_matches(value, a) for a in args)
    if origin is typing.Literal:
        return value in args
    if origin in (list, tuple, cabc.Sequence, set, frozenset):
        if not isinstance(value, (list, tuple)):
            return False
        inner = args[0] if args else None
        return inner is None or all(_matches(v, inner) for v in value)
    if origin in (dict, cabc.Mapping):
        return isinstance(value, dict)
    if isinstance(annotation, type):
        return isinstance(value, annotation)
    return True


def _type_name(annotation: Any) -> str:
    if isinstance(annotation, type):
        return annotation.__name__
    return str(annotation).replace("typing.", "")


def required_columns(info: RewardInfo, params: dict[str, Any]) -> tuple[str, ...]:
    """Columns a reward reads: its declared ones plus the value of every ``*_column`` parameter."""
    columns = list(info.columns)
    for p in info.params.values():
        if p.name.endswith("_column"):
            value = params.get(p.name, None if p.required else p.default)
            if isinstance(value, str) and value not in columns:
                columns.append(value)
    return tuple(columns)


@dataclass
class Entry:
    """One line of a reward set."""

    use: str
    weight: float = 1.0
    params: dict[str, Any] = field(default_factory=dict)
    name: str = ""
    inputs: dict[str, str] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)


class RewardSet:
    """A validated, weighted set of rewards ready for ``GRPOTrainer``.

    >>> from grpo_rewards import Reward  # doctest: +SKIP
    >>> rs = load_reward_set({"rewards": [{"use": "math.accuracy"}]})  # doctest: +SKIP
    >>> GRPOTrainer(..., reward_funcs=rs.reward_funcs, args=GRPOConfig(reward_weights=rs.reward_weights))  # doctest: +SKIP
    """

    def __init__(self, entries: list[Entry], rewards: list[Reward], infos: list[RewardInfo]) -> None:
        self.entries = entries
        self.rewards = rewards
        self.infos = infos

    @property
    def reward_funcs(self) -> list[Reward]:
        return list(self.rewards)

    @property
    def reward_weights(self) -> list[float]:
        return [float(e.weight) for e in self.entries]

    @property
    def names(self) -> list[str]:
        return [e.name for e in self.entries]

    def __len__(self) -> int:
        return len(self.rewards)

    def total(self, values: list[float | None]) -> float:
        """The weighted sum TRL computes for one sample (``None`` counts as absent)."""
        return float(sum(w * v for w, v in zip(self.reward_weights, values) if v is not None))

    def manifest(self) -> list[dict[str, Any]]:
        """Each entry with its resolved parameters, weight and the plugin version that provides it
        (and, for a reward that says what it runs on, that ``runtime``)."""
        from .scorer_hooks import runtime_note

        out = []
        for entry, info in zip(self.entries, self.infos):
            params = {p.name: p.default for p in info.params.values() if not p.required}
            params.update(entry.params)
            out.append({
                "name": entry.name,
                "use": entry.use,
                "weight": entry.weight,
                "params": params,
                "inputs": dict(entry.inputs),
                "options": {**info.options.changed(), **entry.options},  # registered, then the entry's
                "plugin": info.plugin,
                "distribution": info.distribution,
                "version": info.version,
            })
            note = runtime_note(info.obj)
            if note:
                out[-1]["runtime"] = note
        return out


def _read_spec(spec: Any) -> tuple[list[Any], str]:
    source = "reward set"
    if isinstance(spec, (str, Path)):
        source = str(spec) or "''"
        spec = read_yaml(spec, what="a YAML file with a 'rewards:' list", error=RewardSetError)
    if isinstance(spec, dict):
        if "rewards" not in spec:
            raise RewardSetError(["expected a 'rewards:' list"], source)
        spec = spec["rewards"]
    if not isinstance(spec, list) or not spec:
        raise RewardSetError(["'rewards' must be a non-empty list of entries"], source)
    return spec, source


def _parse_entry(i: int, raw: Any, problems: list[str]) -> Entry | None:
    where = f"entry {i + 1}"
    if isinstance(raw, str):
        raw = {"use": raw}
    if not isinstance(raw, dict):
        problems.append(f"{where}: expected a mapping with 'use:', got {quote(raw)}")
        return None
    use = raw.get("use")
    if isinstance(use, str) and use:
        where = f"entry {i + 1} ({use})"
    unknown = sorted(set(raw) - ENTRY_KEYS)
    if unknown:
        problems.append(f"{where}: unknown key(s) {', '.join(unknown)} (allowed: {', '.join(sorted(ENTRY_KEYS))})")
    if not isinstance(use, str) or not use:
        problems.append(f"{where}: 'use' must name a reward, like math.accuracy")
        return None
    weight = raw.get("weight", 1.0)
    if isinstance(weight, bool) or not isinstance(weight, (int, float)):
        problems.append(f"{where}: weight must be a number, got {quote(weight)}")
        weight = 1.0
    params = raw.get("with") or {}
    if not isinstance(params, dict):
        problems.append(f"{where}: 'with' must be a mapping of parameters, got {quote(params)}")
        params = {}
    inputs = raw.get("inputs") or {}
    if not isinstance(inputs, dict) or not all(isinstance(v, str) for v in inputs.values()):
        problems.append(f"{where}: 'inputs' maps a column name to another entry's name")
        inputs = {}
    options = {k: raw[k] for k in ENTRY_OPTIONS if k in raw}
    name = raw.get("as", metric_name(use))
    if not isinstance(name, str) or not name:
        problems.append(f"{where}: 'as' must be a non-empty metric name")
        name = use
    return Entry(use=use, weight=float(weight), params=dict(params), name=name, inputs=dict(inputs), options=options)


def _check_params(where: str, info: RewardInfo, params: dict[str, Any], problems: list[str]) -> None:
    for key, value in params.items():
        if key not in info.params and key in ENTRY_OPTIONS:
            problems.append(f"{where}: {key!r} is an execution option, not a parameter: give it as the entry's "
                            f"'{key}:' key (from Python, get_reward(..., options={{{key!r}: ...}}))")
        elif key not in info.params:
            known = ", ".join(sorted(info.params)) or "none"
            problems.append(f"{where}: unknown parameter {key!r} (parameters: {known})")
        elif not _matches(value, info.params[key].annotation):
            problems.append(
                f"{where}: parameter {key!r} must be {_type_name(info.params[key].annotation)}, got {quote(value)}"
            )
    for p in info.params.values():
        if p.required and p.name not in params:
            problems.append(f"{where}: missing required parameter {p.name!r}")


def _entry_problems(where: str, entry: Entry, info: RewardInfo, problems: list[str]) -> None:
    """Parameter and option problems of one entry whose reward is known, in one pass."""
    before = len(problems)
    _check_params(where, info, entry.params, problems)
    params_ok = len(problems) == before
    problems += [f"{where}: {p}" for p in check_options({**info.options.changed(), **entry.options})]
    if params_ok and info.is_factory:
        try:  # the factory validates its own parameter values
            info.obj(**entry.params)
        except Exception as exc:
            problems.append(f"{where}: {type(exc).__name__}: {exc}")


def _column_problems(where: str, entry: Entry, info: RewardInfo, have: set[str]) -> list[str]:
    problems = []
    missing = [c for c in required_columns(info, entry.params) if c not in have and c not in entry.inputs]
    if missing:
        problems.append(f"{where}: needs dataset column(s) {', '.join(map(repr, missing))}; "
                        f"the dataset has: {', '.join(sorted(have)) or 'none'}")
    if info.form == "sample" and not info.is_factory:
        clash = sorted(have & set(info.params))
        if clash:
            problems.append(f"{where}: dataset column(s) {', '.join(map(repr, clash))} have the name of a parameter; "
                            "the parameter's value is used, not the column (rename the column to use it)")
    return problems


def load_reward_set(
    spec: Any, registry: Registry | None = None, columns: cabc.Iterable[str] | None = None
) -> RewardSet:
    """Parse, validate and build a reward set from a YAML path or a dict/list.

    Every problem is collected and raised together as one :class:`RewardSetError` before any
    reward runs: unknown reward, unknown or ill-typed parameter, a parameter value the reward
    rejects, an option out of range, duplicate metric name, unknown or circular ``inputs``, and
    (when ``columns`` lists the dataset's columns) a column a reward needs that the dataset lacks
    or one named like a reward's parameter.
    """
    raw_entries, source = _read_spec(spec)
    registry = registry or load_registry()
    problems: list[str] = []
    entries: list[Entry | None] = []
    infos: list[RewardInfo | None] = []
    wheres: dict[str, list[str]] = {}
    for i, raw in enumerate(raw_entries):
        entry = _parse_entry(i, raw, problems)
        info = None
        if entry is not None:
            where = f"entry {i + 1} ({entry.use})"
            wheres.setdefault(entry.name, []).append(where)
            try:
                info = find_reward(registry, entry.use, Path(spec).parent if isinstance(spec, (str, Path)) else None)
            except Exception as exc:  # RewardNotFoundError, PluginError, a file or module reward that cannot load
                problems.append(f"entry {i + 1}: {exc}")
            else:
                _entry_problems(where, entry, info, problems)
        entries.append(entry)
        infos.append(info)
    for name, places in wheres.items():
        if len(places) > 1:
            problems.append(f"metric name {name!r} is used by {' and '.join(places)}; give each an 'as:' name")
    by_name = {e.name: e for e in entries if e is not None}
    for i, entry in enumerate(entries):
        if entry is None:
            continue
        for column, other in entry.inputs.items():
            if other not in by_name:
                problems.append(f"entry {i + 1} ({entry.use}): inputs.{column} names {other!r}, not an entry of this set")
            elif other == entry.name:
                problems.append(f"entry {i + 1} ({entry.use}): inputs.{column} refers to the entry itself")
    problems += _cycles(by_name)
    if columns is not None:
        have = set(columns)
        for i, (entry, info) in enumerate(zip(entries, infos)):
            if entry is not None and info is not None:
                problems += _column_problems(f"entry {i + 1} ({entry.use})", entry, info, have)
    if problems:
        raise RewardSetError(problems, source)
    return _build([e for e in entries if e is not None], [i for i in infos if i is not None], source)


def _cycles(by_name: dict[str, Entry]) -> list[str]:
    state: dict[str, int] = {}
    problems: list[str] = []

    def visit(name: str, path: list[str]) -> None:
        if state.get(name) == 2 or name not in by_name:
            return
        if state.get(name) == 1:
            problems.append("inputs form a cycle: " + " -> ".join([*path, name]))
            return
        state[name] = 1
        for other in by_name[name].inputs.values():
            if other != name:
                visit(other, [*path, name])
        state[name] = 2

    for name in by_name:
        visit(name, [])
    return problems


def _build(entries: list[Entry], infos: list[RewardInfo], source: str) -> RewardSet:
    """The rewards of a validated set, each built once, dependencies first."""
    cache = ResultCache()
    built: dict[str, Reward] = {}
    by_name = {e.name: (e, info) for e, info in zip(entries, infos)}

    def build(name: str) -> Reward:
        if name in built:
            return built[name]
        entry, info = by_name[name]
        inputs = {column: build(other) for column, other in entry.inputs.items()}
        reward = make_reward(info, entry.params, name=entry.name, options=entry.options, inputs=inputs, cache=cache)
        reward.columns = tuple(c for c in required_columns(info, entry.params) if c not in entry.inputs)
        built[name] = reward
        return reward

    try:
        rewards = [build(e.name) for e in entries]
    except Exception as exc:  # a factory that accepted its parameters once and not twice
        raise RewardSetError([f"{type(exc).__name__}: {exc}"], source) from exc
    return RewardSet(entries, rewards, infos)


def load_rewards(*names: str, registry: Registry | None = None, **options: Any) -> list[Reward]:
    """Rewards by name with default parameters, for a plain TRL script; ``options`` apply to each.

    >>> reward_funcs = load_rewards("math.accuracy", "format.boxed", on_error="none")  # doctest: +SKIP
    """
    return load_reward_set([{"use": n, **options} for n in names], registry=registry).reward_funcs


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
    unknown = sorted(set(options) - set(ENTRY_OPTIONS))
    if unknown:
        raise RewardSetError([f"{name}: unknown option(s) {', '.join(unknown)} (options: {', '.join(ENTRY_OPTIONS)})"])
    return load_one(name, params, registry=registry, **options)[0]


def load_one(name: str, params: cabc.Mapping[str, Any] | None = None, registry: Registry | None = None,
             **options: Any) -> tuple[Reward, RewardInfo]:
    """One reward and its registry entry, validated like a reward-set entry; its problems speak of
    the reward (``format.regex: missing required parameter 'pattern'``), not of a set's entry 1."""
    try:
        built = load_reward_set([{"use": name, "with": dict(params or {}), **options}], registry=registry)
    except RewardSetError as exc:
        prefixes = (f"entry 1 ({name}): ", "entry 1: ")
        problems = [next((p[len(x):] for x in prefixes if p.startswith(x)), p) for p in exc.problems]
        raise RewardSetError(problems, name) from None
    return built.rewards[0], built.infos[0]
