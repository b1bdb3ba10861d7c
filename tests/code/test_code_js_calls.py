"""Call tests for JavaScript (issue 45): a row's JSON call tests run a Node.js program through a driver that calls
``fn_name`` with the test's arguments and writes the value back (grpo_rewards_code.js_calls); the value is compared
outside. C++, Java and Rust run stdin/stdout tests only (their rows' call tests are no_tests)."""

from __future__ import annotations

import json

import pytest

from grpo_rewards_code import TestsPassed
from grpo_rewards_code.languages import missing

ROW = {"language": "javascript", "fn_name": "twoSum",
       "tests": [{"call": [[2, 7, 11, 15], 9], "output": [0, 1]}, {"call": [[3, 2, 4], 6], "output": [1, 2]},
                 {"call": [[3, 3], 6], "output": [0, 1]}]}
RIGHT = """```javascript
function twoSum(nums, target) {
  const seen = new Map();
  for (let i = 0; i < nums.length; i++) {
    if (seen.has(target - nums[i])) return [seen.get(target - nums[i]), i];
    seen.set(nums[i], i);
  }
}
```"""
FIRST_PAIR_ONLY = "```javascript\nconst twoSum = (nums, target) => [0, 1];\n```"  # right on tests 0 and 2


@pytest.fixture
def node(sandbox):
    if (problem := missing("javascript")) is not None:
        pytest.skip(f"javascript cannot run here: {problem}")


def test_a_javascript_function_passes_json_call_tests(node):
    assert TestsPassed()(RIGHT, **ROW) == (1.0, "passed")
    labels, _, scores, _ = TestsPassed().judge(FIRST_PAIR_ONLY, **ROW)
    assert (labels, scores) == (["passed", "failed", "passed"], [1.0, 0.0, 1.0])


def test_printing_does_not_disturb_the_value_and_a_missing_function_is_a_runtime_error(node):
    noisy = RIGHT.replace("const seen", "console.log('debug', target);\n  const seen")
    assert TestsPassed()(noisy, **ROW) == (1.0, "passed")
    assert TestsPassed()("```javascript\nfunction other() { return 1; }\n```", **ROW) == (0.0, "runtime_error")


def test_values_json_cannot_carry_and_promises_never_pass(node):
    row = {"language": "javascript", "fn_name": "f", "tests": [{"call": [1], "output": 1}]}
    assert TestsPassed()("```javascript\nfunction f(x) { return BigInt(x); }\n```", **row) == (0.0, "runtime_error")
    assert TestsPassed()("```javascript\nasync function f(x) { return x; }\n```", **row) == (0.0, "failed")
    assert TestsPassed()("```javascript\nfunction f(x) { return x; }\n```", **row) == (1.0, "passed")


def test_an_apps_row_with_fn_name_runs_in_javascript(node):
    # APPS/TACO store a call's expected value as [value]; undefined comes back as null
    row = {"language": "javascript", "input_output": json.dumps({"fn_name": "square", "inputs": [[3], [4]],
                                                                   "outputs": [[9], [16]]})}
    assert TestsPassed()("```javascript\nfunction square(n) { return n * n; }\n```", **row) == (1.0, "passed")
    assert TestsPassed()("```javascript\nfunction square(n) { }\n```", **row) == (0.0, "failed")


def test_a_function_name_that_is_not_an_identifier_is_no_tests(node):
    row = {**ROW, "fn_name": "twoSum); process.exit(0"}
    assert TestsPassed()(RIGHT, **row) == (None, "no_tests")


@pytest.mark.parametrize("language", ["cpp", "java", "rust"])
def test_typed_languages_run_no_call_tests(language):
    # no driver for a typed language: the row's call tests are left out, and a row of call tests only has none
    row = {**ROW, "language": language}
    assert TestsPassed()(f"```{language}\nint main() {{}}\n```", **row) == (None, "no_tests")


def test_the_modules_docstring_examples_pass():
    import doctest

    from grpo_rewards_code import js_calls

    result = doctest.testmod(js_calls)
    assert result.failed == 0 and result.attempted == 2


@pytest.mark.parametrize("depth", [200_000, 950])
def test_a_value_nested_past_what_python_reads_is_a_runtime_error_not_an_exception(node, depth):
    # the driver's line is the program's to write: one nested 200,000 deep raised RecursionError from json.loads, one
    # 950 deep from the comparison, out of the reward; like a Python call test's value, at most 100 levels are read
    deep = (f"function f(x) {{ process.on('exit', () => process.stdout.write('\\n' + '['.repeat({depth}) + "
            f"']'.repeat({depth}) + '\\n')); return x; }}")
    row = {"language": "javascript", "fn_name": "f", "tests": [{"call": [1], "output": [[1]]}]}
    assert TestsPassed()(f"```javascript\n{deep}\n```", **row) == (0.0, "runtime_error")
    within = "function f(x) { return [[x]]; }"
    assert TestsPassed()(f"```javascript\n{within}\n```", **row) == (1.0, "passed")
