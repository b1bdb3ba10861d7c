"""``grpo-rewards check NAME``: the reward contract run on one installed reward, point by point;
with ``--hacks``, the reward's hack corpus instead (see :mod:`grpo_rewards.hacks`)."""

from __future__ import annotations

import argparse

from ..contract import run_contract
from ..hacks import print_report, run_hacks
from .command import Command, key_values, new_parser

#: Seconds allowed per call: a contract case, a hack entry.
CONTRACT_DEADLINE = 10.0
HACKS_DEADLINE = 30.0


def parser() -> argparse.ArgumentParser:
    p = new_parser("check", "Run the reward contract checks against one installed reward; with --hacks, run its "
                            "hack corpus (degenerate completions and the most the reward may pay each).")
    p.add_argument("name", help="a reward name, like math.accuracy")
    p.add_argument("--hacks", action="store_true", help="run the reward's hack corpus instead of the contract")
    p.add_argument("--with", dest="params", action="append", default=[], metavar="KEY=VALUE",
                   help="a reward parameter (value read as YAML: 3, true, [a, b]); with --hacks it overrides the "
                        "entries' own")
    p.add_argument("--column", dest="columns", action="append", default=[], metavar="KEY=VALUE",
                   help="a sample value for a dataset column the reward reads (default: '4'; not with --hacks)")
    p.add_argument("--deadline", type=float, default=None,
                   help=f"seconds allowed per call (default {CONTRACT_DEADLINE:g}; with --hacks {HACKS_DEADLINE:g})")
    return p


def run(args: argparse.Namespace) -> int:
    """Prints each point the run checked as ``ok`` or ``FAIL`` (with its problems), then warnings;
    1 when a point fails (with ``--hacks``: when an entry is overpaid), else 0."""
    if args.deadline is not None and not args.deadline > 0:
        parser().error("--deadline must be a positive number of seconds")
    params = key_values(args.params, "--with")
    if args.hacks:
        if args.columns:
            parser().error("--column is for the contract checks; a hack entry brings its own columns")
        return print_report(run_hacks(args.name, params=params, deadline=args.deadline or HACKS_DEADLINE))
    result = run_contract(args.name, params=params, columns=key_values(args.columns, "--column"),
                          deadline=args.deadline or CONTRACT_DEADLINE)
    print(f"{result.name}: {len(result.points)} contract points")
    for point in result.points:
        failed = result.failed(point)
        print(f"  {'ok  ' if not failed else 'FAIL'}  {point}")
        for problem in failed:
            print(f"          {problem.text}")
    for warning in result.warnings:
        print(f"warning: {warning}")
    if result.problems:
        print(f"{len(result.problems)} problem(s)")
        return 1
    print("all contract points pass")
    return 0


COMMANDS = (Command("check", "run the reward contract checks (with --hacks: its hack corpus) against one reward",
                    parser, run),)
