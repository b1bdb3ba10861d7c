"""Shared fixtures for the math tests."""

from __future__ import annotations

from typing import Any

import pytest


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
