"""What ``prepare`` decides before anything heavy: GRPOConfig values, CPU defaults, the module entry point."""

from __future__ import annotations

import subprocess
import sys

import pytest
from lanes import needs
from train_helpers import tiny_config, toy_registry, write_config

from grpo_rewards.errors import ConfigError
from grpo_rewards.train import plan as planning
from grpo_rewards.train import runner

pytestmark = needs("trl")


def test_without_a_gpu_use_cpu_and_float32_are_filled_in_when_the_config_leaves_them_unset(tmp_path, monkeypatch,
                                                                                              tiny_model):
    monkeypatch.setattr(planning, "has_accelerator", lambda: False)
    config = tiny_config(tiny_model, tmp_path / "out")
    plan = runner.prepare(write_config(tmp_path / "run.yaml", config), registry=toy_registry())
    assert (plan.grpo_kwargs["use_cpu"], plan.grpo_kwargs["bf16"]) == (True, False)
    assert plan.grpo_kwargs["reward_weights"] == [1.0, 0.5]
    assert plan.grpo_kwargs["output_dir"] == str(tmp_path / "out")


def test_values_the_config_sets_are_passed_unchanged(tmp_path, monkeypatch, tiny_model):
    monkeypatch.setattr(planning, "has_accelerator", lambda: False)
    config = tiny_config(tiny_model, tmp_path / "out", use_cpu=True, bf16=True, beta=0.04)
    plan = runner.prepare(write_config(tmp_path / "run.yaml", config), registry=toy_registry())
    assert (plan.grpo_kwargs["bf16"], plan.grpo_kwargs["beta"]) == (True, 0.04)


def test_the_module_entry_point_is_the_train_command():
    # (its usage: test_config.py and the test below print configs)
    result = subprocess.run([sys.executable, "-m", "grpo_rewards.train", "--help"], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: grpo-rewards train [-h] [--output-dir OUTPUT_DIR]")
    assert "--print-config" in result.stdout and "--dry-run" in result.stdout


def test_print_config_prints_the_default_config_with_the_overrides(capsys):
    from grpo_rewards.cli import main

    assert main(["train", "--print-config", "grpo.max_steps=3"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("model: embedded\noutput_dir: runs/arithmetic\ndataset:\n  task: math:arithmetic\n")
    assert "  max_steps: 3\n" in out



def test_a_config_without_an_output_dir_runs_in_a_folder_named_after_its_dataset(capsys, tmp_path, monkeypatch):
    # it was runs/arithmetic for every task: another task's run was refused there (or, with --overwrite, cleared it)
    from grpo_rewards.cli import main

    assert main(["train", "--print-config", "dataset.task=math:linear"]) == 0
    assert "\noutput_dir: runs/linear\n" in capsys.readouterr().out
    monkeypatch.chdir(tmp_path)
    (tmp_path / "qa.yaml").write_text("dataset: {path: data/qa_train.jsonl}\nrewards: [text.f1]\n")
    assert main(["train", "--print-config", "qa.yaml"]) == 0
    assert "output_dir: runs/qa_train\n" in capsys.readouterr().out
    (tmp_path / "hub.yaml").write_text("dataset: {hub: {name: openai/gsm8k, config: main}}\n")
    assert main(["train", "--print-config", "hub.yaml"]) == 0
    assert "output_dir: runs/gsm8k\n" in capsys.readouterr().out
    (tmp_path / "mine.yaml").write_text("output_dir: mine\ndataset: {hub: openai/gsm8k}\n")
    assert main(["train", "--print-config", "mine.yaml"]) == 0
    assert "output_dir: mine\n" in capsys.readouterr().out
    assert main(["train", "--print-config", "--output-dir", "elsewhere", "dataset.task=math:linear"]) == 0
    assert "output_dir: elsewhere\n" in capsys.readouterr().out


def test_resume_without_a_config_finds_the_run_in_its_datasets_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "runs" / "linear").mkdir(parents=True)
    (tmp_path / "runs" / "linear" / "config.yaml").write_text("model: tiny\noutput_dir: runs/linear\n"
                                                              "dataset: {task: math:linear, n: 3}\n")
    with pytest.raises(ConfigError) as info:  # the saved config is the one read: its model is no model here
        runner.prepare(None, ["dataset.task=math:linear"], resume=True, registry=toy_registry())
    assert info.value.source.endswith("config.yaml")

def _file_config(folder, out):
    """A config in ``folder`` naming a dataset file and a reward-set file by relative paths."""
    (folder / "data.jsonl").write_text("".join(f'{{"prompt": "Count from {k}:", "k": {k}}}\n' for k in range(4)))
    (folder / "set.yaml").write_text("rewards:\n  - {use: toy.digits, weight: 2.0}\n  - use: toy.short\n"
                                     "    with: {limit: 12}\n")
    return write_config(folder / "run.yaml", {"model": "tiny", "output_dir": str(out),
                                              "dataset": {"path": "data.jsonl"}, "rewards": "set.yaml",
                                              "grpo": {"max_steps": 1}})


def test_relative_paths_in_a_config_are_read_from_the_current_folder_and_the_error_says_so(tmp_path, monkeypatch):
    (tmp_path / "project").mkdir()
    (tmp_path / "elsewhere").mkdir()
    config = _file_config(tmp_path / "project", tmp_path / "out")
    monkeypatch.chdir(tmp_path / "elsewhere")
    with pytest.raises(ConfigError) as info:
        runner.prepare(config, registry=toy_registry())
    rule = ("relative paths in a training config (output_dir, dataset.path, rewards: FILE.yaml) are read from the "
            f"current folder, as on the command line: {tmp_path / 'elsewhere'}")
    assert info.value.problems == [f"rewards: reward-set file not found: set.yaml ({rule})",
                                   f"dataset.path: file not found: data.jsonl ({rule})"]
    monkeypatch.chdir(tmp_path / "project")
    plan = runner.prepare(config, registry=toy_registry())
    assert (len(plan.dataset), plan.reward_set.metrics) == (4, ["toy.digits", "toy.short"])


def test_a_reward_set_file_named_by_the_config_is_recorded_as_its_entries(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rewards").mkdir()
    (tmp_path / "rewards" / "mine.py").write_text("def shout(text, **row):\n    return float(text.isupper())\n")
    config = _file_config(tmp_path, tmp_path / "out")
    with open(tmp_path / "set.yaml", "a") as f:
        f.write("  - {use: rewards/mine.py:shout, weight: 0.5}\n")
    plan = runner.prepare(config, registry=toy_registry())
    assert plan.config["dataset"]["path"] == str(tmp_path / "data.jsonl")
    assert plan.config["rewards"] == {"rewards": [
        {"use": "toy.digits", "weight": 2.0},
        {"use": "toy.short", "with": {"limit": 12}},
        {"use": f"{tmp_path / 'rewards' / 'mine.py'}:shout", "weight": 0.5},
    ]}
    assert plan.reward_set.manifest()[2]["use"] == f"{tmp_path / 'rewards' / 'mine.py'}:shout"  # what config.yaml says
    from grpo_rewards.train import manifest

    manifest.write_start(tmp_path / "out", {"created": "now"}, plan.config, resumed_from=None, changes=[])
    (tmp_path / "set.yaml").write_text("rewards: [{use: toy.digits}]\n")  # the file changes after the run
    monkeypatch.chdir(tmp_path / "rewards")  # and the run is resumed from another folder
    again = runner.prepare(tmp_path / "out" / "config.yaml", output_dir=str(tmp_path / "again"),
                           registry=toy_registry())
    assert [(e.metric, e.weight, e.params) for e in again.reward_set.entries] == [
        ("toy.digits", 2.0, {}), ("toy.short", 1.0, {"limit": 12}), ("shout", 0.5, {})]


def test_a_reward_set_file_is_taken_whole_with_its_execution_and_concurrent_keys(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    config = _file_config(tmp_path, tmp_path / "out")
    with open(tmp_path / "set.yaml", "a") as f:
        f.write("execution: {backend: ray, address: '127.0.0.1:9'}\nconcurrent: false\n")
    plan = runner.prepare(config, registry=toy_registry())
    assert plan.config["rewards"]["execution"] == {"backend": "ray", "address": "127.0.0.1:9"}
    assert plan.reward_set.concurrent is False
    assert [r.options.execution.address for r in plan.reward_set.rewards] == ["127.0.0.1:9", "127.0.0.1:9"]
    assert runner.rewards_line(plan.reward_set).startswith("rewards run one after another, ")


def test_an_output_dir_holding_a_run_is_reported_with_every_other_problem(tmp_path, tiny_model):
    out = tmp_path / "out"
    (out / "checkpoint-2").mkdir(parents=True)
    (out / "checkpoint-2" / "trainer_state.json").write_text("{}")
    (out / "manifest.json").write_text("{}")
    config = tiny_config(tiny_model, out, max_stesp=2)
    config["dataset"]["columns"] = {"prompt": "question"}
    with pytest.raises(ConfigError) as info:
        runner.prepare(write_config(tmp_path / "run.yaml", config), registry=toy_registry())
    first, folder, dataset = info.value.problems
    assert first == "grpo.max_stesp: not a GRPOConfig field (did you mean 'max_steps'?)"
    assert folder.startswith(f"output dir {out} already holds another run (manifest.json, 1 checkpoint); nothing "
                             "was changed. Use --resume to continue that run")
    assert dataset == "dataset.columns: task toy:count has no column(s) 'question'; its columns: prompt, k"
    assert sorted(p.name for p in out.iterdir()) == ["checkpoint-2", "manifest.json"]


def test_the_trainer_is_not_built_with_two_reward_functions_of_one_name(tmp_path, tiny_model):
    from grpo_rewards.errors import RewardSetError

    plan = runner.prepare(write_config(tmp_path / "run.yaml", tiny_config(tiny_model, tmp_path / "out")),
                          registry=toy_registry())
    plan.reward_set.concurrent = False  # reward_funcs: the rewards list itself
    plan.reward_set.rewards.append(plan.reward_set.rewards[0])  # as a script that mixes in an imported reward
    plan.reward_set.entries.append(plan.reward_set.entries[0])
    with pytest.raises(RewardSetError) as info:
        runner.run(plan)
    assert info.value.problems == [
        "the reward functions 1 and 3 are both named 'toy.digits': TRL would log them as one rewards/toy.digits/* "
        "series and average their outcome counts; give one another name ('as:' in a reward set, metric= when you "
        "make the function)"]
    assert not (tmp_path / "out").exists()
