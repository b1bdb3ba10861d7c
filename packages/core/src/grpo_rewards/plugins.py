"""Plugin discovery: the plugin manager, entry points, the allow-list, and failure records."""

from __future__ import annotations

import os
import traceback
from dataclasses import dataclass, field
from importlib import metadata

import pluggy

from . import hookspecs
from .hookspecs import PROJECT_NAME

#: Comma-separated plugin names to load; set but empty means none.
ALLOW_ENV = "GRPO_REWARDS_PLUGINS"


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


def allowed_plugins() -> set[str] | None:
    """The allow-list from ``GRPO_REWARDS_PLUGINS``: ``None`` when unset (everything allowed)."""
    value = os.environ.get(ALLOW_ENV)
    if value is None:
        return None
    return {part.strip() for part in value.split(",") if part.strip()}


def _entry_points() -> list[metadata.EntryPoint]:
    seen: dict[tuple[str, str], metadata.EntryPoint] = {}
    for ep in metadata.entry_points(group=PROJECT_NAME):
        seen.setdefault((ep.name, ep.value), ep)  # a path listed twice yields duplicates
    return sorted(seen.values(), key=lambda ep: ep.name)


def _error_line(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}".splitlines()[0] if str(exc) else type(exc).__name__


def get_plugin_manager(load_entry_points: bool = True) -> pluggy.PluginManager:
    """Build a fresh plugin manager with the hookspecs and (by default) the installed plugins.

    Plugins that fail to import are recorded in ``pm.grpo_records`` with their error instead of
    raising, so one broken plugin never hides the others.
    """
    pm = pluggy.PluginManager(PROJECT_NAME)
    pm.add_hookspecs(hookspecs)
    pm.grpo_records = {}  # type: ignore[attr-defined]
    if load_entry_points:
        allow = allowed_plugins()
        for ep in _entry_points():
            if allow is not None and ep.name not in allow:
                continue
            dist = getattr(ep, "dist", None)
            record = PluginRecord(
                name=ep.name,
                distribution=dist.metadata["Name"] if dist is not None else None,
                version=dist.version if dist is not None else None,
                module=ep.value,
            )
            first = pm.grpo_records.get(ep.name)  # type: ignore[attr-defined]
            if first is not None:
                message = (
                    f"plugin name {ep.name!r} is claimed by both {first.distribution} "
                    f"({first.module}) and {record.distribution} ({record.module}); uninstall one of them"
                )
                record.error = f"PluginError: {message}"
                record.conflict = first.conflict = message
                pm.grpo_records[f"{ep.name} ({record.distribution})"] = record  # type: ignore[attr-defined]
                continue
            pm.grpo_records[ep.name] = record  # type: ignore[attr-defined]
            try:
                plugin = ep.load()
            except BaseException as exc:
                if isinstance(exc, KeyboardInterrupt):
                    raise
                record.error = _error_line(exc)
                record.traceback = traceback.format_exc()
                continue
            try:
                pm.register(plugin, name=ep.name)
                pm.check_pending()
            except Exception as exc:  # a misspelled hook, a plugin registered twice
                if pm.is_registered(plugin):
                    pm.unregister(plugin)
                record.error = _error_line(exc)
                record.traceback = traceback.format_exc()
                continue
            record.hooks = sorted(h.name for h in pm.get_hookcallers(plugin) or [])
    return pm


def register_plugin(pm: pluggy.PluginManager, plugin: object, name: str) -> PluginRecord:
    """Register a plugin object directly (tests, notebooks); the name is its namespace."""
    pm.register(plugin, name=name)
    pm.check_pending()
    module = getattr(plugin, "__name__", None) or type(plugin).__module__
    record = PluginRecord(name=name, module=module)
    record.hooks = sorted(h.name for h in pm.get_hookcallers(plugin) or [])
    records = getattr(pm, "grpo_records", None)
    if records is None:
        records = pm.grpo_records = {}  # type: ignore[attr-defined]
    records[name] = record
    return record


def plugin_records(pm: pluggy.PluginManager) -> dict[str, PluginRecord]:
    """Records of every plugin the manager knows, loaded or broken, by namespace."""
    records = dict(getattr(pm, "grpo_records", {}))
    for name, plugin in pm.list_name_plugin():
        if name not in records and plugin is not None:
            records[name] = PluginRecord(name=name, module=getattr(plugin, "__name__", None))
    return records
