"""What every ``grpo-rewards`` command is: a :class:`Command` (name, parser, function).

Each command module under :mod:`grpo_rewards.cli` defines its commands this way, its parser next
to its function, and :func:`grpo_rewards.cli.main` dispatches them all the same way.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigError, load_yaml


@dataclass(frozen=True)
class Command:
    """One subcommand: ``grpo-rewards NAME ...`` parses its arguments with ``parser()`` and calls ``run``."""

    name: str
    parser: Callable[[], argparse.ArgumentParser]
    run: Callable[[argparse.Namespace], int]
    #: positionals may come between options (``train run.yaml --max-steps 2 grpo.seed=3``)
    intermixed: bool = False

    def main(self, argv: Sequence[str]) -> int:
        parser = self.parser()
        args = parser.parse_intermixed_args(list(argv)) if self.intermixed else parser.parse_args(list(argv))
        return int(self.run(args) or 0)


class _StoreOnce(argparse._StoreAction):
    """argparse's ``store``, refusing an option given twice: argparse keeps the last value silently, so
    ``score rows.jsonl --rewards set.yaml --rewards math.accuracy`` scored the second alone."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        if option_string is not None:
            given: dict[str, Any] = namespace.__dict__.setdefault("_given_options", {})
            if self.dest in given:
                parser.error(f"argument {'/'.join(self.option_strings)}: given twice ({given[self.dest]!r}, then "
                             f"{values!r}); it takes one value")
            given[self.dest] = values
        super().__call__(parser, namespace, values, option_string)


def new_parser(command: str, description: str, **kwargs: Any) -> argparse.ArgumentParser:
    """The argument parser of ``grpo-rewards COMMAND``: an option that takes one value may be given once."""
    parser = argparse.ArgumentParser(prog=f"grpo-rewards {command}", description=description, **kwargs)
    for name in (None, "store"):
        parser.register("action", name, _StoreOnce)
    return parser


def positive_int(text: str) -> int:
    """An argparse type: a whole number >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def key_values(pairs: list[str], what: str) -> dict[str, Any]:
    """``["k=3", "s=[a, b]"]`` as ``{"k": 3, "s": ["a", "b"]}``: each value read as YAML (text if it is not)."""
    import yaml

    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise ConfigError(f"{what} expects key=value, got {pair!r}", "command line")
        try:
            out[key] = load_yaml(raw)
        except (yaml.YAMLError, ValueError, RecursionError):  # (an integer past Python's digit limit; nested too deeply)
            out[key] = raw
    return out
