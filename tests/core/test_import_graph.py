"""Every package's own modules import each other without a cycle, counting imports inside functions too.

Every package under ``packages/`` is checked, the core and each reward package (its ``src/<name>``)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGES = Path(__file__).resolve().parents[2] / "packages"
SRC = PACKAGES / "core" / "src"
PACKAGE = "grpo_rewards"
#: ``(src folder, import name)`` of every package under packages/ (each has exactly one under src/)
ALL = sorted((src, pkg.name) for src in PACKAGES.glob("*/src") for pkg in src.iterdir() if (pkg / "__init__.py").exists())


def _module_name(path: Path, src: Path = SRC) -> str:
    parts = list(path.relative_to(src).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _resolve(module: str, is_package: bool, level: int, target: str | None) -> str:
    """The absolute name a ``from ... import`` or ``import`` inside ``module`` refers to."""
    if level == 0:
        return target or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join([*base, target] if target else base)


def import_graph(src: Path = SRC, package: str = PACKAGE) -> dict[str, set[str]]:
    """``module -> modules of the same package it imports`` (module level and inside functions;
    ``TYPE_CHECKING`` blocks included, since they name the same dependencies)."""
    modules = {_module_name(p, src): p for p in (src / package).rglob("*.py")}
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(name, is_package, node.level, node.module)
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
            for target in targets:
                while target and target not in modules:  # ``import a.b.c`` of an attribute: its module
                    target = target.rpartition(".")[0]
                if target and target != name and (target == package or target.startswith(package + ".")):
                    graph[name].add(target)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as ``[a, b, ..., a]``, or ``None``."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt):], nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_the_core_has_no_import_cycle():
    graph = import_graph()
    assert len(graph) > 40 and "grpo_rewards.plugin.manager" in graph["grpo_rewards.registry"]
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph) or [])


def test_every_package_under_packages_is_checked():
    names = [name for _, name in ALL]
    assert len(names) == len([p for p in PACKAGES.iterdir() if (p / "pyproject.toml").exists()])
    assert {"grpo_rewards", "grpo_rewards_math", "grpo_rewards_code", "grpo_rewards_gym"} <= set(names)


@pytest.mark.parametrize(("src", "package"), ALL, ids=[name for _, name in ALL])
def test_no_package_has_an_import_cycle(src, package):
    graph = import_graph(src, package)
    assert len(graph) > 1 and any(graph.values())  # the package's modules, and some import another
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph) or [])


def test_a_cycle_through_a_function_level_import_is_found(tmp_path):
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_function_level_imports_are_edges():
    graph = import_graph()
    # the package names its lazy public names in its TYPE_CHECKING block: edges of the package module
    assert "grpo_rewards.rewardset" in graph["grpo_rewards"]
    assert "grpo_rewards.plugin" in graph["grpo_rewards.plugin.spec"]


def test_a_package_s_graph_holds_only_its_own_modules():
    graph = import_graph(PACKAGES / "rewards-math" / "src", "grpo_rewards_math")
    assert "grpo_rewards_math.structure" in graph["grpo_rewards_math.bounded"]
    assert all(m.startswith("grpo_rewards_math") for deps in graph.values() for m in deps)  # not the core's
