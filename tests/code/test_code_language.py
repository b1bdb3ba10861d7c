"""The row's language decides which code runs and how (issue 42): Open-R1's ``verification_info.language``,
a ``language`` column, unless the ``language`` parameter pins one; a block in another language is its own label."""

from __future__ import annotations

import json
import random
import re
import time

import pytest

from grpo_rewards_code import TestsPassed
from grpo_rewards_code.extract import choose_code, fenced_blocks
from grpo_rewards_code.formats import row_language

CPP_SUM = "#include <iostream>\nint main(){long a,b; std::cin>>a>>b; std::cout<<a+b<<\"\\n\";}"
PY_SUM = "print(sum(map(int, input().split())))"
CASES = [{"type": "stdin_stdout", "input": "1 2\n", "output": "3\n"},
         {"type": "stdin_stdout", "input": "20 22\n", "output": "42\n"}]


def open_r1_row(language: str) -> dict[str, str]:
    # the shape of open-r1/verifiable-coding-problems-python (and its cpp rows): verification_info as JSON text
    return {"problem_id": "p1", "verification_info": json.dumps({"language": language, "test_cases": CASES})}


def fence(code: str, tag: str) -> str:
    return f"Here is my solution:\n```{tag}\n{code}\n```\n"


def test_an_open_r1_cpp_row_runs_its_correct_cpp_block_as_cpp(sandbox):
    # on main this was (0.0, 'compile_error'): the default language python pinned every row
    assert TestsPassed()(fence(CPP_SUM, "cpp"), **open_r1_row("cpp")) == (1.0, "passed")
    assert TestsPassed()(fence(CPP_SUM, "c++"), **open_r1_row("c++")) == (1.0, "passed")


def test_an_untagged_block_runs_in_the_rows_language(sandbox):
    assert TestsPassed()(fence(CPP_SUM, ""), **open_r1_row("cpp")) == (1.0, "passed")
    assert TestsPassed()(fence(PY_SUM, ""), **open_r1_row("python")) == (1.0, "passed")


def test_a_block_in_another_language_than_the_rows_is_wrong_language_and_never_runs(sandbox):
    assert TestsPassed()(fence(PY_SUM, "python"), **open_r1_row("cpp")) == (0.0, "wrong_language")
    assert TestsPassed()(fence(CPP_SUM, "cpp"), **open_r1_row("python")) == (0.0, "wrong_language")
    java = "class Main { public static void main(String[] a) {} }"
    assert TestsPassed()(fence(java, "java"), **open_r1_row("python")) == (0.0, "wrong_language")
    assert TestsPassed().explain(fence(java, "java"), **open_r1_row("python"))["labels"] == ["wrong_language"]


def test_the_language_parameter_pins_every_row(sandbox):
    assert TestsPassed(language="python")(fence(PY_SUM, "python"), **open_r1_row("cpp")) == (1.0, "passed")
    assert TestsPassed(language="python")(fence(CPP_SUM, "cpp"), **open_r1_row("cpp")) == (0.0, "wrong_language")
    assert TestsPassed(language="cpp")(fence(CPP_SUM, "cpp"), tests=[{"input": "1 2\n", "output": "3"}]) == (
        1.0, "passed")


def test_a_row_without_a_language_is_python(sandbox):
    assert TestsPassed()(fence(PY_SUM, "python"), tests=[{"input": "1 2\n", "output": "3"}]) == (1.0, "passed")
    assert TestsPassed()(fence(CPP_SUM, "cpp"), tests=[{"input": "1 2\n", "output": "3"}]) == (0.0, "wrong_language")


def test_a_row_in_a_language_the_sandbox_cannot_run_is_none_with_its_label():
    assert TestsPassed()(fence("package main", "go"), **open_r1_row("go")) == (None, "unsupported_language")


@pytest.mark.parametrize(("row", "language"), [
    ({"verification_info": {"language": "cpp", "test_cases": []}}, "cpp"),
    ({"verification_info": json.dumps({"language": "Python3", "test_cases": []})}, "python"),
    ({"language": "C++", "tests": []}, "cpp"),
    ({"language": "java", "tests": []}, "java"),
    ({"language": "en", "tests": []}, None),  # a column of natural languages is not the code's
    ({"verification_info": "not json", "language": "python"}, "python"),
    ({"tests": []}, None),
])
def test_the_rows_language_is_read_from_open_r1_or_a_language_column(row, language):
    assert row_language(row) == language


@pytest.mark.parametrize(("written", "language"), [
    # as Codeforces, AtCoder and submission datasets write them (before: None, so the row ran as Python)
    ("GNU C++17", "cpp"), ("C++ (GCC 9.2.1)", "cpp"), ("c++20", "cpp"), ("cpp17", "cpp"), ("MS C++ 2017", "cpp"),
    ("g++", "cpp"), ("Python 3", "python"), ("Python (3.8.2)", "python"), ("PyPy 3-64", "python"),
    ("python3.10", "python"), ("Java 8", "java"), ("Java 21", "java"), ("Rust 2021", "rust"), ("Node.js 12", "javascript"),
    ("Go 1.19", "go"), ("Kotlin 1.7", "kotlin"),
    # as judges list them (Codeforces, SPOJ, AtCoder): a vendor and an edition before the name, a compiler after it
    ("GNU G++17 7.3.0", "cpp"), ("Microsoft Visual C++ 2017", "cpp"), ("Clang++17 Diagnostics", "cpp"),
    ("GNU GCC C11 5.1.0", "cpp"), ("JavaScript V8 4.8.0", "javascript"), ("Python 3 nbc (python 3.7.3)", "python"),
    ("Python (PyPy 2.7.13)", "python2"), ("Python (cpython 2.7.16)", "python2"), ("Golang 1.19", "go"),
    ("Haxe (4.0.3); js", None), ("Objective-C (clang 8.0)", None), ("Cython (0.29.16)", None),
    ("Python 2", "python2"), ("PyPy 2", "python2"),  # Python 2's code is not Python 3's: a language not run here
    ("en", None), ("English", None), ("de-DE", None), ("Delphi 7", None), ("x" * 200 + " 3", None),
])
def test_a_language_written_with_a_compiler_or_a_version_is_that_language(written, language):
    assert row_language({"language": written, "tests": []}) == language


def test_a_gnu_cpp17_row_runs_its_cpp_block_and_a_python_2_row_is_not_run_as_python_3(sandbox):
    row = {"tests": [{"input": "1 2\n", "output": "3\n"}]}
    assert TestsPassed()(fence(CPP_SUM, "cpp"), **row, language="GNU C++17") == (1.0, "passed")  # was wrong_language
    assert TestsPassed()(fence("print 3", "python"), **row, language="Python 2") == (None, "unsupported_language")


def test_a_block_tagged_with_text_is_still_the_fallback_and_not_another_language():
    assert choose_code("```cpp\nint main(){}\n```\n```text\nout\n```", "python") == ("out\n", None)
    assert choose_code("```cpp\nint main(){}\n```", "python") == ("int main(){}\n", "cpp")


#: The fence pattern before its blanks and tag were matched without backtracking (the reference for its blocks).
_OLD_FENCE = re.compile(r"^[ \t]*```[ \t]*([^\s`]*)[^\n`]*\n(.*?)^[ \t]*```", re.DOTALL | re.MULTILINE)


@pytest.mark.parametrize("run", ["a", "\t", " "])
def test_an_opening_fence_without_a_newline_is_not_read_quadratically(run):
    # backtracking into the tag or the blanks after ```, the rest of the line was read again from each of
    # their characters: ``` then 20,000 letters took 2 s, 20,000 tabs 4 s (minutes at the 200,000 characters
    # code rewards read, in the training process). A regex's steps cannot be counted from Python, so this reads
    # a million characters once: ~15 ms when linear, over an hour when quadratic; the bound (30 s) is only a
    # guard between the two, far from either on any machine
    long = "```" + run * 64_000 + "x"
    started = time.perf_counter()
    assert fenced_blocks("```" + run * 1_000_000 + "x") == []
    assert time.perf_counter() - started < 30
    tag = run * 64_000 + "x" if run == "a" else "x"
    assert fenced_blocks(long) == [] and fenced_blocks(long + "\nprint(1)\n```") == [(tag, "print(1)\n")]


def test_fenced_blocks_are_the_fence_patterns_matches():
    rnd = random.Random(11)
    parts = ["`", "``", "```", "\n", " ", "\t", "a", "Py", "\r", "\u00a0", "\u2028", "x y", "```python\n", "\n```", "`a"]
    for _ in range(20_000):
        reply = "".join(rnd.choice(parts) for _ in range(rnd.randint(0, 20)))
        assert fenced_blocks(reply) == [(m.group(1).lower(), m.group(2)) for m in _OLD_FENCE.finditer(reply)], reply
