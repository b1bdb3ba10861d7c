"""A scorer class registered by reference has its parameters read from source (``list --json`` and
``show`` import no reward code), through its base classes in Python's own method-resolution order:
several bases (a mixin), a diamond, a base from another module of the package; checked against the
signature Python gives once the module is imported."""

from __future__ import annotations

import importlib
import inspect
import sys
import textwrap

import pytest

from grpo_rewards.source_signatures import source_defines, source_signature

MODULES = {
    "__init__": "",
    "mixins": """
        class Options:
            registered_as = ""

            def effective(self):
                return self.registered_as
    """,
    "scorers": """
        from .mixins import Options


        class Base:
            def __init__(self, base: int = 0) -> None:
                self.base = base


        class Left(Base):
            pass


        class Right(Base):
            def __init__(self, right: str = "r", *, limit: float = 1.5) -> None:
                super().__init__()


        class Diamond(Left, Right):
            pass


        class Metric:
            def __init__(self, reference_column: str = "reference", scale: float = 1.0) -> None:
                pass


        class Mixed(Metric, Options):
            registered_as = "MIXED"
    """,
    "unordered": """
        from .mixins import Options
        from .scorers import Mixed


        class Unordered(Options, Mixed):
            pass
    """,
}


@pytest.fixture
def package(tmp_path, monkeypatch):
    root = tmp_path / "srcsig_pkg"
    root.mkdir()
    for name, text in MODULES.items():
        (root / f"{name}.py").write_text(textwrap.dedent(text))
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "srcsig_pkg.scorers"
    for name in [m for m in sys.modules if m.startswith("srcsig_pkg")]:
        del sys.modules[name]


@pytest.mark.parametrize(("cls", "params"), [
    ("Diamond", ["right", "limit"]),  # C3: Diamond, Left, Right, Base (depth-first would find Base's)
    ("Mixed", ["reference_column", "scale"]),  # a mixin from another module of the package
    ("Left", ["base"]),
])
def test_a_class_reads_the_init_python_runs_from_source_without_importing_it(package, cls, params):
    found = source_signature(f"{package}:{cls}")
    assert "srcsig_pkg.scorers" not in sys.modules
    assert found is not None
    read, columns = found
    assert list(read) == params and columns == []
    scorer = getattr(importlib.import_module(package), cls)
    assert list(inspect.signature(scorer).parameters) == params
    assert {n: p.default for n, p in read.items()} == {
        n: p.default for n, p in inspect.signature(scorer).parameters.items()}


def test_methods_of_a_mixin_are_found_and_a_missing_one_is_not(package):
    assert source_defines(f"{package}:Mixed", "effective") is True
    assert source_defines(f"{package}:Mixed", "missing") is False


def test_bases_with_no_consistent_order_are_not_read(package):
    assert source_signature("srcsig_pkg.unordered:Unordered") is None
    with pytest.raises(TypeError, match="consistent method resolution"):
        importlib.import_module("srcsig_pkg.unordered")
