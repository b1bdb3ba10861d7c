r"""Verifiable math tasks: prompts and gold answers generated deterministically from a seed.

Each factory is ``factory(n, seed, **params) -> list[dict]`` with rows ``{"prompt": str,
"solution": str}`` (``prompt`` is a list with one user message when ``chat=True``). The prompts are
short and end with "Put the final answer in \boxed{}." so that a small instruct model (e.g.
SmolLM2-135M-Instruct) can follow them.

>>> make_arithmetic(2, seed=0)[0]["prompt"]
'What is 18 + 1? Put the final answer in \\boxed{}.'
"""

from __future__ import annotations

import random
from collections.abc import Callable
from fractions import Fraction
from typing import Any

INSTRUCTION = "Put the final answer in \\boxed{}."


def _check(n: int, max_value: int, low: int = 1) -> None:
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"n must be a non-negative integer, not {n!r}")
    if isinstance(max_value, bool) or not isinstance(max_value, int) or max_value < low:
        raise ValueError(f"max_value must be an integer >= {low}, not {max_value!r}")


def _row(question: str, solution: str, chat: bool) -> dict[str, Any]:
    text = f"{question} {INSTRUCTION}"
    prompt: Any = [{"role": "user", "content": text}] if chat else text
    return {"prompt": prompt, "solution": solution}


def make_arithmetic(n: int, seed: int = 0, max_value: int = 20, ops: str = "+-*",
                    chat: bool = False) -> list[dict[str, Any]]:
    r"""``n`` problems ``a + b``, ``a - b`` (``a >= b``) or ``a * b`` with ``1 <= a, b <= max_value``.

    >>> make_arithmetic(1, seed=3, ops="*")
    [{'prompt': 'What is 17 * 18? Put the final answer in \\boxed{}.', 'solution': '306'}]
    """
    _check(n, max_value)
    if not ops or any(op not in "+-*" for op in ops):
        raise ValueError(f"ops must be made of '+', '-' and '*', not {ops!r}")
    rng = random.Random(f"math:arithmetic:{seed}")
    rows = []
    for _ in range(n):
        op = rng.choice(ops)
        a, b = rng.randint(1, max_value), rng.randint(1, max_value)
        if op == "-" and a < b:
            a, b = b, a
        result = a + b if op == "+" else a - b if op == "-" else a * b
        rows.append(_row(f"What is {a} {op} {b}?", str(result), chat))
    return rows


def _fraction_text(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def make_fractions(n: int, seed: int = 0, max_value: int = 9, chat: bool = False) -> list[dict[str, Any]]:
    r"""``n`` problems ``a/b + c/d`` or ``a/b - c/d`` (denominators ``2..max_value``), answers in lowest terms.

    >>> make_fractions(1, seed=1)
    [{'prompt': 'What is 3/9 + 1/6? Give the answer as a fraction in lowest terms. Put the final answer in \\boxed{}.', 'solution': '1/2'}]
    """
    _check(n, max_value, low=2)
    rng = random.Random(f"math:fractions:{seed}")
    rows = []
    for _ in range(n):
        b, d = rng.randint(2, max_value), rng.randint(2, max_value)
        a, c = rng.randint(1, b - 1), rng.randint(1, d - 1)
        op = rng.choice("+-")
        result = Fraction(a, b) + Fraction(c, d) if op == "+" else Fraction(a, b) - Fraction(c, d)
        question = f"What is {a}/{b} {op} {c}/{d}? Give the answer as a fraction in lowest terms."
        rows.append(_row(question, _fraction_text(result), chat))
    return rows


def make_linear(n: int, seed: int = 0, max_value: int = 10, chat: bool = False) -> list[dict[str, Any]]:
    r"""``n`` equations ``a x + b = c`` with an integer solution ``x`` in ``-max_value..max_value``.

    >>> make_linear(1, seed=2)
    [{'prompt': 'Solve for x: 5x + 10 = 45. Put the final answer in \\boxed{}.', 'solution': '7'}]
    """
    _check(n, max_value)
    rng = random.Random(f"math:linear:{seed}")
    rows = []
    for _ in range(n):
        a = rng.randint(2, 9)
        x = rng.randint(-max_value, max_value)
        b = rng.choice([v for v in range(-10, 11) if v != 0])
        c = a * x + b
        sign = "+" if b > 0 else "-"
        rows.append(_row(f"Solve for x: {a}x {sign} {abs(b)} = {c}.", str(x), chat))
    return rows


#: Task name -> (factory, description), registered as ``math:<name>``.
TASKS: dict[str, tuple[Callable[..., list[dict[str, Any]]], str]] = {
    "arithmetic": (make_arithmetic, "Integer +, - and * of small numbers; answer in \\boxed{}."),
    "fractions": (make_fractions, "Sums and differences of two fractions, answer in lowest terms."),
    "linear": (make_linear, "Solve a x + b = c for an integer x."),
}
