"""What --dry-run catches that TRL lets through: value ranges, vLLM, trackers, peft, every problem at once."""

from __future__ import annotations

import pytest
from lanes import needs
from train_helpers import tiny_config, toy_registry, write_config

from grpo_rewards.cli import main
from grpo_rewards.cli.train import PLOT, train_command
from grpo_rewards.errors import ConfigError
from grpo_rewards.train import checks

pytestmark = needs("trl")


def _dry_run(tmp_path, tiny_model, *overrides, **config_changes):
    config = tiny_config(tiny_model, tmp_path / "out")
    config.update(config_changes)
    path = write_config(tmp_path / "run.yaml", config)
    with pytest.raises(ConfigError) as info:
        train_command([str(path), *overrides, "--dry-run"], registry=toy_registry())
    return info.value.problems


def test_values_trl_accepts_but_cannot_use_are_each_named_with_their_key(tmp_path, tiny_model):
    problems = _dry_run(tmp_path, tiny_model, "grpo.per_device_train_batch_size=0", "grpo.max_completion_length=-8",
                        "grpo.learning_rate=-1", "grpo.max_steps=-5", "grpo.temperature=0", "grpo.top_p=1.5",
                        "grpo.save_total_limit=0", "grpo.top_entropy_quantile=2")
    assert problems == [
        "grpo.max_steps: expected a positive number of steps (or -1 to train num_train_epochs), got -5",
        "grpo.per_device_train_batch_size: expected an integer >= 1, got 0",
        "grpo.max_completion_length: expected an integer >= 1, got -8",
        "grpo.save_total_limit: expected an integer >= 1, got 0",
        "grpo.learning_rate: expected a number > 0, got -1",
        "grpo.temperature: expected a number > 0, got 0",
        "grpo.top_p: expected a number > 0 and <= 1, got 1.5",
        "grpo.top_entropy_quantile: expected a number >= 0 and <= 1, got 2",
    ]



def test_a_value_trl_reads_only_when_it_trains_is_checked_against_the_installed_trainer(tmp_path, tiny_model):
    # before: loss_type: dapoo passed the dry run; TRL raised "Unknown loss type" at the first step, after the model
    # had loaded and generated
    problems = _dry_run(tmp_path, tiny_model, "grpo.loss_type=dapoo", "grpo.scale_rewards=nope",
                        "grpo.importance_sampling_level=seq", "grpo.multi_objective_aggregation=sum")
    assert problems == [
        "grpo.loss_type: expected one of bnpo, cispo, dapo, dr_grpo, grpo, luspo, sapo, vespo, got 'dapoo' (did you "
        "mean 'dapo'?) (TRL would stop at its first step)",
        "grpo.scale_rewards: expected one of batch, group, none, got 'nope' (did you mean 'none'?) (TRL would stop at "
        "its first step)",
        "grpo.multi_objective_aggregation: expected one of normalize_then_sum, sum_then_normalize, got 'sum' (TRL "
        "would stop at its first step)",
        "grpo.importance_sampling_level: expected one of sequence, token, got 'seq' (TRL would stop at its first "
        "step)"]
    # the values come from the installed trainer's own branches: each documented loss type among them
    assert {"grpo", "dr_grpo", "dapo", "bnpo"} <= checks.trainer_choices()["loss_type"]
    assert checks.choice_problems({"loss_type": "dr_grpo", "scale_rewards": False}) == []

def test_a_misspelt_grpo_key_two_reward_mistakes_and_a_dataset_mistake_are_reported_together(tmp_path, tiny_model):
    problems = _dry_run(tmp_path, tiny_model, "grpo.learning_rat=1e-5", "dataset.params={digits: 3}",
                        rewards=[{"use": "toy.digit"}, {"use": "toy.short", "with": {"limit": "x"}}])
    assert problems == [
        "grpo.learning_rat: not a GRPOConfig field (did you mean 'learning_rate'?)",
        "rewards: entry 1: unknown reward 'toy.digit' (did you mean 'toy.digits'?).",
        "rewards: entry 2 (toy.short): parameter 'limit' must be int, got 'x'",
        "dataset.params: task toy:count has no parameter(s) 'digits'; its parameters: start",
    ]


def test_use_vllm_without_vllm_is_refused_with_the_install_command(tmp_path, tiny_model, monkeypatch):
    monkeypatch.setattr(checks, "installed", lambda module: module != "vllm")
    assert _dry_run(tmp_path, tiny_model, "grpo.use_vllm=true", "grpo.vllm_mode=server") == [
        "grpo.use_vllm: vLLM is not installed: pip install vllm (a CUDA GPU is needed; vllm_mode: server also "
        "needs `trl vllm-serve --model MODEL` running)"]


def test_a_tracker_whose_package_is_missing_is_refused_with_the_install_command(tmp_path, tiny_model, monkeypatch):
    monkeypatch.setattr(checks, "installed", lambda module: module not in ("wandb", "tensorboard", "tensorboardX"))
    assert _dry_run(tmp_path, tiny_model, "grpo.report_to=[wandb, tensorboard, wandbb]") == [
        "grpo.report_to: wandb is not installed: pip install wandb",
        "grpo.report_to: tensorboard is not installed: pip install tensorboard",
        "grpo.report_to: unknown tracker 'wandbb'; known: tensorboard, wandb, trackio, mlflow, comet_ml, clearml, "
        "dvclive, swanlab, codecarbon, none, all",
    ]


def test_installed_trackers_and_vllm_pass_and_reach_grpo_config_unchanged(tmp_path, tiny_model, monkeypatch):
    from grpo_rewards.train.runner import prepare

    monkeypatch.setattr(checks, "installed", lambda module: True)
    config = tiny_config(tiny_model, tmp_path / "out", report_to=["wandb"], use_vllm=True, vllm_mode="colocate",
                         bf16=True)
    plan = prepare(write_config(tmp_path / "run.yaml", config), registry=toy_registry())
    assert {k: plan.grpo_kwargs[k] for k in ("report_to", "use_vllm", "vllm_mode", "bf16")} == {
        "report_to": ["wandb"], "use_vllm": True, "vllm_mode": "colocate", "bf16": True}



def test_lora_values_peft_refuses_only_when_it_builds_the_adapter_are_named_before(tmp_path, tiny_model):
    # before: the dry run passed; peft raised ValueError in get_peft_model, after the model had loaded
    pytest.importorskip("peft")
    assert _dry_run(tmp_path, tiny_model, peft={"r": 0, "lora_alpha": -1, "lora_dropout": 2.0}) == [
        "peft.r: expected an integer >= 1, got 0",
        "peft.lora_alpha: expected a number > 0, got -1",
        "peft.lora_dropout: expected a number >= 0 and <= 1, got 2.0"]
    assert checks.peft_problems({"r": 8, "lora_alpha": 16, "lora_dropout": 0.0}) == []


def test_lora_target_modules_that_name_no_module_of_the_model_are_named_before_it_loads(tmp_path, tiny_model):
    # before: the dry run passed; peft raised "Target modules {'q_prj'} not found in the base model" once the
    # model had loaded. Read with peft's own rule over the architecture built without weights
    pytest.importorskip("peft")
    layers = "down_proj, gate_proj, k_proj, lm_head, o_proj, q_proj, up_proj, v_proj"
    assert _dry_run(tmp_path, tiny_model, peft={"r": 8, "target_modules": ["q_prj"]}) == [
        f"peft.target_modules: ['q_prj'] names no module of the model (its linear layers: {layers}); peft would "
        "stop once the model had loaded"]
    for fine in (["q_proj", "nope"], ".*v_proj", "all-linear"):  # peft goes on when one module matches
        assert checks.target_module_problems({"r": 8, "target_modules": fine}, tiny_model) == [], fine
    assert checks.target_module_problems({"r": 8, "target_modules": ["q_prj"]}, None) == []  # a Hub id: not here

def test_a_peft_block_without_peft_installed_says_how_to_install_it(tmp_path, tiny_model, monkeypatch):
    monkeypatch.setattr(checks, "installed", lambda module: module != "peft")
    assert _dry_run(tmp_path, tiny_model, peft={"r": 4}) == [
        "peft: the peft package is not installed: pip install 'grpo-rewards[peft]' (or: pip install peft)"]


def test_a_latin1_config_is_a_one_line_error(tmp_path, capsys):
    path = tmp_path / "run.yaml"
    path.write_bytes("dataset:\n  system_prompt: 'Réponds en une ligne'\n".encode("latin-1"))
    assert main(["train", str(path), "--print-config"]) == 2
    assert capsys.readouterr().err == (
        f"grpo-rewards: error: {path}: not UTF-8 text: invalid continuation byte at byte 28\n")


def test_plot_of_a_cut_short_trainer_state_is_a_one_line_error(tmp_path, capsys):
    (tmp_path / "trainer_state.json").write_text('{"log_history": [{"step": 1, "rew')
    assert main(["plot", str(tmp_path)]) == 2
    assert capsys.readouterr().err == (
        f"grpo-rewards: error: {tmp_path / 'trainer_state.json'} does not read as JSON (cut short by a kill?): "
        "JSONDecodeError\n")


def test_plot_reads_the_metrics_log_in_the_reward_set_order(tmp_path):
    from grpo_rewards.train.plot import load_log_history, order_names, reward_names, reward_series

    (tmp_path / "manifest.json").write_text('{"rewards": [{"name": "math.accuracy"}, {"name": "format.boxed"}]}')
    (tmp_path / "metrics.jsonl").write_text(
        '{"step": 1, "rewards/format.boxed/mean": 0.5, "rewards/math.accuracy/mean": 0.25, "reward": 0.35}\n'
        '{"step": 2, "rewards/format.boxed/mean": 1.0, "rewards/math.accuracy/mean": 0.5, "rew')  # cut short
    history = load_log_history(tmp_path)
    assert [h["step"] for h in history] == [1]
    assert order_names(reward_series(history), reward_names(tmp_path)) == ["math.accuracy", "format.boxed", "reward"]
    assert PLOT.main([str(tmp_path)]) == 0
