"""``grpo_rewards.closeness.close``: its examples, and the two conventions the plugins use it with (the hypothesis
families against ``math.isclose`` are in tests/hardening/test_number_edges_family.py)."""

from __future__ import annotations

import doctest

from grpo_rewards import closeness
from grpo_rewards.closeness import close


def test_the_docstring_examples_hold():
    assert doctest.testmod(closeness).failed == 0


def test_relative_to_the_expected_number_alone_or_to_the_larger_of_both():
    # |10 - 11| = 1: within 10% of 11 (the larger) but not of 9.5 (the expected) in the asymmetric rule
    assert close(11, 10, rel_tol=0.1) is True
    assert close(11, 9.5, rel_tol=0.1, relative_to_expected=True) is False
    assert close(10, 11, rel_tol=0.1, relative_to_expected=True) is True
    assert close(0.0, 5e-7, rel_tol=1e-6, abs_tol=1e-6, relative_to_expected=True) is True
    # 10**395 apart is 1e-5 of 10**400, exactly (past a float's range)
    assert close(10 ** 400 + 10 ** 395, 10 ** 400, rel_tol=1e-6, relative_to_expected=True) is False
    assert close(10 ** 400 + 10 ** 395, 10 ** 400, rel_tol=1e-5, relative_to_expected=True) is True
    # a tolerance between 1e-5 of the expected and 1e-5 / (1 + 1e-5) of the larger: only the larger's rule allows it
    assert close(10 ** 400 + 10 ** 395, 10 ** 400, rel_tol=0.999995e-5) is True
    assert close(10 ** 400 + 10 ** 395, 10 ** 400, rel_tol=0.999995e-5, relative_to_expected=True) is False
    assert close(float("nan"), float("nan"), rel_tol=1.0) is False
    assert close(10 ** 400, float("inf"), rel_tol=1.0) is False
