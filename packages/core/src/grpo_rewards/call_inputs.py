"""The checks of one reward call's inputs, for :class:`~grpo_rewards.reward.Reward`: every column holds one value
per completion, the columns the reward needs are there, and a column named like the scorer's own argument is left
out. Each problem is the :class:`~grpo_rewards.errors.RewardError` that names it (or, for the argument names, one
warning per reward and column).

>>> misaligned("math.accuracy", "column 'solution'", ["4"], 2)
Traceback (most recent call last):
...
grpo_rewards.errors.RewardError: reward 'math.accuracy': column 'solution' holds 1 value for 2 completions: one value \
per completion is expected, as TRL passes them

``reward`` is the :class:`~grpo_rewards.reward.Reward` being called (typed ``Any``: this module is imported by
``reward.py``, and the import graph has no cycle, type-only imports included).
"""

from __future__ import annotations

import warnings
from collections.abc import Container, Sequence
from typing import Any, NoReturn

from .errors import RewardError, missing_columns, quote

__all__ = ["SEQUENCES", "misaligned", "missing_columns_of", "per_sample_columns", "without_argument_names"]

#: what a per-sample column is once protocol.batch_columns has read the call
SEQUENCES = (list, tuple)


def misaligned(reward: str, what: str, value: Any, n: int) -> NoReturn:
    """Raise the :class:`RewardError` for ``what`` (prompts, completion_ids, a column) given as something other
    than one value per completion: another number of values, or not a list."""
    if isinstance(value, SEQUENCES) or (hasattr(value, "__len__") and not isinstance(value, (str, bytes, dict))):
        given = f"{len(value)} value{'' if len(value) == 1 else 's'}"
    else:
        given = f"a {type(value).__name__}, {quote(value)},"
    raise RewardError(reward, f"{what} holds {given} for {n} completions: one value per completion is expected, "
                              "as TRL passes them")


def per_sample_columns(reward: str, kwargs: dict[str, Any], skip: Container[str], n: int) -> dict[str, Sequence[Any]]:
    """The per-sample dataset columns of a call's ``kwargs`` (its lists and tuples, less those named in ``skip``), in
    ``kwargs`` order; the :func:`misaligned` error for one that does not hold one value per completion (TRL passes
    every dataset column that way)."""
    columns: dict[str, Sequence[Any]] = {}
    for key, column in kwargs.items():
        if key not in skip and isinstance(column, SEQUENCES):
            if len(column) != n:
                misaligned(reward, f"column {key!r}", column, n)
            columns[key] = column
    return columns


def missing_columns_of(reward: Any, columns: dict[str, Sequence[Any]], kwargs: dict[str, Any], n: int) -> NoReturn:
    """Raise the :class:`RewardError` naming the columns ``reward`` needs and the batch lacks (or holds as
    something other than one value per completion)."""
    have = sorted(columns)
    missing = [c for c in reward.columns if c not in have]
    for name in missing:
        if name in kwargs and name not in reward.not_columns:
            misaligned(reward.__name__, f"column {name!r}", kwargs[name], n)
    raise RewardError(reward.__name__, missing_columns(missing, have, "the batch", reward.column_params,
                                                       reward.registered))


def without_argument_names(reward: Any, kwargs: dict[str, Any]) -> dict[str, Any]:
    """``kwargs`` less the columns named like the scorer's own arguments (warned about once per reward, at the line
    that called the reward: ``reward(...)`` or ``reward.score(...)``, four frames up)."""
    if reward.argument_names.isdisjoint(kwargs):
        return kwargs
    clash = sorted(set(kwargs) & reward.argument_names)
    new = [c for c in clash if c not in reward._warned_columns]
    if new:
        reward._warned_columns.update(new)
        warnings.warn(f"reward {reward.__name__!r}: dataset column(s) {', '.join(map(repr, new))} have the name of "
                      "the scorer's own argument and are not passed to it (rename the column to use it)",
                      UserWarning, stacklevel=5)
    return {k: v for k, v in kwargs.items() if k not in reward.argument_names}
