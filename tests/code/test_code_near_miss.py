"""Near-miss answers are not paid: integers compare exactly, and a HumanEval check keeps every one of its asserts."""

from __future__ import annotations

import pytest

from grpo_rewards_code import AllPassed, TestsPassed
from grpo_rewards_code.compare import outputs_match, values_match
from grpo_rewards_code.formats import AssertTest, CallTest, humaneval_tests


def fence(code: str) -> str:
    return f"```python\n{code}\n```"


@pytest.mark.parametrize(("printed", "expected"), [
    ("1000000008", "1000000007"), ("1000000506", "1000000007"), (str(2**53 + 1), str(2**53)),
    (str(10**30 + 1), str(10**30)), ("1000000008.0", "1000000007"), (f"{2**53 + 1}.0", str(2**53)), ("-0.001", "0"),
    ("7e0", "8"), ("1e999999999", "7"),
])
def test_a_printed_integer_next_to_the_expected_one_is_not_paid(sandbox, printed, expected):
    row = {"tests": [{"input": "", "output": f"{expected}\n"}]}
    assert TestsPassed()(fence(f"print({printed!r})"), **row) == (0.0, "failed")


@pytest.mark.parametrize(("printed", "expected"), [
    ("1000000007", "1000000007"), ("007", "7"), ("7.0", "7"), ("+7", "7"), ("0.33333333", "0.3333333"),
    ("3.0000000001", "3"),
    ("1.0000001e9", "1000000100.0"), (str(10**40), str(10**40)),
])
def test_equal_numbers_and_floats_within_the_tolerance_are_paid(sandbox, printed, expected):
    row = {"tests": [{"input": "", "output": f"{expected}\n"}]}
    assert TestsPassed()(fence(f"print({printed!r})"), **row) == (1.0, "passed")


def test_json_call_tests_compare_integers_exactly(sandbox):
    row = {"tests": [{"call": [10**6], "output": 10**6 + 1}, {"call": [2**60], "output": 2**60 + 1}], "fn_name": "inc"}
    assert TestsPassed()(fence("def inc(n):\n    return float(n)"), **row) == (0.0, "failed")
    assert TestsPassed()(fence("def inc(n):\n    return n + 1"), **row) == (1.0, "passed")
    assert values_match(float(10**6), 10**6 + 1, "json") is False and values_match(True, 1, "json") is False
    assert values_match(0.1 + 0.2, 0.3, "json") and outputs_match("1e3", "1000.0")


def test_a_returned_integer_past_a_floats_range_against_an_expected_float_fails_and_does_not_end_the_run(sandbox):
    # before: OverflowError out of the comparison, a RewardError out of code.tests_passed for the whole batch
    row = {"input_output": '{"fn_name": "f", "inputs": [[1], [2]], "outputs": [[2.5], [2.5]]}'}
    assert TestsPassed()(fence("def f(x):\n    return 10**400 if x == 1 else 2.5"), **row) == (0.5, "failed")
    assert TestsPassed()(fence("def f(x):\n    return 2.5000000001"), **row) == (1.0, "passed")


CHECK = '''
def check(candidate):
    assert True, "this prints if the assert fails (good for debugging)"
    r = candidate(3)
    assert r == 9
    f = candidate
    assert f(2) == 4
    assert candidate(1) == 1
    for x in range(4, 6):
        assert candidate(x) == x * x
'''


def test_every_assert_of_a_humaneval_check_is_a_test_even_on_a_variable_or_an_alias():
    tests = humaneval_tests(CHECK, "square")
    assert [type(t).__name__ for t in tests] == ["AssertTest", "AssertTest", "CallTest", "AssertTest"]
    assert tests[2] == CallTest("square", (1,), 1)
    assert isinstance(tests[0], AssertTest) and "r = candidate(3)" in tests[0].source


def test_a_humaneval_check_with_asserts_on_variables_pays_a_constant_nothing(sandbox):
    row = {"test": CHECK, "entry_point": "square", "prompt": "def square(x):\n"}
    assert TestsPassed()(fence("def square(x):\n    return 4"), **row) == (0.25, "failed")  # only f(2) == 4
    assert AllPassed()(fence("def square(x):\n    return 4"), **row) == (0.0, "failed")
    assert TestsPassed()(fence("def square(x):\n    return x * x"), **row) == (1.0, "passed")


def test_a_check_that_rebinds_the_candidate_runs_as_written():
    check = "def check(candidate):\n    candidate = lambda x: 9\n    assert candidate(3) == 9\n"
    (test,) = humaneval_tests(check, "f")
    assert isinstance(test, AssertTest)  # not a call of the program's f(3): the check calls its own lambda
