"""``grpo-rewards list`` and ``grpo-rewards show``: what is installed, and one reward in full.

Both tell the truth about the allow-list (``GRPO_REWARDS_PLUGINS``), broken plugins and name
clashes, and describe parameters with their JSON-able defaults, types and allowed values.
"""

from __future__ import annotations

import argparse
import json
import textwrap
from typing import Any

from ..environment import EnvironmentInfo, describe_params
from ..errors import GrpoRewardsError, quote
from ..local import local_rewards_of
from ..plugin.allowlist import AllowList, read_allow_list
from ..records import Param, RewardInfo, required_columns
from ..registry import Registry, load_registry
from ..signatures import choices, type_text
from .command import Command, new_parser

#: How many task names ``list`` shows per plugin (``list --tasks`` shows all).
TASKS_SHOWN = 5


def json_value(value: Any) -> Any:
    """``value`` as JSON has it (tuples become lists); anything JSON cannot hold as its repr."""
    try:
        return json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError):
        return repr(value)


def param_json(param: Param) -> dict[str, Any]:
    """``{"type": ..., "required": ..., "default": ... or null, "choices": [...]}`` for one parameter."""
    out: dict[str, Any] = {"type": type_text(param.annotation), "required": bool(param.required),
                           "default": None if param.required else json_value(param.default)}
    allowed = choices(param.annotation)
    if allowed is not None:
        out["choices"] = [json_value(c) for c in allowed]
    return out


def reward_columns(info: RewardInfo) -> list[str]:
    """The dataset columns a reward reads with its default parameters (``*_column`` ones included)."""
    return list(required_columns(info, {}, unloaded=True))


def reward_json(info: RewardInfo) -> dict[str, Any]:
    return {"name": info.name, "description": info.summary, "form": info.form, "units": info.units,
            "columns": reward_columns(info),
            "output_range": list(info.output_range) if info.output_range else None,
            "params": {p.name: param_json(p) for p in info.signature_unloaded()[0].values()}}


def environment_json(info: EnvironmentInfo, *, tools: bool = True) -> dict[str, Any]:
    """An environment as ``list --json`` and ``show --json`` carry it; ``tools``: each tool's JSON schema
    (which imports the environment's class and transformers' schema reader)."""
    out: dict[str, Any] = {"name": info.name, "description": info.summary, "owns_reward": info.owns_reward,
                           "params": {p.name: param_json(p) for p in info.params_unloaded().values()}}
    if tools:
        try:
            out["tools"] = info.tool_schemas()
        except GrpoRewardsError as exc:
            out["tools"], out["error"] = [], str(exc)
    return out


def _conflicts(registry: Registry) -> dict[str, list[Any]]:
    """namespace -> the records of every distribution that claims it."""
    clashes: dict[str, list[Any]] = {}
    for record in registry.records.values():
        if record.conflict:
            clashes.setdefault(record.name, []).append(record)
    return clashes


def _origin(record: Any) -> str:
    return f"{record.distribution} {record.version}" if record.distribution else (record.module or "")


def _by_plugin(items: Any, *, by_name: bool = False) -> dict[str | None, list[Any]]:
    """Registered rewards or tasks grouped by plugin in registration order (sorted ``by_name``): one pass."""
    groups: dict[str | None, list[Any]] = {}
    for item in items:
        groups.setdefault(item.plugin, []).append(item)
    if by_name:
        for group in groups.values():
            group.sort(key=lambda i: i.name)
    return groups


def list_json(registry: Registry, allow: AllowList, extra: list[RewardInfo]) -> dict[str, Any]:
    clashes = _conflicts(registry)
    rewards, tasks = _by_plugin(registry.rewards.values()), _by_plugin(registry.tasks.values())
    environments = _by_plugin(registry.environments.values())
    out: dict[str, Any] = {"plugins": [], "broken": [], "conflicts": [], "filtered_out": [], "local": []}
    for name, record in sorted(registry.records.items()):
        if record.name in clashes:
            continue
        entry: dict[str, Any] = {"name": name, "distribution": record.distribution, "version": record.version,
                                 "module": record.module, "hooks": record.hooks}
        if not record.ok:
            out["broken"].append({**entry, "error": record.error})
            continue
        entry["rewards"] = [reward_json(i) for i in rewards.get(name, [])]
        entry["tasks"] = [{"name": t.name, "description": t.description, "environment": t.environment}
                          for t in tasks.get(name, [])]
        entry["environments"] = [environment_json(e) for e in environments.get(name, [])]
        out["plugins"].append(entry)
    for namespace, records in sorted(clashes.items()):
        out["conflicts"].append({"name": namespace, "message": records[0].conflict, "claimants": [
            {"distribution": r.distribution, "version": r.version, "module": r.module} for r in records]})
    out["filtered_out"] = [n for n in allow.installed if allow.filtered_out(n)]
    out["local"] = [reward_json(i) for i in extra]
    if allow.warning():
        out["warning"] = allow.warning()
    return out


def list_parser() -> argparse.ArgumentParser:
    p = new_parser("list", "The installed plugins with their rewards, environments and tasks, broken plugins and "
                           "name clashes.")
    p.add_argument("--json", action="store_true", help="machine-readable output (every task included)")
    p.add_argument("--tasks", action="store_true", help="every task of each plugin (default: a count and the first few)")
    p.add_argument("--rewards", metavar="SET.yaml",
                   help="also list the rewards this set names by file or module path (use: path.py:fn)")
    return p


def _task_lines(tasks: list[Any], every: bool) -> list[str]:
    if every:
        return [f"  {t.name:<28} (task) {t.description.splitlines()[0] if t.description else ''}" for t in tasks]
    if not tasks:
        return []
    names = ", ".join(t.name for t in tasks[:TASKS_SHOWN])
    more = f", ... ({len(tasks) - TASKS_SHOWN} more; grpo-rewards list --tasks shows all)" if len(tasks) > TASKS_SHOWN else ""
    return [f"  {len(tasks)} task{'s' if len(tasks) != 1 else ''}: {names}{more}"]


def run_list(args: argparse.Namespace) -> int:
    registry = load_registry()
    allow = registry.plugins.allow or read_allow_list()  # read once, by discovery (unless a test built it)
    extra = local_rewards_of(args.rewards, registry) if getattr(args, "rewards", None) else []
    if args.json:
        print(json.dumps(list_json(registry, allow, extra)))  # one line: the C encoder (100,000 rewards in a second)
        return 0
    filtered = [n for n in allow.installed if allow.filtered_out(n)]
    if not registry.records and not extra:
        if filtered:
            print(f"No plugin loaded: GRPO_REWARDS_PLUGINS={quote(allow.value)} filters out every installed plugin "
                  f"({', '.join(filtered)}).")
        else:
            print("No grpo-rewards plugins installed. Try: pip install grpo-rewards-math")
        return 0
    clashes = _conflicts(registry)
    rewards = _by_plugin(registry.rewards.values(), by_name=True)
    tasks = _by_plugin(registry.tasks.values(), by_name=True)
    environments = _by_plugin(registry.environments.values(), by_name=True)
    empty = set(registry.empty_plugins())
    for name, record in sorted(registry.records.items()):
        if record.name in clashes:
            continue
        if not record.ok:
            print(f"{name} ({_origin(record)}) — BROKEN: {record.error}")
            continue
        print(f"{name} ({_origin(record)})" + (" — registers nothing (is @grpo_rewards.hookimpl missing?)"
                                               if name in empty else ""))
        for info in rewards.get(name, []):
            print(f"  {info.name:<28} {info.summary}")
        for env in environments.get(name, []):
            print(f"  {env.name:<28} (environment) {env.summary}")
        for line in _task_lines(tasks.get(name, []), args.tasks):
            print(line)
    for namespace, records in sorted(clashes.items()):
        print(f"{namespace} — CONFLICT: claimed by {len(records)} distributions; none of its rewards can be used "
              "until one is uninstalled")
        for record in records:
            print(f"  {_origin(record)} ({record.module})")
    if extra:
        print("local rewards (from the reward set)")
        for info in extra:
            print(f"  {info.name:<28} {info.summary}")
    if filtered:
        print(f"filtered out by GRPO_REWARDS_PLUGINS={quote(allow.value)}: {', '.join(filtered)}")
    return 0


def show_parser() -> argparse.ArgumentParser:
    p = new_parser("show", "One reward, environment (with each tool's JSON schema) or task (name:task): "
                           "description, parameters, columns, range, units.")
    p.add_argument("name")
    p.add_argument("--json", action="store_true", help="an environment as list --json carries it")
    return p


def show_environment(info: EnvironmentInfo, as_json: bool) -> int:
    """``show`` for an environment: what it is, its parameters, whether it owns a reward, each tool's schema."""
    if as_json:
        print(json.dumps(environment_json(info), indent=2))
        return 0
    print(f"{info.name}  (environment, from plugin {info.plugin}"
          + (f", {info.distribution} {info.version}" if info.distribution else "") + ")")
    print(f"\n{info.description}\n")
    print("reward:    " + (f"owns one (get_reward), logged as {info.name}" if info.owns_reward
                           else "none of its own (the run's rewards score its rollouts)"))
    if info.default_rewards:
        print("default rewards: " + ", ".join(r.get("use", "?") for r in info.default_rewards))
    print("parameters (environment.with):")
    print("\n".join(describe_params(info.params)) or "  (none)")
    print("tools (JSON schemas, as TRL puts them into the prompt):")
    for schema in info.tool_schemas():
        print(textwrap.indent(json.dumps(schema, indent=2), "  "))
    if info.example:
        print(f"example:   {info.example}")
    return 0


def run_show(args: argparse.Namespace) -> int:
    registry = load_registry()
    if args.name in registry.environments:
        return show_environment(registry.environments[args.name], args.json)
    if ":" in args.name and args.name not in registry.rewards:
        task = registry.task(args.name)
        print(f"{task.name}  (task, from {task.plugin} {task.distribution or ''} {task.version or ''})".rstrip())
        print(f"\n{task.description}\n\ncolumns: {', '.join(task.columns) or '-'}")
        if task.default_rewards:
            print("default rewards: " + ", ".join(r.get("use", "?") for r in task.default_rewards))
        print("parameters (dataset.params):" + ("  any, passed to the factory unchecked" if task.open_params else ""))
        if not task.params and not task.open_params:
            print("  (none)")
        for p in task.params.values():
            default = "required" if p.required else f"default {json.dumps(json_value(p.default))}"
            print(f"  {p.name}: {type_text(p.annotation)} ({default})")
        return 0
    info = registry.reward(args.name)
    print(f"{info.name}  (from plugin {info.plugin}"
          + (f", {info.distribution} {info.version}" if info.distribution else "") + ")")
    print()
    print(info.docstring() or info.description)
    print()
    print(f"form:      {info.form} ({'per-sample scorer' if info.form == 'sample' else 'batch function'})")
    print(f"units:     {info.units}")
    rng = f"[{info.output_range[0]}, {info.output_range[1]}]" if info.output_range else "unspecified"
    print(f"range:     {rng}")
    print(f"columns:   {', '.join(reward_columns(info)) or '-'}")
    per = "per sample" if info.form == "sample" else "for the whole call"
    timeout = info.options.timeout
    print(f"workers:   {'yes' if info.options.worker_safe else 'no'}"
          + (f" (deadline {timeout:g} s {per})" if timeout else ""))
    changed = info.options.changed()
    print("options:   " + (", ".join(f"{k}={v}" for k, v in changed.items()) or "defaults"))
    print("parameters:")
    if not info.signature_unloaded()[0]:
        print("  (none)")
    for p in info.signature_unloaded()[0].values():
        default = "required" if p.required else f"default {json.dumps(json_value(p.default))}"
        print(f"  {p.name}: {type_text(p.annotation)} ({default})")
    if info.example:
        print(f"example:   {info.example}")
    note = info.runtime_note()
    if note:
        print(f"runs in:   {note}")
    return 0


COMMANDS = (
    Command("list", list_parser, run_list),
    Command("show", show_parser, run_show),
)
