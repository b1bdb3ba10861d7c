"""Adversarial answers: the calling process never runs sympy on them, and every value is right.

A generator of hostile answers (the conjugate-surd family of issue 21, nested radicals and powers
with large integers, conjugate products, factorials, towers, deep nesting, long sums), each with
the value it must score. The reward runs as in training (its workers, its deadline); the calling
thread runs under a profiler that records every Python function it enters, and no function of
sympy or mpmath may be among them: the bound on in-process work is a property of the code, not
of this machine's speed (its CPU time is measured in bench/bench_bounded.py)."""

from __future__ import annotations

import sys
from typing import Any

from adversarial_answers import FAMILIES, case
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grpo_rewards_math import make_accuracy
from grpo_rewards_math.correctness import clear_cache

#: one reward for every example: its worker pool starts once
REWARD = make_accuracy(metric="adversarial_accuracy")


def _heavy_calls(fn: Any) -> tuple[Any, set[str]]:
    """``fn()`` with every Python function it enters in this thread recorded; the sympy/mpmath ones returned."""
    heavy: set[str] = set()

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            name = frame.f_code.co_filename
            if "/sympy/" in name or "/mpmath/" in name:
                heavy.add(f"{name}:{frame.f_code.co_name}")

    sys.setprofile(profile)
    try:
        result = fn()
    finally:
        sys.setprofile(None)
    return result, heavy


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(sorted(FAMILIES)), st.integers(0, 2**32 - 1), st.booleans()),
                min_size=4, max_size=8))
def test_adversarial_answers_score_right_without_sympy_in_the_calling_process(draws):
    cases = [case(family, seed, equal) for family, seed, equal in draws]
    clear_cache()
    completions = [rf"The answer is \boxed{{{pred}}}" for pred, _, _ in cases]
    values, heavy = _heavy_calls(lambda: REWARD(completions=completions, solution=[gold for _, gold, _ in cases]))
    assert sorted(heavy)[:5] == []
    assert values == [1.0 if equal else 0.0 for _, _, equal in cases], cases


def test_the_conjugate_surd_family_is_decided_in_the_calling_process():
    pred, gold, _ = case("conjugate_surds", 7, True)
    clear_cache()
    decided, heavy = _heavy_calls(lambda: REWARD.scorer.quick(rf"\boxed{{{pred}}}", solution=gold))
    assert (decided, heavy) == ((1.0, "correct"), set())
