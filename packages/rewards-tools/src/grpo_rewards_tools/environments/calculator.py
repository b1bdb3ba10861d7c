"""``tools.calculator``: exact arithmetic for the model, through the math package's eval-free parser.

The expression is read by ``grpo_rewards_math``'s parser (``parse_answer``: its own grammar, size
guards and a CPU-time budget; nothing is handed to ``eval``), so ``4821 * 376``, ``3/7 + 5/12``,
``2^10``, ``\\frac{1}{2} \\cdot 6`` are all understood and rational results stay exact (``71/84``).

>>> calc = Calculator()
>>> calc.reset()
>>> calc.calculate("4821 * 376"), calc.calculate("3/7 + 5/12"), calc.calculate("x + 1")
('1812696', '71/84', 'error: not a number (unknown names: x)')
"""

from __future__ import annotations

import sys
from typing import Any

from grpo_rewards import params as checks


class Calculator:
    """A calculator tool: exact arithmetic (integers and fractions) without eval."""

    def __init__(self, max_chars: int = 200, max_result_chars: int = 400) -> None:
        self.max_chars = checks.integer(max_chars, "max_chars", low=1)
        self.max_result_chars = checks.integer(max_result_chars, "max_result_chars", low=1)
        self.calls = 0

    def reset(self, **row: Any) -> None:
        self.calls = 0

    def calculate(self, expression: str) -> str:
        """Evaluate an arithmetic expression exactly and return the result (a whole number or a fraction p/q).

        Args:
            expression: the expression to evaluate, with + - * / ^ and brackets, for example "4821 * 376" or "3/7 + 5/12"
        """
        from grpo_rewards_math.parse import ParseError, parse_answer

        self.calls += 1
        if not isinstance(expression, str) or not expression.strip():
            return "error: give an expression as text, for example \"12 * 34\""
        if len(expression) > self.max_chars:
            return f"error: the expression has {len(expression)} characters, more than {self.max_chars}"
        try:
            answer = parse_answer(expression)
        except ParseError as exc:
            return f"error: cannot read {expression!r}: {exc}"
        value = answer.value
        if answer.kind != "expr" or not hasattr(value, "free_symbols"):
            return f"error: {expression!r} is not an arithmetic expression"
        if value.free_symbols:
            return "error: not a number (unknown names: " + ", ".join(sorted(map(str, value.free_symbols))) + ")"
        if not value.is_Rational:
            if value.is_Pow and value.base.is_Rational and value.exp.is_integer:  # left unevaluated by the size guard
                return f"error: the result is too large to compute exactly ({str(value)[:60]})"
            if not value.is_finite:  # zoo (0**-1), oo, nan
                return "error: division by zero"
            return f"error: the result is not a whole number or a fraction ({str(value)[:60]})"
        try:
            text = str(value)
        except ValueError:  # an integer past Python's int-to-str limit (10^5000): ValueError reached the model
            return f"error: the result has more than {sys.get_int_max_str_digits()} digits"
        if len(text) > self.max_result_chars:
            return f"error: the result has {len(text)} characters, more than {self.max_result_chars}"
        return text
