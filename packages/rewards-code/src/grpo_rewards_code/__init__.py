"""grpo-rewards-code: rewards that run model-written code against tests in a local sandbox.

Discovered as the rewards ``code.tests_passed``, ``code.all_passed`` and ``code.sql_match`` and the tasks
``code:humaneval``, ``code:stdio`` and ``code:sql``; ``tests_passed`` and ``all_passed`` are the same rewards for
a plain TRL script. The sandbox is reusable: :func:`get_sandbox` (and :class:`LocalRunner` for
tests in any format of :func:`normalise_tests`). Importing this package is light: each name is
imported from its module on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from grpo_rewards.lazy import lazy_exports

#: public name -> module that defines it
_EXPORTS = {
    "outputs_match": "compare", "values_match": "compare",
    "extract_code": "extract",
    "AssertTest": "testcases", "CallTest": "testcases", "StdioTest": "testcases", "TestFormatError": "testcases",
    "normalise_tests": "formats",
    "ALL_PASSED": "definitions", "TESTS_PASSED": "definitions", "make_all_passed": "definitions",
    "make_tests_passed": "definitions",
    "LocalRunner": "runner", "Program": "runner", "RawResult": "runner", "Runner": "runner",
    "Limits": "sandbox", "Sandbox": "sandbox", "SandboxUnavailable": "sandbox", "describe_sandbox": "sandbox",
    "get_sandbox": "sandbox",
    "OUTCOMES": "scoring", "AllPassed": "scoring", "TestsPassed": "scoring",
    "make_humaneval": "tasks", "make_stdio": "tasks",
    "SQL_MATCH": "definitions", "make_sql_match": "definitions", "SqlMatch": "sql", "make_sql": "sql_tasks",
    "extract_sql": "sql_rows", "normalise_sql_row": "sql_rows", "results_match": "sql_rows",
}

__all__ = [
    "ALL_PASSED",
    "OUTCOMES",
    # code.sql_match
    "SQL_MATCH",
    "TESTS_PASSED",
    "AllPassed",
    "AssertTest",
    "CallTest",
    "Limits",
    "LocalRunner",
    "Program",
    "RawResult",
    "Runner",
    "Sandbox",
    "SandboxUnavailable",
    "SqlMatch",
    "StdioTest",
    "TestFormatError",
    "TestsPassed",
    "all_passed",
    "describe_sandbox",
    "extract_code",
    "extract_sql",
    "get_sandbox",
    "make_all_passed",
    "make_humaneval",
    "make_sql",
    "make_sql_match",
    "make_stdio",
    "make_tests_passed",
    "normalise_sql_row",
    "normalise_tests",
    "outputs_match",
    "results_match",
    "sql_match",
    "tests_passed",
    "values_match",
]


#: the ready-made rewards, built once on first use
_BUILT = {"tests_passed": "definitions:make_tests_passed", "all_passed": "definitions:make_all_passed",
          "sql_match": "definitions:make_sql_match"}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, built=_BUILT, distribution="grpo-rewards-code")


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    __version__: str
    from grpo_rewards import Reward

    from .compare import outputs_match, values_match
    from .definitions import (
        ALL_PASSED,
        SQL_MATCH,
        TESTS_PASSED,
        make_all_passed,
        make_sql_match,
        make_tests_passed,
    )
    from .extract import extract_code
    from .formats import normalise_tests
    from .runner import LocalRunner, Program, RawResult, Runner
    from .sandbox import Limits, Sandbox, SandboxUnavailable, describe_sandbox, get_sandbox
    from .scoring import OUTCOMES, AllPassed, TestsPassed
    from .sql import SqlMatch
    from .sql_rows import extract_sql, normalise_sql_row, results_match
    from .sql_tasks import make_sql
    from .tasks import make_humaneval, make_stdio
    from .testcases import AssertTest, CallTest, StdioTest, TestFormatError

    tests_passed: Reward
    all_passed: Reward
    sql_match: Reward
