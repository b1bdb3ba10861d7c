r"""``code.tests_passed`` and ``code.all_passed``: the completion's code run against the row's tests.

The code is the last fenced block of the row's language (Open-R1's ``verification_info.language``, a
``language`` column; else Python), unless the ``language`` parameter pins one (else the last fenced block;
a block tagged with another language is not run: ``wrong_language``); it runs in the
local sandbox (:mod:`grpo_rewards_code.sandbox`): a fresh supervisor per completion in this thread's
warm sandbox (else one sandbox per completion), the program compiled once and a fork per test.
Expected values never enter the sandbox: stdout and returned values (typed JSON) come out and are
compared here (:mod:`grpo_rewards_code.compare`).

Labels: ``passed`` (every test passed), else the first failing test's: ``failed`` (wrong output
or value, or an assert that does not hold), ``compile_error`` (syntax errors included),
``runtime_error``, ``timeout``, ``memory``, ``output_limit``; ``no_code`` (no fenced block: 0.0);
``wrong_language`` (0.0: the block is tagged with another language than the row's, ``java`` or ``cpp`` for
a Python problem); ``unsupported_language`` (``None``: the row asks for a language the sandbox cannot run);
``sandbox_error`` (the sandbox itself failed: ``None``, never 0.0, so TRL leaves the sample out);
``no_tests`` (``None``: a row without readable tests; training refuses such rows before it starts).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from grpo_rewards import params as checks

from .compare import COMPARISONS, TOLERANCE, outputs_match, values_match
from .extract import choose_code
from .formats import (
    AssertTest,
    CallTest,
    StdioTest,
    Test,
    TestFormatError,
    check_rows,
    normalise_tests,
    row_language,
)
from .runner import LocalRunner, Program, RawResult, Runner
from .sandbox import Limits, SandboxUnavailable, describe_sandbox, get_sandbox

OUTCOMES = ("passed", "failed", "compile_error", "runtime_error", "timeout", "memory", "output_limit", "no_code",
            "wrong_language", "unsupported_language", "sandbox_error", "no_tests")
LANGUAGES = ("python", "cpp")
DEFAULT_TIME, DEFAULT_MEMORY_MB = 2.0, 512
_NUMBER = re.compile(r"\s*([0-9]*\.?[0-9]+)")


def _row_number(value: Any) -> float | None:
    """A limit as rows carry it: a number, or text such as ``"2 seconds"`` / ``"256 megabytes"`` (TACO)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value) if value > 0 else None
    if isinstance(value, str):
        match = _NUMBER.match(value)
        return float(match.group(1)) if match and float(match.group(1)) > 0 else None
    return None


def select_tests(tests: Sequence[Test], max_tests: int | None) -> list[Test]:
    """At most ``max_tests`` tests, the longest inputs first (ties in the row's order)."""
    if max_tests is None or len(tests) <= max_tests:
        return list(tests)
    order = sorted(range(len(tests)), key=lambda i: (-tests[i].size, i))[:max_tests]
    return [tests[i] for i in sorted(order)]


def verdict(test: Test, raw: RawResult, comparison: str, tolerance: float) -> str:
    """The label of one test: ``passed``, ``failed`` or the raw failure status."""
    if raw.status == "skipped":
        return "failed"
    if raw.status != "ok":
        return raw.status
    if isinstance(test, StdioTest):
        return "passed" if outputs_match(raw.stdout, test.output, comparison, tolerance) else "failed"
    if isinstance(test, CallTest):
        if not raw.has_value:
            return "runtime_error"
        return "passed" if values_match(raw.value, test.expected, test.mode, tolerance) else "failed"
    return "passed" if raw.passed is True else "failed"


class TestsPassed:
    r"""The fraction of the row's tests the completion's code passes, in [0, 1] (unit: none).

    Exact rule: the code is the last fenced block tagged with the language (``language`` when it is set, else
    the row's: Open-R1's ``verification_info.language`` or a ``language`` column, else ``python``), else the
    last fenced block (none: 0.0, ``no_code``; tagged with another language: 0.0, ``wrong_language``); the row's tests (any format of
    :mod:`grpo_rewards_code.formats`; at most ``max_tests``, longest inputs first) run in the
    local sandbox with ``time_limit`` seconds of CPU and ``memory_limit_mb`` of address space per
    test (unset: the row's ``time_limit`` / ``memory_limit`` columns, else 2 s and 512 MB);
    stdout is compared with ``comparison`` (``tokens`` or ``exact``), returned values as values.
    A sandbox failure gives ``None`` (``sandbox_error``).

    >>> score = TestsPassed()
    >>> row = {"tests": [{"input": "1 2\n", "output": "3"}, {"input": "5 5\n", "output": "10"}]}
    >>> score("```python\nprint(sum(map(int, input().split())))\n```", **row)
    (1.0, 'passed')
    >>> score("```python\nprint(3)\n```", **row), score("print(3)", **row)
    ((0.5, 'failed'), (0.0, 'no_code'))
    """

    __test__ = False
    require_all = False

    def __init__(self, language: str | None = None, time_limit: float | None = None, memory_limit_mb: int | None = None,
                 max_tests: int | None = None, stop_on_first_failure: bool = False, comparison: str = "tokens",
                 tolerance: float = TOLERANCE) -> None:
        #: the language every row is scored in; None: each row's own (else python)
        self.language = None if language is None else checks.choice(language, "language", LANGUAGES)
        self.time_limit = checks.number(time_limit, "time_limit", low=0.01, high=60, none_ok=True)
        self.memory_limit_mb = checks.integer(memory_limit_mb, "memory_limit_mb", low=16, high=16384, none_ok=True)
        self.max_tests = checks.integer(max_tests, "max_tests", low=1, none_ok=True)
        self.stop_on_first_failure = checks.boolean(stop_on_first_failure, "stop_on_first_failure")
        self.comparison = checks.choice(comparison, "comparison", COMPARISONS)
        self.tolerance = checks.number(tolerance, "tolerance", low=0.0, high=1.0)
        self.runner: Runner = LocalRunner()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} language={self.language or 'row'} comparison={self.comparison}>"

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["runner"] = None  # rebuilt in the receiving process (it probes its own sandbox)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if self.runner is None:
            self.runner = LocalRunner()

    @staticmethod
    def describe_runtime() -> str:
        """The sandbox the code runs in (``grpo-rewards show``, the training header and manifest name it)."""
        return "sandbox: " + describe_sandbox()

    @staticmethod
    def check_rows(rows: Any) -> list[str]:
        """Before training starts: a line per row whose tests column cannot be read, and one when no sandbox
        can run here (training refuses to start rather than score every sample ``None``)."""
        try:
            get_sandbox()
        except SandboxUnavailable as exc:
            return [str(exc)]
        return check_rows(rows)

    def limits(self, row: Mapping[str, Any]) -> Limits:
        seconds = self.time_limit or _row_number(row.get("time_limit")) or DEFAULT_TIME
        megabytes = self.memory_limit_mb or _row_number(row.get("memory_limit")) or DEFAULT_MEMORY_MB
        return Limits(time=min(seconds, 60.0), memory=int(max(16.0, min(megabytes, 16384.0))) << 20)

    def language_of(self, row: Mapping[str, Any]) -> str:
        """The language a row's code is run in: the ``language`` parameter, else the row's, else ``python``
        (a language the sandbox does not run comes back as the row writes it)."""
        return self.language or row_language(row) or "python"

    def evaluate(self, text: str, **row: Any) -> tuple[list[str], list[Test]]:
        """The label of every test, and the tests; instead of the tests' labels one label of the whole sample
        (``no_code``, ``wrong_language``, ``unsupported_language``) when no code runs; raises TestFormatError."""
        tests = select_tests(normalise_tests(row), self.max_tests)
        language = self.language_of(row)
        if language not in LANGUAGES:
            return ["unsupported_language"], tests
        code, other = choose_code(text, language)
        if code is None:
            return ["no_code"], tests
        if other is not None:
            return ["wrong_language"], tests
        if language == "cpp":
            tests = [t for t in tests if isinstance(t, StdioTest)]
        stop_early = self.stop_on_first_failure or self.require_all

        def stop(i: int, raw: RawResult) -> bool:
            return stop_early and verdict(tests[i], raw, self.comparison, self.tolerance) != "passed"

        raws = self.runner.run(Program(code, language), tests, self.limits(row), stop)
        return [verdict(t, r, self.comparison, self.tolerance) for t, r in zip(tests, raws)], tests

    def __call__(self, text: str, **row: Any) -> tuple[float | None, str]:
        try:
            labels, tests = self.evaluate(text, **row)
        except TestFormatError:
            return None, "no_tests"  # a row whose tests cannot be read (training checks rows first)
        if not tests:
            return None, "no_tests"
        if labels in (["no_code"], ["wrong_language"]):
            return 0.0, labels[0]
        if labels == ["unsupported_language"]:
            return None, labels[0]
        if "sandbox_error" in labels:
            return None, "sandbox_error"
        passed = labels.count("passed")
        label = next((x for x in labels if x != "passed"), "passed")
        if self.require_all:
            return (1.0 if passed == len(labels) else 0.0), label
        return passed / len(labels), label

    def explain(self, completion: Any, **row: Any) -> dict[str, Any]:
        """What the reward read and decided: the code, each test's label, the value and label."""
        from grpo_rewards import completion_text

        text = completion_text(completion) or ""
        labels, tests = self.evaluate(text, **row)
        value, label = self(text, **row)
        return {"code": choose_code(text, self.language_of(row))[0], "tests": len(tests), "labels": labels, "value": value,
                "label": label}


class AllPassed(TestsPassed):
    r"""1.0 when the completion's code passes every one of the row's tests, else 0.0 (unit: none).

    Exact rule: as ``code.tests_passed`` (same code extraction, tests, limits and comparison), but
    the value is 1.0 only when every test passes; it stops at the first failing test.

    >>> score = AllPassed()
    >>> row = {"test_list": ["assert add(1, 2) == 3", "assert add(2, 2) == 4"]}
    >>> score("```python\ndef add(a, b):\n    return a + b\n```", **row)
    (1.0, 'passed')
    >>> score("```python\ndef add(a, b):\n    return 3\n```", **row)
    (0.0, 'failed')
    """

    require_all = True


__all__ = ["OUTCOMES", "AllPassed", "AssertTest", "TestsPassed"]
