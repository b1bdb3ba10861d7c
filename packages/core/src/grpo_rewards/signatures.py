"""The one reader of a scorer's signature: parameters, required columns, call form, argument names.

A scorer registered by reference (``"package.module:Attribute"``) is read from its source with
:mod:`ast` until it is imported (:mod:`grpo_rewards.source_signatures`, the same reading from
source), so listing it runs none of its code.

Everything the core learns from a signature comes from here (whether a batch scorer declares
``reward_options`` too: :func:`takes_options`): the registry (a plugin's rewards and
tasks), the checks of a ``register(...)`` call, file and module rewards (``use: file.py:fn``) and
``Reward`` (which dataset columns it may pass). For a per-sample function, keyword-only parameters
with defaults are its parameters and keyword-only parameters without defaults its required
columns; for a class, its ``__init__`` parameters are the parameters.

>>> def score(text, *, solution, scale: float = 1.0, **row):
...     return scale
>>> params, columns = scorer_params(score)
>>> list(params), columns, call_form(score)
(['scale'], ['solution'], 'sample')
>>> class Score:
...     def __call__(self, text, *, scale=1.0, **row):
...         return scale
>>> sorted(argument_names(Score(), "sample")), sorted(keyword_params(Score()))
(['self', 'text'], ['scale'])
"""

from __future__ import annotations

import collections.abc as cabc
import functools
import inspect
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from .errors import quote
from .protocol import OPTIONS_KEYWORD
from .scorer_hooks import quick

T = TypeVar("T")

EMPTY = inspect.Parameter.empty

__all__ = ["EMPTY", "Param", "argument_names", "call_form", "choices", "first_doc_paragraph", "keyword_names", "keyword_params",
           "scorer_params", "signature", "takes_options", "task_params", "type_problem", "type_text"]


@dataclass(frozen=True)
class Param:
    """One parameter of a reward or a task, read from its signature (or declared)."""

    name: str
    annotation: Any = None  # a type, a string annotation, or None
    default: Any = EMPTY

    @property
    def required(self) -> bool:
        return self.default is EMPTY

    @property
    def type_name(self) -> str:
        a = self.annotation
        if a is None or a is EMPTY:
            return "any"
        return a if isinstance(a, str) else getattr(a, "__name__", str(a))


def signature(target: Any, *, resolve: bool = False) -> inspect.Signature | None:
    """``inspect.signature(target)`` (string annotations evaluated when ``resolve`` and they can be),
    or ``None`` when Python cannot read one."""
    try:
        if resolve:
            try:
                return inspect.signature(target, eval_str=True)
            except (NameError, SyntaxError, AttributeError):  # an annotation that cannot be resolved here
                pass
        return inspect.signature(target)
    except (TypeError, ValueError):
        return None


def _param(p: inspect.Parameter) -> Param:
    return Param(p.name, None if p.annotation is EMPTY else p.annotation, p.default)


def _remembered(read: Callable[[Any], T]) -> Callable[[Any], T]:
    """``read(scorer)``, remembered per scorer (a plugin may register one scorer under many names):
    registering N rewards reads each distinct signature once."""
    remembered = functools.lru_cache(maxsize=4096)(read)

    @functools.wraps(read)
    def wrapper(scorer: Any) -> T:
        try:
            return remembered(scorer)
        except TypeError:  # an unhashable callable instance
            return read(scorer)

    return wrapper


def scorer_params(scorer: Any) -> tuple[dict[str, Param], list[str]]:
    """(parameters, required columns) of a per-sample function or a factory class."""
    params, columns = _scorer_params(scorer)
    return dict(params), list(columns)


@_remembered
def _scorer_params(scorer: Any) -> tuple[dict[str, Param], list[str]]:
    is_class = inspect.isclass(scorer)
    sig = signature(scorer.__init__ if is_class else scorer, resolve=True)
    if sig is None:
        return {}, []
    params: dict[str, Param] = {}
    columns: list[str] = []
    items = list(sig.parameters.values())[1:] if is_class else list(sig.parameters.values())  # a class: self
    for p in items:
        if p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL):
            continue
        if is_class:
            if p.kind is not p.POSITIONAL_ONLY:
                params[p.name] = _param(p)
        elif p.kind is p.KEYWORD_ONLY:
            if p.default is EMPTY:
                columns.append(p.name)
            else:
                params[p.name] = _param(p)
    return params, columns


def task_params(factory: Any) -> tuple[dict[str, Param], bool]:
    """(parameters, open) of a task factory ``factory(n, seed, **params)``: the parameters after
    ``n`` and ``seed``; ``open`` when it takes ``**params`` (or has no signature Python can read)."""
    sig = signature(factory)
    if sig is None:
        return {}, True
    params: dict[str, Param] = {}
    is_open = False
    for p in list(sig.parameters.values())[2:]:
        if p.kind is p.VAR_KEYWORD:
            is_open = True
        elif p.kind is not p.VAR_POSITIONAL:
            params[p.name] = _param(p)
    return params, is_open


@_remembered
def keyword_names(scorer: Any) -> frozenset[str]:
    """The names a caller could pass by keyword to ``scorer`` (a class: to its ``__init__``)."""
    sig = signature(scorer.__init__ if inspect.isclass(scorer) else scorer)
    if sig is None:
        return frozenset()
    return frozenset(p.name for p in sig.parameters.values() if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD))


def keyword_params(scorer: Any) -> frozenset[str]:
    """The keyword parameters with defaults of a function scorer: a dataset column never sets them."""
    if inspect.isclass(scorer) or not callable(scorer):
        return frozenset()
    sig = signature(scorer)
    if sig is None:
        return frozenset()
    return frozenset(p.name for p in sig.parameters.values() if p.kind is p.KEYWORD_ONLY and p.default is not EMPTY)


def takes_options(scorer: Any) -> bool:
    """Whether a built batch scorer asks for the reward's effective options: calling it accepts the keyword
    :data:`~grpo_rewards.protocol.OPTIONS_KEYWORD` (``reward_options``) as a parameter of that name
    (``**kwargs`` alone does not ask).

    >>> def batch(prompts, completions, *, reward_options=None, **kwargs): ...
    >>> takes_options(batch), takes_options(len)
    (True, False)
    """
    sig = signature(scorer)
    found = sig.parameters.get(OPTIONS_KEYWORD) if sig is not None else None
    return found is not None and found.kind in (found.KEYWORD_ONLY, found.POSITIONAL_OR_KEYWORD)


def _positional_names(func: Any) -> set[str]:
    """The names of ``func``'s leading positional-or-keyword parameters a row must not pass again.

    That is the one receiving the text (the first parameter ``inspect.signature`` shows) and, for
    a method or a callable instance, its ``self``.
    """
    func = func.func if isinstance(func, functools.partial) else func
    targets = [func]
    if inspect.ismethod(func):
        targets.append(func.__func__)
    elif not inspect.isroutine(func):  # a callable instance: its class's __call__ takes self first
        targets.append(type(func).__call__)
    names: set[str] = set()
    for target in targets:
        sig = signature(target)
        first = next(iter(sig.parameters.values()), None) if sig is not None else None
        if first is not None and first.kind is first.POSITIONAL_OR_KEYWORD:
            names.add(first.name)
    return names


def argument_names(scorer: Any, form: str) -> frozenset[str]:
    """Names a dataset column cannot be passed under: the scorer's text argument and its ``self``.

    A per-sample scorer gets the text positionally, so a column called like that parameter (``text``)
    or like a method's ``self`` would arrive twice; a batch reward gets everything by keyword, so
    only ``self`` can collide.
    """
    names = _positional_names(scorer)
    found = quick(scorer)
    if form == "sample" and found is not None:
        names |= _positional_names(found)
    if form == "batch":
        names -= {"prompts"}
    return frozenset(names)


def call_form(scorer: Any) -> str:
    """``"batch"`` when ``scorer`` (or its instances) take TRL's call first (``prompts`` or
    ``completions``), else ``"sample"``."""
    if getattr(scorer, "form", None) in ("sample", "batch") and hasattr(scorer, "metric"):
        return str(scorer.form)  # a grpo_rewards.Reward
    target = scorer
    if inspect.isclass(scorer):
        target = getattr(scorer, "__call__", scorer.__init__)  # noqa: B004 - the instance's call decides the form
    sig = signature(target)
    if sig is None:
        return "sample"
    params = [p for p in sig.parameters.values() if p.name != "self"]
    return "batch" if params and params[0].name in ("prompts", "completions") else "sample"


def first_doc_paragraph(obj: Any) -> str:
    """The first paragraph of ``obj``'s docstring, on one line (its description by default)."""
    doc = inspect.getdoc(obj) or ""
    return doc.split("\n\n")[0].replace("\n", " ").strip()


def type_text(annotation: Any) -> str:
    """A parameter's type as users write it in YAML.

    >>> from typing import Literal, Optional
    >>> type_text(float), type_text(Optional[int]), type_text(Literal["a", "b"]), type_text(None)
    ('float', 'int | None', "one of 'a', 'b'", 'any')
    """
    if annotation is None or annotation is EMPTY or annotation is typing.Any:
        return "any"
    if annotation is type(None):
        return "None"
    if isinstance(annotation, str):
        return annotation
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Literal:
        return "one of " + ", ".join(repr(a) for a in args)
    if origin in (typing.Union, types.UnionType):
        return " | ".join(type_text(a) for a in args)
    if isinstance(annotation, type) and not args:
        return annotation.__name__
    if args and isinstance(origin, type):  # list[str], collections.abc.Sequence[str] -> Sequence[str]
        return f"{origin.__name__}[{', '.join('...' if a is Ellipsis else type_text(a) for a in args)}]"
    return str(annotation).replace("typing.", "")


def choices(annotation: Any) -> list[Any] | None:
    """The allowed values of a ``Literal`` parameter (also inside ``Optional``), else ``None``."""
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        return list(typing.get_args(annotation))
    if origin in (typing.Union, types.UnionType):
        found = [c for a in typing.get_args(annotation) for c in (choices(a) or [])]
        return found or None
    return None


def type_problem(key: str, value: Any, annotation: Any) -> str | None:
    """Why a config value does not fit a parameter's annotation (a reward's or an environment's), or ``None``.

    >>> type_problem("limit", "x", int)
    "parameter 'limit' must be int, got 'x'"
    >>> type_problem("limit", 3, int) is None
    True
    """
    if _matches(value, annotation):
        return None
    # YAML 1.1 reads yes/no/on/off as booleans: `language: no` (Norwegian) arrives as False
    hint = (f" (YAML reads yes, no, on and off as true or false: quote a text, {key}: 'no')"
            if isinstance(value, bool) and _matches("no", annotation) else "")
    return f"parameter {key!r} must be {type_text(annotation)}, got {quote(value)}{hint}"


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
