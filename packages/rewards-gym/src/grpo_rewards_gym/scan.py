"""Which reasoning-gym scorers evaluate something, found by reading the installed reasoning-gym's code.

A hand-kept list misses the next one (``bitwise_arithmetic``'s scorer ``eval``s ``metadata.problem``
and was listed as evaluating only at generation), so the list is computed: :func:`evaluators` walks
the syntax trees of everything a dataset's ``score_answer`` can reach in reasoning-gym — the method
itself (through the class's bases), the methods it calls on ``self``, the functions and classes it
names (in its module or imported from another reasoning-gym module), transitively — and reports every
call that evaluates text or runs code:

- the builtins ``eval``, ``exec``, ``compile``, ``__import__``, and any call whose name is one of
  :data:`EVALUATOR_NAMES` (``sympify``, ``parse_expr``, ``parse_latex``, ``S``, ``simplify``, ...)
  however it is reached (``sympy.sympify``, ``sp.parse_expr``, a method of an unknown object), unless
  the name is reasoning-gym's own function (propositional_logic's ``parse_expr``), which is read instead;
- any call of a function or class of sympy (most of them ``sympify`` their arguments, and
  ``sympify`` of a string calls ``eval``), or of ``pickle``/``marshal``/``subprocess``/``os.system``.

The scan over-approximates on purpose: a scorer that calls sympy on numbers only is listed too (its
cost is a sandbox, not a hole). What it cannot see is code reached through a value (a callable stored
in a dict, ``getattr`` with a computed name); the test that compares the scan with
:data:`grpo_rewards_gym.safety.SCANNED` fails when a new reasoning-gym changes what is found.

>>> found = evaluators("bitwise_arithmetic")
>>> sorted({call for _, call in found})
['eval']
>>> evaluators("leg_counting")
()
"""

from __future__ import annotations

import ast
import builtins
import inspect
import textwrap
import types
from functools import cache
from typing import Any

#: names whose call evaluates text (or runs code), whatever object they are reached through
EVALUATOR_NAMES = frozenset({
    "eval", "exec", "compile", "__import__", "execfile", "sympify", "parse_expr", "parse_latex", "parse_mathematica",
    "S", "simplify", "nsimplify", "run_path", "run_module", "system", "popen",
})
#: modules any call into which counts as evaluation (or running code)
EVALUATOR_MODULES = ("sympy", "pickle", "marshal", "subprocess", "runpy", "code", "codeop", "numexpr")
_BUILTIN_EVALUATORS = {getattr(builtins, n) for n in ("eval", "exec", "compile", "__import__")}
#: at most this many functions are read for one dataset (the whole package has a few thousand)
MAX_FUNCTIONS = 2000


def _module_name(obj: Any) -> str:
    name = getattr(obj, "__module__", None) if not isinstance(obj, types.ModuleType) else obj.__name__
    return name if isinstance(name, str) else ""


def _is_evaluator(obj: Any) -> bool:
    if any(obj is b for b in _BUILTIN_EVALUATORS):
        return True
    module = _module_name(obj)
    return any(module == m or module.startswith(m + ".") for m in EVALUATOR_MODULES)


def _ours(obj: Any, package: str) -> bool:
    """Whether ``obj`` is a function, method or class of ``package`` (whose code is read in turn)."""
    module = _module_name(obj)
    return (module == package or module.startswith(package + ".")) and (
        inspect.isfunction(obj) or inspect.isclass(obj) or inspect.ismethod(obj))


def _functions_of(obj: Any, klass: type | None, package: str) -> list[tuple[Any, type | None]]:
    """The functions whose code runs when ``obj`` is called, each with the class ``self`` is in it: the
    function (``klass``), or every method a class of ``package`` (and its bases there) defines."""
    obj = obj.__func__ if isinstance(obj, (staticmethod, classmethod)) or inspect.ismethod(obj) else obj
    if isinstance(obj, property):
        return [(f, klass) for f in (obj.fget, obj.fset) if f is not None]  # (package: properties of its classes)
    if inspect.isfunction(obj):
        return [(obj, klass)]
    if inspect.isclass(obj):
        found: list[tuple[Any, type | None]] = []
        for base in obj.__mro__:
            if _ours(base, package):
                for value in vars(base).values():
                    if isinstance(value, (staticmethod, classmethod, property)) or inspect.isfunction(value):
                        found += _functions_of(value, obj, package)
        return found
    return []


def _tree(function: Any) -> ast.AST | None:
    try:
        return ast.parse(textwrap.dedent(inspect.getsource(function)))
    except (OSError, TypeError, SyntaxError):
        return None


def _resolve(node: ast.expr, namespace: dict[str, Any], klass: type | None) -> Any:
    """The object a name or dotted name refers to in the function's module (``self.x``: the class's ``x``)."""
    if isinstance(node, ast.Name):
        return namespace[node.id] if node.id in namespace else getattr(builtins, node.id, None)
    if isinstance(node, ast.Attribute):
        if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls") and klass is not None:
            return inspect.getattr_static(klass, node.attr, None)
        owner = _resolve(node.value, namespace, klass)
        if isinstance(owner, types.ModuleType) or inspect.isclass(owner):
            return inspect.getattr_static(owner, node.attr, None)
    return None


@cache
def evaluators(dataset: str) -> tuple[tuple[str, str], ...]:
    """Every ``(function, evaluator)`` that the scorer of ``dataset`` can reach: ``("verify_solution", "eval")``.

    Empty when nothing reachable from ``score_answer`` evaluates. Raises KeyError for an unknown dataset.
    """
    from reasoning_gym.factory import DATASETS

    return scan_class(DATASETS[dataset][0])


def scan_class(klass: type, package: str = "reasoning_gym", method: str = "score_answer") -> tuple[tuple[str, str], ...]:
    """Every ``(function, evaluator)`` reachable from ``klass.method`` through the code of ``package``."""
    queue = _functions_of(inspect.getattr_static(klass, method), klass, package)
    seen: set[Any] = set()
    found: set[tuple[str, str]] = set()
    while queue and len(seen) < MAX_FUNCTIONS:
        function, owner = queue.pop()
        if function in seen:
            continue
        seen.add(function)
        tree = _tree(function)
        if tree is None:
            continue
        namespace = getattr(function, "__globals__", {})
        called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Name, ast.Attribute)):
                continue
            name = node.id if isinstance(node, ast.Name) else node.attr
            target = _resolve(node, namespace, owner)
            if target is not None and (_ours(target, package) or isinstance(target, (staticmethod, classmethod,
                                                                                        property))):
                queue += _functions_of(target, owner if isinstance(node, ast.Attribute) else None, package)  # read it
            elif id(node) in called and (name in EVALUATOR_NAMES or (target is not None and _is_evaluator(target))):
                found.add((function.__qualname__, name))
    return tuple(sorted(found))


def evaluating_datasets(names: Any = None) -> frozenset[str]:
    """The datasets (of ``names``, default every registered one) whose scorer reaches an evaluator."""
    from reasoning_gym.factory import DATASETS

    return frozenset(n for n in (DATASETS if names is None else names) if evaluators(n))
