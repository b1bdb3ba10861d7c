"""Which order a special checker takes its files in (issue 45): testlib's ``input output answer`` (the default for
a ``checker`` column) or CMS's ``input answer output`` (Open-R1's checkers), chosen by the row's ``checker_order``
or pinned by the reward's ``checker_order``.

The testlib checker is a real one, compiled in the sandbox: testlib's own ``checkers/ncmp.cpp`` with its
``testlib.h`` (tests/code/data/testlib, MikeMirzayanov/testlib @1e4e8a24c79c6bad3becbdb5a332ffc352b7d5dd, see
SOURCES.json). testlib reads the output stream leniently and the answer strictly: a contestant's ``abc`` where a
number belongs is a presentation error (exit 2: 0.0) when it is read as the output, but the checker's own failure
(exit 3, "the jury's answer is wrong": ``None``) when the CMS order hands it over as the answer.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from grpo_rewards_code import TestsPassed
from grpo_rewards_code.judging import CHECKER_ORDERS, row_checker_order

#: on one xdist worker: the two tests of ncmp as one file compile the same checker, and on one worker the second
#: takes the first's binary from the compile cache (each worker has its own: ~8 s of g++ once instead of twice)
pytestmark = pytest.mark.xdist_group("testlib-ncmp")

DATA = Path(__file__).parent / "data" / "testlib"
TESTLIB = (DATA / "testlib.h").read_text(encoding="utf-8")
NCMP = (DATA / "ncmp.cpp").read_text(encoding="utf-8")
#: ncmp as one source file (a ``checker`` column carries no headers): testlib.h in place of its include
NCMP_ONE_FILE = NCMP.replace('#include "testlib.h"', TESTLIB)
#: one program, three verdicts: right on the first test, a wrong number on the second, a word on the third
TESTS = [{"input": "2 2\n", "output": "4\n"}, {"input": "3 4\n", "output": "7\n"}, {"input": "5 1\n", "output": "6\n"}]
MIXED = "```python\na, b = map(int, input().split())\nprint({2: a + b, 3: a + b + 1}.get(a, 'abc'))\n```"

#: a CMS-style checker (IOI's convention: argv[2] the jury's answer, argv[3] the contestant's output, the score on
#: stdout) for a problem with many answers: any two numbers that sum to the input's n
CMS_PAIR_CHECKER = r"""#include <cstdio>
int main(int argc, char** argv) {
  FILE* in = fopen(argv[1], "r"); FILE* out = fopen(argv[3], "r");
  long long n = 0, a = 0, b = 0;
  if (fscanf(in, "%lld", &n) != 1) return 3;
  bool ok = fscanf(out, "%lld %lld", &a, &b) == 2 && a + b == n;
  printf("%d\n", ok ? 1 : 0);
  fprintf(stderr, ok ? "translate:success\n" : "translate:wrong\n");
}
"""
PAIRS = [{"input": "5\n", "output": "2 3\n"}, {"input": "10\n", "output": "5 5\n"}]
ONE_AND_REST = "```python\nn = int(input())\nprint(1, n - 1)\n```"  # right, never the jury's pair
ZERO_ZERO = "```python\nprint(0, 0)\n```"  # wrong


def test_the_two_orders_name_the_same_files_with_output_and_answer_swapped():
    assert CHECKER_ORDERS == {"testlib": ("input.txt", "solution_output.txt", "correct_output.txt"),
                              "cms": ("input.txt", "correct_output.txt", "solution_output.txt")}


@pytest.mark.parametrize(("row", "order"), [
    ({"checker": "x"}, "testlib"),
    ({"checker": "x", "checker_order": "cms"}, "cms"),
    ({"generated_checker": "x"}, "cms"),  # Open-R1 calls its Codeforces checkers input, answer, output
    ({"grader_files": [["checker/checker.cpp", "x"]]}, "cms"),  # and its IOI checkers
    ({"grader_files": [["checker/checker.cpp", "x"]], "checker_order": "testlib"}, "testlib"),
])
def test_the_rows_checker_order_is_its_column_else_its_source_s(row, order):
    assert row_checker_order(row) == order


def test_a_real_testlib_checker_judges_in_testlibs_order_by_default(sandbox):
    labels, _, scores, _ = TestsPassed().judge(MIXED, tests=TESTS, checker=NCMP_ONE_FILE)
    # right; numbers differ (exit 1); the output is not a number: a presentation error (exit 2)
    assert (labels, scores) == (["passed", "failed", "failed"], [1.0, 0.0, 0.0])


def test_a_testlib_checker_pinned_to_cms_order_blames_the_jury_and_the_sample_is_none(sandbox):
    # the reward's option pins the order over the row's: the program's "abc" is then "the answer", and testlib
    # fails (exit 3: the jury's answer is not a number)
    row = {"tests": TESTS, "checker": NCMP_ONE_FILE, "checker_order": "testlib"}
    with pytest.warns(RuntimeWarning, match=r"'exit': 3"):
        assert TestsPassed(checker_order="cms")(MIXED, **row) == (None, "sandbox_error")


def test_a_testlib_checker_with_its_header_beside_it_takes_the_rows_order(sandbox):
    # an IOI-style row (checker/checker.cpp with checker/testlib.h) is called in CMS's order unless the row says
    files = [["checker/checker.cpp", NCMP], ["checker/testlib.h", TESTLIB]]
    row = {"tests": TESTS, "grader_files": files, "checker_order": "testlib"}
    assert TestsPassed()(MIXED, **row) == (pytest.approx(1 / 3), "failed")


def test_a_cms_checker_judges_in_cms_order_and_accepts_anything_in_testlibs(sandbox):
    row = {"tests": PAIRS, "checker": CMS_PAIR_CHECKER, "checker_order": "cms"}
    assert TestsPassed()(ONE_AND_REST, **row) == (1.0, "passed")
    assert TestsPassed()(ZERO_ZERO, **row) == (0.0, "failed")
    # in testlib's order its argv[3] is the jury's own pair: every output passes (why the order must be right)
    assert TestsPassed(checker_order="testlib")(ZERO_ZERO, **row) == (1.0, "passed")
    assert TestsPassed()(ZERO_ZERO, tests=PAIRS, checker=CMS_PAIR_CHECKER) == (1.0, "passed")  # the default


def test_an_unknown_checker_order_is_a_parameter_error_or_a_rows_no_tests(sandbox):
    with pytest.raises(ValueError, match="checker_order must be one of testlib, cms, got 'polygon'"):
        TestsPassed(checker_order="polygon")
    row = {"tests": PAIRS, "checker": CMS_PAIR_CHECKER, "checker_order": "ioi"}
    with pytest.raises(ValueError, match="'checker_order' must be one of testlib, cms"):
        row_checker_order(row)
    assert TestsPassed()(ONE_AND_REST, **row) == (None, "no_tests")
    assert TestsPassed.check_rows([row]) == ["row 0: 'checker_order' must be one of testlib, cms, not 'ioi'"]
