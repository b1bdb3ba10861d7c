"""A failure of the environment (no toolchain, a sandbox that cannot start) is None with the label
sandbox_error and a warning naming the cause: never a 0.0 that training would learn from."""

from __future__ import annotations

import pytest

from grpo_rewards_code import TestsPassed, runner
from grpo_rewards_code.runner import LocalRunner
from grpo_rewards_code.sandbox import Sandbox

ROW = {"tests": [{"input": "1 2\n", "output": "3\n"}]}
CPP = "```cpp\n#include <cstdio>\nint main() { int a, b; std::scanf(\"%d %d\", &a, &b); std::printf(\"%d\\n\", a + b); }\n```"


def test_a_missing_cpp_compiler_is_a_sandbox_error_naming_what_to_install(sandbox, monkeypatch):
    monkeypatch.setattr(runner, "CPP_COMPILER", ("/nonexistent/g++", "-O2"))
    with pytest.warns(RuntimeWarning, match="no C.. compiler at /nonexistent/g..: install g"):
        assert TestsPassed(language="cpp")(CPP, **ROW) == (None, "sandbox_error")


def test_a_sandbox_that_cannot_start_is_a_sandbox_error_with_its_reason(sandbox):
    scorer = TestsPassed()
    scorer.runner = LocalRunner(Sandbox("bwrap", "/nonexistent/bwrap"))
    with pytest.warns(RuntimeWarning, match="the sandbox failed: .*nonexistent/bwrap"):
        assert scorer("```python\nprint(3)\n```", **ROW) == (None, "sandbox_error")
