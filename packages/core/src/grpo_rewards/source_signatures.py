"""A scorer registered by reference, read from its source: parameters, docstring, methods, without importing it.

The other half of the one signature reader (:mod:`grpo_rewards.signatures`): a reference
(``"package.module:Attribute"``) is found with :func:`importlib.util.find_spec` and parsed with
:mod:`ast`, so ``grpo-rewards list`` runs none of a plugin's scorer code. What the source cannot say
(a default computed at import, a base class from another package) is ``None``: the caller imports
the scorer then and reads its signature.
"""

from __future__ import annotations

import ast
import importlib.util
import typing
from pathlib import Path
from typing import Any

from .signatures import EMPTY, Param

__all__ = ["source_defines", "source_docstring", "source_signature"]


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


def _source_classes(node: ast.ClassDef, module: _SourceModule, depth: int = 0
                    ) -> list[tuple[ast.ClassDef, _SourceModule]] | None:
    """The class and its base classes in Python's method-resolution order (C3), read from source
    (bases defined in the module or in its package); ``None`` when a base cannot be read that way
    (only ``object`` may be left out), the hierarchy is deeper than 4, or it has no consistent order."""
    bases = [b for b in node.bases if not (isinstance(b, ast.Name) and b.id == "object")]
    if not bases:
        return [(node, module)]
    if depth >= 4:
        return None
    orders: list[list[tuple[ast.ClassDef, _SourceModule]]] = []
    for expr in bases:
        base = module.class_def(expr)
        order = _source_classes(base[0], base[1], depth + 1) if base is not None else None
        if order is None:
            return None
        orders.append(order)
    heads = [order[0] for order in orders]
    merged: list[tuple[ast.ClassDef, _SourceModule]] = [(node, module)]
    pending = [list(order) for order in [*orders, heads]]
    key = _class_key
    while any(pending):
        for order in pending:
            if order and not any(key(order[0]) in {key(c) for c in other[1:]} for other in pending):
                chosen = order[0]
                break
        else:
            return None  # no consistent order: Python itself refuses such a class
        merged.append(chosen)
        pending = [[c for c in order if key(c) != key(chosen)] for order in pending]
    return merged


def _class_key(entry: tuple[ast.ClassDef, _SourceModule]) -> tuple[str, str]:
    return entry[1].name, entry[0].name


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
