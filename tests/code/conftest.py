"""Fixtures of the code package's tests: they run only where a sandbox can start (they skip, saying why, elsewhere)."""

from __future__ import annotations

import pytest

from grpo_rewards_code.sandbox import SandboxUnavailable, get_sandbox


@pytest.fixture(scope="session")
def sandbox():
    try:
        return get_sandbox()
    except SandboxUnavailable as exc:
        pytest.skip(f"this machine cannot run a sandbox: {exc}")


