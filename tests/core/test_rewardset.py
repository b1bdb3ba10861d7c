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
    assert rs.metrics == ["fixture.shout", "offset_len"]
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
        "entry 1: unknown reward 'fixture.shuot' (did you mean 'fixture.shout'?).",
        "entry 2 (fixture.shout): parameter 'bonus' must be float, got 'high'",
        "entry 2 (fixture.shout): unknown parameter 'volume' (parameters: bonus)",
        "entry 3 (fixture.offset): ValueError: offset must be >= 0, got -1",
        "entry 4 (fixture.matches): unknown key(s) colour (allowed: as, error_value, execution, inputs, invalid_value, "
        "max_chars, max_memory, on_error, timeout, timeout_value, too_large_value, use, weight, with, workers)",
        "entry 4 (fixture.matches): weight must be a number, got 'heavy'",
        "entry 5 (fixture.shout): on_error must be one of raise, none, got 'ignore'",
        "metric name 'fixture.shout' is used by entry 2 (fixture.shout) and entry 5 (fixture.shout); "
        "give each an 'as:' name",
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

    monkeypatch.setattr(registry.rewards["fixture.shout"], "_scorer", counting_shout)
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


def test_manifest_records_the_options_each_reward_runs_with(registry):
    rs = load_reward_set([{"use": "fixture.sleepy", "workers": 2}], registry=registry)
    assert rs.manifest()[0]["options"] == {"timeout": 0.5, "workers": 2}


def test_execution_options_reach_the_reward(registry):
    rs = load_reward_set([{"use": "fixture.sleepy", "timeout": 0.3, "timeout_value": -1.0}], registry=registry)
    assert rs.rewards[0](prompts=["p", "p"], completions=["spin", "ab"]) == [-1.0, 2.0]


def test_option_errors_are_found_in_the_same_pass_and_labelled_like_the_rest(registry):
    spec = [
        {"use": "fixture.shout", "max_chars": -1, "with": {"volume": 1}},
        {"use": "fixture.offset", "workers": -3, "as": "o"},
        {"use": "fixture.sleepy", "timeout": 0},
    ]
    with pytest.raises(RewardSetError) as err:
        load_reward_set(spec, registry=registry)
    assert err.value.problems == [
        "entry 1 (fixture.shout): unknown parameter 'volume' (parameters: bonus)",
        "entry 1 (fixture.shout): max_chars must be an integer >= 1 or None, got -1",
        "entry 2 (fixture.offset): workers must be an integer >= 1 or None, got -3",
        "entry 3 (fixture.sleepy): timeout must be a positive number or None, got 0",
    ]


def test_a_timeout_on_a_reward_registered_worker_unsafe_is_refused_at_validation():
    from grpo_rewards import hookimpl
    from grpo_rewards.testing import plugin_registered

    class Plugin:
        @hookimpl
        def register_rewards(self, register):
            register("local", _length, worker_safe=False)

    with plugin_registered(Plugin(), "demo"), pytest.raises(RewardSetError) as err:
        load_reward_set([{"use": "demo.local", "timeout": 2}])
    assert err.value.problems == [
        "entry 1 (demo.local): timeout needs worker processes, and this reward is registered worker_safe=False "
        "(its code cannot run in one); remove the timeout"]


def _length(text, **row):
    return float(len(text))


def test_a_dataset_column_named_like_a_parameter_is_reported_and_the_parameter_wins(registry):
    spec = [{"use": "fixture.shout", "with": {"bonus": 0.5}}]
    with pytest.raises(RewardSetError) as err:
        load_reward_set(spec, registry=registry, columns=["prompt", "bonus"])
    assert err.value.problems == [
        "entry 1 (fixture.shout): dataset column(s) 'bonus' have the name of a parameter; the parameter's value "
        "is used, not the column (rename the column to use it)"]
    reward = load_reward_set(spec, registry=registry).rewards[0]
    assert reward(prompts=["p"], completions=["HI"], bonus=[100.0]) == [1.5]


def test_a_failing_entry_used_by_anothers_inputs_is_reported_once(registry):
    spec = [
        {"use": "fixture.offset", "with": {"offset": -1}, "max_chars": -1, "as": "base"},
        {"use": "fixture.matches", "inputs": {"solution": "base"}},
        {"use": "fixture.shout", "inputs": {"base": "base"}},
    ]
    with pytest.raises(RewardSetError) as err:
        load_reward_set(spec, registry=registry, columns=["prompt"])
    assert err.value.problems == [
        "entry 1 (fixture.offset): max_chars must be an integer >= 1 or None, got -1",
        "entry 1 (fixture.offset): ValueError: offset must be >= 0, got -1",
    ]


def test_a_billion_laughs_file_gives_a_short_error_quickly(registry, tmp_path):
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
    path = tmp_path / "laughs.yaml"
    path.write_text("\n".join(lines) + "\nrewards:\n  - *a9\n  - use: fixture.shout\n    weight: *a9\n")
    with pytest.raises(RewardSetError) as err:
        load_reward_set(path, registry=registry)
    assert len(str(err.value)) < 600
    assert err.value.problems == ["unknown top-level key(s) 'a0', 'a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7', 'a8', "
                                  "'a9' (allowed: rewards, execution, concurrent)"]


def test_file_errors_are_one_line_naming_the_file(registry, tmp_path):
    folder = tmp_path / "sets"
    folder.mkdir()
    latin = tmp_path / "latin.yaml"
    latin.write_bytes(b"rewards: [caf\xe9]")
    bad = tmp_path / "bad.yaml"
    bad.write_text("rewards: [a\n  - b: c")
    messages = {}
    for path in (tmp_path / "none.yaml", folder, latin, bad):
        with pytest.raises(RewardSetError) as err:
            load_reward_set(path, registry=registry)
        messages[path.name] = str(err.value)
    assert messages == {
        "none.yaml": f"{tmp_path / 'none.yaml'}: file not found",
        "sets": f"{folder}: not a file (expected a YAML file with a 'rewards:' list)",
        "latin.yaml": f"{latin}: not UTF-8 text: invalid continuation byte at byte 13",
        "bad.yaml": messages["bad.yaml"],
    }
    assert messages["bad.yaml"].startswith(f"{bad}: not valid YAML: ") and "\n" not in messages["bad.yaml"]
