"""Fixtures for the hardening tests (fuzzing, faults, security, kill/resume)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def hardening_registry():
    """Every installed plugin, discovered as a user's process would."""
    from grpo_rewards import load_registry

    return load_registry()
