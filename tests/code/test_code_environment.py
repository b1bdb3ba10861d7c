"""A failure of the environment (no toolchain, a sandbox that cannot start) is None with the label
sandbox_error and a warning naming the cause: never a 0.0 that training would learn from."""

from __future__ import annotations

import pytest

from grpo_rewards_code import TestsPassed, languages
from grpo_rewards_code.runner import LocalRunner
from grpo_rewards_code.sandbox import Sandbox

ROW = {"tests": [{"input": "1 2\n", "output": "3\n"}]}
CPP = "```cpp\n#include <cstdio>\nint main() { int a, b; std::scanf(\"%d %d\", &a, &b); std::printf(\"%d\\n\", a + b); }\n```"


@pytest.fixture
def probe_again():
    """Toolchains are probed once per process: probe again before and after a test that hides one."""
    languages.toolchain.cache_clear()
    yield
    languages.toolchain.cache_clear()


def test_a_missing_cpp_compiler_is_a_sandbox_error_naming_what_to_install(sandbox, monkeypatch, probe_again):
    monkeypatch.setattr(languages, "CPP_COMPILER", "/nonexistent/g++")
    with pytest.warns(RuntimeWarning, match="no C.. compiler at /nonexistent/g..: install g"):
        scorer = TestsPassed(language="cpp")  # said when the reward is built
    with pytest.warns(RuntimeWarning, match="no C.. compiler at /nonexistent/g..: install g"):
        assert scorer(CPP, **ROW) == (None, "sandbox_error")


@pytest.mark.parametrize(("language", "fence", "says"), [
    ("java", "```java\npublic class Main { public static void main(String[] a) {} }\n```", "no javac or java on PATH"),
    ("javascript", "```javascript\nconsole.log(3)\n```", "no node on PATH: install Node.js"),
    ("rust", "```rust\nfn main() { println!(\"3\"); }\n```", "no rustc on PATH or in ~/.cargo/bin: install Rust"),
])
def test_a_missing_toolchain_is_named_when_built_at_row_checks_and_per_sample(sandbox, monkeypatch, probe_again,
                                                                             language, fence, says):
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setenv("CARGO_HOME", "/nonexistent")
    with pytest.warns(RuntimeWarning, match=says):
        TestsPassed(language=language)
    row = {"language": language, **ROW}
    assert TestsPassed.check_rows([ROW, row]) == [f"row 1: language {language}: {languages.missing(language)}"]
    with pytest.warns(RuntimeWarning, match=says):
        assert TestsPassed()(fence, **row) == (None, "sandbox_error")
    runtime = TestsPassed.describe_runtime()
    assert "not runnable here: " in runtime and f"{language} (missing: {languages.missing(language)})" in runtime


def test_a_sandbox_that_cannot_start_is_a_sandbox_error_with_its_reason(sandbox):
    scorer = TestsPassed()
    scorer.runner = LocalRunner(Sandbox("bwrap", "/nonexistent/bwrap"))
    with pytest.warns(RuntimeWarning, match="the sandbox failed: .*nonexistent/bwrap"):
        assert scorer("```python\nprint(3)\n```", **ROW) == (None, "sandbox_error")
