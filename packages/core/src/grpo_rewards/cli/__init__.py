"""The ``grpo-rewards`` command: one module per command, each with its parser next to its function.

=================  ==========================================
``list``, ``show``  :mod:`grpo_rewards.cli.listing`
``score``           :mod:`grpo_rewards.cli.score`
``check``           :mod:`grpo_rewards.cli.check` (``--hacks`` too)
``compare``         :mod:`grpo_rewards.cli.compare`
``new-plugin``      :mod:`grpo_rewards.cli.new_plugin`
``train``, ``plot`` :mod:`grpo_rewards.cli.train`
=================  ==========================================

Each module's ``COMMANDS`` are :class:`~grpo_rewards.cli.command.Command` records; :func:`main`
finds the one named by the first argument and runs it, the same way for all.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from ..errors import GrpoRewardsError
from ..plugin.allowlist import allow_list_warning
from . import check, compare, listing, new_plugin, score, train
from .command import Command

#: Every command, in the order ``grpo-rewards --help`` lists them.
COMMANDS: dict[str, Command] = {
    c.name: c for module in (listing, score, check, compare, train, new_plugin) for c in module.COMMANDS
}


def top_parser() -> argparse.ArgumentParser:
    """``grpo-rewards [--version] COMMAND ...``: the commands and their one-line help."""
    width = max(map(len, COMMANDS))
    epilog = "commands:\n" + "\n".join(f"  {name:<{width}}  {c.help}" for name, c in COMMANDS.items())
    parser = argparse.ArgumentParser(
        prog="grpo-rewards", usage="grpo-rewards [-h] [--version] COMMAND ...",
        description="Reward functions for GRPO training with TRL, discovered as plugins. "
                    "grpo-rewards COMMAND --help describes a command.",
        epilog=epilog, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    parser.add_argument("command", nargs="?", choices=list(COMMANDS), metavar="COMMAND", help=argparse.SUPPRESS)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        warning = allow_list_warning()
        if warning:  # every command loads plugins: say what a doubtful GRPO_REWARDS_PLUGINS was read as
            print(f"grpo-rewards: warning: {warning}", file=sys.stderr)
        if argv and argv[0] in COMMANDS:
            return COMMANDS[argv[0]].main(argv[1:])
        parser = top_parser()
        args = parser.parse_args(argv)
        if args.version:
            from .. import __version__

            print(f"grpo-rewards {__version__}")
            return 0
        parser.print_help()
        return 2
    except GrpoRewardsError as exc:
        print(f"grpo-rewards: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("grpo-rewards: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader stopped early (grpo-rewards list | head): nothing is wrong
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        return 0
