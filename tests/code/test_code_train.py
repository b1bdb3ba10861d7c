"""`grpo-rewards train` with `dataset: {task: code:stdio}`: the example config, two steps on the tiny random model."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest
from lanes import needs

from grpo_rewards.cli.train import train_command
from grpo_rewards_code.scoring import TestsPassed

pytestmark = needs("trl")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "code_stdio.yaml"


@pytest.mark.slow
def test_the_code_stdio_example_trains_on_the_tiny_model_and_names_its_sandbox(sandbox, tmp_path, monkeypatch):
    monkeypatch.setenv("GRPO_REWARDS_CACHE", str(tmp_path / "cache"))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert train_command([str(EXAMPLE), "model=tiny", "--max-steps", "2", "--output-dir", str(tmp_path / "run"),
                              "dataset.n=16", "grpo.max_completion_length=8", "grpo.save_steps=2"]) == 0
    assert f"code.tests_passed runs in sandbox: {sandbox.description}; languages: " in out.getvalue()
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["rewards"][0]["runtime"] == TestsPassed.describe_runtime()
    assert manifest["rewards"][0]["runtime"].startswith(f"sandbox: {sandbox.description}; languages: python, cpp")
    history = json.loads((tmp_path / "run" / "trainer_state.json").read_text())["log_history"]
    steps = [h for h in history if "rewards/code.tests_passed/mean" in h]
    assert len(steps) == 2
    # eight random tokens never close a ```python block: every completion is no_code, 0.0
    assert all(h["rewards/code.tests_passed/mean"] == 0.0 for h in steps)
    assert all(h.get("outcomes/code.tests_passed/no_code", 0) > 0 for h in steps)
