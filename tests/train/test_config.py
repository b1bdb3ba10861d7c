"""The training config: defaults, overrides, and shape errors that name what to change."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from grpo_rewards.train.config import (
    DEFAULT_CONFIG,
    ConfigError,
    apply_override,
    build_config,
    parse_value,
)

ROOT = Path(__file__).resolve().parents[2]


def test_values_on_the_command_line_are_read_as_yaml_with_exponent_numbers_as_floats():
    assert parse_value("1e-5") == 1e-5
    assert parse_value("3") == 3
    assert parse_value("true") is True
    assert parse_value("[1, 2]") == [1, 2]
    assert parse_value("math:arithmetic") == "math:arithmetic"
    assert parse_value("runs/x") == "runs/x"
    assert parse_value("Reply like this: 2 + 3 = 5") == "Reply like this: 2 + 3 = 5"
    assert parse_value("{a: 1}") == {"a": 1}


def test_dotted_overrides_reach_nested_keys_and_list_entries():
    config = {"grpo": {}, "rewards": [{"use": "a", "weight": 1.0}], "dataset": {"task": "t"}}
    apply_override(config, "grpo.learning_rate=1e-5")
    apply_override(config, "rewards.0.weight=0.25")
    apply_override(config, "dataset.params.ops=+-")
    assert config == {"grpo": {"learning_rate": 1e-5}, "rewards": [{"use": "a", "weight": 0.25}],
                      "dataset": {"task": "t", "params": {"ops": "+-"}}}


def test_an_override_without_equals_sign_is_an_error_with_an_example():
    with pytest.raises(ConfigError, match=r"override 'grpo\.learning_rate' is not key=value \(for example"):
        apply_override({}, "grpo.learning_rate")


def test_an_override_of_an_unknown_section_suggests_the_close_one():
    with pytest.raises(ConfigError, match=r"unknown section 'rewads' \(did you mean 'rewards'\?\)"):
        apply_override({}, "rewads.0.weight=1")


def test_no_config_file_gives_the_embedded_default_with_command_line_options_applied():
    config, source = build_config(None, ["grpo.learning_rate=2e-5"], output_dir="runs/x", max_steps=7, seed=3)
    assert source == "default config"
    assert config["model"] == "embedded"
    assert config["output_dir"] == "runs/x"
    assert config["grpo"]["max_steps"] == 7 and config["grpo"]["seed"] == 3
    assert config["grpo"]["learning_rate"] == 2e-5
    assert config["dataset"] == DEFAULT_CONFIG["dataset"]
    assert DEFAULT_CONFIG["grpo"]["learning_rate"] == 1e-5  # the default itself is untouched


def test_a_config_file_replaces_whole_sections_and_keeps_the_others(tmp_path):
    path = tmp_path / "run.yaml"
    path.write_text("model: org/some-model\ngrpo:\n  max_steps: 5\n")
    config, source = build_config(path)
    assert source == str(path)
    assert config["model"] == "org/some-model"
    assert config["grpo"] == {"max_steps": 5}
    assert config["dataset"] == DEFAULT_CONFIG["dataset"]
    assert config["rewards"] == DEFAULT_CONFIG["rewards"]


def test_a_misspelled_top_level_key_is_named_with_a_suggestion(tmp_path):
    path = tmp_path / "run.yaml"
    path.write_text("modle: x\n")
    with pytest.raises(ConfigError, match=r"unknown key 'modle' \(did you mean 'model'\?\)"):
        build_config(path)


def test_unknown_grpo_fields_are_all_named_with_suggestions():
    with pytest.raises(ConfigError) as info:
        build_config(None, ["grpo.learning_rat=1e-5", "grpo.num_generation=4"])
    assert info.value.problems == [
        "grpo.learning_rat: not a GRPOConfig field (did you mean 'learning_rate'?)",
        "grpo.num_generation: not a GRPOConfig field (did you mean 'num_generations'?)",
    ]


def test_grpo_field_names_are_grpo_configs_and_read_again_from_the_cache_without_trl(tmp_path, monkeypatch):
    import dataclasses
    import json
    import subprocess
    import sys

    from trl import GRPOConfig

    from grpo_rewards.train.config import grpo_field_names

    monkeypatch.setenv("GRPO_REWARDS_CACHE", str(tmp_path / "cache"))
    expected = sorted(f.name for f in dataclasses.fields(GRPOConfig) if f.init)
    assert sorted(grpo_field_names()) == expected and {"learning_rate", "num_generations", "beta"} <= set(expected)
    (written,) = (tmp_path / "cache").iterdir()
    assert written.name.startswith("grpo-config-fields-") and json.loads(written.read_text()) == expected
    probe = ("import sys; from grpo_rewards.train.config import grpo_field_names; names = grpo_field_names(); "
             "print(len(names), 'trl' in sys.modules, 'torch' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert result.stdout == f"{len(expected)} False False\n", result.stderr
    written.write_text('["learning_rate"')  # cut short: not trusted, TRL is asked again and the file rewritten
    assert sorted(grpo_field_names()) == expected and json.loads(written.read_text()) == expected
    written.write_text('{"learning_rate": 1}')  # another shape
    assert sorted(grpo_field_names()) == expected


def test_a_link_where_the_field_names_file_would_be_is_left_alone_and_what_it_points_to_too(tmp_path, monkeypatch):
    from grpo_rewards.train.config import _grpo_fields_key, grpo_field_names

    monkeypatch.setenv("GRPO_REWARDS_CACHE", str(tmp_path / "cache"))
    mine = tmp_path / "notes.txt"
    mine.write_text("the user's own notes")
    (tmp_path / "cache").mkdir()
    link = tmp_path / "cache" / f"grpo-config-fields-{_grpo_fields_key()}.json"
    link.symlink_to(mine)
    assert {"learning_rate", "num_generations"} <= grpo_field_names()
    assert link.is_symlink() and mine.read_text() == "the user's own notes"


def test_grpo_keys_the_command_owns_say_where_to_set_them():
    with pytest.raises(ConfigError) as info:
        build_config(None, ["grpo.reward_weights=[1, 2]", "grpo.output_dir=x"])
    assert info.value.problems == [
        "grpo.reward_weights: weights come from the rewards: entries (weight:)",
        "grpo.output_dir: set the top-level output_dir (or --output-dir)",
    ]


def test_a_dataset_section_needs_exactly_one_source_and_known_keys(tmp_path):
    path = tmp_path / "run.yaml"
    path.write_text("dataset:\n  task: math:arithmetic\n  path: data.jsonl\n  colums: {prompt: q}\n")
    with pytest.raises(ConfigError) as info:
        build_config(path)
    assert info.value.problems == [
        "dataset: unknown key 'colums' (did you mean 'columns'?); "
        "keys: task, path, hub, n, seed, params, columns, system_prompt",
        "dataset: give exactly one of task:, path: or hub: (found task, path)",
    ]


def test_relative_dataset_and_reward_set_paths_are_kept_as_written_for_the_current_folder(tmp_path):
    (tmp_path / "run.yaml").write_text("dataset: {path: data.jsonl}\nrewards: set.yaml\noutput_dir: runs/x\n")
    config, _ = build_config(tmp_path / "run.yaml")
    assert (config["dataset"]["path"], config["rewards"], config["output_dir"]) == ("data.jsonl", "set.yaml", "runs/x")


def test_examples_default_yaml_is_the_embedded_default():
    assert yaml.safe_load((ROOT / "examples" / "default.yaml").read_text()) == DEFAULT_CONFIG


@pytest.mark.parametrize("name", ["default.yaml", "gsm8k.yaml", "file_dataset.yaml", "lora.yaml"])
def test_example_configs_have_a_valid_shape(name):
    build_config(ROOT / "examples" / name)
