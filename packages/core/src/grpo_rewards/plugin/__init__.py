"""The plugin machinery: the project name, the hook markers, the hookspecs, the manager, the allow-list.

- this module: :data:`PROJECT_NAME` (pluggy's project name and the entry-point group) and the markers
  :data:`hookspec` and :data:`hookimpl` (a plugin writes ``@grpo_rewards.hookimpl``);
- :mod:`.spec`: the hooks a plugin can implement, each documented where it is declared;
- :mod:`.manager`: :class:`~.manager.Plugins`, pluggy's manager and one record per plugin;
- :mod:`.allowlist`: ``GRPO_REWARDS_PLUGINS``, read and explained.

What a plugin registers is described by the record types of :mod:`grpo_rewards.records`.

>>> PROJECT_NAME
'grpo_rewards'
"""

from __future__ import annotations

import pluggy

#: pluggy's project name, the entry-point group and the prefix of every hook marker.
PROJECT_NAME = "grpo_rewards"

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)

__all__ = ["PROJECT_NAME", "hookimpl", "hookspec"]
