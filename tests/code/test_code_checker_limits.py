"""A checker's limits are the reward's options (issue 45): ``checker_time_limit`` CPU seconds and
``checker_memory_limit_mb`` per verdict, validated as every option is (grpo_rewards.params), enforced in the
sandbox; a checker past them is the checker's failure (``None``, ``sandbox_error``), never a 0.0 for the program."""

from __future__ import annotations

import pytest

from grpo_rewards import RewardSetError, load_reward_set
from grpo_rewards_code import TestsPassed
from grpo_rewards_code.judging import CHECKER_LIMITS

TESTS = [{"input": "5\n", "output": "5\n"}]
ECHO = "```python\nprint(input())\n```"
#: a testlib-order checker that first holds about 300 MB, then accepts equal outputs
BIG_CHECKER = ("import sys\nheld = bytearray(300 << 20)\n"
               "out, ans = (open(p).read().split() for p in sys.argv[2:])\nsys.exit(0 if out == ans else 1)")
SPIN_CHECKER = "while True:\n    pass"


def test_the_defaults_are_ten_seconds_and_a_gibibyte():
    score = TestsPassed()
    assert (score.checker_time_limit, score.checker_memory_limit_mb) == (10.0, 1024)
    assert score.checker_limits() == CHECKER_LIMITS
    limits = TestsPassed(checker_time_limit=0.5, checker_memory_limit_mb=128).checker_limits()
    assert (limits.time, limits.memory, limits.total) == (0.5, 128 << 20, CHECKER_LIMITS.total)


def test_a_checker_over_its_memory_limit_is_none_and_under_it_judges(sandbox):
    row = {"tests": TESTS, "checker": BIG_CHECKER}
    assert TestsPassed()(ECHO, **row) == (1.0, "passed")  # 300 MB is within the default GiB
    with pytest.warns(RuntimeWarning, match="the checker failed: (memory|runtime_error)"):
        assert TestsPassed(checker_memory_limit_mb=128)(ECHO, **row) == (None, "sandbox_error")


def test_a_checker_over_its_time_limit_is_none(sandbox):
    with pytest.warns(RuntimeWarning, match="the checker failed: timeout"):
        assert TestsPassed(checker_time_limit=0.5)(ECHO, tests=TESTS, checker=SPIN_CHECKER) == (None, "sandbox_error")


RANGE_T = "checker_time_limit must be a number in [0.01, 60], got "
RANGE_M = "checker_memory_limit_mb must be an integer in [16, 16384], got "


@pytest.mark.parametrize(("params", "says", "set_says"), [
    ({"checker_time_limit": 0}, RANGE_T + "0", "ValueError: " + RANGE_T + "0"),
    ({"checker_time_limit": 61}, RANGE_T + "61", "ValueError: " + RANGE_T + "61"),
    ({"checker_memory_limit_mb": 8}, RANGE_M + "8", "ValueError: " + RANGE_M + "8"),
    # a wrong type: the reward set's signature check names it first
    ({"checker_time_limit": "fast"}, RANGE_T + "'fast'", "parameter 'checker_time_limit' must be float, got 'fast'"),
    ({"checker_memory_limit_mb": 256.5}, RANGE_M + "256.5", "parameter 'checker_memory_limit_mb' must be int, got 256.5"),
    ({"checker_memory_limit_mb": True}, RANGE_M + "True", "parameter 'checker_memory_limit_mb' must be int, got True"),
])
def test_checker_limits_out_of_range_are_errors_when_the_reward_set_is_built(params, says, set_says):
    with pytest.raises(ValueError) as error:
        TestsPassed(**params)
    assert str(error.value) == says
    with pytest.raises(RewardSetError) as problems:
        load_reward_set([{"use": "code.tests_passed", "with": params}])
    assert str(problems.value) == f"reward set: entry 1 (code.tests_passed): {set_says}"
