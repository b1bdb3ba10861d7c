"""The registry: every reward and task that the loaded plugins registered, with its metadata."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar

from .environment import EnvironmentInfo
from .errors import (
    EnvironmentNotFoundError,
    PluginError,
    RewardNotFoundError,
    TaskNotFoundError,
    capped,
    did_you_mean,
)
from .plugin.manager import PluginRecord, Plugins, get_plugins
from .records import RewardInfo, TaskInfo
from .registration import EnvironmentRegister, RewardRegister, TaskRegister

#: First-party namespaces and the distribution that provides them (data, not imports).
FIRST_PARTY = {
    "length": "grpo-rewards-length",
    "format": "grpo-rewards-format",
    "math": "grpo-rewards-math",
    "gym": "grpo-rewards-gym",
    "judge": "grpo-rewards-judge",
    "code": "grpo-rewards-code",
    "tools": "grpo-rewards-tools",
    "instructions": "grpo-rewards-instructions",
    "text": "grpo-rewards-text",
}


class Registry:
    """Rewards and tasks from :class:`~grpo_rewards.plugin.manager.Plugins`; built with :func:`load_registry`."""

    def __init__(self, plugins: Plugins) -> None:
        self.plugins = plugins
        self.rewards: dict[str, RewardInfo] = {}
        self.tasks: dict[str, TaskInfo] = {}
        self.environments: dict[str, EnvironmentInfo] = {}
        self.records: dict[str, PluginRecord] = plugins.records
        #: namespace -> message, where two distributions claim the same plugin name
        self.conflicts: dict[str, str] = {r.name: r.conflict for r in self.records.values() if r.conflict}
        self._collect()

    # -- collection -------------------------------------------------------------------------
    def _collect(self) -> None:
        """Each plugin's rewards and tasks are staged and kept only when all its hooks return."""
        for plugin, record in list(self.records.items()):
            if not record.ok:
                continue
            rewards = RewardRegister(plugin, record.distribution, record.version)
            tasks = TaskRegister(plugin, record.distribution, record.version)
            environments = EnvironmentRegister(plugin, record.distribution, record.version)
            if not self.plugins.run_hooks(plugin, {"register_rewards": rewards, "register_tasks": tasks,
                                                   "register_environments": environments}):
                continue
            both = sorted(set(rewards.staged) & set(environments.staged))
            if both:
                record.error = (f"PluginError: plugin {plugin!r} registered {capped([repr(n) for n in both])} both as a reward and as an "
                                "environment; one name, one thing")
                continue
            self.rewards.update(rewards.staged)
            self.tasks.update(tasks.staged)
            self.environments.update(environments.staged)

    # -- lookup -----------------------------------------------------------------------------
    def broken(self) -> dict[str, PluginRecord]:
        return {name: r for name, r in self.records.items() if not r.ok}

    def empty_plugins(self) -> list[str]:
        """Plugins that loaded but registered no reward and no task (a missing ``@hookimpl``?)."""
        used = ({i.plugin for i in self.rewards.values()} | {t.plugin for t in self.tasks.values()}
                | {e.plugin for e in self.environments.values()})
        return sorted(name for name, r in self.records.items() if r.ok and name not in used)

    def _namespace_problem(self, namespace: str) -> str | None:
        record = self.records.get(namespace)
        if record is not None and not record.ok:
            return f"plugin {namespace!r} ({record.distribution or record.module}) failed to load: {record.error}"
        return None

    def _namespace_note(self, namespace: str) -> str | None:
        record = self.records.get(namespace)
        if record is not None and record.ok and namespace in self.empty_plugins():
            hooks = ", ".join(record.hooks) or "no hooks"
            return (f"plugin {namespace!r} ({record.distribution or record.module}) is installed but registered "
                    f"nothing (hooks found: {hooks}; is @grpo_rewards.hookimpl missing?)")
        return None

    def reward(self, name: str) -> RewardInfo:
        """The :class:`RewardInfo` for ``name``, or an error that says what to do instead."""
        self._check_namespace(name, ".")
        if name in self.rewards:
            return self.rewards[name]
        environment = self.environments.get(name)
        if environment is not None and environment.owns_reward:  # its get_reward, scored under its name
            from .env_reward import environment_reward_info

            info = self.rewards[name] = environment_reward_info(environment)
            return info
        if environment is not None:
            raise RewardNotFoundError(f"{name!r} is an environment without a reward of its own, not a reward: give it "
                                      f"as a training config's environment: {name} and score its rollouts with "
                                      "rewards (grpo-rewards show " + name + " lists its tools)")
        raise RewardNotFoundError(self._not_found(name, list(self.rewards), "reward", "."))

    def environment(self, name: str) -> EnvironmentInfo:
        """The :class:`~grpo_rewards.environment.EnvironmentInfo` for ``name``, or an error that says what to do."""
        self._check_namespace(name, ".")
        if name in self.environments:
            return self.environments[name]
        if name in self.rewards:
            raise EnvironmentNotFoundError(f"{name!r} is a reward, not an environment: list it under rewards:; an "
                                           "environment gives the model tools (grpo-rewards list shows them)")
        raise EnvironmentNotFoundError(self._not_found(name, list(self.environments), "environment", "."))

    def task(self, name: str) -> TaskInfo:
        """The :class:`TaskInfo` for ``name``, or an error that says what to do instead."""
        self._check_namespace(name, ":")
        if name in self.tasks:
            return self.tasks[name]
        raise TaskNotFoundError(self._not_found(name, list(self.tasks), "task", ":"))

    def _check_namespace(self, name: str, sep: str) -> None:
        """Refuse ``name`` when two plugins claim its namespace."""
        namespace = name.split(sep, 1)[0]
        if namespace in self.conflicts:
            raise PluginError(f"cannot use {name!r}: {self.conflicts[namespace]}")

    def _not_found(self, name: str, known: list[str], kind: str, sep: str) -> str:
        namespace = name.split(sep, 1)[0] if sep in name else name
        hint = did_you_mean(name, known, n=3, cutoff=0.75)
        message = f"unknown {kind} {name!r}{hint}."
        problem = self._namespace_problem(namespace)
        if problem:
            return f"{message} It would come from {problem}"
        note = self._namespace_note(namespace)
        if note:
            return f"{message} The {note}"
        allow = self.plugins.allow
        if namespace not in self.records and allow is not None:
            filtered = allow.filtered_out(namespace)
            if filtered:
                return f"{message} The {filtered} (add {namespace!r} to it, or unset it to load every plugin)"
        if namespace in FIRST_PARTY and namespace not in self.records:
            return message + f" It is provided by {FIRST_PARTY[namespace]}: pip install {FIRST_PARTY[namespace]}"
        elif namespace not in self.records and allow is not None and allow.allowed is not None:
            message += f" (plugins are restricted by GRPO_REWARDS_PLUGINS={','.join(sorted(allow.allowed))})"
        if not hint and known:
            message += f" Known {kind}s: " + capped(sorted(known))
        return message


#: The registry :func:`use_registry` put in place for the current context, if any.
_IN_USE: ContextVar[Registry | None] = ContextVar("grpo_rewards_registry", default=None)


def load_registry(plugins: Plugins | None = None) -> Registry:
    """Collect what ``plugins`` register; without ``plugins``, the registry in use (see
    :func:`use_registry`) or else a fresh discovery of the installed plugins."""
    if plugins is None:
        in_use = _IN_USE.get()
        if in_use is not None:
            return in_use
        plugins = get_plugins()
    return Registry(plugins)


@contextlib.contextmanager
def use_registry(registry: Registry) -> Iterator[Registry]:
    """Inside the block, ``load_registry()`` (so ``get_reward``, ``load_reward_set`` and the
    ``grpo-rewards`` commands) returns ``registry``. A context variable, not a module global: the
    previous registry (or discovery) is back after the block, and blocks nest."""
    token = _IN_USE.set(registry)
    try:
        yield registry
    finally:
        _IN_USE.reset(token)
