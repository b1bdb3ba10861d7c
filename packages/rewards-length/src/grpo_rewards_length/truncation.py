"""``length.truncated``: the "stop properly" reward for completions cut off by the generation limit."""

from __future__ import annotations

import math
from typing import Any

from grpo_rewards import params

from ._units import check_fallback, check_length, count_tokens
from .overlong import DEFAULT_MAX_LENGTH


class Truncated:
    """A penalty (or a multiplier on another reward) for completions that hit the generation
    limit without finishing, i.e. without an end-of-sequence token.

    Unit: tokens (``completion_ids``, which in TRL include the final EOS token of a finished
    completion). A completion is truncated when both tests that are configured hold:

    - length: ``len(completion_ids) >= max_length`` (set ``max_length`` to
      ``GRPOConfig.max_completion_length``; 512 by default, TRL's default; ``None`` skips the test);
    - end: its last id is not in ``eos_token_ids`` (TRL's own ``mask_truncated_completions`` rule;
      list the EOS and pad ids; ``None``, the default, skips the test). An empty one is not truncated.

    Reward: without ``base_column``, ``penalty`` (default -1.0) when truncated, else ``0.0``.
    With ``base_column`` (a column, e.g. filled by ``inputs: {base: math.accuracy}``):
    ``base * multiplier`` when truncated (default ``multiplier=0.0``: no credit for an answer that
    did not stop), ``base`` otherwise, ``None`` when base is ``None``. Without ``completion_ids``
    it raises a clear error unless ``fallback_chars_per_token`` is set (then only the length test,
    on ``ceil(chars / ratio)``, applies).

    >>> from grpo_rewards_length import make_truncated
    >>> reward = make_truncated(max_length=4, eos_token_ids=[2])
    >>> reward(prompts=["p"] * 3, completions=["a"] * 3, completion_ids=[[5, 5, 5, 5], [5, 5, 5, 2], [5, 2]])
    [-1.0, 0.0, 0.0]
    >>> make_truncated(max_length=4, base_column="base")(prompts=["p"] * 2, completions=["a"] * 2,
    ...     completion_ids=[[5] * 4, [5]], base=[1.0, 1.0])
    [0.0, 1.0]
    """

    def __init__(
        self,
        max_length: int | None = DEFAULT_MAX_LENGTH,
        eos_token_ids: list[int] | None = None,
        penalty: float = -1.0,
        base_column: str | None = None,
        multiplier: float = 0.0,
        fallback_chars_per_token: float | None = None,
    ) -> None:
        if max_length is None and eos_token_ids is None:
            raise ValueError("length.truncated needs max_length, eos_token_ids or both to tell a truncated completion")
        self.max_length = None if max_length is None else check_length("max_length", max_length, minimum=1)
        if eos_token_ids is not None:
            eos_token_ids = params.integers(eos_token_ids, "eos_token_ids")
        self.eos_token_ids = eos_token_ids
        self.penalty = params.number(penalty, "penalty")
        self.multiplier = params.number(multiplier, "multiplier")
        self.base_column = params.column(base_column, "base_column", none_ok=True)
        self.fallback_chars_per_token = check_fallback(fallback_chars_per_token)

    def is_truncated(self, text: str | None, ids: list[int] | None) -> bool:
        length = count_tokens(ids, text, self.fallback_chars_per_token, "length.truncated")
        if length == 0:
            return False
        if self.max_length is not None and length < self.max_length:
            return False
        if self.eos_token_ids is not None and ids is not None:
            return ids[-1] not in self.eos_token_ids
        return self.max_length is not None

    def __call__(self, text: str, **row: Any) -> float | None:
        truncated = self.is_truncated(text, row.get("completion_ids"))
        if self.base_column is None:
            return self.penalty if truncated else 0.0
        if self.base_column not in row:
            raise ValueError(f"length.truncated reads the base reward from column {self.base_column!r}, which is missing")
        base = row[self.base_column]
        if base is None:
            return None
        if not isinstance(base, (int, float)) and hasattr(base, "item"):
            base = base.item()
        if not isinstance(base, (int, float)):
            raise ValueError(f"column {self.base_column!r} must hold numbers or None, not {type(base).__name__}")
        if math.isnan(base):
            return None
        return float(base) * self.multiplier + 0.0 if truncated else float(base)  # + 0.0: no -0.0
