"""Stand-in symbolic checkers run in worker processes by the tests (importable there by module name)."""

from __future__ import annotations

import time

from grpo_rewards_math import Accuracy


class SleepyCheck:
    """Takes far longer than any deadline: the worker running it must be killed."""

    def __call__(self, gold: str, pred: str) -> bool:
        time.sleep(60)
        return True


class RaisingCheck:
    """Fails in the worker."""

    def __call__(self, gold: str, pred: str) -> bool:
        raise RuntimeError("boom")


class SymbolicOnly(Accuracy):
    """``math.accuracy`` whose bounded checks never decide: every answer goes to ``checker``."""

    def quick_equal(self, gold: str, pred: str) -> bool | None:
        return None
