"""Package namespaces whose names are imported on first use (PEP 562), written once for every package.

A plugin's ``__init__`` is imported when the plugin registers (``grpo-rewards list``), so it must
not import its reward code; a TRL script still wants ``from package import reward``. The core and
every first-party reward package build their ``__getattr__`` and ``__dir__`` here instead of each
writing the same table lookup:

>>> import types
>>> demo = types.ModuleType("demo")
>>> demo.__getattr__, demo.__dir__ = lazy_exports("json", {"JSONDecoder": "decoder"})
>>> getattr(demo, "JSONDecoder").__name__   # imports json.decoder now, not before
'JSONDecoder'
"""

from __future__ import annotations

import importlib
import sys

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: the core's `import grpo_rewards` stays light
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable, Iterable, Mapping
    from typing import Any


def lazy_exports(
    package: str,
    names: Mapping[str, str],
    *,
    built: Mapping[str, str] | None = None,
    modules: Iterable[str] = (),
    distribution: str | None = None,
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for the package ``package``.

    ``names`` maps a public name to the submodule (relative, ``"plugin.spec"``) that defines it;
    ``built`` maps a public name to ``"submodule:factory"``, called once with no arguments on first
    use (a ready-made reward); ``modules`` are public submodules; ``distribution`` names the installed
    distribution whose version is ``__version__`` (read on first use: ``importlib.metadata`` and its
    e-mail parser cost a worker process ~30 ms to import; ``0.0.0+unknown`` for a source tree never
    installed). Each value is kept in the package's globals after its first use, so ``__getattr__``
    runs once per name.
    """
    built = dict(built or {})
    modules = tuple(modules)

    def __getattr__(name: str) -> Any:
        if name == "__version__" and distribution is not None:
            value: Any = _installed_version(distribution)
        elif name in modules:
            value = importlib.import_module(f".{name}", package)
        elif name in names:
            value = getattr(importlib.import_module(f".{names[name]}", package), name)
        elif name in built:
            module, _, factory = built[name].partition(":")
            value = getattr(importlib.import_module(f".{module}", package), factory)()
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        vars(sys.modules[package])[name] = value
        return value

    def __dir__() -> list[str]:
        extra = ("__version__",) if distribution is not None else ()
        return sorted({*vars(sys.modules[package]), *names, *built, *modules, *extra})

    return __getattr__, __dir__


def _installed_version(distribution: str) -> str:
    """The installed version of ``distribution`` (the one literal is in its pyproject.toml)."""
    from importlib import metadata

    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:  # imported from a source tree that was never installed
        return "0.0.0+unknown"
