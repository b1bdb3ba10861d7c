"""Reward sets: parsed from YAML or dicts, validated whole, resolved for GRPOConfig."""

from __future__ import annotations

import pytest

from grpo_rewards import RewardSetError, load_reward_set


def test_yaml_set_resolves_into_reward_funcs_and_weights(registry, tmp_path):
    path = tmp_path / "set.yaml"
    path.write_text(
        "rewards:\n"
        "  - use: fixture.shout\n"
        "    weight: 1.0\n"
        "  - use: fixture.offset\n"
        "    weight: 0.25\n"
        "    with: {offset: 2}\n"
        "    as: offset_len\n"
    )
    rs = load_reward_set(path, registry=registry)
    assert rs.names == ["fixture.shout", "offset_len"]
    assert rs.reward_weights == [1.0, 0.25]
    assert [f.__name__ for f in rs.reward_funcs] == ["fixture.shout", "offset_len"]
    assert rs.reward_funcs[1](prompts=["p"], completions=["abc"]) == [5.0]
    assert rs.total([1.0, 5.0]) == 2.25


def test_every_problem_is_reported_at_once(registry):
    spec = {"rewards": [
        {"use": "fixture.shuot"},
        {"use": "fixture.shout", "with": {"bonus": "high", "volume": 11}},
        {"use": "fixture.offset", "with": {"offset": -1}},
        {"use": "fixture.matches", "weight": "heavy", "colour": "red"},
        {"use": "fixture.shout", "on_error": "ignore"},
    ]}
    with pytest.raises(RewardSetError) as err:
        load_reward_set(spec, registry=registry, columns=["prompt"])
    assert err.value.problems == [
        "entry 1: unknown reward 'fixture.shuot'. Did you mean 'fixture.shout'?",
        "entry 2 (fixture.shout): parameter 'bonus' must be float, got 'high'",
        "entry 2 (fixture.shout): unknown parameter 'volume' (parameters: bonus)",
        "entry 3 (fixture.offset): ValueError: offset must be >= 0, got -1",
        "entry 4 (fixture.matches): unknown key(s) colour (allowed: as, error_value, inputs, invalid_value, "
        "max_chars, on_error, timeout, timeout_value, too_large_value, use, weight, with, workers)",
        "entry 4 (fixture.matches): weight must be a number, got 'heavy'",
        "entry 5 (fixture.shout): on_error must be one of raise, none, got 'ignore'",
        "metric name 'fixture.shout' is used by more than one entry; give each an 'as:' name",
        "entry 4 (fixture.matches): needs dataset column(s) 'solution'; the dataset has: prompt",
    ]


def test_a_parameter_value_the_factory_rejects_is_a_setup_error(registry):
    with pytest.raises(RewardSetError) as err:
        load_reward_set([{"use": "fixture.offset", "with": {"offset": -1}}], registry=registry)
    assert err.value.problems == ["entry 1 (fixture.offset): ValueError: offset must be >= 0, got -1"]


def test_inputs_must_name_an_entry_and_must_not_cycle(registry):
    spec = [
        {"use": "fixture.shout", "as": "a", "inputs": {"x": "b"}},
        {"use": "fixture.shout", "as": "b", "inputs": {"y": "a"}},
        {"use": "fixture.shout", "as": "c", "inputs": {"z": "nope"}},
    ]
    with pytest.raises(RewardSetError) as err:
        load_reward_set(spec, registry=registry)
    assert err.value.problems == [
        "entry 3 (fixture.shout): inputs.z names 'nope', not an entry of this set",
        "inputs form a cycle: a -> b -> a",
    ]


def test_a_reward_uses_another_rewards_result_without_computing_it_twice(registry, monkeypatch):
    import grpo_rewards_fixture_good as good

    calls = []
    original = good.shout

    def counting_shout(text, **row):
        calls.append(text)
        return original(text, **row)

    monkeypatch.setattr(registry.rewards["fixture.shout"], "obj", counting_shout)
    spec = [
        {"use": "fixture.matches", "as": "loud_match", "inputs": {"solution": "loud"}},
        {"use": "fixture.shout", "as": "loud"},
    ]
    rs = load_reward_set(spec, registry=registry, columns=["prompt"])
    prompts, completions = ["p", "p"], ["A", "b"]
    first = rs.reward_funcs[0](prompts=prompts, completions=completions)
    second = rs.reward_funcs[1](prompts=prompts, completions=completions)
    assert second == [1.0, 0.0]
    assert first == [0.0, 0.0]  # "A" != "1.0": the solution column holds loud's values
    assert calls == ["A", "b"]  # computed once, reused by the second call


def test_empty_or_malformed_sets_are_errors(registry, tmp_path):
    with pytest.raises(RewardSetError, match="non-empty list"):
        load_reward_set({"rewards": []}, registry=registry)
    bad = tmp_path / "bad.yaml"
    bad.write_text("rewards: [use: {\n")
    with pytest.raises(RewardSetError, match="not valid YAML"):
        load_reward_set(bad, registry=registry)
    with pytest.raises(RewardSetError, match="file not found"):
        load_reward_set(str(tmp_path / "missing.yaml"), registry=registry)


def test_manifest_records_resolved_parameters_and_plugin_versions(registry):
    rs = load_reward_set([{"use": "fixture.shout", "weight": 0.5}], registry=registry)
    assert rs.manifest() == [{
        "name": "fixture.shout", "use": "fixture.shout", "weight": 0.5, "params": {"bonus": 0.0},
        "inputs": {}, "options": {}, "plugin": "fixture", "distribution": "grpo-rewards-fixture-good",
        "version": "1.2.3",
    }]


def test_execution_options_reach_the_reward(registry):
    rs = load_reward_set([{"use": "fixture.sleepy", "timeout": 0.3, "timeout_value": -1.0}], registry=registry)
    assert rs.rewards[0](prompts=["p", "p"], completions=["spin", "ab"]) == [-1.0, 2.0]
