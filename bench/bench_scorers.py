"""Scorers of three costs for bench_core.py (a module, so that worker processes can import them)."""

from __future__ import annotations

import itertools
import re

_BOXED = re.compile(r"\\boxed\{([^{}]*)\}")


def trivial(text: str, **row) -> float:
    """~1 µs: the length in characters."""
    return float(len(text))


def regex_format(text: str, **row) -> float:
    """~10 µs: a format check with a few regular expressions."""
    steps = len(re.findall(r"Step \d+:", text))
    box = _BOXED.search(text)
    return min(1.0, 0.5 * steps) + (1.0 if box else 0.0)


def word_stats(text: str, **row) -> float:
    """~30 µs: a pure-Python pass over the words (repetition share of word bigrams), repeated."""
    words = (text + " ") * 8
    tokens = words.split()
    bigrams = list(itertools.pairwise(tokens))
    return 1.0 - len(set(bigrams)) / max(1, len(bigrams))


def symbolic(text: str, **row) -> float:
    """~0.3 ms: sympy expands a small polynomial built from numbers in the text (no eval)."""
    import sympy

    numbers = [int(n) for n in re.findall(r"\d+", text)[:3]] or [0]
    x = sympy.Symbol("x")
    expr = sum((n * x**k for k, n in enumerate(numbers)), sympy.Integer(0))
    return 1.0 if sympy.expand((expr + 1) ** 2 - expr**2 - 2 * expr) == 1 else 0.0


SCORERS = {
    "trivial (len)": trivial,
    "regex format": regex_format,
    "word bigrams": word_stats,
    "sympy expand": symbolic,
}


def pause(seconds: float) -> float:
    """Sleeps ``seconds`` (a slow item that leaves the CPU free): for deadline benchmarks."""
    import time

    time.sleep(seconds)
    return seconds
