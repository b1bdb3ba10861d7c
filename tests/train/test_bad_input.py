"""Bad input stops with one clear message before anything expensive, and nothing saved is lost."""

from __future__ import annotations

import json

import pytest
from lanes import needs
from train_helpers import tiny_config, toy_registry, write_config

from grpo_rewards.cli import main
from grpo_rewards.cli.train import train_command
from grpo_rewards.errors import ConfigError, RunDirError

pytestmark = needs("trl")


def _config(tmp_path, tiny_model=None, **changes):
    config = tiny_config(tiny_model or tmp_path, tmp_path / "out")
    for key, value in changes.items():
        config[key] = value
    return write_config(tmp_path / "run.yaml", config)


def test_a_misspelled_config_key_exits_2_with_the_key_and_a_suggestion(tmp_path, tiny_model, capsys):
    from grpo_rewards.registry import use_registry

    config = tiny_config(tiny_model, tmp_path / "out")
    config["rewrds"] = []
    path = write_config(tmp_path / "run.yaml", config)
    with use_registry(toy_registry()):
        assert main(["train", str(path)]) == 2
    assert capsys.readouterr().err == (
        f"grpo-rewards: error: {path}: unknown key 'rewrds' (did you mean 'rewards'?); "
        "the sections are model, output_dir, dataset, rewards, grpo, peft, environment\n")


def test_a_missing_config_file_is_named(tmp_path, capsys):
    assert main(["train", str(tmp_path / "nope.yaml")]) == 2
    assert capsys.readouterr().err == f"grpo-rewards: error: {tmp_path / 'nope.yaml'}: file not found\n"


def test_a_model_path_that_does_not_exist_is_an_error_before_loading(tmp_path):
    path = _config(tmp_path, model=str(tmp_path / "no-model"))
    with pytest.raises(ConfigError, match=r"model path '.*no-model' does not exist \(model: takes a Hugging Face id"):
        train_command([str(path)], registry=toy_registry())


def test_a_folder_that_is_not_a_model_is_an_error(tmp_path):
    (tmp_path / "empty").mkdir()
    path = _config(tmp_path, model=str(tmp_path / "empty"))
    with pytest.raises(ConfigError, match=r"is not a model folder: it has no config.json"):
        train_command([str(path)], registry=toy_registry())


def test_a_reward_column_the_dataset_lacks_is_named_with_the_columns_it_has(tmp_path, tiny_model):
    path = _config(tmp_path, tiny_model, rewards=[{"use": "toy.echo_k"}])
    (tmp_path / "d.jsonl").write_text(json.dumps({"prompt": "p"}) + "\n")
    with pytest.raises(ConfigError) as info:
        train_command([str(path), f"dataset={{path: {tmp_path / 'd.jsonl'}}}"], registry=toy_registry())
    assert info.value.problems == [
        "rewards: entry 1 (toy.echo_k): needs dataset column(s) 'k'; the dataset has: prompt. "
        "'grpo-rewards show toy.echo_k' describes the columns it reads"]


def test_an_unknown_reward_and_a_bad_parameter_are_reported_together(tmp_path, tiny_model):
    path = _config(tmp_path, tiny_model, rewards=[{"use": "toy.digit"}, {"use": "toy.short", "with": {"limit": "x"}}])
    with pytest.raises(ConfigError) as info:
        train_command([str(path)], registry=toy_registry())
    assert info.value.problems == [
        "rewards: entry 1: unknown reward 'toy.digit' (did you mean 'toy.digits'?).",
        "rewards: entry 2 (toy.short): parameter 'limit' must be int, got 'x'",
    ]


def test_a_grpo_value_trl_rejects_is_reported_as_a_config_error(tmp_path, tiny_model):
    path = _config(tmp_path, tiny_model)
    with pytest.raises(ConfigError) as info:
        train_command([str(path), "grpo.num_generations=3"], registry=toy_registry())
    assert len(info.value.problems) == 1
    assert info.value.problems[0].startswith("grpo: GRPOConfig rejected the grpo: values: ")


@pytest.mark.parametrize("turns", [0, -1, 2.5, True, "3"])
def test_a_tool_turn_limit_under_one_is_refused_where_trl_would_run_no_tool_call(tmp_path, turns):
    # TRL's loop is `while ... iteration_num < max_tool_calling_iterations`: at 0 or -1 the model's calls never run
    from grpo_rewards.train.plan import check_grpo_values

    with pytest.raises(ConfigError) as info:
        check_grpo_values({"max_steps": 1, "max_tool_calling_iterations": turns}, tmp_path, [1.0], tools=True)
    assert info.value.problems == [
        f"grpo: max_tool_calling_iterations must be an integer >= 1 or None, got {turns!r} (the rounds of tool "
        "calls TRL runs for a completion; at 0 or below it runs none; unset, a run with an environment gets 8)"]
    kwargs = check_grpo_values({"max_steps": 1, "max_tool_calling_iterations": 1}, tmp_path, [1.0], tools=True)
    assert kwargs["max_tool_calling_iterations"] == 1


def test_a_file_dataset_without_rewards_says_so_once(tmp_path):
    (tmp_path / "d.jsonl").write_text(json.dumps({"prompt": "p"}) + "\n")
    (tmp_path / "run.yaml").write_text(json.dumps({"model": "tiny", "output_dir": str(tmp_path / "out"),
                                                   "dataset": {"path": str(tmp_path / "d.jsonl")}}))
    with pytest.raises(ConfigError) as info:
        train_command([str(tmp_path / "run.yaml"), "--dry-run"])
    assert info.value.problems == ["rewards: missing (a file or Hub dataset has no default rewards); add a rewards: "
                                   "list, e.g. rewards: [{use: math.accuracy}]"]


def test_an_output_dir_holding_another_run_is_refused_and_left_untouched(tmp_path, tiny_model):
    out = tmp_path / "out"
    (out / "checkpoint-2").mkdir(parents=True)
    (out / "checkpoint-2" / "trainer_state.json").write_text("{}")
    (out / ".grpo-rewards-run").write_text('{"run_id": "r1"}')
    (out / ".grpo-rewards-files").write_text("checkpoint-2\nmanifest.json\n")
    (out / "manifest.json").write_text('{"keep": true, "run_id": "r1"}')
    path = _config(tmp_path, tiny_model)
    with pytest.raises(RunDirError) as info:
        train_command([str(path)], registry=toy_registry())
    assert str(info.value) == (
        f"output dir {out} already holds another run (manifest.json, 1 checkpoint); nothing was changed. "
        "Use --resume to continue that run, --overwrite to delete it and start over, or another --output-dir")
    assert (out / "manifest.json").read_text() == '{"keep": true, "run_id": "r1"}'


def test_an_output_dir_with_other_files_is_refused(tmp_path, tiny_model):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "notes.txt").write_text("mine")
    path = _config(tmp_path, tiny_model)
    with pytest.raises(RunDirError) as info:
        train_command([str(path)], registry=toy_registry())
    assert str(info.value) == (f"output dir {tmp_path / 'out'} already holds other files (notes.txt); nothing was "
                               "changed. Choose another --output-dir (a new or empty folder)")


def test_resume_without_a_checkpoint_says_there_is_nothing_to_continue(tmp_path, tiny_model):
    path = _config(tmp_path, tiny_model)
    with pytest.raises(RunDirError) as info:
        train_command([str(path), "--resume"], registry=toy_registry())
    assert str(info.value) == (f"--resume: output dir {tmp_path / 'out'} does not exist, so there is nothing to "
                               "continue; run without --resume to start a new run")


def test_resume_and_overwrite_together_are_refused(tmp_path, tiny_model):
    path = _config(tmp_path, tiny_model)
    with pytest.raises(RunDirError, match=r"--resume and --overwrite contradict each other"):
        train_command([str(path), "--resume", "--overwrite"], registry=toy_registry())


def test_a_dry_run_checks_everything_and_writes_nothing(tmp_path, tiny_model, capsys):
    path = _config(tmp_path, tiny_model)
    assert train_command([str(path), "--dry-run"], registry=toy_registry()) == 0
    assert capsys.readouterr().out == (
        f"grpo-rewards: dry run OK: {path}, model {tiny_model}, 16 prompts with columns prompt, k, rewards "
        f"toy.digits×1, short20×0.5, output {tmp_path / 'out'}; rewards run concurrently (TRL awaits them "
        "together), on this machine\n")
    assert not (tmp_path / "out").exists()


def test_rewards_default_to_the_tasks_default_rewards_when_a_dataset_is_given(tmp_path, tiny_model, capsys):
    path = tmp_path / "run.yaml"
    path.write_text(f"model: {tiny_model}\noutput_dir: {tmp_path / 'out'}\ndataset: {{task: toy:count, n: 4}}\n"
                    "grpo: {max_steps: 1}\n")
    assert train_command([str(path), "--dry-run"], registry=toy_registry()) == 0
    assert "rewards toy.digits×1," in capsys.readouterr().out


def test_resume_skips_a_newer_checkpoint_whose_trainer_state_was_cut_short(tmp_path, tiny_model, capsys):
    from grpo_rewards.train.rundir import checkpoints

    out = tmp_path / "out"
    for step, state in ((1, '{"global_step": 1, "log_history": []}'), (2, '{"global_step": 2, "log_hi')):
        (out / f"checkpoint-{step}").mkdir(parents=True)
        (out / f"checkpoint-{step}" / "trainer_state.json").write_text(state)
    assert [p.name for p in checkpoints(out)] == ["checkpoint-1"]
    assert [p.name for p in checkpoints(out, damaged=True)] == ["checkpoint-2"]
    path = _config(tmp_path, tiny_model)
    with pytest.raises(RunDirError, match=r"has no manifest.json, so the reward set cannot be checked"):
        train_command([str(path), "--resume"], registry=toy_registry())
    assert "skipping checkpoint-2: its trainer_state.json does not read" in capsys.readouterr().out


def test_a_dry_run_warns_of_a_dataset_column_named_like_a_parameter_of_a_class_reward(tmp_path, tiny_model):
    (tmp_path / "d.jsonl").write_text(json.dumps({"prompt": "p", "step": 3}) + "\n")
    path = _config(tmp_path, tiny_model, rewards=[{"use": "toy.fail_from", "with": {"step": 99}}],
                   dataset={"path": str(tmp_path / "d.jsonl")})
    with pytest.warns(UserWarning) as caught:
        assert train_command([str(path), "--dry-run"], registry=toy_registry()) == 0
    assert [str(w.message) for w in caught if "parameter of" in str(w.message)] == [
        "reward set: entry 1 (toy.fail_from): dataset column(s) 'step' have the name of a parameter of "
        "toy.fail_from; this reward uses the parameter's value, not the column (rename the column if it should "
        "read it)"]


def test_an_override_nested_too_deeply_or_with_a_5000_digit_number_is_one_line(tmp_path, tiny_model, capsys):
    path = _config(tmp_path, tiny_model)
    deep = "{a: " * 5000 + "1" + "}" * 5000
    assert main(["train", str(path), "--dry-run", f"rewards.0.with={deep}"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("grpo-rewards: error: command line: override 'rewards.0.with={a: {a: ")
    assert err.endswith("': the value is nested too deeply\n") and err.count("\n") == 1
    assert main(["train", str(path), "--dry-run", "rewards.0.weight=" + "7" * 5000]) == 2
    err = capsys.readouterr().err
    assert err.endswith("': an integer of 5000 digits (Python reads at most 4300)\n") and err.count("\n") == 1


def test_a_config_file_nested_too_deeply_is_one_line(tmp_path, capsys):
    path = tmp_path / "run.yaml"
    path.write_text("rewards:\n  - use: toy.digits\n    with: " + "{a: " * 5000 + "1" + "}" * 5000 + "\n")
    assert main(["train", str(path), "--dry-run"]) == 2
    assert capsys.readouterr().err == f"grpo-rewards: error: {path}: not read: nested too deeply\n"


def test_a_prompt_longer_than_the_models_context_is_named_before_the_model_loads(tmp_path, tiny_model, capsys):
    from grpo_rewards.registry import use_registry

    rows = [{"prompt": "Count from 1:", "k": 1}, {"prompt": "Count " * 40_000, "k": 2}, {"prompt": "Go:", "k": 3}]
    (tmp_path / "d.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    path = _config(tmp_path, tiny_model, dataset={"path": str(tmp_path / "d.jsonl")})
    with use_registry(toy_registry()):
        assert main(["train", str(path)]) == 2
    err = capsys.readouterr().err.splitlines()[-1]
    assert err.startswith("grpo-rewards: error: dataset: 1 prompt(s) do not fit the model: its context is 1,024 "
                          "tokens, 8 of them for the completion (grpo.max_completion_length), leaving 1,016 for the "
                          "prompt; rows 2 (")
    assert err.endswith(" tokens). Shorten or remove them")
    assert not (tmp_path / "out").exists()
