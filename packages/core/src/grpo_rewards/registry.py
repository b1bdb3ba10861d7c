"""The registry: every reward and task that the loaded plugins registered, with its metadata."""

from __future__ import annotations

import contextlib
import difflib
import inspect
from collections.abc import Callable, Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from .errors import PluginError, RewardNotFoundError, TaskNotFoundError
from .hookspecs import RegisterReward, RegisterTask
from .options import RewardOptions
from .plugins import PluginRecord, Plugins, get_plugins
from .registration import registration_problems

#: First-party namespaces and the distribution that provides them (data, not imports).
FIRST_PARTY = {
    "length": "grpo-rewards-length",
    "format": "grpo-rewards-format",
    "math": "grpo-rewards-math",
    "gym": "grpo-rewards-gym",
    "code": "grpo-rewards-code",
}

_EMPTY = inspect.Parameter.empty


@dataclass(frozen=True)
class Param:
    """One parameter of a reward, read from its signature."""

    name: str
    annotation: Any = None  # a type, a string annotation, or None
    default: Any = _EMPTY

    @property
    def required(self) -> bool:
        return self.default is _EMPTY

    @property
    def type_name(self) -> str:
        a = self.annotation
        if a is None or a is _EMPTY:
            return "any"
        return a if isinstance(a, str) else getattr(a, "__name__", str(a))


@dataclass
class RewardInfo:
    """A registered reward and everything the core knows about it."""

    name: str
    obj: Any
    form: str = "sample"
    description: str = ""
    params: dict[str, Param] = field(default_factory=dict)
    columns: tuple[str, ...] = ()
    output_range: tuple[float, float] | None = None
    units: str = "none"
    #: how the core runs it unless a reward-set entry says otherwise
    options: RewardOptions = field(default_factory=RewardOptions)
    example: str | None = None
    #: the reward's hack corpus as registered (entries, or a function returning them); see grpo_rewards.hacks
    hacks: Any = None
    plugin: str | None = None
    distribution: str | None = None
    version: str | None = None

    @property
    def is_factory(self) -> bool:
        return inspect.isclass(self.obj)

    # the registered options, read where they used to be fields
    worker_safe = property(lambda self: self.options.worker_safe)
    timeout = property(lambda self: self.options.timeout)
    invalid_value = property(lambda self: self.options.invalid_value)
    max_chars = property(lambda self: self.options.max_chars)

    @property
    def summary(self) -> str:
        return self.description.strip().splitlines()[0] if self.description.strip() else ""


@dataclass
class TaskInfo:
    """A registered dataset factory: ``factory(n, seed, **params) -> list[dict]``."""

    name: str
    factory: Callable[..., list[dict[str, Any]]]
    description: str = ""
    columns: tuple[str, ...] = ()
    default_rewards: list[dict[str, Any]] | None = None
    params: dict[str, Param] = field(default_factory=dict)
    plugin: str | None = None
    distribution: str | None = None
    version: str | None = None
    #: the factory takes ``**params`` and the plugin declared none: any parameter is passed through
    open_params: bool = False

    def unknown_params(self, given: Iterable[str]) -> list[str]:
        """The names in ``given`` the task has no parameter for (none when its parameters are open).

        >>> TaskInfo("x:y", lambda n, seed, max_value=9: [], params={"max_value": Param("max_value")}
        ...          ).unknown_params({"max_value": 3, "max_val": 3})
        ['max_val']
        """
        return [] if self.open_params else [k for k in given if k not in self.params]


def _declared_task_params(params: Any) -> tuple[dict[str, Param], list[str]]:
    """(parameters, problems) of the ``params=`` a task was registered with: ``{name: {"type": ...,
    "default": ...}}``, a type (or its name as text) and a default (none: a required parameter)."""
    if not isinstance(params, dict):
        return {}, [f"params must be a dict of name -> {{'type': ..., 'default': ...}}, not {type(params).__name__}"]
    out: dict[str, Param] = {}
    problems = []
    for name, spec in params.items():
        if not isinstance(name, str) or not name.isidentifier():
            problems.append(f"parameter name {name!r} is not an identifier")
        elif not isinstance(spec, dict) or set(spec) - {"type", "default"}:
            problems.append(f"parameter {name!r}: expected {{'type': ..., 'default': ...}}, got {spec!r}")
        else:
            out[name] = Param(name, spec.get("type"), spec.get("default", _EMPTY))
    return out, problems


def _signature_params(obj: Any) -> tuple[dict[str, Param], list[str]]:
    """(parameters, required columns) of a sample function or a factory class."""
    target = obj.__init__ if inspect.isclass(obj) else obj
    try:
        sig = inspect.signature(target, eval_str=True)
    except (NameError, SyntaxError, AttributeError):  # an annotation that cannot be resolved here
        sig = inspect.signature(target)
    except (TypeError, ValueError):
        return {}, []
    params: dict[str, Param] = {}
    columns: list[str] = []
    items = list(sig.parameters.values())
    if inspect.isclass(obj):
        items = items[1:]  # self
    for p in items:
        if p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL):
            continue
        if inspect.isclass(obj):
            if p.kind is not p.POSITIONAL_ONLY:
                params[p.name] = Param(p.name, None if p.annotation is _EMPTY else p.annotation, p.default)
        elif p.kind is p.KEYWORD_ONLY:
            if p.default is _EMPTY:
                columns.append(p.name)
            else:
                params[p.name] = Param(p.name, None if p.annotation is _EMPTY else p.annotation, p.default)
    return params, columns


def _first_doc_paragraph(obj: Any) -> str:
    doc = inspect.getdoc(obj) or ""
    return doc.split("\n\n")[0].replace("\n", " ").strip()


class Registry:
    """Rewards and tasks from :class:`~grpo_rewards.plugins.Plugins`; built with :func:`load_registry`."""

    def __init__(self, plugins: Plugins) -> None:
        self.plugins = plugins
        self.rewards: dict[str, RewardInfo] = {}
        self.tasks: dict[str, TaskInfo] = {}
        self.records: dict[str, PluginRecord] = plugins.records
        #: namespace -> message, where two distributions claim the same plugin name
        self.conflicts: dict[str, str] = {r.name: r.conflict for r in self.records.values() if r.conflict}
        self._collect()

    # -- collection -------------------------------------------------------------------------
    def _collect(self) -> None:
        """Each plugin's rewards and tasks are staged and kept only when all its hooks return."""
        for plugin, record in list(self.records.items()):
            if not record.ok:
                continue
            rewards: dict[str, RewardInfo] = {}
            tasks: dict[str, TaskInfo] = {}
            registers: dict[str, Callable[..., Any]] = {"register_rewards": self._reward_register(plugin, rewards),
                                                        "register_tasks": self._task_register(plugin, tasks)}
            if self.plugins.run_hooks(plugin, registers):
                self.rewards.update(rewards)
                self.tasks.update(tasks)

    def _full_name(self, plugin: str, name: str, sep: str) -> str:
        if not isinstance(name, str) or not name or any(c.isspace() for c in name):
            raise PluginError(f"plugin {plugin!r} registered an invalid name {name!r}")
        prefix = f"{plugin}{sep}"
        return name if name.startswith(prefix) else prefix + name

    def _reward_register(self, plugin: str, staged: dict[str, RewardInfo]) -> RegisterReward:
        record = self.records[plugin]

        def register(
            name: str,
            obj: Any,
            *,
            form: str = "sample",
            description: str | None = None,
            columns: list[str] | tuple[str, ...] | None = None,
            output_range: tuple[float, float] | None = None,
            units: str = "none",
            example: str | None = None,
            hacks: Any = None,
            options: RewardOptions | None = None,
            **option_values: Any,
        ) -> RewardInfo:
            full = self._full_name(plugin, name, ".")
            params, inferred_columns = (_signature_params(obj) if callable(obj) and (
                form == "sample" or inspect.isclass(obj)) else ({}, []))
            given = {**(options or RewardOptions()).changed(), **option_values}
            problems = registration_problems(plugin, full, obj, form, params, output_range, units, given)
            if problems:
                raise PluginError(f"{full}: " + "; ".join(problems))
            info = RewardInfo(
                name=full,
                obj=obj,
                form=form,
                description=description or _first_doc_paragraph(obj),
                params=params,
                columns=tuple(columns if columns is not None else inferred_columns),
                output_range=(output_range[0], output_range[1]) if output_range is not None else None,
                units=units,
                options=RewardOptions(**given),
                example=example,
                hacks=hacks,
                plugin=plugin,
                distribution=record.distribution,
                version=record.version,
            )
            if full in staged:
                raise PluginError(f"plugin {plugin!r} registered {full!r} twice")
            staged[full] = info
            return info

        return register

    def _task_register(self, plugin: str, staged: dict[str, TaskInfo]) -> RegisterTask:
        record = self.records[plugin]

        def register(
            name: str,
            factory: Callable[..., list[dict[str, Any]]],
            *,
            description: str | None = None,
            columns: list[str] | tuple[str, ...] | None = None,
            default_rewards: list[dict[str, Any]] | None = None,
            params: dict[str, dict[str, Any]] | None = None,
        ) -> TaskInfo:
            full = self._full_name(plugin, name, ":")
            sig_params = {}
            open_params = False
            try:
                for p in list(inspect.signature(factory).parameters.values())[2:]:
                    if p.kind is p.VAR_KEYWORD:
                        open_params = True
                    elif p.kind is not p.VAR_POSITIONAL:
                        sig_params[p.name] = Param(p.name, None if p.annotation is _EMPTY else p.annotation, p.default)
            except (TypeError, ValueError):
                open_params = True  # a signature Python cannot read: pass parameters through unchecked
            if params is not None:
                declared, problems = _declared_task_params(params)
                if problems:
                    raise PluginError(f"task {full}: " + "; ".join(problems))
                sig_params, open_params = declared, False
            info = TaskInfo(
                name=full,
                factory=factory,
                description=description or _first_doc_paragraph(factory),
                columns=tuple(columns or ()),
                default_rewards=default_rewards,
                params=sig_params,
                plugin=plugin,
                distribution=record.distribution,
                version=record.version,
                open_params=open_params,
            )
            if full in staged:
                raise PluginError(f"plugin {plugin!r} registered task {full!r} twice")
            staged[full] = info
            return info

        return register

    # -- lookup -----------------------------------------------------------------------------
    def broken(self) -> dict[str, PluginRecord]:
        return {name: r for name, r in self.records.items() if not r.ok}

    def empty_plugins(self) -> list[str]:
        """Plugins that loaded but registered no reward and no task (a missing ``@hookimpl``?)."""
        used = {i.plugin for i in self.rewards.values()} | {t.plugin for t in self.tasks.values()}
        return sorted(name for name, r in self.records.items() if r.ok and name not in used)

    def _namespace_problem(self, namespace: str) -> str | None:
        record = self.records.get(namespace)
        if record is not None and not record.ok:
            return f"plugin {namespace!r} ({record.distribution or record.module}) failed to load: {record.error}"
        return None

    def _namespace_note(self, namespace: str) -> str | None:
        record = self.records.get(namespace)
        if record is not None and record.ok and namespace in self.empty_plugins():
            hooks = ", ".join(record.hooks) or "no hooks"
            return (f"plugin {namespace!r} ({record.distribution or record.module}) is installed but registered "
                    f"nothing (hooks found: {hooks}; is @grpo_rewards.hookimpl missing?)")
        return None

    def reward(self, name: str) -> RewardInfo:
        """The :class:`RewardInfo` for ``name``, or an error that says what to do instead."""
        self._check_namespace(name, ".")
        if name in self.rewards:
            return self.rewards[name]
        raise RewardNotFoundError(self._not_found(name, list(self.rewards), "reward", "."))

    def task(self, name: str) -> TaskInfo:
        """The :class:`TaskInfo` for ``name``, or an error that says what to do instead."""
        self._check_namespace(name, ":")
        if name in self.tasks:
            return self.tasks[name]
        raise TaskNotFoundError(self._not_found(name, list(self.tasks), "task", ":"))

    def _check_namespace(self, name: str, sep: str) -> None:
        """Refuse ``name`` when two plugins claim its namespace."""
        namespace = name.split(sep, 1)[0]
        if namespace in self.conflicts:
            raise PluginError(f"cannot use {name!r}: {self.conflicts[namespace]}")

    def _not_found(self, name: str, known: list[str], kind: str, sep: str) -> str:
        namespace = name.split(sep, 1)[0] if sep in name else name
        message = f"unknown {kind} {name!r}."
        problem = self._namespace_problem(namespace)
        if problem:
            return f"{message} It would come from {problem}"
        note = self._namespace_note(namespace)
        if note:
            return f"{message} The {note}"
        close = difflib.get_close_matches(name, known, n=3, cutoff=0.75)
        if close:
            message += " Did you mean " + ", ".join(repr(c) for c in close) + "?"
        allow = self.plugins.allow
        if namespace not in self.records and allow is not None:
            filtered = allow.filtered_out(namespace)
            if filtered:
                return f"{message} The {filtered} (add {namespace!r} to it, or unset it to load every plugin)"
        if namespace in FIRST_PARTY and namespace not in self.records:
            return message + f" It is provided by {FIRST_PARTY[namespace]}: pip install {FIRST_PARTY[namespace]}"
        elif namespace not in self.records and allow is not None and allow.allowed is not None:
            message += f" (plugins are restricted by GRPO_REWARDS_PLUGINS={','.join(sorted(allow.allowed))})"
        if not close and known:
            message += f" Known {kind}s: " + ", ".join(sorted(known))
        return message


#: The registry :func:`use_registry` put in place for the current context, if any.
_IN_USE: ContextVar[Registry | None] = ContextVar("grpo_rewards_registry", default=None)


def load_registry(plugins: Plugins | None = None) -> Registry:
    """Collect what ``plugins`` register; without ``plugins``, the registry in use (see
    :func:`use_registry`) or else a fresh discovery of the installed plugins."""
    if plugins is None:
        in_use = _IN_USE.get()
        if in_use is not None:
            return in_use
        plugins = get_plugins()
    return Registry(plugins)


@contextlib.contextmanager
def use_registry(registry: Registry) -> Iterator[Registry]:
    """Inside the block, ``load_registry()`` (so ``get_reward``, ``load_reward_set`` and the
    ``grpo-rewards`` commands) returns ``registry``. A context variable, not a module global: the
    previous registry (or discovery) is back after the block, and blocks nest."""
    token = _IN_USE.set(registry)
    try:
        yield registry
    finally:
        _IN_USE.reset(token)
