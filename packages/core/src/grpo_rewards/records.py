"""What the core records about a registered reward or task: :class:`RewardInfo`, :class:`TaskInfo` (and :class:`Param`).

These types sit below both the hookspecs (whose ``register`` callables return them) and the
registry (which keeps them). A reward is registered with its scorer, or with a reference to it
(``"package.module:Attribute"``), which is imported on first use: ``grpo-rewards list`` then loads
no reward code. Its parameters and columns come from the scorer's signature, read once when it is
first needed (unless the plugin declared them).

>>> info = RewardInfo("demo.upper", "builtins:str", description="demo")
>>> info.reference, info.scorer is str
('builtins:str', True)
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .errors import PluginError
from .options import RewardOptions
from .scorer_hooks import column_attributes, own_columns, runtime_note
from .signatures import Param, scorer_params
from .source_signatures import source_defines, source_docstring, source_signature

__all__ = ["Param", "RewardInfo", "TaskInfo", "column_params", "is_reference", "required_columns", "resolve_reference"]


def is_reference(target: Any) -> bool:
    """Whether ``target`` is a ``"module:attribute"`` reference rather than the object itself."""
    return isinstance(target, str) and target.count(":") == 1 and all(target.split(":"))


def resolve_reference(reference: str, owner: str) -> Any:
    """The object ``"package.module:Attribute"`` names, imported now; a :class:`PluginError` naming ``owner``."""
    module_name, _, attribute = reference.partition(":")
    try:
        obj: Any = importlib.import_module(module_name)
        for part in attribute.split("."):
            obj = getattr(obj, part)
    except Exception as exc:
        raise PluginError(f"{owner}: cannot load its scorer {reference!r}: {type(exc).__name__}: {exc}") from exc
    return obj


class RewardInfo:
    """A registered reward and everything the core knows about it.

    ``scorer`` is the registered per-sample scorer, factory class or batch function; a plugin may
    register ``"module:attribute"`` instead (:attr:`reference`), resolved on first access.
    ``params`` and ``columns`` are read from the scorer's signature when not given.
    """

    def __init__(
        self,
        name: str,
        scorer: Any,
        *,
        form: str = "sample",
        description: str | None = None,
        params: dict[str, Param] | None = None,
        columns: Iterable[str] | None = None,
        output_range: tuple[float, float] | None = None,
        units: str = "none",
        options: RewardOptions | None = None,
        example: str | None = None,
        hacks: Any = None,
        plugin: str | None = None,
        distribution: str | None = None,
        version: str | None = None,
        check: Callable[[RewardInfo], None] | None = None,
    ) -> None:
        self.name = name
        self.reference: str | None = scorer if is_reference(scorer) else None
        self._scorer = None if self.reference else scorer
        self.form = form
        self._description = description
        self._params = params
        self._columns = tuple(columns) if columns is not None else None
        self.output_range = output_range
        self.units = units
        #: how the core runs it unless a reward-set entry says otherwise
        self.options = options or RewardOptions()
        self.example = example
        #: the reward's hack corpus as registered (entries, or a function returning them); see grpo_rewards.hacks
        self.hacks = hacks
        self.plugin = plugin
        self.distribution = distribution
        self.version = version
        self._check = check  # the registration checks that need the scorer, run once it is loaded

    def __repr__(self) -> str:
        return f"RewardInfo({self.name!r}, {self.reference or self._scorer!r}, form={self.form!r})"

    @property
    def loaded(self) -> bool:
        """Whether the scorer is imported (always, unless it was registered by reference)."""
        return self._scorer is not None

    @property
    def scorer(self) -> Any:
        """The registered scorer, imported on first access when it was registered by reference."""
        if self._scorer is None:
            assert self.reference is not None
            self._scorer = resolve_reference(self.reference, self.name)
            if self._check is not None:
                try:
                    self._check(self)
                except BaseException:
                    self._scorer = None
                    raise
        return self._scorer

    def _signature(self) -> None:
        scorer = self.scorer
        params, columns = (scorer_params(scorer) if callable(scorer) and (
            self.form == "sample" or inspect.isclass(scorer)) else ({}, []))
        if self._params is None:
            self._params = params
        if self._columns is None:
            self._columns = tuple(columns)

    @property
    def params(self) -> dict[str, Param]:
        if self._params is None:
            self._signature()
        assert self._params is not None
        return self._params

    @property
    def columns(self) -> tuple[str, ...]:
        if self._columns is None:
            self._signature()
        assert self._columns is not None
        return self._columns

    def signature_unloaded(self) -> tuple[dict[str, Param], tuple[str, ...]]:
        """(:attr:`params`, :attr:`columns`) for display (``list --json``, ``show``): read from the source
        while the scorer of a reward registered by reference is not imported, so showing it loads
        no reward code."""
        if (self._params is None or self._columns is None) and self.reference and not self.loaded:
            found = source_signature(self.reference)
            if found is not None:
                params, columns = found
                return (self._params if self._params is not None else params,
                        self._columns if self._columns is not None else tuple(columns))
        return self.params, self.columns

    def docstring(self) -> str:
        """The scorer's docstring (from the source while a scorer registered by reference is not imported)."""
        if self.reference and not self.loaded:
            found = source_docstring(self.reference)
            if found is not None:
                return found
        return inspect.getdoc(self.scorer) or ""

    def runtime_note(self) -> str | None:
        """What the scorer says its work runs on (``describe_runtime``, see :mod:`grpo_rewards.scorer_hooks`);
        a scorer registered by reference is imported for it only when its source defines the method."""
        if self.reference and not self.loaded and source_defines(self.reference, "describe_runtime") is False:
            return None
        return runtime_note(self.scorer)

    @property
    def description(self) -> str:
        """As registered, else the first paragraph of the scorer's docstring (read from the source
        of a scorer registered by reference, which is not imported for it)."""
        if self._description is None:
            self._description = self.docstring().split("\n\n")[0].replace("\n", " ").strip()
        return self._description

    @property
    def is_factory(self) -> bool:
        return inspect.isclass(self.scorer)

    @property
    def summary(self) -> str:
        return self.description.strip().splitlines()[0] if self.description.strip() else ""


def required_columns(info: RewardInfo, params: dict[str, Any], *, unloaded: bool = False,
                     built: Any = None) -> tuple[str, ...]:
    """Columns a reward reads: its declared ones, the value of every ``*_column`` parameter, and
    (``built``: the scorer built with ``params``) the ``columns`` the built instance says it reads,
    when its parameters decide them (a judge's template with ``{reference}``); ``unloaded``: as its
    source says, without importing a scorer registered by reference."""
    declared, own = info.signature_unloaded() if unloaded else (info.params, info.columns)
    columns = list(own)
    for value in _named_columns(declared, params):
        if value not in columns:
            columns.append(value)
    instance = own_columns(built) if built is not None and info.is_factory else None
    if instance:
        columns += [c for c in instance if c not in columns]
    return tuple(columns)


def _named_columns(declared: Mapping[str, Param], params: Mapping[str, Any]) -> dict[str, str]:
    """``{column: parameter}`` for each declared ``*_column`` parameter (its value in ``params``, else its
    default), in declaration order."""
    named: dict[str, str] = {}
    for p in declared.values():
        if p.name.endswith("_column"):
            value = params.get(p.name, None if p.required else p.default)
            if isinstance(value, str):
                named.setdefault(value, p.name)
    return named


def column_params(declared: Mapping[str, Param], params: Mapping[str, Any], built: Any = None) -> dict[str, str]:
    """The columns that ``*_column`` parameters name, each with its parameter, for the missing-column
    message (``{"solution": "solution_column"}``): the one place that computes it.

    ``declared`` are the reward's parameters (a :class:`RewardInfo`'s, or read from the scorer), ``params``
    the values given, ``built`` the scorer built with them, whose own ``<param>_column`` attributes count
    too (``Accuracy().solution_column``). A given value wins over the built scorer's, which wins over
    the declared default.

    >>> column_params({"answer_column": Param("answer_column", str, "answer")}, {"solution_column": "gold"})
    {'gold': 'solution_column', 'answer': 'answer_column'}
    """
    attributes = {k: v for k, v in column_attributes(built).items() if isinstance(v, str)} if built is not None else {}
    named: dict[str, str] = {}
    for key, value in sorted({**attributes, **params}.items()):
        if key.endswith("_column") and isinstance(value, str):
            named.setdefault(value, key)
    for value, key in _named_columns(declared, {**attributes, **params}).items():
        named.setdefault(value, key)
    return named


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
    #: the environment its rows need (``"tools.calculator"``, or ``{"use": ..., "with": {...}}``)
    environment: str | dict[str, Any] | None = None

    def unknown_params(self, given: Iterable[str]) -> list[str]:
        """The names in ``given`` the task has no parameter for (none when its parameters are open).

        >>> TaskInfo("x:y", lambda n, seed, max_value=9: [], params={"max_value": Param("max_value")}
        ...          ).unknown_params({"max_value": 3, "max_val": 3})
        ['max_val']
        """
        return [] if self.open_params else [k for k in given if k not in self.params]
