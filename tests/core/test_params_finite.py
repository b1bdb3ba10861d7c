"""grpo_rewards.params.finite: a number a float holds. An integer past a float's range (JSON and YAML may hold one)
made math.isfinite raise OverflowError: out of a parameter check, an IOI row's points, a judge's token counts."""

from __future__ import annotations

import doctest

import pytest

from grpo_rewards import params


def test_finite_is_a_number_a_float_holds():
    values = [0, -3, 2.5, 10 ** 308, 10 ** 400, -(10 ** 400), float("inf"), float("nan"), True, "3", None]
    assert [params.finite(v) for v in values] == [True, True, True, True, False, False, False, False, False, False,
                                                  False]
    assert doctest.testmod(params).failed == 0


def test_a_number_parameter_past_a_floats_range_is_refused_by_name_not_by_overflow():
    with pytest.raises(ValueError, match=r"^rel_tol must be a number in \[0, 1\], got 1000"):
        params.number(10 ** 400, "rel_tol", low=0, high=1)
    assert params.number(10 ** 300, "size", low=0) == 1e300
