"""Shared pieces: measuring a completion in chars, words or tokens, and reading correctness."""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any, Literal

from grpo_rewards import params

Unit = Literal["chars", "words", "tokens"]
UNITS = ("chars", "words", "tokens")


def check_unit(unit: str) -> str:
    return params.choice(unit, "unit", UNITS)


def check_fallback(fallback_chars_per_token: float | None) -> float | None:
    return params.number(fallback_chars_per_token, "fallback_chars_per_token", positive=True, none_ok=True)


def check_length(name: str, value: int, *, minimum: int = 0) -> int:
    return params.integer(value, name, low=minimum)


def count_tokens(ids: Sequence[int] | None, text: str | None, fallback_chars_per_token: float | None,
                 reward: str) -> int:
    """``len(ids)``; without ids, ``ceil(len(text) / fallback_chars_per_token)`` when configured."""
    if ids is not None:
        return len(ids)
    if fallback_chars_per_token is not None and text is not None:
        return math.ceil(len(text) / fallback_chars_per_token)
    raise ValueError(
        f"{reward} measures tokens and needs completion_ids, which this call does not have "
        "(TRL's GRPOTrainer passes them; offline, a completion_ids column, or grpo-rewards score --tokenizer MODEL "
        "to make them). "
        "Pass completion_ids, choose unit='chars' or 'words', or set fallback_chars_per_token "
        "(e.g. 4.0) to estimate tokens from characters"
    )


def measure(text: str | None, unit: str, ids: Sequence[int] | None, fallback_chars_per_token: float | None,
            reward: str) -> int:
    """The length of one completion: ``len(text)``, ``len(text.split())`` or the number of token ids."""
    if unit == "tokens":
        return count_tokens(ids, text, fallback_chars_per_token, reward)
    assert text is not None
    return len(text) if unit == "chars" else len(text.split())


def read_correct(value: Any, threshold: float, column: str) -> bool | None:
    """Correctness from a column value: bools as they are, numbers ``>= threshold``; ``None``/NaN unknown."""
    kind = type(value)
    if kind is bool:
        return value
    if kind is float or kind is int:  # the common case, without the numbers.Real ABC check
        return None if value != value else value >= threshold
    if value is None:
        return None
    if not isinstance(value, (bool, numbers.Real)) and hasattr(value, "item"):
        value = value.item()  # numpy / torch scalars
    if isinstance(value, bool):
        return value
    if isinstance(value, numbers.Real):
        if math.isnan(value):
            return None
        return float(value) >= threshold
    raise ValueError(
        f"column {column!r} must hold a bool, a number or None per sample (correctness), "
        f"not {type(value).__name__} {value!r:.40}"
    )


class MeasuredIn:
    """Gives a length reward the ``units`` attribute the core reads from a built reward: the
    ``unit`` it was built with (``length.target`` with ``unit="tokens"`` measures tokens)."""

    unit: str

    @property
    def units(self) -> str:
        return self.unit
