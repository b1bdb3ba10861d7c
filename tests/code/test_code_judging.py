"""Competitive-programming judging (issue 45): special checkers run in a sandbox job of their own (a crashing
checker is None, never 0.0), IOI-style subtasks, and Open-R1's Codeforces and IOI rows.

The Open-R1 rows below follow the fields Open-R1's own scorers read, at huggingface/open-r1
@1416fa0cf21595d2083b399a2a0bbddd7f6e9563: src/open_r1/utils/competitive_programming/cf_scoring.py
(``official_tests``, ``generated_checker``, ``time_limit``, ``memory_limit``, ``input_mode``, ``id``) and
ioi_scoring.py (``id``, ``subtask``, ``score``, ``score_precision``, ``test_names``, ``test_cases``,
``grader_files``); the IOI graders' layout and the checker's command line (``checker input.txt
correct_output.txt solution_output``, the score on stdout) are those of huggingface/ioi
@f4f055b81214f755287c1c23cacb33db254e8c74: run_tests/custom_setup/compile and run. The Codeforces row is
problem 1A (Theatre Square) with its first official test.
"""

from __future__ import annotations

import json

import pytest

from grpo_rewards_code import AllPassed, TestsPassed
from grpo_rewards_code.formats import normalise_tests
from grpo_rewards_code.judging import Subtask, row_checker, row_subtasks, subtask_value

#: a problem with many answers: print any two numbers that sum to n (the checker reads the input)
SUM_CHECKER = """
import sys
inp, got, expected = (open(p).read().split() for p in sys.argv[1:])  # testlib's order: input output answer
try:
    a, b = map(int, got)
except ValueError:
    sys.exit(2)  # testlib's presentation error
sys.exit(0 if a + b == int(inp[0]) else 1)  # testlib: 0 accepted, 1 wrong answer
"""
ANY_PAIR = {"tests": [{"input": "5\n", "output": "2 3\n"}, {"input": "10\n", "output": "5 5\n"}], "checker": SUM_CHECKER}
PAIR = "```python\nn = int(input())\nprint(1, n - 1)\n```"  # never the expected pair, always right


def test_a_checker_accepts_any_right_answer_that_plain_comparison_rejects(sandbox):
    assert TestsPassed()(PAIR, **ANY_PAIR) == (1.0, "passed")
    assert TestsPassed()(PAIR, tests=ANY_PAIR["tests"]) == (0.0, "failed")  # no checker: compared with 2 3
    assert TestsPassed()("```python\nprint(1, 1)\n```", **ANY_PAIR) == (0.0, "failed")
    assert TestsPassed()("```python\nprint('x')\n```", **ANY_PAIR) == (0.0, "failed")  # presentation error


def test_a_checker_in_cpp_is_compiled_and_its_partial_score_counts(sandbox):
    # a CMS-style checker (the row says so): the score on stdout; half marks when the first number is right but not
    # the second
    checker = ("#include <cstdio>\nint main(int c, char** v) { FILE* e = fopen(v[2], \"r\"); FILE* o = fopen(v[3], \"r\");\n"
               "  long a, b, x = -1, y = -1; fscanf(e, \"%ld %ld\", &a, &b); fscanf(o, \"%ld %ld\", &x, &y);\n"
               "  printf(\"%s\\n\", a == x ? (b == y ? \"1\" : \"0.5\") : \"0\"); }")
    row = {"tests": [{"input": "", "output": "1 2\n"}, {"input": "", "output": "1 3\n"}], "checker": checker,
           "checker_order": "cms"}
    assert row_checker(row).language == "cpp"
    assert TestsPassed()("```python\nprint(1, 2)\n```", **row) == (0.75, "failed")
    assert AllPassed()("```python\nprint(1, 2)\n```", **row) == (0.0, "failed")


@pytest.mark.parametrize(("checker", "why"), [
    ("raise RuntimeError('checker bug')", "RuntimeError: checker bug"),
    ("import sys\nsys.exit(3)", "exit status 3"),  # testlib's _fail: the checker says it failed
    ("print(7)", "outside"),  # a score outside [0, 1]
    ("while True:\n    pass", "timeout"),
    ("def broken(:", "compile_error"),
])
def test_a_checker_that_fails_is_none_and_never_a_zero(sandbox, checker, why):
    row = {**ANY_PAIR, "checker": checker}
    with pytest.warns(RuntimeWarning, match=why):  # (a second of CPU: the looping checker spins until its limit)
        assert TestsPassed(checker_time_limit=1.0)(PAIR, **row) == (None, "sandbox_error")


def test_the_checker_runs_after_the_program_and_sees_nothing_it_left(sandbox):
    # the program plants a forged verdict where a checker might look, and a file in /tmp; the checker (a
    # job of its own, /tmp emptied after the program) finds neither
    program = ("```python\nimport os\nopen('/tmp/files/solution_output.txt', 'w').write('forged') if os.path.isdir("
               "'/tmp/files') else None\nopen('/tmp/planted', 'w').write('1')\nprint(1, 1)\n```")
    checker = SUM_CHECKER.replace("import sys\n", "import os, sys\nif os.path.exists('/tmp/planted'):\n    print(1)\n"
                                  "    sys.exit(0)\n")
    assert TestsPassed()(program, **{**ANY_PAIR, "checker": checker}) == (0.0, "failed")


def test_subtasks_pay_their_points_only_when_all_their_tests_pass(sandbox):
    tests = [{"input": f"{n}\n", "output": f"{n * n}\n"} for n in (1, 2, 3, 1000)]
    row = {"tests": tests, "subtasks": [{"points": 30, "tests": [0, 1]}, {"points": 70, "tests": [1, 2, 3]}]}
    square = "```python\nn = int(input())\nprint(n * n)\n```"
    small = "```python\nn = int(input())\nprint(n * n if n < 100 else 0)\n```"
    assert TestsPassed()(square, **row) == (1.0, "passed")
    assert TestsPassed()(small, **row) == (0.3, "failed")  # 3 of 4 tests pass, but only the first subtask
    assert TestsPassed()(small, tests=tests) == (0.75, "failed")
    assert AllPassed()(small, **row) == (0.0, "failed")


def test_subtask_scores_are_each_subtasks_lowest_test_times_its_points():
    assert subtask_value([1.0, 0.5, 1.0], [Subtask(40, (0,)), Subtask(60, (1, 2))]) == 0.7
    assert subtask_value([0.0, 1.0], [Subtask(0, (0,)), Subtask(10, (1,))]) == 1.0


@pytest.mark.parametrize(("subtasks", "says"), [
    ([{"points": 10, "tests": [5]}], "indices of the row's 2 tests"),
    ([{"points": -1, "tests": [0]}], "at least 0"),
    ([{"points": 10 ** 400, "tests": [0]}], "at least 0"),  # OverflowError (math.isfinite of a 400-digit integer)
    ([{"tests": [0]}], "must be"),
    ([], "non-empty"),
])
def test_malformed_subtasks_are_no_tests_and_named_at_row_checks(subtasks, says):
    row = {"tests": ANY_PAIR["tests"], "subtasks": subtasks}
    with pytest.raises(ValueError, match=says):
        row_subtasks(row, 2)
    assert TestsPassed()(PAIR, **row) == (None, "no_tests")
    assert any(says in line for line in TestsPassed.check_rows([row]))


# -- Open-R1's rows ----------------------------------------------------------------------------------------
#: open-r1/codeforces, problem 1A (Theatre Square), with its first official test; no checker
CF_1A = {"id": "1/A", "contest_id": "1", "title": "Theatre Square", "time_limit": 1.0, "memory_limit": 256.0,
         "input_mode": "stdio", "interaction_format": None, "generated_checker": None,
         "official_tests": [{"input": "6 6 4\n", "output": "4\n"}, {"input": "1 1 1\n", "output": "1\n"},
                            {"input": "1000000000 1000000000 1\n", "output": "1000000000000000000\n"}]}
THEATRE_CPP = ("#include <cstdio>\nint main() { long long n, m, a; scanf(\"%lld %lld %lld\", &n, &m, &a);\n"
               "  printf(\"%lld\\n\", ((n + a - 1) / a) * ((m + a - 1) / a)); }")
THEATRE_INT = THEATRE_CPP.replace("long long", "int").replace("%lld", "%d")  # overflows on the last test


def test_an_open_r1_codeforces_row_is_read_and_judged(sandbox):
    assert [t.input for t in normalise_tests(CF_1A)] == ["6 6 4\n", "1 1 1\n", "1000000000 1000000000 1\n"]
    score = TestsPassed(language="cpp")
    assert score(f"```cpp\n{THEATRE_CPP}\n```", **CF_1A) == (1.0, "passed")
    assert score(f"```cpp\n{THEATRE_INT}\n```", **CF_1A) == (pytest.approx(2 / 3), "failed")


def test_an_open_r1_codeforces_row_with_a_generated_checker_uses_it(sandbox):
    # Open-R1's generated checkers are Python, called with the three files; this one prints 1 or 0
    checker = ("import sys\nexp, got = (open(p).read().split() for p in sys.argv[2:])\n"
               "print(1 if [int(x) for x in exp] == [int(x) for x in got] else 0)")
    row = {**CF_1A, "generated_checker": checker}
    assert row_checker(row).language == "python"
    assert TestsPassed(language="cpp")(f"```cpp\n{THEATRE_CPP}\n```", **row) == (1.0, "passed")
    assert TestsPassed(language="cpp")(f"```cpp\n{THEATRE_INT}\n```", **row) == (pytest.approx(2 / 3), "failed")


@pytest.mark.parametrize(("change", "says"), [
    ({"interaction_format": "Interaction: ..."}, "interactive"),
    ({"input_mode": "file"}, "only 'stdio'"),
])
def test_codeforces_rows_that_cannot_run_here_are_no_tests(change, says):
    with pytest.raises(ValueError, match=says):
        normalise_tests({**CF_1A, **change})
    assert TestsPassed(language="cpp")(f"```cpp\n{THEATRE_CPP}\n```", **{**CF_1A, **change}) == (None, "no_tests")


#: an Open-R1 IOI row (one subtask per row), its tests inline as Open-R1's scorer accepts them, with graders in
#: the layout of huggingface/ioi's compile script: graders/<problem>.h, graders/grader.cpp, and a checker
IOI_ROW = {
    "id": "sum", "year": 2024, "subtask": "01-small", "score": 9, "score_precision": 2,
    "time_limit": 1.0, "memory_limit": 1073741824,
    "test_names": ["0-01", "0-02"],
    "test_cases": {"0-01": ["2\n1 2\n", "3\n"], "0-02": ["3\n5 5 5\n", "15\n"]},
    "grader_files": [
        ["graders/sum.h", "#include <vector>\nlong long total(std::vector<int> a);\n"],
        ["graders/grader.cpp", "#include \"sum.h\"\n#include <cstdio>\nint main() { int n; scanf(\"%d\", &n);\n"
                               "  std::vector<int> a(n); for (int& x : a) scanf(\"%d\", &x);\n"
                               "  printf(\"%lld\\n\", total(a)); }\n"],
        ["graders/grader_config.json", json.dumps({"code": "sum", "task_type": "Batch", "time_limit": 1.0})],
        ["checker/checker.cpp", "#include <cstdio>\nint main(int c, char** v) { FILE* e = fopen(v[2], \"r\");\n"
                                "  FILE* o = fopen(v[3], \"r\"); long long a, b = -1; fscanf(e, \"%lld\", &a);\n"
                                "  fscanf(o, \"%lld\", &b); printf(a == b ? \"1\\n\" : \"0\\n\");\n"
                                "  fprintf(stderr, a == b ? \"Output is correct\\n\" : \"Output isn't correct\\n\"); }\n"],
    ],
}
IOI_SOLUTION = "```cpp\n#include \"sum.h\"\nlong long total(std::vector<int> a) { long long s = 0; for (int x : a) s += x;" \
               " return s; }\n```"


def test_an_open_r1_ioi_row_compiles_with_its_graders_and_scores_its_subtask(sandbox):
    assert [t.output for t in normalise_tests(IOI_ROW)] == ["3\n", "15\n"]
    assert row_subtasks(IOI_ROW, 2) == [Subtask(9.0, (0, 1), "01-small")]
    score = TestsPassed(language="cpp")
    assert score(IOI_SOLUTION, **IOI_ROW) == (1.0, "passed")
    assert score(IOI_SOLUTION.replace("s += x", "s += x > 4 ? 0 : x"), **IOI_ROW) == (0.0, "failed")  # one test fails
    assert score(IOI_SOLUTION.replace("total(", "totl("), **IOI_ROW) == (0.0, "compile_error")  # the grader calls total


def test_an_ioi_checker_is_compiled_with_the_headers_beside_it(sandbox):
    # as CMS packages ship it: checker/checker.cpp including "testlib.h" from its own folder (a stand-in header)
    header = ["checker/testlib.h", "#include <cstdio>\ninline double verdict(long long a, long long b) { return a == b; }\n"]
    checker = ["checker/checker.cpp", "#include \"testlib.h\"\nint main(int c, char** v) { FILE* e = fopen(v[2], \"r\");\n"
                                      "  FILE* o = fopen(v[3], \"r\"); long long a, b = -1; fscanf(e, \"%lld\", &a);\n"
                                      "  fscanf(o, \"%lld\", &b); printf(\"%g\\n\", verdict(a, b)); }\n"]
    row = {**IOI_ROW, "grader_files": [*IOI_ROW["grader_files"][:3], header, checker]}
    assert row_checker(row).files == (tuple(header),)
    assert TestsPassed(language="cpp")(IOI_SOLUTION, **row) == (1.0, "passed")


def test_an_interactive_ioi_task_is_no_tests():
    config = ["graders/grader_config.json", json.dumps({"code": "sum", "task_type": "Communication"})]
    row = {**IOI_ROW, "grader_files": [*IOI_ROW["grader_files"][:2], config]}
    assert TestsPassed(language="cpp")(IOI_SOLUTION, **row) == (None, "no_tests")
