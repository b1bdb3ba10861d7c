"""The ``grpo-rewards`` command: list, show, score, check, train, plot, new-plugin."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from .protocol import GrpoRewardsError

#: Subcommands with their own argument parsers, delegated to as ``module:function(argv) -> int``.
DELEGATED = {
    "train": ("grpo_rewards.train.command", "train_command"),
    "plot": ("grpo_rewards.train.command", "plot_command"),
    "check": ("grpo_rewards.contract.command", "check_command"),
    "new-plugin": ("grpo_rewards.scaffold", "new_plugin_command"),
}


def _registry() -> Any:
    from .registry import load_registry

    return load_registry()


def cmd_list(args: argparse.Namespace) -> int:
    registry = _registry()
    records = registry.records
    if args.json:
        out = {"plugins": [], "broken": []}
        for name, record in sorted(records.items()):
            entry = {
                "name": name,
                "distribution": record.distribution,
                "version": record.version,
                "module": record.module,
                "hooks": record.hooks,
            }
            if not record.ok:
                out["broken"].append({**entry, "error": record.error})
                continue
            entry["rewards"] = [
                {"name": i.name, "description": i.summary, "form": i.form, "units": i.units,
                 "columns": list(i.columns), "params": {p.name: repr(p.default) for p in i.params.values()}}
                for i in registry.rewards.values() if i.plugin == name
            ]
            entry["tasks"] = [{"name": t.name, "description": t.description}
                              for t in registry.tasks.values() if t.plugin == name]
            out["plugins"].append(entry)
        out["conflicts"] = registry.conflicts
        print(json.dumps(out, indent=2))
        return 0
    if not records:
        print("No grpo-rewards plugins installed. Try: pip install grpo-rewards-math")
        return 0
    for name, record in sorted(records.items()):
        origin = f"{record.distribution} {record.version}" if record.distribution else (record.module or "")
        if not record.ok:
            print(f"{name} ({origin}) — BROKEN: {record.error}")
            continue
        empty = name in registry.empty_plugins()
        print(f"{name} ({origin})" + (" — registers nothing (is @grpo_rewards.hookimpl missing?)" if empty else ""))
        for info in sorted(registry.rewards.values(), key=lambda i: i.name):
            if info.plugin == name:
                print(f"  {info.name:<28} {info.summary}")
        for task in sorted(registry.tasks.values(), key=lambda t: t.name):
            if task.plugin == name:
                print(f"  {task.name:<28} (task) {task.description.splitlines()[0] if task.description else ''}")
    for message in registry.conflicts.values():
        print(f"CONFLICT: {message}")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    registry = _registry()
    if ":" in args.name and args.name not in registry.rewards:
        task = registry.task(args.name)
        print(f"{task.name}  (task, from {task.plugin} {task.distribution or ''} {task.version or ''})".rstrip())
        print(f"\n{task.description}\n\ncolumns: {', '.join(task.columns) or '-'}")
        if task.default_rewards:
            print("default rewards: " + ", ".join(r.get("use", "?") for r in task.default_rewards))
        return 0
    info = registry.reward(args.name)
    import inspect

    print(f"{info.name}  (from plugin {info.plugin}"
          + (f", {info.distribution} {info.version}" if info.distribution else "") + ")")
    doc = inspect.getdoc(info.obj) or info.description
    print()
    print(doc)
    print()
    print(f"form:      {info.form} ({'per-sample scorer' if info.form == 'sample' else 'batch function'})")
    print(f"units:     {info.units}")
    rng = f"[{info.output_range[0]}, {info.output_range[1]}]" if info.output_range else "unspecified"
    print(f"range:     {rng}")
    print(f"columns:   {', '.join(info.columns) or '-'}")
    print(f"workers:   {'yes' if info.worker_safe else 'no'}"
          + (f" (deadline {info.timeout:g} s per sample)" if info.timeout else ""))
    print("parameters:")
    if not info.params:
        print("  (none)")
    for p in info.params.values():
        default = "required" if p.required else f"default {p.default!r}"
        print(f"  {p.name}: {p.type_name} ({default})")
    if info.example:
        print(f"example:   {info.example}")
    return 0


def cmd_score(args: argparse.Namespace) -> int:
    from .scoring import score_file

    return score_file(args.file, args.rewards, out=args.out, progress=not args.no_progress,
                      batch_size=args.batch_size, tokenizer=args.tokenizer)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="grpo-rewards",
        description="Reward functions for GRPO training with TRL, discovered as plugins.",
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    sub = parser.add_subparsers(dest="command")
    p = sub.add_parser("list", help="installed plugins, their rewards and tasks, and broken plugins")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_list)
    p = sub.add_parser("show", help="one reward (or task): description, parameters, columns, range, units")
    p.add_argument("name")
    p.set_defaults(func=cmd_show)
    p = sub.add_parser("score", help="score a JSONL file of completions with a reward set")
    p.add_argument("file", help="JSONL: one object per line with 'completion' (and 'prompt', dataset columns)")
    p.add_argument("--rewards", required=True, help="reward set YAML (a file with a 'rewards:' list)")
    p.add_argument("--out", help="write each row with its scores to this JSONL file")
    p.add_argument("--batch-size", type=_positive_int, default=256,
                   help="rows per reward call (default 256); a prompt's rows always share one call")
    p.add_argument("--tokenizer", metavar="NAME_OR_PATH",
                   help="make completion_ids for rows without them, as GRPOTrainer passes them (needs [train])")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_score)
    for name, help_text in (
        ("check", "run the reward contract checks against one reward"),
        ("train", "train with GRPOTrainer and the installed rewards (see: grpo-rewards train --help)"),
        ("plot", "redraw the reward curves of a run directory"),
        ("new-plugin", "write a complete reward plugin package"),
    ):
        sub.add_parser(name, help=help_text, add_help=False)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] in DELEGATED:
            import importlib

            module_name, func_name = DELEGATED[argv[0]]
            return int(getattr(importlib.import_module(module_name), func_name)(argv[1:]) or 0)
        parser = build_parser()
        args = parser.parse_args(argv)
        if args.version:
            from . import __version__

            print(f"grpo-rewards {__version__}")
            return 0
        if not getattr(args, "func", None):
            parser.print_help()
            return 2
        return int(args.func(args) or 0)
    except GrpoRewardsError as exc:
        print(f"grpo-rewards: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("grpo-rewards: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
