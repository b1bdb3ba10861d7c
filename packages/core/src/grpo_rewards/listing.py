"""``grpo-rewards list`` and ``grpo-rewards show``: what is installed, and one reward in full.

Both tell the truth about the allow-list (``GRPO_REWARDS_PLUGINS``), broken plugins and name
clashes, and describe parameters with their JSON-able defaults, types and allowed values.
"""

from __future__ import annotations

import inspect
import json
import types
import typing
from typing import Any

from .allowlist import read_allow_list

_EMPTY = inspect.Parameter.empty


def type_text(annotation: Any) -> str:
    """A parameter's type as users write it in YAML.

    >>> from typing import Literal, Optional
    >>> type_text(float), type_text(Optional[int]), type_text(Literal["a", "b"]), type_text(None)
    ('float', 'int | None', "one of 'a', 'b'", 'any')
    """
    if annotation is None or annotation is _EMPTY or annotation is typing.Any:
        return "any"
    if annotation is type(None):
        return "None"
    if isinstance(annotation, str):
        return annotation
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Literal:
        return "one of " + ", ".join(repr(a) for a in args)
    if origin in (typing.Union, types.UnionType):
        return " | ".join(type_text(a) for a in args)
    if isinstance(annotation, type) and not args:
        return annotation.__name__
    return str(annotation).replace("typing.", "")


def choices(annotation: Any) -> list[Any] | None:
    """The allowed values of a ``Literal`` parameter (also inside ``Optional``), else ``None``."""
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        return list(typing.get_args(annotation))
    if origin in (typing.Union, types.UnionType):
        found = [c for a in typing.get_args(annotation) for c in (choices(a) or [])]
        return found or None
    return None


def json_value(value: Any) -> Any:
    """``value`` as JSON has it (tuples become lists); anything JSON cannot hold as its repr."""
    try:
        return json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError):
        return repr(value)


def param_json(param: Any) -> dict[str, Any]:
    """``{"type": ..., "required": ..., "default": ... or null, "choices": [...]}`` for one parameter."""
    out: dict[str, Any] = {"type": type_text(param.annotation), "required": bool(param.required),
                           "default": None if param.required else json_value(param.default)}
    allowed = choices(param.annotation)
    if allowed is not None:
        out["choices"] = [json_value(c) for c in allowed]
    return out


def reward_columns(info: Any) -> list[str]:
    """The dataset columns a reward reads with its default parameters (``*_column`` ones included)."""
    from .rewardset import required_columns

    return list(required_columns(info, {}))


def reward_json(info: Any) -> dict[str, Any]:
    return {"name": info.name, "description": info.summary, "form": info.form, "units": info.units,
            "columns": reward_columns(info),
            "output_range": list(info.output_range) if info.output_range else None,
            "params": {p.name: param_json(p) for p in info.params.values()}}


def _conflicts(registry: Any) -> dict[str, list[Any]]:
    """namespace -> the records of every distribution that claims it."""
    clashes: dict[str, list[Any]] = {}
    for record in registry.records.values():
        if record.conflict:
            clashes.setdefault(record.name, []).append(record)
    return clashes


def _origin(record: Any) -> str:
    return f"{record.distribution} {record.version}" if record.distribution else (record.module or "")


def list_json(registry: Any, allow: Any, extra: list[Any]) -> dict[str, Any]:
    clashes = _conflicts(registry)
    out: dict[str, Any] = {"plugins": [], "broken": [], "conflicts": [], "filtered_out": [], "local": []}
    for name, record in sorted(registry.records.items()):
        if record.name in clashes:
            continue
        entry: dict[str, Any] = {"name": name, "distribution": record.distribution, "version": record.version,
                                 "module": record.module, "hooks": record.hooks}
        if not record.ok:
            out["broken"].append({**entry, "error": record.error})
            continue
        entry["rewards"] = [reward_json(i) for i in registry.rewards.values() if i.plugin == name]
        entry["tasks"] = [{"name": t.name, "description": t.description}
                          for t in registry.tasks.values() if t.plugin == name]
        out["plugins"].append(entry)
    for namespace, records in sorted(clashes.items()):
        out["conflicts"].append({"name": namespace, "message": records[0].conflict, "claimants": [
            {"distribution": r.distribution, "version": r.version, "module": r.module} for r in records]})
    out["filtered_out"] = [n for n in allow.installed if allow.filtered_out(n)]
    out["local"] = [reward_json(i) for i in extra]
    if allow.warning():
        out["warning"] = allow.warning()
    return out


def cmd_list(args: Any) -> int:
    from .registry import load_registry

    registry = load_registry()
    allow = registry.plugins.allow or read_allow_list()  # read once, by discovery (unless a test built it)
    extra = _local_rewards(args.rewards, registry) if getattr(args, "rewards", None) else []
    if args.json:
        print(json.dumps(list_json(registry, allow, extra), indent=2))
        return 0
    filtered = [n for n in allow.installed if allow.filtered_out(n)]
    if not registry.records and not extra:
        if filtered:
            print(f"No plugin loaded: GRPO_REWARDS_PLUGINS={allow.value!r} filters out every installed plugin "
                  f"({', '.join(filtered)}).")
        else:
            print("No grpo-rewards plugins installed. Try: pip install grpo-rewards-math")
        return 0
    clashes = _conflicts(registry)
    for name, record in sorted(registry.records.items()):
        if record.name in clashes:
            continue
        if not record.ok:
            print(f"{name} ({_origin(record)}) — BROKEN: {record.error}")
            continue
        empty = name in registry.empty_plugins()
        print(f"{name} ({_origin(record)})" + (" — registers nothing (is @grpo_rewards.hookimpl missing?)" if empty else ""))
        for info in sorted(registry.rewards.values(), key=lambda i: i.name):
            if info.plugin == name:
                print(f"  {info.name:<28} {info.summary}")
        for task in sorted(registry.tasks.values(), key=lambda t: t.name):
            if task.plugin == name:
                print(f"  {task.name:<28} (task) {task.description.splitlines()[0] if task.description else ''}")
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
        print(f"filtered out by GRPO_REWARDS_PLUGINS={allow.value!r}: {', '.join(filtered)}")
    return 0


def _local_rewards(path: str, registry: Any) -> list[Any]:
    """The file and module rewards (``use: path.py:fn``, ``use: package.module:fn``) a reward set names."""
    from .local import local_rewards_of

    return local_rewards_of(path, registry)


def cmd_show(args: Any) -> int:
    from .registry import load_registry

    registry = load_registry()
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
    print(inspect.getdoc(info.obj) or info.description)
    print()
    print(f"form:      {info.form} ({'per-sample scorer' if info.form == 'sample' else 'batch function'})")
    print(f"units:     {info.units}")
    rng = f"[{info.output_range[0]}, {info.output_range[1]}]" if info.output_range else "unspecified"
    print(f"range:     {rng}")
    print(f"columns:   {', '.join(reward_columns(info)) or '-'}")
    per = "per sample" if info.form == "sample" else "for the whole call"
    print(f"workers:   {'yes' if info.worker_safe else 'no'}"
          + (f" (deadline {info.timeout:g} s {per})" if info.timeout else ""))
    changed = info.options.changed()
    print("options:   " + (", ".join(f"{k}={v}" for k, v in changed.items()) or "defaults"))
    print("parameters:")
    if not info.params:
        print("  (none)")
    for p in info.params.values():
        default = "required" if p.required else f"default {json.dumps(json_value(p.default))}"
        print(f"  {p.name}: {type_text(p.annotation)} ({default})")
    if info.example:
        print(f"example:   {info.example}")
    from .scorer_hooks import runtime_note

    note = runtime_note(info.obj)
    if note:
        print(f"runs in:   {note}")
    return 0
