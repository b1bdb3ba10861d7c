"""Rewards without a package: ``use: path/to/file.py:fn`` or ``use: package.module:fn`` in a reward set.

A user's quick reward gets what a plugin's gets: its signature is read the same way (keyword-only
parameters with defaults are parameters, without defaults required columns; a class's
``__init__`` parameters are parameters), it is validated, lifted into TRL's call and run, in
worker processes under a deadline too. A function whose first parameter is ``prompts`` or
``completions`` is TRL's own batch call (``form="batch"``); anything else is a per-sample scorer
``score(text, **row)``.

A file path is relative to the reward-set file (or to the current folder for a set given as
data). Its module is imported under a name that encodes the file's path
(``grpo_rewards.local.file_<hex>``), so a worker process, which unpickles the function by module
name, imports the same file. A dotted module is imported as TRL's ``--reward_funcs`` would, with
the reward-set folder and the current folder on the import path. A module of an installed plugin
is refused, naming the reward's registered name: the plugin's own metadata (timeouts, ranges) only
come with that name.

>>> is_local_reference("rewards/shout.py:shout"), is_local_reference("my_rewards.length:score")
(True, True)
>>> is_local_reference("math.accuracy")
False
"""

from __future__ import annotations

import functools
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import inspect
import os
import sys
import types
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .errors import GrpoRewardsError, read_yaml
from .records import RewardInfo
from .signatures import call_form, first_doc_paragraph, scorer_params

#: ``__path__`` makes this module a package, so ``grpo_rewards.local.file_<hex>`` can be imported.
__path__: list[str] = []

_PREFIX = __name__ + ".file_"


def is_local_reference(use: str) -> bool:
    """Whether a reward-set ``use:`` names a file or module attribute rather than a registered reward."""
    return isinstance(use, str) and ":" in use and not use.startswith(":") and not use.endswith(":")


def module_name_for(path: Path) -> str:
    """The importable module name of a reward file: its absolute path, hex-encoded."""
    return _PREFIX + str(path.resolve()).encode("utf-8").hex()


class _FileFinder(importlib.abc.MetaPathFinder):
    """Finds ``grpo_rewards.local.file_<hex>`` modules: the file whose path the name encodes."""

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: types.ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith(_PREFIX):
            return None
        try:
            file = bytes.fromhex(fullname[len(_PREFIX):]).decode("utf-8")
        except ValueError:
            return None
        return importlib.util.spec_from_file_location(fullname, file)


if not any(isinstance(f, _FileFinder) for f in sys.meta_path):
    sys.meta_path.append(_FileFinder())


def _attribute(module: types.ModuleType, dotted: str, use: str) -> Any:
    obj: Any = module
    for part in dotted.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            known = sorted(n for n, v in vars(module).items() if callable(v) and not n.startswith("_"))
            raise GrpoRewardsError(
                f"{use}: {module.__name__ if not module.__name__.startswith(_PREFIX) else 'the file'} has no "
                f"{dotted!r} (callables there: {', '.join(known) or 'none'})") from None
    return obj


def _import_file(file: str, base: Path, use: str) -> types.ModuleType:
    path = (base / file) if not os.path.isabs(file) else Path(file)
    if not path.is_file():
        raise GrpoRewardsError(f"{use}: file not found: {path}")
    name = module_name_for(path)
    try:
        return importlib.import_module(name)
    except Exception as exc:
        sys.modules.pop(name, None)
        raise GrpoRewardsError(f"{use}: importing {path} raised {type(exc).__name__}: {exc}") from exc


def _import_module(module: str, base: Path, use: str) -> types.ModuleType:
    for folder in (str(base), os.getcwd()):
        if folder not in sys.path:
            sys.path.append(folder)  # as `trl grpo --reward_funcs module.fn` finds modules beside you
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        raise GrpoRewardsError(f"{use}: no module named {exc.name!r} (looked beside the reward set and in "
                               f"{os.getcwd()})") from exc
    except Exception as exc:
        raise GrpoRewardsError(f"{use}: importing {module} raised {type(exc).__name__}: {exc}") from exc


def _is_file(where: str) -> bool:
    """Whether the part of a reference before ``:`` is a file path rather than a dotted module."""
    return where.endswith(".py") or "/" in where or os.sep in where


def absolute_reference(use: str, base: Path) -> str:
    """``use`` with a relative file path made absolute against ``base``; anything else unchanged.

    >>> absolute_reference("my_rewards.py:shout", Path("/work/sets")), absolute_reference("math.accuracy", Path("/w"))
    ('/work/sets/my_rewards.py:shout', 'math.accuracy')
    """
    if not is_local_reference(use):
        return use
    where, _, attr = use.rpartition(":")
    if not _is_file(where) or Path(where).expanduser().is_absolute():
        return use
    return f"{base / where}:{attr}"


def load_object(use: str, base: Path | None = None) -> Any:
    """The object ``use`` names: ``file.py:name`` (relative to ``base``) or ``package.module:name``."""
    where, _, attr = use.rpartition(":")
    base = base if base is not None else Path.cwd()
    if _is_file(where):
        module = _import_file(where, base, use)
    else:
        module = _import_module(where, base, use)
    obj = _attribute(module, attr, use)
    if not callable(obj):
        raise GrpoRewardsError(f"{use}: {attr!r} is a {type(obj).__name__}, not a function or class")
    return obj


def _plugin_of(obj: Any, registry: Any) -> tuple[str, Any] | None:
    """``(registered name or plugin, record)`` when ``obj``'s module belongs to an installed plugin."""
    module = getattr(obj, "__module__", None) or type(obj).__module__
    top = module.split(".")[0]
    reference = f"{module}:{getattr(obj, '__qualname__', '')}"
    for info in registry.rewards.values():  # a scorer registered by reference is compared by reference, unloaded
        same = info.reference == reference if info.reference and not info.loaded else info.scorer is obj
        is_reward = hasattr(obj, "metric") and hasattr(obj, "scorer")  # a grpo_rewards.Reward built from it
        if same or (is_reward and getattr(obj, "name", None) == info.name):
            return info.name, registry.records.get(info.plugin)
    for name, record in registry.records.items():
        if record.module and record.module.split(".")[0] == top:
            return name, record
    return None


def resolve(use: str, registry: Any, base: Path | None = None) -> Any:
    """A :class:`~grpo_rewards.RewardInfo` for a ``file.py:fn`` / ``module:fn`` reference."""
    obj = load_object(use, base)
    owner = _plugin_of(obj, registry)
    if owner is not None:
        name, record = owner
        plugin = name.split(".")[0]
        dist = f" ({record.distribution})" if record is not None and record.distribution else ""
        what = f"use its registered name: use: {name}" if "." in name else \
            "use the plugin's registered rewards (grpo-rewards list shows them)"
        raise GrpoRewardsError(f"{use} belongs to the installed plugin {plugin!r}{dist}; {what}")
    form = call_form(obj)
    params, columns = scorer_params(obj) if form == "sample" or inspect.isclass(obj) else ({}, [])
    return RewardInfo(use, obj, form=form, description=first_doc_paragraph(obj), params=params, columns=columns)


def local_rewards_of(path: str, registry: Any) -> list[Any]:
    """The file and module rewards a reward-set file names, resolved (for ``grpo-rewards list --rewards``)."""
    spec = read_yaml(path, what="reward set")
    entries = spec.get("rewards", []) if isinstance(spec, dict) else spec if isinstance(spec, list) else []
    base = Path(path).parent
    found = []
    for entry in entries:
        use = entry.get("use") if isinstance(entry, dict) else entry
        if isinstance(use, str) and is_local_reference(use):
            found.append(resolve(use, registry, base))
    return found


def find_reward(registry: Any, use: str, base: Path | None = None) -> Any:
    """The reward a reward-set ``use:`` names: a registered name, or a file or module reference."""
    return resolve(use, registry, base) if is_local_reference(use) else registry.reward(use)


def scorer_files(rewards: Sequence[Any]) -> dict[str, str]:
    """The source file of each file or module reward among ``rewards`` (built :class:`~grpo_rewards.Reward`
    objects), as ``{"scorer module of <use>": path}``: files a run reads, that its ``--out`` must not replace."""
    files: dict[str, str] = {}
    for reward in rewards:
        files.update(scorer_files(list(getattr(reward, "inputs", {}).values())))  # what it reads from
        use = getattr(reward, "name", "")
        if not is_local_reference(use):
            continue
        scorer = getattr(reward, "scorer", None)
        while isinstance(scorer, functools.partial):
            scorer = scorer.func
        module = getattr(scorer, "__module__", None) or type(scorer).__module__
        file = getattr(sys.modules.get(module), "__file__", None)
        if isinstance(file, str):
            files[f"scorer module of {use}"] = file
    return files


def metric_name(use: str) -> str:
    """The default metric name of an entry: the reward's name, or a file/module reward's attribute.

    >>> metric_name("rewards/shout.py:shout"), metric_name("math.accuracy")
    ('shout', 'math.accuracy')
    """
    return use.rpartition(":")[2] if is_local_reference(use) else use
