"""Fixtures for the training tests: a registry with the toy plugin (the tiny model is the root conftest's)."""

from __future__ import annotations

import pytest
from train_helpers import toy_registry


@pytest.fixture
def registry():
    return toy_registry()
