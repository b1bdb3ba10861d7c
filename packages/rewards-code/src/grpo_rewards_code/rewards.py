"""The definitions of ``code.tests_passed`` and ``code.all_passed`` (registered by the plugin, exported by the package)."""

from __future__ import annotations

from grpo_rewards import RewardDefinition, RewardOptions

from .hacks import corpus
from .scoring import AllPassed, TestsPassed

#: Samples run in worker processes (one sandbox each, in parallel); the sandbox has its own per-test
#: deadlines and kills itself well before this one, which only guards against a stuck worker.
OPTIONS = RewardOptions(timeout=600.0, timeout_value=None, invalid_value=0.0, max_chars=200_000, too_large_value=0.0)

TESTS_PASSED = RewardDefinition(
    "code.tests_passed", TestsPassed, output_range=(0.0, 1.0), options=OPTIONS, hacks=corpus,
    example="{use: code.tests_passed, with: {time_limit: 2}} on rows with a tests column (stdin/stdout, call or assert tests)",
)
ALL_PASSED = RewardDefinition(
    "code.all_passed", AllPassed, output_range=(0.0, 1.0), options=OPTIONS, hacks=corpus,
    example="{use: code.all_passed} on code:humaneval rows; a canonical solution -> 1.0",
)
