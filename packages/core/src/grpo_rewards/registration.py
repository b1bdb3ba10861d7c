"""One ``register(...)`` call of a plugin: the checks of what the core refuses to register, and the ``register`` itself.

>>> for problem in registration_problems("demo", "demo.x.y", "sample", (1, 0), "bytes", {}):
...     print(problem)
the name 'demo.x.y' has a dot; give the short name (the core adds 'demo.')
output_range must be (low, high) with low <= high, not (1, 0)
units must be one of chars, words, tokens, none, not 'bytes'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal

from .environment import EnvironmentInfo
from .errors import PluginError
from .options import OPTION_NAMES, RewardOptions, check_options
from .protocol import UNITS
from .records import RewardInfo, TaskInfo, is_reference
from .signatures import EMPTY, Param, first_doc_paragraph, keyword_names, task_params


def registration_problems(plugin: str, name: str, form: str, output_range: Any, units: Any,
                          options: dict[str, Any]) -> list[str]:
    """What is wrong with one ``register(...)`` call's metadata (empty when nothing is); the scorer
    itself is checked by :func:`scorer_problems`, when it is loaded."""
    problems = []
    if "." in name.removeprefix(f"{plugin}."):
        problems.append(f"the name {name!r} has a dot; give the short name (the core adds {plugin + '.'!r})")
    if form not in ("sample", "batch"):
        problems.append(f"form must be 'sample' or 'batch', not {form!r}")
    if output_range is not None:
        ok = (isinstance(output_range, (list, tuple)) and len(output_range) == 2
              and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in output_range))
        if not ok or not output_range[0] <= output_range[1]:
            problems.append(f"output_range must be (low, high) with low <= high, not {output_range!r}")
    if units not in UNITS:
        problems.append(f"units must be one of {', '.join(UNITS)}, not {units!r}")
    if options:
        problems += check_options(options)
    return problems


def scorer_problems(plugin: str, name: str, scorer: Any, form: str, params: Mapping[str, Any],
                    options: RewardOptions) -> list[str]:
    """What is wrong with a registered scorer: not callable, a parameter named like an option, a
    closure that cannot run in a worker under its timeout."""
    if not callable(scorer):
        return [f"{scorer!r} is not callable"]
    problems = []
    clash = sorted((set(params) | keyword_names(scorer)) & set(OPTION_NAMES))
    if clash:
        problems.append(f"parameter(s) {', '.join(clash)} have the name of an execution option, which the core "
                        "owns (RewardOptions); rename them")
    qualname = getattr(scorer, "__qualname__", "")
    if options.timeout is not None and ("<lambda>" in qualname or "<locals>" in qualname):
        problems.append(f"{qualname} cannot run in a worker process under the timeout (a lambda or a function "
                        "defined inside another cannot be pickled); define it at module level")
    return problems


_DEFAULT_OPTIONS = RewardOptions()


class _Register:
    """What a plugin's ``register`` callables share: whose they are, and what they staged so far."""

    def __init__(self, plugin: str, distribution: str | None = None, version: str | None = None) -> None:
        self.plugin = plugin
        self.distribution = distribution
        self.version = version
        self.staged: dict[str, Any] = {}

    def _origin(self) -> dict[str, Any]:
        return {"plugin": self.plugin, "distribution": self.distribution, "version": self.version}


def _check_scorer(info: RewardInfo) -> None:
    """The registration checks that need the scorer itself (run when it is loaded)."""
    problems = scorer_problems(info.plugin or "", info.name, info.scorer, info.form, info.params, info.options)
    if problems:
        raise PluginError(f"{info.name}: " + "; ".join(problems))


def full_name(plugin: str, name: str, sep: str) -> str:
    """``plugin`` + ``sep`` + ``name`` (``length.target``, ``math:arithmetic``), unless ``name`` has the prefix."""
    if not isinstance(name, str) or name.split() != [name]:  # empty, or with whitespace
        raise PluginError(f"plugin {plugin!r} registered an invalid name {name!r}")
    prefix = f"{plugin}{sep}"
    return name if name.startswith(prefix) else prefix + name


class RewardRegister(_Register):
    """The ``register`` a plugin's ``register_rewards`` hook receives (documented at the hookspec,
    :func:`grpo_rewards.plugin.spec.register_rewards`; public as ``grpo_rewards.RegisterReward``).

    Each call checks one reward (a :class:`PluginError` lists every problem; a scorer given by
    reference is checked when it is loaded) and stages its :class:`RewardInfo` in :attr:`staged`.
    """

    staged: dict[str, RewardInfo]

    def __call__(
        self,
        name: str,
        scorer: Callable[..., Any] | str,
        *,
        form: Literal["sample", "batch"] = "sample",
        description: str | None = None,
        columns: list[str] | tuple[str, ...] | None = None,
        output_range: tuple[float, float] | None = None,
        units: Literal["chars", "words", "tokens", "none"] = "none",
        example: str | None = None,
        hacks: Any = None,
        options: RewardOptions | None = None,
        **option_values: Any,
    ) -> RewardInfo:
        full = full_name(self.plugin, name, ".")
        given = {**options.changed(), **option_values} if options is not None else option_values
        problems = registration_problems(self.plugin, full, form, output_range, units, given)
        if problems:
            raise PluginError(f"{full}: " + "; ".join(problems))
        info = RewardInfo(
            full,
            scorer,
            form=form,
            description=description or None,
            columns=columns,
            output_range=(output_range[0], output_range[1]) if output_range is not None else None,
            units=units,
            options=RewardOptions(**given) if given else _DEFAULT_OPTIONS,
            example=example,
            hacks=hacks,
            check=_check_scorer,
            **self._origin(),
        )
        if not is_reference(scorer):
            _check_scorer(info)
        if full in self.staged:
            raise PluginError(f"plugin {self.plugin!r} registered {full!r} twice")
        self.staged[full] = info
        return info


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
            out[name] = Param(name, spec.get("type"), spec.get("default", EMPTY))
    return out, problems


class TaskRegister(_Register):
    """The ``register`` a plugin's ``register_tasks`` hook receives (documented at the hookspec,
    :func:`grpo_rewards.plugin.spec.register_tasks`; public as ``grpo_rewards.RegisterTask``).
    Each call checks one task and stages its :class:`TaskInfo` in :attr:`staged`."""

    staged: dict[str, TaskInfo]

    def __call__(
        self,
        name: str,
        factory: Callable[..., list[dict[str, Any]]],
        *,
        description: str | None = None,
        columns: list[str] | tuple[str, ...] | None = None,
        default_rewards: list[dict[str, Any]] | None = None,
        params: dict[str, dict[str, Any]] | None = None,
        environment: str | dict[str, Any] | None = None,
    ) -> TaskInfo:
        full = full_name(self.plugin, name, ":")
        sig_params, open_params = task_params(factory)  # unreadable: parameters pass through unchecked
        if params is not None:
            declared, problems = _declared_task_params(params)
            if problems:
                raise PluginError(f"task {full}: " + "; ".join(problems))
            sig_params, open_params = declared, False
        info = TaskInfo(
            name=full,
            factory=factory,
            description=description or first_doc_paragraph(factory),
            columns=tuple(columns or ()),
            default_rewards=default_rewards,
            params=sig_params,
            open_params=open_params,
            environment=environment,
            **self._origin(),
        )
        if full in self.staged:
            raise PluginError(f"plugin {self.plugin!r} registered task {full!r} twice")
        self.staged[full] = info
        return info


class EnvironmentRegister(_Register):
    """The ``register`` a plugin's ``register_environments`` hook receives (documented at the hookspec,
    :func:`grpo_rewards.plugin.spec.register_environments`; public as ``grpo_rewards.RegisterEnvironment``).
    Each call stages one :class:`~grpo_rewards.environment.EnvironmentInfo` in :attr:`staged`."""

    staged: dict[str, EnvironmentInfo]

    def __call__(
        self,
        name: str,
        factory: Callable[..., Any] | str,
        *,
        description: str | None = None,
        reward: bool | None = None,
        default_rewards: list[dict[str, Any]] | None = None,
        example: str | None = None,
        hacks: Any = None,
    ) -> EnvironmentInfo:
        full = full_name(self.plugin, name, ".")
        problems = registration_problems(self.plugin, full, "sample", None, "none", {})
        if not (callable(factory) or is_reference(factory)):
            problems.append(f"{factory!r} is neither a class, a function nor a 'module:attribute' reference")
        if reward is not None and not isinstance(reward, bool):
            problems.append(f"reward must be true, false or None (read from the class), not {reward!r}")
        if problems:
            raise PluginError(f"environment {full}: " + "; ".join(problems))
        info = EnvironmentInfo(full, factory, description=description or None, reward=reward,
                               default_rewards=default_rewards, example=example, hacks=hacks, **self._origin())
        if full in self.staged:
            raise PluginError(f"plugin {self.plugin!r} registered environment {full!r} twice")
        self.staged[full] = info
        return info
