"""``grpo-rewards new-plugin NAME``: write a complete reward plugin package (see :mod:`grpo_rewards.scaffold`)."""

from __future__ import annotations

import argparse
import sys

from ..scaffold import plugin_names, write_plugin
from .command import Command, new_parser


def parser() -> argparse.ArgumentParser:
    p = new_parser("new-plugin", "Write a complete reward plugin package: pyproject with the entry point, the "
                                 "reward module, tests using the plugin-author kit, a README.")
    p.add_argument("name", help="the plugin's namespace, like 'shout' (package grpo-rewards-shout)")
    p.add_argument("--dir", default=".", help="folder to create the package in (default: here)")
    p.add_argument("--batch", action="store_true",
                   help="also write a batch-form reward with a parameter and a required column")
    p.add_argument("--environment", action="store_true",
                   help="also write an environment for TRL's tool loop that owns its reward")
    return p


def run(args: argparse.Namespace) -> int:
    """Writes the package and says what to do next; 2 when the name is refused or the folder is taken."""
    try:
        root = write_plugin(args.name, args.dir, batch=args.batch, environment=args.environment)
    except (ValueError, FileExistsError) as exc:
        print(f"grpo-rewards new-plugin: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # the folder cannot be written: permission, a full disk, a name the file system refuses
        print(f"grpo-rewards new-plugin: error: cannot write the package in {args.dir}: "
              f"{exc.strerror or exc}", file=sys.stderr)
        return 2
    names = plugin_names(args.name)
    print(f"Wrote {root}/")
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        print(f"  {path.relative_to(root)}")
    rewards = [f"{names['namespace']}.mentions"] + ([f"{names['namespace']}.unique_mentions"] if args.batch else [])
    environments = f" and the environment {names['namespace']}.counter" if args.environment else ""
    print(f"\nIt registers {', '.join(rewards)}{environments}. Next, with your virtual environment active "
          f"(source .venv/bin/activate):\n  cd {root}\n  pip install -e '.[test]'\n  pytest\n"
          f"  grpo-rewards check {rewards[0]}")
    return 0


COMMANDS = (Command("new-plugin", parser, run),)
