"""The number fixes of these rounds, over their families (hypothesis) rather than the one example each was found on:
integers past a float's range meet floats in tool-call comparison, SQL result sorting and ``params.finite``; a judge's
grade written with a leading point is never read as the digits after it."""

from __future__ import annotations

import math
import random
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from grpo_rewards import params
from grpo_rewards.closeness import close
from grpo_rewards_code.compare import values_match
from grpo_rewards_code.sql_rows import results_match
from grpo_rewards_judge.parse import ScoreFormat
from grpo_rewards_tools.arguments import Comparison

#: the least integer a float cannot hold: from it on, float() rounds to 2**1024 and raises OverflowError
FLOAT_LIMIT = 2 ** 1024 - 2 ** 970
#: integers on both sides of a float's range (about 1.8e308), up to the 4,000 digits a JSON reply may hold
HUGE = st.integers(min_value=-(10 ** 4000), max_value=10 ** 4000)
NUMBERS = st.one_of(HUGE, st.integers(-10 ** 6, 10 ** 6), st.floats(allow_nan=False, allow_infinity=False),
                    st.sampled_from([float("inf"), float("-inf"), 10 ** 309, -(10 ** 309), FLOAT_LIMIT,
                                     FLOAT_LIMIT - 1, -FLOAT_LIMIT, 2 ** 1024]))
FAMILY = settings(max_examples=300, deadline=None, database=None, derandomize=True)


@FAMILY
@given(a=NUMBERS, b=NUMBERS)
def test_numbers_equal_never_raises_is_symmetric_and_exact_past_a_floats_range(a, b):
    rule = Comparison(tolerance=1e-6)
    equal = rule.numbers_equal(a, b)
    assert equal == rule.numbers_equal(b, a)
    assert rule.numbers_equal(a, a)
    if isinstance(a, int) and isinstance(b, int) and max(abs(a), abs(b)) >= FLOAT_LIMIT:  # past a float: exact
        difference = abs(Fraction(a) - Fraction(b))
        assert equal == (difference <= Fraction(1e-6) * max(abs(a), abs(b)) or difference <= Fraction(1e-6))
        assert Comparison(tolerance=0).numbers_equal(a, b) == (a == b)


@FAMILY
@given(cells=st.lists(st.one_of(NUMBERS, st.none(), st.text(max_size=3)), min_size=1, max_size=12), seed=st.integers())
def test_results_match_a_shuffle_of_itself_whatever_the_numbers(cells, seed):
    gold = [(c,) for c in cells]
    got = list(gold)
    random.Random(seed).shuffle(got)
    assert results_match(gold, got, ordered=False, tolerance=0)
    assert results_match(gold, got, ordered=False)


@FAMILY
@given(value=st.one_of(NUMBERS, st.booleans(), st.text(max_size=3), st.none(), st.just(float("nan"))))
def test_finite_is_a_number_a_float_holds(value):
    expected = (type(value) in (int, float)) and (abs(value) < FLOAT_LIMIT if isinstance(value, int)
                                                  else math.isfinite(value))
    assert params.finite(value) == expected


SCALE = ScoreFormat("scale", low=1, high=10)


@FAMILY
@given(digits=st.text(alphabet="0123456789", min_size=1, max_size=4), around=st.sampled_from(["", "**", "(", " "]))
def test_a_grade_with_a_leading_point_is_never_read_as_its_digits(digits, around):
    closing = {"(": ")", "**": "**"}.get(around, "")
    assert SCALE.parse(f"Score: {around}.{digits}{closing}") == (None, "unparsable")  # below 1: off the scale


@FAMILY
@given(grade=st.integers(1, 10), end=st.sampled_from(["", ".", "!", " .", "**"]), start=st.sampled_from(["", "**", "("]))
def test_a_whole_grade_with_punctuation_around_it_is_read(grade, end, start):
    closing = ")" if start == "(" else ""
    assert SCALE.parse(f"Score: {start}{grade}{closing}{end}") == ((grade - 1) / 9, "scored")


FINITE = st.one_of(st.floats(allow_nan=False, allow_infinity=False), st.integers(-10 ** 15, 10 ** 15))
TOLERANCES = st.sampled_from([0.0, 1e-9, 1e-6, 0.01, 0.5])


@FAMILY
@given(a=FINITE, b=FINITE, rel=TOLERANCES, tol=TOLERANCES)
def test_close_is_math_isclose_wherever_a_float_holds_both_numbers(a, b, rel, tol):
    # the peer is the standard library's own rule
    assert close(a, b, rel_tol=rel, abs_tol=tol) == math.isclose(a, b, rel_tol=rel, abs_tol=tol)


@FAMILY
@given(a=NUMBERS, b=NUMBERS)
def test_code_values_match_never_raises_and_an_infinity_matches_only_itself(a, b):
    # before: a returned 10**400 against an expected float raised OverflowError out of code.tests_passed (the run
    # ended), and a returned 5.0 matched an expected inf (a tolerance relative to inf accepts anything)
    matched = values_match(a, b, "json", 1e-6)
    if isinstance(b, float) and math.isinf(b):
        assert matched == (a == b)
    if isinstance(b, float) and isinstance(a, int) and abs(a) >= FLOAT_LIMIT:  # exact, relative to the expected
        assert matched == (math.isfinite(b) and abs(Fraction(a) - Fraction(b)) <= Fraction(1e-6) * max(1, abs(Fraction(b))))
    assert values_match(a, a, "json", 1e-6)


def test_code_values_match_at_the_two_examples_that_failed():
    assert values_match(5.0, float("inf"), "json") is False
    assert values_match(float("-inf"), float("-inf"), "json") is True
    assert values_match(10 ** 400, 2.5, "json") is False
    assert values_match(2 ** 1024, 1.7976931348623157e308, "json", 1e-6) is True  # 1e-16 apart, relatively
    assert values_match([10 ** 400, 1.0], [1.5, 1.0], "apps") is False
