"""AST scans of the project's modules: calls that could run text as code, and regex calls without a timeout.

Calls are resolved through each module's imports (``from sympy import sympify as sp`` makes ``sp(...)``
``sympy.sympify``), so renaming an import does not hide a call. Every finding is a :class:`Site`:
(module path, enclosing function, resolved call name); the tests compare them with allow-lists.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[2]

#: Calls that run or deserialise text: resolved dotted names.
DANGEROUS = {
    "builtins.eval", "builtins.exec", "builtins.compile", "builtins.__import__",
    "pickle.loads", "pickle.load", "pickle.Unpickler", "marshal.loads", "marshal.load",
    "dill.loads", "dill.load", "cloudpickle.loads", "cloudpickle.load",
    "yaml.load", "yaml.unsafe_load", "yaml.full_load", "torch.load",
}
#: sympy functions that parse strings (by last name, anywhere under ``sympy``).
SYMPY_PARSERS = {"sympify", "parse_expr", "parse_latex", "S"}
#: Match methods of the ``regex`` module and of its compiled patterns.
REGEX_METHODS = {"match", "search", "fullmatch", "findall", "finditer", "sub", "subn", "split", "splititer"}
#: stdlib ``re`` functions that take a pattern as their first argument.
RE_FUNCTIONS = {"compile", *REGEX_METHODS}


class Site(NamedTuple):
    path: str  # relative to the repository root
    function: str  # enclosing qualified name, "<module>" at top level
    call: str  # resolved dotted name
    line: int


def project_modules(root: Path = ROOT) -> list[Path]:
    """Every ``.py`` of ``packages/*/src`` and ``examples/*/src`` (build and egg-info folders left out)."""
    found = []
    for pattern in ("packages/*/src/**/*.py", "examples/*/src/**/*.py"):
        found += [p for p in root.glob(pattern) if ".egg-info" not in str(p) and "/build/" not in str(p)]
    return sorted(found)


class _Scanner(ast.NodeVisitor):
    def __init__(self, path: str) -> None:
        self.path = path
        self.aliases: dict[str, str] = {}
        self.stack: list[str] = []
        self.calls: list[tuple[Site, ast.Call]] = []

    # imports ------------------------------------------------------------------------------
    def visit_Import(self, node: ast.Import) -> None:
        for a in node.names:
            self.aliases[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level == 0 and node.module:
            for a in node.names:
                self.aliases[a.asname or a.name] = f"{node.module}.{a.name}"

    # scopes -------------------------------------------------------------------------------
    def _scoped(self, node: ast.AST, name: str) -> None:
        self.stack.append(name)
        self.generic_visit(node)
        self.stack.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._scoped(node, node.name)

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._scoped(node, node.name)

    def resolve(self, func: ast.expr) -> str:
        parts: list[str] = []
        while isinstance(func, ast.Attribute):
            parts.append(func.attr)
            func = func.value
        if isinstance(func, ast.Name):
            base = self.aliases.get(func.id)
            if base is None:
                base = f"builtins.{func.id}" if hasattr(builtins, func.id) and not parts else func.id
            parts.append(base)
        elif isinstance(func, ast.Call):
            parts.append(self.resolve(func.func) + "()")
        else:
            parts.append("<expr>")
        return ".".join(reversed(parts))

    def visit_Call(self, node: ast.Call) -> None:
        site = Site(self.path, ".".join(self.stack) or "<module>", self.resolve(node.func), node.lineno)
        self.calls.append((site, node))
        self.generic_visit(node)


def scan(path: Path, source: str | None = None, root: Path = ROOT) -> _Scanner:
    text = path.read_text(encoding="utf-8") if source is None else source
    rel = str(path.relative_to(root)) if path.is_absolute() and path.is_relative_to(root) else str(path)
    scanner = _Scanner(rel)
    scanner.visit(ast.parse(text, filename=str(path)))
    return scanner


def _is_numeric_literal(node: ast.expr) -> bool:
    if isinstance(node, ast.UnaryOp):
        node = node.operand
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool)


def dangerous_calls(scanner: _Scanner) -> Iterator[Site]:
    """Calls that could evaluate or unpickle text (``S(3)`` with a number literal is fine)."""
    for site, node in scanner.calls:
        name = site.call
        last = name.rsplit(".", 1)[-1]
        if name in DANGEROUS:
            yield site
        elif name.split(".")[0] == "sympy" and last in SYMPY_PARSERS:
            if last == "S" and node.args and all(_is_numeric_literal(a) for a in node.args):
                continue
            yield site


def _is_literal_pattern(node: ast.expr | None) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (str, bytes))
    return isinstance(node, ast.JoinedStr) and all(isinstance(v, ast.Constant) for v in node.values)


def untimed_regex_calls(scanner: _Scanner) -> Iterator[Site]:
    """``regex`` matches without ``timeout=``, and stdlib ``re`` patterns that are not literals.

    A ``regex`` match is a call of ``regex.<method>``, of ``<something>.<method>`` in a module that
    imports ``regex`` (a compiled pattern), or of a bound match method kept in an attribute whose
    name says so (``self._compiled(...)``). Stdlib ``re`` cannot time out: its patterns must be
    literals written in the code, never a user's.
    """
    imports_regex = "regex" in scanner.aliases.values()
    for site, node in scanner.calls:
        name = site.call
        root, last = name.split(".")[0], name.rsplit(".", 1)[-1]
        keywords = {k.arg for k in node.keywords}
        if root == "re":
            if last in RE_FUNCTIONS and not _is_literal_pattern(node.args[0] if node.args else None):
                yield site
            continue
        if root == "regex" and name.count(".") == 1:
            if last in REGEX_METHODS and "timeout" not in keywords:
                yield site
            continue
        if not imports_regex:
            continue
        bound = "compiled" in last.lower() or "matcher" in last.lower()
        if (last in REGEX_METHODS or bound) and "timeout" not in keywords and not name.startswith("builtins."):
            if last in ("split", "splititer") and not _looks_like_pattern(node.func):
                continue  # str.split(...)
            yield site


def _looks_like_pattern(func: ast.expr) -> bool:
    """``X.split`` where X is a name like ``_WORD_RE``, ``pattern`` or ``self._compiled``."""
    receiver = func.value if isinstance(func, ast.Attribute) else None
    name = receiver.attr if isinstance(receiver, ast.Attribute) else getattr(receiver, "id", "")
    return bool(name) and (name.isupper() or any(w in name.lower() for w in ("pattern", "compiled", "_re", "regex")))
