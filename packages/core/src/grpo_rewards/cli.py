"""The ``grpo-rewards`` command: list, show, score, check, compare, train, plot, new-plugin."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .protocol import GrpoRewardsError

#: Subcommands with their own argument parsers, delegated to as ``module:function(argv) -> int``.
DELEGATED = {
    "train": ("grpo_rewards.train.command", "train_command"),
    "plot": ("grpo_rewards.train.command", "plot_command"),
    "check": ("grpo_rewards.contract.command", "check_command"),
    "new-plugin": ("grpo_rewards.scaffold", "new_plugin_command"),
    "compare": ("grpo_rewards.compare", "compare_command"),
}
#: ``check NAME --hacks`` runs the reward's hack corpus instead of the contract.
HACKS = ("grpo_rewards.hacks", "hacks_command")


def cmd_list(args: argparse.Namespace) -> int:
    from .listing import cmd_list as run

    return run(args)


def cmd_show(args: argparse.Namespace) -> int:
    from .listing import cmd_show as run

    return run(args)


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
    p.add_argument("--rewards", metavar="SET.yaml",
                   help="also list the rewards this set names by file or module path (use: path.py:fn)")
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
        ("check", "run the reward contract checks (with --hacks: its hack corpus) against one reward"),
        ("train", "train with GRPOTrainer and the installed rewards (see: grpo-rewards train --help)"),
        ("plot", "redraw the reward curves of a run directory"),
        ("new-plugin", "write a complete reward plugin package"),
        ("compare", "score a JSONL file with two rewards (or a reward and a label column); where they disagree"),
    ):
        sub.add_parser(name, help=help_text, add_help=False)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        from .allowlist import allow_list_warning

        warning = allow_list_warning()
        if warning:  # every command loads plugins: say what a doubtful GRPO_REWARDS_PLUGINS was read as
            print(f"grpo-rewards: warning: {warning}", file=sys.stderr)
        if argv and argv[0] in DELEGATED:
            import importlib

            module_name, func_name = HACKS if argv[0] == "check" and "--hacks" in argv else DELEGATED[argv[0]]
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
