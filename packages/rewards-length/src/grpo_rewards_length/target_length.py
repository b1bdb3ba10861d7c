"""``length.target``: closeness to a target length."""

from __future__ import annotations

from typing import Any

from ._units import MeasuredIn, Unit, check_fallback, check_length, check_unit, measure


class TargetLength(MeasuredIn):
    """Closeness to a target length: 0 at the target, more negative the further away.

    Unit: ``unit`` — ``"chars"`` (default, as in TRL's quick-start reward), ``"words"``
    (``len(text.split())``) or ``"tokens"`` (``len(completion_ids)``). Text is the completion's
    final assistant message for conversational completions. With ``L`` the length and
    ``d = max(0, |L - target| - tolerance)``:

    - ``normalise=False``: ``reward = -d`` (unbounded below; with ``target=20`` and
      ``tolerance=0`` this is TRL's quick-start ``-abs(20 - len(completion))``);
    - ``normalise=True``: ``reward = -min(1, d / target)``, in ``[-1, 0]``, so that a weight
      means the same thing whatever the target (needs ``target > 0``).

    Parameters are checked at set-up: ``target`` and ``tolerance`` must be integers ``>= 0``.
    An empty completion has length 0; a completion without readable text gets ``None``.

    >>> from grpo_rewards_length import make_target
    >>> reward = make_target(target=10, tolerance=2)
    >>> reward(prompts=["p"] * 3, completions=["a" * 10, "a" * 13, [{"role": "assistant", "content": "a" * 30}]])
    [0.0, -1.0, -18.0]
    >>> make_target(target=10, normalise=True)(prompts=["p"] * 3, completions=["a" * 15, "", "a" * 99])
    [-0.5, -1.0, -1.0]
    """

    def __init__(
        self,
        target: int = 20,
        unit: Unit = "chars",
        tolerance: int = 0,
        normalise: bool = False,
        fallback_chars_per_token: float | None = None,
    ) -> None:
        self.target = check_length("target", target)
        self.unit = check_unit(unit)
        self.tolerance = check_length("tolerance", tolerance)
        if normalise and target == 0:
            raise ValueError("normalise=True divides by target, so target must be > 0")
        self.normalise = bool(normalise)
        self.fallback_chars_per_token = check_fallback(fallback_chars_per_token)

    def __call__(self, text: str, **row: Any) -> float:
        length = measure(text, self.unit, row.get("completion_ids"), self.fallback_chars_per_token, "length.target")
        distance = max(0, abs(length - self.target) - self.tolerance)
        if self.normalise:
            return 0.0 - min(1.0, distance / self.target)
        return float(-distance)
