"""Fixtures for the training tests: a registry with the toy plugin, a tiny model, small configs."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))


from train_helpers import toy_registry  # noqa: E402


@pytest.fixture
def registry():
    return toy_registry()


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory) -> Path:
    pytest.importorskip("transformers")
    from grpo_rewards.train.tiny import make_tiny_model

    return make_tiny_model(tmp_path_factory.mktemp("model") / "tiny")
