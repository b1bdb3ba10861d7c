"""Fixtures for the hardening tests (fuzzing, faults, security, kill/resume); puts this folder on sys.path."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
if str(HERE) not in sys.path:  # fuzz_inputs, hardening_proc and hardening_workers (workers import it too)
    sys.path.insert(0, str(HERE))


@pytest.fixture(scope="session")
def hardening_registry():
    """Every installed plugin, discovered as a user's process would."""
    from grpo_rewards import load_registry

    return load_registry()
