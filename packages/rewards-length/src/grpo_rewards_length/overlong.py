"""``length.soft_overlong``: DAPO's soft overlong punishment."""

from __future__ import annotations

from typing import Any

from ._units import MeasuredIn, Unit, check_fallback, check_length, check_unit, measure

#: TRL's default ``GRPOConfig.max_completion_length``.
DEFAULT_MAX_LENGTH = 512


class SoftOverlong(MeasuredIn):
    """DAPO's soft overlong punishment (Eq. 13 of arXiv:2503.14476): no reward for being short,
    a linear penalty in the last ``buffer`` units before ``max_length``, -1 past it.

    Unit: ``unit`` — ``"tokens"`` (default, ``len(completion_ids)``), ``"chars"`` or ``"words"``.
    With ``L`` the length, ``M = max_length`` and ``B = buffer``:

    - ``L <= M - B``: ``0``
    - ``M - B < L <= M``: ``(M - B - L) / B`` (from just below 0 down to exactly -1 at ``M``)
    - ``L > M``: ``-1``

    The same formula as TRL's ``get_soft_overlong_punishment(M, B)``. Set ``max_length`` to the
    generation limit (``GRPOConfig.max_completion_length``, 512 by default, the default here).
    ``buffer = 0`` is a hard cliff (0 up to ``M``, -1 beyond). Set-up errors: ``max_length <=
    buffer``, a negative buffer. Without ``completion_ids`` in tokens it raises a clear error,
    unless ``fallback_chars_per_token`` is set (tokens estimated as ``ceil(chars / ratio)``).

    >>> from grpo_rewards_length import make_soft_overlong
    >>> reward = make_soft_overlong(max_length=100, buffer=20)
    >>> reward(prompts=["p"] * 4, completions=["a"] * 4, completion_ids=[[1] * 80, [1] * 90, [1] * 100, [1] * 101])
    [0.0, -0.5, -1.0, -1.0]
    """

    def __init__(
        self,
        max_length: int = DEFAULT_MAX_LENGTH,
        buffer: int = 128,
        unit: Unit = "tokens",
        fallback_chars_per_token: float | None = None,
    ) -> None:
        self.max_length = check_length("max_length", max_length, minimum=1)
        self.buffer = check_length("buffer", buffer)
        if max_length <= buffer:
            raise ValueError(f"max_length ({max_length}) must be greater than buffer ({buffer})")
        self.unit = check_unit(unit)
        self.fallback_chars_per_token = check_fallback(fallback_chars_per_token)

    def __call__(self, text: str, **row: Any) -> float:
        length = measure(text, self.unit, row.get("completion_ids"), self.fallback_chars_per_token,
                         "length.soft_overlong")
        start = self.max_length - self.buffer
        if length <= start:
            return 0.0
        if length <= self.max_length:
            return (start - length) / self.buffer
        return -1.0
