"""Environments: what a plugin registers for TRL's tool loop, and the factory TRL calls.

An environment is a class (or a function returning an instance) whose public methods are the
tools the model may call, with a ``reset(**row)`` that TRL calls before each rollout (it may
return text appended to the prompt), and optionally a ``get_reward()`` scoring the rollout from
the environment's state (then the environment *owns a reward*). That is TRL's contract
(``GRPOTrainer(environment_factory=...)``), unchanged: an environment written for TRL registers
as it is. An environment that owns a reward may set ``self.outcome`` to a label (``"correct"``)
before ``get_reward`` returns; the core counts and logs it like any reward's label.

:class:`EnvironmentInfo` is the registered record (dotted name like a reward's:
``tools.calculator``); its tools are read as TRL reads them (the public methods but ``reset``
and ``get_reward``), their JSON schemas by the reader TRL's chat template uses
(``transformers.utils.get_json_schema``, imported when a schema is asked for).
:class:`EnvironmentFactory` is the picklable zero-argument callable handed to TRL: it builds the
environment with the configured parameters and hides its ``get_reward`` from TRL, because the
core scores it itself under the environment's name (:mod:`grpo_rewards.env_reward`), so it is
counted once.

>>> class Counter:
...     '''Counts.'''
...     def __init__(self, start: int = 0):
...         self.n = start
...     def reset(self, **row):
...         self.n = 0
...     def add(self, k: int) -> str:
...         '''Add k to the counter.
...
...         Args:
...             k: how much to add
...         '''
...         self.n += k
...         return str(self.n)
>>> info = EnvironmentInfo("demo.counter", Counter)
>>> info.tool_names(), info.owns_reward, list(info.params)
(['add'], False, ['start'])
>>> EnvironmentFactory(info, {"start": 3})().n
3
"""

from __future__ import annotations

import copy
import inspect
import types
from collections.abc import Callable
from typing import Any

from .backends import Execution
from .errors import PluginError, capped
from .records import is_reference, resolve_reference
from .signatures import EMPTY, Param, first_doc_paragraph, signature, type_problem
from .source_signatures import source_defines, source_docstring, source_signature

__all__ = ["EnvironmentFactory", "EnvironmentInfo", "call_get_reward", "tool_methods"]

#: The attribute :class:`EnvironmentFactory` marks its instances with (the environment's name), so the
#: reward of one environment leaves the rollouts of another alone in a run that mixes them.
TAG = "_grpo_rewards_environment"

#: Methods of an environment that are not tools (TRL's rule: these two and every ``_private`` one).
NOT_TOOLS = ("reset", "get_reward")


def tool_methods(obj: Any) -> list[Any]:
    """The tools of an environment instance, as TRL collects them: its public bound methods but
    ``reset`` and ``get_reward``, in name order (``inspect.getmembers``)."""
    return [m for name, m in inspect.getmembers(obj, predicate=inspect.ismethod)
            if name not in NOT_TOOLS and not name.startswith("_")]


def _class_tools(cls: type) -> list[Any]:
    """The tools of instances of ``cls`` without building one: its functions bound to a stand-in."""
    stand_in = object()
    return [types.MethodType(f, stand_in) for name, f in inspect.getmembers(cls, predicate=inspect.isfunction)
            if name not in NOT_TOOLS and not name.startswith("_")]


def _factory_params(factory: Any) -> dict[str, Param]:
    """The parameters of an environment factory: every named parameter of the class's ``__init__``
    (or of the function)."""
    sig = signature(factory, resolve=True)
    if sig is None:
        return {}
    return {p.name: Param(p.name, None if p.annotation is EMPTY else p.annotation, p.default)
            for p in sig.parameters.values() if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)}


class EnvironmentInfo:
    """A registered environment: its name, factory (or ``"module:attribute"`` reference, imported on
    first use), description, parameters, tools and whether it owns a reward; the default rewards a
    training run with it adds (``default_rewards``, a reward-set list) and its hack corpus."""

    def __init__(self, name: str, factory: Any, *, description: str | None = None,
                 params: dict[str, Param] | None = None, reward: bool | None = None,
                 default_rewards: list[dict[str, Any]] | None = None, example: str | None = None,
                 hacks: Any = None, plugin: str | None = None, distribution: str | None = None,
                 version: str | None = None) -> None:
        self.name = name
        self.reference: str | None = factory if is_reference(factory) else None
        self._factory = None if self.reference else factory
        self._description = description
        self._params = params
        self._reward = reward
        self.default_rewards = default_rewards
        self.example = example
        self.hacks = hacks
        self.plugin = plugin
        self.distribution = distribution
        self.version = version

    def __repr__(self) -> str:
        return f"EnvironmentInfo({self.name!r}, {self.reference or self._factory!r})"

    @property
    def factory(self) -> Any:
        """The registered class or function (imported now when registered by reference)."""
        if self._factory is None:
            assert self.reference is not None
            factory = resolve_reference(self.reference, f"environment {self.name}")
            if not callable(factory):
                raise PluginError(f"environment {self.name}: {self.reference} is not a class or a function")
            self._factory = factory
        return self._factory

    @property
    def description(self) -> str:
        if self._description is None:
            doc = source_docstring(self.reference) if self.reference and self._factory is None else None
            self._description = (doc.split("\n\n")[0].replace("\n", " ").strip() if doc is not None
                                 else first_doc_paragraph(self.factory))
        return self._description

    @property
    def summary(self) -> str:
        return self.description.splitlines()[0] if self.description else ""

    @property
    def params(self) -> dict[str, Param]:
        if self._params is None:
            self._params = _factory_params(self.factory)
        return self._params

    def params_unloaded(self) -> dict[str, Param]:
        """:attr:`params` for display, read from the source while a factory registered by reference is
        not imported (``list --json`` then loads no environment code)."""
        if self._params is None and self.reference and self._factory is None:
            found = source_signature(self.reference)
            if found is not None:
                return found[0]
        return self.params

    @property
    def owns_reward(self) -> bool:
        """Whether the environment defines ``get_reward`` (read from the source while not imported)."""
        if self._reward is None:
            found = source_defines(self.reference, "get_reward") if self.reference and self._factory is None else None
            if found is None:
                target = self.factory
                found = callable(getattr(target, "get_reward", None)) if inspect.isclass(target) else bool(
                    callable(getattr(self.build({}), "get_reward", None)))
            self._reward = bool(found)
        return self._reward

    def build(self, params: dict[str, Any]) -> Any:
        """A new environment instance with ``params`` (a :class:`PluginError` naming it when it cannot be built)."""
        try:
            return self.factory(**params)
        except PluginError:
            raise
        except Exception as exc:
            raise PluginError(f"environment {self.name} cannot be built with {params}: "
                              f"{type(exc).__name__}: {exc}") from exc

    def tools(self) -> list[Any]:
        """The tools (bound methods) of the environment, read from its class (a function factory:
        from an instance built with the default parameters)."""
        target = self.factory
        return _class_tools(target) if inspect.isclass(target) else tool_methods(self.build({}))

    def tool_names(self) -> list[str]:
        return [t.__name__ for t in self.tools()]

    def tool_schemas(self) -> list[dict[str, Any]]:
        """Each tool's JSON schema as TRL puts it into the prompt (``transformers.utils.get_json_schema``);
        a :class:`PluginError` naming the tool when one cannot be read (a missing type hint or
        ``Args:`` entry)."""
        from transformers.utils import get_json_schema

        schemas = []
        for tool in self.tools():
            try:
                schemas.append(get_json_schema(tool))
            except Exception as exc:
                raise PluginError(f"environment {self.name}: tool {tool.__name__!r} has no readable JSON schema "
                                  f"(TRL needs a type hint for each argument and a docstring with an Args: "
                                  f"section): {exc}") from exc
        return schemas

    def unknown_params(self, given: dict[str, Any]) -> list[str]:
        open_params = any(p.kind is p.VAR_KEYWORD for p in (signature(self.factory) or inspect.Signature()
                                                             ).parameters.values())
        return [] if open_params else [k for k in given if k not in self.params]

    def check_params(self, given: dict[str, Any], where: str) -> list[str]:
        """Problems of ``given`` as this environment's parameters (unknown and missing names, and values whose
        type the annotation refuses, as a reward's are checked); the values themselves the factory checks."""
        problems = []
        unknown = self.unknown_params(given)
        if unknown:
            problems.append(f"{where}: environment {self.name} has no parameter(s) {', '.join(map(repr, unknown))}; "
                            f"its parameters: {capped(list(self.params)) or 'none'}")
        for key, value in given.items():
            if key in self.params and (problem := type_problem(key, value, self.params[key].annotation)) is not None:
                problems.append(f"{where}: environment {self.name}: {problem}")
        missing = [p.name for p in self.params.values() if p.required and p.name not in given]
        if missing:
            problems.append(f"{where}: environment {self.name} needs parameter(s) {', '.join(missing)}")
        return problems


def _hidden_reward_class(cls: type) -> type:
    """A subclass of ``cls`` whose ``get_reward`` TRL does not see (it is not a method there), so TRL
    does not add it as a reward of its own; :func:`call_get_reward` still finds the original."""
    hidden = _HIDDEN.get(cls)
    if hidden is None:
        hidden = _HIDDEN[cls] = type(cls.__name__, (cls,), {"get_reward": None, "__module__": cls.__module__,
                                                            "__qualname__": cls.__qualname__,
                                                            "_grpo_rewards_hidden": True})
    return hidden


_HIDDEN: dict[type, type] = {}


def call_get_reward(environment: Any) -> Any:
    """``environment.get_reward()``, also for an instance whose ``get_reward`` the core hid from TRL
    and for one on Ray (its actor's, :mod:`~grpo_rewards.execution.ray_environment`); ``None`` when
    the environment has none."""
    remote = getattr(environment, "_grpo_remote_reward", None)
    if callable(remote):
        return remote()
    for klass in type(environment).__mro__:
        if klass.__dict__.get("_grpo_rewards_hidden"):
            continue
        method = klass.__dict__.get("get_reward")
        if callable(method):
            return method.__get__(environment, type(environment))()
    bound = getattr(environment, "get_reward", None)  # set on the instance itself
    return bound() if callable(bound) else None


class EnvironmentFactory:
    """The zero-argument callable TRL's ``environment_factory`` calls once per pooled instance:
    ``info``'s factory with ``params``. When the environment owns a reward (and ``hide_reward``),
    the instance is of a subclass where ``get_reward`` is no method, so TRL does not score it a
    second time; the core's reward under the environment's name reads it. Picklable when the
    registered factory is (it is kept by reference when registered so).

    ``execution`` (``{backend: ray, address: ...}``, as rewards take it) runs the instances' tools
    on a Ray cluster, one actor per instance (:mod:`~grpo_rewards.execution.ray_environment`), each
    call within ``timeout`` seconds (None: its default)."""

    def __init__(self, info: EnvironmentInfo, params: dict[str, Any] | None = None, *,
                 hide_reward: bool = True, execution: Any = None, timeout: float | None = None) -> None:
        self.name = info.name
        self.target: Any = info.reference or info.factory
        self.params = dict(params or {})
        self.hide_reward = hide_reward and info.owns_reward
        self.execution = Execution.parse(execution)
        self.timeout = timeout
        self.__name__ = info.name

    def __repr__(self) -> str:
        where = f", execution={self.execution.as_dict()}" if self.execution.remote else ""
        return f"EnvironmentFactory({self.name!r}, {self.params}{where})"

    def local(self) -> EnvironmentFactory:
        """This factory building the real environment here (what a Ray actor runs), ``get_reward`` kept."""
        local = copy.copy(self)
        local.execution = Execution()
        local.hide_reward = False
        return local

    def _target(self) -> Callable[..., Any]:
        target = self.target
        if isinstance(target, str):
            target = self.target = resolve_reference(target, f"environment {self.name}")
        return target

    def __call__(self) -> Any:
        target = self._target()
        if self.execution.remote:
            from .execution.ray_environment import DEFAULT_TIMEOUT, remote_environment_class

            stand_in = remote_environment_class(self.name, target, self.local(), self.execution.address or "auto",
                                                DEFAULT_TIMEOUT if self.timeout is None else self.timeout,
                                                NOT_TOOLS)()
            setattr(stand_in, TAG, self.name)
            return stand_in
        if self.hide_reward and inspect.isclass(target):
            instance = _hidden_reward_class(target)(**self.params)
        else:
            instance = target(**self.params)
        if self.hide_reward and not getattr(type(instance), "_grpo_rewards_hidden", False) and callable(getattr(instance, "get_reward", None)):
            try:
                instance.__class__ = _hidden_reward_class(type(instance))
            except TypeError as exc:  # a class with __slots__: its layout cannot change
                raise PluginError(f"environment {self.name}: cannot hide get_reward from TRL on "
                                  f"{type(instance).__name__} ({exc}); register the class itself") from exc
        try:
            setattr(instance, TAG, self.name)
        except (AttributeError, TypeError):  # __slots__: its rollouts are taken as this environment's
            pass
        return instance

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        if not isinstance(state["target"], str):
            module, qualname = getattr(state["target"], "__module__", None), getattr(state["target"], "__qualname__", "")
            if module and "<" not in qualname:
                state["target"] = f"{module}:{qualname}"
        return state


def missing_reset(instance: Any, name: str) -> str | None:
    """TRL's own requirement, said before TRL says it: an environment has a callable ``reset``."""
    if not callable(getattr(instance, "reset", None)):
        return f"environment {name}: {type(instance).__name__} has no reset(**row) method (TRL calls it before each rollout)"
    return None


def describe_params(params: dict[str, Param]) -> list[str]:
    """One line per parameter, ``name: type (default ...)``, as ``show`` prints them."""
    import json

    from .signatures import type_text

    out = []
    for p in params.values():
        if p.required:
            default = "required"
        else:
            try:
                default = f"default {json.dumps(p.default)}"
            except (TypeError, ValueError):
                default = f"default {p.default!r}"
        out.append(f"  {p.name}: {type_text(p.annotation)} ({default})")
    return out
