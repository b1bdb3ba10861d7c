"""An environment for the Ray environment tests: importable by reference, so a Ray actor can build it."""

from __future__ import annotations

import os
import time
from typing import Any


class Tally:
    """Keeps a running total across the calls of one rollout."""

    def __init__(self, start: int = 0) -> None:
        self.start = start
        self.total = start
        self.outcome: str | None = None

    def reset(self, **row: Any) -> str:
        self.total = self.start + int(row.get("offset", 0))
        return f"total {self.total}"

    def add(self, k: int) -> str:
        """Add k to the total.

        Args:
            k: how much to add
        """
        self.total += k
        return str(self.total)

    def wait(self, seconds: float) -> str:
        """Wait, then say so.

        Args:
            seconds: how long
        """
        time.sleep(seconds)
        return "waited"

    def pid(self) -> int:
        """The process this environment runs in."""
        return os.getpid()

    def fail(self) -> str:
        """Raise an error of the environment's own."""
        raise ValueError("no such thing")

    def get_reward(self) -> float:
        self.outcome = "even" if self.total % 2 == 0 else "odd"
        return float(self.total)
