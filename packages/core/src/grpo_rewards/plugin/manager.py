"""Plugin discovery: a ``Plugins`` object holding pluggy's manager and one record per plugin.

Built by :func:`get_plugins` (never at import time). A plugin that fails to import, whose hook
is misspelled, or whose hook raises (``SystemExit`` and other ``BaseException``\\ s included) is
recorded as broken with its error while every other plugin keeps working; only a real Ctrl-C
(``KeyboardInterrupt``) goes through. Whatever plugins print while they load goes to stderr, so
``grpo-rewards list --json`` stays valid JSON.

>>> plugins = get_plugins(load_entry_points=False)
>>> plugins.records
{}
>>> class Shout:
...     @hookimpl
...     def register_rewards(self, register):
...         register("shout", lambda text, **row: float(text.isupper()))
>>> plugins.add(Shout(), "shout").hooks
['register_rewards']
"""

from __future__ import annotations

import contextlib
import sys
import traceback
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

import pluggy

from . import PROJECT_NAME, hookimpl, spec  # noqa: F401  (hookimpl: for the example above)
from .allowlist import AllowList, read_allow_list

#: The hooks a plugin may implement, in the order they are called.
HOOKS = ("register_rewards", "register_tasks", "register_environments")


@dataclass
class PluginRecord:
    """One plugin as discovered: where it comes from and whether it loaded."""

    name: str
    distribution: str | None = None
    version: str | None = None
    module: str | None = None
    error: str | None = None  # one line: "ImportError: ..."
    traceback: str | None = None
    hooks: list[str] = field(default_factory=list)
    conflict: str | None = None  # set on both claimants when two distributions use one name

    @property
    def ok(self) -> bool:
        return self.error is None

    def fail(self, error: str) -> None:
        """Mark the plugin broken with a one-line ``error`` and the traceback being handled."""
        self.error = error
        self.traceback = traceback.format_exc()


def _entry_points() -> list[metadata.EntryPoint]:
    seen: dict[tuple[str, str], metadata.EntryPoint] = {}
    for ep in metadata.entry_points(group=PROJECT_NAME):
        seen.setdefault((ep.name, ep.value), ep)  # a path listed twice yields duplicates
    return sorted(seen.values(), key=lambda ep: ep.name)


def _error_line(exc: BaseException, where: str = "") -> str:
    """``"ImportError: no module x"`` or ``"SystemExit in register_rewards: 3"``: one line."""
    head = type(exc).__name__ + (f" in {where}" if where else "")
    text = str(exc).strip()
    return f"{head}: {text.splitlines()[0]}" if text else head


@contextlib.contextmanager
def _plugin_code() -> Iterator[None]:
    """Around plugin code: its prints go to stderr (stdout may be JSON)."""
    with contextlib.redirect_stdout(sys.stderr):
        yield


class Plugins:
    """The plugins the core knows: pluggy's ``manager`` (with the hookspecs) and their ``records``.

    ``records`` maps each namespace to its :class:`PluginRecord`, loaded or broken; a name claimed
    by two distributions is recorded under both (the second as ``"name (distribution)"``).
    ``allow`` is the allow-list (``GRPO_REWARDS_PLUGINS``) as read against the installed plugins,
    ``None`` until :meth:`load_installed` ran.
    """

    def __init__(self) -> None:
        self.manager = pluggy.PluginManager(PROJECT_NAME)
        self.manager.add_hookspecs(spec)
        self.records: dict[str, PluginRecord] = {}
        self.allow: AllowList | None = None

    def load_installed(self) -> None:
        """Import and register every installed plugin the allow-list admits (entry points)."""
        entry_points = _entry_points()
        self.allow = read_allow_list(installed=sorted({ep.name for ep in entry_points}))
        for ep in entry_points:
            if self.allow.allowed is not None and ep.name not in self.allow.allowed:
                continue
            dist = getattr(ep, "dist", None)
            record = PluginRecord(
                name=ep.name,
                distribution=dist.metadata["Name"] if dist is not None else None,
                version=dist.version if dist is not None else None,
                module=ep.value,
            )
            first = self.records.get(ep.name)
            if first is not None:
                message = (
                    f"plugin name {ep.name!r} is claimed by both {first.distribution} "
                    f"({first.module}) and {record.distribution} ({record.module}); uninstall one of them"
                )
                record.error = f"PluginError: {message}"
                record.conflict = first.conflict = message
                self.records[f"{ep.name} ({record.distribution})"] = record
                continue
            self.records[ep.name] = record
            try:
                with _plugin_code():
                    plugin = ep.load()
            except KeyboardInterrupt:
                raise
            except BaseException as exc:  # SystemExit at import is a broken plugin, not an exit
                record.fail(_error_line(exc))
                continue
            try:
                self._register(plugin, record)
            except Exception as exc:  # a misspelled hook, a plugin registered twice
                record.fail(_error_line(exc))

    def add(self, plugin: object, name: str) -> PluginRecord:
        """Register a plugin object directly (tests, notebooks); ``name`` is its namespace.

        Raises pluggy's error for a misspelled hook, and records nothing then.
        """
        module = getattr(plugin, "__name__", None) or type(plugin).__module__
        record = PluginRecord(name=name, module=module)
        self._register(plugin, record)
        self.records[name] = record
        return record

    def _register(self, plugin: object, record: PluginRecord) -> None:
        try:
            self.manager.register(plugin, name=record.name)
            self.manager.check_pending()
        except Exception:
            if self.manager.is_registered(plugin):
                self.manager.unregister(plugin)
            raise
        record.hooks = sorted(h.name for h in self.manager.get_hookcallers(plugin) or [])

    def run_hooks(self, name: str, registers: Mapping[str, Callable[..., Any]]) -> bool:
        """Call plugin ``name``'s hooks, each with its ``register`` from ``registers``, in :data:`HOOKS` order.

        Returns whether all of them returned. The first that raises (any exception but a real
        Ctrl-C) marks the plugin broken, and its later hooks are not called.
        """
        record = self.records[name]
        for hook_name in HOOKS:
            for impl in getattr(self.manager.hook, hook_name).get_hookimpls():
                if impl.plugin_name != name:
                    continue
                try:
                    with _plugin_code():
                        impl.function(register=registers[hook_name])
                except KeyboardInterrupt:
                    raise
                except BaseException as exc:  # one plugin's broken hook must not hide the others
                    record.fail(_error_line(exc, hook_name))
                    return False
        return True


def get_plugins(load_entry_points: bool = True) -> Plugins:
    """A fresh :class:`Plugins` with the hookspecs and (by default) the installed plugins."""
    plugins = Plugins()
    if load_entry_points:
        plugins.load_installed()
    return plugins
