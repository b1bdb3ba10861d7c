"""code.tests_passed and code.all_passed on real rows: values, labels, limits, C++, and HumanEval."""

from __future__ import annotations

import ast
import pickle

import pytest

import grpo_rewards_code as code
from grpo_rewards_code import AllPassed, TestsPassed, make_humaneval
from grpo_rewards_code.runner import LocalRunner
from grpo_rewards_code.sandbox import Sandbox


def fence(code: str, language: str = "python") -> str:
    return f"My answer:\n```{language}\n{code.strip()}\n```\n"


SUM = {"tests": [{"input": "1 2\n", "output": "3\n"}, {"input": "20 22\n", "output": "42\n"},
                 {"input": "5 " * 200 + "\n", "output": "1000\n"}]}
SOLUTION = "print(sum(map(int, input().split())))"


def test_a_correct_program_passes_every_test(sandbox):
    assert TestsPassed()(fence(SOLUTION), **SUM) == (1.0, "passed")
    assert AllPassed()(fence(SOLUTION), **SUM) == (1.0, "passed")


def test_a_partly_right_program_gets_its_fraction_and_all_passed_nothing(sandbox):
    program = fence("xs = list(map(int, input().split()))\nprint(sum(xs) if len(xs) < 3 else 0)")
    assert TestsPassed()(program, **SUM) == (2 / 3, "failed")
    assert AllPassed()(program, **SUM) == (0.0, "failed")


@pytest.mark.parametrize(("code", "label"), [
    ("print(1", "compile_error"),
    ("raise SystemExit(3)", "runtime_error"),
    ("while True:\n    pass", "timeout"),
    ("x = bytearray(4 << 30)", "memory"),
    ("print('9' * 5_000_000)", "output_limit"),
])
def test_failure_labels(sandbox, code, label):
    # the short limit only where the label is the timeout: the others end in milliseconds, whatever the machine's load
    assert TestsPassed(time_limit=0.5 if label == "timeout" else 10.0)(fence(code), **SUM) == (0.0, label)


def test_no_fenced_block_is_no_code_and_the_last_block_of_the_language_runs(sandbox):
    assert TestsPassed()(SOLUTION, **SUM) == (0.0, "no_code")
    text = fence("print(0)") + fence(SOLUTION) + fence("not code at all", "text")
    assert TestsPassed()(text, **SUM) == (1.0, "passed")


def test_a_failed_sandbox_is_none_never_zero():
    scorer = TestsPassed()
    scorer.runner = LocalRunner(Sandbox("bwrap", "/nonexistent/bwrap"))
    with pytest.warns(RuntimeWarning, match="the sandbox failed: .*/nonexistent/bwrap"):
        assert scorer(fence(SOLUTION), **SUM) == (None, "sandbox_error")


def test_call_tests_compare_returned_values_outside_and_refuse_lying_objects(sandbox):
    row = {"test_list": ["assert add(1, 2) == 3", "assert add(20, 22) == 42"]}
    assert TestsPassed()(fence("def add(a, b):\n    return a + b"), **row) == (1.0, "passed")
    liar = "class A:\n    def __eq__(self, o):\n        return True\ndef add(a, b):\n    return A()"
    assert TestsPassed()(fence(liar), **row) == (0.0, "runtime_error")
    # a tuple is not the list the test expects (Python's ==, as the assert would say)
    assert TestsPassed()(fence("def add(a, b):\n    return [a + b]"), test_list=["assert add(1, 2) == (3,)"]) == (
        0.0, "failed")


def test_assert_tests_of_other_shapes_run_against_plain_values(sandbox):
    row = {"test_list": ["assert add(1, 2) in (3, 4)", "assert abs(add(0.1, 0.2) - 0.3) < 1e-9"]}
    assert TestsPassed()(fence("def add(a, b):\n    return a + b"), **row) == (1.0, "passed")
    liar = "class A(float):\n    def __lt__(self, o):\n        return True\n    __eq__ = __lt__\ndef add(a, b):\n    return A()"
    assert TestsPassed()(fence(liar), **row) == (0.0, "runtime_error")


def test_comparison_tokens_tolerates_spacing_and_exact_does_not(sandbox):
    row = {"tests": [{"input": "", "output": "1 2\n3\n"}]}
    spaced = fence("print('1   2 ')\nprint('3.0000000001')")
    assert TestsPassed()(spaced, **row) == (1.0, "passed")
    assert TestsPassed(comparison="exact")(spaced, **row) == (0.0, "failed")
    assert TestsPassed()(fence("print(1, 2, 3)"), **row) == (0.0, "failed")  # same tokens, other lines


def test_the_rows_time_limit_is_used_when_the_parameter_is_unset(sandbox):
    slow = fence("import time\nt = time.process_time()\nwhile time.process_time() - t < 0.6:\n    pass\nprint(3)")
    row = {"tests": [{"input": "", "output": "3"}]}
    assert TestsPassed()(slow, **row, time_limit="0.3 seconds") == (0.0, "timeout")
    assert TestsPassed()(slow, **row, time_limit=3) == (1.0, "passed")


def test_max_tests_keeps_the_longest_inputs(sandbox):
    scorer = TestsPassed(max_tests=1)
    only_long = fence("xs = input().split()\nprint(1000 if len(xs) > 2 else -1)")
    assert scorer(only_long, **SUM) == (1.0, "passed")


def test_stop_on_first_failure_skips_the_rest(sandbox):
    row = {"tests": [{"input": "", "output": "1"}] + [{"input": "", "output": "2"}] * 3}
    explained = TestsPassed(stop_on_first_failure=True).explain(fence("print(2)"), **row)
    assert explained["labels"] == ["failed", "failed", "failed", "failed"] and explained["value"] == 0.0


def test_cpp_compiles_once_and_runs_each_test(sandbox):
    program = fence("#include <iostream>\nint main(){long a,b; std::cin>>a>>b; std::cout<<a+b<<\"\\n\";}", "cpp")
    row = {"tests": SUM["tests"][:2]}
    assert TestsPassed(language="cpp")(program, **row) == (1.0, "passed")
    assert TestsPassed(language="cpp")(fence("int main( {", "cpp"), **row) == (0.0, "compile_error")
    loop = fence("int main(){ volatile long x = 0; while (true) x++; }", "cpp")
    assert TestsPassed(language="cpp", time_limit=0.5)(loop, **row) == (0.0, "timeout")


def test_the_exported_rewards_are_picklable_and_keep_their_names(sandbox):
    for reward in (code.tests_passed, code.all_passed):
        clone = pickle.loads(pickle.dumps(reward))
        assert clone.__name__ == reward.__name__
        assert clone(prompts=["p"], completions=[fence(SOLUTION)], tests=[SUM["tests"]]) == [1.0]


def _return_none(problem):
    tree = ast.parse(problem["context"])
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == problem["entry_point"]:
            node.body = [ast.Return(ast.Constant(None))]
    return ast.unparse(tree)


@pytest.mark.parametrize("index", [0, 12, 32, 38, 52, 90, 129, 163])
def test_humaneval_canonical_solutions_pass_and_return_none_fails(sandbox, index):
    from grpo_rewards_code.tasks import humaneval_problems

    row = make_humaneval(164, seed=0)[index]
    canonical = humaneval_problems()[index]
    solution = fence(canonical["prompt"] + canonical["canonical_solution"])
    assert TestsPassed()(solution, **row) == (1.0, "passed")
    assert AllPassed()(solution, **row) == (1.0, "passed")
    assert AllPassed()(fence(_return_none(row)), **row) == (0.0, "failed")
    value, _ = TestsPassed()(fence(_return_none(row)), **row)
    # HumanEval/12 (`== None`), 52 (`assert not ...`) and 90 (`is None`) have asserts that None satisfies
    assert (value > 0) == (index in (12, 52, 90))


def test_many_assert_tests_in_one_row(sandbox):
    row = {"test_list": [f"assert add({i}, 1) in ({i + 1},)" for i in range(300)]}
    assert TestsPassed()(fence("def add(a, b):\n    return a + b"), **row) == (1.0, "passed")
