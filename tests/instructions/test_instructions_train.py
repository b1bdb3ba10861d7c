"""`grpo-rewards train` on instructions:synthetic: the example config, two steps on the tiny random model,
with the per-constraint counts in TRL's log."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import yaml
from lanes import needs

import grpo_rewards
from grpo_rewards.cli.train import train_command

pytestmark = needs("trl")

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_the_synthetic_example_trains_on_the_tiny_model_and_logs_per_constraint_counts(tmp_path, monkeypatch):
    monkeypatch.setenv("GRPO_REWARDS_CACHE", str(tmp_path / "cache"))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert train_command([str(EXAMPLES / "instructions_synthetic.yaml"), "model=tiny", "--max-steps", "2",
                              "--output-dir", str(tmp_path / "run"), "dataset.n=16",
                              "grpo.max_completion_length=8", "grpo.save_steps=2"]) == 0
    history = json.loads((tmp_path / "run" / "trainer_state.json").read_text())["log_history"]
    steps = [h for h in history if "rewards/instructions.followed/mean" in h]
    assert len(steps) == 2
    counted = {k for h in steps for k in h if k.startswith("checked:") and k.endswith("/instructions.followed")}
    assert counted, "no per-constraint count was logged"
    assert all(0.0 <= h["rewards/instructions.followed/mean"] <= 1.0 for h in steps)


def test_the_quality_reward_set_example_validates():
    reward_set = grpo_rewards.load_reward_set(yaml.safe_load((EXAMPLES / "instructions_quality.yaml").read_text()))
    assert [e.use for e in reward_set.entries] == ["instructions.followed", "judge.rubric", "instructions.all_followed",
                                                   "length.group_relative"]
