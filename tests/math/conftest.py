"""Shared fixtures for the math tests."""

from __future__ import annotations

from typing import Any

import pytest

from grpo_rewards_math.budget import unbounded


class MetricLog:
    """A stand-in for TRL's ``log_metric`` / ``log_extra`` that records every call."""

    def __init__(self) -> None:
        self.metrics: list[tuple[str, float]] = []
        self.extra: dict[str, list[Any]] = {}

    def log_metric(self, name: str, value: float) -> None:
        self.metrics.append((name, value))

    def log_extra(self, column: str, values: list[Any]) -> None:
        self.extra[column] = list(values)

    def values(self, prefix: str) -> dict[str, float]:
        return {name[len(prefix):]: value for name, value in self.metrics if name.startswith(prefix)}


@pytest.fixture
def metric_log() -> MetricLog:
    return MetricLog()


@pytest.fixture
def unbudgeted() -> Any:
    """The test's parses run without the in-process CPU budget of ``parse_answer`` (15 ms): a test of
    what a parse gives, or of a size limit, must not depend on the machine's speed or on a garbage
    collection landing in the parse (a 1,501-character unary chain once read "took more than 15 ms"
    instead of max_depth in the full suite). Tests of the budget itself leave it out."""
    with unbounded():
        yield
