"""``grpo-rewards check NAME``: the contract run on one installed reward, point by point."""

from __future__ import annotations

import argparse
from typing import Any

from .runner import run_contract


def key_values(pairs: list[str], what: str) -> dict[str, Any]:
    """``["k=3", "s=[a, b]"]`` as ``{"k": 3, "s": ["a", "b"]}``: each value read as YAML (text if it is not)."""
    import yaml

    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise SystemExit(f"grpo-rewards check: {what} expects key=value, got {pair!r}")
        try:
            out[key] = yaml.safe_load(raw)
        except yaml.YAMLError:
            out[key] = raw
    return out


def check_command(argv: list[str]) -> int:
    """``grpo-rewards check NAME [--with key=value ...] [--column key=value ...] [--deadline S]``.

    Prints each point the run checked as ``ok`` or ``FAIL`` (with its problems), then warnings;
    returns 1 when a point fails, else 0.
    """
    parser = argparse.ArgumentParser(
        prog="grpo-rewards check", description="Run the reward contract checks against one installed reward.")
    parser.add_argument("name", help="a reward name, like math.accuracy")
    parser.add_argument("--with", dest="params", action="append", default=[], metavar="KEY=VALUE",
                        help="a reward parameter (value read as YAML: 3, true, [a, b])")
    parser.add_argument("--column", dest="columns", action="append", default=[], metavar="KEY=VALUE",
                        help="a sample value for a dataset column the reward reads (default: '4')")
    parser.add_argument("--deadline", type=float, default=10.0, help="seconds allowed per call (default 10)")
    args = parser.parse_args(argv)
    result = run_contract(args.name, params=key_values(args.params, "--with"),
                          columns=key_values(args.columns, "--column"), deadline=args.deadline)
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
