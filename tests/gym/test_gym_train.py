"""`grpo-rewards train` with a gym task: the example config, two steps on the tiny random model."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

from lanes import needs

from grpo_rewards.cli.train import train_command

pytestmark = needs("trl")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "gym_arithmetic.yaml"


def test_the_gym_arithmetic_example_trains_on_the_tiny_model_and_logs_gym_accuracy(tmp_path, monkeypatch):
    monkeypatch.setenv("GRPO_REWARDS_CACHE", str(tmp_path / "cache"))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert train_command([str(EXAMPLE), "model=tiny", "--max-steps", "2", "--output-dir", str(tmp_path / "run"),
                              "dataset.n=16", "grpo.max_completion_length=8", "grpo.save_steps=2"]) == 0
    history = json.loads((tmp_path / "run" / "trainer_state.json").read_text())["log_history"]
    steps = [h for h in history if "rewards/gym.accuracy/mean" in h]
    assert len(steps) == 2
    # eight random tokens write neither an answer block nor a box: every completion is no_answer, 0.0
    assert all(h["rewards/gym.accuracy/mean"] == 0.0 for h in steps)
    assert all(h.get("outcomes/gym.accuracy/no_answer", 0) > 0 for h in steps)
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["config"]["dataset"]["task"] == "gym:basic_arithmetic"
    assert manifest["plugins"]["gym"]["distribution"] == "grpo-rewards-gym"
