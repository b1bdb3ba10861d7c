"""Python asserts as tests: MBPP's assert lines and HumanEval's ``check(candidate)``.

Each assert of the usual shapes (``assert f(args) == expected`` with literal arguments and expected
value; ``assert f(args)``, ``assert not f(args)`` and ``assert f(args) is True`` (``False``, ``None``)
with literal arguments) becomes a :class:`~grpo_rewards_code.testcases.CallTest`: the expected value
stays outside the sandbox. Other asserts run as written, as an
:class:`~grpo_rewards_code.testcases.AssertTest` (see :mod:`grpo_rewards_code.harness`). Code that
does not parse is a :class:`~grpo_rewards_code.testcases.TestFormatError`.

>>> assert_lines(["assert add(1, 2) == 3", "assert add(0, 0) in (0,)"])[0]
CallTest(fn='add', args=(1, 2), expected=3, mode='python')
"""

from __future__ import annotations

import ast
import builtins
from typing import Any

from .testcases import AssertTest, CallTest, Test, TestFormatError

_BUILTINS = frozenset(dir(builtins))


def _literal(node: ast.AST) -> tuple[bool, Any]:
    try:
        return True, ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False, None


def _literal_call(call: ast.AST, names: set[str], rename: dict[str, str]) -> tuple[str, tuple[Any, ...]] | None:
    """``name(literals)`` as (the function's name, the arguments), else None."""
    if (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in names
            and not call.keywords and not any(isinstance(a, ast.Starred) for a in call.args)):
        values = [_literal(a) for a in call.args]
        if all(v[0] for v in values):
            return rename.get(call.func.id, call.func.id), tuple(v[1] for v in values)
    return None


def _call_test(node: ast.stmt, names: set[str], rename: dict[str, str]) -> CallTest | None:
    """``assert name(literals) == literal`` (either side), ``assert name(literals)``, ``assert not
    name(literals)`` or ``assert name(literals) is True`` (``False``, ``None``) as a call test, else None.
    The returned value is compared outside as the assert would compare it (its truth, or identity with
    the constant: the assert sees the same plain value, decoded from the same typed JSON)."""
    if not isinstance(node, ast.Assert):
        return None
    test = node.test
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        called = _literal_call(test.operand, names, rename)
        return CallTest(called[0], called[1], False, "truth") if called else None
    if not isinstance(test, ast.Compare):
        called = _literal_call(test, names, rename)
        return CallTest(called[0], called[1], True, "truth") if called else None
    if len(test.ops) != 1:
        return None
    if isinstance(test.ops[0], ast.Is):
        called = _literal_call(test.left, names, rename)
        constant = test.comparators[0]
        if called and isinstance(constant, ast.Constant) and constant.value in (True, False, None) \
                and type(constant.value) in (bool, type(None)):
            return CallTest(called[0], called[1], constant.value, "is")
        return None
    if not isinstance(test.ops[0], ast.Eq):
        return None
    for call, other in ((test.left, test.comparators[0]), (test.comparators[0], test.left)):
        called = _literal_call(call, names, rename)
        if called:
            ok, expected = _literal(other)
            if ok:
                return CallTest(called[0], called[1], expected)
    return None


def _asserts_something(node: ast.AST) -> bool:
    """Whether ``node`` holds an assert that can fail (one whose test reads a name or calls something: not
    ``assert True, "message"``)."""
    return any(isinstance(n, ast.Assert) and any(isinstance(m, (ast.Name, ast.Call, ast.Attribute))
                                                 for m in ast.walk(n.test)) for n in ast.walk(node))


def _rebinds(nodes: list[ast.stmt], names: set[str]) -> bool:
    """Whether ``nodes`` assign, define, import or delete one of ``names`` (the candidate is then not what a call
    test would call)."""
    for node in nodes:
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and n.id in names and not isinstance(n.ctx, ast.Load):
                return True
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name in names:
                return True
            if isinstance(n, (ast.Import, ast.ImportFrom)) and any(
                    (a.asname or a.name).split(".")[0] in names for a in n.names):
                return True
            if isinstance(n, (ast.Global, ast.Nonlocal)) and set(n.names) & names:
                return True
    return False


def _called_names(tree: ast.AST) -> set[str]:
    return {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}


def _defined_names(tree: ast.Module) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            out.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            out.update((a.asname or a.name).split(".")[0] for a in node.names)
    return out


def _parse(source: str, what: str) -> ast.Module:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        raise TestFormatError(f"{what} is not valid Python ({exc})") from None


def assert_lines(lines: list[Any], setup: str = "", fn_name: str | None = None) -> list[Test]:
    """Tests from assert lines (MBPP's ``test_list``, a native ``tests`` list of strings)."""
    setup_tree = _parse(setup, "the test set-up code")
    defined = _defined_names(setup_tree)
    tests: list[Test] = []
    for k, line in enumerate(lines):
        if not isinstance(line, str) or not line.strip():
            raise TestFormatError(f"test {k} must be an assert line, not {line!r}"[:200])
        tree = _parse(line, f"test {k}")
        called = _called_names(tree) - defined - _BUILTINS
        names = called | ({fn_name} if fn_name else set())
        statements = tree.body
        converted = _call_test(statements[0], names, {}) if len(statements) == 1 else None
        if converted is not None:
            tests.append(converted)
        elif called or fn_name or _asserts_something(tree):  # a test of the row's, whatever it names: never dropped
            tests.append(AssertTest(line, setup, tuple(sorted(names))))
    return tests


def humaneval_tests(test: str, entry_point: str, context: str = "") -> list[Test]:
    """One test per statement of ``check``'s body that holds an assert that can fail (statements before it
    without one are its set-up; ``assert True, "..."`` is no test). An assert of the usual shape on the
    candidate is a call test; every other one (on a variable set from a call, on an alias of the
    candidate, in a loop) runs as written, with its set-up, in the assert tests' process: never fewer
    tests than the check has."""
    if not isinstance(test, str) or not isinstance(entry_point, str) or not entry_point.isidentifier():
        raise TestFormatError("HumanEval rows need 'test' (text) and 'entry_point' (a function name)")
    tree = _parse(test, "the 'test' column")
    checks = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "check"]
    if not checks or not checks[0].args.args:
        raise TestFormatError("the 'test' column defines no check(candidate) function")
    check = checks[0]
    param = check.args.args[0].arg
    try:
        ast.parse(context)
    except (SyntaxError, ValueError):
        context = ""
    module = "\n".join(ast.unparse(n) for n in tree.body if n is not check)
    setup = context + "\n" + module
    names = {param, entry_point}
    tests: list[Test] = []
    prefix: list[str] = []
    prefix_nodes: list[ast.stmt] = []
    for node in check.body:
        if not _asserts_something(node):
            if not isinstance(node, ast.Assert):
                prefix.append(ast.unparse(node))
                prefix_nodes.append(node)
            continue
        converted = (_call_test(node, names, {param: entry_point})
                     if isinstance(node, ast.Assert) and not _rebinds(prefix_nodes, names) else None)
        if converted is not None:
            tests.append(converted)
            continue
        body = "\n".join([*prefix, ast.unparse(node)])
        source = f"def __check({param}):\n" + "\n".join("    " + line for line in body.splitlines()) \
            + f"\n__check({entry_point})\n"
        tests.append(AssertTest(source, setup, (entry_point,)))
    return tests
