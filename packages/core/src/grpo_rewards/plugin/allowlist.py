"""``GRPO_REWARDS_PLUGINS``: what the allow-list says, what was understood, and what it filters out.

The syntax is a comma-separated list of plugin names (spaces around names allowed); set but
empty loads no plugin. Anything that does not name an installed plugin gets a warning that says
what was understood, because a misspelled filter otherwise looks like "nothing is installed".

>>> read_allow_list("math, format", ["format", "length", "math"]).allowed == {"math", "format"}
True
>>> read_allow_list("MATH,FORMAT", ["format", "math"]).warning()
"GRPO_REWARDS_PLUGINS='MATH,FORMAT': 'MATH' names no installed plugin (names are case-sensitive: 'math'?); 'FORMAT' names no installed plugin (names are case-sensitive: 'format'?); understood as: load no plugin"
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import metadata

from ..errors import capped, quote
from . import PROJECT_NAME

ALLOW_ENV = "GRPO_REWARDS_PLUGINS"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")


@dataclass
class AllowList:
    """The allow-list as read: ``allowed`` (``None`` when unset) and the problems with it."""

    value: str | None
    allowed: set[str] | None
    installed: list[str]
    problems: list[str] = field(default_factory=list)

    def warning(self) -> str | None:
        """One line naming every problem and what was understood, or ``None`` when all is well."""
        if not self.problems or self.allowed is None:
            return None
        kept = sorted(self.allowed & set(self.installed))
        understood = "load no plugin"
        if kept:
            understood = f"load only {capped(kept)}"
        return (f"{ALLOW_ENV}={quote(self.value)}: " + capped(self.problems, 5, "; ")
                + f"; understood as: {understood}")

    def filtered_out(self, namespace: str) -> str | None:
        """Why plugin ``namespace`` is not loaded, when it is installed and the allow-list leaves it out."""
        if self.allowed is None or namespace not in self.installed or namespace in self.allowed:
            return None
        return f"plugin {namespace!r} is installed but filtered out by {ALLOW_ENV}={quote(self.value)}"


def installed_plugin_names() -> list[str]:
    """Entry-point names of every installed plugin, whether or not the allow-list admits it."""
    return sorted({ep.name for ep in metadata.entry_points(group=PROJECT_NAME)})


def read_allow_list(value: str | None = None, installed: Iterable[str] | None = None) -> AllowList:
    """Read ``value`` (default: the environment variable) against the ``installed`` plugin names."""
    if value is None:
        value = os.environ.get(ALLOW_ENV)
    names = sorted(installed) if installed is not None else installed_plugin_names()
    if value is None:
        return AllowList(None, None, names)
    parts = [p.strip() for p in value.split(",") if p.strip()]
    allow = AllowList(value, set(parts), names)
    for part in parts:
        if part in names:
            continue
        if part == "*" or "*" in part:
            allow.problems.append(f"{part!r} is not a wildcard (unset {ALLOW_ENV} to load every plugin)")
        elif not _NAME.fullmatch(part):
            allow.problems.append(f"{part!r} is not a plugin name (separate names with commas)")
        else:
            close = [n for n in names if n.lower() == part.lower()]
            hint = f" (names are case-sensitive: {close[0]!r}?)" if close else (
                f" (installed: {capped(names)})" if names else " (none is installed)")
            allow.problems.append(f"{part!r} names no installed plugin{hint}")
    return allow


def allow_list_warning() -> str | None:
    """The warning for the current ``GRPO_REWARDS_PLUGINS``, or ``None`` (unset: nothing is read)."""
    if os.environ.get(ALLOW_ENV) is None:
        return None
    return read_allow_list().warning()
