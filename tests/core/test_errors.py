"""One errors module: the whole tree, one problem-list base, capped quotes, one YAML reader."""

from __future__ import annotations

import inspect
import time

import pytest

from grpo_rewards import errors
from grpo_rewards.errors import ConfigError, ProblemsError, RewardSetError, quote, read_yaml


def test_every_error_class_lives_in_the_errors_module_and_its_docstring_draws_it():
    classes = [c for _, c in inspect.getmembers(errors, inspect.isclass) if issubclass(c, Exception)]
    assert {c.__name__ for c in classes} >= {
        "GrpoRewardsError", "PluginError", "RewardNotFoundError", "TaskNotFoundError", "RewardError", "ProblemsError",
        "RewardSetError", "ConfigError", "DatasetError", "ModelError", "RunDirError", "TrainError", "PlotError"}
    for cls in classes:
        assert cls.__module__ == "grpo_rewards.errors"
        assert issubclass(cls, errors.GrpoRewardsError)
        assert cls.__name__ in errors.__doc__


def test_config_and_reward_set_errors_share_one_problem_list():
    one, two = RewardSetError(["a"], "set.yaml"), ConfigError(["a", "b"], "run.yaml")
    assert isinstance(one, ProblemsError) and isinstance(two, ProblemsError)
    assert (str(one), one.problems) == ("set.yaml: a", ["a"])
    assert str(two) == "run.yaml has 2 problems:\n  - a\n  - b"
    assert str(ConfigError("just one")) == "config: just one"


def test_an_unknown_task_has_its_own_error(registry):
    with pytest.raises(errors.TaskNotFoundError, match="unknown task 'fixture:cuont'"):
        registry.task("fixture:cuont")
    with pytest.raises(KeyError):
        registry.task("fixture:cuont")


def test_a_quoted_value_is_capped_without_building_its_whole_text():
    laughs: object = ["lol"] * 9
    for _ in range(30):  # 9**30 leaves: repr() would never finish
        laughs = [laughs] * 9
    started = time.perf_counter()
    text = quote(laughs)
    assert time.perf_counter() - started < 0.5
    assert len(text) <= errors.QUOTE_LIMIT and text.startswith("[[[")
    assert "..." in quote("x" * 10_000) and len(quote("x" * 10_000)) <= errors.QUOTE_LIMIT


def test_read_yaml_gives_one_line_per_kind_of_bad_file(tmp_path):
    (tmp_path / "ok.yaml").write_text("a: 1\n")
    (tmp_path / "empty.yaml").write_text("")
    (tmp_path / "bad.yaml").write_text("a: [1\n")
    (tmp_path / "latin.yaml").write_bytes(b"a: caf\xe9\n")
    assert read_yaml(tmp_path / "ok.yaml") == {"a": 1}
    assert read_yaml(tmp_path / "empty.yaml") is None
    messages = []
    for name in ("none.yaml", ".", "bad.yaml", "latin.yaml"):
        with pytest.raises(ConfigError) as err:
            read_yaml(tmp_path / name, what="a training config", error=ConfigError)
        messages.append(str(err.value).replace(str(tmp_path), "T"))
    assert messages[:2] == ["T/none.yaml: file not found", "T: not a file (expected a training config)"]
    assert messages[2].startswith("T/bad.yaml: not valid YAML: ") and "line 2" in messages[2]
    assert messages[3] == "T/latin.yaml: not UTF-8 text: invalid continuation byte at byte 6"
    assert all("\n" not in m for m in messages)


def test_no_core_module_but_errors_defines_an_exception_class():
    import ast
    from pathlib import Path

    root = Path(errors.__file__).parent
    elsewhere = []
    for path in sorted(root.rglob("*.py")):
        if path.name == "errors.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any(
                    getattr(b, "id", getattr(b, "attr", "")).endswith(("Error", "Exception")) for b in node.bases):
                elsewhere.append(f"{path.relative_to(root)}:{node.name}")
    assert elsewhere == []


def test_load_yaml_refuses_a_repeated_key_and_reads_yaml_1_2_exponents():
    import yaml

    from grpo_rewards.errors import load_yaml

    assert load_yaml("a: 1e-5\nb: 1.5e3\nc: -2E3\nd: .5e1\ne: 1.0e+3\nf: '1e5'\ng: 1e\nh: 12") == {
        "a": 1e-05, "b": 1500.0, "c": -2000.0, "d": 5.0, "e": 1000.0, "f": "1e5", "g": "1e", "h": 12}
    assert load_yaml("a: ._e5\nb: -._1e2\nc: 1_0.e1") == {"a": "._e5", "b": "-._1e2", "c": 100.0}  # no digit: text
    assert load_yaml("base: &b {x: 1, y: 2}\nover: {<<: *b, x: 3}")["over"] == {"x": 3, "y": 2}  # a merge may be overridden
    for text, line in (("a: 1\nb: 2\na: 3", 3), ("top: {x: 1, x: 1}", 1), ("- {1: a, 1: b}", 1)):
        with pytest.raises(yaml.YAMLError) as err:
            load_yaml(text)
        assert "duplicate key" in str(err.value) and err.value.problem_mark.line + 1 == line


def test_a_training_config_and_a_command_line_value_read_yaml_the_same_way(tmp_path):
    from grpo_rewards.cli.command import key_values
    from grpo_rewards.train.config import parse_value, read_config

    path = tmp_path / "run.yaml"
    path.write_text("grpo:\n  learning_rate: 1e-5\n")
    assert read_config(path)[0]["grpo"]["learning_rate"] == 1e-5
    path.write_text("grpo:\n  learning_rate: 1.0e-5\n  learning_rate: 1.0\n")
    with pytest.raises(ConfigError, match="duplicate key 'learning_rate' at line 3, column 3"):
        read_config(path)
    assert key_values(["rel_tol=1e-5", "weights={a: 2.5e1}"], "--with") == {"rel_tol": 1e-5, "weights": {"a": 25.0}}
    assert parse_value("2.5e1") == 25.0
    # a value YAML cannot turn into data is its text for --with, not a traceback (a digit limit, nesting past the
    # recursion limit); an override names it in one line instead (tests/train/test_bad_input.py)
    for raw, error in (("9" * 5000, ValueError), ("[" * 5000, RecursionError)):
        assert key_values([f"x={raw}"], "--with") == {"x": raw}
        with pytest.raises(error):
            parse_value(raw)
