"""Hostile answers with the value they must score: ``case(family, seed, equal) -> (pred, gold, equal)``.

Shared by tests/math/test_adversarial.py (values, no sympy in the calling process) and
bench/bench_bounded.py (in-process CPU per answer). Each family builds an answer from random
integers and a gold that it equals (``equal``) or that differs from it by construction.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable


def _conjugate_surds(rng: random.Random, equal: bool) -> tuple[str, str]:
    """Issue 21's family: the cube root of (√(N+1)+√N)^k (√(N+1)−√N)^k − 1 with N = 10^{2m}; its value is 0."""
    m, k = rng.randint(1, 150), rng.randint(1000, 9999)
    root = rf"\sqrt{{10^{{{2 * m}}}+1}}"
    pred = rf"\sqrt[3]{{\left({root}+10^{{{m}}}\right)^{{{k}}}\left({root}-10^{{{m}}}\right)^{{{k}}}-1}}"
    return pred, "0" if equal else str(rng.randint(1, 9))


def _radicals(rng: random.Random, equal: bool) -> tuple[str, str]:
    """√(a² b) against a√b with a large a (or a√(b+1))."""
    a, b = rng.randint(10**5, 10**12), rng.choice([2, 3, 5, 6, 7, 10, 11, 13, 14, 15, 17, 19, 21, 22])
    return rf"\sqrt{{{a * a * b}}}", rf"{a}\sqrt{{{b if equal else b + 1}}}"


def _nested_radicals(rng: random.Random, equal: bool) -> tuple[str, str]:
    """A nested radical with large integers against itself written with other brackets (or another one)."""
    a, b = rng.randint(10**6, 10**15), rng.randint(10**6, 10**15)
    pred = rf"\sqrt{{\left({a}+\sqrt{{{b}}}\right)}}"
    return pred, rf"\sqrt{{{a}+\sqrt{{{b}}}}}" if equal else str(a)


def _conjugate_products(rng: random.Random, equal: bool) -> tuple[str, str]:
    """(a+√b)^k (a−√b)^k against (a²−b)^k."""
    a = rng.randint(2, 50)
    b = rng.choice([n for n in range(2, 2000) if math.isqrt(n) ** 2 != n])
    k = rng.randint(2, max(2, int(380 / math.log10(max(2, abs(a * a - b))))))  # a gold of at most 380 digits
    value = (a * a - b) ** k
    return rf"({a}+\sqrt{{{b}}})^{{{k}}}({a}-\sqrt{{{b}}})^{{{k}}}", str(value if equal else value + 1)


def _many_radicals(rng: random.Random, equal: bool) -> tuple[str, str]:
    """A power of a sum of many square roots (past the term bound), against itself or against 1."""
    roots = rng.sample([2, 3, 5, 6, 7, 10, 11, 13, 14, 15, 17, 19], rng.randint(4, 8))
    base = "+".join(rf"\sqrt{{{r}}}" for r in roots)
    pred = rf"\left({base}\right)^{{{rng.randint(2, 60)}}}"
    return pred, (f"{{{pred}}}" if equal else "1")


def _large_powers(rng: random.Random, equal: bool) -> tuple[str, str]:
    """A power too large to write out, against itself as a product of halves (or against 1)."""
    base, k = rng.randint(2, 99), rng.randint(10**5, 10**9)
    if equal:
        return rf"{base}^{{{k}}}\cdot {base}^{{{k}}}", rf"{base}^{{{2 * k}}}"
    return rf"{base}^{{{k}}}", "1"


def _factorials(rng: random.Random, equal: bool) -> tuple[str, str]:
    """A small factorial against its value, or a huge one against 1."""
    if equal:
        n = rng.randint(0, 160)  # a gold of at most 285 digits (gold answers over max_digits are unparsable)
        return f"{n}!", str(math.factorial(n))
    return f"{rng.randint(10**4, 10**7)}!", "1"


def _towers(rng: random.Random, equal: bool) -> tuple[str, str]:
    a, b, c = (rng.randint(2, 99) for _ in range(3))
    tower = rf"{a}^{{{b}^{{{c}}}}}"
    return tower, (f"{{{tower}}}" if equal else "1")


def _deep_nesting(rng: random.Random, equal: bool) -> tuple[str, str]:
    depth, n = rng.randint(61, 2000), rng.randint(0, 10**6)
    return "(" * depth + str(n) + ")" * depth, str(n if equal else n + 1)


def _long_sums(rng: random.Random, equal: bool) -> tuple[str, str]:
    k = rng.randint(100, 4000)
    return "+".join(["1"] * k), str(k if equal else k - 1)


FAMILIES: dict[str, Callable[[random.Random, bool], tuple[str, str]]] = {
    "conjugate_surds": _conjugate_surds,
    "radicals": _radicals,
    "nested_radicals": _nested_radicals,
    "conjugate_products": _conjugate_products,
    "many_radicals": _many_radicals,
    "large_powers": _large_powers,
    "factorials": _factorials,
    "towers": _towers,
    "deep_nesting": _deep_nesting,
    "long_sums": _long_sums,
}


def case(family: str, seed: int, equal: bool) -> tuple[str, str, bool]:
    """``(pred, gold, equal)`` of one generated answer."""
    pred, gold = FAMILIES[family](random.Random(f"{family}-{seed}"), equal)
    return pred, gold, equal
