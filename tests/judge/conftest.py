"""Fixtures for the judge tests: one ``transformers serve`` per session, the models it serves, a tiny reward model."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def serve(tmp_path_factory: pytest.TempPathFactory):
    """``transformers serve`` on a free 127.0.0.1 port, offline, for the whole session."""
    for module in ("httpx", "fastapi", "uvicorn"):
        pytest.importorskip(module, reason="transformers serve needs pip install 'grpo-rewards-judge[serve]'")
    from judge_servers import TransformersServe

    server = TransformersServe(tmp_path_factory.mktemp("serve") / "serve.log")
    yield server
    server.close()


@pytest.fixture(scope="session")
def reward_model_dir() -> Path:
    """A tiny random sequence-classification model (one label) with the tiny model's tokenizer, shared by the process."""
    pytest.importorskip("transformers")
    from judge_models import tiny_reward_model

    return tiny_reward_model()
