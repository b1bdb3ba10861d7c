"""The format plugin: registration, discovery, reward sets, importable callables and the contract."""

from __future__ import annotations

import pytest

import grpo_rewards
import grpo_rewards_format as fmt
from grpo_rewards_format.hacks import REGEX_PATTERN

NAMES = ["format.boxed", "format.reasoning_steps", "format.regex", "format.repetition", "format.tag_count",
         "format.think", "format.think_answer", "format.xml_fields"]
IMPORTABLE = ["think_answer", "think", "tag_count", "boxed", "reasoning_steps", "repetition", "xml_fields"]


@pytest.fixture(scope="module")
def registry():
    return grpo_rewards.load_registry()


def test_the_plugin_registers_every_format_reward(registry):
    assert sorted(n for n in registry.rewards if n.startswith("format.")) == NAMES
    assert {registry.reward(n).distribution for n in NAMES} == {"grpo-rewards-format"}


def test_format_rewards_score_unreadable_completions_zero(registry):
    assert {n: registry.reward(n).options.invalid_value for n in NAMES if n != "format.regex"} == dict.fromkeys(
        [n for n in NAMES if n != "format.regex"], 0.0)


def test_registered_parameters_come_from_the_signatures(registry):
    params = registry.reward("format.think_answer").params
    assert {n: p.default for n, p in params.items()} == {
        "strict": True, "think_tag": "think", "answer_tag": "answer", "newlines": False,
        "outer_whitespace": True, "allow_empty_think": False}
    assert registry.reward("format.regex").params["pattern"].required


def test_every_importable_reward_is_named_after_its_registered_reward():
    assert [getattr(fmt, short).__name__ for short in IMPORTABLE] == [f"format.{s}" for s in IMPORTABLE]


def test_a_factory_takes_parameters_and_a_metric_name():
    soft = fmt.make_think_answer(strict=False, metric="soft_format")
    assert soft.__name__ == "soft_format"
    assert soft(prompts=[None], completions=["ok <think>x</think> <answer>4</answer>"]) == [1.0]


def test_a_yaml_reward_set_with_bad_parameters_reports_every_problem(tmp_path):
    path = tmp_path / "rewards.yaml"
    path.write_text(
        "rewards:\n"
        "  - use: format.think_answer\n    with: {strict: maybe}\n"
        "  - use: format.boxed\n    with: {last_chars: 0}\n"
        "  - use: format.tag_count\n    with: {tag: [think]}\n"
    )
    with pytest.raises(grpo_rewards.RewardSetError) as info:
        grpo_rewards.load_reward_set(path)
    assert len(info.value.problems) == 3


def test_a_reward_set_weights_the_format_rewards(tmp_path):
    rs = grpo_rewards.load_reward_set({"rewards": [
        {"use": "format.think_answer", "weight": 0.5, "with": {"strict": False}},
        {"use": "format.boxed", "weight": 1.0},
    ]})
    text = "<think>x</think><answer>\\boxed{4}</answer>"
    values = [r(prompts=[None], completions=[text])[0] for r in rs.reward_funcs]
    assert rs.total(values) == 1.5


@pytest.mark.parametrize("name", NAMES)
def test_each_reward_keeps_the_reward_contract(name):
    from grpo_rewards.testing import assert_reward_contract

    params = {"pattern": REGEX_PATTERN} if name == "format.regex" else {}
    assert_reward_contract(name, params=params)


@pytest.mark.parametrize("short", IMPORTABLE)
def test_trl_cli_import_path_resolves_to_the_reward(short):
    import importlib

    module_path, attr = f"grpo_rewards_format.{short}".rsplit(".", 1)  # what `trl grpo --reward_funcs` does
    assert getattr(importlib.import_module(module_path), attr) is getattr(fmt, short)


def test_rewards_accept_the_keyword_arguments_grpo_trainer_passes():
    logged: dict[str, float] = {}
    text = "<think>\n1. add\n2. check\n3. answer\n</think>\n<answer>\n\\boxed{4}\n</answer>"
    kwargs = {"trainer_state": object(), "log_extra": lambda *a: None, "log_metric": logged.__setitem__,
              "solution": ["4"], "completion_ids": [[1, 2, 3]]}
    values = [getattr(fmt, short)(prompts=["2 + 2?"], completions=[text], **kwargs)[0] for short in IMPORTABLE]
    assert values == [1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0]
    assert logged["outcomes/format.think_answer/unreadable"] == 0.0
