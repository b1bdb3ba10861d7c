"""What ``prepare`` decides before anything heavy: GRPOConfig values, CPU defaults, the module entry point."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import tiny_config, toy_registry, write_config

pytest.importorskip("trl")

from grpo_rewards.train import runner


def test_without_a_gpu_use_cpu_and_float32_are_filled_in_when_the_config_leaves_them_unset(tmp_path, monkeypatch,
                                                                                              tiny_model):
    monkeypatch.setattr(runner, "has_accelerator", lambda: False)
    config = tiny_config(tiny_model, tmp_path / "out")
    plan = runner.prepare(write_config(tmp_path / "run.yaml", config), registry=toy_registry())
    assert (plan.grpo_kwargs["use_cpu"], plan.grpo_kwargs["bf16"]) == (True, False)
    assert plan.grpo_kwargs["reward_weights"] == [1.0, 0.5]
    assert plan.grpo_kwargs["output_dir"] == str(tmp_path / "out")


def test_values_the_config_sets_are_passed_unchanged(tmp_path, monkeypatch, tiny_model):
    monkeypatch.setattr(runner, "has_accelerator", lambda: False)
    config = tiny_config(tiny_model, tmp_path / "out", use_cpu=True, bf16=True, beta=0.04)
    plan = runner.prepare(write_config(tmp_path / "run.yaml", config), registry=toy_registry())
    assert (plan.grpo_kwargs["bf16"], plan.grpo_kwargs["beta"]) == (True, 0.04)


def test_the_module_entry_point_is_the_train_command():
    result = subprocess.run([sys.executable, "-m", "grpo_rewards.train", "--print-config", "grpo.max_steps=3"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("model: embedded\noutput_dir: runs/arithmetic\ndataset:\n  task: math:arithmetic\n")
    assert "  max_steps: 3\n" in result.stdout
