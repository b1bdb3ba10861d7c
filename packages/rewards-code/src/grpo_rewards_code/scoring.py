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
``no_tests`` (``None``: a row without readable tests, which training refuses before it starts, or without any
tests column, as another task's row in a mixed dataset, which it scores ``None``).
"""

from __future__ import annotations

import dataclasses
import math
import re
import warnings
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
from .js_calls import call_as_stdin, js_call_tests, read_value, with_driver
from .judging import (
    CHECKER_LIMITS,
    CHECKER_MEMORY_MB,
    CHECKER_ORDERS,
    CHECKER_TIME,
    JUDGING_COLUMNS,
    Subtask,
    grader_files,
    row_checker,
    row_checker_order,
    row_subtasks,
    run_checker,
    subtask_value,
)
from .languages import LANGUAGES as LANGUAGE_TABLE
from .languages import available, missing
from .runner import LocalRunner, Program, RawResult, Runner
from .sandbox import Limits, SandboxUnavailable, describe_sandbox, get_sandbox

OUTCOMES = ("passed", "failed", "compile_error", "runtime_error", "timeout", "memory", "output_limit", "no_code",
            "wrong_language", "unsupported_language", "sandbox_error", "no_tests")
#: the languages of the ``language`` parameter and of rows (:mod:`grpo_rewards_code.languages`)
LANGUAGES = tuple(LANGUAGE_TABLE)
DEFAULT_TIME, DEFAULT_MEMORY_MB = 2.0, 512
#: the wall-clock budget of one completion's whole run (seconds): well inside the rewards' own 600 s deadline
DEFAULT_TOTAL = 300.0
_LIMIT_TEXT = re.compile(r"\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([A-Za-z]*)")
#: the units a row's limit may be written in, as multiples of the unit a bare number means (seconds, MB)
TIME_UNITS = {**dict.fromkeys(("", "s", "sec", "secs", "second", "seconds"), 1.0),
              **dict.fromkeys(("ms", "msec", "msecs", "millisecond", "milliseconds"), 0.001)}
MEMORY_UNITS = {**dict.fromkeys(("", "m", "mb", "mib", "megabyte", "megabytes"), 1.0),
                **dict.fromkeys(("k", "kb", "kib", "kilobyte", "kilobytes"), 1 / 1024),
                **dict.fromkeys(("g", "gb", "gib", "gigabyte", "gigabytes"), 1024.0),
                **dict.fromkeys(("b", "byte", "bytes"), 1 / (1 << 20))}


def _row_number(value: Any, units: Mapping[str, float] = TIME_UNITS) -> float | None:
    """A limit as rows carry it, in ``units``' base unit (seconds or MB), or None (the parameter's default).

    A number; text such as ``"2 seconds"``, ``"1000 ms"``, ``"256 megabytes"``, ``"1 GB"`` (TACO, Codeforces'
    statements: a number and one of ``units``, anything after it ignored, an unknown unit None);
    CodeContests' ``{"seconds": 2, "nanos": 500000000}``. One past a float's range is ``inf``
    (:meth:`TestsPassed.limits` clamps it).

    >>> _row_number("1000 ms"), _row_number("1.5e3 milliseconds"), _row_number({"seconds": 2, "nanos": 5e8})
    (1.0, 1.5, 2.5)
    >>> _row_number("1 GB", MEMORY_UNITS), _row_number("262144 KB", MEMORY_UNITS), _row_number("2 hours")
    (1024.0, 256.0, None)
    """
    if isinstance(value, Mapping) and units is TIME_UNITS:
        parts = [_row_number(value.get(key), {"": 1.0}) or 0.0 for key in ("seconds", "nanos")]
        return (parts[0] + parts[1] / 1e9) or None
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        if not value > 0:  # (NaN too)
            return None
        return float(value) if checks.finite(value) else math.inf
    if isinstance(value, str):
        match = _LIMIT_TEXT.match(value)
        scale = units.get(match.group(2).lower()) if match else None
        if match is None or scale is None:
            return None
        number = float(match.group(1)) * scale
        return number if number > 0 else None
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


def _toolchain_problems(rows: Any, max_problems: int = 5) -> list[str]:
    """A line per language the rows ask for whose toolchain this machine lacks (naming what to install), with the
    first row that asks for it; a line per row whose checker, subtasks or graders cannot be read."""
    seen: dict[str, int] = {}
    problems: list[str] = []
    for index, row in enumerate(rows):
        if not isinstance(row, Mapping):
            continue
        language = row_language(row)
        if language in LANGUAGE_TABLE and language not in seen:
            seen[language] = index
        if len(problems) < max_problems and any(row.get(c) is not None for c in JUDGING_COLUMNS):
            try:
                n_tests = len(normalise_tests(row))
            except TestFormatError:
                continue  # check_rows names it
            try:
                row_checker(row)
                row_checker_order(row)
                row_subtasks(row, n_tests)
                grader_files(row, "cpp")
            except TestFormatError as exc:
                problems.append(f"row {index}: {exc}")
    problems += [f"row {index}: language {language}: {problem}" for language, index in seen.items()
                 if (problem := missing(language)) is not None]
    return problems[:max_problems]


class TestsPassed:
    r"""The fraction of the row's tests the completion's code passes, in [0, 1] (unit: none).

    Exact rule: the code is the last fenced block tagged with the language (``language`` when it is set, else
    the row's: Open-R1's ``verification_info.language`` or a ``language`` column, else ``python``), else the
    last fenced block (none: 0.0, ``no_code``; tagged with another language: 0.0, ``wrong_language``); the row's tests (any format of
    :mod:`grpo_rewards_code.formats`; at most ``max_tests``, longest inputs first) run in the
    local sandbox with ``time_limit`` seconds of CPU and ``memory_limit_mb`` of address space per
    test (unset: the row's ``time_limit`` / ``memory_limit`` columns, else 2 s and 512 MB) and
    ``total_time_limit`` seconds of wall clock for the whole row (the tests it leaves are ``timeout``);
    stdout is compared with ``comparison`` (``tokens`` or ``exact``), returned values as values, or judged
    by the row's checker (a score in [0, 1] per test; its files in ``checker_order``, ``testlib``'s ``input output
    answer`` or ``cms``'s ``input answer output``, unset: the row's; ``checker_time_limit`` CPU seconds and
    ``checker_memory_limit_mb`` of address space per verdict); with subtasks the value is the points of the subtasks
    whose tests all pass over the total (:mod:`grpo_rewards_code.judging`). Languages: ``python``, ``cpp``,
    ``java``, ``javascript``, ``rust`` (:mod:`grpo_rewards_code.languages`). A sandbox failure, a missing
    toolchain or a failing checker gives ``None`` (``sandbox_error``).

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
                 tolerance: float = TOLERANCE, total_time_limit: float = DEFAULT_TOTAL,
                 checker_order: str | None = None, checker_time_limit: float = CHECKER_TIME,
                 checker_memory_limit_mb: int = CHECKER_MEMORY_MB) -> None:
        #: the language every row is scored in; None: each row's own (else python)
        self.language = None if language is None else checks.choice(language, "language", LANGUAGES)
        self.time_limit = checks.number(time_limit, "time_limit", low=0.01, high=60, none_ok=True)
        self.memory_limit_mb = checks.integer(memory_limit_mb, "memory_limit_mb", low=16, high=16384, none_ok=True)
        self.max_tests = checks.integer(max_tests, "max_tests", low=1, none_ok=True)
        self.stop_on_first_failure = checks.boolean(stop_on_first_failure, "stop_on_first_failure")
        self.comparison = checks.choice(comparison, "comparison", COMPARISONS)
        self.tolerance = checks.number(tolerance, "tolerance", low=0.0, high=1.0)
        self.total_time_limit = checks.number(total_time_limit, "total_time_limit", low=1.0, high=DEFAULT_TOTAL * 1.5)
        #: the order every row's checker takes its files in (testlib or cms); None: each row's own
        self.checker_order = None if checker_order is None else checks.choice(
            checker_order, "checker_order", tuple(CHECKER_ORDERS))
        self.checker_time_limit = checks.number(checker_time_limit, "checker_time_limit", low=0.01, high=60)
        self.checker_memory_limit_mb = checks.integer(checker_memory_limit_mb, "checker_memory_limit_mb", low=16,
                                                      high=16384)
        self.runner: Runner = LocalRunner()
        self._last_error: str | None = None
        if self.language is not None and (problem := missing(self.language)) is not None:
            # said when the reward set is built; each sample of the language is then None (sandbox_error)
            warnings.warn(f"{type(self).__name__}(language={self.language!r}): {problem}", RuntimeWarning, stacklevel=2)

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
        """The sandbox the code runs in and the languages it runs here (``grpo-rewards show``, the training header
        and manifest name them)."""
        absent = [f"{name} (missing: {missing(name)})" for name in LANGUAGES if missing(name) is not None]
        return ("sandbox: " + describe_sandbox() + "; languages: " + ", ".join(available())
                + ("; not runnable here: " + "; ".join(absent) if absent else ""))

    @staticmethod
    def check_rows(rows: Any) -> list[str]:
        """Before training starts: a line per row whose tests column cannot be read, and one when no sandbox
        can run here (training refuses to start rather than score every sample ``None``)."""
        try:
            get_sandbox()
        except SandboxUnavailable as exc:
            return [str(exc)]
        return check_rows(rows) + _toolchain_problems(rows)

    def limits(self, row: Mapping[str, Any]) -> Limits:
        seconds = self.time_limit or _row_number(row.get("time_limit")) or DEFAULT_TIME
        megabytes = self.memory_limit_mb or _row_number(row.get("memory_limit"), MEMORY_UNITS) or DEFAULT_MEMORY_MB
        # a row's limits are held to the parameters' ranges: 0.01-60 CPU seconds, 16-16384 MB
        return Limits(time=max(0.01, min(seconds, 60.0)), memory=int(max(16.0, min(megabytes, 16384.0))) << 20,
                      total=self.total_time_limit)

    def checker_limits(self) -> Limits:
        """A checker's limits per verdict: ``checker_time_limit`` CPU seconds, ``checker_memory_limit_mb``."""
        return dataclasses.replace(CHECKER_LIMITS, time=self.checker_time_limit,
                                   memory=self.checker_memory_limit_mb << 20)

    def language_of(self, row: Mapping[str, Any]) -> str:
        """The language a row's code is run in: the ``language`` parameter, else the row's, else ``python``
        (a language the sandbox does not run comes back as the row writes it)."""
        return self.language or row_language(row) or "python"

    def evaluate(self, text: str, **row: Any) -> tuple[list[str], list[Test]]:
        """The label of every test, and the tests; instead of the tests' labels one label of the whole sample
        (``no_code``, ``wrong_language``, ``unsupported_language``) when no code runs; raises TestFormatError."""
        labels, tests, _, _ = self.judge(text, **row)
        return labels, tests

    def judge(self, text: str, **row: Any) -> tuple[list[str], list[Test], list[float], list[Subtask] | None]:
        """As :meth:`evaluate`, with each test's score in [0, 1] (a checker's, else 1.0 for passed and 0.0 for
        anything else) and the row's subtasks (None when it has none: see :mod:`grpo_rewards_code.judging`)."""
        tests = normalise_tests(row)
        checker = row_checker(row)
        order = None if checker is None else self.checker_order or row_checker_order(row)
        subtasks = row_subtasks(row, len(tests))
        if subtasks is None:
            tests = select_tests(tests, self.max_tests)
        language = self.language_of(row)
        if language not in LANGUAGES:
            return ["unsupported_language"], tests, [], subtasks
        code, other = choose_code(text, language)
        if code is None:
            return ["no_code"], tests, [], subtasks
        if other is not None:
            return ["wrong_language"], tests, [], subtasks
        calls = [t for t in tests if isinstance(t, CallTest)]
        fn = js_call_tests(calls) if language == "javascript" and len(calls) == len(tests) else None
        run: Sequence[Test] = tests
        if fn is not None and checker is None:  # JSON call tests, through a driver (js_calls)
            code, run = with_driver(code, fn), [call_as_stdin(t) for t in calls]
        elif not LANGUAGE_TABLE[language].calls:  # compiled languages and Node.js read stdin, write stdout
            if subtasks is not None and not all(isinstance(t, StdioTest) for t in tests):
                raise TestFormatError(f"{language} programs run stdin/stdout tests only; the row's subtasks name others")
            tests = [t for t in tests if isinstance(t, StdioTest)]
            run = tests
        stop_early = self.stop_on_first_failure or self.require_all

        def read(raw: RawResult) -> RawResult:  # a driver's value from stdout's last line
            return read_value(raw) if run is not tests else raw

        def stop(i: int, raw: RawResult) -> bool:
            if checker is not None:  # only the checker can say an output is wrong
                return stop_early and raw.status not in ("ok", "skipped")
            return stop_early and verdict(tests[i], read(raw), self.comparison, self.tolerance) != "passed"

        raws = [read(raw) for raw in self.runner.run(Program(code, language, grader_files(row, language)), run,
                                                     self.limits(row), stop)]
        self._last_error = next((r.error for r in raws if r.status == "sandbox_error"), None)
        if checker is None or self._last_error is not None:
            labels = [verdict(t, r, self.comparison, self.tolerance) for t, r in zip(tests, raws)]
            return labels, tests, [1.0 if label == "passed" else 0.0 for label in labels], subtasks
        judged = [i for i, (t, r) in enumerate(zip(tests, raws)) if r.status == "ok" and isinstance(t, StdioTest)]
        cases = []
        for i in judged:
            test = tests[i]
            assert isinstance(test, StdioTest)
            cases.append((test.input, test.output, raws[i].stdout))
        assert order is not None
        verdicts = dict(zip(judged, run_checker(self.runner, checker, cases, self.checker_limits(), order)))
        failure = next((why for score, why in verdicts.values() if score is None), None)
        if failure is not None:  # the checker, not the program: the sample is left out
            self._last_error = failure
            return ["sandbox_error"] * len(tests), tests, [0.0] * len(tests), subtasks
        labels, scores = [], []
        for i, (test, raw) in enumerate(zip(tests, raws)):
            score = verdicts[i][0] if i in verdicts else 0.0
            assert score is not None
            labels.append(("passed" if score >= 1.0 else "failed") if i in verdicts else verdict(test, raw, "exact", 0.0))
            scores.append(score)
        return labels, tests, scores, subtasks

    def __call__(self, text: str, **row: Any) -> tuple[float | None, str]:
        try:
            labels, tests, scores, subtasks = self.judge(text, **row)
        except TestFormatError:
            return None, "no_tests"  # a row whose tests cannot be read (training checks rows first)
        if not tests:
            return None, "no_tests"
        if labels in (["no_code"], ["wrong_language"]):
            return 0.0, labels[0]
        if labels == ["unsupported_language"]:
            return None, labels[0]
        if "sandbox_error" in labels:  # the environment, not the program: left out of training, and said why
            warnings.warn(f"{type(self).__name__}: the sandbox failed: {getattr(self, '_last_error', None)}",
                          RuntimeWarning, stacklevel=2)
            return None, "sandbox_error"
        label = next((x for x in labels if x != "passed"), "passed")
        if self.require_all:
            return (1.0 if label == "passed" else 0.0), label
        if subtasks is not None:
            return subtask_value(scores, subtasks), label
        return sum(scores) / len(scores), label

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
