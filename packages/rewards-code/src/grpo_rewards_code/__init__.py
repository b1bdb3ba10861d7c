"""grpo-rewards-code: rewards that run model-written code against tests in a local sandbox.

Discovered as the rewards ``code.tests_passed`` and ``code.all_passed`` and the tasks
``code:humaneval`` and ``code:stdio``; ``tests_passed`` and ``all_passed`` are the same rewards for
a plain TRL script. The sandbox is reusable: :func:`get_sandbox` (and :class:`LocalRunner` for
tests in any format of :func:`normalise_tests`).
"""

from importlib import metadata

from .compare import outputs_match, values_match
from .extract import extract_code
from .formats import AssertTest, CallTest, StdioTest, TestFormatError, normalise_tests
from .rewards import ALL_PASSED, TESTS_PASSED
from .runner import LocalRunner, Program, RawResult, Runner
from .sandbox import Limits, Sandbox, SandboxUnavailable, describe_sandbox, get_sandbox
from .scoring import OUTCOMES, AllPassed, TestsPassed
from .tasks import make_humaneval, make_stdio

__version__ = metadata.version("grpo-rewards-code")

#: ``code.tests_passed`` as TRL calls it
tests_passed = TESTS_PASSED.reward()
#: ``code.all_passed`` as TRL calls it
all_passed = ALL_PASSED.reward()

__all__ = ["ALL_PASSED", "OUTCOMES", "TESTS_PASSED", "AllPassed", "AssertTest", "CallTest", "Limits", "LocalRunner",
           "Program", "RawResult", "Runner", "Sandbox", "SandboxUnavailable", "StdioTest", "TestFormatError",
           "TestsPassed", "all_passed", "describe_sandbox", "extract_code", "get_sandbox", "make_humaneval",
           "make_stdio", "normalise_tests", "outputs_match", "tests_passed", "values_match"]
