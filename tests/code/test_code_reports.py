"""A program cannot forge the harness's report: whatever it writes on its report channel (fd 3) is its own
failure (``runtime_error``, a value), never the sandbox's (``None``) and never an exception."""

from __future__ import annotations

import pytest

from grpo_rewards_code import AllPassed, TestsPassed

STDIO = {"tests": [{"input": "1 2\n", "output": "3\n"}, {"input": "20 22\n", "output": "42\n"}]}
CALLS = {"test_list": ["assert add(1, 2) == 3", "assert add(20, 22) == 42"]}
ASSERTS = {"test_list": ["assert add(1, 2) in (3,)", "assert add(20, 22) in (42,)"]}
HONEST = "```python\nprint(sum(map(int, input().split())))\n```"


def fence(code: str, language: str = "python") -> str:
    return f"```{language}\n{code}\n```"


def forge(report: bytes, then: str = "import os\nos._exit(0)") -> str:
    return fence(f"import os\nos.write(3, {report!r})\n{then}")


FORGERIES = [
    b'{"status": "sandbox_error"}\n',
    b'{"status": "ok", "done": true}\n',
    b'{"done": true}\n',
    b'{"fatal": "x"}\n',
    b'{"status": "ok", "i": 999}\n',
    b'{"i": []}\n',
    b'{"status": "compile_error", "error": "x"}\n',
    b'{"status": "skipped"}\n',
    b'{"status": "ok", "passed": true}\n',
    b'{"status": "ok", "error": 5}\n',
    b'[1, 2]\n',
    b'"ok"\n',
    b'not json\n',
    b'\xff\xfe\n',
    b'[' * 100000 + b'\n',
]


@pytest.mark.parametrize("report", FORGERIES, ids=range(len(FORGERIES)))
def test_a_forged_report_before_a_clean_exit_is_the_program_s_runtime_error(sandbox, report):
    assert TestsPassed()(forge(report), **STDIO) == (0.0, "runtime_error")


@pytest.mark.parametrize("report", FORGERIES, ids=range(len(FORGERIES)))
def test_a_forged_report_from_a_called_function_never_raises_nor_gives_none(sandbox, report):
    code = f"import os\ndef add(a, b):\n    os.write(3, {report!r})\n    os._exit(0)"
    assert AllPassed()(fence(code), **CALLS) == (0.0, "runtime_error")
    assert TestsPassed(stop_on_first_failure=True)(fence(code), **CALLS) == (0.0, "runtime_error")


def test_a_report_that_names_a_value_is_no_more_than_returning_it(sandbox):
    code = "import os\ndef add(a, b):\n    os.write(3, b'{\"status\": \"ok\", \"value\": 3}\\n')\n    os._exit(0)"
    assert TestsPassed()(fence(code), **CALLS) == (0.5, "failed")  # 3 is right for (1, 2) only
    code = "import os\ndef add(a, b):\n    os.write(3, b'{\"status\": \"ok\", \"value\": {\"__t\": \"nope\"}}\\n')\n    os._exit(0)"
    assert TestsPassed()(fence(code), **CALLS) == (0.0, "runtime_error")


def test_the_next_honest_program_in_the_same_warm_sandbox_is_scored(sandbox):
    for report in FORGERIES:
        TestsPassed()(forge(report), **STDIO)
        assert TestsPassed()(HONEST, **STDIO) == (1.0, "passed"), report


def test_a_program_server_s_forged_report_fails_its_assert_tests(sandbox):
    code = ("import os\nos.write(3, b'{\"status\": \"sandbox_error\"}\\n')\n"
            "def add(a, b):\n    os.write(3, b'{\"status\": \"ok\", \"passed\": true}\\n')\n    return 0")
    value, label = TestsPassed()(fence(code), **ASSERTS)
    assert value == 0.0 and label in ("failed", "runtime_error")


def test_exit_status_121_is_the_program_s_not_a_seccomp_failure(sandbox):
    assert TestsPassed()(fence("import os\nos._exit(121)"), **STDIO) == (0.0, "runtime_error")


def test_a_cpp_program_cannot_forge_a_report_either(sandbox):
    code = ('#include <unistd.h>\nint main() { const char r[] = "{\\"status\\": \\"sandbox_error\\"}\\n";'
            " write(3, r, sizeof(r) - 1); return 0; }")
    assert TestsPassed(language="cpp")(fence(code, "cpp"), **STDIO) == (0.0, "runtime_error")
