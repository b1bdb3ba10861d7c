"""The ``grpo-rewards`` command: one module per command, each with its parser next to its function.

=================  ==========================================
``list``, ``show``  :mod:`grpo_rewards.cli.listing`
``score``           :mod:`grpo_rewards.cli.score`
``check``           :mod:`grpo_rewards.cli.check` (``--hacks`` too)
``compare``         :mod:`grpo_rewards.cli.compare`
``new-plugin``      :mod:`grpo_rewards.cli.new_plugin`
``train``, ``plot`` :mod:`grpo_rewards.cli.train`
``model``           :mod:`grpo_rewards.cli.model`
=================  ==========================================

Each module's ``COMMANDS`` are :class:`~grpo_rewards.cli.command.Command` records. :data:`COMMANDS`
below names each command's module and one-line help (as pip's ``commands_dict`` does); :func:`main`
imports the module of the command named by the first argument, and only that one (so ``list``
loads neither training nor scoring code), and runs it, the same way for all.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
from collections.abc import Sequence

from ..errors import GrpoRewardsError
from ..plugin.allowlist import allow_list_warning
from .command import Command

#: Every command: the module under ``grpo_rewards.cli`` that defines it, and its one-line help, in the
#: order ``grpo-rewards --help`` lists them (tests/core/test_cli.py checks both against the modules).
COMMANDS: dict[str, tuple[str, str]] = {
    "list": ("listing", "installed plugins, their rewards, environments and tasks, and broken plugins"),
    "show": ("listing", "one reward, environment (with its tools' schemas) or task: description, parameters, "
                        "columns, range, units"),
    "score": ("score", "score a JSONL file of completions with a reward set"),
    "check": ("check", "run the reward contract checks (with --hacks: its hack corpus) against one reward"),
    "compare": ("compare", "score a JSONL file with two rewards (or a reward and a label column); where they "
                           "disagree"),
    "train": ("train", "train with GRPOTrainer and the installed rewards (see: grpo-rewards train --help)"),
    "plot": ("train", "redraw the reward curves of a run directory"),
    "new-plugin": ("new_plugin", "write a complete reward plugin package"),
    "model": ("model", "print the folder of the tiny or the embedded model, written first if needed"),
}


def command(name: str) -> Command:
    """The :class:`Command` called ``name``, from its module (imported now)."""
    module = importlib.import_module(f".{COMMANDS[name][0]}", __name__)
    return next(c for c in module.COMMANDS if c.name == name)


def top_parser() -> argparse.ArgumentParser:
    """``grpo-rewards [--version] COMMAND ...``: the commands and their one-line help."""
    width = max(map(len, COMMANDS))
    epilog = "commands:\n" + "\n".join(f"  {name:<{width}}  {help_text}" for name, (_, help_text) in COMMANDS.items())
    parser = argparse.ArgumentParser(
        prog="grpo-rewards", usage="grpo-rewards [-h] [--version] COMMAND ...",
        description="Reward functions for GRPO training with TRL, discovered as plugins. "
                    "grpo-rewards COMMAND --help describes a command.",
        epilog=epilog, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    parser.add_argument("command", nargs="?", choices=list(COMMANDS), metavar="COMMAND", help=argparse.SUPPRESS)
    return parser


def _stdout_closed() -> int:
    """What a Unix tool does when the reader of its output has gone (``grpo-rewards list | head``):
    stop quietly, with the status of a process that SIGPIPE ended. Later writes go to /dev/null, so
    the interpreter's last flush does not print a traceback either."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a real file (a test's capture): nothing to redirect
        pass
    finally:
        os.close(devnull)
    return 128 + int(signal.SIGPIPE)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; every command's output passes through here, so a closed stdout is handled once."""
    try:
        code = _main(argv)
        sys.stdout.flush()  # a buffered tail meets the closed pipe here, not at interpreter exit
        return code
    except BrokenPipeError:
        return _stdout_closed()


def _main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        warning = allow_list_warning()
        if warning:  # every command loads plugins: say what a doubtful GRPO_REWARDS_PLUGINS was read as
            print(f"grpo-rewards: warning: {warning}", file=sys.stderr)
        if argv and argv[0] in COMMANDS:
            return command(argv[0]).main(argv[1:])
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
