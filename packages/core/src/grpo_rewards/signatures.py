"""The one reader of a scorer's signature: parameters, required columns, call form, argument names.

A scorer registered by reference (``"package.module:Attribute"``) is read from its source with
:mod:`ast` until it is imported (:func:`source_signature`, :func:`source_docstring`), so listing it
runs none of its code.

Everything the core learns from a signature comes from here: the registry (a plugin's rewards and
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

import ast
import functools
import importlib.util
import inspect
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from .scorer_hooks import quick

T = TypeVar("T")

EMPTY = inspect.Parameter.empty

__all__ = ["EMPTY", "Param", "argument_names", "call_form", "choices", "first_doc_paragraph", "keyword_names", "keyword_params",
           "scorer_params", "signature", "source_docstring", "source_signature", "task_params", "type_text"]


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


def _module_source(module_name: str) -> ast.Module | None:
    """The parsed source of ``module_name``, found without importing it (or its package)."""
    parts = module_name.split(".")
    try:
        spec = importlib.util.find_spec(parts[0])  # a top-level name is found, not imported
    except (ImportError, ValueError):
        return None
    if spec is None or spec.origin is None:
        return None
    path = Path(spec.origin)
    for part in parts[1:]:
        folder = path.parent
        path = folder / f"{part}.py" if (folder / f"{part}.py").is_file() else folder / part / "__init__.py"
    try:
        return ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return None


class _SourceModule:
    """A module read from its source: its top-level definitions and literal constants, and where
    each name it imports from its own package comes from (followed a few modules deep)."""

    def __init__(self, module_name: str, tree: ast.Module) -> None:
        self.name = module_name
        self.definitions = {n.name: n for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
        self.constants: dict[str, ast.expr] = {}
        self.imported: dict[str, tuple[str, str]] = {}  # local name -> (module, name there)
        for node in tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                self._bind(node.targets[0].id, node.value)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
                self._bind(node.target.id, node.value)
            elif isinstance(node, ast.ImportFrom) and node.level > 0:
                package = module_name.rsplit(".", node.level)[0]
                source = f"{package}.{node.module}" if node.module else package
                for alias in node.names:
                    self._bind(alias.asname or alias.name, (source, alias.name))

    def _bind(self, name: str, value: ast.expr | tuple[str, str]) -> None:
        """The last top-level binding of a name wins, as when the module runs."""
        self.constants.pop(name, None)
        self.imported.pop(name, None)
        if isinstance(value, tuple):
            self.imported[name] = value
        else:
            self.constants[name] = value

    @classmethod
    def read(cls, module_name: str) -> _SourceModule | None:
        tree = _module_source(module_name)
        return cls(module_name, tree) if tree is not None else None

    def literal(self, node: ast.expr, depth: int = 0) -> Any:
        """The value of a default: a literal, or a name bound to one here or in a module of the same
        package it is imported from; ``ValueError`` for anything else (a call, an attribute, ...)."""
        if isinstance(node, ast.Name) and depth < 4:
            if node.id in self.constants:
                return self.literal(self.constants[node.id], depth + 1)
            if node.id in self.imported:
                module_name, name = self.imported[node.id]
                other = _SourceModule.read(module_name)
                if other is not None:
                    return other.literal(ast.Name(id=name), depth + 1)
        return ast.literal_eval(node)


    def class_def(self, node: ast.expr, depth: int = 0) -> tuple[ast.ClassDef, _SourceModule] | None:
        """The class a base-class expression names: defined here, or in a module of the same
        package it is imported from; ``None`` for anything else (``object`` included)."""
        if not isinstance(node, ast.Name) or depth >= 4:
            return None
        found = self.definitions.get(node.id)
        if isinstance(found, ast.ClassDef):
            return found, self
        if node.id in self.imported:
            module_name, name = self.imported[node.id]
            other = _SourceModule.read(module_name)
            return other.class_def(ast.Name(id=name), depth + 1) if other is not None else None
        return None

    def annotation(self, node: ast.expr) -> Any:
        """A parameter's annotation: a ``Literal[...]`` (written out, or a name bound to one as
        :meth:`literal` follows names), optionally ``| None``, as the typing object itself, so its
        choices show as they do once the scorer is imported; anything else as its source text."""
        found = self._literal_type(node, 0)
        return found if found is not None else ast.unparse(node)

    def _literal_type(self, node: ast.expr, depth: int) -> Any:
        if depth >= 4:
            return None
        if isinstance(node, ast.Subscript) and (
                (isinstance(node.value, ast.Name) and node.value.id == "Literal")
                or (isinstance(node.value, ast.Attribute) and node.value.attr == "Literal")):
            items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            try:
                return typing.Literal[tuple(ast.literal_eval(item) for item in items)]
            except ValueError:
                return None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            if isinstance(node.right, ast.Constant) and node.right.value is None:
                found = self._literal_type(node.left, depth + 1)
                return typing.Optional[found] if found is not None else None  # noqa: UP045 (a runtime object)
            return None
        if isinstance(node, ast.Name):
            if node.id in self.constants:
                return self._literal_type(self.constants[node.id], depth + 1)
            if node.id in self.imported:
                module_name, name = self.imported[node.id]
                other = _SourceModule.read(module_name)
                return other._literal_type(ast.Name(id=name), depth + 1) if other is not None else None
        return None


def _source_node(reference: str) -> tuple[ast.ClassDef | ast.FunctionDef, _SourceModule] | None:
    """The definition of ``"package.module:Name"`` parsed from its source file, which is not imported."""
    module_name, _, attribute = reference.partition(":")
    module = _SourceModule.read(module_name)
    if module is None or attribute not in module.definitions:
        return None
    return module.definitions[attribute], module


def _source_classes(node: ast.ClassDef, module: _SourceModule) -> list[tuple[ast.ClassDef, _SourceModule]] | None:
    """The class and its base classes, in method-resolution order for single inheritance, read from
    source (a base defined in the module or in its package); ``None`` when a base cannot be read
    that way or a class has several (only ``object`` may be left out)."""
    chain = [(node, module)]
    while len(chain) <= 4:
        cls, where = chain[-1]
        bases = [b for b in cls.bases if not (isinstance(b, ast.Name) and b.id == "object")]
        if not bases:
            return chain
        base = where.class_def(bases[0]) if len(bases) == 1 else None
        if base is None:
            return None
        chain.append(base)
    return None


def _source_init(node: ast.ClassDef, module: _SourceModule) -> tuple[ast.FunctionDef, _SourceModule] | None:
    """The ``__init__`` a class runs, with the module it is written in, read from source."""
    for cls, where in _source_classes(node, module) or [(node, module)]:
        init = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
        if init is not None:
            return init, where
    return None


def source_docstring(reference: str) -> str | None:
    """The docstring of the class or function ``reference`` names, read from its source without
    importing (or running) it; ``None`` when it cannot be read that way."""
    found = _source_node(reference)
    return ast.get_docstring(found[0]) if found is not None else None


def source_defines(reference: str, method: str) -> bool | None:
    """Whether the class ``reference`` names defines ``method`` (itself or a base class), read from
    its source without importing it; ``None`` when the source cannot tell (a base class from outside
    its package, a function, an unreadable file)."""
    found = _source_node(reference)
    if found is None or not isinstance(found[0], ast.ClassDef):
        return None
    chain = _source_classes(found[0], found[1])
    if chain is None:
        return None
    return any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == method
               for cls, _ in chain for n in cls.body)


def source_signature(reference: str) -> tuple[dict[str, Param], list[str]] | None:
    """(parameters, required columns) of the scorer ``reference`` names, read from its source as
    :func:`~grpo_rewards.signatures.scorer_params` reads a signature (annotations as their source
    text, except a ``Literal`` and its choices); ``None`` when the source does not say (a default that is neither a literal nor a name bound
    to one in the module or in a module of its package it imports it from, a class whose ``__init__``
    is neither its own nor that of a base class in the same module)."""
    found = _source_node(reference)
    if found is None:
        return None
    node, module = found
    columns: list[str] = []
    if isinstance(node, ast.ClassDef):
        found_init = _source_init(node, module)
        if found_init is None:
            return None
        init, module = found_init
        args = init.args
        named = [*args.posonlyargs, *args.args][1:]
        pairs = list(zip(named, [None] * (len(named) - len(args.defaults)) + list(args.defaults)))
        pairs = [p for p in pairs if p[0] not in args.posonlyargs] + list(zip(args.kwonlyargs, args.kw_defaults))
    elif isinstance(node, ast.FunctionDef):
        pairs = [(a, d) for a, d in zip(node.args.kwonlyargs, node.args.kw_defaults) if d is not None]
        columns = [a.arg for a, d in zip(node.args.kwonlyargs, node.args.kw_defaults) if d is None]
    else:
        return None
    params: dict[str, Param] = {}
    for arg, default in pairs:
        try:
            value = EMPTY if default is None else module.literal(default)
        except ValueError:
            return None
        params[arg.arg] = Param(arg.arg, module.annotation(arg.annotation) if arg.annotation else None, value)
    return params, columns
